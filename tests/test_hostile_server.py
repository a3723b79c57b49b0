"""The language server over stdio meets hostile files: a cfg open in the editor that names a FIFO,
a device, a folder and a symbolic link loop gets its findings (NN006 with the reason) and the
server keeps answering; before the guarded reader it blocked for good on the FIFO."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp

from lsp.conftest import CONFIG, EditorClient, start_session

pytestmark = [pytest.mark.asyncio, pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")]


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: EditorClient):
    yield
    try:  # a server blocked on a read never shuts down: fail instead of hanging the suite
        await asyncio.wait_for(lsp_client.shutdown_session(), 15)
    except asyncio.TimeoutError:
        if lsp_client._server is not None:
            lsp_client._server.kill()
        pytest.fail("the server did not shut down within 15 s")


async def test_cfg_naming_a_fifo_device_folder_and_loop(client, tmp_path: Path):
    os.mkfifo(tmp_path / "list.fifo")
    os.mkfifo(tmp_path / "net.prototxt")
    (tmp_path / "means").mkdir()
    os.symlink("loop_b", tmp_path / "loop_a")
    os.symlink("loop_a", tmp_path / "loop_b")
    (tmp_path / "pipeline.cfg").write_text(  # beside it: read when the server looks for cfgs
        "[prototxt_file] ./net.prototxt\n", encoding="utf-8")
    os.mkfifo(tmp_path / "other.cfg")  # a FIFO among the cfgs beside the prototxt
    cfg_text = ("[prototxt_file] ./net.prototxt\n[caffemodel_file] /dev/zero\n[image_list] ./list.fifo\n"
                "[mean_file] ./means\n[roi_coordinate_file] ./loop_a\n[image_type] 1\n[norm_type] 1\n")
    cfg = tmp_path / "net.cfg"
    cfg.write_text(cfg_text, encoding="utf-8")
    await start_session(client, "visual-studio-code", root=tmp_path)
    uri = client.open(cfg, "nnie-cfg")
    # bounded here too: a pull request for a document whose lint blocks never returns
    items = await asyncio.wait_for(client.diagnostics_for(
        uri, predicate=lambda ds: sum(1 for d in ds if d.code == "NN006") >= 5, timeout=30), 40)
    messages = sorted(d.message for d in items if d.code == "NN006")
    assert messages == [
        "[caffemodel_file] /dev/zero: a device, not a regular file: not read",
        "[image_list] ./list.fifo: a FIFO (named pipe), not a regular file: not read "
        "(reading it would wait for a writer)",
        "[mean_file] ./means: a folder, not a file",
        "[prototxt_file] ./net.prototxt: a FIFO (named pipe), not a regular file: not read "
        "(reading it would wait for a writer)",
        "[roi_coordinate_file] ./loop_a: a symbolic link loop (the link leads back to itself): not read",
    ]
    line = next(d for d in items if "list.fifo" in d.message).range.start.line
    assert line == 2
    # still answering: hover on a key
    hover = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(line=6, character=3)))
    assert hover is not None

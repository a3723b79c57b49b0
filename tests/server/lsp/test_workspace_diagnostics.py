"""Workspace diagnostics (`nnie.lint.workspace`, nnie_lsp/server/workspace_lint.py), end to end over
stdio with the VS Code (pull) and Neovim (push) presets: the files that are not open get their
findings published; skipped folders and non-NNIE files do not; an open file has its own
diagnostics only; watched-file changes, deletion, the cap and turning the setting off."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest_lsp
from lsprotocol import types as lsp
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig

from .conftest import EXAMPLE, SERVER, TIMEOUT, EditorClient, make_client, start_session

ON = {"lint": {"workspace": True}}


@pytest_lsp.fixture(params=["visual-studio-code", "neovim"],
                    config=ClientServerConfig(server_command=SERVER, client_factory=make_client,
                                              server_env={**os.environ, "PYTHONUNBUFFERED": "1",
                                                          "NNIE_LSP_WORKSPACE_MAX_FILES": "6"}))
async def wclient(request, lsp_client: EditorClient):
    lsp_client.preset = request.param
    yield
    await lsp_client.shutdown_session()


def workspace(tmp_path: Path) -> Path:
    """Two projects, and files the scan must leave alone."""
    root = tmp_path / "ws"
    for name in ("a", "b"):
        shutil.copytree(EXAMPLE, root / name, ignore=shutil.ignore_patterns("*.caffemodel", "make_weights.py"))
    for skipped in ("node_modules/pkg", ".hidden", ".venv/lib"):
        (root / skipped).mkdir(parents=True)
        shutil.copy(EXAMPLE / "model.prototxt", root / skipped / "model.prototxt")
    (root / "setup.cfg").write_text("[metadata]\nname = x\n")
    (root / "solver.prototxt").write_text('net: "a/model.prototxt"\nbase_lr: 0.01\nmax_iter: 100\n')
    return root


async def published(client: EditorClient, uri: str, predicate, timeout: float = TIMEOUT):
    """The newest list published for `uri` once it matches `predicate`."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        lists = client.published.get(uri, [])
        if lists and predicate(list(lists[-1].diagnostics)):
            return list(lists[-1].diagnostics)
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"nothing matching published for {uri}: {[len(p.diagnostics) for p in lists]}")
        await asyncio.sleep(0.05)


def codes(items) -> set:
    return {d.code for d in items}


async def test_the_problems_list_covers_the_workspace(wclient, tmp_path):
    client = wclient
    root = workspace(tmp_path)
    await start_session(client, client.preset, root=root, init_options=ON)
    proto_b = from_fs_path(str(root / "b" / "model.prototxt"))
    cfg_a = from_fs_path(str(root / "a" / "tiny_face_inst.cfg"))
    items = await published(client, proto_b, lambda ds: "NN301" in codes(ds))
    assert all(d.source == "nnie-lint" for d in items)
    await published(client, cfg_a, lambda ds: True)
    # skipped folders, setup.cfg and the solver file are never linted
    for path in ("node_modules/pkg/model.prototxt", ".hidden/model.prototxt", ".venv/lib/model.prototxt",
                 "setup.cfg", "solver.prototxt"):
        assert from_fs_path(str(root / path)) not in client.published, path
    # progress, then the summary in the log
    titles = [vs[0].title for vs in client.progress_reports.values() if vs and vs[0].kind == "begin"]
    assert "NNIE: linting the workspace" in titles
    for _ in range(100):
        if any(m.message.startswith("workspace: 4 file(s) linted") for m in client.log_messages):
            break
        await asyncio.sleep(0.05)
    assert any(m.message.startswith("workspace: 4 file(s) linted") for m in client.log_messages)

    # an open file: its own diagnostics only (a pull client is told to drop the published list)
    uri = client.open(root / "b" / "model.prototxt", "prototxt")
    own = await client.diagnostics_for(uri, predicate=lambda ds: "NN301" in codes(ds))
    if client.pull:
        await published(client, proto_b, lambda ds: ds == [])
        assert own
    # closed: published again, from the saved text
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))
    await published(client, proto_b, lambda ds: "NN301" in codes(ds))

    # a file changed on disk (VS Code watches them for the server): linted again
    watched = client.preset == "visual-studio-code"    # Neovim's preset cannot register file watchers
    proto_a = root / "a" / "model.prototxt"
    proto_a_uri = from_fs_path(str(proto_a))
    before = len(await published(client, proto_a_uri, lambda ds: bool(ds)))
    proto_a.write_text(proto_a.read_text() + '\nlayer { name: "extra" type: "Bogus" bottom: "data" top: "extra" }\n')
    client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(changes=[
        lsp.FileEvent(uri=proto_a_uri, type=lsp.FileChangeType.Changed)]))
    if watched:
        await published(client, proto_a_uri, lambda ds: len(ds) > before)
        proto_a.unlink()
        client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(changes=[
            lsp.FileEvent(uri=proto_a_uri, type=lsp.FileChangeType.Deleted)]))
        await published(client, proto_a_uri, lambda ds: ds == [])

    # turned off: every published list is withdrawn
    client.set_configuration({"lint": {"workspace": False}}, section="nnie")
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={"nnie": {"lint": {"workspace": False}}}))
    await published(client, cfg_a, lambda ds: ds == [])
    await published(client, proto_b, lambda ds: ds == [])


async def test_off_by_default_and_capped_with_a_message(wclient, tmp_path):
    client = wclient
    root = workspace(tmp_path)
    await start_session(client, client.preset, root=root)
    await asyncio.sleep(1.0)
    assert not client.published, "off by default: nothing but the open files"
    for n in range(4):   # 8 files now, over the bound of 6 this server was started with
        shutil.copytree(root / "a", root / f"c{n}")
    client.set_configuration(ON, section="nnie")
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={"nnie": ON}))
    for _ in range(200):
        if client.messages:
            break
        await asyncio.sleep(0.05)
    [message] = client.messages
    assert message.type == lsp.MessageType.Warning
    assert message.message.startswith("nnie-lsp: the workspace holds more than 6 cfg/prototxt files: only the first 6")
    for _ in range(200):
        if sum(1 for ps in client.published.values() if ps) >= 6:
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.3)
    assert sum(1 for ps in client.published.values() if ps) == 6

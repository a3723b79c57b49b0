"""The stage board in the editor, over stdio with the real `nnie-triage`: on a copy of
examples/board (the real MTCNN det1 at 36×36, a board program that read prob1 without the stride),
`nnie.triage` with the cfg alone finds output/, mapper_quant/ and board/, names the stage (T601 on
prob1's layer) and records board/ with the result, which goes stale when the board's dumps change."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from lsprotocol import types as lsp

from .conftest import REPO, find_line, start_session

pytestmark = pytest.mark.asyncio


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "examples" / "board", tmp_path / "board")
    shutil.copytree(REPO / "examples" / "triage" / "model", tmp_path / "triage" / "model")
    shutil.copy(REPO / "examples" / "triage" / "test1.jpg", tmp_path / "triage" / "test1.jpg")
    return tmp_path / "board"


async def test_board_found_beside_the_cfg_names_the_stage(client, project):
    cfg, proto = project / "net.cfg", project / "det1_36x36.prototxt"
    await start_session(client, client.preset, root=project)
    uri = client.open(proto, "prototxt")
    result = await asyncio.wait_for(client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="nnie.triage", arguments=[{"cfg": str(cfg)}])), 120)
    assert result["verdict"] == "board: prob1 read with a row stride of 52 bytes, not 64", result["verdict"]
    assert result["next_step"] == 7 and result["case"] is None
    assert result["editor"]["inputs"]["board"]["path"] == str(project / "board")
    assert result["editor"]["inputs"]["board"]["origin"] == "discovered"
    items = await client.diagnostics_for(uri, predicate=lambda ds: any(d.code == "T601" for d in ds))
    text = client.texts[uri]
    assert [d.range.start.line for d in items if d.code == "T601"] == [find_line(text, 'name: "prob1"')]
    assert not result["editor"]["stale"]
    (project / "board" / "prob1.bin").write_bytes((project / "board" / "prob1.bin").read_bytes() + bytes(4))
    await asyncio.sleep(2.2)          # dump folders are checked again at most every 2 s
    stored = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="nnie.triageResult", arguments=[{"cfg": str(cfg)}]))
    assert stored["editor"]["stale"] and stored["editor"]["stale_reasons"] == ["the board's dumps changed after the run"]

"""The `.wk` in the editor, over stdio: the cross-check findings live on the cfg, the hover on
[instruction_name] shows the `.wk`'s summary, the cfg's code lens says what was built and opens the
`.wk`'s view, and ``nnie.describeWk`` renders the table (the VS Code client's read-only editor)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lsprotocol import types as lsp

from .conftest import find_line, start_session

pytestmark = pytest.mark.asyncio

DATA = Path(__file__).resolve().parents[2] / "data"


def codes(items) -> list[str]:
    return sorted(str(d.code) for d in items)


@pytest.fixture
def enet(tmp_path: Path) -> Path:
    (tmp_path / "caffe_model").mkdir()
    (tmp_path / "nnie_model").mkdir()
    cfg = (DATA / "cfg" / "Strand2013__NNIE-lite__Converter-ENet-model_inst.cfg").read_text(encoding="utf-8")
    (tmp_path / "model_inst.cfg").write_text(cfg.replace("[compile_mode] 1", "[compile_mode] 0"), encoding="utf-8")
    shutil.copy(DATA / "prototxt" / "real" / "Strand2013__NNIE-lite__Converter-ENet-caffe_model-bn_conv_merged_model.prototxt",
                tmp_path / "caffe_model" / "bn_conv_merged_model.prototxt")
    shutil.copy(DATA / "wk" / "Strand2013__NNIE-lite__ENet_cityscapes.wk", tmp_path / "nnie_model" / "ENet_cityscapes.wk")
    return tmp_path


async def test_the_wk_on_the_cfg(client, enet):
    await start_session(client, client.preset)
    uri = client.open(enet / "model_inst.cfg", "nnie-cfg")
    items = await client.diagnostics_for(uri, predicate=lambda ds: "NN604" in codes(ds))
    text = client.texts[uri]
    (nn604,) = [d for d in items if d.code == "NN604"]
    assert nn604.range.start.line == find_line(text, "[compile_mode]")
    assert "ENet_cityscapes.wk is a 16-bit build" in nn604.message
    assert nn604.related_information[0].location.uri.endswith("/nnie_model/ENet_cityscapes.wk")

    line = find_line(text, "[instruction_name]")
    hover = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(line=line, character=3)))
    assert "**ENet_cityscapes.wk** — intact" in hover.contents.value
    assert "input `data`: 512×1024×3 (H×W×C), U8" in hover.contents.value

    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))
    (lens,) = [item for item in lenses if item.command and item.command.command == "nnie.openWk"]
    assert lens.range.start.line == line
    assert lens.command.title == "built: 16-bit [I], 1 segment, 1 output, needs 85.0 MiB + 67.5 MiB blobs"
    path = lens.command.arguments[0]["path"]
    assert path.endswith("ENet_cityscapes.wk")

    view = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="nnie.describeWk", arguments=[{"path": path}]))
    assert view["intact"] and view["title"] == "ENet_cityscapes.wk"
    assert "1.2.0.5_B010 [I]" in view["text"] and "<pre>" in view["html"]
    assert view["model"]["segments"][0]["sources"][0]["width"] == 1024


async def test_describing_a_damaged_and_a_foreign_file(client, tmp_path):
    await start_session(client, client.preset)
    pointer = tmp_path / "model.wk"
    pointer.write_bytes(b"version https://git-lfs.github.com/spec/v1\noid sha256:ab\nsize 12\n")
    view = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="nnie.describeWk", arguments=[{"path": str(pointer)}]))
    assert view["intact"] is False and "Git LFS pointer" in view["error"] and "(at byte 0x0)" in view["html"]

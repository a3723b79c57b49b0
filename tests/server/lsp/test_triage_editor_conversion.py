"""The conversion stage in the editor (issue 19), over stdio with the real `nnie-triage`: with the
dumps where the tools write them beside the cfg (output/, output_onnx/ from `reference --onnx`,
mapper_quant_emulated/), `nnie.triage` with the cfg alone finds the ONNX side too, names the stage
(T501 on pool1) and the inlay hints show both hops on each layer, ONNX→Caffe beside Caffe→NNIE; the
stored result records the ONNX side and is stale once the ONNX model changes."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from lsprotocol import types as lsp

from .conftest import REPO, find_line, start_session

pytest.importorskip("onnxruntime")
pytest.importorskip("cv2")

pytestmark = pytest.mark.asyncio

EXAMPLE = REPO / "examples" / "conversion"
IMAGE = REPO / "examples" / "triage" / "test1.jpg"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """examples/conversion with its three dump folders at their default places beside the cfg."""
    from nnie_lsp.testing.conversion_chain import triage

    dest = tmp_path / "conversion"
    shutil.copytree(EXAMPLE, dest)
    (tmp_path / "triage").mkdir()
    shutil.copy(IMAGE, tmp_path / "triage" / "test1.jpg")      # images.txt: ../triage/test1.jpg
    cfg = str(dest / "det1.cfg")
    for args in (["reference", "--cfg", cfg], ["reference", "--cfg", cfg, "--onnx", str(dest / "det1.onnx")],
                 ["emulate", "--cfg", cfg]):
        code, out = triage([*args, "--transpose", "--progress", "none"])
        assert code == 0, out
    return dest


async def test_both_hops_on_the_layer_from_the_cfg_alone(client, project):
    cfg, proto = project / "det1.cfg", project / "det1.prototxt"
    await start_session(client, client.preset, root=project)
    uri = client.open(proto, "prototxt")
    result = await asyncio.wait_for(client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="nnie.triage", arguments=[{"cfg": str(cfg)}])), 120)
    assert result["verdict"].endswith("from pool1 on"), result["verdict"]
    assert result["framework"]["folder"] == str(project / "output_onnx")
    items = await client.diagnostics_for(uri, predicate=lambda ds: any(d.code == "T501" for d in ds))
    text = client.texts[uri]
    pool1 = find_line(text, 'name: "pool1"')
    assert [d.range.start.line for d in items if d.code == "T501"] == [pool1]
    hints = await client.text_document_inlay_hint_async(lsp.InlayHintParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri),
        range=lsp.Range(start=lsp.Position(line=0, character=0),
                        end=lsp.Position(line=len(text.split("\n")), character=0))))
    by_line = {h.position.line: h.label for h in hints}
    conv1 = find_line(text, 'name: "conv1"')
    rows = {r["name"]: r for r in result["layers"]}
    assert by_line[conv1] == f"ONNX→Caffe {rows['conv1']['framework_cosine']:.4f} · Caffe→NNIE " \
                             f"{rows['conv1']['cosine']:.4f}"
    assert by_line[conv1].startswith("ONNX→Caffe 1.0000")        # before pool1 the conversion is faithful
    assert by_line[pool1].startswith("ONNX→Caffe size differs · Caffe→NNIE ")   # 12×12 against ONNX's 11×11
    assert all("ONNX→Caffe" in label for label in by_line.values())
    # the stored result knows the ONNX side: its folder as found, and its model (stale when either changes)
    assert result["editor"]["inputs"]["framework"]["path"] == str(project / "output_onnx")
    assert result["editor"]["inputs"]["framework"]["origin"] == "discovered"
    assert not result["editor"]["stale"]
    model = project / "det1.onnx"
    model.write_bytes(model.read_bytes() + b"\0")
    await asyncio.sleep(2.2)          # dump folders and the model are checked again at most every 2 s
    stored = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="nnie.triageResult", arguments=[{"cfg": str(cfg)}]))
    assert stored["editor"]["stale"] and stored["editor"]["stale_reasons"] == ["the ONNX model changed after the run"]

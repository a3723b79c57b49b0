"""``output_onnx/`` beside the cfg (where ``nnie-triage reference --onnx`` writes by default) is found
for ``compare --cfg`` like the other dump folders, and the discovery says who wrote it (en/zh)."""

from __future__ import annotations

import json

import pytest

from nnie_lsp.triage.inputs.beside_cfg import complete_inputs, discover
from nnie_lsp.triage.inputs.folder_names import DUMP_MANIFEST, ONNX_OUTPUT_DIR

CFG = "[prototxt_file] ./net.prototxt\n[caffemodel_file] ./net.caffemodel\n[compile_mode] 0\n"


def _project(tmp_path, *, manifest: dict | None, dumps: bool = True):
    (tmp_path / "net.cfg").write_text(CFG, encoding="utf-8")
    for name in ("output", "mapper_quant", ONNX_OUTPUT_DIR):
        (tmp_path / name).mkdir()
        if dumps:
            (tmp_path / name / "conv1_output0_4_6_6_caffe.linear.float").write_text("0\n", encoding="utf-8")
    if manifest is not None:
        (tmp_path / ONNX_OUTPUT_DIR / DUMP_MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    return str(tmp_path / "net.cfg")


def test_output_onnx_beside_the_cfg_is_the_framework_side(tmp_path):
    cfg = _project(tmp_path, manifest={"tool": "nnie-triage", "command": "reference", "framework": "onnx", "files": []})
    found = discover(cfg).get("framework")
    assert found is not None and found.path == str(tmp_path / ONNX_OUTPUT_DIR) and found.origin == "discovered"
    assert found.rule == "output_onnx/ beside the cfg (ONNX Runtime, written by nnie-triage reference --onnx)"
    assert discover(cfg, lang="zh").get("framework").rule == \
        "cfg 旁的 output_onnx/（ONNX Runtime，由 nnie-triage reference --onnx 写入）"
    inputs = complete_inputs(cfg)
    assert inputs.framework == str(tmp_path / ONNX_OUTPUT_DIR) and "framework" in inputs.discovered
    assert inputs.origin("framework")["origin"] == "discovered"
    assert any(line.startswith("framework: output_onnx/") for line in discover(cfg).looked_for)


def test_without_manifest_only_the_name_tells(tmp_path):
    cfg = _project(tmp_path, manifest=None)
    assert "no manifest says what wrote it" in discover(cfg).get("framework").rule


def test_a_given_framework_is_kept_and_none_is_no_error(tmp_path):
    cfg = _project(tmp_path, manifest={"tool": "nnie-triage", "command": "reference", "framework": "onnx"})
    other = tmp_path / "elsewhere"
    other.mkdir()
    inputs = complete_inputs(cfg, framework=str(other))
    assert inputs.framework == str(other) and "framework" not in inputs.discovered
    assert inputs.origin("framework")["origin"] == "given"
    empty = tmp_path / "p2"
    empty.mkdir()
    (empty / "net.cfg").write_text(CFG, encoding="utf-8")
    for name in ("output", "mapper_quant"):
        (empty / name).mkdir()
        (empty / name / "conv1_output0_4_6_6_caffe.linear.float").write_text("0\n", encoding="utf-8")
    (empty / ONNX_OUTPUT_DIR).mkdir()   # empty: not taken, said why
    d = discover(str(empty / "net.cfg"))
    assert d.get("framework") is None and d.tried["framework"][0]["why"] == "is empty"
    assert complete_inputs(str(empty / "net.cfg")).framework is None


def test_compare_with_the_cfg_alone_finds_the_onnx_side(tmp_path):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("cv2")
    from nnie_lsp.testing import onnx_models as m
    from nnie_lsp.testing.conversion_chain import triage, write_project
    from nnie_lsp.testing.onnx_models_convert import convert
    from nnie_lsp.testing.shared_files import corpus_dir

    image = corpus_dir("models") / "mtcnn" / "test1.jpg"
    if not image.is_file():
        pytest.skip("the shared corpus's test image is absent")
    model = m.chain_net(seed=2, size=16)
    conv = convert(model, "relu6_to_relu")
    p = write_project(tmp_path, model, conv, [image], transpose=False)
    cfg = str(p.cfg)
    for args in (["reference", "--cfg", cfg], ["reference", "--cfg", cfg, "--onnx", str(p.onnx)],
                 ["emulate", "--cfg", cfg]):   # every one to its default folder beside the cfg
        code, out = triage([*args, "--progress", "none"])
        assert code == 0, out
    code, out = triage(["compare", "--cfg", cfg, "--format", "json", "--output", str(tmp_path / "r.json"),
                        "--progress", "none", "--previous", "none"])
    assert code in (0, 1), out
    from nnie_lsp.triage.inputs.folders import shown as as_shown

    folder = tmp_path / ONNX_OUTPUT_DIR   # shown relative to the working folder unless that climbs two up
    shown = as_shown(str(folder))
    assert f"framework: {shown} — output_onnx/ beside the cfg (ONNX Runtime, written by " \
           "nnie-triage reference --onnx)" in out, out
    doc = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert doc["framework"]["folder"] == str(tmp_path / ONNX_OUTPUT_DIR)
    assert doc["verdict"].endswith("from relu6 on")

"""The ONNX side of the conversion stage in a stored triage result (issue 19): the editor's record
knows the ``framework`` input (the dumps of ``nnie-triage reference --onnx``), and the result is
stale when those dumps or the ONNX model they were made from changed after the run
(nnie_lsp/triage/store.py, nnie_lsp/server/triage/carry_over.py)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from nnie_lsp.server.triage import carry_over
from nnie_lsp.triage import store
from nnie_lsp.triage.inputs.image_sets import write_manifest

from .test_triage_discovery_store import dumps, project


def _onnx_dumps(root: Path, model: Path) -> Path:
    """output_onnx/ as `reference --onnx` writes it: Caffe-named dumps, a manifest naming the model."""
    folder = dumps(root / "output_onnx", "caffe.linear.float")
    write_manifest(folder, {"command": "reference", "framework": "onnx", "onnx": str(model),
                            "onnx_sha256": hashlib.sha256(model.read_bytes()).hexdigest(),
                            "files": [str(p) for p in folder.iterdir()]})
    return folder


def framework_record(tmp_path: Path) -> store.StoredTriage:
    cfg = project(tmp_path)
    root = cfg.parent
    model = root / "net.onnx"
    model.write_bytes(b"\x08\x07onnx-model-bytes")
    result = {"schema_version": 2, "case": None, "verdict": "conversion: Caffe already differs from the ONNX model "
              "from pool1 on", "next_step": 0, "first_divergence": None, "findings": [],
              "framework": {"folder": str(root / "output_onnx"), "onnx": str(model)}}
    inputs = {"reference": {"path": str(dumps(root / "output", "caffe.linear.float")), "origin": "discovered",
                            "rule": "output/"},
              "sim": {"path": str(dumps(root / "mapper_quant")), "origin": "discovered", "rule": "mapper_quant/"},
              "framework": {"path": str(_onnx_dumps(root, model)), "origin": "discovered",
                            "rule": "output_onnx/ beside the cfg"}}
    return store.new_record(str(cfg), result, cfg=str(cfg), prototxt=str(root / "net.prototxt"), inputs=inputs)


def test_the_record_and_the_editor_object_know_the_onnx_side(tmp_path):
    record = framework_record(tmp_path)
    root = Path(record.owner).parent
    assert record.stamps["framework"]["files"] == 3                      # two dumps and the manifest
    assert record.stamps["onnx"]["path"] == str(root / "net.onnx")
    assert record.stamps["onnx"]["sha256"] == hashlib.sha256((root / "net.onnx").read_bytes()).hexdigest()
    store.save(record)
    again = store.load(record.paths.json)
    assert again.input_path("framework") == str(root / "output_onnx")
    assert store.changed_inputs(again) == []
    info = carry_over.editor_info(again, stale_reasons=[], counts={}, text_report=None)
    assert info["inputs"]["framework"] == {"path": str(root / "output_onnx"), "origin": "discovered",
                                           "rule": "output_onnx/ beside the cfg"}


def test_stale_when_the_onnx_dumps_change(tmp_path):
    record = framework_record(tmp_path)
    folder = Path(record.input_path("framework"))
    (folder / "conv2_output0_4_4_4_caffe.linear.float").write_text("1\n")
    assert store.changed_inputs(record) == ["framework"]
    assert store.changed_inputs(record, check_folders=False) == []
    assert carry_over.stale_reasons(["framework"]) == ["the ONNX model's dumps changed after the run"]
    assert carry_over.stale_reasons(["framework"], "zh") == ["运行后ONNX 模型的 dump 数据已改动"]


def test_stale_when_the_onnx_model_changes_not_when_it_is_touched(tmp_path):
    record = framework_record(tmp_path)
    model = Path(record.stamps["onnx"]["path"])
    os.utime(model, ns=(5, 5))                      # touched, same bytes: not a change (hashed once)
    assert store.changed_inputs(record) == []
    model.write_bytes(b"\x08\x07onnx-model-BYTES")  # same size, other bytes
    os.utime(model, ns=(7, 7))
    assert store.changed_inputs(record) == ["onnx"]
    assert carry_over.stale_reasons(["onnx"]) == ["the ONNX model changed after the run"]
    model.unlink()
    assert store.changed_inputs(record) == ["onnx"]


def test_no_onnx_stamp_without_a_manifest_naming_the_model(tmp_path):
    cfg = project(tmp_path)
    folder = dumps(cfg.parent / "onnx_elsewhere", "caffe.linear.float")     # dumps of another tool
    record = store.new_record(str(cfg), {"schema_version": 2}, cfg=str(cfg), prototxt=None,
                              inputs={"framework": {"path": str(folder), "origin": "given", "rule": None}})
    assert record.stamps["onnx"] is None and record.stamps["framework"]["files"] == 2
    assert store.changed_inputs(record) == []

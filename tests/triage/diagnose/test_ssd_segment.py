"""A real SSD (yufacedetectnet, 24 conv + Normalize/Permute/Flatten/PriorBox/DetectionOutput):
the Caffe reference and the NNIE emulation cover the NNIE segment, CPU-side layers are skipped
and named, and the comparison comes out as case 4 (post-processing) with every layer aligned."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nnie_lsp.testing.shared_files import shared_dir
from nnie_lsp.cli.triage import main

HERE = Path(__file__).resolve()
IMAGE = HERE.parents[3] / "examples" / "triage" / "test1.jpg"


def _model() -> Path | None:
    for base in (shared_dir(),):
        p = base / "corpus" / "models" / "yufacedetectnet-v1"
        if (p / "yufacedetectnet-open-v1.caffemodel").is_file():
            return p
    return None


def test_ssd_reference_emulate_compare(tmp_path, capsys):
    pytest.importorskip("cv2")
    m = _model()
    if m is None:
        pytest.skip("shared yufacedetectnet model not available")
    proto, weights = m / "yufacedetectnet-open-v1.prototxt", m / "yufacedetectnet-open-v1.caffemodel"
    cfg = tmp_path / "ssd.cfg"
    (tmp_path / "mean.txt").write_text("104\n117\n123\n")
    cfg.write_text(f"[prototxt_file] {proto}\n[caffemodel_file] {weights}\n[image_type] 1\n"
                   f"[norm_type] 2\n[mean_file] {tmp_path / 'mean.txt'}\n[RGB_order] BGR\n")
    common = ["--prototxt", str(proto), "--caffemodel", str(weights), "--image", str(IMAGE), "--cfg", str(cfg)]
    assert main(["reference", *common, "-o", str(tmp_path / "caffe")]) == 0
    assert main(["emulate", *common, "-o", str(tmp_path / "sim")]) == 0
    out = capsys.readouterr().out
    assert "not emulated: 6 CPU-side layer(s)" in out and "detection_out" in out
    assert main(["compare", "--reference", str(tmp_path / "caffe"), "--sim", str(tmp_path / "sim"),
                 "--prototxt", str(proto), "--cfg", str(cfg), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["case"] == 4 and doc["next_step"] == 5
    names = [r["name"] for r in doc["layers"]]
    assert "mbox_conf_softmax" in names and "conv3_3_norm_mbox_loc_perm" in names
    assert all(r["matched_by"] == "name" for r in doc["layers"])
    assert min(r["cosine"] for r in doc["layers"]) > 0.99

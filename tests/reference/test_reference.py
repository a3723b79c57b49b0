"""Reference forward (OpenCV) and numpy forward on the real det1, and the command line writing both sides."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from nnie_lsp.reference.caffe_forward import run_reference, write_reference_dumps
from nnie_lsp.emulation.emulate import EmulationOptions, emulate
from nnie_lsp.reference.net import load_net
from nnie_lsp.reference.numpy_forward import forward
from nnie_lsp.reference.preprocess import Preprocessing, load_image, normalize
from nnie_lsp.emulation.quant import QUANT8, QUANT16, LogQuantizer, to_fixed_20_12
from nnie_lsp.testing.scenarios import MTCNN_PREP
from nnie_lsp.readers.dumpio.scan import scan_dumps
from nnie_lsp.triage.measure.metrics import cosine

from pathlib import Path

DET1_DIR = Path(__file__).resolve().parent.parent / "data" / "triage" / "mtcnn"
IMAGE = Path(__file__).resolve().parents[2] / "examples" / "triage" / "test1.jpg"  # MTCNN test1.jpg (MIT)

PROTO, MODEL = DET1_DIR / "det1.prototxt", DET1_DIR / "det1.caffemodel"


def test_numpy_forward_matches_opencv_on_real_det1():
    net = load_net(PROTO, MODEL)
    x = normalize(load_image(IMAGE, (3, 48, 48), MTCNN_PREP), MTCNN_PREP)[None]
    ref = run_reference(PROTO, MODEL, [x[0]], Preprocessing())  # raw array input, no normalization
    ours = {t: v for _, w in forward(net, {"data": x}) for t, v in w.items()}
    for blob, arr in ref.blobs.items():
        if blob == "data":
            continue
        assert np.max(np.abs(ours[blob].reshape(arr.shape) - arr)) < 1e-3, blob


def test_reference_dumps_every_blob_incl_data(tmp_path):
    run = run_reference(PROTO, MODEL, [IMAGE], MTCNN_PREP)
    # in-place chain: blob conv1 is the PReLU output (last writer), not the raw conv
    assert np.allclose(run.blobs["conv1"], run.layer_outputs["PReLU1"][0])
    assert not np.allclose(run.blobs["conv1"], run.layer_outputs["conv1"][0])
    # mapper order: mean first, then scale
    assert run.inputs["data"].min() >= -1.0 and run.inputs["data"].max() <= 1.0
    files = write_reference_dumps(run, tmp_path)
    names = sorted(p.name for p in files)
    assert "data_output0_3_48_48_caffe.linear.float" in names
    assert "conv1_output0_10_46_46_caffe.linear.float" in names
    ds = scan_dumps(str(tmp_path))
    keys = {t.key for t in ds.tensors}
    assert {"data", "conv1", "pool1", "conv2", "conv3", "conv4-1", "conv4-2", "prob1"} <= keys
    t = next(t for t in ds.tensors if t.key == "conv2")
    assert np.allclose(t.load().reshape(run.blobs["conv2"].shape), run.blobs["conv2"], atol=1e-6)


def test_cli_reference_and_emulate(tmp_path):
    from nnie_lsp.cli.triage import main

    cfg = tmp_path / "m.cfg"
    (tmp_path / "mean.txt").write_text("127.5\n127.5\n127.5\n")
    (tmp_path / "list.txt").write_text(f"{IMAGE}\n")
    cfg.write_text(f"[norm_type] 5\n[mean_file] {tmp_path / 'mean.txt'}\n[data_scale] 0.0078125\n"
                   f"[RGB_order] RGB\n[image_list] {tmp_path / 'list.txt'}\n[image_type] 1\n")
    assert main(["reference", "--prototxt", str(PROTO), "--caffemodel", str(MODEL), "--cfg", str(cfg),
                 "--transpose", "-o", str(tmp_path / "ref")]) == 0
    d = scan_dumps(str(tmp_path / "ref"))
    data = next(t for t in d.tensors if t.key == "data").load()
    assert abs(data.max()) <= 1.0 and data.min() < 0
    assert main(["emulate", "--prototxt", str(PROTO), "--caffemodel", str(MODEL), "--cfg", str(cfg),
                 "--transpose", "--format", "inst", "-o", str(tmp_path / "sim")]) == 0
    assert len(list((tmp_path / "sim").glob("seg0_layer*_output0_inst.linear.hex"))) == 7
    assert main(["reference", "--prototxt", str(PROTO), "--caffemodel", str(MODEL),
                 "--image", str(tmp_path / "nope.jpg"), "-o", str(tmp_path / "x")]) == 2


def test_cli_reference_reads_relative_cfg_paths_like_the_lint(tmp_path, monkeypatch):
    """`--cfg` with relative [mean_file]/[image_list]: resolved beside the cfg first (the lint's
    order), even when the working directory holds a different mean.txt."""
    from nnie_lsp.cli.triage import main

    proj, work = tmp_path / "proj", tmp_path / "work"
    proj.mkdir()
    work.mkdir()
    (proj / "mean.txt").write_text("127.5\n127.5\n127.5\n")
    (work / "mean.txt").write_text("0\n0\n0\n")  # would give data in [0, 2] if it were read
    (proj / "list.txt").write_text(f"{IMAGE}\n")
    cfg = proj / "m.cfg"
    cfg.write_text("[norm_type] 5\n[mean_file] ./mean.txt\n[data_scale] 0.0078125\n"
                   "[RGB_order] RGB\n[image_list] ./list.txt\n[image_type] 1\n")
    monkeypatch.chdir(work)
    assert main(["reference", "--prototxt", str(PROTO), "--caffemodel", str(MODEL), "--cfg", str(cfg),
                 "--transpose", "-o", str(tmp_path / "ref")]) == 0
    data = next(t for t in scan_dumps(str(tmp_path / "ref")).tensors if t.key == "data").load()
    assert data.min() < -0.5 and data.max() <= 1.0
    cfg.write_text(cfg.read_text().replace("[norm_type] 5", "[norm_type] 9"))
    assert main(["reference", "--prototxt", str(PROTO), "--caffemodel", str(MODEL), "--cfg", str(cfg),
                 "-o", str(tmp_path / "bad")]) == 2  # a clear message, no traceback

"""Reference forward (OpenCV), numpy forward, NNIE quantizers and emulation on the real det1."""
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
from nnie_lsp.readers.dumpio import scan_dumps
from nnie_lsp.triage.measure.metrics import cosine

from pathlib import Path

DET1_DIR = Path(__file__).resolve().parent.parent / "data" / "triage" / "mtcnn"
IMAGE = Path(__file__).resolve().parents[2] / "examples" / "triage" / "test1.jpg"  # MTCNN test1.jpg (MIT)

PROTO, MODEL = DET1_DIR / "det1.prototxt", DET1_DIR / "det1.caffemodel"


def test_quantizer_codes_follow_the_log_formula():
    """§11 formula on the grid measured in §16.5: zero is the -0 pattern 0x80, and positive
    magnitude code 0 is the smallest level clip*2^(-127/16) (128 magnitudes plus zero)."""
    clip = 2.0 ** (37 / 16)
    z = round(16 * np.log2(clip)) - 127
    assert QUANT8.z(clip) == z
    smallest = clip * 2 ** (-127 / 16)
    values = np.array([clip, -clip, 0.0, clip * 2 ** (-100 / 16), smallest, -smallest, smallest * 0.4])
    codes, c = QUANT8.encode(values, clip)
    assert c == clip
    assert list(codes) == [127, 0x80 | 127, 0x80, 27, 0, 0x81, 0x80]
    assert np.allclose(QUANT8.decode(codes, clip), [clip, -clip, 0.0, 2 ** ((27 + z) / 16), smallest,
                                                    -clip * 2 ** (-126 / 16), 0.0])
    assert len(QUANT8.levels(clip)) == 128 and QUANT8.levels(clip)[-1] == clip


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1e3, 1e3, allow_nan=False).filter(lambda v: v == 0 or abs(v) > 1e-20), min_size=2, max_size=50))
def test_quantizer_relative_error_bounds(values):
    x = np.asarray(values)
    q = QUANT8.quantize(x)
    clip = QUANT8.clip_value(x)
    big = np.abs(x) >= clip * 2 ** (-100 / 16)
    # half a code step in log2 is 1/32 octave: relative error <= 2**(1/32)-1 (~2.2 %)
    assert np.all(np.abs(q[big] - x[big]) <= np.abs(x[big]) * (2 ** (1 / 32) - 1) + 1e-6)
    assert np.all(np.sign(q[big]) == np.sign(x[big]))
    q16 = QUANT16.quantize(x)
    assert np.all(np.abs(q16[big] - x[big]) <= np.abs(x[big]) * (2 ** (1 / 4096) - 1) * 1.01 + 1e-6)


def test_bad_bits_rejected():
    from nnie_lsp.emulation.quant import quantizer_for

    with pytest.raises(ValueError):
        quantizer_for(4)
    assert LogQuantizer(16).max_code == 32767


def test_fixed_point_grid():
    v = to_fixed_20_12(np.array([0.1, -3.00001]))
    assert np.allclose(v * 4096, np.round(v * 4096))


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


def test_emulation_8bit_close_16bit_closer_noise_decays():
    net = load_net(PROTO, MODEL)
    x = normalize(load_image(IMAGE, (3, 48, 48), MTCNN_PREP), MTCNN_PREP)[None]
    ref = {t: v for _, w in forward(net, {"data": x}) for t, v in w.items()}
    c8 = [cosine(ref[o.top], o.value) for o in emulate(net, {"data": x}).outputs]
    c16 = [cosine(ref[o.top], o.value) for o in emulate(net, {"data": x}, EmulationOptions(bits=16)).outputs]
    cn = [cosine(ref[o.top], o.value) for o in emulate(net, {"data": x}, EmulationOptions(noise=0.05)).outputs]
    assert min(c8) > 0.99 and min(c8) < 0.99999  # real quantization loss, but small
    assert min(c16) > 0.99999
    assert cn[0] > 0.99 and min(cn) < 0.95  # good start, decays


def test_emulation_reports_one_output_per_inplace_chain():
    net = load_net(PROTO, MODEL)
    run = emulate(net, {"data": np.zeros((1, 3, 48, 48), np.float32)})
    assert [o.layer for o in run.outputs] == ["conv1", "pool1", "conv2", "conv3", "conv4-1", "conv4-2", "prob1"]
    assert run.outputs[0].layers == ["conv1", "PReLU1"]


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

"""The NNIE side: the 8/16-bit log quantizers and the emulation on the real det1."""
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


"""The preprocessing fit's two limits live in ``Thresholds``; ``emulate``
writes only the files nnie_mapper writes (no ``<input>_output0_…_quant.linear.hex`` for the net's
input: the data reaches mapper_quant as the first layer's dequantized input); a bias-free
power-of-two preprocessing fault is not called a decoding fault when the data says otherwise, and
the verdict says so when the data cannot tell the two apart."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from nnie_lsp.triage.diagnose import preprocess_fit
from nnie_lsp.triage.diagnose.preprocess_fit import fit_preprocessing
from nnie_lsp.triage.diagnose.tree import diagnose
from nnie_lsp.triage.measure.metrics import Thresholds, compare_arrays
from nnie_lsp.triage.measure.rows import LayerRow

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "triage"

# ----------------------------------------------------------------------------- thresholds


def test_the_fit_limits_are_thresholds_with_their_old_values():
    th = Thresholds()
    assert th.fit_scale_tolerance == 1.5e-3 and th.fit_r2 == 0.995
    assert not hasattr(preprocess_fit, "SCALE_TOL") and not hasattr(preprocess_fit, "R2_GOOD")
    assert Thresholds.from_mapping({"fit_r2": "0.9", "fit_scale_tolerance": "0.01"}).fit_r2 == 0.9
    with pytest.raises(ValueError):
        Thresholds.from_mapping({"fit_r2": "2"})


def _data(seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.integers(0, 256, (3, 16, 16)) - 127.5) / 128


def test_the_scale_tolerance_is_read_from_the_thresholds_passed():
    ref = _data()
    sim = ref * 1.003  # a real 0.3 % gain: above the default 0.15 %, inside a looser 0.5 %
    assert fit_preprocessing(ref, sim).needed_scale is not None
    loose = fit_preprocessing(ref, sim, thresholds=Thresholds(fit_scale_tolerance=0.005))
    assert loose.needed_scale is None and not any("data_scale" in f for f in loose.findings)


def test_the_r2_limit_is_read_from_the_thresholds_passed():
    rng = np.random.default_rng(4)
    ref = _data()
    sim = ref + rng.normal(0, 0.06, ref.shape)  # R² about 0.99: linear enough for 0.98, not for 0.995
    assert not fit_preprocessing(ref, sim).consistent
    fit = fit_preprocessing(ref, sim, thresholds=Thresholds(fit_r2=0.98))
    assert 0.98 < fit.r2 < 0.995 and fit.consistent
    rows = [LayerRow("data", 0, compare_arrays(ref, sim), ref=ref, sim=sim, is_data=True, shape=ref.shape),
            LayerRow("conv1", 1, compare_arrays(ref, ref), ref=ref, sim=ref, is_output=True)]
    not_linear = lambda d: [f for f in d.findings if f.code == "T106" and "not a per-channel linear" in f.message]  # noqa: E731
    assert not_linear(diagnose(rows))
    assert not not_linear(diagnose(rows, thresholds=Thresholds(fit_r2=0.98)))


# ----------------------------------------------------------------------------- emulate's files

#: what a real mapper_quant folder holds (docs/field-facts.md §10.1, §16.1)
REAL = re.compile(r"^.+_(output\d+_(\d+_)*\d+_quant\.linear\.hex|input\d+_(\d+_)*\d+_(anti_quant(\.linear)?\.float"
                  r"|quant\.nonlinear\.hex))$")


@pytest.fixture(scope="module")
def emulated(tmp_path_factory):
    from nnie_lsp.cli.triage import main

    root = tmp_path_factory.mktemp("emulate_files")
    cfg = EXAMPLES / "quant_noise" / "sim.cfg"
    # the images fed transposed, as the example's model card says MTCNN was trained (the reference follows it)
    assert main(["emulate", "--cfg", str(cfg), "--transpose", "-o", str(root / "sim")]) == 0
    assert main(["reference", "--cfg", str(cfg), "-o", str(root / "caffe")]) == 0
    return root, cfg


def test_emulate_writes_only_the_files_the_mapper_writes(emulated):
    from nnie_lsp.readers.dumpio.readers import read_text_floats

    root, _cfg = emulated
    dumps = sorted(p.name for p in (root / "sim").iterdir() if p.name != "nnie-triage-dumps.json")
    assert dumps and all(REAL.match(name) for name in dumps), [n for n in dumps if not REAL.match(n)]
    assert not any(name.startswith("data_") for name in dumps)  # the net's input is no layer of the mapper
    # the data, as the mapper has it: conv1's dequantized input, in the C++ stream form, = Caffe's data
    (data,) = [n for n in dumps if n.startswith("conv1_input0_")]
    assert data == "conv1_input0_3_20_20_anti_quant.float"
    lines = (root / "sim" / data).read_bytes().split(b"\n")[:-1]
    assert len(lines) == 3 * 20 * 20 and all(len(line.lstrip(b"-").replace(b".", b"").lstrip(b"0")) <= 6 for line in lines)
    from nnie_lsp.readers.dumpio.scan import scan_dumps

    caffe = next(t for t in scan_dumps(str(root / "caffe")).tensors if t.key == "data").load_raw()
    got = read_text_floats(root / "sim" / data)
    assert np.all(np.abs(got - caffe) <= 5.0000001e-6 * np.abs(caffe))


def test_compare_finds_the_data_in_the_first_layers_input(emulated, capsys):
    from nnie_lsp.cli.triage import main

    root, cfg = emulated
    capsys.readouterr()
    assert main(["compare", "--reference", str(root / "caffe"), "--sim", str(root / "sim"), "--cfg", str(cfg),
                 "--format", "json", "--no-record"]) == 0
    doc = json.loads(capsys.readouterr().out)
    data = doc["layers"][0]
    assert data["name"] == "data" and data["cosine"] > 0.999999
    assert any("input dump of layer 'conv1'" in n for n in doc["alignment_notes"])
    assert doc["case"] != 1


# ----------------------------------------------------------------------------- ×2 preprocessing vs decoding


def _bias_free_run(factor: float, *, integer_pixels: bool, seed: int = 5) -> list[LayerRow]:
    """Caffe's data is x/128 with no mean; the NNIE's is x/(128·factor) (its [data_scale] off by a
    power of two).  The net has no biases, so every layer carries the same factor -- the very
    signature of a decoding fault.  With ``integer_pixels`` the data stays on the 2^-12 grid a
    20.12 dump has (a fixed-point data dump read with the wrong fraction bits would look the same);
    without (a resized image), it cannot have come out of a fixed-point dump."""
    rng = np.random.default_rng(seed)
    px = rng.integers(0, 256, (3, 24, 24)).astype(float) if integer_pixels else rng.uniform(0, 255, (3, 24, 24))
    ref, sim = px / 128, px / (128 * factor)
    rows = [LayerRow("data", 0, compare_arrays(ref, sim), ref=ref, sim=sim, is_data=True, shape=ref.shape)]
    r, s = ref, sim
    for i in range(5):
        w = rng.standard_normal((8, r.shape[0]))
        r, s = np.maximum(np.tensordot(w, r, 1), 0), np.maximum(np.tensordot(w, s, 1), 0)
        rows.append(LayerRow(f"conv{i + 1}", i + 1, compare_arrays(r, s), ref=r, sim=s, is_output=True, shape=r.shape))
    return rows


@pytest.mark.parametrize("factor", [2.0, 4.0, 16.0, 0.5])
def test_a_data_tensor_no_decoder_made_is_preprocessing(factor):
    """The NNIE data is not on the fixed-point grid the factor would imply: no decoder read it with
    the wrong fraction bits, so the factor began at the input -- case 1, not T006."""
    d = diagnose(_bias_free_run(factor, integer_pixels=False))
    assert d.case == 1 and d.decoding is None, d.verdict
    assert "T006" not in [f.code for f in d.findings]


@pytest.mark.parametrize("factor", [2.0, 16.0])
def test_when_the_data_cannot_tell_the_verdict_says_both(factor):
    """Integer pixels: the data sits on the 20.12 grid after the factor too, so a decoder reading
    every dump (the data's included) with the wrong fraction bits and a [data_scale] off by the same
    factor on a bias-free net give the same numbers.  The verdict names both, and which evidence
    decides."""
    d = diagnose(_bias_free_run(factor, integer_pixels=True))
    assert d.decoding is not None and d.decoding["preprocessing_possible"]
    (t006,) = [f for f in d.findings if f.code == "T006"]
    assert "data_scale" in t006.message and "cannot tell" in t006.message
    assert "data_scale" in d.reason

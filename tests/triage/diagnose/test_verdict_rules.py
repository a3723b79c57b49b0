"""The verdict rules calibrated on issue 16 (docs/field-facts.md §12), one test per rule, on tensors
of real layer shapes (MTCNN O-Net / SSD-like) with seeded values.

The benchmark (``benchmarks/bench_verdicts.py``) measures the rules on real nets with its own
faults; these tests use other shapes, seeds and magnitudes so that it stays an honest measure:

1. decoding before case 1: one factor on every layer (T006), named when it is a power of two;
   a factor the cfg's own data grid explains is preprocessing (case 1);
2. the all-good path: layers under ``magnitude_min_size`` values do not count, a best scale within
   the 8-bit band is case 4 (T401 names the largest drift), outside it one layer's scale (T001,
   step 4);
3. quantization before layer matching: a 16-bit run ≥ good at every dip is case 2; the ends are
   the blobs no NNIE layer reads; an in-place split explains a dip only when applying the layer
   confirms it;
4. ``mean_tolerance`` (grey levels) in the preprocessing fit.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from nnie_lsp.triage.diagnose.builder import Sources
from nnie_lsp.triage.diagnose.tree import diagnose
from nnie_lsp.triage.measure.metrics import Thresholds, compare_arrays
from nnie_lsp.triage.measure.rows import LayerRow

# MTCNN O-Net-like activations (C, H, W) / (C,) and two tiny heads
ONET = [("conv1", (32, 46, 46)), ("pool1", (32, 23, 23)), ("conv2", (64, 21, 21)), ("pool2", (64, 10, 10)),
        ("conv3", (64, 8, 8)), ("pool3", (64, 4, 4)), ("conv4", (128, 3, 3)), ("conv5", (256,)),
        ("conv6-1", (2,)), ("conv6-2", (4,)), ("conv6-3", (10,))]


def codes(diag) -> list[str]:
    return [f.code for f in diag.findings]


def _row(name, order, ref, sim, **kw) -> LayerRow:
    ref = np.asarray(ref, dtype=np.float64)
    sim = np.asarray(sim, dtype=np.float64).reshape(ref.shape)
    return LayerRow(name=name, order=order, metrics=compare_arrays(ref, sim), ref=ref, sim=sim,
                    shape=ref.shape, **kw)


def _eight_bit(x: np.ndarray, rng: np.random.Generator, noise: float = 0.01) -> np.ndarray:
    """A value as an 8-bit run leaves it: a little gain drift and noise."""
    return x * (1 + rng.normal(0, 0.005)) + rng.normal(0, noise * (np.std(x) or 1.0), x.shape)


def _pixels(rng: np.random.Generator, shape=(3, 48, 48)) -> np.ndarray:
    return rng.integers(0, 256, shape).astype(np.float64)


def onet_rows(seed: int, *, factor: float = 1.0, data_factor: float | None = None, data: bool = True,
              layers=ONET, scale=(127.5, 0.0078125)) -> list[LayerRow]:
    """Caffe and an 8-bit run of an O-Net-shaped net; the simulator's values × `factor` (the data
    × `data_factor`, default `factor`)."""
    rng = np.random.default_rng(seed)
    rows = []
    if data:
        mean, s = scale
        ref = (_pixels(rng) - mean) * s
        rows.append(_row("data", 0, ref, ref * (factor if data_factor is None else data_factor), is_data=True))
    for i, (name, shape) in enumerate(layers, 1):
        ref = np.maximum(rng.standard_normal(shape), 0) * rng.uniform(0.5, 4) if len(shape) == 3 else \
            rng.standard_normal(shape)
        rows.append(_row(name, i, ref, _eight_bit(ref, rng) * factor, is_output=name.startswith("conv6")))
    return rows


# ----------------------------------------------------------------------------- 1. decoding

@pytest.mark.parametrize(("factor", "cause", "words"), [
    (16.0, "fraction_bits_16", "16 fraction bits"),
    (1 / 16, "fraction_bits_8", "12 fraction bits"),
    (256.0, "power_of_two", "differ from the ones they were written with by 8"),
])
def test_one_factor_on_every_layer_and_the_data_is_decoding_not_case1(factor, cause, words):
    d = diagnose(onet_rows(41, factor=factor))
    assert d.case is None and d.next_step == 1 and d.verdict.startswith("decoding:")
    assert d.decoding["cause"] == cause and d.decoding["sim_times"] == pytest.approx(factor, rel=0.05)
    assert codes(d) == ["T006"] and words in d.findings[0].message and "the data layer too" in d.reason
    assert d.preprocessing is None and not any(c.startswith("T1") for c in codes(d))


def test_inst_words_without_4096_no_data_layer():
    d = diagnose(onet_rows(43, factor=4096.0, data=False))
    assert d.decoding["cause"] == "inst_4096" and "divide by 4096" in d.reason
    assert "T006" in codes(d) and "T002" not in codes(d)  # decoding comes first: nothing else is trusted


def test_layers_off_but_the_data_read_right_is_decoding():
    """mapper_quant's data comes from a float dump, the layers from 20.12 hex: a fraction-bit fault
    leaves the data right."""
    d = diagnose(onet_rows(45, factor=16.0, data_factor=1.0))
    assert d.decoding is not None and "a float dump, agrees" in d.reason


def test_a_data_factor_the_layers_do_not_share_is_not_decoding():
    d = diagnose(onet_rows(47, factor=1.0, data_factor=1 / 1.004))  # a 255/256-like data scale
    assert d.decoding is None and d.case == 1


def test_inconsistent_factors_or_too_few_layers_are_not_decoding():
    rows = onet_rows(49, factor=1.0)
    for r in rows[1::2]:  # every other layer ×16: no single factor
        r.sim = r.sim * 16
        r.metrics = compare_arrays(r.ref, r.sim)
    assert diagnose(rows).decoding is None
    # two big layers only (the others are heads under magnitude_min_size values)
    few = onet_rows(51, factor=16.0, data=False, layers=[("fc5", (64,)), ("fc6", (32,)), ("head", (4,))])
    assert diagnose(few).decoding is None


def _cfg(tmp_path: Path, text: str) -> Sources:
    (tmp_path / "net.cfg").write_text(text, encoding="utf-8")
    return Sources.read(cfg_path=tmp_path / "net.cfg")


CFG_NT3 = """[prototxt_file] ./net.prototxt
[caffemodel_file] ./net.caffemodel
[net_type] 0
[image_list] ./images.txt
[image_type] 1
[norm_type] 3
[mean_file] null
[data_scale] 0.0078125
"""


def _bias_free_rows(seed: int, sim_scale: float, ref_scale: float) -> list[LayerRow]:
    """A bias-free ReLU trunk: a data scale multiplies every layer alike."""
    rng = np.random.default_rng(seed)
    px = _pixels(rng, (3, 40, 40))
    rows = [_row("data", 0, px * ref_scale, px * sim_scale, is_data=True)]
    for i, (name, shape) in enumerate(ONET[:7], 1):
        ref = np.maximum(rng.standard_normal(shape), 0)
        rows.append(_row(name, i, ref * ref_scale, _eight_bit(ref, rng) * sim_scale, is_output=i == 7))
    return rows


def test_a_power_of_two_on_the_cfgs_own_data_grid_is_preprocessing(tmp_path):
    """The NNIE data steps by the cfg's data_scale (1/128) while Caffe was fed x/256: a factor 2 on
    every layer of a bias-free trunk, but the data is what the cfg asks for -> case 1 (data_scale)."""
    sources = _cfg(tmp_path, CFG_NT3)
    d = diagnose(_bias_free_rows(53, 1 / 128, 1 / 256), sources=sources)
    assert d.decoding is None and d.case == 1
    assert [e.key for e in d.preprocessing.edits] == ["data_scale"] and "T103" in codes(d)
    # the same numbers on twice the cfg's grid (the data decoded ×2 too): decoding
    d2 = diagnose(_bias_free_rows(53, 2 / 128, 1 / 128), sources=sources)
    assert d2.decoding is not None and d2.decoding["cause"] == "power_of_two"


# ----------------------------------------------------------------------------- 2. the all-good path

def _healthy(seed: int) -> list[LayerRow]:
    return onet_rows(seed, factor=1.0)


def _set_scale(row: LayerRow, k: float) -> None:
    row.sim = row.sim / k
    row.metrics = compare_arrays(row.ref, row.sim)


def test_a_tiny_layers_best_scale_is_ignored():
    rows = _healthy(55)
    tiny = next(r for r in rows if r.name == "conv6-1")  # 2 values
    _set_scale(tiny, 0.83)
    d = diagnose(rows)
    assert d.case == 4 and d.next_step == 5 and "T001" not in codes(d)


def test_8bit_gain_drift_with_a_large_relative_error_is_case4_and_named():
    """A long-tailed layer clipped at 8 bit (its top values cut to 0.8 of the maximum) with a gain
    drift: best scale about 0.95, max error about 0.14 of its range — case 4, the drift named."""
    rows = _healthy(57)
    conv4 = next(r for r in rows if r.name == "conv4")
    rng = np.random.default_rng(58)
    conv4.ref = np.maximum(rng.standard_normal((128, 3, 3)), 0) ** 3
    clip = 0.8 * conv4.ref.max()
    conv4.sim = np.minimum(conv4.ref, clip) * 1.07
    conv4.metrics = compare_arrays(conv4.ref, conv4.sim)
    th = Thresholds()
    m = conv4.metrics
    assert th.relative_error(m) > 0.1 and m.cosine >= th.good and abs(math.log2(m.lsq_scale)) < th.drift_band_log2
    d = diagnose(rows)
    assert d.case == 4 and codes(d) == ["T401"]
    assert f"largest drift is conv4's best scale {m.lsq_scale:.4g}" in d.findings[0].message


def test_one_layer_outside_the_band_is_its_own_scale_step4():
    rows = _healthy(59)
    _set_scale(next(r for r in rows if r.name == "conv3"), 0.6)  # |log2| 0.74
    d = diagnose(rows)
    assert d.case is None and d.next_step == 4 and d.verdict == "inconclusive: one layer's scale differs"
    (t001,) = [f for f in d.findings if f.code == "T001"]
    assert "conv3's best scale is 0.59" in t001.message and "Scale/BatchNorm" in t001.message


# ----------------------------------------------------------------------------- 3. quantization before layer matching

def _dipping(seed: int) -> list[LayerRow]:
    rows = _healthy(seed)
    rng = np.random.default_rng(seed + 1)
    for name in ("conv2", "pool2"):
        r = next(x for x in rows if x.name == name)
        r.sim = r.ref + rng.normal(0, 0.8 * np.std(r.ref), r.ref.shape)
        r.metrics = compare_arrays(r.ref, r.sim)
    return rows


def test_a_16bit_run_good_at_every_dip_is_case2_not_case3():
    rows8 = _dipping(61)
    assert diagnose(rows8).case == 3  # no 16-bit run: layer matching
    rows16 = _healthy(61)
    d = diagnose(rows8, rows16=rows16)
    assert d.case == 2 and d.verdict.endswith("confirmed by the 16-bit run")
    assert set(d.sim16["dips"]) == {"conv2", "pool2"} and d.sim16["verdict"] == "confirmed"
    assert codes(d)[:2] == ["T202", "T201"] and "T206" not in codes(d)
    # the dumps' single-layer losses (the plan is hp-plan's, made by the pipeline with the net)
    assert any(c.layer == "conv2" for c in d.hp_candidates) and not any(c.in_plan for c in d.hp_candidates)


def test_a_16bit_run_that_dips_too_leaves_it_to_layer_matching():
    rows16 = _dipping(63)
    d = diagnose(_dipping(63), rows16=rows16)
    assert d.case == 3


SSD_TAIL = """name: "ssd_tail"
input: "data"
input_shape { dim: 1 dim: 3 dim: 16 dim: 16 }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" convolution_param { num_output: 8 kernel_size: 3 pad: 1 } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer { name: "loc" type: "Convolution" bottom: "conv1" top: "loc" convolution_param { num_output: 4 kernel_size: 1 } }
layer { name: "loc_flat" type: "Flatten" bottom: "loc" top: "loc_flat" }
layer { name: "conf" type: "Convolution" bottom: "conv1" top: "conf" convolution_param { num_output: 2 kernel_size: 1 } }
layer { name: "conf_flat" type: "Flatten" bottom: "conf" top: "conf_flat" }
layer { name: "prior" type: "PriorBox" bottom: "conv1" bottom: "data" top: "prior" prior_box_param { min_size: 4 } }
layer { name: "det" type: "DetectionOutput" bottom: "loc_flat" bottom: "conf_flat" bottom: "prior" top: "det"
  detection_output_param { num_classes: 2 } }
"""


def test_ends_are_the_blobs_no_nnie_layer_reads():
    from nnie_lsp.project.project import cached_prototxt
    from nnie_lsp.readers.prototxt.nnie_ends import nnie_ends

    _doc, graph = cached_prototxt(SSD_TAIL, "ssd_tail.prototxt")
    ends = nnie_ends(graph)
    # read by DetectionOutput only (the CPU): NNIE results the triage judges; conv1 feeds NNIE layers
    assert {"loc_flat", "conf_flat"} <= ends and "conv1" not in ends and "loc" not in ends
    assert "prior" not in ends and "data" not in ends  # PriorBox runs on the CPU itself


def test_an_unconfirmed_inplace_split_is_only_possible():
    """A dip at a blob an in-place PReLU rewrites: explained when applying the PReLU to the
    simulator's value gives Caffe's, else only a possible cause (the dip counts for step 6)."""
    from nnie_lsp.triage.diagnose.layer_matching import inplace_evidence

    rng = np.random.default_rng(65)
    pre = rng.standard_normal((48, 9, 9))
    slopes = rng.uniform(0.05, 0.4, 48).reshape(48, 1, 1)
    post = np.where(pre > 0, pre, slopes * pre)
    th = Thresholds()
    split = _row("conv2", 3, post, pre + rng.normal(0, 0.01, pre.shape), inplace=[("prelu2", "PReLU")])
    assert split.cosine < th.middle_dip
    ev = inplace_evidence(split, th)  # no caffemodel: slopes fitted per channel (81 values each)
    assert ev.confirmed and ev.msg_id == "evidence_fitted"
    noisy = _row("conv2", 3, post, post + rng.normal(0, 1.0, post.shape), inplace=[("prelu2", "PReLU")])
    ev = inplace_evidence(noisy, th)
    assert not ev.confirmed and ev.msg_id == "why_applied"
    rows = [_row("data", 0, pre[:3], pre[:3], is_data=True), _row("conv1", 1, pre, pre + 1e-3), noisy,
            _row("conv3", 4, post, post + 1e-3, is_output=True)]
    d = diagnose(rows)
    (dip,) = d.dips
    assert d.case == 3 and not dip["explained"] and dip["possible"] and "0 explained" in d.reason
    assert "possible cause, not the explanation" in dip["explanation"]


def test_prelu_slopes_come_from_the_caffemodel(tmp_path):
    from nnie_lsp.readers.caffemodel import caffe_pb2
    from nnie_lsp.triage.diagnose.layer_matching import inplace_evidence

    rng = np.random.default_rng(67)
    pre = rng.standard_normal((96,))  # an InnerProduct output: one value per channel
    slopes = rng.uniform(0.05, 0.4, 96)
    post = np.where(pre > 0, pre, slopes * pre)
    msg = caffe_pb2().NetParameter()
    layer = msg.layer.add()
    layer.name, layer.type = "prelu5", "PReLU"
    blob = layer.blobs.add()
    blob.shape.dim.append(96)
    blob.data.extend(slopes.tolist())
    (tmp_path / "net.caffemodel").write_bytes(msg.SerializeToString())
    (tmp_path / "images.txt").write_text("x.jpg\n")
    sources = _cfg(tmp_path, CFG_NT3)
    row = _row("fc5", 2, post, pre, inplace=[("prelu5", "PReLU")])
    ev = inplace_evidence(row, Thresholds(), sources)
    assert ev.confirmed and ev.msg_id == "evidence_applied" and dict(ev.params)["cosine"] == "1.0000"


# ----------------------------------------------------------------------------- 4. mean tolerance

def test_mean_tolerance_in_grey_levels():
    from nnie_lsp.triage.diagnose.preprocess_fit import fit_preprocessing

    rng = np.random.default_rng(69)
    px = _pixels(rng, (3, 30, 30))
    ref = (px - 104.0) * 0.017
    off = (px - 103.6) * 0.017  # 0.4 grey level: a mean to fix at 0.25
    fit = fit_preprocessing(ref, off)  # no cfg: the offset in grey levels of the simulator's grid
    assert fit.needed_mean == pytest.approx([0.4] * 3, abs=0.01)
    assert any(e.key in ("norm_type", "mean_file") for e in fit.edits)
    loose = fit_preprocessing(ref, off, thresholds=Thresholds(mean_tolerance=0.5))
    assert not any(e.key in ("norm_type", "mean_file") for e in loose.edits)
    near = fit_preprocessing(ref, (px - 103.9) * 0.017)  # 0.1 grey level: the fit's noise, kept
    assert not any(e.key in ("norm_type", "mean_file") for e in near.edits)


# ----------------------------------------------------------------------------- thresholds

def test_every_new_threshold_is_configurable_in_its_own_range():
    th = Thresholds.from_mapping({"magnitude_min_size": "32", "decoding_min_log2": "2", "mean_tolerance": "0.5"})
    assert (th.magnitude_min_size, th.decoding_min_log2, th.mean_tolerance) == (32, 2, 0.5)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        Thresholds.from_mapping({"good": "2"})
    with pytest.raises(ValueError):
        Thresholds.from_mapping({"magnitude_min_size": "0"})
    assert math.isclose(Thresholds().drift_band_log2, 0.5)

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from nnie_lsp.triage.measure.metrics import FIXED_20_12_MAX, Thresholds, compare_arrays


def test_identical():
    a = np.linspace(-3, 5, 100)
    m = compare_arrays(a, a)
    assert m.cosine == pytest.approx(1.0) and m.max_abs_error == 0 and m.rel_l2_error == 0
    assert m.sqnr_db == math.inf and m.sign_agreement == 1.0 and m.note is None and m.lsq_scale == pytest.approx(1)
    assert m.ref_range == (-3.0, 5.0) and m.size == 100 and m.finite == 100


def test_zeros():
    z = np.zeros(10)
    m = compare_arrays(z, z)
    assert m.cosine == 1.0 and m.rel_l2_error == 0.0 and "both all-zero" in m.note
    m = compare_arrays(z, np.ones(10))
    assert m.cosine == 0.0 and m.rel_l2_error == math.inf and "reference is all-zero" in m.note
    m = compare_arrays(np.ones(10), z)
    assert m.cosine == 0.0 and m.rel_l2_error == pytest.approx(1.0) and "simulator is all-zero" in m.note
    assert m.sqnr_db == pytest.approx(0.0)


def test_sign_flip_and_scale():
    a = np.random.default_rng(0).normal(size=1000)
    m = compare_arrays(a, -a)
    assert m.cosine == pytest.approx(-1.0) and m.sign_agreement == 0.0
    m = compare_arrays(a, a * 255 / 256)
    assert m.cosine == pytest.approx(1.0) and m.lsq_scale == pytest.approx(256 / 255)
    assert m.rel_l2_error == pytest.approx(1 / 256, rel=1e-9)
    assert m.sqnr_db == pytest.approx(20 * math.log10(256), rel=1e-9)
    assert m.max_abs_error == pytest.approx(np.abs(a).max() / 256)


def test_nan_inf_counted_not_crashing():
    r = np.array([1.0, 2.0, np.nan, 4.0, np.inf])
    s = np.array([1.0, 2.0, 3.0, np.nan, 5.0])
    m = compare_arrays(r, s)
    assert (m.nan_ref, m.inf_ref, m.nan_sim, m.inf_sim) == (1, 1, 1, 0)
    assert m.finite == 2 and m.cosine == pytest.approx(1.0) and "finite" in m.note
    assert m.ref_range == (1.0, 4.0)
    m = compare_arrays(np.full(3, np.nan), np.ones(3))
    assert math.isnan(m.cosine) and "no element is finite" in m.note


def test_shape_handling():
    with pytest.raises(ValueError, match="different sizes"):
        compare_arrays(np.ones((2, 3)), np.ones(5))
    m = compare_arrays(np.ones((2, 3)), np.ones((3, 2)))
    assert "compared flattened" in m.note
    assert compare_arrays(np.zeros(0), np.zeros(0)).size == 0


def test_saturation():
    r = np.array([0.1, 0.5, 2.0, 3.0, -4.0])
    s = np.clip(r, -1, 1)
    m = compare_arrays(r, s)
    assert m.saturation_share == pytest.approx(3 / 5)
    m = compare_arrays(r, s, saturation=1.0)
    assert m.saturation_share == pytest.approx(3 / 5)
    m = compare_arrays(r, r, saturation=FIXED_20_12_MAX)
    assert m.saturation_share == 0.0


def test_chunked_accumulation_matches_direct():
    rng = np.random.default_rng(1)
    r = rng.normal(size=3_000_001).astype(np.float32)
    s = (r + rng.normal(0, 0.01, r.size)).astype(np.float32)
    m = compare_arrays(r, s)
    r64, s64 = r.astype(np.float64), s.astype(np.float64)
    assert m.cosine == pytest.approx(np.dot(r64, s64) / np.linalg.norm(r64) / np.linalg.norm(s64), rel=1e-12)
    assert m.mean_abs_error == pytest.approx(np.abs(r64 - s64).mean(), rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.integers(1, 50), elements=st.floats(-1e6, 1e6)), st.floats(0.1, 10))
def test_properties(a, k):
    m = compare_arrays(a, a * k)
    assert -1.0 <= m.cosine <= 1.0
    if np.any(np.abs(a) > 1e-300):
        assert m.cosine == pytest.approx(1.0, abs=1e-9)
        assert m.sign_agreement == 1.0
    assert m.max_abs_error >= m.mean_abs_error >= 0


def test_thresholds():
    t = Thresholds()
    assert (t.data_layer, t.good, t.decay_end, t.middle_dip) == (0.999, 0.99, 0.95, 0.90)
    t2 = Thresholds.from_mapping({"good": 0.98})
    assert t2.good == 0.98 and t2.data_layer == 0.999
    with pytest.raises(ValueError, match="unknown threshold"):
        Thresholds.from_mapping({"bogus": 1})
    with pytest.raises(ValueError):
        Thresholds.from_mapping({"good": 2})
    a = np.linspace(0, 10, 11)
    assert t.is_small_error(compare_arrays(a, a + 0.1))
    assert not t.is_small_error(compare_arrays(a, a + 1.0))
    d = compare_arrays(np.zeros(3), np.ones(3)).to_dict()
    assert d["rel_l2_error"] == "inf" and isinstance(d["ref_range"], list)

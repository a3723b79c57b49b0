"""Each seeded fault (real det1/det2 computations) must come out as the right case with the fix."""
from __future__ import annotations

import numpy as np
import pytest

from nnie_lsp.triage.diagnose import LayerRow, compare_postprocess, diagnose
from nnie_lsp.triage.metrics import compare_arrays
from nnie_lsp.triage.preprocess_fit import fit_preprocessing


def codes(doc):
    return [f["code"] for f in doc["findings"]]


def test_clean_run_is_case4(triaged):
    d = triaged("ok")
    assert d["case"] == 4 and d["next_step"] == 5 and d["first_divergence"] is None
    assert all(r["cosine"] >= 0.99 for r in d["layers"])
    assert d["layers"][0]["name"] == "data" and d["layers"][0]["is_data"]


def test_channel_swap_sets_rgb_order_on_cfg_line(triaged):
    d = triaged("channel_swap")
    assert d["case"] == 1 and d["next_step"] == 2 and d["first_divergence"] == "data"
    assert d["layers"][0]["cosine"] < 0.999
    pre = d["preprocessing"]
    assert pre["permutation"] == [2, 1, 0]
    (edit,) = pre["edits"]
    assert edit["new_line"] == "[RGB_order] RGB" and edit["old_value"] == "BGR" and edit["line_1based"] == 7
    assert "T102" in codes(d)


def test_scale_255_vs_256_is_case1_even_with_cosine_1(triaged):
    d = triaged("scale_255")
    assert d["layers"][0]["cosine"] > 0.9999  # cosine cannot see a pure scale change
    assert d["case"] == 1
    (edit,) = d["preprocessing"]["edits"]
    assert edit["key"] == "data_scale" and edit["new_value"] == "0.0039215686"
    assert "255/256" in next(f["message"] for f in d["findings"] if f["code"] == "T103")


def test_missing_mean_norm_type_3_to_5_with_mean_file(triaged):
    d = triaged("missing_mean")
    assert d["case"] == 1
    edits = {e["key"]: e for e in d["preprocessing"]["edits"]}
    assert edits["norm_type"]["old_value"] == "3" and edits["norm_type"]["new_value"] == "5"
    assert edits["mean_file"]["file_content"] == "127.5\n127.5\n127.5\n"
    assert "3 → 5" in next(f["message"] for f in d["findings"] if f.get("cfg_key") == "norm_type")


def test_growing_noise_is_case2_confirmed_by_16bit_with_hp_renames(triaged):
    d = triaged("quant_noise")
    assert d["case"] == 2 and d["next_step"] == 3
    assert d["sim16"]["verdict"] == "confirmed" and "T202" in codes(d)
    hp = d["hp_candidates"]
    assert hp[0]["layer"] == "conv1" and "conv1_hp" in hp[0]["rename"] and "top unchanged" in hp[0]["rename"]
    assert hp[0]["prototxt_line_1based"] == 9
    losses = [c["single_layer_loss"] for c in hp[1:]]
    assert losses == sorted(losses, reverse=True) and losses[0] > 0.05
    assert any(f["code"] == "T207" and f["fix"] == "[compile_mode] 2" for f in d["findings"])


def test_inplace_split_is_case3_explained(triaged):
    d = triaged("inplace_split")
    assert d["case"] == 3 and d["next_step"] == 4 and d["first_divergence"] == "conv4"
    (dip,) = d["dips"]
    assert dip["kind"] == "inplace-split" and dip["confirmed"] and dip["lint_code"] == "NN303"
    assert "prelu4" in dip["fix"]


def test_permute_layout_is_case3_explained(triaged):
    d = triaged("permute_layout")
    assert d["case"] == 3
    (dip,) = d["dips"]
    assert dip["layer"] == "conv2" and dip["kind"] == "permute" and dip["layout"] == "H,W,C"
    assert "T302" in codes(d)


def test_inst_dumps_align_without_names(triaged):
    d = triaged("inst_ok")
    assert d["case"] == 4
    assert {r["matched_by"] for r in d["layers"]} <= {"shape-order", "values", "graph", "name", "dot"}
    assert any("data" in u for u in d["unmatched"]["reference"])


def _row(name, order, ref, sim, **kw):
    return LayerRow(name=name, order=order, metrics=compare_arrays(ref, sim), ref=ref, sim=sim, **kw)


def test_16bit_run_that_does_not_help_rejects_quantization():
    rng = np.random.default_rng(0)
    a = rng.standard_normal(200)
    rows = [_row("data", 0, a, a, is_data=True), _row("c1", 1, a, a + 0.01 * rng.standard_normal(200)),
            _row("c2", 2, a, a + 2.0 * rng.standard_normal(200), is_output=True)]
    d = diagnose(rows, rows16=rows)
    assert d.case is None and d.next_step == 6 and d.sim16["verdict"] == "rejected"
    assert "T203" in [f.code for f in d.findings]


def test_mild_decay_is_inconclusive_with_reason():
    rng = np.random.default_rng(1)
    a = rng.standard_normal(500)
    rows = [_row("data", 0, a, a, is_data=True), _row("c1", 1, a, a + 0.05 * rng.standard_normal(500)),
            _row("c2", 2, a, a + 0.2 * rng.standard_normal(500), is_output=True)]
    d = diagnose(rows)
    assert d.case is None and "0.95" in d.reason and d.hp_candidates


def test_nothing_aligned_is_inconclusive():
    d = diagnose([LayerRow(name="x", order=0, metrics=None)])
    assert d.case is None and d.findings[0].code == "T001"


def test_fit_without_cfg_mean_offsets_in_grey_levels():
    rng = np.random.default_rng(2)
    x = rng.integers(0, 256, (3, 16, 16)).astype(float)
    ref = x - np.array([104, 117, 123.0]).reshape(3, 1, 1)
    fit = fit_preprocessing(ref, x)
    assert fit.needed_mean == [104.0, 117.0, 123.0]
    assert any("norm_type" in e.new_line for e in fit.edits)


def test_postprocess_comparisons():
    cls = compare_postprocess(np.array([0.1, 0.7, 0.2]), np.array([0.15, 0.6, 0.25]))
    assert cls["kind"] == "classification" and cls["top1_agree"] and cls["agree"]
    det = compare_postprocess({"boxes": [[0, 0, 10, 10], [20, 20, 30, 30]], "scores": [0.9, 0.8]},
                              {"boxes": [[1, 0, 10, 10]], "scores": [0.85]})
    assert det["matched"] == 1 and det["unmatched_ref"] == 1 and not det["agree"]
    assert det["max_score_delta"] == pytest.approx(0.05)

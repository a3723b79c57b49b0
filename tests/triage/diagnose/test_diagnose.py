"""Each seeded fault (real det1/det2 computations) must come out as the right case with the fix."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nnie_lsp.triage.diagnose.tree import diagnose
from nnie_lsp.triage.measure.metrics import compare_arrays
from nnie_lsp.triage.diagnose.postprocessing import compare_postprocess
from nnie_lsp.triage.diagnose.preprocess_fit import fit_preprocessing
from nnie_lsp.triage.measure.rows import LayerRow


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
    assert edit["new_line"] == "[RGB_order] RGB" and edit["old_value"] == "BGR" and edit["line"] == 7
    t102 = next(f for f in d["findings"] if f["code"] == "T102")
    # on the cfg's [RGB_order] value (1-based, as nnie-lint prints), with an unsafe fix replacing it
    assert t102["path"].endswith("sim.cfg") and (t102["line"], t102["column"]) == (7, 13)
    assert t102["cfg_key"] == "RGB_order" and "cfg: BGR" in t102["message"]
    (fe,) = t102["fix"]["edits"]
    assert t102["fix"]["applicability"] == "unsafe" and fe["new_text"] == "RGB"
    assert (fe["line"], fe["column"], fe["end_line"], fe["end_column"]) == (7, 13, 7, 16)


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
    t104 = next(f for f in d["findings"] if f.get("cfg_key") == "norm_type")
    assert "3 → 5" in t104["message"] and t104["code"] == "T104" and t104["line"] == 10
    # one fix: norm_type, mean_file and the new channel-mean file beside the cfg
    texts = {(Path(e["path"]).name, e["new_text"]) for e in t104["fix"]["edits"]}
    assert texts == {("sim.cfg", "5"), ("sim.cfg", "./channel_mean.txt"), ("channel_mean.txt", "127.5\n127.5\n127.5\n")}


def test_growing_noise_is_case2_confirmed_by_16bit_and_the_dumps_show_where_loss_is_born(triaged):
    """The comparison alone (run_compare: no plan stage) gives case 2 and what the dumps show: the
    layers by single-layer loss, none in a plan and no rename offered -- the plan (T207, T204) is
    hp-plan's, made by the pipeline (tests/triage/hp_plan/test_hp_plan_compare.py)."""
    d = triaged("quant_noise")
    assert d["case"] == 2 and d["next_step"] == 3
    assert d["sim16"]["verdict"] == "confirmed" and "T202" in codes(d)
    hp = d["hp_candidates"]
    losses = [c["single_layer_loss"] for c in hp]
    assert hp and losses == sorted(losses, reverse=True) and losses[0] > 0.05
    assert not any(c["in_plan"] for c in hp) and all(c["gain"] is None for c in hp)
    assert "conv1" not in [c["layer"] for c in hp[:1]] or losses[0] == max(losses)   # no first-conv-first rule
    assert hp[0]["line"] and "top unchanged" in hp[0]["rename"]
    assert not {"T204", "T207"} & set(codes(d)) and d["hp_plan"] is None


def test_inplace_split_is_case3_explained(triaged):
    d = triaged("inplace_split")
    assert d["case"] == 3 and d["next_step"] == 4 and d["first_divergence"] == "conv4"
    (dip,) = d["dips"]
    assert dip["kind"] == "inplace-split" and dip["confirmed"] and dip["lint_code"] == "NN303"
    # the engine's de-inplace fix (safe), at the in-place layer; related: the dipping producer
    assert dip["fix"]["applicability"] == "safe" and "prelu4" in dip["fix"]["message"]
    (t301,) = [f for f in d["findings"] if f["code"] == "T301"]
    assert t301["layer"] == "conv4" and t301["fix"] == dip["fix"] and "NN303" in t301["message"]
    assert 'name: "prelu4"' in Path(t301["path"]).read_text().splitlines()[t301["line"] - 1]
    assert "conv4" in t301["related"][0]["message"]


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


def test_case4_never_counts_an_uncompared_layer_as_fine():
    """A layer with no number (one side not dumped, sizes differ) is not "≥ 0.99": case 4 says how
    many layers it rests on, and T004 names the others (the issue: "every layer ≥ 0.99" was said
    while some layers had never been compared)."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal(300)
    rows = [_row("data", 0, a, a, is_data=True), _row("c1", 1, a, a + 1e-4 * rng.standard_normal(300)),
            LayerRow(name="c2", order=2, metrics=None, note="sizes differ: Caffe 300, NNIE 299"),
            LayerRow(name="c3", order=3, metrics=None),
            _row("c4", 4, a, a + 1e-4 * rng.standard_normal(300), is_output=True)]
    d = diagnose(rows)
    assert d.case == 4 and "every compared layer (2 of 4)" in d.reason and "2 not compared" in d.reason
    (t004,) = [f for f in d.findings if f.code == "T004"]
    assert "2 of the net's 4 layers" in t004.message and "c2: sizes differ" in t004.message
    assert "c3" in t004.message and "the other 2 only" in t004.message and dict(t004.data)["layer"] == "c2"
    # all compared: no T004, the plain wording
    full = diagnose([rows[0], rows[1], rows[4]])
    assert full.case == 4 and full.reason.startswith("every layer") and "T004" not in [f.code for f in full.findings]


def test_nothing_aligned_is_inconclusive():
    d = diagnose([LayerRow(name="x", order=0, metrics=None)])
    assert d.case is None and d.findings[0].code == "T001" and d.findings[0].path == ""


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

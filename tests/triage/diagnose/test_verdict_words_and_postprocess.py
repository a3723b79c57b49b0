"""The verdict names itself once in every view, T103 names the two real
scales (and never proposes [data_scale] alone where the norm_type does not scale), and
``--postprocess`` loads both of its documented forms."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from nnie_lsp.triage.diagnose.builder import Sources
from nnie_lsp.triage.diagnose.tree import diagnose
from nnie_lsp.triage.measure.metrics import compare_arrays
from nnie_lsp.triage.measure.rows import LayerRow

CFG = """[prototxt_file] ./net.prototxt
[caffemodel_file] ./net.caffemodel
[net_type] 0
[RGB_order] RGB
[image_list] ./images.txt
[image_type] 1
[norm_type] {norm_type}
[mean_file] {mean}
{scale}"""


def _sources(tmp_path: Path, norm_type: int, scale: str = "", mean: str = "null") -> Sources:
    (tmp_path / "images.txt").write_text("x.jpg\n")
    (tmp_path / "mean.txt").write_text("127.5\n127.5\n127.5\n")
    (tmp_path / "net.cfg").write_text(CFG.format(norm_type=norm_type, scale=scale, mean=mean))
    return Sources.read(cfg_path=tmp_path / "net.cfg")


def _data_rows(ref: np.ndarray, sim: np.ndarray) -> list[LayerRow]:
    rng = np.random.default_rng(71)
    body = rng.standard_normal((16, 10, 10))
    return [LayerRow("data", 0, compare_arrays(ref, sim), ref=ref, sim=sim, is_data=True, shape=ref.shape),
            LayerRow("conv1", 1, compare_arrays(body, body), ref=body, sim=body, is_output=True)]


# ----------------------------------------------------------------------------- T103

def test_t103_names_the_two_scales_of_the_cfg_and_of_caffe(tmp_path):
    """The simulator scales by 2/255 (the cfg's 0.0078431), Caffe by 1/128: the ratio is 256/255,
    never "257/256", and Caffe's scale is 1/128, never "1/256"."""
    sources = _sources(tmp_path, 5, "[data_scale] 0.007843137255\n", "./mean.txt")
    rng = np.random.default_rng(73)
    px = rng.integers(0, 256, (3, 24, 24)).astype(np.float64)
    ref = (px - 127.5) / 128
    sim = np.round((px - 127.5) * (2 / 255) * 4096) / 4096  # a 20.12 dump of the cfg's data
    d = diagnose(_data_rows(ref, sim), sources=sources)
    (t103,) = [f for f in d.findings if f.code == "T103"]
    assert "256/255" in t103.message and "257/256" not in t103.message
    assert "Caffe scales the data by 1/128, the simulator by 2/255" in t103.message
    assert "0.0078125" in t103.message
    (edit,) = [e for e in d.preprocessing.edits if e.key == "data_scale"]
    assert "Caffe by 1/128" in edit.reason and "1/256" not in edit.reason


def test_a_norm_type_that_does_not_scale_gets_norm_type_and_data_scale(tmp_path):
    """norm_type 0: the mapper ignores [data_scale]; Caffe was fed x/255 -> norm_type 3 and
    data_scale 1/255 in one fix."""
    sources = _sources(tmp_path, 0)
    rng = np.random.default_rng(75)
    px = rng.integers(0, 256, (3, 24, 24)).astype(np.float64)
    d = diagnose(_data_rows(px / 255, px), sources=sources)
    keys = [e.key for e in d.preprocessing.edits]
    assert sorted(keys) == ["data_scale", "norm_type"]
    (t103,) = [f for f in d.findings if f.code == "T103"]
    assert "norm_type 0 does not scale" in t103.message and "[norm_type] 3" in t103.message
    assert "T104" not in [f.code for f in d.findings]
    new = [fe.edit.new_text for fe in t103.fix.edits]
    assert "3" in new and any("[data_scale] 0.0039215686" in t for t in new)


# ----------------------------------------------------------------------------- --postprocess

def test_postprocess_module_function_form_loads():
    from nnie_lsp.triage.inputs.load import load_postprocess

    fn = load_postprocess("json:dumps")  # was an UnboundLocalError ('importlib' shadowed)
    assert fn({"a": 1}) == json.dumps({"a": 1})


def test_postprocess_file_with_a_dataclass_loads(tmp_path):
    from nnie_lsp.triage.inputs.load import load_postprocess

    path = tmp_path / "post.py"
    path.write_text("from dataclasses import dataclass\n\n"
                    "@dataclass\nclass Box:\n    score: float\n\n"
                    "def decode(outputs):\n    return [Box(1.0)]\n", encoding="utf-8")
    fn = load_postprocess(f"{path}:decode")
    assert fn({})[0].score == 1.0


def test_postprocess_errors_stay_input_errors(tmp_path):
    from nnie_lsp.triage.inputs.load import TriageInputError, load_postprocess

    with pytest.raises(TriageInputError, match="no function nope"):
        load_postprocess("json:nope")
    bad = tmp_path / "bad.py"
    bad.write_text("raise RuntimeError('boom')\n")
    with pytest.raises(TriageInputError, match="boom"):
        load_postprocess(f"{bad}:f")


# ----------------------------------------------------------------------------- the verdict, once

DOCS = {
    "inconclusive": ({"case": None, "next_step": 6, "verdict": "inconclusive: not quantization",
                      "reason": "the end falls to 0.6"}, "Inconclusive: not quantization"),
    "decoding": ({"case": None, "next_step": 1, "verdict": "decoding: the NNIE dumps are read with the wrong scale",
                  "reason": "every compared layer's values are 16× Caffe's"},
                 "Decoding: the NNIE dumps are read with the wrong scale"),
    "case2": ({"case": 2, "next_step": 3, "verdict": "quantization error (case 2) — confirmed by the 16-bit run",
               "reason": "good start"}, "Case 2 — quantization error — confirmed by the 16-bit run"),
}


def _doc(base: dict) -> dict:
    return {**base, "first_divergence": None, "layers": [], "findings": [], "thresholds": {}, "inputs": {}}


@pytest.mark.parametrize("kind", sorted(DOCS))
def test_the_verdict_is_named_once_in_every_view(kind):
    from nnie_lsp.server.triage.carry_over import summary
    from nnie_lsp.triage.report.render import render_html, render_markdown, render_text

    base, title = DOCS[kind]
    doc = _doc(base)
    text = render_text(doc)
    assert f"Verdict: {title}" in text and "inconclusive — inconclusive" not in text.lower()
    assert f"**{title}**" in render_markdown(doc)
    assert title.replace("'", "&#x27;") in render_html(doc)
    line = summary(doc)
    assert line.lower().count("inconclusive") <= 1 and line.lower().count("decoding") <= 1
    if kind == "decoding":
        assert line == title and "Next: step 1:" in text
    elif kind == "inconclusive":
        assert line == "Inconclusive: not quantization"


def test_a_bare_old_verdict_still_reads_once():
    from nnie_lsp.triage.report.render import verdict_title

    assert verdict_title({"case": None, "verdict": "inconclusive"}) == "Inconclusive"

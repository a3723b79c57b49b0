"""Report renderers: markdown, self-contained HTML with the plot, terminal text."""
from __future__ import annotations

import re

from nnie_lsp.triage.report import render as report


def test_html_is_self_contained_with_plot(triaged):
    doc = triaged("quant_noise")
    page = report.render_html(doc)
    assert "<svg" in page and "first divergence" in page
    assert not re.search(r"https?://", page)  # no external (or namespace) URL at all
    assert not re.search(r"<(script|link|img)\b[^>]*(src|href)=", page)
    assert doc["first_divergence"] in page and "conv1_hp" in page


def test_svg_marks_thresholds(triaged):
    svg = report.plot_svg(triaged("channel_swap"))
    assert svg.startswith("<svg") and "data layer 0.999" in svg and "middle dip 0.9" in svg


def test_markdown_and_text_views(triaged):
    doc = triaged("missing_mean")
    md = report.render_markdown(doc)
    assert "Case 1" in md and "`[norm_type] 5`" in md and "127.5, 127.5, 127.5" in md
    text = report.render_text(doc, width=160)
    assert "◀ first divergence" in text and "Verdict: Case 1" in text and "[norm_type] 5" in text
    assert report.to_json_text(doc).startswith("{")


# ------------------------------------------------------------------ the plot without matplotlib (issue 17)
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

from nnie_lsp.triage.report import svg_plot

VOID = {"meta", "br", "hr", "img", "input", "link", "area", "base", "col", "embed", "source", "track", "wbr"}
SVG_EMPTY = {"line", "circle", "polyline", "path", "rect"}


class _Balance(HTMLParser):
    """Tags must close in the order they open (void elements and self-closed SVG shapes aside)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.problems: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        pass

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
            return
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def _balanced(page: str) -> _Balance:
    parser = _Balance()
    parser.feed(page)
    parser.close()
    return parser


NASTY = '<img src=x onerror="alert(1)">&conv'


def _doc(names=("data", "conv1", NASTY, "prob1"), cosines=(1.0, 0.998, 0.7, 0.93), **extra) -> dict:
    layers = [{"name": n, "cosine": c, "status": s, "is_data": i == 0, "first_divergence": n == NASTY,
               "matched_by": "name", "confidence": 1.0, "shape": [3, 4, 4]}
              for i, (n, c, s) in enumerate(zip(names, cosines, ("ok", "ok", "bad", "poor")))]
    doc = {"schema_version": 2, "case": 2, "next_step": 3, "verdict": "quantization error (case 2)",
           "reason": "r", "first_divergence": NASTY, "inputs": {}, "layers": layers,
           "thresholds": {"data_layer": 0.999, "good": 0.99, "decay_end": 0.95, "middle_dip": 0.9,
                          "small_abs_error": 0.001},
           "findings": [], "unmatched": {"reference": [], "sim": []}}
    doc.update(extra)
    return doc


def test_html_plot_needs_no_matplotlib(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)      # import matplotlib -> ImportError
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    page = report.render_html(_doc())
    assert "plot unavailable" not in page
    assert page.count('<g class="point">') == 4
    assert report.PLOT_START in page and report.PLOT_END in page
    assert page.index(report.PLOT_START) < page.index("<svg") < page.index(report.PLOT_END)


def test_html_is_well_formed_and_escapes_layer_names():
    page = report.render_html(_doc())
    parsed = _balanced(page)
    assert not parsed.problems and parsed.stack == [], (parsed.problems, parsed.stack)
    assert NASTY not in page and "<img" not in page
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;conv" in page
    svg = page[page.index("<svg"):page.index("</svg>") + 6]
    root = ET.fromstring(svg)                                    # the SVG is well-formed XML on its own
    texts = ["".join(t.itertext()) for t in root.iter("title")]
    assert any(t.startswith(NASTY + ": cosine 0.700000 (bad)") for t in texts)  # unescaped back to the name
    assert not re.search(r"https?://|<script|\bon\w+=", svg.replace("onerror=&quot;", ""))


def test_each_point_has_a_hover_title_with_the_thresholds():
    svg = svg_plot.cosine_plot_svg(_doc())
    root = ET.fromstring(svg)
    points = [g for g in root.iter("g") if g.get("class") == "point"]
    assert len(points) == 4
    title = points[1].find("title").text
    assert title.splitlines()[0] == "conv1: cosine 0.998000 (ok)"
    assert "thresholds: data layer 0.999 · good 0.99 · decay end 0.95 · middle dip 0.9" in title
    assert "small_abs_error" not in svg                          # only the guide's cosine lines are drawn
    assert [ln.get("data-key") for ln in root.iter("line") if ln.get("class") == "threshold"] == \
        ["data_layer", "good", "decay_end", "middle_dip"]


def test_thresholds_come_from_the_report():
    doc = _doc()
    doc["thresholds"] = {"good": 0.97, "middle_dip": 0.8}       # --threshold good=0.97 middle_dip=0.8
    svg = svg_plot.cosine_plot_svg(doc)
    assert "good 0.97" in svg and "middle dip 0.8" in svg
    assert "0.999" not in svg and "decay end" not in svg
    root = ET.fromstring(svg)
    lines = {ln.get("data-key"): float(ln.get("y1")) for ln in root.iter("line") if ln.get("class") == "threshold"}
    assert lines["good"] < lines["middle_dip"]                  # higher cosine is drawn higher up


def test_rows_without_a_cosine_are_not_plotted():
    doc = _doc(cosines=(1.0, None, 0.7, float("nan")))
    svg = svg_plot.cosine_plot_svg(doc)
    assert svg.count('<g class="point">') == 2
    assert svg_plot.cosine_plot_svg(_doc(cosines=(None, None, None, None))) == ""
    page = report.render_html(_doc(cosines=(None, None, None, None)))
    assert "nothing to plot" in page and "<svg" not in page


def test_layer_rows_carry_their_place_in_the_prototxt(triaged, scenario_dirs):
    doc = triaged("quant_noise")
    lines = open(scenario_dirs("quant_noise")["prototxt"], encoding="utf-8").read().splitlines()
    placed = [r for r in doc["layers"] if r.get("line")]
    assert len(placed) == len(doc["layers"])
    for r in placed:
        assert r["path"].endswith(".prototxt")
        text = lines[r["line"] - 1]
        assert text[r["column"] - 1:].startswith(f'"{r["name"]}"') or text[r["column"] - 1:].startswith(r["name"]), (r, text)


def test_layer_table_fits_a_narrow_page():
    page = report.render_html(_doc())
    assert '<div class="table-wrap"><table class="layers">' in page
    assert "@media (max-width:760px)" in page and ".opt{display:none}" in page

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


# ------------------------------------------------------------------ confirmed fixed in the HTML report (issue 17)
T102 = {"code": "T102", "name": "rgb-order-mismatch", "title": "The channels <are> swapped",
        "path": "channel_swap/sim.cfg", "line": 7, "cfg_line": "[RGB_order] RGB",
        "changes": {"channel_swap/sim.cfg": {"written": ["[RGB_order] RGB"], "removed": ["[RGB_order] BGR"]}}}


def test_html_says_what_is_confirmed_fixed_and_what_awaits_dumps():
    waiting = {**T102, "code": "T101", "name": "mean-mismatch", "title": "Mean", "line": 9, "cfg_line": "[mean_file] m.txt"}
    page = report.render_html(_doc(case=4, confirmed_fixed=[T102], awaiting_confirmation=[waiting]))
    parsed = _balanced(page)
    assert not parsed.problems and parsed.stack == [], (parsed.problems, parsed.stack)
    block = page[page.index('<div class="confirmation"'):]
    block = block[:block.index("</div>") + 6]
    # the engine's words (nnie_lsp/triage/confirmation.py: the CLI's text and markdown say the same), escaped
    assert '<p class="confirmed">Confirmed fixed: T102 The channels &lt;are&gt; swapped (sim.cfg:7 [RGB_order] RGB)</p>' in block
    assert ('<p class="awaiting">Awaiting confirmation (the NNIE dumps were not made again after the fix): '
            "T101 Mean (sim.cfg:9 [mean_file] m.txt)</p>") in block
    # with the verdict, before the plot: what the user reads first
    assert page.index("</b>") < page.index(block) < page.index(report.PLOT_START)


def test_html_says_nothing_without_an_earlier_result_or_with_nothing_to_say():
    for extra in ({}, {"confirmed_fixed": [], "awaiting_confirmation": []}):
        page = report.render_html(_doc(**extra))
        assert 'class="confirmation"' not in page and "Confirmed fixed" not in page and "Awaiting" not in page
    only = report.render_html(_doc(confirmed_fixed=[T102], awaiting_confirmation=[]))
    assert "Confirmed fixed: T102" in only and "Awaiting" not in only


def test_the_cli_html_report_follows_the_loop(tmp_path, monkeypatch, capsys):
    """case 1 -> fix -> the old dumps (T102 awaits) -> regenerate (T102 confirmed), in the page
    `compare --html` writes (the page the editor's webview shows)."""
    import json
    import os
    import shutil
    from pathlib import Path

    import pytest

    from nnie_lsp.cli.triage import main
    from nnie_lsp.triage import store

    pytest.importorskip("cv2")
    example = Path(__file__).resolve().parents[3] / "examples" / "triage"
    for name in ("channel_swap", "model"):
        shutil.copytree(example / name, tmp_path / name)
    shutil.copy2(example / "test1.jpg", tmp_path / "test1.jpg")
    monkeypatch.chdir(tmp_path)
    cfg = tmp_path / "channel_swap" / "sim.cfg"
    page = tmp_path / "report.html"

    def compare(*extra) -> tuple[dict, str]:
        assert main(["compare", "--cfg", str(cfg), "--format", "json", "--progress", "none", "--html", str(page),
                     *extra]) == 0
        doc = json.loads(capsys.readouterr().out)
        inputs = {role: {"path": doc["inputs"][role], "origin": "discovered", "rule": ""} for role in ("reference", "sim")}
        # what the editor stores after a run (nnie_lsp/server/triage/runner.py): the next run's earlier result
        store.save(store.new_record(str(cfg), doc, cfg=str(cfg), prototxt=doc["inputs"]["prototxt"], inputs=inputs))
        return doc, page.read_text(encoding="utf-8")

    first, html_page = compare()
    assert first["case"] == 1 and 'class="confirmation"' not in html_page
    fix = next(f for f in first["findings"] if f["code"] == "T102")["fix"]
    for e in fix["edits"]:
        path = Path(os.path.abspath(e["path"]))
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        line = lines[e["line"] - 1]
        lines[e["line"] - 1] = line[:e["column"] - 1] + e["new_text"] + line[e["end_column"] - 1:]
        path.write_text("".join(lines), encoding="utf-8")
    _, html_page = compare()
    assert '<p class="awaiting">Awaiting confirmation' in html_page and "T102" in html_page
    assert "Confirmed fixed" not in html_page
    third, html_page = compare("--regenerate")
    assert third["case"] == 4
    assert '<p class="confirmed">Confirmed fixed: T102 ' in html_page and "(sim.cfg:7 [RGB_order] RGB)" in html_page
    assert "Awaiting confirmation" not in html_page


def test_cfg_edits_from_dumps_of_the_old_cfg_are_shown_withheld():
    """After the fix [RGB_order] RGB the old dumps fit "[RGB_order] BGR": never listed as an edit to make."""
    pre = {"permutation": [2, 1, 0], "transposed": False, "scale": [1.0] * 3, "offset": [0.0] * 3, "r2": 1.0,
           "edits": [{"line": 7, "new_line": "[RGB_order] BGR", "old_value": "RGB"}]}
    t008 = {"code": "T008", "severity": "warning", "message": "the NNIE dumps were made with the old cfg"}
    stale = _doc(case=1, preprocessing=pre, findings=[t008])
    for text in (report.render_text(stale, width=200), report.render_markdown(stale), report.render_html(stale)):
        assert report.EDITS_WITHHELD in text and "[RGB_order] BGR" not in text
    fresh = _doc(case=1, preprocessing=pre)
    for text in (report.render_text(fresh, width=200), report.render_markdown(fresh), report.render_html(fresh)):
        assert "[RGB_order] BGR" in text and report.EDITS_WITHHELD not in text

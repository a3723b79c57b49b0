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

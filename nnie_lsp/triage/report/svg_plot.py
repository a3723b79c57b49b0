"""The per-layer cosine plot of the HTML report, as inline SVG written directly (no plotting library).

Reads only the report JSON (``layers``, ``thresholds``, ``first_divergence``): one point per layer
whose cosine is a number, in network order, coloured by the engine's ``status`` (never by
comparing with thresholds here); the guide's four cosine thresholds as horizontal lines with their
values; the first divergence marked. Every point carries a ``<title>`` (the browser's hover
tooltip): the layer, its cosine, its status and the thresholds. The SVG scales to its container
(``viewBox``, width 100%), holds no URL and no script, and every text from the JSON is escaped.

It replaces the matplotlib figure the report used to embed: same content, plus the hover titles,
a page of a few kilobytes instead of ~40 KB of glyph paths, and the same output whether or not the
optional ``plot`` extra is installed.
"""

from __future__ import annotations

import math
from html import escape

# The colours and the threshold lines (key, label, colour, dash) are the report's palette, data the
# editor's plot shares.
from nnie_lsp.triage.report.palette import (
    DIVERGENCE_COLOUR, FRAMEWORK_COLOUR, LINE_COLOUR, STATUS_COLOUR, THRESHOLD_LINES)

_LEFT, _RIGHT, _TOP = 58, 150, 30      # margins (px in viewBox units): axis labels, threshold labels, title
_PLOT_H = 240                          # height of the plotting area
_STEP_MIN, _WIDTH_MIN = 26, 640        # px per layer, smallest drawing width
_LABEL_CHARS = 28                      # x labels longer than this are shortened (the title has the name)
_NICE_STEPS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.025, 0.05, 0.1, 0.2, 0.25, 0.5)


def _number(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _fmt(value: float, digits: int = 6) -> str:
    return f"{value:.{digits}f}"


def thresholds_text(doc: dict) -> str:
    """``data layer 0.999 · good 0.99 · decay end 0.95 · middle dip 0.9`` — the drawn thresholds."""
    th = doc.get("thresholds") or {}
    return " · ".join(f"{label} {th[key]:g}" for key, label, _c, _d in THRESHOLD_LINES
                      if _number(th.get(key)) is not None)


def _y_range(cosines: list[float], lines: list[float]) -> tuple[float, float]:
    lo = min(cosines + lines) if cosines or lines else 0.0
    lo = max(-1.05, lo - 0.05)
    hi = max(1.01, max(cosines + lines, default=1.0) + 0.005)
    return lo, hi


def _ticks(lo: float, hi: float, most: int = 8) -> list[float]:
    span = hi - lo
    step = next((s for s in _NICE_STEPS if span / s <= most), 1.0)
    first = math.ceil(lo / step - 1e-9) * step
    out, k = [], 0
    while first + k * step <= hi + 1e-9:
        out.append(round(first + k * step, 6))
        k += 1
    return out


def _short(name: str) -> str:
    return name if len(name) <= _LABEL_CHARS else name[:_LABEL_CHARS - 1] + "…"


def _point_title(row: dict, cosine: float, doc: dict) -> str:
    parts = [f"{row.get('name')}: cosine {_fmt(cosine)} ({row.get('status') or 'no status'})"]
    lo, mid = _number(row.get("cosine_min")), _number(row.get("cosine_median"))
    if lo is not None and mid is not None:
        parts.append(f"over the images: min {_fmt(lo)}, median {_fmt(mid)}")
    if row.get("first_divergence"):
        parts.append("first divergence")
    if row.get("is_data"):
        parts.append("data layer")
    th = thresholds_text(doc)
    if th:
        parts.append(f"thresholds: {th}")
    return "\n".join(parts)


def cosine_plot_svg(doc: dict, title: str = "") -> str:
    """The plot as one ``<svg>`` element (empty string when no layer has a cosine)."""
    rows = [(r, c) for r in doc.get("layers") or [] if (c := _number(r.get("cosine"))) is not None]
    if not rows:
        return ""
    th = doc.get("thresholds") or {}
    lines = [(key, label, colour, dash, v) for key, label, colour, dash in THRESHOLD_LINES
             if (v := _number(th.get(key))) is not None]
    cosines = [c for _r, c in rows]
    framework = [_number(r.get("framework_cosine")) for r, _c in rows]
    lo, hi = _y_range(cosines + [c for c in framework if c is not None], [v for *_x, v in lines])
    n = len(rows)
    step = max(_STEP_MIN, (_WIDTH_MIN - _LEFT - _RIGHT) / max(n, 1))
    plot_w = step * n
    longest = max(len(_short(str(r.get("name")))) for r, _c in rows)
    label_h = 12 + 4.6 * longest          # rotated 60°: the labels' height below the axis
    width, height = _LEFT + plot_w + _RIGHT, _TOP + _PLOT_H + label_h + 8

    def x(i: int) -> float:
        return _LEFT + step * (i + 0.5)

    def y(v: float) -> float:
        return _TOP + (hi - v) / (hi - lo) * _PLOT_H

    bottom = _TOP + _PLOT_H
    out = [f'<svg class="cosine-plot" viewBox="0 0 {width:.0f} {height:.0f}" width="100%" '
           f'style="max-width:{width:.0f}px" role="img" aria-label="cosine similarity per layer" '
           'font-family="system-ui,sans-serif" font-size="11">',
           f"<title>{escape('cosine similarity per layer (Caffe vs NNIE)')}</title>"]
    if title:
        out.append(f'<text x="{_LEFT}" y="16" font-size="13" font-weight="600" fill="#1f2328">{escape(title)}</text>')
    # axes and grid
    for t in _ticks(lo, hi):
        out.append(f'<line x1="{_LEFT}" x2="{_LEFT + plot_w:.1f}" y1="{y(t):.1f}" y2="{y(t):.1f}" stroke="#d0d7de" '
                   'stroke-width="0.5"/>')
        out.append(f'<text x="{_LEFT - 6}" y="{y(t) + 4:.1f}" text-anchor="end" fill="#57606a">{t:g}</text>')
    out.append(f'<line x1="{_LEFT}" x2="{_LEFT}" y1="{_TOP}" y2="{bottom}" stroke="#57606a"/>')
    out.append(f'<line x1="{_LEFT}" x2="{_LEFT + plot_w:.1f}" y1="{bottom}" y2="{bottom}" stroke="#57606a"/>')
    out.append(f'<text transform="translate(14 {_TOP + _PLOT_H / 2:.0f}) rotate(-90)" text-anchor="middle" '
               'fill="#57606a">cosine similarity</text>')
    # thresholds, labelled at the right end; labels that would overlap are pushed apart
    label_y: list[float] = []
    for key, label, colour, dash, v in sorted(lines, key=lambda item: -item[4]):
        out.append(f'<line class="threshold" data-key="{escape(key)}" x1="{_LEFT}" x2="{_LEFT + plot_w:.1f}" '
                   f'y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="{colour}" stroke-dasharray="{dash}" stroke-width="1">'
                   f"<title>{escape(f'{label} {v:g}')}</title></line>")
        ly = max(y(v) + 4, (label_y[-1] + 12) if label_y else 0)
        label_y.append(ly)
        out.append(f'<text x="{_LEFT + plot_w + 6:.1f}" y="{ly:.1f}" fill="{colour}">{escape(f"{label} {v:g}")}</text>')
    # first divergence
    names = [str(r.get("name")) for r, _c in rows]
    fd = doc.get("first_divergence")
    if fd in names:
        i = names.index(fd)
        out.append(f'<line x1="{x(i):.1f}" x2="{x(i):.1f}" y1="{_TOP}" y2="{bottom}" stroke="{DIVERGENCE_COLOUR}" '
                   'stroke-width="1.2"/>')
        anchor = "end" if i > n / 2 else "start"
        dx = -4 if anchor == "end" else 4
        out.append(f'<text x="{x(i) + dx:.1f}" y="{_TOP + 12}" text-anchor="{anchor}" fill="{DIVERGENCE_COLOUR}">'
                   f"{escape(f'first divergence: {fd}')}</text>")
    # the curve, then the points with their hover titles
    path = " ".join(f"{x(i):.1f},{y(c):.1f}" for i, (_r, c) in enumerate(rows))
    out.append(f'<polyline points="{path}" fill="none" stroke="{LINE_COLOUR}" stroke-width="1.5"/>')
    for i, (r, c) in enumerate(rows):
        colour = STATUS_COLOUR.get(str(r.get("status")), LINE_COLOUR)
        radius = 5 if r.get("first_divergence") else 3.5
        out.append(f'<g class="point"><title>{escape(_point_title(r, c, doc))}</title>'
                   f'<circle cx="{x(i):.1f}" cy="{y(c):.1f}" r="{radius}" fill="{colour}" stroke="#ffffff" '
                   'stroke-width="1"/></g>')
        out.append(f'<text transform="translate({x(i) + 3:.1f} {bottom + 10}) rotate(-60)" text-anchor="end" '
                   f'fill="#1f2328" font-size="10">{escape(_short(names[i]))}</text>')
    if any(c is not None or r.get("framework_status") == "shape" for c, (r, _c) in zip(framework, rows)):
        out += _framework_curve(rows, framework, x, y, bottom)
    out.append("</svg>")
    return "".join(out)


def _framework_curve(rows, framework, x, y, bottom) -> list[str]:
    """The ONNX → Caffe hop: a dashed curve, a cross on the axis where the sizes differ, a legend."""
    out = []
    pts = [(i, c) for i, c in enumerate(framework) if c is not None]
    if len(pts) > 1:
        path = " ".join(f"{x(i):.1f},{y(c):.1f}" for i, c in pts)
        out.append(f'<polyline class="framework" points="{path}" fill="none" stroke="{FRAMEWORK_COLOUR}" '
                   'stroke-width="1.5" stroke-dasharray="5 3"/>')
    for i, (r, _c) in enumerate(rows):
        c = framework[i]
        status = str(r.get("framework_status") or "")
        if c is not None:
            tip = f"{r.get('name')}: ONNX → Caffe cosine {_fmt(c)} ({status})"
            out.append(f'<g class="framework-point"><title>{escape(tip)}</title><rect x="{x(i) - 3:.1f}" '
                       f'y="{y(c) - 3:.1f}" width="6" height="6" fill="{FRAMEWORK_COLOUR}"/></g>')
        elif status == "shape":
            tip = f"{r.get('name')}: ONNX → Caffe: the Caffe output has another size than ONNX's"
            out.append(f'<g class="framework-point"><title>{escape(tip)}</title><text x="{x(i):.1f}" '
                       f'y="{bottom - 3:.1f}" text-anchor="middle" fill="{FRAMEWORK_COLOUR}" font-size="13">×</text></g>')
    lx = _LEFT + 8
    out.append(f'<line x1="{lx}" x2="{lx + 18}" y1="{_TOP + 26}" y2="{_TOP + 26}" stroke="{LINE_COLOUR}" '
               'stroke-width="1.5"/>')
    out.append(f'<text x="{lx + 22}" y="{_TOP + 30}" fill="#1f2328">Caffe → NNIE</text>')
    out.append(f'<line x1="{lx}" x2="{lx + 18}" y1="{_TOP + 40}" y2="{_TOP + 40}" stroke="{FRAMEWORK_COLOUR}" '
               'stroke-width="1.5" stroke-dasharray="5 3"/>')
    out.append(f'<text x="{lx + 22}" y="{_TOP + 44}" fill="#1f2328">ONNX → Caffe (conversion)</text>')
    return out

"""Triage reports: terminal (rich colour table), JSON (schema v2), markdown and one
self-contained HTML page with an inline SVG plot of per-layer cosine (no external URLs).

Renderers read only the JSON document (``TriageResult.to_json()``), so a saved report renders the
same way.  Every form also says which earlier findings this run confirms fixed and which fixes
still await dumps made again (``confirmed_fixed`` / ``awaiting_confirmation``), in the words of
:func:`nnie_lsp.triage.confirmation.lines`: the terminal, text and markdown reports end with them,
the HTML page shows them under the verdict (the editor's webview shows this page)."""

from __future__ import annotations

import html
import io
import json
import math
from typing import Any

from nnie_lsp.triage.inputs.build import build_lines
from nnie_lsp.triage.report.palette import status_css
from nnie_lsp.triage.report.svg_plot import cosine_plot_svg

CASE_TEXT = {
    1: "Case 1 — preprocessing mismatch",
    2: "Case 2 — quantization error",
    3: "Case 3 — layer matching",
    4: "Case 4 — post-processing",
    None: "Inconclusive",
}
def verdict_title(doc: dict) -> str:
    """The verdict, its name said once: "Case 2 — quantization error — confirmed by the 16-bit run",
    "Inconclusive: not quantization", "Decoding: the NNIE dumps are read with the wrong scale"."""
    case = doc.get("case")
    verdict = str(doc.get("verdict") or "")
    if case in CASE_TEXT and case is not None:
        extra = verdict.split(" — ", 1)[1] if " — " in verdict else ""
        return CASE_TEXT[case] + (f" — {extra}" if extra else "")
    if not verdict or verdict.lower() == "inconclusive":
        return "Inconclusive"
    return verdict[:1].upper() + verdict[1:]


def verdict_line(doc: dict, lang: str = "en") -> str:
    """The verdict with the caveat beside it when the Caffe reference shares the cfg's
    preprocessing (T100): no verdict, case 4 least of all, is given without it."""
    from nnie_lsp.triage.diagnose.reference_source import caveat

    said = caveat(doc, lang)
    return verdict_title(doc) + (f" (caveat: {said})" if said else "")


STEP_TEXT = {
    0: "step 0 (before mapping): fix the ONNX → Caffe conversion, convert again and compare again",
    1: "step 1: read the NNIE dumps again with the right fixed-point scale and compare again",
    2: "step 2: fix the preprocessing in the cfg",
    3: "step 3: quantization — `_hp` layers with compile_mode 2 (or compile_mode 1)",
    4: "step 4: layer matching — de-inplace / compare in the right layout",
    5: "step 5: check the post-processing",
    6: "step 6: make a support bundle (nnie-triage bundle)",
    7: "step 7 (the board): fix the board code the finding names, dump the board again and compare again",
}
STATUS_STYLE = {"ok": "green", "low": "yellow", "poor": "dark_orange", "bad": "red", "nan": "magenta",
                "unmeasured": "dim"}


def _two_hops(doc: dict) -> bool:
    """Whether the result has the ONNX → Caffe hop (``compare --framework``)."""
    return doc.get("framework") is not None


def framework_cell(row: dict) -> str:
    """The ONNX → Caffe column of a row: its cosine, "size differs" or "—" (no ONNX tensor)."""
    status = row.get("framework_status")
    if status == "shape":
        return "size differs"
    if status == "missing" or row.get("framework_cosine") is None:
        return "—"
    return _f(row.get("framework_cosine")) + (" ✗" if status == "differs" else "")


def _gain(v: Any) -> str:
    """An emulated gain of final similarity (``—`` without a plan)."""
    return "—" if not isinstance(v, (int, float)) else f"{v:+.4f}"


def _f(v: Any, digits: int = 6) -> str:
    if v is None:
        return "—"
    if isinstance(v, str):
        return v
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return f"{v:.{digits}f}" if abs(v) < 1e5 else f"{v:.3g}"
    return str(v)


def _shape(s) -> str:
    return "×".join(str(x) for x in s) if s else "—"


def finding_where(f: dict) -> str:
    """``layer conv1 · det1.prototxt:9`` — the finding's subject and place, as far as known."""
    bits = []
    if f.get("layer"):
        bits.append(f"layer {f['layer']}")
    elif f.get("cfg_key"):
        bits.append(f"[{f['cfg_key']}]")
    if f.get("path"):
        bits.append(f"{f['path']}:{f['line']}")
    return " · ".join(bits)


def fix_summary(fix: dict | None) -> str:
    """``Set [RGB_order] RGB for input 0 (unsafe; sim.cfg:7)`` — what the fix does and where."""
    if not fix:
        return ""
    places = sorted({f"{e['path']}:{e['line']}" for e in fix.get("edits", [])})
    shown = ", ".join(places[:4]) + (" …" if len(places) > 4 else "")
    return f"{fix.get('message')} ({fix.get('applicability')}{'; ' + shown if shown else ''})"


def next_text(doc: dict) -> str:
    """The next step in words: the result's own (the board's, when it says one), else the step's."""
    own = doc.get("next_step_text") or (doc.get("board") or {}).get("next_step_text")
    return own or str(STEP_TEXT.get(doc.get("next_step"), doc.get("next_step")))


def board_lines(doc: dict) -> list[str]:
    from nnie_lsp.triage.board.lines import board_lines as lines

    return lines(doc)


def images_lines(doc: dict) -> list[str]:
    """The images a report covers and their cases (empty for one image)."""
    images = doc.get("images")
    if not images:
        return []
    rep = images["cases"][images["representative"]]
    name = str(rep.get("image") or "").replace("\\", "/").rsplit("/", 1)[-1]
    out = [f"Images: {images['count']}; " + "; ".join(images.get("summary", [])),
           f"  findings and fixes from image {rep.get('index')} ({name}); per-layer min and median over all images"]
    return out


def input_code_lines(doc: dict) -> list[str]:
    """One line about the quantized input dumps (…_quant.nonlinear.hex), when there are any."""
    codes = doc.get("input_codes") or []
    if not codes:
        return []
    twins = [c for c in codes if c.get("clip_source") == "dequantized twin"]
    decoded = [c for c in codes if c.get("decoded")]
    other = [c for c in codes if c not in twins and c not in decoded]
    parts = []
    if twins:
        agree = sum(1 for c in twins if c.get("twin_agrees"))
        parts.append(f"{len(twins)} checked against their dequantized twins ({agree} agree)")
    if decoded:
        parts.append(f"{len(decoded)} decoded with emulated clips")
    if other:
        parts.append(f"{len(other)} not decoded ({other[0]['file']}: {other[0]['reason']})")
    return [f"8-bit input dumps: {len(codes)} code file(s): " + "; ".join(parts)]


#: Said instead of the case-1 cfg edits when the NNIE dumps predate the cfg (T008): those edits were
#: computed from dumps of the old cfg, and would undo a fix just made (the findings' fixes are
#: withheld by the engine, nnie_lsp/triage/diagnose/staleness.py; the edits are shown as withheld).
EDITS_WITHHELD = "cfg edits withheld: the NNIE dumps predate the cfg (T008) — make them again, then triage again"


def edits_withheld(doc: dict) -> bool:
    """The NNIE dumps predate the cfg (a T008 finding): the preprocessing edits are not to be applied
    (the engine says so in ``preprocessing.edits_withheld``; a result of an older version by T008)."""
    if (doc.get("preprocessing") or {}).get("edits_withheld"):
        return True
    from nnie_lsp.triage.diagnose.staleness import is_stale
    return is_stale(doc.get("findings"))


def _withheld_shown(pre: dict, doc: dict) -> bool:
    """Say that the case-1 edits are withheld: the engine withheld them (and left them out), or a
    result of an older version lists edits beside T008."""
    return bool(pre.get("edits_withheld")) or bool(pre.get("edits")) and edits_withheld(doc)


def to_json_text(doc: dict) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False, default=str)


# ------------------------------------------------------------------------------- terminal
def render_terminal(doc: dict, console=None) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = console or Console()
    several = bool(doc.get("images"))
    title = "nnie-triage: per-layer similarity (Caffe vs NNIE)"
    if several:
        title += f" over {doc['images']['count']} images"
    table = Table(title=title, show_lines=False)
    columns = [("#", "right"), ("layer", "left"), ("matched by", "left"), ("conf", "right"), ("shape", "left"),
               ("cosine", "right")]
    if several:
        columns += [("min", "right"), ("median", "right")]
    hops = _two_hops(doc)
    if hops:
        columns += [("ONNX→Caffe", "right")]
    columns += [("max abs err", "right"), ("rel L2", "right"), ("SQNR dB", "right")]
    for col, just in columns:
        table.add_column(col, justify=just)
    for i, r in enumerate(doc["layers"]):
        style = STATUS_STYLE.get(r.get("status"), "")
        name = Text(r["name"] + (" ◀ first divergence" if r.get("first_divergence") else ""),
                    style="bold red" if r.get("first_divergence") else "")
        cells = [str(i), name, r.get("matched_by") or "", _f(r.get("confidence"), 2), _shape(r.get("shape")),
                 Text(_f(r.get("cosine")), style=style)]
        if several:
            cells += [_f(r.get("cosine_min")), _f(r.get("cosine_median"))]
        if hops:
            cells += [Text(framework_cell(r), style="" if r.get("framework_status") in ("ok", "missing") else "bold red")]
        cells += [_f(r.get("max_abs_error"), 4), _f(r.get("rel_l2_error"), 4), _f(r.get("sqnr_db"), 1)]
        table.add_row(*cells)
    console.print(table)
    _terminal_summary(doc, console)


def _terminal_summary(doc: dict, console) -> None:
    from rich.text import Text

    case = doc.get("case")
    colour = {1: "red", 2: "yellow", 3: "yellow", 4: "green"}.get(case, "magenta")
    console.print(Text(f"Verdict: {verdict_line(doc)}", style=f"bold {colour}"))
    # plain Text, never rich markup: the reason quotes cfg keys ("[data_scale] 0.0078125"), which
    # markup would take for style tags and drop
    console.print(Text(f"Why: {doc.get('reason')}"))
    console.print(Text(f"First divergence: {doc.get('first_divergence') or '—'}"))
    console.print(Text(f"Next: {next_text(doc)}"))
    for line in images_lines(doc) + board_lines(doc):
        console.print(Text(line))
    for line in build_lines(doc):   # holds "[I]": not rich markup
        console.print(Text(line))
    for line in input_code_lines(doc):
        console.print(Text(line, style="dim"))
    for f in doc.get("findings", []):
        sev = {"error": "red", "warning": "yellow"}.get(f.get("severity"), "cyan")
        where = finding_where(f)
        console.print(Text(f"  {f['code']} ", style=f"bold {sev}") + Text(f"[{where}] " if where else "") +
                      Text(f["message"]))
        if f.get("fix"):
            console.print(Text(f"      fix: {fix_summary(f['fix'])}", style="green"))
    pre = doc.get("preprocessing")
    if pre and _withheld_shown(pre, doc):
        console.print(Text(EDITS_WITHHELD, style="yellow"))
    elif pre and pre.get("edits"):
        console.print("cfg edits:")
        for e in pre["edits"]:
            loc = f"line {e['line']}" if e.get("line") else "new line"
            console.print(Text(f"  {loc}: {e['new_line']}", style="green"))
            if e.get("file_content"):
                console.print(Text(f"    {e.get('file_name')}: " + e["file_content"].strip().replace("\n", ", ")))
    um = doc.get("unmatched", {})
    if um.get("reference") or um.get("sim"):
        console.print(Text(f"unmatched: Caffe {len(um.get('reference', []))}, NNIE {len(um.get('sim', []))} "
                           f"({', '.join((um.get('reference', []) + um.get('sim', []))[:6])})", style="dim"))
    for w in doc.get("warnings", [])[:10]:
        console.print(Text(f"warning: {w}", style="dim yellow"))
    for line in _confirmation_lines(doc):   # "Confirmed fixed: …", once, after the report
        console.print(Text(line), soft_wrap=True)   # one line, as the lines are quoted


def _confirmation_lines(doc: dict) -> list[str]:
    from nnie_lsp.triage.confirmation import lines

    return lines(doc)


def render_text(doc: dict, width: int = 140, color: bool = False) -> str:
    from rich.console import Console

    buf = io.StringIO()
    console = Console(file=buf, width=width, force_terminal=color, color_system="standard" if color else None)
    render_terminal(doc, console)
    return buf.getvalue()


# ------------------------------------------------------------------------------- markdown
def _md_escape(s: str) -> str:
    return str(s).replace("|", "\\|")


def render_markdown(doc: dict) -> str:
    out = ["# nnie-triage report", ""]
    out.append(f"**{verdict_line(doc)}**  ")
    out.append(f"Why: {doc.get('reason')}  ")
    out.append(f"First divergence: `{doc.get('first_divergence') or '—'}`  ")
    out.append(f"Next: {next_text(doc)}")
    for line in images_lines(doc) + build_lines(doc) + input_code_lines(doc) + board_lines(doc):
        out[-1] += "  "
        out.append(line.strip())
    out.append("")
    if doc.get("findings"):
        out.append("## Findings")
        out.append("")
        for f in doc["findings"]:
            where = finding_where(f)
            out.append(f"- **{f['code']}** ({f.get('severity')}){' `' + where + '`' if where else ''}: "
                       f"{f['message']}" + (f" — fix: {fix_summary(f['fix'])}" if f.get("fix") else ""))
        out.append("")
    pre = doc.get("preprocessing")
    if pre:
        out.append("## Preprocessing fit (case 1)")
        out.append("")
        out.append(f"- channel permutation: {pre['permutation']}, H/W transposed: {pre['transposed']}")
        out.append(f"- scale per channel: {', '.join(f'{s:.6g}' for s in pre['scale'])}; offset: "
                   f"{', '.join(f'{s:.6g}' for s in pre['offset'])}; R² {pre['r2']:.6f}")
        if _withheld_shown(pre, doc):
            out.append(f"- {EDITS_WITHHELD}")
        for e in [] if edits_withheld(doc) else pre.get("edits", []):
            loc = f"line {e['line']}" if e.get("line") else "add"
            out.append(f"- cfg {loc}: `{e['new_line']}`" + (f" (was `{e['old_value']}`)" if e.get("old_value") else ""))
            if e.get("file_content"):
                out.append(f"  - `{e.get('file_name')}`: {e['file_content'].strip().replace(chr(10), ', ')}")
        out.append("")
    if doc.get("hp_candidates"):
        out.append("## `_hp` candidates")
        out.append("")
        plan = doc.get("hp_plan") or {}
        if plan.get("command"):
            out.append(f"`{plan['command']}`" + (f": {_md_escape(plan['reason'])}" if plan.get("reason") else ""))
            out.append("")
        out.append("| rank | layer | gain 16-bit alone | single-layer loss | cosine | in plan | rename |")
        out.append("|---|---|---|---|---|---|---|")
        for c in doc["hp_candidates"]:
            out.append(f"| {c['rank']} | `{c['layer']}` | {_gain(c.get('gain'))} | {_f(c.get('single_layer_loss'), 4)} | "
                       f"{_f(c.get('cosine'), 4)} | {'yes' if c.get('in_plan') else ''} | {_md_escape(c['rename'])} |")
        out.append("")
    out.append("## Layers")
    out.append("")
    several = bool(doc.get("images"))
    spread_head, spread_rule = (" min | median |", "---|---|") if several else ("", "")
    hops = _two_hops(doc)
    if hops:
        spread_head, spread_rule = spread_head + " ONNX→Caffe |", spread_rule + "---|"
    out.append(f"| # | layer | matched by | conf | shape | cosine |{spread_head} max abs err | rel L2 | status |")
    out.append(f"|---|---|---|---|---|---|{spread_rule}---|---|---|")
    for i, r in enumerate(doc["layers"]):
        name = f"**{r['name']}** ◀" if r.get("first_divergence") else r["name"]
        spread = f" {_f(r.get('cosine_min'))} | {_f(r.get('cosine_median'))} |" if several else ""
        spread += f" {framework_cell(r)} |" if hops else ""
        out.append(f"| {i} | {_md_escape(name)} | {r.get('matched_by') or ''} | {_f(r.get('confidence'), 2)} | "
                   f"{_shape(r.get('shape'))} | {_f(r.get('cosine'))} |{spread} {_f(r.get('max_abs_error'), 4)} | "
                   f"{_f(r.get('rel_l2_error'), 4)} | {r.get('status')} |")
    um = doc.get("unmatched", {})
    if um.get("reference") or um.get("sim"):
        out.append("")
        out.append(f"Unmatched — Caffe: {', '.join(um.get('reference', [])) or 'none'}; "
                   f"NNIE: {', '.join(um.get('sim', [])) or 'none'}")
    out.append("")
    for line in _confirmation_lines(doc):
        out += [f"**{line}**", ""]
    return "\n".join(out)


# ------------------------------------------------------------------------------- plot + HTML
def plot_svg(doc: dict) -> str:
    """Per-layer cosine plot as an inline SVG string (thresholds drawn, first divergence marked, a
    hover title per point): :mod:`.svg_plot`, which needs no plotting library."""
    return cosine_plot_svg(doc, title=verdict_title(doc).split(" — ", 1)[0].split(":", 1)[0])


#: The plot's place in the page: the editor's webview puts its interactive plot between these.
PLOT_START, PLOT_END = "<!-- nnie-plot:start -->", "<!-- nnie-plot:end -->"

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:24px;color:#1f2328;max-width:1200px}
h1{font-size:1.4em} h2{font-size:1.15em;margin-top:1.6em}
.table-wrap{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-size:.85em} td,th{border:1px solid #d0d7de;padding:3px 8px;text-align:right}
td.l,th.l{text-align:left} td.name{overflow-wrap:anywhere;min-width:6em} tr.fd td{background:#ffebe9;font-weight:600}
""" + status_css() + """
.verdict{font-size:1.1em;padding:8px 12px;border-left:4px solid #cf222e;background:#f6f8fa}
code{background:#f6f8fa;padding:1px 4px;border-radius:4px;overflow-wrap:anywhere} .sev-error{color:#cf222e}.sev-warning{color:#9a6700}
.plot svg{height:auto}
.confirmation p{margin:8px 0 0;padding:6px 12px;border-left:4px solid}
.confirmation .confirmed{border-color:#1a7f37;background:#dafbe1}.confirmation .awaiting{border-color:#bf8700;background:#fff8c5}
@media (max-width:760px){body{margin:12px}.opt{display:none}td,th{padding:2px 4px}}
"""


#: The result's keys the confirmation lines come from, and the class of each line in the page.
CONFIRMATION_CLASSES = (("confirmed_fixed", "confirmed"), ("awaiting_confirmation", "awaiting"))


def confirmation_html(doc: dict) -> list[str]:
    """``<div class="confirmation" id="confirmation">`` with the engine's lines "Confirmed fixed: …"
    (class ``confirmed``) and "Awaiting confirmation …" (class ``awaiting``); nothing when the run
    follows no earlier result, or confirms and awaits nothing."""
    from nnie_lsp.triage.confirmation import lines

    shown = [f"<p class=\"{cls}\">{html.escape(line)}</p>"
             for key, cls in CONFIRMATION_CLASSES for line in lines({key: doc.get(key)})]
    return ["<div class=\"confirmation\" id=\"confirmation\" role=\"status\">" + "".join(shown) + "</div>"] if shown else []


def render_html(doc: dict) -> str:
    e = html.escape
    parts = ["<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
             "<title>nnie-triage report</title>", f"<style>{_CSS}</style></head><body>",
             "<h1>nnie-triage report</h1>",
             f"<div class=\"verdict\"><b>{e(verdict_line(doc))}</b>"
             f"<br>Why: {e(str(doc.get('reason')))}<br>First divergence: "
             f"<code>{e(str(doc.get('first_divergence') or '—'))}</code><br>Next: "
             f"{e(next_text(doc))}"
             + "".join(f"<br>{e(line.strip())}" for line in images_lines(doc) + build_lines(doc) + input_code_lines(doc)
                       + board_lines(doc))
             + "</div>"]
    parts.extend(confirmation_html(doc))
    svg = plot_svg(doc)
    parts.append(PLOT_START)
    if svg:
        parts.append("<h2>Per-layer similarity</h2>")
        parts.append(f"<div class=\"plot\">{svg}</div>")
    else:
        parts.append("<p><i>no layer has a cosine: nothing to plot</i></p>")
    parts.append(PLOT_END)
    if doc.get("findings"):
        parts.append("<h2>Findings</h2><ul>")
        for f in doc["findings"]:
            where = finding_where(f)
            parts.append(f"<li class=\"sev-{e(f.get('severity', 'info'))}\"><b>{e(f['code'])}</b>"
                         f"{' <code>' + e(where) + '</code>' if where else ''}: {e(f['message'])}"
                         + (f"<br>fix: {e(fix_summary(f['fix']))}" if f.get("fix") else "") + "</li>")
        parts.append("</ul>")
    pre = doc.get("preprocessing")
    if pre:
        parts.append("<h2>Preprocessing fit</h2><ul>")
        parts.append(f"<li>channel permutation {e(str(pre['permutation']))}, H/W transposed {pre['transposed']}, "
                     f"R² {pre['r2']:.6f}</li>")
        parts.append(f"<li>scale {e(', '.join(f'{s:.6g}' for s in pre['scale']))}; offset "
                     f"{e(', '.join(f'{s:.6g}' for s in pre['offset']))}</li>")
        if _withheld_shown(pre, doc):
            parts.append(f"<li><b>{e(EDITS_WITHHELD)}</b></li>")
        for ed in [] if edits_withheld(doc) else pre.get("edits", []):
            loc = f"line {ed['line']}" if ed.get("line") else "add"
            parts.append(f"<li>cfg {loc}: <code>{e(ed['new_line'])}</code>"
                         + (f" — {e(ed.get('file_name') or '')}: <code>{e(ed['file_content'].strip())}</code>"
                            if ed.get("file_content") else "") + "</li>")
        parts.append("</ul>")
    if doc.get("hp_candidates"):
        parts.append("<h2><code>_hp</code> candidates</h2>")
        plan = doc.get("hp_plan") or {}
        if plan.get("command"):
            parts.append(f"<p><code>{e(plan['command'])}</code>" + (f": {e(plan['reason'])}" if plan.get("reason") else "")
                         + "</p>")
        parts.append("<div class=\"table-wrap\"><table><tr><th>rank</th><th class=l>layer</th>"
                     "<th>gain 16-bit alone</th><th>single-layer loss</th><th>cosine</th><th>in plan</th>"
                     "<th class=l>rename</th></tr>")
        for c in doc["hp_candidates"]:
            parts.append(f"<tr><td>{c['rank']}</td><td class=l>{e(c['layer'])}</td><td>{e(_gain(c.get('gain')))}</td>"
                         f"<td>{e(_f(c.get('single_layer_loss'), 4))}</td><td>{e(_f(c.get('cosine'), 4))}</td>"
                         f"<td>{'yes' if c.get('in_plan') else ''}</td><td class=l>{e(c['rename'])}</td></tr>")
        parts.append("</table></div>")
    several = bool(doc.get("images"))
    # .opt columns give way on a narrow page (the editor's panel beside the text); the table scrolls
    parts.append("<h2>Layers</h2><div class=\"table-wrap\"><table class=\"layers\"><tr><th>#</th><th class=l>layer</th>"
                 "<th class=\"l opt\">matched by</th><th class=opt>conf</th><th class=\"l opt\">shape</th><th>cosine</th>"
                 + ("<th>min</th><th>median</th>" if several else "")
                 + ("<th>ONNX→Caffe</th>" if _two_hops(doc) else "")
                 + "<th>max abs err</th><th class=opt>rel L2</th><th class=opt>SQNR dB</th><th class=l>status</th></tr>")
    for i, r in enumerate(doc["layers"]):
        cls = " class=\"fd\"" if r.get("first_divergence") else ""
        st = r.get("status") or ""
        parts.append(f"<tr{cls}><td>{i}</td><td class=\"l name\">{e(r['name'])}{' ◀' if r.get('first_divergence') else ''}"
                     f"</td><td class=\"l opt\">{e(r.get('matched_by') or '')}</td><td class=opt>{e(_f(r.get('confidence'), 2))}</td>"
                     f"<td class=\"l opt\">{e(_shape(r.get('shape')))}</td><td class=\"{e(st)}\">{e(_f(r.get('cosine')))}</td>"
                     + (f"<td>{e(_f(r.get('cosine_min')))}</td><td>{e(_f(r.get('cosine_median')))}</td>" if several else "")
                     + (f"<td class=\"{'ok' if r.get('framework_status') in ('ok', 'missing') else 'bad'}\">"
                        f"{e(framework_cell(r))}</td>" if _two_hops(doc) else "")
                     + f"<td>{e(_f(r.get('max_abs_error'), 4))}</td><td class=opt>{e(_f(r.get('rel_l2_error'), 4))}</td>"
                     f"<td class=opt>{e(_f(r.get('sqnr_db'), 1))}</td><td class=\"l {e(st)}\">{e(st)}</td></tr>")
    parts.append("</table></div>")
    um = doc.get("unmatched", {})
    if um.get("reference") or um.get("sim"):
        parts.append(f"<p>Unmatched — Caffe: {e(', '.join(um.get('reference', [])) or 'none')}; NNIE: "
                     f"{e(', '.join(um.get('sim', [])) or 'none')}</p>")
    if doc.get("warnings"):
        parts.append("<h2>Warnings</h2><ul>" + "".join(f"<li>{e(w)}</li>" for w in doc["warnings"]) + "</ul>")
    parts.append(f"<p style=\"color:#656d76;font-size:.8em\">schema_version {doc.get('schema_version')} · "
                 f"inputs {e(json.dumps(doc.get('inputs', {})))}</p>")
    parts.append("</body></html>")
    return "\n".join(parts)

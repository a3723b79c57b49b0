"""Diagnostic renderers for the command line: text, JSON, SARIF 2.1.0, GitHub annotations.

Every renderer shows repeated identical findings once ("the same in N more", the others as
related locations: :func:`nnie_lsp.core.diagnostics.group_repeated`).

The JSON shape of a diagnostic and its fix is :mod:`nnie_lsp.core.diagnostic_json`'s (``rel``,
``rule_url`` and ``RULES_DOC`` are re-exported from there)."""

from __future__ import annotations

import os

from nnie_lsp import __version__
from nnie_lsp.core.diagnostic_json import RULES_DOC, encode_diagnostic, rel, rule_name, rule_url
from nnie_lsp.core.diagnostics import Diagnostic, Severity, group_repeated
from nnie_lsp.core.lang import pick
from nnie_lsp.core.catalogue import all_rules

__all__ = ["RULES_DOC", "rel", "rule_url", "render_json", "render_text", "render_github",
           "render_sarif", "rules_table_markdown", "rules_reference_markdown"]


def render_json(diags: list[Diagnostic]) -> str:
    import json

    return json.dumps([encode_diagnostic(d) for d in group_repeated(diags)], ensure_ascii=False, indent=2) + "\n"


def render_text(diags: list[Diagnostic], *, color: bool = False, show_fixes: bool = True) -> str:
    lines = []
    styles = {Severity.ERROR: "31", Severity.WARNING: "33", Severity.INFO: "36", Severity.HINT: "2"}
    for d in group_repeated(diags):
        loc = f"{rel(d.path)}:{d.range.start.line + 1}:{d.range.start.character + 1}:"
        mark = ""
        if d.fix is not None and show_fixes:
            mark = " [*]" if d.fix.is_safe else " [unsafe fix]"
        code = d.code
        if color:
            loc = f"\x1b[1m{loc}\x1b[0m"
            code = f"\x1b[{styles[d.severity]};1m{code}\x1b[0m"
        lines.append(f"{loc} {code}{mark} {d.message}")
    return "\n".join(lines) + ("\n" if lines else "")


def render_github(diags: list[Diagnostic]) -> str:
    kinds = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice", Severity.HINT: "notice"}

    def esc(s: str) -> str:
        return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    def prop(s: str) -> str:
        return esc(s).replace(":", "%3A").replace(",", "%2C")

    out = []
    for d in group_repeated(diags):
        r = d.range
        out.append(f"::{kinds[d.severity]} title={prop(d.code + ' ' + rule_name(d.code))},file={prop(rel(d.path))},"
                   f"line={r.start.line + 1},col={r.start.character + 1},endLine={r.end.line + 1},"
                   f"endColumn={r.end.character + 1}::{esc(d.code + ' ' + d.message)}")
    return "\n".join(out) + ("\n" if out else "")


def render_sarif(diags: list[Diagnostic]) -> str:
    levels = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note", Severity.HINT: "note"}
    rules = all_rules()
    index = {r.code: i for i, r in enumerate(rules)}
    results = []
    for d in group_repeated(diags):
        r = d.range
        res = {
            "ruleId": d.code, "ruleIndex": index.get(d.code, 0), "level": levels[d.severity],
            "message": {"text": d.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": rel(d.path).replace(os.sep, "/")},
                "region": {"startLine": r.start.line + 1, "startColumn": r.start.character + 1,
                           "endLine": r.end.line + 1, "endColumn": r.end.character + 1}}}],
        }
        if d.related:
            res["relatedLocations"] = [{"id": i, "message": {"text": x.message}, "physicalLocation": {
                "artifactLocation": {"uri": rel(x.path).replace(os.sep, "/")},
                "region": {"startLine": x.range.start.line + 1, "startColumn": x.range.start.character + 1}}}
                for i, x in enumerate(d.related)]
        offered = ([d.fix] if d.fix is not None else []) + list(d.alternatives)
        if offered:
            res["fixes"] = [{"description": {"text": fix.message}, "artifactChanges": [{
                "artifactLocation": {"uri": rel(fe.path).replace(os.sep, "/")},
                "replacements": [{"deletedRegion": {
                    "startLine": fe.edit.range.start.line + 1, "startColumn": fe.edit.range.start.character + 1,
                    "endLine": fe.edit.range.end.line + 1, "endColumn": fe.edit.range.end.character + 1},
                    "insertedContent": {"text": fe.edit.new_text}}]} for fe in fix.edits]} for fix in offered]
        results.append(res)
    sarif = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "nnie-lint", "version": __version__, 
                "rules": [{"id": r.code, "name": r.name, "shortDescription": {"text": r.summary[0]},
                           "fullDescription": {"text": r.docs.get("What it finds", r.summary[0])},
                           "helpUri": rule_url(r.code),
                           "defaultConfiguration": {"level": levels[r.severity],
                                                    "enabled": r.default_enabled}} for r in rules]}},
            "results": results,
        }],
    }
    import json

    return json.dumps(sarif, ensure_ascii=False, indent=2) + "\n"


def rules_table_markdown(lang: str = "en") -> str:
    """The rules table of nnie_lsp/docs/rules.md, generated from the registry."""
    lines = ["| code | name | default | fix | what it finds |", "|---|---|---|---|---|"]
    for r in all_rules():
        default = r.severity.label + ("" if r.default_enabled else " (off)")
        summary = pick(r.summary, lang).replace("|", "\\|")
        lines.append(f"| {r.code} | {r.name} | {default} | {r.fix or '—'} | {summary} |")
    return "\n".join(lines) + "\n"


def rules_reference_markdown() -> str:
    """docs/rules.md: every rule's full documentation, generated from the registry."""
    parts = ["# nnie-lint rules", "", "Generated from the rule registry (`python scripts/gen_docs.py`); "
             "`nnie-lint --explain CODE` prints one entry.", "", rules_table_markdown(), ""]
    for r in all_rules():
        parts.append(f'<a id="{r.code.lower()}"></a>')
        parts.append(r.explain("en").replace(f"# {r.code}", f"## {r.code}", 1).replace("\n## ", "\n### "))
        if r.docs_zh or r.summary[1]:
            parts.append(f"**中文：** {r.summary[1]}" + (f" — {r.docs_zh}" if r.docs_zh else ""))
            parts.append("")
    return "\n".join(parts).rstrip() + "\n"

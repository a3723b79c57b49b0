"""The one JSON shape of an engine Diagnostic and its Fix, both ways.

Written by ``nnie-lint --format json`` (a list of diagnostics), ``nnie-triage compare`` (its
``findings``: nnie_lsp/docs/triage-schema.md), ``nnie-triage hp-plan`` (its ``fix``:
nnie_lsp/docs/hp-plan-schema.md); read back by the editor (a stored triage result's findings and
fixes).  Positions are 1-based; paths are written relative to the working directory (:func:`rel`)
and read back against a base folder (a report's ``inputs.working_directory``).

A diagnostic (:func:`encode_diagnostic`)::

    {path, code, name, severity, message, line, column, end_line, end_column,
     fix, alternatives, related, url}

- ``fix``: ``null`` or ``{applicability, message, edits: [{path, line, column, end_line, end_column,
  new_text}]}`` (:func:`encode_fix`); ``alternatives``: fixes of the same shape;
- ``related``: ``[{path, line, column, message}]`` (a related place keeps only its start);
- ``name`` and ``url`` come from the code (the registry, the rules reference) and are not read back;
  ``Diagnostic.data`` is not written.

A triage finding (:func:`encode_finding`) is the same shape with the triage extension: the
:data:`FINDING_FIELDS` of ``Diagnostic.data`` (``layer``, ``cfg_key``) as fields after ``message``;
``path`` moves after them and the place fields are left out for a finding about the comparison
as a whole (empty ``path``); no ``alternatives`` (a finding offers one fix).  :func:`decode_diagnostic`
reads both.
"""

from __future__ import annotations

import os
from typing import Mapping

from nnie_lsp.core.diagnostics import Applicability, Diagnostic, FileEdit, Fix, Related, Severity
from nnie_lsp.core.text import Range, TextEdit

RULES_DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "rules.md")

#: ``Diagnostic.data`` keys a triage finding writes as fields of its own (the triage extension).
FINDING_FIELDS = ("layer", "cfg_key")

SEVERITIES = {s.label: s for s in Severity}

_PLACE = ("path", "line", "column", "end_line", "end_column")


# ------------------------------------------------------------------ what the shape derives
def rule_url(code: str) -> str:
    """Link to the rule's section in the rules reference shipped inside the package."""
    from pathlib import Path
    return Path(RULES_DOC).as_uri() + "#" + code.lower()


def rule_name(code: str) -> str:
    """The registered name of `code` (the code itself when it is not registered)."""
    from nnie_lsp.core.catalogue import get_rule

    r = get_rule(code)
    return r.name if r else code


def rel(path: str) -> str:
    """`path` as written: relative to the working directory, unless that climbs more than three
    folders from an absolute path (then absolute)."""
    try:
        r = os.path.relpath(path)
    except ValueError:
        return path
    return path if r.startswith("..") and os.path.isabs(path) and r.count("..") > 3 else r


# ------------------------------------------------------------------ encode
def _start(rng: Range) -> dict:
    return {"line": rng.start.line + 1, "column": rng.start.character + 1}


def _span(rng: Range) -> dict:
    return {**_start(rng), "end_line": rng.end.line + 1, "end_column": rng.end.character + 1}


def encode_fix(fix: Fix | None) -> dict | None:
    """A Fix as ``{applicability, message, edits}``, or None."""
    if fix is None:
        return None
    return {
        "applicability": fix.applicability.value,
        "message": fix.message,
        "edits": [{"path": rel(fe.path), **_span(fe.edit.range), "new_text": fe.edit.new_text} for fe in fix.edits],
    }


def encode_related(related: Related) -> dict:
    """A related place as ``{path, line, column, message}`` (its start only)."""
    return {"path": rel(related.path), **_start(related.range), "message": related.message}


def encode_diagnostic(d: Diagnostic) -> dict:
    """A Diagnostic in nnie-lint's JSON shape (the module docstring)."""
    return {
        "path": rel(d.path), "code": d.code, "name": rule_name(d.code), "severity": d.severity.label,
        "message": d.message, **_span(d.range),
        "fix": encode_fix(d.fix),
        "alternatives": [encode_fix(f) for f in d.alternatives],
        "related": [encode_related(r) for r in d.related],
        "url": rule_url(d.code),
    }


def encode_finding(d: Diagnostic) -> dict:
    """A triage finding: :func:`encode_diagnostic`'s fields with the triage extension (the module
    docstring): ``code, name, severity, message, [cfg_key, layer], [path … end_column], fix,
    related, url``."""
    obj = encode_diagnostic(d)
    out = {key: obj[key] for key in ("code", "name", "severity", "message")}
    out.update((key, value) for key, value in d.data if key in FINDING_FIELDS)
    if d.path:
        out.update((key, obj[key]) for key in _PLACE)
    out.update((key, obj[key]) for key in ("fix", "related", "url"))
    return out


# ------------------------------------------------------------------ decode
def _path(path: str, base: str | None) -> str:
    return os.path.normpath(path if os.path.isabs(path) or not base else os.path.join(base, path))


def _range(obj: Mapping) -> Range:
    """1-based ``line``/``column`` (and ``end_line``/``end_column``, else the start) -> a 0-based range."""
    line, col = int(obj["line"]) - 1, int(obj["column"]) - 1
    return Range.of(line, col, int(obj.get("end_line", line + 1)) - 1, int(obj.get("end_column", col + 1)) - 1)


def decode_fix(obj: Mapping | None, base: str | None = None) -> Fix | None:
    """:func:`encode_fix`'s object as a Fix (None for null or a fix without edits); relative paths
    are joined to `base`.  Raises KeyError/ValueError/TypeError on a malformed object."""
    if not isinstance(obj, Mapping) or not obj.get("edits"):
        return None
    edits = tuple(FileEdit(_path(e["path"], base), TextEdit(_range(e), e["new_text"])) for e in obj["edits"])
    return Fix(str(obj.get("message") or ""), Applicability(obj.get("applicability", "unsafe")), edits)


def decode_related(obj: Mapping, base: str | None = None) -> Related:
    """:func:`encode_related`'s object as a Related (an empty range at its start)."""
    return Related(_path(obj["path"], base), _range({**obj, "end_line": obj["line"], "end_column": obj["column"]}),
                   str(obj.get("message", "")))


def decode_diagnostic(obj: Mapping, base: str | None = None) -> Diagnostic:
    """A diagnostic or a triage finding back as the Diagnostic (``name``/``url`` dropped; the
    :data:`FINDING_FIELDS` to ``data``; a finding without a place: empty path at 1:1; an unknown
    severity: warning; related places without a path and fixes without edits left out).  Relative
    paths are joined to `base`.  Raises KeyError/ValueError/TypeError/AttributeError on a
    malformed object."""
    placed = bool(obj.get("path"))
    related = tuple(decode_related(r, base) for r in obj.get("related") or [] if r.get("path"))
    data = tuple(sorted((key, str(obj[key])) for key in FINDING_FIELDS if obj.get(key)))
    alternatives = tuple(fix for fix in (decode_fix(a, base) for a in obj.get("alternatives") or [])
                         if fix is not None)
    return Diagnostic(code=str(obj["code"]), message=str(obj["message"]),
                      path=_path(obj["path"], base) if placed else "",
                      range=_range(obj) if placed else Range.point(0, 0),
                      severity=SEVERITIES.get(obj.get("severity"), Severity.WARNING),
                      fix=decode_fix(obj.get("fix"), base), related=related, data=data,
                      alternatives=alternatives)

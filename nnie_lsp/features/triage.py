"""Triage results (``nnie-triage compare --format json``, docs/triage-schema.md) for the editor.

:func:`triage_command` builds the CLI command line; :func:`annotations` maps the per-layer rows
onto the layers of a parsed prototxt: a diagnostic on each layer whose ``status`` (decided by the
triage — an editor never compares cosines with thresholds itself) is ``low``/``poor``/``bad``, and
an inlay hint ``cos 0.9731`` after each matched layer name.  :func:`finding_diagnostics` turns the
report's findings back into engine Diagnostics with their Fixes (quick fixes for T102, T207…).
"""

from __future__ import annotations

import math
import os
import shlex
import sys
from dataclasses import dataclass
from typing import Any, Mapping

from .. import i18n
from ..diagnostics import Applicability, Diagnostic, FileEdit, Fix, Related, Severity
from ..prototxt.reader import PrototxtDocument
from ..text import Position, Range, TextEdit

TRIAGE_CMD_ENV = "NNIE_LSP_TRIAGE_CMD"   # override the command (tests, custom installs)


class TriageArgsError(ValueError):
    pass


@dataclass(frozen=True)
class TriageArgs:
    reference: str
    sim: str
    cfg: str | None = None
    prototxt: str | None = None
    sim16: str | None = None

    @staticmethod
    def parse(raw: Any, base_dir: str | None = None) -> "TriageArgs":
        if isinstance(raw, (list, tuple)) and len(raw) == 1:
            raw = raw[0]
        if not isinstance(raw, Mapping):
            raise TriageArgsError("expected an object")
        unknown = sorted(set(raw) - {"reference", "sim", "cfg", "prototxt", "sim16"})
        if unknown:
            raise TriageArgsError(f"unknown key(s) {', '.join(unknown)}")
        vals = {}
        for k in ("reference", "sim", "cfg", "prototxt", "sim16"):
            v = raw.get(k)
            if v is None:
                continue
            if not isinstance(v, str) or not v:
                raise TriageArgsError(f"{k} must be a non-empty string")
            if v.startswith("file://"):
                from pygls.uris import to_fs_path
                v = to_fs_path(v) or v
            if base_dir and not os.path.isabs(v):
                v = os.path.join(base_dir, v)
            vals[k] = v
        for k in ("reference", "sim"):
            if k not in vals:
                raise TriageArgsError(f"{k} is required")
        return TriageArgs(**vals)


def triage_command(args: TriageArgs) -> list[str]:
    custom = os.environ.get(TRIAGE_CMD_ENV)
    cmd = shlex.split(custom) if custom else [sys.executable, "-m", "nnie_lsp.cli.triage"]
    cmd += ["compare", "--reference", args.reference, "--sim", args.sim, "--format", "json"]
    if args.cfg:
        cmd += ["--cfg", args.cfg]
    if args.prototxt:
        cmd += ["--prototxt", args.prototxt]
    if args.sim16:
        cmd += ["--sim-16bit", args.sim16]
    return cmd


@dataclass(frozen=True)
class LayerNote:
    range: Range             # the layer's name value
    hint_at: Position        # where the inlay hint goes (end of the name)
    label: str               # "cos 0.9731"
    message: str | None      # diagnostic message when below the threshold
    severity: Severity
    layer: str


def _fmt(c: float) -> str:
    return f"{c:.4f}"


BELOW = {"low": "good", "poor": "decay_end", "bad": "middle_dip"}  # status -> the threshold it fell below


def _crossed(status: str, is_data: bool, thresholds: Mapping) -> str:
    """The threshold a row's status says it fell below, for the message (display only)."""
    key = "data_layer" if is_data else BELOW.get(status, "good")
    value = thresholds.get(key)
    return str(value) if isinstance(value, (int, float)) else key


def annotations(result: Mapping, doc: PrototxtDocument, lang: str = "en") -> list[LayerNote]:
    rows = result.get("layers") or []
    th = result.get("thresholds") or {}
    by_name = {ls.name: ls for ls in doc.layers if ls.name}
    last_writer: dict[str, Any] = {}
    for ls in doc.layers:
        for t, _ in ls.tops:
            last_writer[t] = ls
    first = result.get("first_divergence")
    out: list[LayerNote] = []
    seen = set()
    for row in rows:
        if not isinstance(row, Mapping):
            continue
        name = row.get("name")
        ls = by_name.get(name) if isinstance(name, str) else None
        if ls is None and isinstance(row.get("blob"), str):
            ls = last_writer.get(row["blob"])
        if ls is None or ls.index in seen:
            continue
        cos = row.get("cosine")
        if not isinstance(cos, (int, float)) or isinstance(cos, bool) or math.isnan(float(cos)):
            continue
        seen.add(ls.index)
        cos = float(cos)
        status = str(row.get("status") or "")
        msg = None
        sev = Severity.INFO
        if status in BELOW:
            sev = Severity.ERROR if status == "bad" else Severity.WARNING
            hint = i18n.t("triage.first", lang) if name == first else ""
            msg = i18n.t("triage.low", lang, cosine=_fmt(cos), threshold=_crossed(status, bool(row.get("is_data")), th),
                         status=status, hint=hint)
        rng = ls.name_range
        out.append(LayerNote(rng, rng.end, f"cos {_fmt(cos)}", msg, sev, ls.name))
    return out


# ------------------------------------------------------------------ findings -> engine objects

_SEVERITIES = {"error": Severity.ERROR, "warning": Severity.WARNING, "info": Severity.INFO, "hint": Severity.HINT}


def _range(obj: Mapping) -> Range:
    """1-based JSON positions -> a 0-based engine range."""
    line, col = int(obj["line"]) - 1, int(obj["column"]) - 1
    return Range.of(line, col, int(obj.get("end_line", line + 1)) - 1, int(obj.get("end_column", col + 1)) - 1)


def _abs(path: str, base: str | None) -> str:
    return os.path.normpath(path if os.path.isabs(path) or not base else os.path.join(base, path))


def fix_from_json(obj: Mapping | None, base: str | None = None) -> Fix | None:
    """A finding's ``fix`` object (nnie-lint's JSON shape) as an engine Fix; relative paths are
    joined to `base` (the report's ``inputs.working_directory``)."""
    if not isinstance(obj, Mapping) or not obj.get("edits"):
        return None
    edits = tuple(FileEdit(_abs(e["path"], base), TextEdit(_range(e), e["new_text"])) for e in obj["edits"])
    return Fix(str(obj.get("message") or ""), Applicability(obj.get("applicability", "unsafe")), edits)


def finding_diagnostics(result: Mapping, path: str | None = None) -> list[Diagnostic]:
    """The report's placed findings as engine Diagnostics (with Fix and related places), all of
    them or those in `path`.  The layer and cfg key a finding is about go to ``data``."""
    inputs = result.get("inputs") if isinstance(result.get("inputs"), Mapping) else {}
    base = inputs.get("working_directory") if isinstance(inputs.get("working_directory"), str) else None
    want = os.path.normpath(os.path.abspath(path)) if path else None
    out = []
    for f in result.get("findings") or []:
        if not isinstance(f, Mapping) or not f.get("path") or not f.get("line"):
            continue
        where = _abs(f["path"], base)
        if want is not None and os.path.abspath(where) != want:
            continue
        related = tuple(Related(_abs(r["path"], base), _range({**r, "end_line": r["line"], "end_column": r["column"]}),
                                str(r.get("message", ""))) for r in f.get("related") or [] if r.get("path"))
        data = tuple(sorted((k, str(f[k])) for k in ("layer", "cfg_key") if f.get(k)))
        out.append(Diagnostic(code=str(f["code"]), message=str(f["message"]), path=where, range=_range(f),
                              severity=_SEVERITIES.get(f.get("severity"), Severity.WARNING),
                              fix=fix_from_json(f.get("fix"), base), related=related, data=data))
    return out

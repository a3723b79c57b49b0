"""Triage results (``nnie-triage compare --format json``) as prototxt annotations.

:func:`triage_command` builds the CLI command line; :func:`annotations` maps the per-layer rows
onto the layers of a parsed prototxt: a diagnostic on each layer whose cosine is below the
threshold and an inlay hint ``cos 0.9731`` after each matched layer name.
"""

from __future__ import annotations

import math
import os
import shlex
import sys
from dataclasses import dataclass
from typing import Any, Mapping

from .. import i18n
from ..diagnostics import Severity
from ..prototxt.reader import PrototxtDocument
from ..text import Position, Range

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


def annotations(result: Mapping, doc: PrototxtDocument, lang: str = "en") -> list[LayerNote]:
    rows = result.get("layers") or []
    th = result.get("thresholds") or {}
    good = float(th.get("good", 0.99))
    data_th = float(th.get("data_layer", 0.999))
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
        threshold = data_th if row.get("is_data") else good
        status = str(row.get("status") or "")
        below = cos < threshold or status in ("low", "poor", "bad")
        msg = None
        sev = Severity.INFO
        if below:
            sev = Severity.ERROR if status == "bad" else Severity.WARNING
            hint = i18n.t("triage.first", lang) if name == first else ""
            msg = i18n.t("triage.low", lang, cosine=_fmt(cos), threshold=threshold, status=status or "low",
                         hint=hint)
        rng = ls.name_range
        out.append(LayerNote(rng, rng.end, f"cos {_fmt(cos)}", msg, sev, ls.name))
    return out

"""Triage results (``nnie-triage compare --format json``, docs/triage-schema.md) for the editor.

:func:`parse_arguments` checks an editor command's argument object (docs/editor-protocol.md);
:func:`triage_command` builds the CLI command line; :func:`annotations` maps the per-layer rows
onto the layers of a parsed prototxt: a diagnostic on each layer whose ``status`` (decided by the
triage — an editor never compares cosines with thresholds itself) is ``low``/``poor``/``bad`` (a
hint: the layers show where a cause shows, the finding of the cause is the error, see
:func:`~.carry_over.lead_with_cause`), and
an inlay hint ``cos 0.9731`` after each matched layer name (the diagnostic's code is
:data:`SIMILARITY_CODE`, T005); with the ONNX side (``compare --framework``: a row's
``framework_cosine``) the hint shows both hops, ``ONNX→Caffe 1.0000 · Caffe→NNIE 0.9731``.  :func:`finding_diagnostics` turns the report's findings back
into engine Diagnostics with their Fixes (quick fixes for T102, T207…) through the one JSON codec
(:mod:`nnie_lsp.core.diagnostic_json`).
"""

from __future__ import annotations

import math
import os
import shlex
import sys
from dataclasses import dataclass
from typing import Any, Mapping

from nnie_lsp.core import i18n
from nnie_lsp.core.diagnostic_json import decode_diagnostic, decode_fix
from nnie_lsp.core.diagnostics import Diagnostic, Severity
from nnie_lsp.readers.prototxt.reader import PrototxtDocument
from nnie_lsp.core.text import Position, Range

TRIAGE_CMD_ENV = "NNIE_LSP_TRIAGE_CMD"   # override the nnie-triage command (tests, custom installs)

# ------------------------------------------------------------------ command arguments

#: The argument object of each editor command (docs/editor-protocol.md): key -> kind.
TRIAGE_KEYS = {"cfg": "path", "prototxt": "path", "reference": "path", "sim": "path", "sim16": "path",
               "dot": "path", "discover": "bool", "regenerate": "bool", "framework": "path", "board": "path"}
LOOKUP_KEYS = {"cfg": "path", "prototxt": "path"}
REPORT_KEYS = {"html": "path", "text": "path", "json": "path", "cfg": "path", "prototxt": "path"}
REFERENCE_KEYS = {"cfg": "path", "prototxt": "path", "caffemodel": "path", "image": "paths", "out": "path",
                  "overwrite": "bool"}
EMULATE_KEYS = {**REFERENCE_KEYS, "bits": "bits", "hp": "names", "format": "format", "transpose": "bool"}
EMULATE_FORMATS = ("mapper_quant", "inst")


class TriageArgsError(ValueError):
    pass


def _as_path(key: str, value: Any, base_dir: str | None) -> str:
    if not isinstance(value, str) or not value:
        raise TriageArgsError(f"{key} must be a non-empty string")
    if value.startswith("file://"):
        from pygls.uris import to_fs_path
        value = to_fs_path(value) or value
    if base_dir and not os.path.isabs(value):
        value = os.path.join(base_dir, value)
    return os.path.abspath(value)


def _value(key: str, kind: str, value: Any, base_dir: str | None) -> Any:
    if kind == "path":
        return _as_path(key, value, base_dir)
    if kind == "paths":
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, (list, tuple)) or not items:
            raise TriageArgsError(f"{key} must be a path or a list of paths")
        return tuple(_as_path(key, item, base_dir) for item in items)
    if kind == "bool":
        if not isinstance(value, bool):
            raise TriageArgsError(f"{key} must be true or false")
        return value
    if kind == "bits":
        if value not in (8, 16) or isinstance(value, bool):
            raise TriageArgsError(f"{key} must be 8 or 16")
        return value
    if kind == "names":
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, (list, tuple)) or not all(isinstance(v, str) and v for v in items):
            raise TriageArgsError(f"{key} must be a layer name or a list of layer names")
        return tuple(items)
    if kind == "format":
        if value not in EMULATE_FORMATS:
            raise TriageArgsError(f"{key} must be one of {', '.join(EMULATE_FORMATS)}")
        return value
    raise AssertionError(kind)


def parse_arguments(raw: Any, keys: Mapping[str, str], base_dir: str | None = None) -> dict[str, Any]:
    """A command's one argument object, checked against `keys` (key -> kind); relative paths are
    joined to `base_dir` (the workspace root), ``file://`` URIs become paths.  Keys given as
    ``null`` count as absent.  Raises TriageArgsError with a readable message."""
    if isinstance(raw, (list, tuple)) and len(raw) == 1:
        raw = raw[0]
    if isinstance(raw, (list, tuple)) and not raw:
        raw = {}
    if not isinstance(raw, Mapping):
        raise TriageArgsError("expected one object")
    unknown = sorted(str(k) for k in set(raw) - set(keys))
    if unknown:
        raise TriageArgsError(f"unknown key(s) {', '.join(unknown)} (known: {', '.join(keys)})")
    return {key: _value(key, keys[key], raw[key], base_dir) for key in keys if raw.get(key) is not None}


@dataclass(frozen=True)
class TriageArgs:
    """``nnie.triage``'s arguments: any of the inputs; the rest is found beside the cfg."""

    reference: str | None = None
    sim: str | None = None
    cfg: str | None = None
    prototxt: str | None = None
    sim16: str | None = None
    dot: str | None = None
    discover: bool | None = None
    regenerate: bool | None = None   # re-emulate the NNIE side with the current cfg first (--regenerate)
    framework: str | None = None     # the ONNX side (`reference --onnx` dumps): both hops (--framework)
    board: str | None = None         # the board program's dumps (--board): the stage board

    @staticmethod
    def parse(raw: Any, base_dir: str | None = None) -> "TriageArgs":
        values = parse_arguments(raw, TRIAGE_KEYS, base_dir)
        if not any(values.get(k) for k in ("cfg", "prototxt", "reference", "sim")):
            raise TriageArgsError("give a cfg (the dump folders are then found beside it), or reference and sim")
        return TriageArgs(**values)


def triage_cli(*arguments: str) -> list[str]:
    """The ``nnie-triage`` command line with `arguments` (this Python, or $NNIE_LSP_TRIAGE_CMD)."""
    custom = os.environ.get(TRIAGE_CMD_ENV)
    prefix = shlex.split(custom) if custom else [sys.executable, "-m", "nnie_lsp.cli.triage"]
    return prefix + list(arguments)


def triage_command(args: TriageArgs, *, html: str | None = None, lang: str = "en") -> list[str]:
    """``nnie-triage compare`` on exactly these inputs (the caller completed them)."""
    if not args.reference or not (args.sim or args.board):
        raise TriageArgsError("reference and sim are required (or reference and board)")
    # the server stores the result itself (with the editor's texts): the command writes no record
    cmd = triage_cli("compare", "--reference", args.reference, "--format", "json", "--no-record")
    for flag, value in (("--sim", args.sim), ("--cfg", args.cfg), ("--prototxt", args.prototxt),
                        ("--sim-16bit", args.sim16), ("--dot", args.dot), ("--framework", args.framework),
                        ("--board", args.board), ("--html", html)):
        if value:
            cmd += [flag, value]
    if args.regenerate:
        cmd += ["--regenerate"]
    if i18n.is_zh(lang):
        cmd += ["--lang", "zh"]
    return cmd


#: The code of the per-layer similarity diagnostics (registered in nnie_lsp/triage/measure/rows.py).
SIMILARITY_CODE = "T005"


@dataclass(frozen=True)
class LayerNote:
    range: Range             # the layer's name value
    hint_at: Position        # where the inlay hint goes (end of the name)
    label: str               # "cos 0.9731"
    message: str | None      # diagnostic message when below the threshold
    severity: Severity
    layer: str
    code: str = SIMILARITY_CODE  # the diagnostic's code, when there is a message


def _fmt(c: float) -> str:
    return f"{c:.4f}"


BELOW = {"low": "good", "poor": "decay_end", "bad": "middle_dip"}  # status -> the threshold it fell below


def _crossed(status: str, is_data: bool, thresholds: Mapping) -> str:
    """The threshold a row's status says it fell below, for the message (display only)."""
    key = "data_layer" if is_data else BELOW.get(status, "good")
    value = thresholds.get(key)
    return str(value) if isinstance(value, (int, float)) else key


def annotations(result: Mapping, doc: PrototxtDocument, lang: str = "en", *,
                only_flagged: bool = False) -> list[LayerNote]:
    """A note per matched layer (`only_flagged`: only those with a message, for diagnostics).

    Runs on every keystroke while a result is shown: rows are JSON objects (dicts), the blob
    writers are only looked up for rows whose name is no layer."""
    rows = result.get("layers") or []
    th = result.get("thresholds") or {}
    by_name = {ls.name: ls for ls in doc.layers if ls.name}
    last_writer: dict[str, Any] | None = None
    first = result.get("first_divergence")
    out: list[LayerNote] = []
    seen = set()
    for row in rows:
        if not isinstance(row, dict):
            continue
        status = str(row.get("status") or "")
        if only_flagged and status not in BELOW:
            continue
        name = row.get("name")
        ls = by_name.get(name) if isinstance(name, str) else None
        if ls is None and isinstance(row.get("blob"), str):
            if last_writer is None:
                last_writer = {top: layer for layer in doc.layers for top, _ in layer.tops}
            ls = last_writer.get(row["blob"])
        if ls is None or ls.index in seen:
            continue
        cos = row.get("cosine")
        if type(cos) not in (int, float) or math.isnan(cos):
            continue
        seen.add(ls.index)
        cos = float(cos)
        msg = None
        sev = Severity.HINT   # a layer's note is where a cause shows, never the cause: a hint
        if status in BELOW:
            hint = i18n.t("triage.first", lang) if name == first else ""
            msg = i18n.t("triage.low", lang, cosine=_fmt(cos), threshold=_crossed(status, bool(row.get("is_data")), th),
                         status=status, hint=hint)
        rng = ls.name_range
        out.append(LayerNote(rng, rng.end, _label(cos, row, lang), msg, sev, ls.name))
    return out


def _label(cos: float, row: Mapping, lang: str) -> str:
    """``cos 0.9731``; with the ONNX → Caffe hop, both hops in the chain's order."""
    if "framework_status" not in row and "framework_cosine" not in row:
        return f"cos {_fmt(cos)}"
    fw = row.get("framework_cosine")
    if type(fw) in (int, float) and not math.isnan(fw):
        onnx = _fmt(float(fw))
    elif row.get("framework_status") == "shape":
        onnx = i18n.t("triage.hop_shape", lang)
    else:
        onnx = i18n.t("triage.hop_missing", lang)
    return i18n.t("triage.hops", lang, framework=onnx, cosine=_fmt(cos))


# ------------------------------------------------------------------ findings -> engine objects

#: nnie-lint's JSON fix object as an engine Fix (the one codec, :mod:`nnie_lsp.core.diagnostic_json`).
fix_from_json = decode_fix


def finding_diagnostics(result: Mapping, path: str | None = None) -> list[Diagnostic]:
    """The report's placed findings as engine Diagnostics (with Fix, alternatives and related
    places; :func:`nnie_lsp.core.diagnostic_json.decode_diagnostic`), all of them or those in `path`;
    relative paths are joined to the report's ``inputs.working_directory``.  The layer and cfg key
    a finding is about go to ``data``.  A malformed finding (a hand-edited stored result) is left out."""
    inputs = result.get("inputs") if isinstance(result.get("inputs"), Mapping) else {}
    base = inputs.get("working_directory") if isinstance(inputs.get("working_directory"), str) else None
    want = os.path.normpath(os.path.abspath(path)) if path else None
    out = []
    for f in result.get("findings") or []:
        if not isinstance(f, Mapping) or not f.get("path") or not f.get("line"):
            continue
        try:
            diagnostic = decode_diagnostic(f, base)
        except (KeyError, ValueError, TypeError, AttributeError):
            continue
        if want is None or os.path.abspath(diagnostic.path) == want:
            out.append(diagnostic)
    return out

"""Logs of ATC, the tool of NNIE's successor chips (SVP_NNN on Hi3519DV500, SS928, Hi3403:
docs/field-facts.md §1): not nnie_mapper's, whose ERROR/WARNING blocks they do not have.  What can
be read of one is told apart here -- its version line (``Mapper Version … (PICO_1.0) …``), its
start and result lines (``ATC start working now…``, ``ATC run success…`` / ``ATC run failed…``)
and its tagged lines (``[ERROR] …``, ``[WARN] …`` / ``[WARNING] …``, ``E10001: …`` error codes).
Nothing else of an ATC log is interpreted [I]: its format is not documented for this project."""

from __future__ import annotations

import re

from nnie_lsp.core.records import NamedTuple

_ATC_RE = re.compile(r"^\s*ATC (?:start working|run (?:success|failed))|Mapper Version\s+\S+\s+\(PICO_",
                     re.MULTILINE | re.IGNORECASE)
_TAG_RE = re.compile(r"\[(ERROR|WARN|WARNING)\]|^\s*(E\d{5})\s*:", re.IGNORECASE)
_FAILED_RE = re.compile(r"^\s*ATC run failed", re.IGNORECASE)


class AtcLine(NamedTuple):
    line: int          # 0-based
    level: str         # "error" | "warning"
    text: str          # the line, stripped


def is_atc_log(text: str) -> bool:
    """Whether the text is an ATC log (its version line or its start/result lines)."""
    return _ATC_RE.search(text) is not None


def atc_lines(text: str) -> tuple[list[AtcLine], int | None]:
    """The tagged ERROR/WARN lines of an ATC log, and the 0-based line of ``ATC run failed`` (None:
    the log does not say the run failed)."""
    out, failed = [], None
    for k, raw in enumerate(text.splitlines()):
        if failed is None and _FAILED_RE.match(raw):
            failed = k
        m = _TAG_RE.search(raw)
        if m is None:
            continue
        tag = (m.group(1) or "ERROR").upper()
        out.append(AtcLine(k, "error" if tag == "ERROR" or m.group(2) else "warning", raw.strip()))
    return out, failed

"""Engine output objects: diagnostics and fixes.  The CLI, the server and triage translate these."""

from __future__ import annotations

import os
from enum import Enum, IntEnum
from typing import Iterable

from nnie_lsp.core.records import NamedTuple
from nnie_lsp.core.text import Range, TextEdit, edits_overlap


class Severity(IntEnum):
    """Numbered as in LSP's DiagnosticSeverity."""

    ERROR = 1
    WARNING = 2
    INFO = 3
    HINT = 4

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> "Severity":
        t = text.strip().lower()
        aliases = {"error": cls.ERROR, "warning": cls.WARNING, "warn": cls.WARNING,
                   "info": cls.INFO, "information": cls.INFO, "hint": cls.HINT}
        if t not in aliases:
            raise ValueError(f"unknown severity {text!r} (error, warning, info, hint)")
        return aliases[t]


class Applicability(str, Enum):
    SAFE = "safe"      # applied by --fix and source.fixAll
    UNSAFE = "unsafe"  # only with --unsafe-fixes / an explicit quick fix


class FileEdit(NamedTuple):
    """A text edit in one file (absolute or project-relative path as the engine got it)."""

    path: str
    edit: TextEdit


class Fix(NamedTuple):
    message: str
    applicability: Applicability
    edits: tuple[FileEdit, ...]

    @property
    def is_safe(self) -> bool:
        return self.applicability is Applicability.SAFE


def non_overlapping_fixes(fixes: Iterable[Fix]) -> list[Fix]:
    """The fixes to apply together: first come, first kept; a fix any of whose edits conflicts
    (:func:`nnie_lsp.core.text.ranges_conflict`) with a kept fix's edit in the same file waits for the
    next pass.  Fixes without edits are dropped.  ``--fix`` and the editor's fix-all both use it."""
    kept: list[Fix] = []
    taken: dict[str, list[TextEdit]] = {}
    for fix in fixes:
        if not fix.edits:
            continue
        by_path: dict[str, list[TextEdit]] = {}
        for file_edit in fix.edits:
            by_path.setdefault(os.path.abspath(file_edit.path), []).append(file_edit.edit)
        if any(edits_overlap(edits, taken.get(path, ())) for path, edits in by_path.items()):
            continue
        kept.append(fix)
        for path, edits in by_path.items():
            taken.setdefault(path, []).extend(edits)
    return kept


class Related(NamedTuple):
    """Another place that explains the finding (e.g. the cfg line behind a prototxt finding)."""

    path: str
    range: Range
    message: str


class Diagnostic(NamedTuple):
    code: str
    message: str
    path: str
    range: Range
    severity: Severity = Severity.WARNING
    fix: Fix | None = None
    related: tuple[Related, ...] = ()
    # Stable machine data for other faces (e.g. {"layer": "conv1"}); never used for display.
    data: tuple[tuple[str, str], ...] = ()
    # Other fixes the user may choose instead of `fix` (quick fixes in the editor, listed in JSON);
    # never applied by --fix / fix-all, whatever their applicability.
    alternatives: tuple[Fix, ...] = ()

    def with_severity(self, severity: Severity) -> "Diagnostic":
        return self._replace(severity=severity)

    def sort_key(self):
        return (self.path, self.range.start.line, self.range.start.character, self.code)


def group_repeated(diags: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Repeated identical findings shown once: diagnostics of one file with the same code,
    severity and message and no fix become the first of them, its message ending "(the same in N
    more)" and the others added as related locations (after its own).  Order is kept; findings
    with a fix or alternatives stay apart (each keeps its own edit).  What every face shows
    (CLI text/JSON/SARIF/GitHub, the server's diagnostics); ``--fix`` and the exit status use
    the findings as the engine made them."""
    diags = list(diags)
    groups: dict[tuple, list[Diagnostic]] = {}
    order: list[tuple] = []
    for i, d in enumerate(diags):
        key = ((d.path, d.code, d.severity, d.message) if d.fix is None and not d.alternatives
               else ("#", i))
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(d)
    out = []
    for key in order:
        first, *rest = groups[key]
        if rest:
            zh = any("\u4e00" <= ch <= "\u9fff" for ch in first.message)  # the message's own language
            same, suffix = ("相同", f"（另有 {len(rest)} 处相同）") if zh else ("the same", f" (the same in {len(rest)} more)")
            more = tuple(Related(d.path, d.range, same) for d in rest)
            first = first._replace(message=first.message + suffix, related=first.related + more)
        out.append(first)
    return out

"""LSP diagnostics by (source, uri): what push and pull both report.

Each source — ``nnie-lint`` (the engine's rules), ``nnie-triage`` (the shown triage result's
findings and low-similarity layers, whatever their codes), later others — writes its own entry for a document; a report is the concatenation of a
document's entries, the lint findings first.  An entry remembers the document version it
describes and the sequence number of the computation that produced it, so a slow, older
computation finishing late never replaces a newer one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from lsprotocol import types as lsp

from nnie_lsp.server.convert import SOURCE, TRIAGE_SOURCE

SOURCE_ORDER = (SOURCE, TRIAGE_SOURCE)   # report order; unknown sources follow, by name


@dataclass(frozen=True)
class DiagnosticEntry:
    items: tuple[lsp.Diagnostic, ...]
    version: int | None     # the document version the items describe
    sequence: int           # computations are numbered in the order they started


class DiagnosticStore:
    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], DiagnosticEntry] = {}

    def set(self, source: str, uri: str, items: Sequence[lsp.Diagnostic], version: int | None = None,
            sequence: int = 0) -> bool:
        """Store `source`'s diagnostics of `uri` unless a newer computation already did;
        whether they were stored."""
        key = (source, uri)
        current = self._entries.get(key)
        if current is not None and current.sequence > sequence:
            return False
        self._entries[key] = DiagnosticEntry(tuple(items), version, sequence)
        return True

    def get(self, source: str, uri: str) -> DiagnosticEntry | None:
        return self._entries.get((source, uri))

    def clear(self, uri: str, source: str | None = None) -> None:
        """Drop `uri`'s entries (of one source, or all)."""
        for key in [k for k in self._entries if k[1] == uri and (source is None or k[0] == source)]:
            del self._entries[key]

    def sources(self, uri: str) -> list[str]:
        present = {source for source, u in self._entries if u == uri}
        known = [s for s in SOURCE_ORDER if s in present]
        return known + sorted(present - set(known))

    def items(self, uri: str) -> list[lsp.Diagnostic]:
        """Every source's diagnostics of `uri`, in report order."""
        out: list[lsp.Diagnostic] = []
        for source in self.sources(uri):
            out.extend(self._entries[(source, uri)].items)
        return out

    def version(self, uri: str) -> int | None:
        """The document version a report of `uri` describes: the lint entry's (the other sources
        are refreshed from the same text before every report)."""
        entry = self._entries.get((SOURCE, uri))
        return entry.version if entry is not None else None

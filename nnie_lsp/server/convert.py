"""Engine objects <-> LSP types: positions in the negotiated encoding, diagnostics, edits."""

from __future__ import annotations

import os
from typing import Callable

from lsprotocol import types as T
from pygls.uris import from_fs_path

from ..diagnostics import Diagnostic
from ..features.actions import fix_to_data
from ..output import rule_url
from ..text import LineIndex, Position, Range, column_from_utf16, utf16_column

SOURCE = "nnie-lint"
TRIAGE_SOURCE = "nnie-triage"


def uri_of(path: str) -> str:
    return from_fs_path(os.path.abspath(path)) or path


class Encoder:
    """Columns in code points (engine) <-> the client's position encoding (utf-8/16/32)."""

    def __init__(self, encoding: str | None = "utf-16") -> None:
        enc = str(getattr(encoding, "value", encoding) or "utf-16").lower()
        self.encoding = enc if enc in ("utf-8", "utf-16", "utf-32") else "utf-16"

    def to_lsp_col(self, line: str, character: int) -> int:
        if character <= 0:
            return 0
        prefix = line[:character]
        if prefix.isascii():
            return character
        if self.encoding == "utf-32":
            return character
        if self.encoding == "utf-16":
            return utf16_column(line, character)
        return len(prefix.encode("utf-8", "surrogatepass")) + max(0, character - len(line))

    def from_lsp_col(self, line: str, units: int) -> int:
        if units <= 0:
            return 0
        if line.isascii() or self.encoding == "utf-32":
            return min(units, len(line)) if units <= len(line) else len(line)
        if self.encoding == "utf-16":
            return column_from_utf16(line, units)
        count = 0
        for i, ch in enumerate(line):
            if count >= units:
                return i
            count += len(ch.encode("utf-8", "surrogatepass"))
        return len(line)

    def position(self, li: LineIndex | None, pos: Position) -> T.Position:
        if li is None or pos.line >= li.line_count:
            return T.Position(line=max(pos.line, 0), character=max(pos.character, 0))
        return T.Position(line=pos.line, character=self.to_lsp_col(li.line_text(pos.line), pos.character))

    def range(self, li: LineIndex | None, rng: Range) -> T.Range:
        return T.Range(start=self.position(li, rng.start), end=self.position(li, rng.end))

    def from_lsp(self, li: LineIndex, pos: T.Position) -> Position:
        if pos.line >= li.line_count:
            last = li.line_count - 1
            return Position(last, len(li.line_text(last)))
        return Position(pos.line, self.from_lsp_col(li.line_text(pos.line), pos.character))

    def from_lsp_range(self, li: LineIndex, rng: T.Range) -> Range:
        return Range(self.from_lsp(li, rng.start), self.from_lsp(li, rng.end))


LineSource = Callable[[str], "LineIndex | None"]


def edit_text(new_text: str, li: LineIndex | None) -> str:
    """Engine edit text uses "\\n"; follow the target document's CRLF style."""
    if li is not None and "\n" in new_text and "\r\n" in li.text[:4096]:
        return new_text.replace("\r\n", "\n").replace("\n", "\r\n")
    return new_text


def to_lsp_diagnostic(d: Diagnostic, lines: LineSource, enc: Encoder, versions: dict[str, int]) -> T.Diagnostic:
    home = lines(d.path)
    related = [T.DiagnosticRelatedInformation(
        location=T.Location(uri=uri_of(r.path), range=enc.range(lines(r.path), r.range)), message=r.message)
        for r in d.related]
    data: dict = {"code": d.code}
    if d.fix is not None:
        data["fix"] = fix_to_data(d.fix)
        paths = {os.path.abspath(fe.path) for fe in d.fix.edits}
        data["versions"] = {p: versions[p] for p in paths if p in versions}
    if d.data:
        data["info"] = dict(d.data)
    tags = [T.DiagnosticTag.Unnecessary] if d.code == "NN901" else None
    return T.Diagnostic(
        range=enc.range(home, d.range),
        message=d.message,
        severity=T.DiagnosticSeverity(int(d.severity)),
        code=d.code,
        code_description=T.CodeDescription(href=rule_url(d.code)),
        source=SOURCE,
        related_information=related or None,
        tags=tags,
        data=data,
    )

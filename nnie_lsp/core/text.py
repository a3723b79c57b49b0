"""Text primitives shared by every reader: positions, ranges, edits, decoding.

Conventions (one set for the whole engine):
- ``Position.line`` is 0-based; ``Position.character`` is a 0-based index into the line's
  Python ``str`` (code points).  CLI output adds 1 to both; the LSP layer converts the column to
  UTF-16 code units with :func:`utf16_column` / :func:`column_from_utf16`.
- Lines end at ``\\n``, ``\\r\\n`` or a lone ``\\r`` (classic Mac files), as editors show them.
  The line end is not part of the line's content as exposed by :meth:`LineIndex.line_text` but
  it is still in the text (ranges never cover it).
- Documents keep the text exactly as decoded (BOM removed); edits are applied to that text and
  :func:`encode` writes it back with the original encoding, BOM and newline style.
"""

from __future__ import annotations

import bisect
import codecs
import os
import re
from itertools import accumulate, repeat
from operator import add
from typing import Iterable, Sequence

from nnie_lsp.core import safe_io
from nnie_lsp.core.records import NamedTuple


_LINE_END = re.compile(r"\r\n|\n|\r")


class Position(NamedTuple):
    line: int
    character: int

    def __str__(self) -> str:  # 1-based, for humans
        return f"{self.line + 1}:{self.character + 1}"


class Range(NamedTuple):
    start: Position
    end: Position

    @staticmethod
    def of(line: int, col: int, end_line: int, end_col: int) -> "Range":
        return Range(Position(line, col), Position(end_line, end_col))

    @staticmethod
    def point(line: int, col: int) -> "Range":
        p = Position(line, col)
        return Range(p, p)

    def contains(self, pos: Position) -> bool:
        return self.start <= pos <= self.end

    def __str__(self) -> str:
        return f"{self.start}-{self.end}"


class TextEdit(NamedTuple):
    range: Range
    new_text: str


class LineIndex:
    """Offsets <-> positions for one text.  Build once per document."""

    __slots__ = ("text", "_starts")

    def __init__(self, text: str) -> None:
        self.text = text
        if "\r" in text and text.count("\r") != text.count("\r\n"):
            # a lone \r ends a line too (classic Mac files; editors show it as a line break)
            self._starts = [0, *(m.end() for m in _LINE_END.finditer(text))]
            return
        # line i + 1 starts len(line i) + 1 after line i (all in C: no per-line bytecode)
        lines = text.split("\n")
        lines.pop()
        self._starts = [0, *accumulate(map(add, map(len, lines), repeat(1)))]

    @property
    def line_count(self) -> int:
        return len(self._starts)

    def line_start(self, line: int) -> int:
        return self._starts[line]

    def line_end(self, line: int) -> int:
        """Offset just past the line's content (before ``\\r\\n`` / ``\\n`` / ``\\r``)."""
        if line + 1 < len(self._starts):
            end = self._starts[line + 1] - 1
            if self.text[end] == "\r":   # a lone \r line end
                return end
        else:
            end = len(self.text)
        if end > self._starts[line] and self.text[end - 1] == "\r":
            end -= 1
        return end

    def line_text(self, line: int) -> str:
        return self.text[self._starts[line]:self.line_end(line)]

    def position(self, offset: int) -> Position:
        """The position of an offset; an offset past the line's content (inside its ``\r\n``, or
        after a ``\r`` that ends the text) is the end of the content: ranges never cover it."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self._starts, offset) - 1
        start = self._starts[line]
        if offset > start and self.text[offset - 1] == "\r":
            offset = min(offset, self.line_end(line))
        return Position(line, offset - start)

    def offset(self, pos: Position) -> int:
        if pos.line >= len(self._starts):
            return len(self.text)
        line = max(pos.line, 0)
        return min(self._starts[line] + max(pos.character, 0), self.line_end(line))

    def range(self, start: int, end: int) -> Range:
        return Range(self.position(start), self.position(end))

    def line_range(self, line: int) -> Range:
        """The content of one line (without its newline)."""
        return Range(Position(line, 0), Position(line, self.line_end(line) - self._starts[line]))

    def full_line_range(self, line: int) -> Range:
        """The line including its newline (start of next line), for deleting whole lines."""
        if line + 1 < len(self._starts):
            return Range(Position(line, 0), Position(line + 1, 0))
        return self.line_range(line)


def split_lines(text: str) -> list[str]:
    """The lines of a text as :class:`LineIndex` counts them: ``text.split("\\n")`` (a ``\\r\\n``
    line keeps its ``\\r``) unless a lone ``\\r`` ends a line somewhere, which ends it then too."""
    if "\r" in text and text.count("\r") != text.count("\r\n"):
        return _LINE_END.split(text)
    return text.split("\n")


def detect_newline(text: str) -> str:
    """The line end a text uses (its first one): ``\\r\\n``, ``\\n``, or ``\\r`` alone; ``\\n``
    for a text of one line."""
    i = text.find("\n")
    r = text.find("\r", 0, i if i >= 0 else len(text))
    if r >= 0 and r != i - 1:
        return "\r"
    if i > 0 and text[i - 1] == "\r":
        return "\r\n"
    return "\n"


def apply_edits(text: str, edits: Iterable[TextEdit]) -> str:
    """Apply non-overlapping edits.  ``\\n`` in new text follows the document's newline style."""
    index = LineIndex(text)
    newline = detect_newline(text)
    spans = []
    for e in edits:
        new = e.new_text
        if newline != "\n":
            new = new.replace("\r\n", "\n").replace("\n", newline)
        spans.append((index.offset(e.range.start), index.offset(e.range.end), new))
    spans.sort(key=lambda s: (s[0], s[1]))
    out: list[str] = []
    pos = 0
    for start, end, new in spans:
        if start < pos:
            raise ValueError("overlapping edits")
        out.append(text[pos:start])
        out.append(new)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def ranges_conflict(a: Range, b: Range) -> bool:
    """Whether edits at `a` and `b` cannot both be applied: they share text, or they start at the
    same place (two insertions at one point, or an insertion where a replacement starts, whose
    order would be a guess).  Touching ranges (one ends where the other starts) do not conflict.

    This is the one definition of overlapping fixes: ``nnie-lint --fix`` and the editor's fix-all
    both choose fixes with it (:func:`nnie_lsp.core.diagnostics.non_overlapping_fixes`)."""
    return (a.start < b.end and b.start < a.end) or a.start == b.start


def edits_overlap(a: Sequence[TextEdit], b: Sequence[TextEdit]) -> bool:
    """Whether any edit of `a` conflicts with any edit of `b` (edits of one document)."""
    return any(ranges_conflict(x.range, y.range) for x in a for y in b)


# ---------------------------------------------------------------- decoding and encoding

class Decoded(NamedTuple):
    text: str
    encoding: str  # codec name used to decode (and to encode back)
    bom: bool
    newline: str


_FALLBACKS = ("utf-8", "gb18030")


def decode(data: bytes) -> Decoded:
    """Decode file bytes: UTF-8 (with or without BOM), then GB18030 (covers GBK), then latin-1.

    Never raises: latin-1 maps every byte.
    """
    bom = data.startswith(codecs.BOM_UTF8)
    if bom:
        data = data[len(codecs.BOM_UTF8):]
    text = None
    encoding = "latin-1"
    for enc in _FALLBACKS:
        try:
            text = data.decode(enc)
            encoding = enc
            break
        except UnicodeDecodeError:
            continue
    if text is None:
        text = data.decode("latin-1")
    return Decoded(text, encoding, bom, detect_newline(text))


def encode(text: str, encoding: str = "utf-8", bom: bool = False) -> bytes:
    data = text.encode(encoding)
    return (codecs.BOM_UTF8 + data) if bom else data


def read_text(path: str, kind: str | None = None) -> Decoded:
    """Read and decode a file through the guarded reader (:mod:`nnie_lsp.core.safe_io`): regular files
    only, at most the bound for ``kind`` (guessed from the name when not given).  Raises
    :class:`~nnie_lsp.core.safe_io.FileReadError` (an ``OSError``) with a clear message otherwise."""
    return decode(safe_io.read_bytes(path, kind))


# ---------------------------------------------------------------- UTF-16 (LSP) columns

def utf16_column(line_text: str, character: int) -> int:
    """Code-point column -> UTF-16 code units."""
    prefix = line_text[:character]
    return character + sum(1 for ch in prefix if ord(ch) > 0xFFFF)


def column_from_utf16(line_text: str, units: int) -> int:
    """UTF-16 code units -> code-point column (clamped to the line)."""
    count = 0
    for i, ch in enumerate(line_text):
        if count >= units:
            return i
        count += 2 if ord(ch) > 0xFFFF else 1
    return len(line_text)


def unified_diff(path: str, old: str, new: str) -> str:
    """`old` → `new` as a unified diff of `path` (relative to the working folder), for --diff."""
    import difflib  # only for --diff (start-up)

    return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                        fromfile=f"a/{os.path.relpath(path)}", tofile=f"b/{os.path.relpath(path)}"))

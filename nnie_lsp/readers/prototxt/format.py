"""Canonical layout for prototxt files.

``format_prototxt(text)`` rewrites the layout only -- the parsed message never changes:

- two spaces of indentation per nesting level, one field per line;
- ``name: value`` with one space (values are kept exactly as written: quotes, number
  spelling, enum names); ``name {`` for messages (``name: {`` and ``< >`` become ``name {``);
- ``[a, b]`` lists on one line with ``", "`` separators; ``,``/``;`` field separators dropped;
- full-line comments re-indented to their block level; trailing comments stay after the field
  they follow, with one space before ``#``;
- blank lines between top-level items preserved as at most one, none inside blocks, none at
  the start, one final newline;
- CRLF files stay CRLF.

It is idempotent, and it refuses (returns ``None``) when the document has NN010 syntax errors:
the layout of broken text cannot be rewritten safely.  Use :func:`format_edits` for the LSP.
"""

from __future__ import annotations

import bisect
import re

from nnie_lsp.core.text import LineIndex, Range, TextEdit, detect_newline
from nnie_lsp.readers.prototxt.reader import parse_prototxt
from nnie_lsp.readers.prototxt.tokenizer import STRING, tokenize
from nnie_lsp.readers.prototxt.tree import Node

__all__ = ["format_prototxt", "format_edits"]


class _Formatter:
    def __init__(self, text: str, nodes: tuple[Node, ...], comments: list[tuple[int, int]],
                 li: LineIndex, indent: str) -> None:
        self.text = text
        self.nodes = nodes
        self.li = li
        self.indent = indent
        self.out: list[str] = []
        self.comments = comments
        self.ci = 0
        self.last_line = -1  # source line of the end of the last emitted item
        self.prev_end = 0  # source offset of the end of the last emitted item
        self._newlines = [m.start() for m in re.finditer("\n", text)]

    def line_of(self, off: int) -> int:
        return bisect.bisect_left(self._newlines, off)

    def blank_before(self, start: int, depth: int) -> None:
        if depth == 0 and self.out and self.text.count("\n", self.prev_end, start) >= 2:
            self.out.append("")

    def flush(self, upto: int, depth: int) -> None:
        text = self.text
        while self.ci < len(self.comments) and self.comments[self.ci][0] < upto:
            s, e = self.comments[self.ci]
            self.ci += 1
            ctext = text[s:e].rstrip()
            line_start = text.rfind("\n", 0, s) + 1
            full_line = not text[line_start:s].strip()
            line = self.line_of(s)
            if not full_line and self.out and line == self.last_line and self.out[-1]:
                self.out[-1] += " " + ctext
            else:
                self.blank_before(s, depth)
                self.out.append(self.indent * depth + ctext)
            self.last_line = line
            self.prev_end = e

    def scalar_text(self, n: Node) -> str:
        vt = n.value_text
        if "\n" in vt or "#" in vt or "\r" in vt:
            # adjacent string literals split over lines: join them with one space
            kinds, starts, ends, _ = tokenize(vt)
            parts = [vt[s:e] for k, s, e in zip(kinds, starts, ends) if k == STRING]
            if parts:
                return " ".join(parts)
        return vt

    def emit(self, n: Node, depth: int) -> None:
        self.flush(n.start_offset, depth)
        self.blank_before(n.start_offset, depth)
        ind = self.indent * depth
        kind = n.kind
        if kind == "message":
            self.emit_block(n, n.children, depth)
        elif kind == "list":
            if n.children and all(c.kind == "message" for c in n.children):
                for c in n.children:
                    self.emit_block(n, c.children, depth, c)
            else:
                vals = ", ".join(self.scalar_text(c) for c in n.children)
                self.out.append(f"{ind}{n.name}: [{vals}]")
                self.last_line = self.line_of(n.end_offset)
                self.prev_end = n.end_offset
        else:
            self.out.append(f"{ind}{n.name}: {self.scalar_text(n)}")
            self.last_line = self.line_of(n.end_offset)
            self.prev_end = n.end_offset

    def emit_block(self, n: Node, children: tuple[Node, ...], depth: int, element: Node | None = None) -> None:
        ind = self.indent * depth
        vs, ve = (element or n).value_offsets
        self.out.append(f"{ind}{n.name} {{")
        self.last_line = self.line_of(vs)
        self.prev_end = vs + 1
        for c in children:
            self.emit(c, depth + 1)
        close = max(ve - 1, vs)
        self.flush(close, depth + 1)
        self.out.append(f"{ind}}}")
        self.last_line = self.line_of(close)
        self.prev_end = ve

    def run(self) -> list[str]:
        for n in self.nodes:
            self.emit(n, 0)
        self.flush(len(self.text) + 1, 0)
        return self.out


def format_prototxt(text: str, indent: str = "  ") -> str | None:
    """The canonical layout of ``text``, or ``None`` if it has syntax errors (NN010)."""
    doc = parse_prototxt(text)
    if doc.syntax_errors:
        return None
    li = doc.line_index
    comments = [(li.offset(r.start), li.offset(r.end)) for r, _ in doc.comments]
    lines = _Formatter(text, doc.nodes, comments, li, indent).run()
    if not lines:
        return ""
    return detect_newline(text).join(lines) + detect_newline(text)


def format_edits(text: str, indent: str = "  ") -> list[TextEdit] | None:
    """One whole-document edit (empty list if already formatted), or ``None`` on syntax errors."""
    new = format_prototxt(text, indent)
    if new is None:
        return None
    if new == text:
        return []
    li = LineIndex(text)
    return [TextEdit(Range(li.position(0), li.position(len(text))), new)]

"""Where each table header, key and value of a TOML text is.

:mod:`tomllib` gives a document's values but no positions; the card's problems, hover and
completion need them.  :func:`locate` scans a text that :mod:`tomllib` has already accepted (so it
only has to find where things are, never to judge syntax) and returns its items in order: table
headers (``[a]``, ``[[a.b]]``) and key/value pairs with the ranges of the key and of the whole value
(an array may span lines).  Strings (basic, literal and both multi-line forms), comments, arrays and
inline tables are skipped as TOML 1.0 writes them.
"""

from __future__ import annotations

from nnie_lsp.core.records import NamedTuple
from nnie_lsp.core.text import LineIndex, Range


class Header(NamedTuple):
    keys: tuple[str, ...]
    array: bool                 # ``[[...]]``
    range: Range                # the whole header, brackets included
    line: int


class Pair(NamedTuple):
    keys: tuple[str, ...]       # the dotted key as written (relative to its table)
    table: tuple[str, ...]      # the keys of the header it is under (() for the root)
    key_range: Range
    value_range: Range
    line: int
    value_text: str


Item = Header | Pair

_BARE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.n = len(text)
        self.i = 0

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.text[j] if j < self.n else ""

    def skip_blanks(self) -> None:
        while self.i < self.n and self.text[self.i] in " \t":
            self.i += 1

    def skip_to_line_end(self) -> None:
        end = self.text.find("\n", self.i)
        self.i = self.n if end < 0 else end

    def skip_ws_comments_newlines(self) -> None:
        while self.i < self.n:
            ch = self.text[self.i]
            if ch in " \t\r\n":
                self.i += 1
            elif ch == "#":
                self.skip_to_line_end()
            else:
                return

    def string(self) -> str:
        """A string token at the cursor (any of the four forms); the cursor moves past it.
        Returns the raw content for single-line keys (escapes kept as written)."""
        t = self.text
        if t.startswith('"""', self.i) or t.startswith("'''", self.i):
            quote = t[self.i:self.i + 3]
            j = self.i + 3
            while True:
                k = t.find(quote, j)
                if k < 0:
                    self.i = self.n
                    return ""
                if quote == '"""':
                    back = 0
                    while k - 1 - back >= j and t[k - 1 - back] == "\\":
                        back += 1
                    if back % 2:
                        j = k + 1
                        continue
                end = k + 3
                while end < self.n and t[end] == quote[0] and end - k < 5:  # up to two quotes inside
                    end += 1
                content = t[self.i + 3:end - 3]
                self.i = end
                return content
        quote = t[self.i]
        j = self.i + 1
        while j < self.n and t[j] != "\n":
            if quote == '"' and t[j] == "\\":
                j += 2
                continue
            if t[j] == quote:
                content = t[self.i + 1:j]
                self.i = j + 1
                return content
            j += 1
        self.i = j
        return t[self.i:j]

    def key(self) -> tuple[str, ...]:
        parts: list[str] = []
        while self.i < self.n:
            self.skip_blanks()
            ch = self.peek()
            if ch and ch in "\"'":
                parts.append(self.string())
            else:
                start = self.i
                while self.i < self.n and self.text[self.i] in _BARE:
                    self.i += 1
                parts.append(self.text[start:self.i])
            self.skip_blanks()
            if self.peek() == ".":
                self.i += 1
                continue
            break
        return tuple(parts)

    def value(self) -> None:
        """Move past one value."""
        ch = self.peek()
        if not ch:
            return
        if ch in "\"'":
            self.string()
            return
        if ch in "[{":
            close = {"[": "]", "{": "}"}
            stack = [close[ch]]
            self.i += 1
            while self.i < self.n and stack:
                c = self.text[self.i]
                if c in "\"'":
                    self.string()
                    continue
                if c == "#":
                    self.skip_to_line_end()
                    continue
                if c in "[{":
                    stack.append(close[c])
                elif c == stack[-1]:
                    stack.pop()
                self.i += 1
            return
        while self.i < self.n and self.text[self.i] not in " \t\r\n#,]}":
            self.i += 1
        # a date-time may hold one blank between date and time ("1979-05-27 07:32:00")
        if (self.i + 1 < self.n and self.text[self.i] == " " and self.text[self.i + 1].isdigit()
                and self.text[self.i - 1].isdigit() and "-" in self.text[max(0, self.i - 10):self.i]):
            self.i += 1
            while self.i < self.n and self.text[self.i] not in " \t\r\n#,]}":
                self.i += 1


def locate(text: str, line_index: LineIndex | None = None) -> list[Item]:
    """The headers and pairs of a TOML text :mod:`tomllib` accepted, in order (module doc)."""
    idx = line_index or LineIndex(text)
    s = _Scanner(text)
    items: list[Item] = []
    table: tuple[str, ...] = ()
    while True:
        s.skip_ws_comments_newlines()
        if s.i >= s.n:
            break
        start = s.i
        if s.peek() == "[":
            array = s.peek(1) == "["
            s.i += 2 if array else 1
            keys = s.key()
            s.skip_blanks()
            s.i += 2 if array else 1
            items.append(Header(keys, array, idx.range(start, s.i), idx.position(start).line))
            table = keys
            s.skip_blanks()
            if s.peek() == "#":
                s.skip_to_line_end()
            continue
        keys = s.key()
        key_end = min(s.i, len(text))   # an unterminated quoted key runs to the end of the text
        while key_end > start and text[key_end - 1] in " \t":
            key_end -= 1
        s.skip_blanks()
        if s.peek() != "=":   # cannot happen in a text tomllib accepted; never loop forever
            s.skip_to_line_end()
            continue
        s.i += 1
        s.skip_blanks()
        value_start = s.i
        s.value()
        items.append(Pair(keys, table, idx.range(start, key_end), idx.range(value_start, s.i),
                          idx.position(start).line, text[value_start:s.i]))
        s.skip_blanks()
        if s.peek() == "#":
            s.skip_to_line_end()
    return items


def error_position(message: str) -> tuple[int, int] | None:
    """(line, column), 0-based, from a :class:`tomllib.TOMLDecodeError` message, which ends with
    ``(at line L, column C)`` (or ``(at end of document)``: None)."""
    import re

    m = re.search(r"\(at line (\d+), column (\d+)\)\s*$", message)
    if m is None:
        return None
    return int(m.group(1)) - 1, int(m.group(2)) - 1

"""Line numbers of an old text in a new one, for carrying a triage result's places and fixes over
to the text being edited (:mod:`nnie_lsp.server.triage.carry_over`) and for finding the fixes
already applied (:mod:`nnie_lsp.triage.fixed_since_run`)."""

from __future__ import annotations

import difflib
import hashlib
from collections import OrderedDict

from nnie_lsp.core.text import Position, Range, split_lines

#: The changed middle of two texts is diffed line by line only up to this many line pairs
#: (difflib is quadratic); beyond, its lines count as changed.
DIFF_LIMIT = 4_000_000


class LineMap:
    """Line numbers of an old text -> the same lines in a new text (None: the line changed).

    Edits are local: the common head and tail are matched directly, only the middle is diffed
    (so a keystroke in a 30,000-line prototxt costs milliseconds)."""

    def __init__(self, old: str, new: str) -> None:
        old_lines, new_lines = split_lines(old), split_lines(new)
        self.identical = old == new
        self.old_count, self.new_count = len(old_lines), len(new_lines)
        self._head = self._tail = 0
        self._middle: dict[int, int] = {}
        if self.identical:
            return
        shortest = min(self.old_count, self.new_count)
        while self._head < shortest and old_lines[self._head] == new_lines[self._head]:
            self._head += 1
        while (self._tail < shortest - self._head
               and old_lines[self.old_count - 1 - self._tail] == new_lines[self.new_count - 1 - self._tail]):
            self._tail += 1
        old_middle = old_lines[self._head:self.old_count - self._tail]
        new_middle = new_lines[self._head:self.new_count - self._tail]
        if old_middle and new_middle and len(old_middle) * len(new_middle) <= DIFF_LIMIT:
            matcher = difflib.SequenceMatcher(None, old_middle, new_middle, autojunk=False)
            for tag, old_start, old_end, new_start, _new_end in matcher.get_opcodes():
                if tag == "equal":
                    for offset in range(old_end - old_start):
                        self._middle[self._head + old_start + offset] = self._head + new_start + offset

    def line(self, old_line: int) -> int | None:
        if self.identical or old_line < self._head:
            return old_line
        if old_line >= self.old_count - self._tail:   # the common tail (or past the end)
            return old_line + self.new_count - self.old_count
        return self._middle.get(old_line)

    def near(self, old_line: int) -> int:
        """Where a changed line is now, about: after the nearest unchanged line above it."""
        for above in range(old_line - 1, max(old_line - 200, -1), -1):
            mapped = self.line(above)
            if mapped is not None:
                return mapped + (old_line - above)
        return old_line

    def range(self, rng: Range) -> Range | None:
        """`rng` on the new text, when every line it touches is unchanged."""
        if self.identical:
            return rng
        lines = [self.line(n) for n in range(rng.start.line, rng.end.line + 1)]
        if any(n is None for n in lines) or any(b - a != 1 for a, b in zip(lines, lines[1:])):
            return None
        return Range(Position(lines[0], rng.start.character), Position(lines[-1], rng.end.character))


_MAPS: OrderedDict[tuple[str, str], LineMap] = OrderedDict()
_MAPS_KEPT = 16


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def line_map(old: str, new: str) -> LineMap:
    """The LineMap of two texts (cached by their digests: diagnostics, lenses and actions of one
    state share one diff)."""
    key = (_digest(old), _digest(new))
    hit = _MAPS.get(key)
    if hit is None:
        hit = _MAPS[key] = LineMap(old, new)
        while len(_MAPS) > _MAPS_KEPT:
            _MAPS.popitem(last=False)
    else:
        _MAPS.move_to_end(key)
    return hit

"""`# nnie-lint: disable=CODE[,CODE]` (line) and `# nnie-lint: disable-file=CODE` (file) comments.

A line directive at the end of a line covers diagnostics starting on that line; alone on its line it
covers the next line.  `disable` without codes, or `ALL`, covers every code.  A directive that
suppresses nothing is reported as NN901; an unknown code in a directive as NN902.
"""

from __future__ import annotations

import re

from nnie_lsp.core.diagnostics import Diagnostic
from nnie_lsp.core.records import NamedTuple
from nnie_lsp.rules.meta import unknown_suppression_code, unused_suppression
from nnie_lsp.core.text import Range

# compiled on first use (re's cache), for a comment that names nnie-lint: most files have none (start-up)
DIRECTIVE = r"nnie-lint\s*:\s*(disable-file|disable)\b\s*(?:=\s*([A-Za-z0-9_,\s]*))?"


class Directive(NamedTuple):
    kind: str                 # "line" | "file"
    codes: tuple[str, ...]    # () = all
    target_line: int | None   # line it covers (line directives)
    range: Range              # the comment, for reporting
    path: str
    used: set                 # codes this directive silenced (filled while applying)
    code_ranges: tuple[Range, ...] = ()   # where each of `codes` is written (same order)

    def code_range(self, code: str) -> Range:
        """Where `code` is written in the comment (the whole comment if unknown)."""
        for c, rng in zip(self.codes, self.code_ranges):
            if c == code:
                return rng
        return self.range

    def covers(self, d: Diagnostic) -> bool:
        if d.path != self.path:
            return False
        if self.kind == "line" and d.range.start.line != self.target_line:
            return False
        return not self.codes or "ALL" in self.codes or d.code in self.codes \
            or any(d.code.startswith(c) for c in self.codes)


def parse_directives(path: str, comments, line_text) -> list[Directive]:
    """`comments`: iterable of (Range, text) for each `#` comment; `line_text(i)` gives line i."""
    out = []
    for rng, text in comments:
        m = re.search(DIRECTIVE, text) if "nnie-lint" in text else None
        if not m:
            continue
        kind = "file" if m.group(1) == "disable-file" else "line"
        written = list(re.finditer(r"[^,\s]+", m.group(2) or ""))
        codes = tuple(w.group().upper() for w in written)
        target = None
        if kind == "line":
            before = line_text(rng.start.line)[:rng.start.character]
            target = rng.start.line + 1 if not before.strip() else rng.start.line
        code_ranges = _code_ranges(rng, text, line_text, [(m.start(2) + w.start(), w.group()) for w in written])
        out.append(Directive(kind, codes, target, rng, path, set(), code_ranges=code_ranges))
    return out


def _code_ranges(comment: Range, text: str, line_text, spans) -> tuple[Range, ...]:
    """Ranges of the codes at `spans` ((offset in the comment text, code)).  The text may start
    at the `#` or after it; when it is not found inside the comment's range, each code gets the
    whole comment's range (never a guessed column)."""
    line = comment.start.line
    body = text.rstrip("\r\n")
    start = line_text(line).find(body, comment.start.character) if comment.end.line == line else -1
    if start < 0 or start + len(body) > comment.end.character:
        return tuple(comment for _ in spans)
    return tuple(Range.of(line, start + offset, line, start + offset + len(code)) for offset, code in spans)


def apply_suppressions(diagnostics: list[Diagnostic], directives: list[Directive], *,
                       known_codes: set[str], report_unused: bool, lang: str = "en") -> list[Diagnostic]:
    kept = []
    for d in diagnostics:
        hit = None
        for dr in directives:
            if dr.covers(d):
                hit = dr
                break
        if hit is None:
            kept.append(d)
        else:
            hit.used.add(d.code)
    for dr in directives:
        for c in dr.codes:
            if c != "ALL" and c not in known_codes and not any(k.startswith(c) for k in known_codes):
                kept.append(unknown_suppression_code(c, dr.path, dr.code_range(c), lang))
        if report_unused and not dr.used:
            kept.append(unused_suppression(",".join(dr.codes) or "ALL", dr.path, dr.range, lang))
    return kept

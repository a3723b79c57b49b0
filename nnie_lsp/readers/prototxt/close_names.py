"""Did-you-mean: the one measure of "a close name" (a likely typo) for prototxt fields, layer
types and parameter blocks.

A name is close to a candidate when they differ only in case, or by a few single-character
edits (insert, delete, replace, swap two neighbours): at most 1 for names of up to 4
characters, 2 for longer ones.  A name that merely shares a long part with a candidate
(``DenseImageData`` / ``ImageData``, ``transpose_param`` / ``transform_param``) is another name,
not a typo.  Which candidates are "of the same kind" is the caller's choice
(:func:`nnie_lsp.readers.prototxt.schema.field_suggestion`)."""

from __future__ import annotations

from typing import Iterable

__all__ = ["edit_distance", "close_name"]


def edit_distance(a: str, b: str, limit: int = 3) -> int:
    """Optimal-string-alignment distance between `a` and `b`, capped at `limit` + 1."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = ca != cb
            v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                v = min(v, prev2[j - 2] + 1)
            cur[j] = v
        if min(cur) > limit:
            return limit + 1
        prev2, prev = prev, cur
    return min(prev[-1], limit + 1)


def _limit(name: str) -> int:
    return 1 if len(name) <= 4 else 2


def close_name(name: str, candidates: Iterable[str]) -> str | None:
    """The candidate `name` is most likely a typo of (case first, then fewest edits; ties by
    candidate order), or None."""
    cands = [c for c in candidates if c != name]
    low = name.lower()
    for c in cands:
        if c.lower() == low:
            return c
    limit = _limit(name)
    best, best_d = None, limit + 1
    for c in cands:
        d = edit_distance(low, c.lower(), limit)
        if d < best_d:
            best, best_d = c, d
    return best if best_d <= limit else None

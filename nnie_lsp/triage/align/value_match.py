"""One-to-one matching of same-size tensors by the cosine of their value samples, for the values
pass (:class:`~nnie_lsp.triage.align.values.ValuePass`).

The rule is the greedy one: the best-scoring (simulator, reference) pair of all is taken first,
then the best of what is left, and so on (ties: the later simulator tensor, then the later
reference tensor first); each pair's runner-up is the best other score of its row or its column.
A score is the sample cosine of the simulator tensor read as stored or, when the reference has a
(C, H, W), read as (H, W, C) — that reading wins when it is better by more than
:data:`HWC_MARGIN`.

The scores are matrix products over row blocks of at most :data:`BLOCK_ENTRIES` entries (memory
stays bounded whatever the number of tensors); each row keeps only its :data:`KEEP` best columns
and each column its two best rows.  The greedy runs on a heap of each row's best column still
free; a row whose kept columns are all taken is scored again against the free columns only.  This
gives exactly the pairs of the greedy over the whole matrix.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from nnie_lsp.triage.align.common import sample_cosines

#: The (H, W, C) reading of a simulator tensor wins when its cosine is better by more than this.
HWC_MARGIN = 0.05
#: Scores are compared to this many decimal places.
DIGITS = 12
#: Entries of the score matrix computed at once.
BLOCK_ENTRIES = 1 << 21
#: Best columns kept per row (and at most this many more tied with the last of them).
KEEP = 8
MAX_TIED = 64


@dataclass(frozen=True)
class Match:
    sim: int           # row: the simulator tensor's index
    ref: int           # column: the reference tensor's index
    score: float
    runner_up: float | None   # the best other score of its row or column (None: there is none)
    hwc: bool          # the (H, W, C) reading gave the score


class Scores:
    """The sample matrices of both sides and the score of any block of rows and columns.

    `direct`: the simulator samples as stored (rows); `permuted`: for each (C, H, W), the samples
    read as (H, W, C); `ref`: the reference samples (columns); `chw_of_ref`: each column's
    (C, H, W) or None."""

    def __init__(self, direct: np.ndarray, permuted: dict, ref: np.ndarray, chw_of_ref: list) -> None:
        self.direct, self.permuted, self.ref = direct, permuted, ref
        self.chw_of_ref = chw_of_ref
        self.columns_of = {chw: np.array([c == chw for c in chw_of_ref]) for chw in permuted}

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.direct), len(self.ref)

    def block(self, rows: np.ndarray, cols: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(scores, where the (H, W, C) reading won) of `rows` × `cols` (all columns: None)."""
        ref = self.ref if cols is None else self.ref[cols]
        score = sample_cosines(self.direct[rows], ref)
        hwc = np.zeros(score.shape, dtype=bool)
        for chw, samples in self.permuted.items():
            where = self.columns_of[chw] if cols is None else self.columns_of[chw][cols]
            if where.all():   # one (C, H, W) for every column: no copies
                cp = sample_cosines(samples[rows], ref)
                better = cp > score + HWC_MARGIN
                np.copyto(score, cp, where=better)
                hwc |= better
                continue
            if not where.any():
                continue
            cp = sample_cosines(samples[rows], ref[where])
            sub = score[:, where]
            better = cp > sub + HWC_MARGIN
            sub[better] = cp[better]
            score[:, where] = sub
            hwc[:, where] = better
        # rounding noise of the products (1e-17 apart for the same pair in another block) never
        # decides between two candidates: equal to 12 places is a tie
        return np.round(score, DIGITS), hwc


def _best(score: np.ndarray, k: int) -> list[np.ndarray]:
    """Per row, the columns of its `k` best scores, best first (ties: the later column first); a
    tie at the `k`-th score keeps every column holding it (up to :data:`MAX_TIED` more), so that
    the greedy finds the column it would take first."""
    cols = score.shape[1]
    if k >= cols:
        order = np.lexsort((-np.arange(cols)[None, :].repeat(len(score), 0), -score), axis=1)
        return list(order)
    kth = -np.partition(-score, k - 1, axis=1)[:, k - 1]
    out = []
    for row, low in zip(score, kth):
        cs = np.flatnonzero(row >= low)
        if cs.size > k + MAX_TIED:
            cs = cs[np.lexsort((-cs, -row[cs]))][:k + MAX_TIED]
        out.append(cs[np.lexsort((-cs, -row[cs]))])
    return out


def greedy_matches(scores: Scores) -> list[Match]:
    """The greedy one-to-one pairs (module doc), best first."""
    rows, cols = scores.shape
    if not rows or not cols:
        return []
    keep = min(KEEP, cols)
    step = max(1, BLOCK_ENTRIES // cols)
    kept: list[list[tuple[float, int, bool]]] = []   # per row: (score, column, hwc), best first
    row_top2 = np.full((rows, 2), -np.inf)
    col_top = np.full((2, cols), -np.inf)             # per column: its two best scores
    col_arg = np.full(cols, -1)                        # the row of its best score
    for start in range(0, rows, step):
        idx = np.arange(start, min(rows, start + step))
        score, hwc = scores.block(idx)
        best = _best(score, keep)
        for r, cs in zip(range(len(idx)), best):
            kept.append([(float(score[r, c]), int(c), bool(hwc[r, c])) for c in cs])
        top = -np.sort(-np.partition(score, cols - 2, axis=1)[:, -2:], axis=1) if cols > 1 else score
        row_top2[idx, :top.shape[1]] = top
        # columns: merge this block's two best rows into the running two best
        at = np.arange(cols)
        arg = score.argmax(axis=0)
        v1 = score[arg, at]
        if len(idx) > 1:
            score[arg, at] = -np.inf
            v2 = score.max(axis=0)
            score[arg, at] = v1
        else:
            v2 = np.full(cols, -np.inf)
        new_best = v1 > col_top[0]
        col_top[1] = np.where(new_best, np.maximum(col_top[0], v2), np.maximum(col_top[1], v1))
        col_arg = np.where(new_best, idx[arg], col_arg)
        col_top[0] = np.where(new_best, v1, col_top[0])
    taken_r = np.zeros(cols, dtype=bool)
    position = [0] * rows
    heap = [(-kept[i][0][0], -i, -kept[i][0][1], kept[i][0][2]) for i in range(rows)]
    heapq.heapify(heap)
    out: list[Match] = []
    while heap and len(out) < min(rows, cols):
        neg, neg_i, neg_j, hwc = heapq.heappop(heap)
        i, j = -neg_i, -neg_j
        if taken_r[j]:
            nxt = _next_free(scores, kept, position, i, taken_r)
            if nxt is not None:
                heapq.heappush(heap, (-nxt[0], -i, -nxt[1], nxt[2]))
            continue
        taken_r[j] = True
        sc = -neg
        row_other = _other(row_top2[i], sc, cols)
        col_other = None
        if rows > 1:
            col_other = float(col_top[1, j] if col_arg[j] == i else col_top[0, j])
        others = [v for v in (row_other, col_other) if v is not None]
        out.append(Match(i, j, float(sc), max(others) if others else None, bool(hwc)))
    return out


def _other(top2: np.ndarray, chosen: float, cols: int) -> float | None:
    """The best other score of a row whose chosen score is `chosen` (two best: `top2`)."""
    if cols < 2:
        return None
    # the chosen score is the row's best, or (when its best column was taken) not: then the best
    # is another column's
    return float(top2[1] if chosen >= top2[0] else top2[0])


def _next_free(scores: Scores, kept: list, position: list, i: int, taken: np.ndarray):
    """Row `i`'s best column still free: the next kept one, else scored again against the free
    columns (then kept anew)."""
    row = kept[i]
    while position[i] + 1 < len(row):
        position[i] += 1
        entry = row[position[i]]
        if not taken[entry[1]]:
            return entry
    free = np.flatnonzero(~taken)
    if not free.size:
        return None
    score, hwc = scores.block(np.array([i]), free)
    best = _best(score, min(KEEP, free.size))[0]
    kept[i] = [(float(score[0, c]), int(free[c]), bool(hwc[0, c])) for c in best]
    position[i] = 0
    return kept[i][0]

"""How many mapper runs a strategy for choosing `_hp` layers needs (the benchmark's question).

A *mapper run* is one evaluation of one candidate `_hp` set by the real mapper (minutes to hours).
Here a ``mapper`` is any function from a set of layer names to the final similarity — the
benchmark and the tests pass the emulation (:class:`~nnie_lsp.triage.hp_oracle.HpOracle`), possibly
calibrated on other images than the planner saw.  Every call of ``mapper`` is counted.

The strategies deliver a set that reaches the target:

- **guide** — the vendor guide's step 3: add `_hp` to one layer more at a time, from the first
  layer in network order, one run each, until the target is reached;
- **bisection** — the smallest prefix of the layers (network order) that reaches the target,
  found by bisection; the 8-bit run (no layer) and the all-16-bit run (every layer, what
  compile_mode 1 gives) are known already and not counted;
- **ours** — :func:`~nnie_lsp.triage.hp_plan.plan_hp` on the planner's emulation (no run); then
  each proposal is confirmed by one run, the plan first, then one more layer at a time from the
  plan's lookahead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

Mapper = Callable[[frozenset[str]], float]


@dataclass(frozen=True)
class StrategyResult:
    name: str
    runs: int  # mapper runs made
    layers: tuple[str, ...] | None  # the set delivered (None: the target was not reached)
    similarity: float | None  # the mapper's final similarity for that set

    @property
    def reached(self) -> bool:
        return self.layers is not None


class CountingMapper:
    """Counts the runs; a set asked twice is run twice (each is a real mapper run)."""

    def __init__(self, mapper: Mapper) -> None:
        self.mapper = mapper
        self.runs = 0

    def __call__(self, layers) -> float:
        self.runs += 1
        return self.mapper(frozenset(layers))


def guide(mapper: Mapper, order: Sequence[str], target: float) -> StrategyResult:
    run = CountingMapper(mapper)
    for k in range(1, len(order) + 1):
        similarity = run(order[:k])
        if similarity >= target:
            return StrategyResult("guide", run.runs, tuple(order[:k]), similarity)
    return StrategyResult("guide", run.runs, None, None)


def bisection(mapper: Mapper, order: Sequence[str], target: float) -> StrategyResult:
    """Smallest k with prefix k reaching the target, assuming a longer prefix does no worse. The
    full prefix is the all-16-bit run, known before any `_hp` run (not counted): when it misses the
    target no prefix can reach it and nothing is run."""
    full = mapper(frozenset(order))
    if full < target:
        return StrategyResult("bisection", 0, None, None)
    run = CountingMapper(mapper)
    low, high, high_similarity = 0, len(order), full  # prefix `low` misses (the 8-bit run)
    while high - low > 1:
        middle = (low + high) // 2
        similarity = run(order[:middle])
        if similarity >= target:
            high, high_similarity = middle, similarity
        else:
            low = middle
    return StrategyResult("bisection", run.runs, tuple(order[:high]), high_similarity)


def ours(mapper: Mapper, proposals: Sequence[Sequence[str]], target: float) -> StrategyResult:
    """Confirm the planner's proposals in order (the plan, then one more layer each time)."""
    run = CountingMapper(mapper)
    for layers in proposals:
        similarity = run(layers)
        if similarity >= target:
            return StrategyResult("ours", run.runs, tuple(layers), similarity)
    return StrategyResult("ours", run.runs, None, None)

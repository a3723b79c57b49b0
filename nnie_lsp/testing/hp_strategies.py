"""How many mapper runs a strategy for choosing `_hp` layers needs (the benchmark's question).

A *mapper run* is one evaluation of one candidate `_hp` set by the real mapper (minutes to hours).
Here a ``mapper`` is any function from a set of layer names to the final similarity — the
benchmark and the tests pass the emulation (:class:`~nnie_lsp.triage.hp_plan.oracle.HpOracle`), possibly
calibrated on other images than the planner saw.  Every call of ``mapper`` is counted.

The strategies deliver a set that reaches the target:

- **guide** — the vendor guide's step 3: add `_hp` to one layer more at a time, from the first
  layer in network order, one run each, until the target is reached;
- **bisection** — the smallest prefix of the layers (network order) that reaches the target,
  found by bisection; the 8-bit run (no layer) and the all-16-bit run (every layer, what
  compile_mode 1 gives) are known already and not counted;
- **ours** — :func:`~nnie_lsp.triage.hp_plan.planner.plan_hp` on the planner's emulation (no run), then
  one run to confirm the plan (see :func:`ours` for what happens when a run falls short).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Sequence

if TYPE_CHECKING:
    from ..triage.hp_plan.planner import HpPlan

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


def ours(mapper: Mapper, planner: Callable[[float], "HpPlan"], target: float) -> StrategyResult:
    """Confirm the planner's proposals, one run each, until one reaches the target.

    The 8-bit run is known (not counted): where the emulation promised more than the mapper gave
    on it, the plan aims that much higher from the start (``hp-plan --sim`` does the same).  A set
    the emulation says misses the aim is not run.  When a run falls short, the next plan aims
    higher by what the emulation over-promised on the set just run, and its first set not yet run
    is run (lookahead sets count too).  When no subset is promised the aim, every candidate is
    made `_hp` (what compile_mode 1 reaches)."""
    run = CountingMapper(mapper)
    plan = planner(target)
    eight_bit = frozenset()
    aim = max(target, target + plan.baseline.similarity - mapper(eight_bit))
    tried: set[frozenset[str]] = {eight_bit}
    while True:
        plan = planner(min(aim, 1.0))
        emulated = {frozenset(point.layers): point.similarity for point in plan.curve}
        every = tuple(plan.candidates)
        proposals = [layers for layers in plan.proposals() if emulated.get(frozenset(layers), 0.0) >= aim]
        proposal = next((layers for layers in [*proposals, every] if frozenset(layers) not in tried), None)
        if proposal is None:
            return StrategyResult("ours", run.runs, None, None)
        similarity = run(proposal)
        if similarity >= target:
            return StrategyResult("ours", run.runs, tuple(proposal), similarity)
        tried.add(frozenset(proposal))
        promised = emulated.get(frozenset(proposal), plan.ceiling.similarity)
        aim = max(aim, target + promised - similarity)

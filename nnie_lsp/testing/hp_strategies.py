"""How many mapper runs a strategy for choosing `_hp` layers needs (the benchmark's question).

A *mapper run* is one evaluation of one candidate `_hp` set by the real mapper (minutes to hours).
Here a ``mapper`` is any function from a set of layer names to the final similarity — the
benchmark and the tests pass the emulation (:class:`~nnie_lsp.triage.hp_plan.oracle.HpOracle`), possibly
calibrated on other images or with other clips than the planner's (:class:`EmulatedMapper`).
Every call of ``mapper`` is counted.

The strategies deliver a set that reaches the target:

- **guide** — the vendor guide's step 3: add `_hp` to one layer more at a time, from the first
  layer in network order, one run each, until the target is reached;
- **bisection** — the smallest prefix of the layers (network order) that reaches the target,
  found by bisection; the 8-bit run (no layer) and the all-16-bit run (every layer, what
  compile_mode 1 gives) are known already and not counted;
- **ours** — :func:`~nnie_lsp.triage.hp_plan.planner.plan_hp` on the planner's emulation (no run), then
  one run to confirm the plan; a run that falls short corrects the emulation
  (:mod:`nnie_lsp.triage.hp_plan.learn`) and the plan is made again (see :func:`ours`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Sequence

if TYPE_CHECKING:
    from nnie_lsp.triage.hp_plan.learn import Observation
    from nnie_lsp.triage.hp_plan.oracle import HpOracle

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


class EmulatedMapper:
    """A mapper played by an emulation: the final similarity of a set is the oracle's (the worst
    over its outputs, on the image ``image`` — the mapper dumps the last image of its list — or,
    ``image`` None, the worst over every image), and a run also shows the clip of every quantized
    read, as the real mapper's input dumps do (:class:`~nnie_lsp.triage.hp_plan.learn.Observation`)."""

    def __init__(self, oracle: "HpOracle", image: int | None = -1) -> None:
        self.oracle = oracle
        self.image = image

    def __call__(self, layers) -> float:
        score = self.oracle.score(frozenset(layers))
        if self.image is None:
            return score.similarity
        return min((o.per_image[self.image] for o in score.outputs), default=1.0)

    def observe(self, layers) -> "Observation":
        from nnie_lsp.triage.hp_plan.learn import Observation

        layers = frozenset(layers)
        return Observation(layers, self(layers), self.oracle.clips(layers), source="the mapper run")


def _observe(mapper: Mapper, layers) -> "Observation":
    """A run of ``layers``: with its clips when the mapper shows them, else its similarity only."""
    from nnie_lsp.triage.hp_plan.learn import Observation

    observe = getattr(mapper, "observe", None)
    if observe is not None:
        return observe(layers)
    layers = frozenset(layers)
    return Observation(layers, mapper(layers), source="the mapper run")


class _CountingObserver(CountingMapper):
    def observe(self, layers) -> "Observation":
        self.runs += 1
        return _observe(self.mapper, layers)


def ours(mapper: Mapper, oracle: "HpOracle", target: float, *, lookahead: int = 1,
         learn_from_8bit: bool = True) -> StrategyResult:
    """Confirm the planner's plan with one run; when a run falls short, correct the emulation with
    what the run shows (its clips, its loss against the emulated one) and plan again on it
    (:func:`nnie_lsp.triage.hp_plan.learn.replan`).

    The 8-bit run is known (not counted): its clips (``learn_from_8bit``) and its final similarity
    correct the emulation before the first plan (``hp-plan --sim`` does the same).  A plan the
    corrected emulation makes again after a miss differs from the set that missed (the aim has
    risen past it); should it not, its next lookahead set not yet run is run.  Every candidate
    (compile_mode 1) is run only when the plan itself says nothing smaller reaches the aim."""
    from nnie_lsp.triage.hp_plan.learn import replan

    run = _CountingObserver(mapper)
    known = _observe(mapper, ())
    if known.similarity >= target:  # the 8-bit run reaches it already: no `_hp` layer, no run
        return StrategyResult("ours", 0, (), known.similarity)
    if not learn_from_8bit:
        known = type(known)(known.layers, known.similarity, source=known.source)
    history = [known]
    tried: set[frozenset[str]] = {frozenset()}
    every = frozenset(oracle.candidates())
    while True:
        plan, correction = replan(oracle, target, history, lookahead=lookahead)
        oracle = correction.oracle  # the corrections so far: the next ones start from them
        proposals = [layers for layers in plan.proposals() if layers] if plan.reaches_target else []
        proposal = next((frozenset(p) for p in proposals if frozenset(p) not in tried),
                        every if every not in tried else None)
        if proposal is None:
            return StrategyResult("ours", run.runs, None, None)
        seen = run.observe(proposal)
        if seen.similarity >= target:
            return StrategyResult("ours", run.runs, tuple(sorted(proposal, key=oracle.position)), seen.similarity)
        tried.add(proposal)
        history.append(seen)

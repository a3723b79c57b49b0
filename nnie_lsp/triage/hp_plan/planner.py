"""Guide step 3 planned: which layers to mark `_hp` so that the final outputs reach a target
similarity, with as few real mapper runs as possible (docs/field-facts.md §3.1 compile_mode,
§7.4 `_hp`, §11 the quantizers) and as few `_hp` layers as the emulation allows (each one runs at
16 bit on the board: :mod:`.cost`).

The guide's way is one layer at a time from the first layer, one mapper run each — minutes to
hours per run.  Here the emulation (:mod:`.oracle`) is the oracle and planning costs no mapper
run:

1. every candidate layer is made 16-bit alone and ranked by how much of the final similarity it
   wins back (``ranking``);
2. the `_hp` set is built greedily: each step evaluates every remaining layer added to the set so
   far and takes the one with the largest marginal gain of the final similarity (the worst output
   on the worst image); ties go to the larger gain of the mean over outputs and images (a layer
   that helps another output), then to the earlier layer (the guide's order).  Re-evaluating at
   every step sees layers that only matter together with an earlier pick;
3. it stops at the target, at the budget, or when every candidate is in; when no layer improves
   the final similarity nor the mean any more, it stops only if the target is out of reach (every
   candidate at 16 bit misses it) — otherwise it takes the best layer anyway and goes on, since
   some layers help only together;
4. the set is made smaller where the emulation allows: each layer whose removal keeps the target
   is removed (least single-layer gain first), and the shortest prefix of the layers (network
   order: the guide's sets) that reaches the target, pruned the same way, is taken instead when it
   is smaller (``search``);
5. ``lookahead`` more layers are computed (``curve`` entries with ``beyond_plan``): the layers to
   add if the confirming mapper run falls short.

When only every candidate together reaches the target, the plan says so: that is compile_mode 1
(``compile_mode_1``), not a `_hp` plan.  The mapper runs a plan costs are its confirmations; when
one falls short, :mod:`.learn` corrects the emulation with what the run shows and the plan is made
again.

The change itself is one engine :class:`~nnie_lsp.core.diagnostics.Fix` built by
:func:`nnie_lsp.rules.fixes.hp_plan_edits`: the layers renamed ``<name>_hp`` in the prototxt and
``[compile_mode] 2`` in the cfg (``[compile_mode] 1`` alone for a compile_mode 1 answer).  It is
unsafe: it changes what the NNIE computes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nnie_lsp.core.diagnostics import Applicability, FileEdit, Fix
from nnie_lsp.triage.progress import NO_PROGRESS, Reporter
from nnie_lsp.triage.hp_plan.cost import MacShare
from nnie_lsp.reference.blas import one_blas_thread
from nnie_lsp.triage.hp_plan.oracle import HpOracle, Score

MIN_GAIN = 1e-9  # a marginal gain at or below this is no gain (float noise)
#: Share of the planning (percent) the ranking takes in the progress; the picks share the rest (the
#: search for a smaller set after them, a few emulated sets per layer of the greedy set, is not a
#: stage of its own: the stages stay those ``nnie_lsp/docs/triage-schema.md`` lists).
RANKED_AT = 40.0


class PlanError(ValueError):
    """The plan cannot be made (bad target or budget, a net without candidates); for the user."""


@dataclass(frozen=True)
class RankedLayer:
    """One candidate made 16-bit alone."""

    layer: str
    position: int  # among the NNIE chains, network order
    similarity: float
    gain: float  # similarity − the baseline's

    def to_dict(self) -> dict:
        return {"layer": self.layer, "position": self.position, "similarity": round(self.similarity, 7),
                "gain": round(self.gain, 7)}


@dataclass(frozen=True)
class CurvePoint:
    """The plan's set after ``count`` layers (or, ``beyond_plan``, a layer added after the plan)."""

    count: int
    added: str | None  # the layer this step added (None for the starting point)
    layers: tuple[str, ...]
    score: Score
    beyond_plan: bool = False
    cost: MacShare | None = None

    @property
    def similarity(self) -> float:
        return self.score.similarity

    def to_dict(self) -> dict:
        return {"hp_layers": self.count, "added": self.added, "layers": list(self.layers),
                "similarity": round(self.similarity, 7), "beyond_plan": self.beyond_plan,
                "mac_share_16bit": _share(self.cost),
                "outputs": [o.to_dict() for o in self.score.outputs]}


def _share(cost: MacShare | None) -> float | None:
    share = cost.share if cost is not None else None
    return round(share, 7) if share is not None else None


@dataclass(frozen=True)
class Found:
    """A set one search found (``search`` in the JSON)."""

    how: str  # "greedy" | "prefix"
    layers: tuple[str, ...]  # as found (greedy picks, or the prefix)
    kept: tuple[str, ...]  # after pruning, in the same order
    similarity: float  # of ``kept``

    def to_dict(self) -> dict:
        return {"how": self.how, "layers": list(self.layers), "kept": list(self.kept),
                "removed": [n for n in self.layers if n not in self.kept], "similarity": round(self.similarity, 7)}


STOP_REASONS = {
    "already": "the net already reaches the target without `_hp` layers",
    "target": "the target is reached",
    "budget": "the budget of `_hp` layers is used up",
    "no_gain": "no remaining layer improves the final similarity (nor its mean over outputs and images)",
    "exhausted": "every candidate layer is in the set",
}
COMPILE_MODE_1 = ("only every candidate layer at 16 bit reaches the target: use compile_mode 1 "
                  "(no `_hp` plan; the whole net runs at 16 bit, about twice the run time)")


@dataclass
class HpPlan:
    target: float
    budget: int | None
    candidates: list[str]
    baseline: Score
    ceiling: Score  # every candidate at 16 bit: the most `_hp` can give (compile_mode 1)
    ranking: list[RankedLayer]
    curve: list[CurvePoint]  # the plan built up layer by layer, then the lookahead (beyond_plan)
    stopped: str  # a key of STOP_REASONS
    evaluations: int = 0  # emulated sets (planning costs no mapper run)
    notes: list[str] = field(default_factory=list)
    search: list[Found] = field(default_factory=list)  # the sets the searches found (greedy, prefix)
    chosen: str = "greedy"  # which search the plan comes from
    ceiling_cost: MacShare | None = None

    @property
    def plan_point(self) -> CurvePoint:
        return [p for p in self.curve if not p.beyond_plan][-1]

    @property
    def layers(self) -> tuple[str, ...]:
        return self.plan_point.layers

    @property
    def similarity(self) -> float:
        return self.plan_point.similarity

    @property
    def cost(self) -> MacShare | None:
        """The share of the net's MACs the plan runs at 16 bit (None: the net's shapes unknown)."""
        return self.plan_point.cost

    @property
    def reaches_target(self) -> bool:
        return self.similarity >= self.target

    @property
    def reachable(self) -> bool:
        """Whether any `_hp` set can reach the target (all candidates at 16 bit do)."""
        return self.ceiling.similarity >= self.target

    @property
    def compile_mode_1(self) -> bool:
        """Only every candidate at 16 bit reaches the target: the answer is compile_mode 1."""
        return bool(self.candidates) and self.reaches_target and len(self.layers) == len(self.candidates)

    def next_layers(self) -> list[CurvePoint]:
        return [p for p in self.curve if p.beyond_plan]

    def proposals(self) -> list[tuple[str, ...]]:
        """The sets to confirm with the mapper, in order: the plan, then one more layer at a time."""
        return [self.layers] + [p.layers for p in self.next_layers()]


@one_blas_thread()
def plan_hp(oracle: HpOracle, target: float, budget: int | None = None, *, lookahead: int = 1,
            keep=(), progress: Reporter | None = None) -> HpPlan:
    """Rank the candidates, build the `_hp` set greedily by marginal gain, then look for a smaller
    set that reaches the target too (module doc).  ``keep``: layers the plan must contain (the set
    a mapper run has shown, grown from: :mod:`.learn`); the search then only adds to them.
    ``progress`` is told each evaluation
    (emulations can take minutes): the stage ``rank`` (each layer 16-bit alone), ``hp layer K``
    (the K-th pick, each remaining layer tried)."""
    progress = progress or NO_PROGRESS
    if not 0.0 < target <= 1.0:
        raise PlanError(f"target {target!r}: a cosine similarity in (0, 1]")
    if budget is not None and budget < 0:
        raise PlanError(f"budget {budget!r}: a number of layers, 0 or more")
    candidates = oracle.candidates()
    start = oracle.evaluations
    baseline = oracle.score(())
    ceiling = oracle.score(candidates)
    ranking = _rank(oracle, candidates, baseline, progress.part(0, RANKED_AT))
    picks = _Picks(progress.part(RANKED_AT, 100), len(candidates) if budget is None else min(budget, len(candidates)))
    plan = HpPlan(target=target, budget=budget, candidates=candidates, baseline=baseline, ceiling=ceiling,
                  ranking=ranking, curve=[], stopped="", ceiling_cost=oracle.mac_share(candidates))
    if not candidates:
        plan.notes.append("no layer of the NNIE segment changes at 16 bit (nothing is quantized)")
    chosen: list[str] = sorted(set(keep), key=oracle.position)
    current = oracle.score(chosen) if chosen else baseline
    while True:
        plan.stopped = _stop_reason(current.similarity, target, chosen, candidates, budget)
        if plan.stopped:
            break
        pick, score = _best_addition(oracle, candidates, chosen, picks)
        if pick is None or (not _improves(score, current) and not plan.reachable):
            plan.stopped = "no_gain"
            break
        # below a reachable target a stall is crossed: the best addition is taken even when it
        # gains nothing alone (every candidate together reaches the target)
        chosen.append(pick)
        current = score
    final = tuple(chosen)
    if plan.stopped == "target":
        final = _smallest(oracle, plan, tuple(chosen), frozenset(keep))
    plan.curve = _path(oracle, final, baseline)
    if plan.stopped in ("target", "already"):
        # the next layers, should the confirming mapper run fall short of the target
        more = list(final)
        current = plan.curve[-1].score
        for _ in range(lookahead):
            if len(more) == len(candidates) or (budget is not None and len(more) >= budget):
                break
            pick, score = _best_addition(oracle, candidates, more, picks)
            if pick is None or not _improves(score, current):
                break
            more.append(pick)
            current = score
            plan.curve.append(CurvePoint(len(more), pick, tuple(more), score, beyond_plan=True,
                                         cost=oracle.mac_share(more)))
    if not plan.reachable:
        plan.notes.append(f"every candidate at 16 bit ends at {ceiling.similarity:.6f}, below the target "
                          f"{target:g}: no `_hp` set reaches it (compile_mode 1 would not either)")
    elif plan.compile_mode_1 and len(candidates) > 1:
        plan.notes.append(COMPILE_MODE_1)
    plan.evaluations = oracle.evaluations - start
    return plan


def _improves(score: Score, current: Score) -> bool:
    return score.similarity - current.similarity > MIN_GAIN or score.mean - current.mean > MIN_GAIN


def _stop_reason(similarity: float, target: float, chosen: list[str], candidates: list[str],
                 budget: int | None) -> str:
    if similarity >= target:
        return "target" if chosen else "already"
    if budget is not None and len(chosen) >= budget:
        return "budget"
    if len(chosen) == len(candidates):
        return "exhausted"
    return ""


def _rank(oracle: HpOracle, candidates: list[str], baseline: Score, progress: Reporter) -> list[RankedLayer]:
    """Each candidate alone, best gain first (ties: network order). Evaluated from the last layer
    back, so each run restarts where the previous one first differs."""
    alone = {}
    for c in reversed(candidates):
        alone[c] = oracle.score({c})
        progress.step("rank", len(alone), len(candidates), c)
    ranked = [RankedLayer(c, oracle.position(c), alone[c].similarity, alone[c].similarity - baseline.similarity)
              for c in candidates]
    return sorted(ranked, key=lambda r: (-r.gain, r.position))


class _Picks:
    """The progress of the greedy picks: pick K gets an equal share of at most `most` picks (a plan
    that stops early jumps to the end with the next stage)."""

    def __init__(self, progress: Reporter, most: int) -> None:
        self.progress, self.most = progress, max(most, 1)

    def of(self, number: int) -> Reporter:
        k = min(number, self.most)
        return self.progress.part(100.0 * (k - 1) / self.most, 100.0 * k / self.most)


def _best_addition(oracle: HpOracle, candidates: list[str], chosen: list[str],
                   picks: _Picks) -> tuple[str | None, Score | None]:
    """The remaining layer whose addition gives the best final similarity (ties: the better mean,
    then the earlier layer). The first step's scores are the ranking's (the oracle caches them)."""
    best: tuple[float, float, int] | None = None
    pick, pick_score = None, None
    remaining = [c for c in reversed(candidates) if c not in chosen]  # last first: restarts are shorter
    progress = picks.of(len(chosen) + 1) if chosen else NO_PROGRESS   # the first pick: the ranking's scores
    for k, c in enumerate(remaining):
        score = oracle.score((*chosen, c))
        key = (score.similarity, score.mean, -oracle.position(c))
        if best is None or key > best:
            best, pick, pick_score = key, c, score
        progress.step(f"hp layer {len(chosen) + 1}", k + 1, len(remaining), c)
    return pick, pick_score


def _prune(oracle: HpOracle, layers: tuple[str, ...], target: float, gain: dict[str, float],
           keep: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """``layers`` without each layer (but those in ``keep``) whose removal keeps the target, tried
    least single-layer gain first (ties: the later layer first)."""
    kept = list(layers)
    order = sorted((n for n in layers if n not in keep), key=lambda n: (gain.get(n, 0.0), -oracle.position(n)))
    for name in order:
        if len(kept) > 1:
            trial = [n for n in kept if n != name]
            if oracle.score(trial).similarity >= target:
                kept = trial
    return tuple(kept)


def _smallest(oracle: HpOracle, plan: HpPlan, greedy: tuple[str, ...],
              keep: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The smallest set found that reaches the target: the greedy set pruned, or the shortest
    reaching prefix (network order) pruned when smaller (ties: the better similarity); with
    ``keep``, only the greedy set grown from it, pruned of its other layers."""
    gain = {r.layer: r.gain for r in plan.ranking}
    kept = _prune(oracle, greedy, plan.target, gain, keep)
    plan.search.append(Found("greedy", greedy, kept, oracle.score(kept).similarity))
    best, plan.chosen = kept, "greedy"
    for k in range(1, len(kept) if not keep else 0):
        prefix = tuple(plan.candidates[:k])
        if oracle.score(prefix).similarity >= plan.target:
            pruned = _prune(oracle, prefix, plan.target, gain)
            found = Found("prefix", prefix, pruned, oracle.score(pruned).similarity)
            plan.search.append(found)
            if (len(pruned), -found.similarity) < (len(best), -oracle.score(best).similarity):
                best, plan.chosen = pruned, "prefix"
            break
    return best


def _path(oracle: HpOracle, layers: tuple[str, ...], baseline: Score) -> list[CurvePoint]:
    """The plan built up one layer at a time, in the order found (each point emulated; the greedy
    points are the oracle's cached scores)."""
    points = [CurvePoint(0, None, (), baseline, cost=oracle.mac_share(()))]
    for k in range(1, len(layers) + 1):
        subset = layers[:k]
        points.append(CurvePoint(k, layers[k - 1], subset, oracle.score(subset), cost=oracle.mac_share(subset)))
    return points


# ------------------------------------------------------------------ the change as one engine Fix

def plan_fix(layers: tuple[str, ...] | list[str], prototxt_path: str, cfg_path: str | None, *,
             compile_mode_1: bool = False) -> Fix | None:
    """The renames and ``[compile_mode] 2`` as ONE unsafe Fix (None when there is nothing to change);
    with ``compile_mode_1`` (only every layer at 16 bit reaches the target), ``[compile_mode] 1``
    alone.

    Built from the files as they are on disk, read the way nnie-lint reads them."""
    from nnie_lsp.rules.fixes import hp_plan_edits, set_compile_mode
    from nnie_lsp.project.project import load_project

    project = load_project(cfg_path=cfg_path, prototxt_path=prototxt_path)
    if compile_mode_1:
        cfg, config = project.cfg, project.config
        if cfg is None or not cfg.path or config is None or config.compile_mode == 1:
            return None
        return Fix(message="use compile_mode 1: set [compile_mode] 1 (every layer at 16 bit)",
                   applicability=Applicability.UNSAFE,
                   edits=(FileEdit(cfg.path, set_compile_mode(cfg, config, "1")),))
    if project.prototxt is None or project.graph is None:
        raise PlanError(f"cannot read the prototxt {prototxt_path} to write the renames")
    by_name = {layer.name: layer for layer in project.graph.layers}
    missing = [n for n in layers if n not in by_name]
    if missing:
        raise PlanError(f"layer {missing[0]!r} is not in {prototxt_path}")
    edits = hp_plan_edits(project.prototxt, [by_name[n] for n in layers], project.cfg, project.config)
    if not edits:
        return None
    names = ", ".join(f'"{n}"' for n in layers)
    what = []
    if layers:
        what.append(f"rename {names} to `<name>_hp`")
    if project.config is not None and project.config.compile_mode != 2:
        what.append("set [compile_mode] 2")
    return Fix(message="`_hp` plan: " + " and ".join(what), applicability=Applicability.UNSAFE,
               edits=tuple(edits))

"""Re-planning from what a mapper run shows.

The plan rests on the emulation; a real run (the 8-bit run the user has, a compile_mode 1 run, the
run that confirms a plan) shows where the emulation is off. Two things are taken from it:

1. **Its clips, per layer input.** The mapper writes every layer's quantized input with its
   dequantized twin (``<layer>_input<k>_…_quant.nonlinear.hex`` and ``…_anti_quant.float``,
   docs/field-facts.md §10.1, §16.5); each (code, value) pair gives the clip exactly
   (:func:`nnie_lsp.emulation.codes.clip_from_twin`). Where the run's clip differs from the
   emulation's for the same `_hp` set, the difference (a whole number of grid steps) becomes a clip
   offset of that blob at that bit width (:meth:`.oracle.HpOracle.with_clip_offsets`): the
   corrected emulation uses the mapper's calibration wherever a run has shown it [I]. A blob's
   16-bit clip is only shown by a run in which a layer reading it is `_hp`.
2. **Its final similarity.** What the corrected emulation still gets wrong is modelled on the
   losses (loss = 1 − cosine, as :mod:`.agreement` measures it): the run's loss = ``a + r ×`` the
   emulation's loss for the same set.  One run gives the ratio ``r`` (``a`` = 0: the error scales
   with the quantization noise, as other clips or images give); two runs (the latest two, the
   nearest the plan) give both — ``a`` being a loss the mapper adds whatever the precision.  The
   plan then aims at the emulated similarity whose loss maps to the target's: ``1 − (1 − target −
   a) / r``, never below the target.  A set a run missed the target with no longer meets that aim,
   so the next plan differs from it.

The planner is then run again on the corrected emulation with that aim (:func:`replan`), instead
of escalating to every layer: every layer at 16 bit is the answer only when nothing smaller is
promised the aim (:mod:`.planner`: "use compile_mode 1").  The corrected emulation is sure only of
the clips a run has shown: a new plan that reads a blob at 8 bit that no run read at 8 bit rests
on the emulation's own clip there.  The set that fell short, grown by the layers the corrected
emulation asks for (``plan_hp(keep=…)``), reads at 8 bit only what that run read — its promise
rests on seen clips — and is taken instead when it is at most ``GROW_ALLOWANCE`` × the size of
the free plan (at least one layer more) [I].  This is also what happens with ``hp-plan --sim`` on
the confirming run: the prototxt then holds the plan's `_hp` names, and the plan can only add.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from nnie_lsp.triage.hp_plan.oracle import HpOracle

if TYPE_CHECKING:
    from nnie_lsp.triage.hp_plan.planner import HpPlan

#: How much larger (× its size, at least one layer more) a plan grown from the set a run showed may
#: be than a free plan that reads blobs at 8 bit no run has shown, and still be preferred [I].
GROW_ALLOWANCE = 1.25
#: A loss below this is no loss (the emulation's float noise); ratios are taken above it.
NEGLIGIBLE_LOSS = 1e-7
#: The most the aim's loss is scaled down by one run (a run that loses 1000× the emulation's loss
#: says the emulation is no model of it: aiming 1000× lower would only ask for every layer).
MAX_RATIO = 100.0


@dataclass(frozen=True)
class Observation:
    """What one mapper run of an `_hp` set shows."""

    layers: frozenset[str]  # the set run (layers already named ``*_hp`` are 16-bit anyway)
    similarity: float | None  # its final similarity (None: not measured)
    clips: dict[tuple[str, int], float] = field(default_factory=dict)  # (blob, bits) -> clip, from its input dumps
    source: str = ""  # where it comes from, for the notes


@dataclass
class Correction:
    oracle: HpOracle  # the emulation with the clips the runs showed
    aim: float  # the target, raised by what the corrected emulation still over-promises
    adopted: dict[tuple[str, int], float] = field(default_factory=dict)  # (blob, bits) -> offset, octaves
    ratio: float | None = None  # of the loss model: a run's loss = added + ratio × the emulation's
    added: float = 0.0
    notes: list[str] = field(default_factory=list)


#: Passes of :func:`adopt_clips`: a clip moved upstream changes the values (and the clips) after it.
ADOPT_PASSES = 6


def adopt_clips(oracle: HpOracle, observation: Observation) -> tuple[HpOracle, dict[tuple[str, int], float]]:
    """The oracle with the clips ``observation`` shows (offsets in octaves, whole grid steps), and
    the offsets that changed. Clips of reads the oracle does not make are ignored.

    Done in passes until the oracle's clips for the run's set are the run's: a clip moved upstream
    changes what the later layers compute, so a later clip that differed only because of it (a
    16-bit clip follows every change of its blob's maximum) is right after the first pass and its
    offset is taken back in the next."""
    if not observation.clips:
        return oracle, {}
    from nnie_lsp.emulation.quant import quantizer_for

    start = dict(oracle.clip_offsets)
    for _ in range(ADOPT_PASSES):
        ours = oracle.clips(observation.layers)
        offsets = dict(oracle.clip_offsets)
        moved = False
        for key, clip in observation.clips.items():
            mine = ours.get(key)
            if mine is None or not (clip > 0 and math.isfinite(clip)):
                continue
            steps = quantizer_for(key[1]).steps_per_octave
            delta = round(steps * math.log2(clip / mine)) / steps
            if delta:
                offsets[key] = offsets.get(key, 0.0) + delta
                moved = True
        if not moved:
            break
        oracle = oracle.with_clip_offsets(offsets)
    changed = {key: value for key, value in oracle.clip_offsets.items() if start.get(key, 0.0) != value}
    changed.update({key: 0.0 for key in start if key not in oracle.clip_offsets})
    return oracle, changed


def loss_ratio(observed: float, predicted: float) -> float:
    """The run's loss / the emulation's, within [1/MAX_RATIO, MAX_RATIO]."""
    real = max(1.0 - observed, NEGLIGIBLE_LOSS)
    emulated = max(1.0 - predicted, NEGLIGIBLE_LOSS)
    return min(max(real / emulated, 1.0 / MAX_RATIO), MAX_RATIO)


def aim_for(target: float, ratio: float | None, added: float = 0.0) -> float:
    """The similarity the emulation must promise so that a run losing ``added + ratio ×`` the
    emulated loss reaches ``target`` (never below the target; 1.0 when no promise does)."""
    if ratio is None:
        return target
    allowed = (1.0 - target - added) / ratio
    if allowed <= 0.0:
        return 1.0
    return min(1.0, max(target, 1.0 - allowed))


def loss_model(points: list[tuple[float, float]]) -> tuple[float | None, float]:
    """(ratio, added) of ``real loss = added + ratio × emulated loss`` from (emulated, real) losses,
    in run order: the latest two when they differ enough to tell (a line through them, with a
    ratio in [1/MAX_RATIO, MAX_RATIO] and ``added`` ≥ 0), else the latest one's ratio alone."""
    if not points:
        return None, 0.0
    if len(points) >= 2:
        (x0, y0), (x1, y1) = points[-2], points[-1]
        if abs(x0 - x1) > max(NEGLIGIBLE_LOSS, 0.05 * max(x0, x1)):
            ratio = (y0 - y1) / (x0 - x1)
            added = y1 - ratio * x1
            if 1.0 / MAX_RATIO <= ratio <= MAX_RATIO and added >= 0.0:
                return ratio, added
    x, y = points[-1]
    return loss_ratio(1.0 - y, 1.0 - x), 0.0


def correct(oracle: HpOracle, target: float, observations: list[Observation]) -> Correction:
    """Adopt the clips of every run (in order; a run adopted before changes nothing), then the aim
    from the runs' final similarities against the corrected emulation (:func:`loss_model`)."""
    adopted: dict[tuple[str, int], float] = {}
    notes: list[str] = []
    for observation in observations:
        oracle, changed = adopt_clips(oracle, observation)
        adopted.update(changed)
        if changed:
            notes.append(f"{observation.source or 'a mapper run'}: {len(changed)} clip(s) differ from the emulation's; "
                         "the plan uses the run's")
    points = [(1.0 - oracle.score(o.layers).similarity, 1.0 - o.similarity)
              for o in observations if o.similarity is not None]
    ratio, added = loss_model(points)
    aim = aim_for(target, ratio, added)
    if aim > target:
        notes.append(f"aiming at {aim:.6f}: the target raised by what the emulation over-promised on the runs "
                     f"(a run loses {ratio:.2f}× the emulated loss" + (f" + {added:.2g})" if added else ")"))
    return Correction(oracle=oracle, aim=aim, adopted=adopted, ratio=ratio, added=added, notes=notes)


def unseen_reads(oracle: HpOracle, layers, observations: list[Observation]) -> set[tuple[str, int]]:
    """The 8-bit reads of the set ``layers`` whose clip no run has shown."""
    seen = {key for o in observations for key in o.clips if key[1] == 8}
    return {key for key in oracle.clips(frozenset(layers)) if key[1] == 8} - seen


def replan(oracle: HpOracle, target: float, observations: list[Observation], *, budget: int | None = None,
           lookahead: int = 1) -> tuple["HpPlan", Correction]:
    """The plan after the runs ``observations`` (in run order; a run of the empty set is the 8-bit
    run): the emulation corrected by them (:func:`correct`), planned on with the raised aim; after a
    run of a plan that fell short, the plan grown from that run's set when the free plan rests on
    unseen clips and the grown one is not much larger (module doc)."""
    from nnie_lsp.triage.hp_plan.planner import plan_hp

    correction = correct(oracle, target, observations)
    plan = plan_hp(correction.oracle, correction.aim, budget, lookahead=lookahead)
    confirmations = [o for o in observations if o.layers]
    if not confirmations or not plan.reaches_target or not plan.layers:
        return plan, correction
    if not unseen_reads(correction.oracle, plan.layers, observations):
        return plan, correction
    missed = confirmations[-1].layers
    grown = plan_hp(correction.oracle, correction.aim, budget, lookahead=lookahead, keep=missed)
    allowed = max(int(GROW_ALLOWANCE * len(plan.layers)), len(plan.layers) + 1)
    if grown.reaches_target and len(grown.layers) <= allowed:
        grown.notes.append(f"grown from the {len(missed)} layer(s) the last run had: every 8-bit clip it reads "
                           f"was shown by a run (the free plan, {len(plan.layers)} layer(s), reads clips no run showed)")
        return grown, correction
    return plan, correction


# ------------------------------------------------------------------ clips of a real run

def clips_from_dumps(folder, oracle: HpOracle) -> tuple[dict[tuple[str, int], float], list[str]]:
    """The clips a real run's dump folder shows: every ``<layer>_input<k>_…_quant.nonlinear.hex``
    with its dequantized twin beside it (docs/field-facts.md §10.1, §16.5) gives the clip of the
    blob that input reads (a folder ``nnie-triage emulate --images N`` wrote is read at its last
    image, the one the mapper dumps).  Only single-input layers are read: for a layer with several
    inputs, input k need not be its k-th bottom (§10.1).  Returns ((blob, bits) -> clip, notes)."""
    import os
    import re
    from pathlib import Path

    from nnie_lsp.readers.dumpio.names import normalize_name, safe_name
    from nnie_lsp.readers.dumpio.readers import read_text_floats
    from nnie_lsp.emulation.codes import CodeFileError, clip_from_twin, code_file_twin_names, read_codes
    from nnie_lsp.rules.fixes import HP_SUFFIX
    from nnie_lsp.triage.inputs.image_sets import DumpFolder

    code_re = re.compile(r"^(?P<layer>.+)_input(?P<n>\d+)(?:_\d+)*_quant\.nonlinear\.hex$")
    root = Path(folder)
    if not root.is_dir():
        return {}, []
    where = DumpFolder.read(root).images[-1].path
    heads = {}
    for chain in oracle.chains:
        for key in (safe_name(chain.head.name), normalize_name(chain.head.name)):
            heads.setdefault(key, chain)
    clips: dict[tuple[str, int], float] = {}
    skipped = 0
    for entry in sorted(os.scandir(where), key=lambda e: e.name):
        m = code_re.match(entry.name) if entry.is_file() else None
        if m is None:
            continue
        chain = heads.get(m.group("layer")) or heads.get(normalize_name(m.group("layer")))
        twin = next((where / t for t in code_file_twin_names(entry.name) if (where / t).is_file()), None)
        if chain is None or twin is None or len(chain.head.bottoms) != 1 or int(m.group("n")) != 0:
            skipped += 1
            continue
        bits = 16 if chain.head.name.endswith(HP_SUFFIX) else None
        try:
            codes, bits = read_codes(entry.path, bits)
            check = clip_from_twin(codes, read_text_floats(twin), bits)
        except (CodeFileError, ValueError, OSError):
            skipped += 1
            continue
        if check.agrees:
            clips[(chain.head.bottoms[0], bits)] = check.clip
        else:
            skipped += 1
    notes = []
    if clips or skipped:
        notes.append(f"{root.name}: {len(clips)} clip(s) read from its input dumps"
                     + (f" ({skipped} input dump(s) not read: no twin, several inputs, or not on the grid)" if skipped else ""))
    return clips, notes

"""``nnie-triage hp-plan`` from the cfg alone: the cfg names the prototxt, the caffemodel, the
preprocessing of every input and the image lists (read the way ``reference`` and ``emulate`` read
them, :mod:`nnie_lsp.reference.run_inputs`); options override the cfg.

The images: the clips cover the WHOLE image list, as the mapper calibrates on it
(docs/field-facts.md §5.6); the LAST ``K`` lines (the mapper dumps the last one, §10.1) are the
images scored, emulated for every `_hp` set, the others are run once in floating point for their
maxima (:mod:`.oracle`).  ``--image`` replaces the list: then the given images are all there is.

With ``--sim`` (and ``--sim-16bit``), what the real runs show corrects the emulation before the
plan (:mod:`.learn`): the clips read from their input dumps, then the aim from the real 8-bit run's
loss against the corrected emulation's.  A confirming run of a plan is such a run too: run
``hp-plan --sim`` on it (the prototxt then holds the `_hp` names) and the plan is made again from
what it shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from nnie_lsp.core.diagnostics import Fix
from nnie_lsp.core.diagnostic_json import rel
from nnie_lsp.emulation.precision import precision_for
from nnie_lsp.triage.progress import NO_PROGRESS, Reporter
from nnie_lsp.triage.hp_plan.agreement import Agreement, check_agreement
from nnie_lsp.triage.hp_plan.learn import Observation, adopt_clips, aim_for, clips_from_dumps, loss_ratio
from nnie_lsp.triage.hp_plan.oracle import HpOracle
from nnie_lsp.triage.hp_plan.planner import HpPlan, PlanError, plan_fix, plan_hp

#: Progress (percent): the cfg and images read, the net loaded and the list calibrated, the real
#: runs checked; then the plan.
INPUTS_AT, LOADED_AT, CHECKED_AT = 2.0, 10.0, 20.0


@dataclass
class HpPlanRequest:
    cfg: str
    target: float
    budget: int | None = None
    images: int | None = 1  # the last K images of the list (None: all of them)
    prototxt: str | None = None  # overrides [prototxt_file]
    caffemodel: str | None = None  # overrides [caffemodel_file]
    image: list[str] = field(default_factory=list)  # one file per network input: overrides the lists
    transpose: bool = False  # MATLAB-trained nets (MTCNN): W and H swapped before the net
    sim: str | None = None
    sim16: str | None = None
    lookahead: int = 1


@dataclass
class HpPlanRun:
    request: HpPlanRequest
    prototxt: str
    caffemodel: str
    images: list[list[str]]  # per image set, one file per network input
    oracle: HpOracle
    plan: HpPlan | None
    agreement: Agreement | None
    fix: Fix | None
    notes: list[str] = field(default_factory=list)
    calibration_images: int = 1  # images of the list the clips cover (scored ones included)
    clip_offsets: dict[tuple[str, int], float] = field(default_factory=dict)  # adopted from the real runs


def run_hp_plan(request: HpPlanRequest, *, progress: Reporter | None = None) -> HpPlanRun:
    """The plan of `request`.  Progress: ``inputs`` (the cfg, the images), ``load`` (the net, the
    emulation's inputs and the list's float maxima), ``check`` (with ``sim``: the real runs' clips
    and the emulation against them), then the planner's ``rank`` and ``hp layer K`` (:func:`.planner.plan_hp`)."""
    from nnie_lsp.reference.caffe_forward import prepare_inputs
    from nnie_lsp.readers.caffemodel import NetLoadError
    from nnie_lsp.reference.net import load_net
    from nnie_lsp.reference.run_inputs import Overrides, load_run_inputs

    progress = progress or NO_PROGRESS
    if not Path(request.cfg).is_file():
        raise PlanError(f"cfg file {request.cfg} does not exist")
    if request.sim16 and not request.sim:
        raise PlanError("--sim-16bit needs --sim (the 8-bit run it is checked beside)")
    progress.part(0, INPUTS_AT).step("inputs", 0, 1)
    # the whole list: its last `images` are scored, the clips cover all of it
    inputs = load_run_inputs(request.cfg, prototxt=request.prototxt, caffemodel=request.caffemodel,
                             images=list(request.image) or None, count=None,
                             overrides=Overrides(transpose=request.transpose))
    progress.part(0, INPUTS_AT).step("inputs", 1, 1)
    cfg, prototxt, caffemodel = request.cfg, str(inputs.prototxt), str(inputs.caffemodel)
    loading = progress.part(INPUTS_AT, LOADED_AT)
    loading.step("load", 0, 1)
    try:
        net = load_net(prototxt, caffemodel)
    except NetLoadError as exc:
        raise PlanError(str(exc)) from exc
    _weights_behind_hp_names(net, caffemodel)
    everything = inputs.images
    count = len(everything) if request.images is None else min(request.images, len(everything))
    if request.images is not None and request.images > len(everything) and inputs.list_length is not None:
        inputs.notes.append(f"--images {request.images}: the image list holds {len(everything)}; planning on all of them")
    scored, others = everything[len(everything) - count:], everything[:len(everything) - count]
    image_sets = [[str(label) for label in image.labels] for image in scored]
    notes = list(inputs.notes)
    prepared = [prepare_inputs(net, image.sources, inputs.preprocessing) for image in scored]
    calibration = [prepare_inputs(net, image.sources, inputs.preprocessing) for image in others]
    oracle = HpOracle.build(net, prepared, calibration=calibration)
    oracle.hp_names = precision_for(inputs.compile_mode).hp_names   # the build the cfg makes now
    oracle = _as_built(oracle, cfg, prototxt, notes)
    # marks the cfg's compile_mode ignores now: the plan sets [compile_mode] 2, which applies them
    keep = oracle.marked_off() if not oracle.hp_names else []
    if keep:
        mode = inputs.compile_mode if inputs.compile_mode is not None else 0
        notes.append(f"{len(keep)} layer(s) already named `_hp` ({', '.join(keep)}): the cfg's [compile_mode] is "
                     f"{mode}, so the mapper ran them at 8 bit; the plan sets [compile_mode] 2, which runs them at "
                     "16 bit, so it starts from them")
    loading.step("load", 1, 1)
    if others:
        notes.append(f"the clips cover all {len(everything)} images of the list, as the mapper calibrates on it; "
                     f"scored on the last {count} (the mapper dumps the last; --images all scores every one)")
    agreement = None
    adopted: dict[tuple[str, int], float] = {}
    if request.sim:
        checking = progress.part(LOADED_AT, CHECKED_AT)
        checking.step("check", 0, 1)
        runs = [(request.sim, frozenset())]
        if request.sim16:
            runs.append((request.sim16, frozenset(oracle.candidates())))
        for folder, layers in runs:
            clips, read_notes = clips_from_dumps(folder, oracle)
            notes.extend(read_notes)
            oracle, changed = adopt_clips(oracle, Observation(layers, None, clips, source=Path(folder).name))
            adopted.update(changed)
        if adopted:
            notes.append(f"{len(adopted)} clip(s) of the real runs differ from the emulation's: planned with the "
                         "real ones")
        agreement = check_agreement(oracle, prototxt, request.sim, request.sim16, request.target,
                                    image=", ".join(rel(f) for f in image_sets[-1]))
        checking.step("check", 1, 1)
    plan = fix = None
    aim = request.target
    if agreement is not None and not agreement.blocks_plan:
        promised, real = agreement.emulated_final_8bit, agreement.real_final_8bit
        if promised is not None and real is not None and promised > real:
            ratio = loss_ratio(real, promised)
            aim = aim_for(request.target, ratio)
            if aim > request.target:
                notes.append(f"aiming at {aim:.6f}: the target raised by what the emulation over-promised on the "
                             f"real 8-bit run ({promised:.6f} emulated, {real:.6f} real: {ratio:.2f}× the loss)")
    if agreement is None or not agreement.blocks_plan:
        plan = plan_hp(oracle, aim, request.budget, lookahead=request.lookahead, keep=keep,
                       progress=progress.part(CHECKED_AT if request.sim else LOADED_AT, 100))
        if plan.compile_mode_1:
            fix = plan_fix((), prototxt, cfg, compile_mode_1=True)
        elif plan.layers or keep:
            fix = plan_fix(plan.layers or tuple(keep), prototxt, cfg)
    return HpPlanRun(request=request, prototxt=prototxt, caffemodel=caffemodel, images=image_sets,
                     oracle=oracle, plan=plan, agreement=agreement, fix=fix, notes=notes,
                     calibration_images=len(everything), clip_offsets=adopted)


def _as_built(oracle: HpOracle, cfg: str, prototxt: str, notes: list[str]) -> HpOracle:
    """The oracle with the `_hp` layers the `.wk` beside the cfg built at 16 bit (hp_plan/built.py),
    not every layer named so; unchanged without a `.wk` (the names are then taken as applied)."""
    from nnie_lsp.triage.inputs.load import load_graph
    from nnie_lsp.triage.hp_plan.built import built_bits

    try:
        built = built_bits(cfg, load_graph(prototxt))
    except (OSError, ValueError):
        return oracle
    if built is None:
        return oracle
    note = built.note()
    if note:
        notes.append(note)
    oracle.applied_hp = built.applied
    return oracle


def _weights_behind_hp_names(net, caffemodel: str) -> None:
    """A layer renamed ``<name>_hp`` keeps the trained weights of ``<name>``: the caffemodel does
    not know the suffix, the mapper reads it as a mark (docs/field-facts.md §7.4) [I]. A weight
    layer with no weights at all is a clear error, not a failure in the forward pass."""
    from nnie_lsp.rules.fixes import HP_SUFFIX
    from nnie_lsp.emulation.emulate import WEIGHT_LAYERS
    from nnie_lsp.readers.caffemodel import read_weights

    missing = [layer for layer in net.layers if layer.type in WEIGHT_LAYERS and not layer.blobs]
    if not missing:
        return
    weights = read_weights(caffemodel)
    for layer in missing:
        base = layer.name.removesuffix(HP_SUFFIX)
        if base != layer.name and base in weights:
            layer.blobs = weights[base]
        else:
            raise PlanError(f"layer {layer.name!r} ({layer.type}) has no weights in {caffemodel}")

"""``nnie-triage hp-plan`` from the cfg alone: the cfg names the prototxt, the caffemodel, the
preprocessing of every input and the image lists (read the way ``reference`` and ``emulate`` read
them, :mod:`nnie_lsp.reference.run_inputs`); options override the cfg.

The images: the LAST ``K`` lines of each input's image list (the mapper dumps the last one,
docs/field-facts.md §10.1), in list order, as :func:`nnie_lsp.reference.run_inputs.load_run_inputs`
takes them for ``reference`` and ``emulate``; their clips are taken together, as the mapper
calibrates on its list (§5.6).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ...diagnostics import Fix
from ...diagnostic_json import rel
from ..progress import NO_PROGRESS, Reporter
from .agreement import Agreement, check_agreement
from .oracle import HpOracle
from .planner import HpPlan, PlanError, plan_fix, plan_hp

#: Progress (percent): the cfg and images read, the net loaded, the real runs checked; then the plan.
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


def run_hp_plan(request: HpPlanRequest, *, progress: Reporter | None = None) -> HpPlanRun:
    """The plan of `request`.  Progress: ``inputs`` (the cfg, the images), ``load`` (the net and the
    emulation's inputs), ``check`` (with ``sim``: the emulation against the real runs), then the
    planner's ``rank`` and ``hp layer K`` (:func:`.planner.plan_hp`)."""
    from ...reference.caffe_forward import prepare_inputs
    from ...reference.net import NetLoadError, load_net
    from ...reference.run_inputs import Overrides, load_run_inputs

    progress = progress or NO_PROGRESS
    if not Path(request.cfg).is_file():
        raise PlanError(f"cfg file {request.cfg} does not exist")
    if request.sim16 and not request.sim:
        raise PlanError("--sim-16bit needs --sim (the 8-bit run it is checked beside)")
    progress.part(0, INPUTS_AT).step("inputs", 0, 1)
    inputs = load_run_inputs(request.cfg, prototxt=request.prototxt, caffemodel=request.caffemodel,
                             images=list(request.image) or None, count=request.images,
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
    image_sets = [[str(label) for label in image.labels] for image in inputs.images]
    notes = list(inputs.notes)
    oracle = HpOracle.build(net, [prepare_inputs(net, image.sources, inputs.preprocessing) for image in inputs.images])
    loading.step("load", 1, 1)
    agreement = None
    if request.sim:
        checking = progress.part(LOADED_AT, CHECKED_AT)
        checking.step("check", 0, 1)
        agreement = check_agreement(oracle, prototxt, request.sim, request.sim16, request.target,
                                    image=", ".join(rel(f) for f in image_sets[-1]))
        checking.step("check", 1, 1)
    listed = inputs.list_length
    if listed is not None and len(image_sets) < listed:
        notes.append(f"planned on {len(image_sets)} of the {listed} images of the list; the mapper calibrates "
                     f"on all of them: --images all plans closer to it")
    plan = fix = None
    aim = request.target
    if agreement is not None and not agreement.blocks_plan:
        promised, real = agreement.emulated_final_8bit, agreement.real_final_8bit
        if promised is not None and real is not None and promised > real:
            aim = min(1.0, request.target + promised - real)
            notes.append(f"aiming at {aim:.6f}: the target raised by what the emulation over-promised on the "
                         f"real 8-bit run ({promised:.6f} emulated, {real:.6f} real)")
    if agreement is None or not agreement.blocks_plan:
        plan = plan_hp(oracle, aim, request.budget, lookahead=request.lookahead,
                       progress=progress.part(CHECKED_AT if request.sim else LOADED_AT, 100))
        if plan.layers:
            fix = plan_fix(plan.layers, prototxt, cfg)
    return HpPlanRun(request=request, prototxt=prototxt, caffemodel=caffemodel, images=image_sets,
                     oracle=oracle, plan=plan, agreement=agreement, fix=fix, notes=notes)


def _weights_behind_hp_names(net, caffemodel: str) -> None:
    """A layer renamed ``<name>_hp`` keeps the trained weights of ``<name>``: the caffemodel does
    not know the suffix, the mapper reads it as a mark (docs/field-facts.md §7.4) [I]. A weight
    layer with no weights at all is a clear error, not a failure in the forward pass."""
    from ...fixes import HP_SUFFIX
    from ...emulation.emulate import WEIGHT_LAYERS
    from ...reference.net import read_weights

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

"""``nnie-triage hp-plan`` from the cfg alone: the cfg names the prototxt, the caffemodel, the
preprocessing of every input and the image lists (read the way nnie-lint reads them:
:func:`nnie_lsp.project.load_project`, :func:`nnie_lsp.reference.preprocess.preprocessing_from_cfg`);
options override the cfg.

The images: the LAST ``K`` lines of each input's image list (the mapper dumps the last one,
docs/field-facts.md §10.1), in list order; their clips are taken together, as the mapper
calibrates on its list (§5.6).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..diagnostics import Fix
from ..output import rel
from .hp_agreement import Agreement, check_agreement
from .hp_oracle import HpOracle
from .hp_plan import HpPlan, PlanError, plan_fix, plan_hp


@dataclass
class HpPlanRequest:
    cfg: str
    target: float
    budget: int | None = None
    images: int = 1
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


def _cfg_file(project, key: str, cfg: str) -> str:
    refs = [r for r in project.refs if r.entry.key == key]
    if not refs:
        raise PlanError(f"{cfg}: no [{key}] (give --{key.split('_')[0]})")
    ref = refs[-1]
    where = f"{cfg}:{ref.entry.line + 1}"
    if ref.foreign:
        raise PlanError(f"{where}: [{key}] {ref.written} is a Windows path; it cannot be read on this system")
    if ref.resolved is None:
        looked = ", ".join(ref.candidates[:3])
        raise PlanError(f"{where}: [{key}] {ref.written} not found (looked in {looked})")
    return ref.resolved


def _image_sets(request: HpPlanRequest, lists: list[list[str]], inputs: int, cfg: str) -> list[list[str]]:
    if request.image:
        if len(request.image) != inputs:
            raise PlanError(f"the net has {inputs} input(s) but {len(request.image)} --image file(s) were given")
        return [list(request.image)]
    if len(lists) < inputs or any(not images for images in lists[:inputs]):
        raise PlanError(f"{cfg}: no calibration image for every input (an [image_list] per input, or --image)")
    count = min(len(images) for images in lists[:inputs])
    take = min(request.images, count)
    return [[images[len(images) - take + i] for images in lists[:inputs]] for i in range(take)]


def run_hp_plan(request: HpPlanRequest) -> HpPlanRun:
    from ..project import load_project
    from ..reference.caffe_forward import prepare_inputs
    from ..reference.net import load_net
    from ..reference.preprocess import preprocessing_from_cfg

    if request.images < 1:
        raise PlanError(f"--images {request.images}: at least 1")
    cfg = request.cfg
    if not Path(cfg).is_file():
        raise PlanError(f"cfg file {cfg} does not exist")
    project = load_project(cfg_path=cfg, load_prototxt=False)
    if project.cfg is None:
        raise PlanError(f"cfg file {cfg} cannot be read")
    prototxt = request.prototxt or _cfg_file(project, "prototxt_file", cfg)
    caffemodel = request.caffemodel or _cfg_file(project, "caffemodel_file", cfg)
    net = load_net(prototxt, caffemodel)
    preps = []
    for k in range(len(net.inputs)):
        prep = preprocessing_from_cfg(cfg, k)
        prep.transpose = request.transpose
        preps.append(prep)
    image_sets = _image_sets(request, [p.images for p in preps], len(net.inputs), cfg)
    notes = [note for p in preps for note in p.notes]
    oracle = HpOracle.build(net, [prepare_inputs(net, files, preps) for files in image_sets])
    agreement = None
    if request.sim16 and not request.sim:
        raise PlanError("--sim-16bit needs --sim (the 8-bit run it is checked beside)")
    if request.sim:
        agreement = check_agreement(oracle, prototxt, request.sim, request.sim16, request.target,
                                    image=", ".join(rel(f) for f in image_sets[-1]))
    plan = fix = None
    if agreement is None or not agreement.blocks_plan:
        plan = plan_hp(oracle, request.target, request.budget, lookahead=request.lookahead)
        if plan.layers:
            fix = plan_fix(plan.layers, prototxt, cfg)
    return HpPlanRun(request=request, prototxt=prototxt, caffemodel=caffemodel, images=image_sets,
                     oracle=oracle, plan=plan, agreement=agreement, fix=fix, notes=notes)

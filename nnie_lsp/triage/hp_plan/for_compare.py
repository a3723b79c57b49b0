"""``compare``'s `_hp` plan: in case 2 (and a mild 8-bit decay, whose next step is guide step 3)
the T207 plan and the T204 candidates are ``nnie-triage hp-plan``'s answer on the same inputs --
the same code (:func:`.from_cfg.run_hp_plan`), so the same answer:

    nnie-triage hp-plan --cfg <cfg> --sim <the NNIE dumps> [--sim-16bit <the 16-bit run>]
                        [--transpose]          (when the emulation compared was made so)

(the target is the comparison's ``good``).  The emulation is checked against the NNIE dumps first,
and its clips are taken from them (:mod:`.learn`); the candidates are ranked by the final
similarity each wins back 16-bit alone (:func:`.planner.plan_hp`), a layer that wins nothing alone
is no candidate; the plan is the set the planner chose.  When no plan can be made (no cfg, a net the
emulation cannot run, an emulation that disagrees with the NNIE run), T207 says why and offers no
change, and the JSON's ``hp_candidates`` are what the dumps show (:func:`~nnie_lsp.triage.diagnose.
quantization.rank_hp_candidates`).  On dumps that predate the inputs (T008) no plan is made: the
findings describe the old inputs.

The result's ``hp_plan`` (``docs/triage-schema.md``) holds the command, the plan and its numbers.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass

from nnie_lsp.core.diagnostic_json import rel
from nnie_lsp.core.diagnostics import FileEdit
from nnie_lsp.rules.fixes import HP_SUFFIX, hp_rename_edits
from nnie_lsp.triage.diagnose.builder import FindingBuilder
from nnie_lsp.triage.diagnose.quantization import CANDIDATES_RANKED, CANDIDATES_REPORTED, HpCandidate, rename_text, \
    single_layer_losses
from nnie_lsp.triage.progress import Reporter
from nnie_lsp.triage.hp_plan.planner import MIN_GAIN

#: The codes the plan stage writes (and replaces, should the tree have written one).
PLAN_CODES = ("T207", "T204")


@dataclass
class ComparePlan:
    """What the comparison says of the plan (the JSON's ``hp_plan``)."""

    command: str
    made: bool
    reason: str | None = None
    run: object = None  # the .from_cfg.HpPlanRun

    def to_json(self) -> dict:
        out: dict = {"command": self.command, "made": self.made, "reason": self.reason}
        plan = getattr(self.run, "plan", None)
        if plan is not None:
            out.update(target=self.run.request.target, aim=plan.target, layers=list(plan.layers), similarity=round(plan.similarity, 7),
                       baseline=round(plan.baseline.similarity, 7), ceiling=round(plan.ceiling.similarity, 7),
                       reaches_target=plan.reaches_target, stopped=plan.stopped, compile_mode_1=plan.compile_mode_1,
                       next_layers=[p.added for p in plan.next_layers()], emulated_sets=plan.evaluations)
        agreement = getattr(self.run, "agreement", None)
        if agreement is not None:
            out["agreement"] = {"verdict": agreement.verdict, "message": agreement.message}
        if self.run is not None:
            out["notes"] = list(self.run.notes)
        return out


def wants_plan(diagnosis) -> bool:
    """Case 2, or the mild 8-bit decay (inconclusive, next step 3): the cases step 3 answers."""
    from nnie_lsp.triage.diagnose.tree import INCONCLUSIVE

    return diagnosis.case == 2 or (diagnosis.case is None and diagnosis.next_step == 3
                                   and diagnosis.verdict.startswith(INCONCLUSIVE["mild_decay"]))


def command_of(cfg: str | None, sim: str | None, sim16: str | None, transpose: bool,
               prototxt: str | None = None) -> str:
    """The ``hp-plan`` command line that gives the same answer (paths as the user reads them)."""
    words = ["nnie-triage", "hp-plan", "--cfg", rel(cfg) if cfg else "CFG"]
    if prototxt:
        words += ["--prototxt", rel(prototxt)]
    if sim:
        words += ["--sim", rel(sim)]
    if sim16:
        words += ["--sim-16bit", rel(sim16)]
    if transpose:
        words.append("--transpose")
    return " ".join(shlex.quote(w) for w in words)


def _transposed(request) -> bool | None:
    """Whether the NNIE side was fed the images with H and W swapped (MTCNN): as the emulation
    compared was made (its manifest's options), else as the reference was (a case-2 comparison
    starts good, so the NNIE side was fed what the reference was), else as the model card says;
    None when nothing says."""
    from nnie_lsp.triage.inputs.image_sets import read_manifest

    def manifest(folder):
        found = read_manifest(folder) if folder and os.path.isdir(folder) else None
        return found if isinstance(found, dict) else {}

    options = manifest(request.sim).get("options")
    if isinstance(options, dict) and "transpose" in options:
        return bool(options["transpose"])
    values = manifest(request.reference).get("preprocessing_values")
    if isinstance(values, list) and values and isinstance(values[0], dict) and "transpose" in values[0]:
        return bool(values[0]["transpose"])
    if request.cfg:
        from nnie_lsp.project.card_lookup import find_card

        card = find_card(request.cfg, [request.prototxt] if request.prototxt else [])
        model = card.model if card is not None else None
        if model is not None and model.transpose is not None:
            return bool(model.transpose)
    return None


def _own_prototxt(cfg: str, prototxt: str | None) -> str | None:
    """``prototxt`` when it is not the one the cfg names (hp-plan then needs ``--prototxt``)."""
    if not prototxt:
        return None
    from nnie_lsp.triage.inputs.beside_cfg import discover

    named = discover(cfg).prototxt
    same = named is not None and os.path.abspath(named) == os.path.abspath(prototxt)
    return None if same else prototxt


def plan_stage(request, result, *, stale=None, progress: Reporter | None = None,
               make: bool = True) -> ComparePlan | None:
    """Make the plan of a comparison that asks for one (:func:`wants_plan`) and put it into its
    diagnosis: T207 and T204 (replacing any), ``hp_candidates``; returns what ``hp_plan`` says (None:
    no plan asked for).  ``make`` False (``compare --no-hp-plan``): T207 gives the command only."""
    from nnie_lsp.triage.diagnose.staleness import is_predating
    from nnie_lsp.triage.hp_plan.from_cfg import HpPlanRequest, run_hp_plan
    from nnie_lsp.triage.hp_plan.planner import PlanError

    diagnosis = result.diagnosis
    if not wants_plan(diagnosis) or is_predating(stale):
        return None
    th = result.thresholds
    builder = _builder(request, result)
    said = _transposed(request)
    transpose = bool(said)
    if request.cfg is None or not os.path.isfile(request.cfg):
        plan = ComparePlan(command_of(None, request.sim, request.sim16, transpose), False,
                           "the plan needs the cfg (its net, weights and image list): give --cfg")
    elif not make:
        command = command_of(request.cfg, request.sim, request.sim16, transpose,
                             _own_prototxt(request.cfg, request.prototxt))
        plan = ComparePlan(command, False, f"not made (--no-hp-plan): {command} makes it")
    else:
        prototxt = _own_prototxt(request.cfg, request.prototxt)
        plan = ComparePlan(command_of(request.cfg, request.sim, request.sim16, transpose, prototxt), False)
        try:
            plan.run = run_hp_plan(HpPlanRequest(cfg=request.cfg, target=th.good, prototxt=prototxt,
                                                 sim=request.sim, sim16=request.sim16, transpose=transpose),
                                   progress=progress)
            if said is None and _input_differs(plan.run):
                # nothing says how the NNIE side was fed: the other way, when its data layer is that one
                other = run_hp_plan(HpPlanRequest(cfg=request.cfg, target=th.good, prototxt=prototxt,
                                                  sim=request.sim, sim16=request.sim16, transpose=not transpose),
                                    progress=progress)
                if not _input_differs(other):
                    transpose, plan.run = not transpose, other
                    plan.command = command_of(request.cfg, request.sim, request.sim16, transpose, prototxt)
                    other.notes.append("the NNIE dumps' data layer is the images with H and W swapped (nothing "
                                       "recorded how they were fed): planned so, as --transpose")
        except (PlanError, ValueError, OSError) as exc:
            plan.reason = f"{exc} ({plan.command} says the same)"
        except ImportError as exc:   # the plan reads the images (OpenCV): the comparison needs only numpy
            plan.reason = (f"the plan needs the Python module {exc.name or 'cv2'} (OpenCV: pip install "
                           f"'nnie-lsp[reference]'), which this Python cannot import; with it, {plan.command} makes it")
        else:
            agreement = plan.run.agreement
            if plan.run.plan is None:
                said = agreement.message if agreement is not None else "the planner made no plan"
                plan.reason = f"{said} ({plan.command} says the same)"
            else:
                plan.made = True
    _findings(builder, plan, result)
    others = [d for d in diagnosis.findings if d.code not in PLAN_CODES]
    at = max((i + 1 for i, d in enumerate(others) if d.code.startswith("T20")), default=len(others))
    diagnosis.findings = others[:at] + builder.items + others[at:]
    return plan


def _input_differs(run) -> bool:
    return run.agreement is not None and run.agreement.verdict == "input_differs"


def _builder(request, result) -> FindingBuilder:
    from nnie_lsp.triage.inputs.load import TriageInputError, load_graph, read_sources

    graph = None
    if request.prototxt:
        try:
            graph = load_graph(request.prototxt)
        except TriageInputError:
            graph = None
    return FindingBuilder(read_sources(request.cfg, graph, request.lang))


def _findings(builder: FindingBuilder, plan: ComparePlan, result) -> None:
    """T207 (the plan, or why there is none) and T204 (the ranking), and ``hp_candidates``."""
    run = plan.run
    hp = getattr(run, "plan", None)
    if not plan.made or hp is None:
        builder.add("T207", "no_plan", reason=plan.reason or "?",
                    place=builder.sources.cfg_place("compile_mode") or builder.sources.cfg_home())
        return   # the dumps' single-layer losses stay the candidates
    src = builder.sources
    rows = {r.name: r for r in result.rows}
    losses = single_layer_losses(result.rows)
    chosen = set(hp.layers)
    target, baseline = f"{run.request.target:g}", f"{hp.baseline.similarity:.4f}"
    ranked = [r for r in hp.ranking if r.gain > MIN_GAIN][:CANDIDATES_RANKED]
    # the plan's layers are all listed, also one that gains only beside another (no gain alone)
    ranked += [r for r in hp.ranking if r.layer in chosen and r not in ranked]
    candidates = []
    for k, r in enumerate(ranked, 1):
        loss, inc, row = losses.get(r.layer, (None, None, rows.get(r.layer)))
        candidates.append(HpCandidate(
            layer=r.layer, rank=k, gain=r.gain, similarity=r.similarity,
            single_layer_loss=round(loss, 6) if loss is not None else None,
            cosine=row.cosine if row is not None and row.metrics is not None else None, input_cosine=inc,
            reason=f"16-bit alone: emulated final similarity {hp.baseline.similarity:.4f} → {r.similarity:.4f}",
            rename=rename_text(r.layer, row.blob if row is not None else None), in_plan=r.layer in chosen,
            place=src.layer_place(r.layer)))
    result.diagnosis.hp_candidates = candidates
    _plan_finding(builder, plan, hp, target, baseline)
    for c in candidates[:CANDIDATES_REPORTED]:
        layer = src.layer(c.layer)
        edits = hp_rename_edits(src.prototxt, [layer]) if layer is not None and src.prototxt is not None else []
        fix = builder.fix("T204", "fix", [FileEdit(src.prototxt.path, e) for e in edits], safe=False, layer=c.layer)
        row = rows.get(c.layer)
        builder.add("T204", "gain", place=c.place, fix=fix, layer=c.layer, rank=c.rank,
                    top=(row.blob if row is not None and row.blob else c.layer), gain=f"{c.gain:+.4f}",
                    baseline=baseline, similarity=f"{c.similarity:.4f}",
                    in_plan=builder.text("T204", "in_plan") if c.in_plan else "")


def _plan_finding(builder: FindingBuilder, plan: ComparePlan, hp, target: str, baseline: str) -> None:
    src = builder.sources
    mode = src.config.compile_mode if src.config is not None else None
    entry = src.cfg_entry("compile_mode")
    mode_text = entry.value if entry is not None else builder.unset("T207", "compile_mode")
    place = src.cfg_place("compile_mode") or src.cfg_home()
    common = dict(command=plan.command, target=target, mode=mode_text, cfg_key="compile_mode", place=place)
    if not hp.reachable:
        builder.add("T207", "unreachable", ceiling=f"{hp.ceiling.similarity:.4f}", **common)
        return
    if hp.stopped == "already":
        builder.add("T207", "already", similarity=baseline, **common)
        return
    fix = plan.run.fix
    if hp.compile_mode_1:
        edits = fix.edits if fix is not None else ()
        builder.add("T207", "compile_mode_1", similarity=f"{hp.similarity:.4f}",
                    fix=builder.fix("T207", "fix_mode_1", edits, safe=False), **common)
        return
    names = [n for n in hp.layers]
    quoted = ", ".join(f'"{n}"' for n in names)
    edits = fix.edits if fix is not None else ()
    cfg = os.path.abspath(src.cfg_path) if src.cfg_path else None
    sets_mode = any(os.path.abspath(fe.path) == cfg for fe in edits)
    renames = any(os.path.abspath(fe.path) != cfg for fe in edits)
    title = "fix" if renames and sets_mode else ("fix_renames" if renames else "fix_mode")
    related = tuple(r for n in names if not n.endswith(HP_SUFFIX)
                    for r in builder.related("T207", "rename", src.layer_place(n), layer=n))
    following = hp.next_layers()
    more = builder.text("T207", "next", layer=following[0].added) if following else ""
    builder.add("T207", "plan_mode_ok" if mode == 2 else "plan", layers=quoted, baseline=baseline,
                similarity=f"{hp.similarity:.4f}", next=more, related=related,
                fix=builder.fix("T207", title, edits, safe=False, layers=quoted), **common)

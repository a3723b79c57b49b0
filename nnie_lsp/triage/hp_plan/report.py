"""``nnie-triage hp-plan`` output: the JSON document (``nnie_lsp/docs/hp-plan-schema.md``) and the
text report (the curve, the plan, the change as one fix, the check against real runs)."""

from __future__ import annotations

import json
import os

from nnie_lsp.core.diagnostic_json import encode_fix, rel
from nnie_lsp.triage.hp_plan.planner import STOP_REASONS
from nnie_lsp.triage.hp_plan.from_cfg import HpPlanRun

SCHEMA_VERSION = 2
RANKED_SHOWN = 8  # single-layer ranking lines in the text report (the JSON has them all)
BAR_WIDTH = 30


def to_json(run: HpPlanRun) -> dict:
    plan, request = run.plan, run.request
    doc = {
        "schema_version": SCHEMA_VERSION,
        "tool": "nnie-triage hp-plan",
        "inputs": {"cfg": rel(request.cfg), "prototxt": rel(run.prototxt), "caffemodel": rel(run.caffemodel),
                   "images": [[rel(f) for f in files] for files in run.images],
                   "calibration_images": run.calibration_images,
                   "sim": rel(request.sim) if request.sim else None,
                   "sim_16bit": rel(request.sim16) if request.sim16 else None, "working_directory": os.getcwd()},
        "target": request.target,
        "aim": plan.target if plan is not None else None,
        "budget": request.budget,
        "oracle": "emulation",
        "final_outputs": list(run.oracle.final_tops),
        "candidates": plan.candidates if plan is not None else run.oracle.candidates(),
        "agreement": run.agreement.to_dict() if run.agreement is not None else None,
        "baseline": None, "ceiling": None, "ranking": [], "curve": [], "plan": None, "fix": None,
        "mapper_runs": {"planning": 0, "to_confirm": 0},
        "emulated_sets": 0,
        "learned_clips": [{"blob": blob, "bits": bits, "steps": round(offset * 16, 4)}
                          for (blob, bits), offset in sorted(run.clip_offsets.items())],
        "notes": list(run.notes),
    }
    if plan is None:
        return doc
    doc.update(
        baseline=plan.baseline.to_dict(),
        ceiling=plan.ceiling.to_dict(),
        ranking=[r.to_dict() for r in plan.ranking],
        curve=[p.to_dict() for p in plan.curve],
        plan={"layers": list(plan.layers), "similarity": round(plan.similarity, 7),
              "reaches_target": plan.reaches_target, "reachable": plan.reachable, "stopped": plan.stopped,
              "stopped_because": STOP_REASONS[plan.stopped],
              "next_layers": [p.added for p in plan.next_layers()],
              "compile_mode_1": plan.compile_mode_1,
              "cost": plan.cost.to_dict() if plan.cost is not None else None,
              "chosen": plan.chosen, "search": [found.to_dict() for found in plan.search]},
        fix=encode_fix(run.fix),
        mapper_runs={"planning": 0, "to_confirm": 1 if plan.layers else 0},
        emulated_sets=plan.evaluations,
        notes=[*run.notes, *plan.notes],
    )
    return doc


def to_json_text(run: HpPlanRun) -> str:
    return json.dumps(to_json(run), ensure_ascii=False, indent=2) + "\n"


def render_text(run: HpPlanRun) -> str:
    plan, request, oracle = run.plan, run.request, run.oracle
    lines = []
    images = len(run.images)
    which = "the last image of the list" if images == 1 else f"the last {images} images of the list"
    if request.image:
        which = "the image given"
    lines.append(f"hp-plan: {rel(run.prototxt)} with {rel(run.caffemodel)}, {which}, target {request.target:g}"
                 + (f", budget {request.budget}" if request.budget is not None else ""))
    if run.agreement is not None:
        lines.append(f"check against the real runs: {run.agreement.verdict} — {run.agreement.message}")
        for row in run.agreement.layers:
            if not row.agrees:
                lines.append(f"  first layer that differs: {row.layer}: real {row.real_8bit:.6f}, emulated {row.emulated_8bit:.6f}")
                break
    if plan is None:
        lines.append("no plan: the emulation is not a trustworthy oracle for this net (see above)")
        return "\n".join(lines + [f"note: {n}" for n in run.notes]) + "\n"
    if run.clip_offsets:
        lines.append(f"learned from the real runs: {len(run.clip_offsets)} clip(s) differ from the emulation's "
                     "(planned with the real ones; JSON learned_clips)")
    lines.append(f"emulated final similarity ({', '.join(oracle.final_tops)}): 8-bit {plan.baseline.similarity:.6f}, "
                 f"every layer 16-bit (compile_mode 1) {plan.ceiling.similarity:.6f}; "
                 f"{len(plan.candidates)} candidate layer(s)")
    if plan.ranking:
        lines.append("")
        lines.append("each layer 16-bit alone (best first):")
        width = max(len(r.layer) for r in plan.ranking[:RANKED_SHOWN])
        for r in plan.ranking[:RANKED_SHOWN]:
            lines.append(f"  {r.layer:<{width}}  {r.gain:+.6f} → {r.similarity:.6f}")
        if len(plan.ranking) > RANKED_SHOWN:
            lines.append(f"  … {len(plan.ranking) - RANKED_SHOWN} more in --format json")
    lines.append("")
    how = "network order" if plan.chosen == "prefix" else "greedy, by marginal gain"
    lines.append(f"curve: final similarity against the number of `_hp` layers (the plan's layers in the order found: {how})")
    lines.extend(_curve_lines(run))
    lines.append("")
    aim = f"the target {request.target:g}" if plan.target == request.target else f"the aim {plan.target:.6f}"
    if plan.compile_mode_1:
        lines.append(f"plan: use compile_mode 1 — only every candidate layer at 16 bit reaches {aim} "
                     f"(emulated {plan.similarity:.6f}); no `_hp` plan")
        lines.append(f"mapper runs: none to plan ({plan.evaluations} emulated sets); confirm with 1 compile_mode 1 run")
    elif plan.layers:
        verdict = ("reaches" if plan.reaches_target else "does not reach")
        lines.append(f"plan: {len(plan.layers)} `_hp` layer(s): {', '.join(plan.layers)} — emulated {plan.similarity:.6f} "
                     f"{verdict} {aim} ({STOP_REASONS[plan.stopped]})")
        lines.extend(_search_lines(plan))
        lines.append(f"mapper runs: none to plan ({plan.evaluations} emulated sets); confirm with 1 run of the plan"
                     + (f", then add {plan.next_layers()[0].added} if it falls short" if plan.next_layers() else "")
                     + "; should it fall short, run hp-plan --sim on that run: the plan is made again from what it shows")
    else:
        lines.append(f"plan: no `_hp` layer — {STOP_REASONS[plan.stopped]} (emulated {plan.similarity:.6f})")
    if plan.cost is not None and plan.layers:
        lines.append(f"cost: {plan.cost.describe()}")
    if run.fix is not None:
        lines.append("")
        lines.append(f"the change, one unsafe fix ({run.fix.message}); apply every edit together:")
        lines.extend(_diff_lines(run))
    lines.extend(f"note: {n}" for n in [*run.notes, *plan.notes])
    return "\n".join(lines) + "\n"


def _search_lines(plan) -> list[str]:
    """How the plan was made smaller than the greedy set, when it was."""
    out = []
    for found in plan.search:
        removed = [n for n in found.layers if n not in found.kept]
        if found.how == "greedy" and removed:
            out.append(f"  the greedy set of {len(found.layers)} pruned to {len(found.kept)} "
                       f"(without {', '.join(removed)} it still reaches the aim)")
        elif found.how == "prefix" and plan.chosen == "prefix":
            out.append(f"  the first {len(found.layers)} layers in network order"
                       + (f", pruned to {len(found.kept)}," if removed else "")
                       + " reach it with fewer layers than the greedy set: taken instead")
    return out


def _curve_lines(run: HpPlanRun) -> list[str]:
    plan = run.plan
    low = min(p.similarity for p in plan.curve)
    high = max(plan.ceiling.similarity, plan.target, *(p.similarity for p in plan.curve))
    span = max(high - low, 1e-12)
    width = max([len(p.added) for p in plan.curve if p.added] + [1])
    out = []
    for p in plan.curve:
        filled = int(round(BAR_WIDTH * (p.similarity - low) / span))
        bar = "█" * filled + "·" * (BAR_WIDTH - filled)
        label = f"+ {p.added:<{width}}" if p.added else f"  {'(8-bit)':<{width}}"
        mark = ""
        if p.beyond_plan:
            mark = "  (next, if the mapper run falls short)"
        elif p is plan.plan_point and plan.reaches_target:
            mark = "  ← target reached"
        out.append(f"  {p.count:>3}  {label}  {p.similarity:.6f}  {bar}{mark}")
    return out


def _diff_lines(run: HpPlanRun) -> list[str]:
    from nnie_lsp.core.text import unified_diff
    from nnie_lsp.core.text import apply_edits, read_text

    by_path: dict[str, list] = {}
    for file_edit in run.fix.edits:
        by_path.setdefault(file_edit.path, []).append(file_edit.edit)
    out = []
    for path, edits in by_path.items():
        old = read_text(path).text
        out.extend(unified_diff(path, old, apply_edits(old, edits)).rstrip("\n").splitlines())
    return out

"""``nnie-triage hp-plan``: which layers to mark `_hp` (guide step 3), planned on the emulation.

  nnie-triage hp-plan --cfg FILE [--target COS] [--budget N] [--images K|all] [--format text|json]
                      [--sim DIR [--sim-16bit DIR]] [--prototxt F] [--caffemodel F] [--image F ...]
                      [--transpose] [--output FILE] [--progress auto|json|none]

Argument parsing and output only: the planner is :mod:`nnie_lsp.triage.hp_plan.planner`, the run from the
cfg :mod:`nnie_lsp.triage.hp_plan.from_cfg`, the report :mod:`nnie_lsp.triage.hp_plan.report`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EXIT_OK = 0
#: Progress (percent): the plan made (the report is written after it).
PLANNED_AT = 97.0


def add_parser(sub, add_images_arg) -> argparse.ArgumentParser:
    """The ``hp-plan`` subcommand; ``add_images_arg(parser, what)`` adds ``--images N|all`` as
    ``reference`` and ``emulate`` have it."""
    from nnie_lsp.triage.measure.metrics import Thresholds

    p = sub.add_parser("hp-plan", help="step 3: which layers to mark `_hp` to reach a target similarity "
                       "with the fewest mapper runs (planned on the NNIE emulation)")
    p.add_argument("--cfg", required=True, help="the mapper cfg: prototxt, caffemodel, preprocessing, image list")
    p.add_argument("--target", type=float, default=Thresholds().good,
                   help="final similarity to reach (cosine, default %(default)s: the guide's 'good')")
    p.add_argument("--budget", type=int, help="at most this many `_hp` layers")
    add_images_arg(p, "plan on")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--sim", help="a real 8-bit mapper dump folder: check the emulation against it first")
    p.add_argument("--sim-16bit", help="a real compile_mode 1 dump folder (with --sim)")
    p.add_argument("--prototxt", help="instead of the cfg's [prototxt_file]")
    p.add_argument("--caffemodel", help="instead of the cfg's [caffemodel_file]")
    p.add_argument("--image", action="append", default=[],
                   help="plan on this image instead of the image list (one per network input)")
    p.add_argument("--transpose", action="store_true", help="swap H and W (MATLAB-trained nets such as MTCNN)")
    p.add_argument("--output", help="write the report to this file instead of stdout")
    return p


def cmd_hp_plan(args) -> int:
    from nnie_lsp.triage.hp_plan.report import render_text, to_json_text
    from nnie_lsp.triage.hp_plan.from_cfg import HpPlanRequest, run_hp_plan
    from nnie_lsp.triage.progress import open_progress

    request = HpPlanRequest(cfg=args.cfg, target=args.target, budget=args.budget, images=args.images,
                            prototxt=args.prototxt, caffemodel=args.caffemodel, image=list(args.image),
                            transpose=args.transpose, sim=args.sim, sim16=args.sim_16bit)
    with open_progress(args.progress) as progress:
        run = run_hp_plan(request, progress=progress.part(0, PLANNED_AT))
        progress.step("report", 0, 1)   # the terminal bar ends here: the report may go to the terminal
        text = to_json_text(run) if args.format == "json" else render_text(run)
        if args.output:
            Path(args.output).write_text(text, encoding="utf-8")
            print(f"wrote {args.output}", file=sys.stderr)
        else:
            sys.stdout.write(text)
        progress.step("report", 1, 1)
    return EXIT_OK

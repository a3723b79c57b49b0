"""`_hp` planning benchmark: mapper runs each strategy needs to reach a target final similarity.

    .venv/bin/python benchmarks/bench_hp_plan.py            # every net
    .venv/bin/python benchmarks/bench_hp_plan.py --quick    # MTCNN det1 and the deep net only

A *mapper run* is one evaluation of one `_hp` set by the real mapper (minutes to hours each). The
mapper is played by the NNIE emulation (``nnie_lsp.triage.hp_plan.oracle``); every call is counted.
Strategies (``nnie_lsp.testing.hp_strategies``):

- guide: `_hp` on one more layer at a time, from the first layer (network order), one run each;
- bisection: the smallest reaching prefix of the layers, by bisection (the 8-bit and the
  all-16-bit runs are known already and not counted);
- ours: ``plan_hp`` on the emulation — no run — then one run to confirm the plan; when a run falls
  short, the plan is made again aiming higher by what the emulation over-promised on that set.

Two mappers: **same** — the emulation the planner used (same image: the plan is right when the
emulation is); **2 images** — the planner saw the first image only, the mapper calibrates on both
images and is judged on the worse of the two (the planner's model is not the mapper's).

Nets: the MTCNN stages det1/det2/det3 and the SSD face detector (yufacedetectnet) from
``../shared/corpus/models`` with their two test images, and a generated 16-convolution net with
deterministic weights and two BN-style weight outliers (``nnie_lsp.testing.hp_synthetic``).
Targets: the 8-bit final similarity plus 50 / 90 / 99 % of what every layer at 16 bit wins back.

Goal: ours needs at most 2 runs where the guide needs 5 or more, and never more than either
other strategy.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[1]))

from nnie_lsp.testing.shared_files import shared_dir
from nnie_lsp.reference.caffe_forward import prepare_inputs  # noqa: E402
from nnie_lsp.reference.net import load_net  # noqa: E402
from nnie_lsp.reference.preprocess import Preprocessing  # noqa: E402
from nnie_lsp.testing import hp_strategies as strategies  # noqa: E402
from nnie_lsp.triage.hp_plan.oracle import HpOracle  # noqa: E402
from nnie_lsp.triage.hp_plan.planner import plan_hp  # noqa: E402
from nnie_lsp.testing.hp_synthetic import DeepNetSpec, write_project  # noqa: E402

FRACTIONS = (0.5, 0.9, 0.99)
LOOKAHEAD = 4
MTCNN = Preprocessing(norm_type=5, data_scale=0.0078125, mean=np.array([127.5] * 3, np.float32),
                      rgb_order="RGB", transpose=True)  # how the MTCNN weights were trained
SSD = Preprocessing(norm_type=2, mean=np.array([104.0, 117.0, 123.0], np.float32), rgb_order="BGR")
DEEP = DeepNetSpec(depth=16, channels=8, size=32, bottlenecks={7: 12.0, 13: 60.0}, seed=3, images=2, name="deep16")


def _corpus_models() -> Path | None:
    for base in (shared_dir(),):
        models = base / "corpus" / "models"
        if (models / "mtcnn" / "det1.caffemodel").is_file():
            return models
    return None


def nets(quick: bool, tmp: str) -> list[tuple[str, Path, Path, list[str], Preprocessing]]:
    out = []
    models = _corpus_models()
    if models is None:
        print("shared corpus models not found: MTCNN and SSD rows skipped", file=sys.stderr)
    else:
        images = [str(models / "mtcnn" / "test1.jpg"), str(models / "mtcnn" / "test2.jpg")]
        for stage in (("det1",) if quick else ("det1", "det2", "det3")):
            out.append((f"MTCNN {stage}", models / "mtcnn" / f"{stage}.prototxt",
                        models / "mtcnn" / f"{stage}.caffemodel", images, MTCNN))
        if not quick:
            ssd = models / "yufacedetectnet-v1"
            out.append(("SSD yufacedetectnet", ssd / "yufacedetectnet-open-v1.prototxt",
                        ssd / "yufacedetectnet-open-v1.caffemodel", images, SSD))
    deep = write_project(Path(tmp) / "deep", DEEP)
    prep = Preprocessing(norm_type=5, data_scale=0.0078125, mean=np.array([128.0] * 3, np.float32))
    out.append((f"deep {DEEP.depth}-conv (generated)", deep["prototxt"], deep["caffemodel"],
                sorted(str(p) for p in deep["root"].glob("image*.png")), prep))
    return out


def bench_net(name: str, prototxt: Path, caffemodel: Path, images: list[str], prep: Preprocessing) -> list[dict]:
    net = load_net(prototxt, caffemodel)
    inputs = [prepare_inputs(net, [image], [prep]) for image in images[:2]]
    planner = HpOracle.build(net, inputs[:1])  # the planner sees the first image
    two_images = HpOracle.build(net, inputs)  # the mapper of the second setting: both images
    order = planner.candidates()
    rows = []
    for mapper_name, mapper_oracle in (("same", planner), ("2 images", two_images)):
        base = mapper_oracle.score(()).similarity
        ceiling = mapper_oracle.score(order).similarity
        for fraction in FRACTIONS:
            target = base + fraction * (ceiling - base)

            def mapper(layers, oracle=mapper_oracle):
                return oracle.score(layers).similarity

            started = time.perf_counter()
            plan = plan_hp(planner, target, lookahead=LOOKAHEAD)
            planning = time.perf_counter() - started
            results = {"guide": strategies.guide(mapper, order, target),
                       "bisection": strategies.bisection(mapper, order, target),
                       "ours": strategies.ours(mapper, lambda aim: plan_hp(planner, aim, lookahead=LOOKAHEAD),
                                               target)}
            rows.append({"net": name, "mapper": mapper_name, "fraction": fraction, "target": target,
                         "base": base, "ceiling": ceiling, "layers": len(order), "results": results,
                         "planning_s": planning, "emulated": plan.evaluations})
    return rows


def _cell(result: strategies.StrategyResult) -> str:
    if not result.reached:
        return f"{result.runs:>3} (not reached)"
    return f"{result.runs:>3} ({len(result.layers):>2} hp)"


def goal_holds(row: dict) -> bool:
    r = row["results"]
    ours = r["ours"]
    if not ours.reached:
        return False
    if r["guide"].reached and r["guide"].runs >= 5 and ours.runs > 2:
        return False
    others = [x.runs for x in (r["guide"], r["bisection"]) if x.reached]
    return all(ours.runs <= runs for runs in others)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="MTCNN det1 and the deep net only")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-hp-plan-") as tmp:
        for spec in nets(args.quick, tmp):
            started = time.perf_counter()
            rows.extend(bench_net(*spec))
            print(f"{spec[0]}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    print("mapper runs to reach the target (runs (size of the `_hp` set delivered)); target = 8-bit + "
          "fraction × (all-16-bit − 8-bit)")
    header = (f"{'net':<26} {'mapper':<8} {'layers':>6} {'8-bit':>9} {'16-bit':>9} {'frac':>5} {'target':>9} "
              f"| {'guide':<17} {'bisection':<17} {'ours':<17} | {'plan s':>6} goal")
    print(header)
    print("-" * len(header))
    failures = 0
    for row in rows:
        r = row["results"]
        ok = goal_holds(row)
        failures += not ok
        print(f"{row['net']:<26} {row['mapper']:<8} {row['layers']:>6} {row['base']:>9.6f} {row['ceiling']:>9.6f} "
              f"{row['fraction']:>5.2f} {row['target']:>9.6f} | {_cell(r['guide']):<17} {_cell(r['bisection']):<17} "
              f"{_cell(r['ours']):<17} | {row['planning_s']:>6.2f} {'ok' if ok else 'MISSED'}")
    hard = [row for row in rows if row["results"]["guide"].runs >= 5]
    print()
    print(f"rows where the guide needs 5 runs or more: {len(hard)}; ours at most 2 there: "
          f"{sum(row['results']['ours'].runs <= 2 for row in hard)}")
    print(f"ours never more than either other strategy: {all(goal_holds(row) for row in rows)} "
          f"({failures} row(s) missing the goal)")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())

"""`_hp` planning benchmark: mapper runs each strategy needs to reach a target final similarity,
the size of the `_hp` set it delivers, and what the plan costs (its share of 16-bit MACs).

    .venv/bin/python benchmarks/bench_hp_plan.py            # every net
    .venv/bin/python benchmarks/bench_hp_plan.py --quick    # MTCNN det1 and the deep net only
    .venv/bin/python benchmarks/bench_hp_plan.py --large    # the RetinaFace-sized row only (minutes)

A *mapper run* is one evaluation of one `_hp` set by the real mapper (minutes to hours each). The
mapper is played by the NNIE emulation (``nnie_lsp.triage.hp_plan.oracle``); every call is counted.
Strategies (``nnie_lsp.testing.hp_strategies``):

- guide: `_hp` on one more layer at a time, from the first layer (network order), one run each;
- bisection: the smallest reaching prefix of the layers, by bisection (the 8-bit and the
  all-16-bit runs are known already and not counted);
- ours: ``plan_hp`` on the emulation — no run — then one run to confirm the plan; when a run falls
  short, the emulation is corrected with what the run shows (its clips, its loss) and the plan is
  made again (``nnie_lsp.triage.hp_plan.learn``).

Every net has an image list of two images. The planner does what ``hp-plan --cfg`` does: it
calibrates over the whole list (the mapper's behaviour; the first image through its float maxima)
and scores the last image (the one the mapper dumps, and so the image a mapper run is judged on).
The mappers:

- **1 image** — a list of the first image only, the mapper being the planner's own emulation
  (the rows the docs called "same" before the planner calibrated over the list);
- **same** — the planner's own emulation of the two-image list (the plan is right when the
  emulation is);
- **2 images** — the emulation with both images emulated in full, judged on the last: the
  mapper calibrates on both images, the planner emulates the first through its float maxima;
- **clips** — as "2 images", and every 8-bit clip of the mapper is a few steps of 2^(1/16) away
  from the emulation's: ±1…3 steps per blob, seeded (``quant.seeded_clip_offsets``; a `_hp` layer
  reads at 16 bit with the emulation's clip).  The 8-bit run the user has shows its clips in its
  input dumps (``--no-learn-8bit``: ours is shown only its final similarity, so every correction
  comes from a confirming run);
- **worst** (only with ``--mapper worst``) — as "2 images" but judged on the worse of the two
  images, which no real run shows (the mapper dumps the last image): the planner plans for an
  image it is not judged on.

Nets: the MTCNN stages det1/det2/det3 and the SSD face detector (yufacedetectnet) from
the shared corpus (``nnie_lsp.testing.shared_files.corpus_dir``) with their two test images, and a generated 16-convolution net with
deterministic weights and two BN-style weight outliers (``nnie_lsp.testing.hp_synthetic``).
Targets: the mapper's 8-bit final similarity plus 50 / 90 / 99 % of what every layer at 16 bit
wins back.

The large row (``--large``, and in the full run): a generated net of RetinaFace's size
(``nnie_lsp.testing.retina_synthetic``: MobileNet-0.25 RetinaFace's graph at 640 × 640, 85 NNIE
chains, a BN-style weight outlier at ``conv6_pw``), planned as ``hp-plan --cfg`` plans (the clips over
its two-image list, the last image scored) to 8-bit + ``LARGE_FRACTION`` (0.5) × (all-16-bit − 8-bit), as the
other rows' targets (its random weights lose 8-bit similarity everywhere a little: the guide's 0.99
takes some 36 layers, the time of which the row prints too when asked, ``--large-target 0.99``).  Its time is given as a ratio to one
full emulation of the same net measured in the same run (``emulate()`` of one image), so the row
reads the same on a fast or a slow machine: "the plan costs K emulations for S emulated sets".

Checks per row (all must hold):

- **≤2 runs**: ours needs at most 2 runs where the guide needs 5 or more;
- **≤ others**: ours never needs more runs than either other strategy;
- **size**: ours' set is no larger than 1.25× the smallest set any strategy delivered that reaches
  the target (at least that set + 1 layer, for tiny sets).
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

from nnie_lsp.testing.shared_files import shared_dir  # noqa: E402
from nnie_lsp.emulation.quant import seeded_clip_offsets  # noqa: E402
from nnie_lsp.reference.caffe_forward import prepare_inputs  # noqa: E402
from nnie_lsp.reference.net import load_net  # noqa: E402
from nnie_lsp.reference.preprocess import Preprocessing  # noqa: E402
from nnie_lsp.testing import hp_strategies as strategies  # noqa: E402
from nnie_lsp.testing.hp_synthetic import DeepNetSpec, write_project  # noqa: E402
from nnie_lsp.triage.hp_plan.oracle import HpOracle  # noqa: E402

FRACTIONS = (0.5, 0.9, 0.99)
LOOKAHEAD = 2
CLIP_SEED = 16
CLIP_STEPS = (1, 3)
CLIP_WIDTHS = (8,)  # the 8-bit clips differ; a `_hp` layer reads at 16 bit with the emulation's clip
SIZE_FACTOR = 1.25
MAPPERS = ("1 image", "same", "2 images", "clips")
EXTRA = ("worst",)  # --mapper worst: the mapper judged on the worse of its two images (not its dump)
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


def mappers(net, inputs: list[dict], planner: HpOracle) -> dict[str, tuple[HpOracle, strategies.EmulatedMapper]]:
    """The mappers of the module doc (each an emulation), with the planner each is planned on."""
    first = HpOracle.build(net, inputs[:1], macs=planner.macs)
    both = HpOracle.build(net, inputs, macs=planner.macs)
    blobs = sorted({top for layer in net.layers for top in layer.tops})
    offsets = seeded_clip_offsets(blobs, CLIP_SEED, CLIP_STEPS, widths=CLIP_WIDTHS)
    shifted = HpOracle.build(net, inputs, clip_offsets=offsets, macs=planner.macs)
    return {"1 image": (first, strategies.EmulatedMapper(first)),
            "same": (planner, strategies.EmulatedMapper(planner)),
            "2 images": (planner, strategies.EmulatedMapper(both)),
            "clips": (planner, strategies.EmulatedMapper(shifted)),
            "worst": (planner, strategies.EmulatedMapper(both, image=None))}


def bench_net(name: str, prototxt: Path, caffemodel: Path, images: list[str], prep: Preprocessing,
              modes: tuple[str, ...] = MAPPERS, learn_from_8bit: bool = True) -> list[dict]:
    net = load_net(prototxt, caffemodel)
    inputs = [prepare_inputs(net, [image], [prep]) for image in images[:2]]
    # the planner: calibrated over the whole list, scoring its last image (hp-plan's default)
    listed = HpOracle.build(net, inputs[-1:], calibration=inputs[:-1])
    order = listed.candidates()
    rows = []
    by_name = mappers(net, inputs, listed)
    for mapper_name in modes:
        planner, mapper = by_name[mapper_name]
        base, ceiling = mapper(()), mapper(order)
        for fraction in FRACTIONS:
            target = base + fraction * (ceiling - base)
            started = time.perf_counter()
            ours = strategies.ours(mapper, planner, target, lookahead=LOOKAHEAD, learn_from_8bit=learn_from_8bit)
            took = time.perf_counter() - started
            results = {"guide": strategies.guide(mapper, order, target),
                       "bisection": strategies.bisection(mapper, order, target),
                       "ours": ours}
            share = planner.mac_share(ours.layers) if ours.reached else None
            rows.append({"net": name, "mapper": mapper_name, "fraction": fraction, "target": target,
                         "base": base, "ceiling": ceiling, "layers": len(order), "results": results,
                         "ours_s": took, "share": share, "checks": checks(results)})
    return rows


LARGE_SIZE = 640
LARGE_OUTLIERS = (("conv6_pw", 300.0),)
LARGE_FRACTION = 0.5


def bench_large(tmp: str, size: int = LARGE_SIZE, target: float | None = None) -> dict:
    """The large row (module doc): one emulation, the oracle built, the plan -- each timed."""
    from nnie_lsp.emulation.emulate import emulate
    from nnie_lsp.testing.retina_synthetic import RetinaSpec
    from nnie_lsp.testing.retina_synthetic import write_project as write_retina
    from nnie_lsp.triage.hp_plan.planner import plan_hp

    paths = write_retina(Path(tmp) / "retina", RetinaSpec(size=size, outliers=LARGE_OUTLIERS))
    net = load_net(paths["prototxt"], paths["caffemodel"])
    prep = Preprocessing(norm_type=2, mean=np.array([104.0, 117.0, 123.0], np.float32), rgb_order="BGR")
    inputs = [prepare_inputs(net, [str(p)], [prep]) for p in sorted(paths["root"].glob("image*.png"))]
    started = time.perf_counter()
    emulate(net, inputs[-1])
    one = time.perf_counter() - started
    started = time.perf_counter()
    oracle = HpOracle.build(net, inputs[-1:], calibration=inputs[:-1])
    built = time.perf_counter() - started
    if target is None:
        base, ceiling = oracle.score(()).similarity, oracle.score(oracle.candidates()).similarity
        target = base + LARGE_FRACTION * (ceiling - base)
    started = time.perf_counter()
    plan = plan_hp(oracle, target)
    planned = time.perf_counter() - started
    return {"net": f"RetinaFace-sized {size}x{size}", "chains": len(oracle.chains), "candidates": len(plan.candidates),
            "values": sum(int(np.prod(v.shape)) for v in oracle.float_blobs[0].values()),
            "emulation_s": one, "build_s": built, "plan_s": planned, "sets": plan.evaluations,
            "layers": list(plan.layers), "similarity": plan.similarity, "baseline": plan.baseline.similarity,
            "target": target}


def print_large(row: dict) -> None:
    one = row["emulation_s"]
    print(f"{row['net']} ({row['chains']} chains, {row['candidates']} candidates, {row['values'] / 1e6:.1f} M "
          f"activations per image): one emulation {one:.2f} s (the baseline of this run)")
    print(f"  oracle built {row['build_s']:.1f} s = {row['build_s'] / one:.1f} emulations; plan {row['plan_s']:.1f} s "
          f"= {row['plan_s'] / one:.0f} emulations for {row['sets']} emulated sets "
          f"({row['plan_s'] / one / max(row['sets'], 1):.2f} emulation per set)")
    print(f"  plan to {row['target']:.6f}: {', '.join(row['layers']) or '(none)'}: {row['baseline']:.6f} -> "
          f"{row['similarity']:.6f}; "
          f"hp-plan as a whole: {(row['build_s'] + row['plan_s']) / 60:.1f} min on this machine")


def _cell(result: strategies.StrategyResult) -> str:
    if not result.reached:
        return f"{result.runs:>3} (not reached)"
    return f"{result.runs:>3} ({len(result.layers):>2} hp)"


def size_limit(smallest: int) -> int:
    """The largest set allowed against the smallest one found: 1.25× it, at least it + 1."""
    return max(int(SIZE_FACTOR * smallest), smallest + 1)


def checks(results: dict[str, strategies.StrategyResult]) -> dict[str, bool]:
    ours = results["ours"]
    guide, bisection = results["guide"], results["bisection"]
    if not ours.reached:
        return {"runs2": False, "others": False, "size": False}
    runs2 = not (guide.reached and guide.runs >= 5) or ours.runs <= 2
    others = all(ours.runs <= r.runs for r in (guide, bisection) if r.reached)
    smallest = min(len(r.layers) for r in results.values() if r.reached)
    size = len(ours.layers) <= size_limit(smallest)
    return {"runs2": runs2, "others": others, "size": size}


def _share(row: dict) -> str:
    share = row["share"].share if row["share"] is not None else None
    return f"{100 * share:5.1f} %" if share is not None else "    —  "


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="MTCNN det1 and the deep net only")
    ap.add_argument("--mapper", choices=MAPPERS + EXTRA, action="append", help="only these mappers (default: all)")
    ap.add_argument("--large", action="store_true", help="only the large row (a RetinaFace-sized net)")
    ap.add_argument("--large-size", type=int, default=LARGE_SIZE, help="its input size (default %(default)s)")
    ap.add_argument("--large-target", type=float, help="its target (default: 8-bit + 0.5 × what 16 bit wins back)")
    ap.add_argument("--no-learn-8bit", action="store_true",
                    help="ours takes only the 8-bit run's final similarity, not its clips (every correction then "
                         "comes from confirming runs)")
    args = ap.parse_args()
    modes = tuple(args.mapper) if args.mapper else MAPPERS
    rows = []
    if args.large:
        with tempfile.TemporaryDirectory(prefix="bench-hp-plan-") as tmp:
            print_large(bench_large(tmp, args.large_size, args.large_target))
        return 0
    large = None
    with tempfile.TemporaryDirectory(prefix="bench-hp-plan-") as tmp:
        if not args.quick:
            large = bench_large(tmp, args.large_size, args.large_target)
        for spec in nets(args.quick, tmp):
            started = time.perf_counter()
            rows.extend(bench_net(*spec, modes=modes, learn_from_8bit=not args.no_learn_8bit))
            print(f"{spec[0]}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    print("mapper runs to reach the target (runs (size of the `_hp` set delivered)); target = 8-bit + "
          "fraction × (all-16-bit − 8-bit), the mapper's; 16-bit MACs = the share of the net's "
          "multiply-accumulates ours runs at 16 bit")
    header = (f"{'net':<26} {'mapper':<8} {'layers':>6} {'8-bit':>9} {'16-bit':>9} {'frac':>5} {'target':>9} "
              f"| {'guide':<17} {'bisection':<17} {'ours':<17} | {'16b MACs':>8} {'ours s':>6} "
              f"| ≤2 runs  ≤ others  size")
    print(header)
    print("-" * len(header))
    totals = {"runs2": 0, "others": 0, "size": 0}
    for row in rows:
        r, c = row["results"], row["checks"]
        for key in totals:
            totals[key] += c[key]
        marks = "  ".join(f"{'ok' if c[k] else 'MISSED':<7}" for k in ("runs2", "others", "size"))
        print(f"{row['net']:<26} {row['mapper']:<8} {row['layers']:>6} {row['base']:>9.6f} {row['ceiling']:>9.6f} "
              f"{row['fraction']:>5.2f} {row['target']:>9.6f} | {_cell(r['guide']):<17} {_cell(r['bisection']):<17} "
              f"{_cell(r['ours']):<17} | {_share(row):>8} {row['ours_s']:>6.1f} | {marks}")
    hard = [row for row in rows if row["results"]["guide"].reached and row["results"]["guide"].runs >= 5]
    print()
    print(f"rows: {len(rows)}; the guide needs 5 runs or more in {len(hard)}, ours at most 2 there: "
          f"{sum(row['results']['ours'].runs <= 2 for row in hard)}")
    print(f"≤2 runs where the guide needs ≥5: {totals['runs2']}/{len(rows)} rows; never more runs than either "
          f"other strategy: {totals['others']}/{len(rows)}; set ≤ 1.25× the smallest reaching set (+1 for tiny "
          f"sets): {totals['size']}/{len(rows)}")
    every = all(all(row["checks"].values()) for row in rows)
    print(f"all three checks in every row: {every}")
    if large is not None:
        print()
        print_large(large)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())

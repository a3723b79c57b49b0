"""Reference and emulation benchmark: ratios against a bare OpenCV forward measured in the same run.

    .venv/bin/python benchmarks/bench_reference.py [--repeat 5] [--quick]

1. ``nnie-triage reference`` (the cfg read, the net's layers parsed, the mapper's preprocessing,
   every layer's output from OpenCV, the Caffe blobs assembled) against a bare OpenCV forward of the
   same net and image that also returns every layer's output (``readNetFromCaffe``, fusion off,
   ``forwardAndRetrieve`` of every layer: what any per-layer dump needs). Goal: ≤ 1.3× on the real
   nets. For the record: the same against a plain ``forward()`` of the final outputs, the time of
   writing the RuyiStudio text dumps (I/O, not in the goal), and a 48×48 toy net whose whole
   forward (< 1 ms) is smaller than the fixed cost of reading the cfg and the prototxt (~0.4 ms),
   so its ratio says nothing about the overhead per layer (not in the goal).
2. ``nnie-triage emulate`` (numpy NNIE 8-bit emulation) on a 416×416 net: its time, and the ratio to
   the OpenCV float forward of the same net.

Nets: the real YuFaceDetectNet (SSD, 240×320 as shipped, and run at 416×416) and MTCNN det1 (48×48)
from the shared corpus (``../shared/corpus/models``); MTCNN det1 from the repository's test data
when the corpus is not there.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nnie_lsp.testing.shared_files import shared_dir  # noqa: E402

IMAGE = ROOT / "examples" / "triage" / "test1.jpg"
GOAL = 1.3


def _corpus() -> Path | None:
    for base in (shared_dir(),):
        p = base / "corpus" / "models"
        if (p / "yufacedetectnet-v1").is_dir():
            return p
    return None


def nets() -> list[tuple[str, Path, Path, tuple[int, ...] | None, bool]]:
    """(label, prototxt, caffemodel, input shape override, counts for the goal)."""
    corpus = _corpus()
    out = []
    if corpus is not None:
        yu = corpus / "yufacedetectnet-v1"
        proto, model = yu / "yufacedetectnet-open-v1.prototxt", yu / "yufacedetectnet-open-v1.caffemodel"
        out.append(("yufacedetectnet 240x320", proto, model, None, True))
        out.append(("yufacedetectnet 416x416", proto, model, (1, 3, 416, 416), True))
    else:
        print("shared corpus not found: only the toy net is measured")
    det1 = ROOT / "tests" / "data" / "triage" / "mtcnn"
    out.append(("mtcnn det1 48x48 (toy)", det1 / "det1.prototxt", det1 / "det1.caffemodel", None, False))
    return out


def median_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def write_cfg(folder: Path, proto: Path, model: Path) -> Path:
    (folder / "images.txt").write_text(f"{IMAGE}\n")
    cfg = folder / "bench.cfg"
    cfg.write_text(f"[prototxt_file] {proto}\n[caffemodel_file] {model}\n[net_type] 0\n[compile_mode] 0\n"
                   "[RGB_order] BGR\n[image_list] ./images.txt\n[image_type] 1\n[norm_type] 0\n")
    return cfg


def bare_opencv(proto: Path, model: Path, shape, every_layer: bool):
    """What a user script does with OpenCV alone: read the net and the image, forward."""
    import cv2

    net = cv2.dnn.readNetFromCaffe(str(proto), str(model))
    img = cv2.imread(str(IMAGE))
    if shape is None:
        from nnie_lsp.reference.net import load_net

        shape = load_net(proto).inputs[0][1]
    h, w = shape[2], shape[3]
    net.setInput(cv2.dnn.blobFromImage(img, 1.0, (w, h)))
    if every_layer:
        net.enableFusion(False)
        net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
        return net.forwardAndRetrieve(list(net.getLayerNames()))
    return net.forward()


def ours_reference(cfg: Path, shape):
    from nnie_lsp.reference.caffe_forward import load_reference_net, run_reference
    from nnie_lsp.reference.run_inputs import load_run_inputs

    inputs = load_run_inputs(cfg)
    net = load_reference_net(inputs.prototxt, inputs.caffemodel)
    img = inputs.images[0]
    return run_reference(inputs.prototxt, inputs.caffemodel, img.sources, inputs.preprocessing, shape, net=net)


def ours_emulate(cfg: Path, shape):
    from nnie_lsp.reference.caffe_forward import prepare_inputs
    from nnie_lsp.emulation.emulate import emulate
    from nnie_lsp.reference.net import load_net
    from nnie_lsp.reference.run_inputs import load_run_inputs

    inputs = load_run_inputs(cfg)
    net = load_net(inputs.prototxt, inputs.caffemodel)
    return emulate(net, prepare_inputs(net, inputs.images[0].sources, inputs.preprocessing, shape))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="3 repeats")
    args = ap.parse_args()
    repeat = 3 if args.quick else args.repeat
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for label, proto, model, shape, in_goal in nets():
            folder = Path(tmp) / label.replace(" ", "_")
            folder.mkdir()
            cfg = write_cfg(folder, proto, model)
            ours_reference(cfg, shape)  # warm-up (imports, file cache)
            bare_all = median_of(lambda: bare_opencv(proto, model, shape, True), repeat)
            bare_out = median_of(lambda: bare_opencv(proto, model, shape, False), repeat)
            ours = median_of(lambda: ours_reference(cfg, shape), repeat)
            run = ours_reference(cfg, shape)
            from nnie_lsp.reference.caffe_forward import write_reference_dumps

            dumps = median_of(lambda: write_reference_dumps(run, folder / "out"), max(1, repeat // 2))
            ratio = ours / bare_all
            if in_goal:
                worst = max(worst, ratio)
            print(f"reference  {label:<24} | bare OpenCV every layer {bare_all * 1e3:8.1f} ms | nnie-triage reference "
                  f"{ours * 1e3:8.1f} ms | ratio {ratio:4.2f}x (goal <= {GOAL}x) | bare forward() only "
                  f"{bare_out * 1e3:7.1f} ms ({ours / bare_out:4.2f}x) | writing {len(run.blobs)} text dumps "
                  f"{dumps * 1e3:7.1f} ms" + ("" if in_goal else " (not in the goal)"))
            if shape == (1, 3, 416, 416) or not in_goal:
                emu = median_of(lambda: ours_emulate(cfg, shape), max(1, repeat // 2))
                print(f"emulate    {label:<24} | nnie-triage emulate {emu:6.2f} s | "
                      f"{emu / bare_all:5.1f}x the OpenCV float forward of every layer")
    if worst == 0.0:
        print("reference overhead goal: no real net measured")
        return 0
    verdict = "met" if worst <= GOAL else "NOT met"
    print(f"reference overhead goal (<= {GOAL}x a bare OpenCV forward of every layer, real nets): {verdict}, "
          f"worst {worst:.2f}x")
    return 0 if worst <= GOAL else 1


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())

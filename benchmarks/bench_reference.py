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
3. ``nnie-triage reference --onnx`` without writing (``nnie_lsp.reference.onnx_run``: the cfg read,
   its preprocessing, ONNX's shape inference, the layers matched to the prototxt's, ONNX Runtime with
   every intermediate tensor, the tensors named by the Caffe blobs they stand for) against a bare
   ONNX Runtime run with every intermediate output (``onnx.load``, every node output made a graph
   output, a session with the same options, one run), CPU time, interleaved rounds: goal ≤ 1.3×, on MTCNN det1/det2 exported to ONNX with
   their real weights (``nnie_lsp.testing.onnx_models``) and their faithful conversions: det1 at
   241×241 counts for the goal; det2 at 24×24 (a 3 ms run, smaller than the fixed cost of reading
   the cfg and matching the layers) is for the record, like the toy net above.

Nets: the real YuFaceDetectNet (SSD, 240×320 as shipped, and run at 416×416) and MTCNN det1 (48×48)
from the shared corpus (``nnie_lsp.testing.shared_files.corpus_dir``); MTCNN det1 from the repository's test data
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


def onnx_nets(tmp: Path) -> list[tuple[str, Path, Path]]:
    """(label, model.onnx, cfg) of the ONNX nets and their conversions."""
    from nnie_lsp.testing import onnx_models as m
    from nnie_lsp.testing.onnx_models_convert import convert

    if not m.mtcnn_available():
        print("shared corpus not found: the ONNX run is not measured")
        return []
    out = []
    for label, model in (("mtcnn det1 241x241 (onnx)", m.pnet(size=241, ceil_mode=1)), ("mtcnn det2 24x24 (onnx)", m.rnet())):
        folder = tmp / label.split(" (")[0].replace(" ", "_")
        folder.mkdir()
        conv = convert(model)
        (folder / "net.prototxt").write_text(conv.prototxt)
        (folder / "net.caffemodel").write_bytes(conv.caffemodel)
        m.save(model, folder / "net.onnx")
        out.append((label, folder / "net.onnx", write_cfg(folder, folder / "net.prototxt", folder / "net.caffemodel")))
    return out


def bare_onnxruntime(model: Path, shape):
    """What a user script does with ONNX Runtime alone: every node output exposed, one run (the same
    session options as ours: worker threads that sleep when idle, so CPU time is work)."""
    import cv2
    import onnx
    import onnxruntime as ort

    from nnie_lsp.reference.onnx_run import session_options

    m = onnx.load(str(model))
    have = {o.name for o in m.graph.output}
    for node in m.graph.node:
        for t in node.output:
            if t not in have:
                m.graph.output.append(onnx.ValueInfoProto(name=t))
    session = ort.InferenceSession(m.SerializeToString(), session_options(ort), providers=["CPUExecutionProvider"])
    blob = cv2.dnn.blobFromImage(cv2.imread(str(IMAGE)), 1.0, (shape[3], shape[2]))
    return session.run(None, {session.get_inputs()[0].name: blob})


def ours_onnx(model: Path, cfg: Path):
    """``nnie-triage reference --onnx`` without writing: the cfg read, the prototxt parsed, the
    mapper's preprocessing, the model read with ONNX's shape inference, its layers matched to the
    prototxt's, every tensor exposed, one run, the Caffe blobs named."""
    from nnie_lsp.reference.caffe_forward import load_reference_net, prepare_inputs
    from nnie_lsp.reference.onnx_run import load_onnx_reference, run_onnx
    from nnie_lsp.reference.run_inputs import load_run_inputs

    inputs = load_run_inputs(cfg)
    net = load_reference_net(inputs.prototxt, inputs.caffemodel)
    ref = load_onnx_reference(model, inputs.prototxt)
    return run_onnx(ref, prepare_inputs(net, inputs.images[0].sources, inputs.preprocessing))


def cpu_of(fn) -> float:
    """CPU time of one call (every thread of the process: ONNX Runtime's workers included)."""
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def onnx_rows(tmp: Path, repeat: int) -> float:
    worst = 0.0
    for label, model, cfg in onnx_nets(tmp):
        from nnie_lsp.reference.net import load_net
        from nnie_lsp.reference.onnx_dumps import write_onnx_dumps

        shape = load_net(cfg.parent / "net.prototxt").inputs[0][1]
        bare_onnxruntime(model, shape)  # warm-up (imports, file cache)
        blobs = ours_onnx(model, cfg)
        # interleaved rounds, CPU time: the load of a shared machine hits both alike
        bares, ourss = [], []
        for _ in range(max(repeat, 5)):
            bares.append(cpu_of(lambda: bare_onnxruntime(model, shape)))
            ourss.append(cpu_of(lambda: ours_onnx(model, cfg)))
        bare, ours = statistics.median(bares), statistics.median(ourss)
        dumps = median_of(lambda: write_onnx_dumps(blobs, cfg.parent / "out"), max(1, repeat // 2))
        in_goal = "det1" in label
        if in_goal:
            worst = max(worst, ours / bare)
        print(f"onnx       {label:<24} | bare ONNX Runtime every tensor {bare * 1e3:7.1f} ms CPU | reference --onnx "
              f"{ours * 1e3:7.1f} ms CPU ({len(blobs)} Caffe blobs named) | ratio {ours / bare:4.2f}x (goal <= {GOAL}x)"
              f" | writing the dumps {dumps * 1e3:6.1f} ms" + ("" if in_goal else " (not in the goal)"))
    return worst


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="3 repeats")
    args = ap.parse_args()
    repeat = 3 if args.quick else args.repeat
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        onnx_worst = onnx_rows(Path(tmp), repeat)
        if onnx_worst:
            print(f"onnx reference overhead goal (<= {GOAL}x a bare ONNX Runtime run of every tensor): "
                  f"{'met' if onnx_worst <= GOAL else 'NOT met'}, worst {onnx_worst:.2f}x")
        worst = max(worst, onnx_worst)
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

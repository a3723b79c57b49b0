"""The conversion faults as benchmark runs (``benchmarks/bench_verdicts.py``, its "conversion" row):
each fault of :data:`nnie_lsp.testing.onnx_models_convert.FAULTS`, injected alone into a model's
conversion, is judged by

- the static check (the NN5xx lint on the prototxt with the caffemodel and the ONNX model beside
  it): right when a finding is on the faulty layer (or, for an operator the converter dropped, on
  the `bottom:` of the layer that reads past it);
- the ONNX → Caffe hop layer by layer (ONNX Runtime on every tensor, named by the Caffe blobs,
  against the numpy Caffe forward): the first blob whose cosine is below 0.9999, or whose shape
  differs, or where the Caffe forward stops.  A BatchNorm eps of 1e-5 instead of 1e-3 moves the
  values by about 1e-3 of their size: above no cosine threshold a comparison can use, so only the
  static check names it (the benchmark shows that).

A faithful conversion of every model is a run too: right when neither finds anything.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from nnie_lsp.testing import onnx_models as m
from nnie_lsp.testing.onnx_models_convert import convert

RUNS = [("pnet", "ceil_mode", {}), ("small", "pads_lost", {}), ("small_asym", "asym_pads", {}),
        ("small", "dilation_lost", {}), ("small", "upsample_bilinear", {}), ("small", "upsample_scale", {}),
        ("small", "upsample_fork", {}), ("small", "relu6_to_relu", {}), ("small", "hardswish_lost", {}),
        ("small", "silu_lost", {}), ("rnet", "ip_order", {}), ("rnet", "flatten_axis", {}),
        ("small", "bn_eps", {}), ("small", "bn_fold_lost", {"fold_bn": True}),
        ("small", "concat_axis", {"at": "cat_h"}), ("small", "slice_axis", {}), ("small", "softmax_axis", {}),
        ("small", "reshape_target", {}), ("small", "weights", {}),
        ("small", None, {}), ("small", None, {"fold_bn": True}), ("pnet", None, {}), ("rnet", None, {})]
COSINE = 0.9999


def _model(name: str):
    return {"pnet": m.pnet, "rnet": m.rnet, "small": m.small_net,
            "small_asym": lambda: m.small_net(asymmetric_pads=True)}[name]()


def _cosine(a, b) -> float:
    """The cosine of two blobs; NaN when their shapes differ (a Reshape in another order keeps the
    values and changes their meaning)."""
    if np.shape(a) != np.shape(b):
        return float("nan")
    a, b = np.asarray(a, np.float64).ravel(), np.asarray(b, np.float64).ravel()
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    return 1.0 if na == nb == 0 else float(a @ b / (na * nb)) if na and nb else 0.0


def _caffe_blobs(folder: Path, x: np.ndarray) -> tuple[dict, str | None]:
    """Every blob of the numpy Caffe forward, and the layer it stopped at."""
    from nnie_lsp.reference.net import load_net
    from nnie_lsp.reference.numpy_forward import run_layer

    net = load_net(folder / "net.prototxt", folder / "net.caffemodel")
    blobs = {net.inputs[0][0]: x}
    for layer in net.layers:
        try:
            ys = run_layer(layer, [blobs[b] for b in layer.bottoms], layer.blobs)
        except (ValueError, KeyError, IndexError):
            return blobs, layer.tops[0] if layer.tops else layer.name
        blobs.update(zip(layer.tops, ys))
    return blobs, None


def run(model_name: str, fault: str | None, options: dict) -> dict:
    from nnie_lsp.lint.driver import lint_files
    from nnie_lsp.reference.onnx_forward import run_onnx_reference
    from nnie_lsp.project.settings import settings_from_mapping

    model = _model(model_name)
    conv = convert(model, fault, **options)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "net.prototxt").write_text(conv.prototxt, encoding="utf-8")
        (folder / "net.caffemodel").write_bytes(conv.caffemodel)
        m.save(model, folder / "net.onnx")
        diags = lint_files([str(folder / "net.prototxt")],
                           settings=settings_from_mapping({"select": ["NN502", "NN503", "NN504", "NN505",
                                                                      "NN506", "NN507"]})).diagnostics
        shape = tuple(d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim)
        x = (np.random.default_rng(0).random(shape) * 50).astype(np.float32)
        ours, stopped = _caffe_blobs(folder, x)
        ref = run_onnx_reference(folder / "net.onnx", folder / "net.prototxt", {model.graph.input[0].name: x})
    first = stopped
    for blob, value in ours.items():
        if blob in ref.blobs and not _cosine(value, ref.blobs[blob]) >= COSINE:
            first = blob
            break
    lines = conv.prototxt.splitlines()
    if fault is None:
        static_right, hop_right = not diags, first is None
    else:
        dropped = fault in ("hardswish_lost", "silu_lost")
        where = [d.range.start.line + 1 for d in diags]
        static_right = any(lines[ln - 1].strip().startswith("bottom:") if dropped else
                           ln in conv.layer_lines(conv.fault_layer) for ln in where)
        hop_right = first is not None and (dropped or first in _tops(conv, conv.fault_layer))
    return {"model": model_name, "fault": fault or "faithful", "layer": conv.fault_layer,
            "static": sorted({d.code for d in diags}), "static_right": static_right,
            "first_divergence": first, "hop_right": hop_right}


def _tops(conv, layer: str) -> set[str]:
    block = conv.prototxt.splitlines()
    lines = conv.layer_lines(layer)
    return {t.strip()[len('top: "'):-1] for i, t in enumerate(block, 1) if i in lines and t.strip().startswith("top:")}


def runs(quick: bool = False) -> list[dict]:
    chosen = [r for r in RUNS if m.mtcnn_available() or r[0] not in ("pnet", "rnet")]
    if quick:
        chosen = [r for r in chosen if r[1] in (None, "ceil_mode", "relu6_to_relu", "ip_order")][:4]
    return [run(*r) for r in chosen]

"""Run a Caffe conversion with the project's numpy forward (the Caffe reference's engine for nets
with Clip/Upsample) and its ONNX model with ONNX Runtime, every intermediate tensor exposed: the per-blob
cosines the tests compare."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from nnie_lsp.reference.net import load_net
from nnie_lsp.reference.numpy_forward import run_layer


def caffe_blobs(conv, folder: Path, x: np.ndarray) -> dict[str, np.ndarray]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "net.prototxt").write_text(conv.prototxt, encoding="utf-8")
    (folder / "net.caffemodel").write_bytes(conv.caffemodel)
    net = load_net(folder / "net.prototxt", folder / "net.caffemodel")
    blobs = {net.inputs[0][0]: x}
    for layer in net.layers:
        for top, y in zip(layer.tops, run_layer(layer, [blobs[b] for b in layer.bottoms], layer.blobs)):
            blobs[top] = y
    return blobs


def onnx_blobs(model, x: np.ndarray) -> dict[str, np.ndarray]:
    import onnx
    import onnxruntime as ort

    m = onnx.ModelProto()
    m.CopyFrom(model)
    have = {o.name for o in m.graph.output}
    for n in m.graph.node:
        for t in n.output:
            if t not in have:
                m.graph.output.append(onnx.ValueInfoProto(name=t))
    s = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [o.name for o in s.get_outputs()]
    return dict(zip(names, s.run(None, {s.get_inputs()[0].name: x})))


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
    if a.shape != b.shape:
        return float("nan")
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 or nb == 0:
        return 1.0 if na == nb else 0.0
    return float(a @ b / (na * nb))

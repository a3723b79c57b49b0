"""The ONNX side of the chain ONNX → Caffe → NNIE: the ONNX model run with ONNX Runtime, every
intermediate tensor exposed, on the same preprocessed input as the Caffe reference
(:func:`nnie_lsp.reference.caffe_forward.prepare_inputs`), and the tensors named by the Caffe blobs
they stand for (the conversion check's matching, :mod:`nnie_lsp.conversion.matching`).

Dumps (:func:`write_onnx_dumps`) are in the Caffe reference's form — RuyiStudio text dumps, one
per Caffe blob and batch item (``nnie_lsp.dumpio.writers.write_ruyi_caffe``), so the readers that
read a Caffe reference folder read them — plus ``onnx_manifest.json``: ``{"model", "blobs":
{caffe blob: {"tensor": ONNX tensor, "matched_by": "tensor name" | "graph structure" | …}},
"unmatched": [Caffe layer names]}``.  A Caffe blob with no ONNX tensor has no dump.

``onnxruntime`` (the ``[onnx]`` extra) is imported when a model is run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np


class OnnxRunError(ValueError):
    """Bad input for an ONNX run; the message is for the user."""


def exposed_model_bytes(model_path: str | Path) -> tuple[bytes, list[str]]:
    """The model with every node output also a graph output (what ONNX Runtime returns), and the
    names of all the tensors it then returns, in graph order."""
    import onnx

    try:
        model = onnx.load(str(model_path))
    except Exception as exc:  # not a model, a missing file
        raise OnnxRunError(f"cannot read ONNX model {model_path}: {exc}") from None
    have = {o.name for o in model.graph.output}
    names = [i.name for i in model.graph.input if i.name not in {t.name for t in model.graph.initializer}]
    for node in model.graph.node:
        for t in node.output:
            if t and t not in have:
                model.graph.output.append(onnx.ValueInfoProto(name=t))
                have.add(t)
            if t:
                names.append(t)
    return model.SerializeToString(), names


class OnnxRunner:
    """One ONNX Runtime session with every intermediate output (build once, run per image)."""

    def __init__(self, model_path: str | Path):
        import onnxruntime as ort

        data, self.order = exposed_model_bytes(model_path)
        options = ort.SessionOptions()
        options.log_severity_level = 3
        try:
            self.session = ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # ORT's own errors (an unsupported operator …)
            raise OnnxRunError(f"ONNX Runtime cannot load {model_path}: {exc}") from None
        self.inputs = [i.name for i in self.session.get_inputs()]
        self.outputs = [o.name for o in self.session.get_outputs()]

    def run(self, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        feed = {}
        for name in self.inputs:
            if name not in inputs:
                if len(inputs) == 1 and len(self.inputs) == 1:
                    feed[name] = next(iter(inputs.values()))
                    continue
                raise OnnxRunError(f"no input for the ONNX model's input {name!r} (given: {', '.join(inputs)})")
            feed[name] = inputs[name]
        feed = {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in feed.items()}
        values = dict(zip(self.outputs, self.session.run(None, feed)))
        values.update(feed)
        return values


@dataclass
class OnnxReference:
    model: str
    tensors: dict[str, np.ndarray]                  # ONNX tensor -> value
    blobs: dict[str, np.ndarray]                    # Caffe blob -> the ONNX value it stands for
    blob_tensor: dict[str, str] = field(default_factory=dict)
    matched_by: dict[str, str] = field(default_factory=dict)
    unmatched: list[str] = field(default_factory=list)


def blob_map(prototxt: str | Path, model_path: str | Path):
    """The conversion check's matching of the prototxt's layers to the model's nodes."""
    from nnie_lsp.conversion.matching import match
    from nnie_lsp.conversion.onnx_graph import cached_onnx
    from nnie_lsp.project import cached_prototxt
    from nnie_lsp.reference.net import read_prototxt_text

    text = read_prototxt_text(prototxt)
    _doc, graph = cached_prototxt(text, str(prototxt))
    return match(graph, cached_onnx(str(model_path)))


def run_onnx_reference(model_path: str | Path, prototxt: str | Path, inputs: dict[str, np.ndarray], *,
                       runner: OnnxRunner | None = None, matching=None) -> OnnxReference:
    """The model on ``inputs`` (Caffe input blob -> N,C,H,W, as the Caffe reference prepared them),
    every tensor, and the values of the Caffe blobs they stand for."""
    runner = runner or OnnxRunner(model_path)
    matching = matching or blob_map(prototxt, model_path)
    tensors = runner.run({matching.blob_tensor.get(k, k): v for k, v in inputs.items()})
    blobs, hows = {}, {}
    how_of = {t: mt.confidence for mt in matching.matches for t in mt.outputs}
    for blob, tensor in matching.blob_tensor.items():
        if tensor in tensors:
            blobs[blob] = tensors[tensor]
            hows[blob] = how_of.get(tensor, "graph input")
    return OnnxReference(str(model_path), tensors, blobs, dict(matching.blob_tensor), hows,
                         [layer.name for layer, _ in matching.unmatched])


def write_onnx_dumps(ref: OnnxReference, outdir: str | Path) -> list[Path]:
    """The dumps of every Caffe blob that has an ONNX value, and the manifest (module doc)."""
    from nnie_lsp.dumpio.writers import write_ruyi_caffe

    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for blob, arr in ref.blobs.items():
        a = np.asarray(arr)
        for n in range(a.shape[0] if a.ndim >= 1 else 1):
            written.append(Path(write_ruyi_caffe(out, blob, a[n] if a.ndim >= 1 else a, n=n)))
    manifest = {"model": ref.model,
                "blobs": {b: {"tensor": ref.blob_tensor[b], "matched_by": ref.matched_by.get(b, "")}
                          for b in ref.blobs},
                "unmatched": ref.unmatched}
    (out / "onnx_manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n",
                                            encoding="utf-8")
    written.append(out / "onnx_manifest.json")
    return written

"""The ONNX side of the chain as a library call without a cfg (tests, the conversion benchmark
records of :mod:`nnie_lsp.testing.onnx_models_faults`): one run of an ONNX model on inputs the
caller prepared, its tensors named by the Caffe blobs they stand for.

The engine is :mod:`.onnx_run` (the session with every tensor exposed, the blob → tensor map of
:mod:`nnie_lsp.conversion.matching`) and :func:`.onnx_dumps.write_onnx_dumps` (the dump form);
``nnie-triage reference --onnx`` (:func:`nnie_lsp.triage.inputs.dump_runs.write_onnx_reference_run`)
is the same run from a cfg, with the manifest every nnie-triage folder has.  :func:`write_onnx_dumps` here adds
``onnx_manifest.json``: ``{"model", "blobs": {caffe blob: {"tensor", "matched_by"}}, "unmatched"}``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from nnie_lsp.reference.onnx_run import OnnxRunError, load_onnx_reference, run_onnx

__all__ = ["OnnxReference", "OnnxRunError", "run_onnx_reference", "write_onnx_dumps"]


@dataclass
class OnnxReference:
    model: str
    blobs: dict[str, np.ndarray]                    # Caffe blob -> the ONNX value it stands for
    blob_tensor: dict[str, str] = field(default_factory=dict)
    matched_by: dict[str, str] = field(default_factory=dict)
    unmatched: list[str] = field(default_factory=list)


def run_onnx_reference(model_path: str | Path, prototxt: str | Path, inputs: dict[str, np.ndarray]) -> OnnxReference:
    """The model on ``inputs`` (Caffe input blob -> N,C,H,W, as the Caffe reference prepared them)."""
    ref = load_onnx_reference(model_path, prototxt)
    blobs = run_onnx(ref, inputs)
    return OnnxReference(str(model_path), blobs, dict(ref.blob_tensor),
                         {b: ref.how.get(b, "graph input") for b in blobs}, [name for name, _ in ref.unmatched_layers])


def write_onnx_dumps(ref: OnnxReference, outdir: str | Path) -> list[Path]:
    """The dumps of every Caffe blob that has an ONNX value, and ``onnx_manifest.json``."""
    from nnie_lsp.reference.onnx_dumps import write_onnx_dumps as write

    out = Path(outdir)
    written = write(ref.blobs, out)
    manifest = {"model": ref.model,
                "blobs": {b: {"tensor": ref.blob_tensor[b], "matched_by": ref.matched_by.get(b, "")} for b in ref.blobs},
                "unmatched": ref.unmatched}
    (out / "onnx_manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    written.append(out / "onnx_manifest.json")
    return written

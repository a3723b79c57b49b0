"""The framework side of the chain ONNX → Caffe → NNIE: the ONNX model a Caffe net was converted
from, run with ONNX Runtime with every intermediate tensor exposed, its tensors named by the Caffe
blobs they stand for.

- :func:`load_onnx_reference` reads the model once: ONNX's shape inference gives every node
  output's type, each is added as a graph output (what ONNX Runtime returns), and the Caffe
  prototxt's layers are matched to the ONNX nodes (:func:`nnie_lsp.conversion.matching.match`: by
  tensor name, else by graph structure, never by position) for the Caffe blob → ONNX tensor map;
- :func:`run_onnx` runs one image: the same preprocessed input the Caffe reference gets
  (:func:`nnie_lsp.reference.caffe_forward.prepare_inputs`), fed to the ONNX input its Caffe input
  blob stands for; it returns every blob's tensor (the data blob included).

``onnx`` and ``onnxruntime`` are the ``[onnx]`` extra: a missing one raises ImportError naming it
(the command line turns it into the message of :mod:`nnie_lsp.core.extras`).  Every problem with the
model or the input is an :class:`OnnxRunError` (a ValueError) whose message is for the user.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np


class OnnxRunError(ValueError):
    """The ONNX model cannot be run on the cfg's input; the message says why."""


@dataclass
class OnnxReference:
    path: Path
    session: object                          # onnxruntime.InferenceSession
    feeds: dict[str, str]                    # Caffe input blob -> ONNX graph input
    input_shapes: dict[str, tuple]           # ONNX graph input -> its dims (None: free)
    blob_tensor: dict[str, str]              # Caffe blob -> ONNX tensor (its last value)
    outputs: list[str]                       # the tensors the session returns, in its order
    unmatched_layers: list[tuple[str, str]] = field(default_factory=list)   # (Caffe layer, why)
    onnx_only: list[str] = field(default_factory=list)                      # tensors no blob stands for
    how: dict[str, str] = field(default_factory=dict)   # Caffe blob -> how its layer was matched
    #: Caffe layer whose output an in-place layer overwrites -> the ONNX tensor of that output
    overwritten: dict[str, str] = field(default_factory=dict)
    #: ONNX tensor or Caffe layer -> why it has no counterpart to be compared with
    not_comparable: dict[str, str] = field(default_factory=dict)


def _modules():
    """``onnx`` and ``onnxruntime``; an ImportError naming the one that is missing."""
    import onnx  # noqa: F401  (ImportError: name="onnx")
    import onnxruntime  # noqa: F401
    return onnx, onnxruntime


def session_options(ort):
    """One run's session options (the benchmark's bare run uses the same): worker threads that
    sleep when idle instead of spinning."""
    options = ort.SessionOptions()
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3   # warnings about unused initializers are not the user's concern
    return options


def expose_all(model, onnx):
    """A copy of ``model`` whose graph outputs are every node output (the declared outputs first),
    each typed by ONNX's shape inference where it knows the type."""
    try:
        inferred = onnx.shape_inference.infer_shapes(model)
    except Exception:  # a model ONNX cannot infer: outputs without types (ONNX Runtime infers them)
        inferred = model
    known = {vi.name: vi for vi in list(inferred.graph.value_info) + list(inferred.graph.output)}
    out = onnx.ModelProto()
    out.CopyFrom(model)
    have = {o.name for o in out.graph.output}
    for node in out.graph.node:
        for t in node.output:
            if t and t not in have:
                have.add(t)
                vi = known.get(t)
                typed = vi is not None and vi.type.tensor_type.elem_type != 0
                out.graph.output.append(vi if typed else onnx.ValueInfoProto(name=t))
    return out


def _graph_of(prototxt: str | Path):
    from nnie_lsp.project.project import cached_prototxt
    from nnie_lsp.readers.caffemodel import NetLoadError
    from nnie_lsp.reference.net import read_prototxt_text

    try:
        text = read_prototxt_text(prototxt)
    except NetLoadError as exc:
        raise OnnxRunError(str(exc)) from exc
    doc, graph = cached_prototxt(text, str(prototxt))
    if doc.syntax_errors:
        raise OnnxRunError(f"cannot parse prototxt {prototxt}: {doc.syntax_errors[0]}")
    return graph


def load_onnx_reference(onnx_path: str | Path, prototxt: str | Path) -> OnnxReference:
    """The model at ``onnx_path`` ready to run, matched to the Caffe net of ``prototxt``."""
    onnx, ort = _modules()
    from nnie_lsp.conversion.matching import match
    from nnie_lsp.conversion.onnx_graph import OnnxReadError, read_onnx

    path = Path(onnx_path)
    if not path.is_file():
        raise OnnxRunError(f"--onnx {path} does not exist")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise OnnxRunError(f"cannot read ONNX model {path}: {exc.strerror or exc}") from exc
    try:
        og = read_onnx(str(path), data)
        model = onnx.load_model_from_string(data)
    except OnnxReadError as exc:
        raise OnnxRunError(str(exc)) from exc
    graph = _graph_of(prototxt)
    matching = match(graph, og)
    exposed = expose_all(model, onnx)
    try:
        session = ort.InferenceSession(exposed.SerializeToString(), session_options(ort),
                                       providers=["CPUExecutionProvider"])
    except Exception as exc:  # ONNX Runtime's own errors (an operator it lacks, a bad graph)
        msg = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
        raise OnnxRunError(f"ONNX Runtime cannot load {path}: {msg}") from exc
    graph_inputs = {i.name: tuple(d if isinstance(d, int) else None for d in i.shape) for i in session.get_inputs()}
    feeds = {blob: t for blob, t in matching.blob_tensor.items() if t in graph_inputs}
    missing = [t for t in graph_inputs if t not in feeds.values()]
    if missing:
        raise OnnxRunError(f"{path}: no input of the Caffe net stands for the ONNX input(s) {', '.join(missing)} "
                           "(the names differ and the nets have more than one input each)")
    outputs = [o.name for o in session.get_outputs()]
    how = {top: m.confidence for m in matching.matches for top in m.layer.tops}
    overwritten, not_comparable = _overwritten(graph, matching)
    mapped = set(matching.blob_tensor.values()) | set(overwritten.values())
    onnx_only = [t for t in outputs if t not in mapped]
    for t in onnx_only:
        not_comparable[t] = _inside(matching, og, t)
    return OnnxReference(path=path, session=session, feeds=feeds, input_shapes=graph_inputs,
                         blob_tensor=dict(matching.blob_tensor), outputs=outputs,
                         unmatched_layers=[(layer.name, why) for layer, why in matching.unmatched],
                         onnx_only=onnx_only, how=how, overwritten=overwritten, not_comparable=not_comparable)


def _overwritten(graph, matching) -> tuple[dict[str, str], dict[str, str]]:
    """The ONNX tensor of every Caffe layer output an in-place layer overwrites, and the layers
    whose overwritten output has none (a BatchNorm whose Scale is the same ONNX node)."""
    from nnie_lsp.reference.inplace_values import overwritten

    own = {m.layer.name: m.outputs[0] for m in matching.matches if m.outputs}
    partner_of = {m.layer.name: m.partner.name for m in matching.matches if m.partner is not None}
    out, none = {}, {}
    for layer, blob, after in overwritten(graph.layers):
        if partner_of.get(layer.name) == after.name:
            none[layer.name] = (f"ONNX computes BatchNorm \"{layer.name}\" and Scale \"{after.name}\" as one "
                                "BatchNormalization: no ONNX value for the BatchNorm alone")
        elif layer.name in own and own[layer.name] != matching.blob_tensor.get(blob):
            out[layer.name] = own[layer.name]
        elif layer.name not in own:
            none[layer.name] = f"layer \"{layer.name}\" matches no ONNX node"
    return out, none


def _inside(matching, og, tensor: str) -> str:
    """Why an ONNX tensor stands for no Caffe value: inside which layer's nodes it lies."""
    node = og.node_of(tensor)
    for m in matching.matches:
        if node is not None and any(n.index == node.index for n in m.nodes):
            return (f"computed inside Caffe layer \"{m.layer.name}\" ({m.layer.type}), which has no output of "
                    "its own for it")
    return "no Caffe layer stands for it"


def _fits(shape: tuple, want: tuple) -> bool:
    return len(shape) == len(want) and all(w is None or w == s for s, w in zip(shape, want))


def run_onnx(ref: OnnxReference, inputs: dict[str, np.ndarray], every: dict | None = None) -> dict[str, np.ndarray]:
    """Every Caffe blob the ONNX model has a tensor for, from one run on ``inputs`` (Caffe input
    blob -> its preprocessed (N, C, H, W) array).  ``every``: filled with every tensor of the run
    by ONNX name (the overwritten and ONNX-only values are written from it)."""
    feed = {}
    for blob, tensor in ref.feeds.items():
        if blob not in inputs:
            raise OnnxRunError(f"the Caffe net has no input {blob!r} for the ONNX input {tensor!r}")
        arr = np.ascontiguousarray(inputs[blob], dtype=np.float32)
        want = ref.input_shapes.get(tensor) or ()
        if want and not _fits(arr.shape, want):
            dims = "×".join("?" if d is None else str(d) for d in want)
            raise OnnxRunError(f"the ONNX model's input {tensor!r} is {dims} but the Caffe net's input {blob!r} "
                               f"is {'×'.join(map(str, arr.shape))}: export the model at the prototxt's input "
                               "size (or give --input-shape)")
        feed[tensor] = arr
    try:
        values = ref.session.run(None, feed)
    except Exception as exc:
        msg = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
        raise OnnxRunError(f"ONNX Runtime failed on {ref.path}: {msg}") from exc
    by_tensor = dict(zip(ref.outputs, values))
    by_tensor.update(feed)
    if every is not None:
        every.update(by_tensor)
    return {blob: np.asarray(by_tensor[t]) for blob, t in ref.blob_tensor.items() if t in by_tensor}

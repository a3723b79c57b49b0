"""An ONNX model read into plain Python: nodes, initializers (and Constant outputs), tensor shapes.

``onnx`` (the ``[onnx]`` extra) is imported here only, when a model is read; a missing package is
:class:`OnnxUnavailable` (the callers turn it into the message of :mod:`nnie_lsp.core.extras`).  Shapes
come from ONNX's own shape inference (``onnx.shape_inference``); a tensor whose shape is not
inferred has ``None``.  Operator semantics used by the checks: docs/field-facts.md §17.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np


class OnnxUnavailable(ImportError):
    """The onnx package cannot be imported."""


class OnnxReadError(ValueError):
    """The file is not an ONNX model we can read; the message is for the user."""


@dataclass(frozen=True)
class OnnxNode:
    index: int
    name: str
    op: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    attrs: dict[str, Any]
    domain: str = ""

    @property
    def label(self) -> str:
        return f"{self.op} \"{self.name}\"" if self.name else f"{self.op} (output \"{self.outputs[0]}\")"


@dataclass
class OnnxGraph:
    path: str
    opset: int
    nodes: list[OnnxNode]
    constants: dict[str, np.ndarray]          # initializers and Constant outputs
    shapes: dict[str, tuple[int, ...] | None]
    inputs: tuple[str, ...]                   # graph inputs that are not initializers
    outputs: tuple[str, ...]
    producer: dict[str, int] = field(default_factory=dict)
    consumers: dict[str, list[int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for node in self.nodes:
            for t in node.outputs:
                self.producer[t] = node.index
            for t in node.inputs:
                if t:
                    self.consumers.setdefault(t, []).append(node.index)

    def has_tensor(self, name: str) -> bool:
        return name in self.producer or name in self.inputs

    def const(self, name: str) -> np.ndarray | None:
        return self.constants.get(name) if name else None

    def node_of(self, tensor: str) -> OnnxNode | None:
        i = self.producer.get(tensor)
        return self.nodes[i] if i is not None else None

    def shape(self, tensor: str) -> tuple[int, ...] | None:
        return self.shapes.get(tensor)


def _import_onnx():
    try:
        import onnx
        from onnx import numpy_helper, shape_inference
    except ImportError as exc:
        raise OnnxUnavailable(str(exc), name="onnx") from exc
    return onnx, numpy_helper, shape_inference


def _attr(a, numpy_helper) -> Any:
    from onnx import AttributeProto as A
    if a.type == A.FLOAT:
        return float(a.f)
    if a.type == A.INT:
        return int(a.i)
    if a.type == A.STRING:
        return a.s.decode("utf-8", "replace")
    if a.type == A.FLOATS:
        return tuple(float(x) for x in a.floats)
    if a.type == A.INTS:
        return tuple(int(x) for x in a.ints)
    if a.type == A.STRINGS:
        return tuple(s.decode("utf-8", "replace") for s in a.strings)
    if a.type == A.TENSOR:
        return numpy_helper.to_array(a.t)
    return None  # graphs and sparse tensors: not used by the checks


def _dims(value_info) -> tuple[int, ...] | None:
    t = value_info.type.tensor_type
    if not t.HasField("shape"):
        return None
    dims = []
    for d in t.shape.dim:
        if not d.HasField("dim_value"):
            return None
        dims.append(int(d.dim_value))
    return tuple(dims)


def read_onnx(path: str, data: bytes | None = None) -> OnnxGraph:
    """The ONNX model at ``path`` (or its bytes ``data``)."""
    onnx, numpy_helper, shape_inference = _import_onnx()
    if data is None:
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            raise OnnxReadError(f"cannot read ONNX model {path}: {exc.strerror or exc}") from None
    try:
        model = onnx.load_model_from_string(data)
    except Exception as exc:  # DecodeError and friends: not a ModelProto
        raise OnnxReadError(f"{path} is not an ONNX model: {type(exc).__name__}: {exc}") from None
    if not model.graph.node:
        raise OnnxReadError(f"{path}: the ONNX graph has no nodes (is it an ONNX model?)")
    try:
        inferred = shape_inference.infer_shapes(model)
    except Exception:  # a model ONNX cannot infer: read it without shapes
        inferred = model
    g = inferred.graph
    opset = next((int(o.version) for o in model.opset_import if o.domain in ("", "ai.onnx")), 0)
    constants: dict[str, np.ndarray] = {}
    for init in g.initializer:
        try:
            constants[init.name] = numpy_helper.to_array(init)
        except Exception:  # external data not beside the model
            continue
    nodes = []
    for i, n in enumerate(g.node):
        attrs = {a.name: _attr(a, numpy_helper) for a in n.attribute}
        if n.op_type == "Constant" and isinstance(attrs.get("value"), np.ndarray):
            constants[n.output[0]] = attrs["value"]
        nodes.append(OnnxNode(i, n.name, n.op_type, tuple(n.input), tuple(n.output), attrs, n.domain))
    shapes: dict[str, tuple[int, ...] | None] = {}
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        shapes[vi.name] = _dims(vi)
    for name, arr in constants.items():
        shapes[name] = tuple(arr.shape)
    inputs = tuple(i.name for i in g.input if i.name not in constants)
    return OnnxGraph(path=path, opset=opset, nodes=nodes, constants=constants, shapes=shapes,
                     inputs=inputs, outputs=tuple(o.name for o in g.output))


_CACHE: dict[tuple[str, int, int], OnnxGraph] = {}


def cached_onnx(path: str) -> OnnxGraph:
    """:func:`read_onnx`, remembered by (path, mtime, size): the editor lints on every keystroke."""
    st = os.stat(path)
    key = (os.path.abspath(path), st.st_mtime_ns, st.st_size)
    hit = _CACHE.get(key)
    if hit is None:
        hit = read_onnx(path)
        if len(_CACHE) > 8:
            _CACHE.clear()
        _CACHE[key] = hit
    return hit

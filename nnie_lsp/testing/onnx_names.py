"""The tensor names real ONNX models have, applied to a model of :mod:`.onnx_models` (tests,
benchmark): the same graph, the same values, other names.

- :func:`inplace_named`: the names an ONNX model converted *from* an in-place Caffe net carries
  (caffe2onnx-style): the last tensor of each in-place chain holds the Caffe blob's name, the
  earlier tensors of the chain a name of their own (``conv1`` is the PReLU's output, the Conv's is
  ``conv1_pre``);
- :func:`exporter_named`: the PyTorch exporter's names: nodes ``<Op>_<k>``, every intermediate
  tensor a number (``"5"``, ``"6"``…), the graph input and the declared outputs as given
  (``input_names`` / ``output_names``), or numbers too with ``numeric_io``.

The Caffe sides these stand against are the real in-place MTCNN prototxts of the shared corpus
(their layer and blob names), or a conversion of the renamed model.  Not a product feature.
"""

from __future__ import annotations

from collections.abc import Callable

#: ONNX ops a Caffe converter writes as an in-place layer on the tensor before them
INPLACE_OPS = frozenset({"Relu", "PRelu", "LeakyRelu", "Sigmoid", "Tanh", "Clip", "Elu", "BatchNormalization"})


def _rename(model, name_of: Callable[[str], str], node_name: Callable[[int, object], str] | None = None):
    """A copy of ``model`` with every tensor ``t`` (inputs, outputs, value infos) named
    ``name_of(t)``; initializers keep their names."""
    import onnx

    out = onnx.ModelProto()
    out.CopyFrom(model)
    g = out.graph
    inits = {i.name for i in g.initializer}

    def nm(t: str) -> str:
        return t if not t or t in inits else name_of(t)

    for k, node in enumerate(g.node):
        node.input[:] = [nm(t) for t in node.input]
        node.output[:] = [nm(t) for t in node.output]
        if node_name is not None:
            node.name = node_name(k, node)
    for vi in list(g.input) + list(g.output) + list(g.value_info):
        if vi.name not in inits:
            vi.name = nm(vi.name)
    onnx.checker.check_model(out)
    return out


def inplace_named(model, suffix: str = "_pre"):
    """The names of an ONNX model made from an in-place Caffe net (module doc): an activation in
    :data:`INPLACE_OPS` that is the only reader of its input takes that tensor's name; the
    tensor before it becomes ``<name><suffix>`` (chains of several get several suffixes)."""
    g = model.graph
    readers: dict[str, int] = {}
    for n in g.node:
        for t in n.input:
            readers[t] = readers.get(t, 0) + 1
    declared = {o.name for o in g.output}
    final: dict[str, str] = {}     # tensor -> the name it gets
    for n in g.node:
        x = n.input[0] if n.input else ""
        if (n.op_type in INPLACE_OPS and readers.get(x) == 1 and x not in declared
                and n.output[0] not in declared):
            blob = final.get(x, x)
            final[x] = blob + suffix
            # earlier members of the chain move one suffix further back
            for t, name in list(final.items()):
                if name == blob + suffix and t != x:
                    final[t] = name + suffix
            final[n.output[0]] = blob
    return _rename(model, lambda t: final.get(t, t))


def exporter_named(model, *, numeric_io: bool = False, start: int | None = None):
    """The PyTorch exporter's names (module doc).  Numbers start after the initializers, as
    torch.onnx's do (``start`` overrides)."""
    g = model.graph
    keep = set() if numeric_io else {i.name for i in g.input} | {o.name for o in g.output}
    counter = [start if start is not None else len(g.initializer) + len(g.input)]
    names: dict[str, str] = {}

    def name_of(t: str) -> str:
        if t in keep:
            return t
        if t not in names:
            names[t] = str(counter[0])
            counter[0] += 1
        return names[t]

    for vi in g.input:   # numbered first, like the exporter's "input.1"-style inputs
        if numeric_io:
            name_of(vi.name)
    return _rename(model, name_of, lambda k, node: f"{node.op_type}_{k}")

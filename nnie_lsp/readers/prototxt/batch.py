"""Which layers depend on the input batch: is setting an input's batch to 1 harmless?

Changing only the batch of an input must leave every per-image computation as it is: each blob
keeps its shape except its first (batch) dimension, which goes from N to the new batch, or stays
the same when the blob does not follow the batch (a PriorBox output).  A layer breaks that when
its parameters name the batch — a Reshape whose shape hard-codes dim 0 (LRCN's 16×10×4096,
docs/field-facts.md §16.4), an axis-0 Concat/Slice/Softmax/Flatten/InnerProduct … — or when its
output changes beyond the batch once the batch changes (a Reshape whose count no longer
matches, a Flatten over the batch).  :func:`batch_dependence` runs the shape inference twice
(declared batch, new batch) and lists such layers; a layer whose shapes cannot be inferred is
listed too, as one that could not be checked.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Iterable, Mapping, TYPE_CHECKING

from nnie_lsp.core.records import NamedTuple
from nnie_lsp.readers.prototxt.shapes import declared_inputs, infer_shapes

if TYPE_CHECKING:
    from nnie_lsp.readers.prototxt.graph import GraphLayer, NetGraph

__all__ = ["BATCH_AXIS_FIELDS", "BatchDependence", "batch_dependence", "axis_zero_fields"]

Shape = tuple[int, ...]

# layer type -> (parameter message, axis fields); axis 0 is the batch (their defaults are never 0)
BATCH_AXIS_FIELDS: dict[str, tuple[str, ...]] = {
    "Concat": ("concat_param", "axis", "concat_dim"),
    "Slice": ("slice_param", "axis", "slice_dim"),
    "Softmax": ("softmax_param", "axis"),
    "Flatten": ("flatten_param", "axis"),
    "Reduction": ("reduction_param", "axis"),
    "ArgMax": ("argmax_param", "axis"),
    "InnerProduct": ("inner_product_param", "axis"),
}


class BatchDependence(NamedTuple):
    """``layer`` depends on the batch (or could not be checked); ``kind`` says how:

    - ``"reshape_dims"``: a Reshape over axis 0 whose first dim is a number (``dims``);
    - ``"axis0"``: a parameter ``field`` of the layer is axis 0, the batch;
    - ``"setup"``: with the new batch the layer no longer fits its input (``problem`` kind,
      ``input`` shape with the new batch);
    - ``"shape"``: its top ``blob`` changes beyond the batch (``before`` → ``after``);
    - ``"mixes"``: its bottoms had one batch and would have different ones (``shapes``);
    - ``"unknown"``: the shape of its top ``blob`` is unknown, so nothing after it is checked.
    """

    layer: "GraphLayer"
    kind: str
    details: Mapping = MappingProxyType({})  # read-only default


def axis_zero_fields(layer: "GraphLayer") -> tuple[str, ...]:
    """The axis fields of ``layer`` set to 0 (the batch), as written (e.g. ``("axis",)``)."""
    spec = BATCH_AXIS_FIELDS.get(layer.type)
    if spec is None or layer.source.is_v1:
        return ()
    param = layer.param
    message_name, *names = spec
    if not param.HasField(message_name):
        return ()
    message = getattr(param, message_name)
    return tuple(n for n in names if message.HasField(n) and getattr(message, n) == 0)


def _reshape_hard_codes_batch(layer: "GraphLayer") -> tuple[int, ...] | None:
    """The dims of a Reshape that replaces axis 0 with a number (not 0 = copy, not -1 = infer)."""
    if layer.type != "Reshape" or layer.source.is_v1:
        return None
    p = layer.param.reshape_param
    dims = tuple(p.shape.dim)
    if p.axis == 0 and dims and dims[0] not in (0, -1):
        return dims
    return None


def _follows_batch(before: Shape, after: Shape, old: int, new: int) -> bool:
    if before == after:
        return True  # does not follow the batch (e.g. PriorBox output)
    return (len(before) == len(after) and len(before) > 0 and before[0] == old
            and after[0] == new and before[1:] == after[1:])


def batch_dependence(graph: "NetGraph", inputs: "str | Iterable[str]", batch: int = 1) -> list[BatchDependence]:
    """Layers fed (directly or not) by the net input(s) ``inputs`` that depend on their batch, in
    layer order; empty when setting the batch of those inputs to ``batch`` computes the same per
    image."""
    names = {inputs} if isinstance(inputs, str) else set(inputs)
    declared = [i for i in declared_inputs(graph) if i.name in names and i.shape]
    changed = [i for i in declared if i.shape[0] != batch]
    if not changed:
        return []
    old = changed[0].shape[0]
    if any(i.shape[0] != old for i in changed):
        raise ValueError("inputs of different batches")
    before = graph.shape_inference()
    after = infer_shapes(graph, {i.name: (batch,) + tuple(i.shape[1:]) for i in changed})
    declaring = {i.layer for i in changed if i.layer is not None}
    problems = {p.layer: p for p in after.problems}
    affected = {i.name for i in changed}
    found: list[BatchDependence] = []
    unknown_seen = False
    for layer in graph.layers:
        if layer.index in declaring or not any(b in affected for b in layer.bottoms):
            continue
        affected.update(layer.tops)
        dims = _reshape_hard_codes_batch(layer)
        if dims is not None:  # "breaks": with the new batch the Reshape's count no longer fits
            found.append(BatchDependence(layer, "reshape_dims", {"dims": dims, "breaks": layer.index in problems}))
            continue
        zero = axis_zero_fields(layer)
        if zero:
            found.append(BatchDependence(layer, "axis0", {"field": zero[0]}))
            continue
        tops_before = before.layer_tops.get(layer.index, ())
        tops_after = after.layer_tops.get(layer.index, ())
        if any(s is None for s in tops_before):
            if not unknown_seen:  # everything after the first unknown shape is unknown too
                blob = next(t for t, s in zip(layer.tops, tops_before) if s is None)
                found.append(BatchDependence(layer, "unknown", {"blob": blob}))
                unknown_seen = True
            continue
        if layer.index in problems or any(s is None for s in tops_after):
            problem = problems.get(layer.index)
            found.append(BatchDependence(layer, "setup", {
                "problem": problem.kind if problem else "unknown",
                "input": after.blobs.get(layer.bottoms[0]) if layer.bottoms else None}))
            continue
        changed = [(t, b, a) for t, b, a in zip(layer.tops, tops_before, tops_after)
                   if not _follows_batch(b, a, old, batch)]
        if changed:
            blob, shape_before, shape_after = changed[0]
            found.append(BatchDependence(layer, "shape", {"blob": blob, "before": shape_before,
                                                          "after": shape_after}))
            continue
        ins_before = [before.blobs.get(b) for b in layer.bottoms]
        ins_after = [after.blobs.get(b) for b in layer.bottoms]
        if len(ins_before) > 1 and all(s for s in ins_before) and all(s for s in ins_after):
            if len({s[0] for s in ins_before}) == 1 and len({s[0] for s in ins_after}) > 1:
                found.append(BatchDependence(layer, "mixes", {"shapes": tuple(ins_after)}))
    return found

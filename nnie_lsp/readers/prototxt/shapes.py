"""Blob shape inference (Caffe semantics, N x C x H x W): the driver.

The per-type rules are in :mod:`.shape_rules`.  Unknown stays unknown: a layer whose type is
unknown, whose parameters the schema rejected (so they were not read: a converter's
``upsample_param { height_scale: 2 }`` is not ``scale: 2``), that has no shape rule or whose rule
cannot tell its output gives ``None`` for its tops, and so does every layer reading a ``None``
blob — never a shape computed from defaults.  Each such root is a :class:`ShapeStop` (what
NN022 reports); layers whose parameters do not fit their inputs are :class:`ShapeProblem` s
(NN021).  Checked against OpenCV ``getLayersShapes`` in the tests.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Mapping, TYPE_CHECKING

from nnie_lsp.core.records import NamedTuple
from nnie_lsp.readers.prototxt.shape_reasons import REASONS
from nnie_lsp.readers.prototxt.shape_rules import (
    INPUT_LAYER_TYPES,
    SHAPE_RULES,
    ShapeProblem,
    _Unknown,
    conv_out,
    declared_tops,
    deconv_out,
    pool_out,
)

if TYPE_CHECKING:
    from nnie_lsp.core.text import Range
    from nnie_lsp.readers.prototxt.graph import GraphLayer, NetGraph

__all__ = ["ShapeInference", "ShapeProblem", "ShapeStop", "DeclaredInput", "infer_shapes", "declared_inputs",
           "unread_layers", "conv_out", "deconv_out", "pool_out", "SHAPE_RULES", "REPORTED_ELSEWHERE"]

Shape = tuple[int, ...]


class ShapeStop(NamedTuple):
    """A place where shape inference stops: the outputs of ``layer`` (or the blob ``blob``) are
    unknown although everything it reads is known.

    ``kind``: ``"unknown_type"`` (``detail`` = the type), ``"unread"`` (the schema rejected a field
    of the layer: ``detail`` = its path, e.g. ``upsample_param.height_scale``; ``code`` = the
    reader's NN010/NN011/NN012; ``range`` = the field), ``"python"`` (``detail`` = module.class),
    ``"data"`` (a data layer: its shape comes from the data it reads), ``"no_rule"`` (a known type
    nnie-lint has no shape rule for), ``"rule"`` (the rule could not tell: ``detail`` = why in
    English, ``reason`` its key in :data:`~.shape_reasons.REASONS`, ``params`` its values),
    ``"no_input_shape"`` (a top-level input declares no shape), ``"unread_input"`` (a reader error
    in a top-level input's ``input_shape`` / ``input_dim``: ``detail`` = the field's path,
    ``code`` the reader's, ``params`` its ``line``), ``"bad_input_shape"`` (a top-level input
    declares a negative dim: ``detail`` = the shape), and three causes other codes
    report: ``"problem"`` (NN021), ``"no_input_param"`` (NN021), ``"undefined"`` (a blob no layer
    produces, NN013).  ``reached``: some layer reads a blob left unknown by this stop."""

    kind: str
    layer: int | None
    blob: str | None = None
    detail: str = ""
    code: str = ""
    range: "Range | None" = None
    reached: bool = False
    reason: str = ""
    params: tuple[tuple[str, object], ...] = ()


#: stop kinds another rule already reports (NN021, NN013): NN022 says nothing about them
REPORTED_ELSEWHERE = frozenset({"problem", "no_input_param", "undefined"})


class ShapeInference(NamedTuple):
    blobs: dict[str, Shape | None]
    layer_tops: dict[int, tuple[Shape | None, ...]]
    # (layer index, reason) where a layer's output could not be inferred
    notes: list[tuple[int, str]]
    # layers whose parameters do not fit their input (Caffe refuses them), in layer order
    problems: list[ShapeProblem]
    # where inference stopped (roots of unknown shapes), in layer order
    stops: list[ShapeStop] = []


class DeclaredInput(NamedTuple):
    """A blob whose shape the net declares: a top-level input, or a top of an Input, DummyData or
    MemoryData layer (``layer`` = its index)."""

    name: str
    shape: Shape | None
    layer: int | None


def declared_inputs(graph: "NetGraph") -> list[DeclaredInput]:
    """Every blob whose shape the file declares (what ``input_shapes`` of :func:`infer_shapes`
    may replace), in file order of the layers."""
    out = [DeclaredInput(i.name, i.shape, i.layer) for i in graph.inputs if i.style != "Input layer"]
    for gl in graph.layers:
        if gl.type in INPUT_LAYER_TYPES:
            out.extend(DeclaredInput(t, s, gl.index) for t, s in zip(gl.tops, declared_tops(gl)))
    return out


def _field_path(node, offset: int) -> tuple[str, "Range | None"]:
    """The dotted path (below the layer) of the deepest field at ``offset``, and its name range."""
    names: list[str] = []
    found = None
    cur = node
    while True:
        nxt = None
        for c in cur[3]:
            if c[7] <= offset < max(c[8], c[7] + 1):
                nxt = c
                break
        if nxt is None:
            break
        names.append(nxt[0])
        found = cur = nxt
    return ".".join(names), (found.name_range if found is not None else None)


def unread_layers(graph: "NetGraph") -> dict[int, ShapeStop]:
    """Layers of ``graph`` whose block holds a reader error (a field the schema rejects, a bad
    value, a syntax error): their parameters were not read as written.  One ``"unread"`` stop
    per such layer, at its first error."""
    doc = getattr(graph, "doc", None)
    if doc is None or not doc.errors or not graph.layers:
        return {}
    spans = sorted((gl.source.node[7], gl.source.node[8], gl) for gl in graph.layers)
    starts = [s for s, _, _ in spans]
    out: dict[int, ShapeStop] = {}
    li = doc.line_index
    for err in doc.errors:
        off = li.offset(err.range.start)
        k = bisect_right(starts, off) - 1
        if k < 0:
            continue
        start, end, gl = spans[k]
        if off >= end or gl.index in out:
            continue
        path, rng = _field_path(gl.source.node, off)
        out[gl.index] = ShapeStop("unread", gl.index, detail=path, code=err.code, range=rng or err.range)
    return out


def _top_level_blocks(doc) -> tuple[list, list[tuple[object, int]]]:
    """The top-level ``input_shape`` message nodes (in the order the graph reads them), and each
    ``input_dim`` node with the number of dims written before it."""
    shapes, dims, count = [], [], 0
    for n in doc.nodes:
        if n.name == "input_shape":
            shapes.extend([n] if n.kind == "message" else [e for e in n.children if e.kind == "message"])
        elif n.name == "input_dim":
            dims.append((n, count))
            count += len(n.children) if n.kind == "list" else 1
    return shapes, dims


def unread_inputs(graph: "NetGraph") -> dict[str, ShapeStop]:
    """Top-level inputs whose shape was not read as written: a reader error (a field the schema
    rejects, a bad value, a syntax error) inside their ``input_shape`` block or ``input_dim``
    values (``"unread_input"``), or a negative dim (``"bad_input_shape"``).  Each stop is placed
    on the ``input:`` name; with ``input_dim`` a bad value shifts the dims of every later input,
    so those are unknown too (from the same cause)."""
    ins = [i for i in graph.inputs if i.style != "Input layer"]
    doc = getattr(graph, "doc", None)
    out: dict[str, ShapeStop] = {}
    if not ins or doc is None:
        return out
    shapes, dims = _top_level_blocks(doc)
    if doc.errors and (shapes or dims):
        li = doc.line_index
        for err in doc.errors:
            off = li.offset(err.range.start)
            line = err.range.start.line + 1
            k = next((j for j, n in enumerate(shapes) if n[7] <= off < max(n[8], n[7] + 1)), None)
            if k is not None and ins[0].style == "input_shape":
                path, _ = _field_path(shapes[k], off)
                targets = ins[k:k + 1] if len(shapes) > 1 or len(ins) == 1 else []
                detail = ".".join(("input_shape", path)) if path else "input_shape"
            else:
                hit = next((c for n, c in dims if n[7] <= off < max(n[8], n[7] + 1)), None)
                if hit is None or ins[0].style != "input_dim":
                    continue
                targets, detail = ins[hit // 4:], "input_dim"
            for inp in targets[:1]:
                if inp.name not in out:
                    out[inp.name] = ShapeStop("unread_input", None, blob=inp.name, detail=detail, code=err.code,
                                              range=inp.range, params=(("line", line),))
            for inp in targets[1:]:
                out.setdefault(inp.name, out[targets[0].name])
    for inp in ins:
        if inp.name not in out and inp.shape is not None and any(d < 0 for d in inp.shape):
            out[inp.name] = ShapeStop("bad_input_shape", None, blob=inp.name, range=inp.range,
                                      detail="×".join(map(str, inp.shape)))
    return out


def _layer_stop(gl: "GraphLayer", unread: dict[int, ShapeStop]) -> ShapeStop | None:
    """Why ``gl``'s outputs cannot be inferred whatever its inputs (``None``: its rule may run)."""
    from nnie_lsp.readers.prototxt.layers import is_data_layer, lookup

    if gl.type not in SHAPE_RULES and lookup(gl.type) is None:
        return ShapeStop("unknown_type", gl.index, detail=gl.type)
    if gl.index in unread:
        return unread[gl.index]
    if gl.type in SHAPE_RULES:
        return None
    if gl.type == "Python" and not gl.source.is_v1:
        p = gl.param.python_param
        return ShapeStop("python", gl.index, detail=".".join(x for x in (p.module, p.layer) if x) or "?")
    if is_data_layer(gl.type) and not gl.bottoms:
        return ShapeStop("data", gl.index, detail=gl.type)
    return ShapeStop("no_rule", gl.index, detail=gl.type)


def infer_shapes(graph: "NetGraph", input_shapes: "Mapping[str, Shape | None] | None" = None) -> ShapeInference:
    """Shapes of every blob of ``graph``.  ``input_shapes`` replaces the declared shape of the
    net inputs it names (:func:`declared_inputs`: top-level inputs and the tops of Input,
    DummyData and MemoryData layers), e.g. to ask what the net would compute with another batch."""
    overrides = dict(input_shapes or {})
    res = ShapeInference({}, {}, [], [], [])
    blobs, stops = res.blobs, res.stops
    origin: dict[str, int] = {}  # unknown blob -> index in stops of the stop that left it unknown
    reached: set[int] = set()
    bad_inputs = unread_inputs(graph)
    for inp in graph.inputs:
        if inp.style == "Input layer":
            continue
        if inp.name in overrides:
            blobs[inp.name] = overrides[inp.name]
        elif inp.name in bad_inputs:  # partly read: unknown, never a shape from what was left
            blobs[inp.name] = None
            stop = bad_inputs[inp.name]
            if stop.blob in origin:  # an earlier input's cause (input_dim shifted by a bad value)
                origin[inp.name] = origin[stop.blob]
            else:
                origin[inp.name] = len(stops)
                stops.append(stop)
            continue
        else:
            blobs[inp.name] = inp.shape
        if blobs[inp.name] is None:
            origin[inp.name] = len(stops)
            stops.append(ShapeStop("no_input_shape", None, blob=inp.name, range=inp.range))
    unread = unread_layers(graph)
    for gl in graph.layers:
        ins = [blobs.get(b) for b in gl.bottoms]
        unknown_from = None  # the stop index an unknown input comes from
        for b, s in zip(gl.bottoms, ins):
            if s is not None:
                continue
            if b not in origin:  # read but never written nor declared
                origin[b] = len(stops)
                stops.append(ShapeStop("undefined", gl.index, blob=b))
            reached.add(origin[b])
            if unknown_from is None:
                unknown_from = origin[b]
        tops, stop = _layer_tops(gl, ins, overrides, unread, res)
        if stop is not None and (unknown_from is None or stop.kind != "rule"):
            # a cause of its own (a "rule" stop behind an unknown input is only that input)
            unknown_from = len(stops)
            stops.append(stop)
        elif unknown_from is not None:
            tops = [None] * len(gl.tops)
        res.layer_tops[gl.index] = tuple(tops)
        for t, s in zip(gl.tops, tops):
            blobs[t] = s
            if s is None and unknown_from is not None:
                origin[t] = unknown_from
            else:
                origin.pop(t, None)
    for k in reached:
        stops[k] = stops[k]._replace(reached=True)
    return res


def _layer_tops(gl, ins, overrides, unread, res) -> tuple[list[Shape | None], ShapeStop | None]:
    """The tops of one layer, and the stop when they are unknown for a reason of its own."""
    n = len(gl.tops)
    if gl.type in INPUT_LAYER_TYPES and gl.index not in unread:
        tops = declared_tops(gl)
        tops = [overrides.get(t, s) if t in overrides else s for t, s in zip(gl.tops, tops)]
        if all(s is not None for s in tops):
            return tops, None
        kind = "no_input_param" if gl.type == "Input" and not gl.param.HasField("input_param") else "rule"
        res.notes.append((gl.index, f"{gl.type} layer without a shape for every top"))
        return tops, _rule_stop(gl, "no_shape_every_top", kind, type=gl.type)
    stop = _layer_stop(gl, unread)
    if stop is not None:
        res.notes.append((gl.index, f"{stop.kind}: {stop.detail}"))
        # a layer that cannot be set up is reported (NN021) even when its shape is unknown
        if stop.kind == "unread" or gl.type not in SHAPE_RULES:
            return [None] * n, stop
    rule = SHAPE_RULES[gl.type]
    try:
        tops = list(rule(gl, ins))
    except ShapeProblem as problem:
        res.notes.append((gl.index, str(problem)))
        res.problems.append(problem)
        return [None] * n, ShapeStop("problem", gl.index, detail=problem.kind)
    except _Unknown as e:
        res.notes.append((gl.index, str(e)))
        return [None] * n, _rule_stop(gl, e.key, **e.params)
    except (ValueError, ZeroDivisionError, IndexError, OverflowError, AttributeError) as e:
        res.notes.append((gl.index, f"{type(e).__name__}: {e}"))
        return [None] * n, _rule_stop(gl, "error", error=f"{type(e).__name__}: {e}")
    tops += [None] * (n - len(tops))
    bad = next((t for t in tops if t is not None and any(d < 0 for d in t)), None)
    if bad is not None or any(t is None for t in tops[:n]):
        if bad is not None:
            stop = _rule_stop(gl, "not_positive", shape="×".join(map(str, bad)))
        else:
            stop = _rule_stop(gl, "input_unknown" if any(s is None for s in ins) else "top_unknown")
        res.notes.append((gl.index, stop.detail))
        return [None] * n, stop
    return tops[:n], None


def _rule_stop(gl, reason: str, kind: str = "rule", **params) -> ShapeStop:
    """A ``"rule"`` stop at ``gl``: the English ``detail`` and the reason's key and values."""
    return ShapeStop(kind, gl.index, detail=REASONS[reason].format(**params), reason=reason,
                     params=tuple(params.items()))

"""Every matched layer against its ONNX node(s): picks the check of the layer's kind
(:mod:`.geometry`, :mod:`.layout`, :mod:`.weights`, element-wise functions by value with
:mod:`.functions`), reports ONNX nodes the converter dropped and layers it could not match."""

from __future__ import annotations

import numpy as np

from nnie_lsp.conversion import geometry, layout, weights as wcheck
from nnie_lsp.conversion.findings import Finding
from nnie_lsp.conversion.functions import NotElementwise, caffe_eval, describe_onnx, onnx_eval
from nnie_lsp.conversion.matching import COUNTERPARTS, ELEMENTWISE_CAFFE, FOLDABLE, ONNX_NO_OPS, match

#: largest |difference| of two element-wise functions on the probes that still counts as equal
FUNCTION_TOL = 1e-4
AUXILIARY = {"InnerProduct": ("Flatten", "Reshape", "Add"), "Flatten": ("Reshape", "Flatten"),
             "Reshape": ("Reshape", "Flatten", "Squeeze", "Unsqueeze")}


def _blobs(weights, name):
    from nnie_lsp.readers.prototxt.layers import base_layer_name
    return weights.get(name) or weights.get(base_layer_name(name)) or []


def check_all(project, og, weights) -> list[Finding]:
    graph, doc = project.graph, project.prototxt
    try:
        shapes = graph.blob_shapes()
    except Exception:  # shape inference is best effort
        shapes = {}
    matching = match(graph, og)
    out: list[Finding] = []
    strided = _strided_slices(matching, og)
    out += strided.values()
    for layer, why in matching.unmatched:
        if layer.name not in strided:
            out.append(Finding("NN501", why, layer.name, ("name",), dict(layer=layer.name, type=layer.type)))
    for m in matching.matches:
        found = [f for f in _check_layer(m, og, weights, shapes, doc)
                 if not (f.code == "NN501" and f.layer in strided)]
        label = ", ".join(n.label for n in m.nodes) or "(none)"
        out += [f.__class__(**{**f.__dict__, "onnx": label, "how": m.confidence}) for f in found]
    return out


def _steps(og, node) -> list[int]:
    """An ONNX Slice's steps (its fifth input, or the ``steps`` attribute of old opsets)."""
    if node.op != "Slice":
        return []
    if len(node.inputs) > 4 and node.inputs[4]:
        c = og.const(node.inputs[4])
        return [int(v) for v in np.asarray(c).reshape(-1)] if c is not None else []
    return [int(v) for v in node.attrs.get("steps", ())]


def _strided_slices(matching, og) -> dict[str, Finding]:
    """Caffe Slice layers whose input the ONNX model reads with strided Slices (steps ≠ 1): a Caffe
    Slice cuts contiguous parts, so it computes another function (YOLOv5's Focus as quadrants)."""
    out: dict[str, Finding] = {}
    layers = [layer for layer, _ in matching.unmatched] + [g for m in matching.matches for g in m.group] + \
             [m.layer for m in matching.matches]
    for layer in layers:
        if layer.type != "Slice" or not layer.bottoms or layer.name in out:
            continue
        t = matching.blob_tensor.get(layer.bottoms[0])
        nodes = [og.nodes[i] for i in og.consumers.get(t, [])] if t else []
        hit = [(n, s) for n in nodes for s in _steps(og, n) if abs(s) != 1]
        if hit:
            axes = og.const(hit[0][0].inputs[3]) if len(hit[0][0].inputs) > 3 and hit[0][0].inputs[3] else None
            axis = int(np.asarray(axes).reshape(-1)[0]) if axes is not None else 0
            out[layer.name] = Finding("NN506", "strided", layer.name, ("slice_param",),
                                      dict(layer=layer.name, step=abs(hit[0][1]), axis=axis,
                                           nodes=describe_onnx(og, [n for n, _ in hit][:4])))
    return out


def _core(m):
    wanted = COUNTERPARTS.get(m.layer.type, ())
    return next((n for n in reversed(m.nodes) if n.op in wanted and n.op not in FOLDABLE), None) \
        or next((n for n in reversed(m.nodes) if n.op in wanted), None)


def _check_layer(m, og, weights, shapes, doc) -> list[Finding]:
    layer = m.layer
    unchecked: list[Finding] = []
    if layer.type in ELEMENTWISE_CAFFE or m.group:
        res = _elementwise(m, og, weights)
        if res is not None:
            return res
        # layers before it with no ONNX node of their own that are not part of one function: said
        unchecked = [Finding("NN501", "no_candidate", g.name, ("name",), dict(layer=g.name, type=g.type))
                     for g in m.group]
    core = _core(m)
    if core is None:
        return unchecked + [Finding("NN501", "type", layer.name, ("type",),
                        dict(layer=layer.name, type=layer.type, ops=describe_onnx(og, m.nodes)))]
    out = unchecked + _dropped(m, core, og)
    if not _inputs_agree(m, og, shapes):
        # an input already differs in shape (a fault upstream): shape-derived checks would only
        # repeat it, so only what does not depend on the input's shape is checked
        shapes = {}
    t = layer.type
    blobs = _blobs(weights, layer.name)
    if t in ("Convolution", "DepthwiseConvolution") and core.op == "Conv":
        out += geometry.check_conv(m, core, og) + wcheck.check_conv(m, core, og, blobs)
    elif t == "Pooling":
        out += geometry.check_pool(m, core, og, shapes)
    elif core.op in ("Resize", "Upsample"):
        out += layout.check_resize(m, core, og, weights, doc)
    elif t == "InnerProduct":
        out += wcheck.check_inner_product(m, core, og, blobs)
    elif t == "BatchNorm":
        partner = m.partner
        out += wcheck.check_batchnorm(m, core, og, blobs, partner,
                                      _blobs(weights, partner.name) if partner is not None else None)
    elif t in ("Concat", "Slice", "Softmax", "Flatten", "Reshape", "Permute"):
        out += layout.check_axis(m, core, og, shapes)
    return out


def _inputs_agree(m, og, shapes) -> bool:
    for blob, t in zip(m.layer.bottoms, m.inputs):
        ours, theirs = shapes.get(blob), og.shape(t) if t else None
        if ours is not None and theirs is not None and tuple(ours) != tuple(theirs):
            return False
    return True


def _dropped(m, core, og) -> list[Finding]:
    allowed = set(AUXILIARY.get(m.layer.type, ())) | ONNX_NO_OPS | FOLDABLE
    extra = [n for n in m.nodes if n is not core and n.op not in allowed]
    if not extra:
        return []
    feeds = {t for n in extra for t in n.inputs}
    idx = next((i for i, t in enumerate(m.inputs) if t in feeds), None)
    where = ("bottom", idx) if idx is not None and idx < len(m.layer.bottoms) else ("type",)
    return [Finding("NN505", "dropped", m.layer.name, where,
                    dict(ops=describe_onnx(og, extra), layer=m.layer.name))]


def _elementwise(m, og, weights) -> list[Finding] | None:
    """None when the layers are not element-wise (the other checks then run)."""
    layers = list(m.group) + [m.layer]
    produced = {t for g in layers for t in g.tops if not g.in_place}
    external = [b for g in layers for b in g.bottoms if b not in produced]
    if len(set(external)) != 1 or not m.inputs or m.inputs[0] is None:
        return None
    shape = og.shape(m.inputs[0])
    channels = shape[1] if shape and len(shape) >= 2 else 1
    try:
        theirs = onnx_eval(og, m.nodes, m.inputs[0], channels)
        ours = caffe_eval(layers, external[0], channels, lambda name: _blobs(weights, name))
    except (NotElementwise, ValueError, FloatingPointError):
        return None
    with np.errstate(invalid="ignore"):
        diff = np.abs(np.asarray(ours, np.float64) - np.asarray(theirs, np.float64))
    diff = np.nan_to_num(diff, nan=np.inf)
    worst = float(diff.max()) if diff.size else 0.0
    if worst <= FUNCTION_TOL * max(1.0, float(np.max(np.abs(theirs)))):
        return []
    from nnie_lsp.conversion.functions import PROBES
    at = float(PROBES[int(np.argmax(diff)) % len(PROBES)])
    return [Finding("NN505", "function", m.layer.name, ("type",),
                    dict(onnx=describe_onnx(og, m.nodes), caffe=" → ".join(g.type for g in layers),
                         diff=f"{worst:.4g}", x=f"{at:g}"))]

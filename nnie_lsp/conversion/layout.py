"""Upsample/Resize mode and scale, and the axes and shapes of Concat, Slice, Softmax, Flatten,
Reshape and Permute, of a converted layer against its ONNX node.

Facts (docs/field-facts.md §17.3, §17.5): ONNX Resize ``mode`` is nearest (default), linear or
cubic, its scale comes from ``scales`` or ``sizes``; opset 7–9 Upsample has the same modes.  The
Caffe Upsample of darknet2caffe and SegNet repeats pixels (nearest), Interp is bilinear, a
Deconvolution is whatever its weights are.  ONNX Softmax before opset 13 flattens the input to
2-D at ``axis`` (default 1); from 13 it normalises one axis (default -1); Caffe's normalises one
axis (default 1).  Negative axes count from the end on both sides.
"""

from __future__ import annotations

import numpy as np

from nnie_lsp.conversion.findings import FieldFix, Finding


def _scale_of(node, og) -> tuple[float, float] | None:
    if node.op == "Upsample":
        sc = og.const(node.inputs[1]) if len(node.inputs) > 1 else np.asarray(node.attrs.get("scales", ()))
    else:
        sc = og.const(node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else None
        if (sc is None or not sc.size) and len(node.inputs) > 3 and node.inputs[3]:
            sizes, shape = og.const(node.inputs[3]), og.shape(node.inputs[0])
            if sizes is None or shape is None:
                return None
            return float(sizes[2]) / shape[2], float(sizes[3]) / shape[3]
    if sc is None or len(sc) != 4:
        return None
    return float(sc[2]), float(sc[3])


def _deconv_mode(m, weights) -> str:
    w = weights.get(m.layer.name)
    if not w:
        return "unknown (no weights)"
    k = np.asarray(w[0])
    if k.ndim == 4 and np.allclose(k, k.flat[0]):
        return "nearest"
    return "bilinear" if k.ndim == 4 and k.shape[2] > 1 else "unknown"


def _fork_fields(doc, layer) -> list[str]:
    """Fields inside the layer the schema does not know (a converter fork's), from the parse errors."""
    src = layer.source.node.range
    names = []
    for err in doc.errors:
        r = err.range
        if src.start <= r.start and r.end <= src.end:
            a, b = doc.line_index.offset(r.start), doc.line_index.offset(r.end)
            word = doc.text[a:b]
            if word.isidentifier():
                names.append(word)
    return names


def check_resize(m, node, og, weights, doc) -> list[Finding]:
    layer, out = m.layer, []
    mode = node.attrs.get("mode", "nearest")
    onnx_mode = "nearest" if mode == "nearest" else ("bilinear" if mode == "linear" else mode)
    scale = _scale_of(node, og)
    if layer.type == "Upsample":
        caffe_mode = "nearest"
        up = layer.param.upsample_param
        cs = (up.scale_h or up.scale, up.scale_w or up.scale)
        where = ("upsample_param", "scale")
    elif layer.type == "Interp":
        caffe_mode, ip = "bilinear", layer.param.interp_param
        cs = (float(ip.zoom_factor), float(ip.zoom_factor))
        where = ("interp_param", "zoom_factor")
    else:  # Deconvolution
        caffe_mode = _deconv_mode(m, weights)
        cp = layer.param.convolution_param
        s = int(cp.stride[0]) if len(cp.stride) else int(cp.stride_h or 1)
        cs, where = (s, s), ("convolution_param", "stride")
    fork = _fork_fields(doc, layer) if layer.type == "Upsample" else []
    onnx_txt = f"{node.op} {onnx_mode} ×{_num(scale[0])}" if scale else f"{node.op} {onnx_mode}"
    if fork:
        fields = (("scale", str(int(scale[0]))),) if scale and scale[0] == scale[1] and scale[0].is_integer() else ()
        out.append(Finding("NN504", "fork", layer.name, ("upsample_param",),
                           dict(fields=", ".join(fork), onnx=onnx_txt),
                           FieldFix("upsample_param", fields, replace_block=True) if fields else None,
                           "fix_fork" if fields else None))
        return out
    if caffe_mode != onnx_mode:
        out.append(Finding("NN504", "mode", layer.name, ("type",),
                           dict(caffe=f"{layer.type} ({caffe_mode})", onnx=onnx_txt)))
    if scale and tuple(float(c) for c in cs) != scale:
        fix = None
        if layer.type == "Upsample" and scale[0] == scale[1] and scale[0].is_integer():
            fix = FieldFix("upsample_param", (("scale", str(int(scale[0]))),), ("scale_h", "scale_w"))
        out.append(Finding("NN504", "scale", layer.name, where,
                           dict(caffe="×".join(_num(c) for c in cs), onnx=onnx_txt), fix,
                           "fix_scale" if fix else None))
    return out


def _num(v) -> str:
    return f"{float(v):g}"


def _norm(axis: int, rank: int | None) -> int | None:
    if axis >= 0:
        return axis
    return axis + rank if rank else None


def check_axis(m, node, og, shapes) -> list[Finding]:
    layer = m.layer
    rank = len(og.shape(m.inputs[0]) or ()) if m.inputs and m.inputs[0] else 0
    if layer.type == "Concat":
        cp = layer.param.concat_param
        caffe = cp.axis if cp.HasField("axis") else (cp.concat_dim if cp.HasField("concat_dim") else 1)
        onnx = node.attrs.get("axis", 0)
        block = "concat_param"
    elif layer.type == "Slice":
        sp = layer.param.slice_param
        caffe = sp.axis if sp.HasField("axis") else (sp.slice_dim if sp.HasField("slice_dim") else 1)
        onnx = node.attrs.get("axis", 0)
        block = "slice_param"
    elif layer.type == "Softmax":
        sp = layer.param.softmax_param
        caffe = sp.axis if sp.HasField("axis") else 1
        onnx = node.attrs.get("axis", 1 if og.opset < 13 else -1)
        block = "softmax_param"
        shape = og.shape(m.inputs[0]) if m.inputs and m.inputs[0] else None
        n_onnx = _norm(onnx, rank)
        if og.opset < 13 and shape and n_onnx is not None and any(d != 1 for d in shape[n_onnx + 1:]):
            return [Finding("NN506", "softmax_2d", layer.name, (block, "axis"),
                            dict(axis=onnx, opset=og.opset, shape="×".join(map(str, shape))))]
    else:
        return check_shape(m, og, shapes)
    a, b = _norm(caffe, rank), _norm(onnx, rank)
    if a is not None and b is not None and a != b:
        return [Finding("NN506", "axis", layer.name, (block, "axis"),
                        dict(type=layer.type, caffe=caffe, onnx=onnx, op=node.op),
                        FieldFix(block, (("axis", str(b)),)), "fix_axis")]
    if layer.type == "Slice" and node.op == "Split" and a == b:
        return _check_split(m, node, og)
    return []


def _check_split(m, node, og) -> list[Finding]:
    sizes = og.const(node.inputs[1]) if len(node.inputs) > 1 and node.inputs[1] else node.attrs.get("split")
    if sizes is None:
        return []
    points = [int(p) for p in np.cumsum([int(s) for s in sizes])[:-1]]
    caffe = [int(p) for p in m.layer.param.slice_param.slice_point]
    if caffe and caffe != points:
        return [Finding("NN506", "slice_points", m.layer.name, ("slice_param", "slice_point"),
                        dict(caffe=", ".join(map(str, caffe)), onnx=", ".join(map(str, points))))]
    return []


def check_shape(m, og, shapes) -> list[Finding]:
    """Flatten, Reshape, Permute: the top's shape (Caffe's shape inference) against ONNX's."""
    layer = m.layer
    theirs = og.shape(m.outputs[0]) if m.outputs else None
    ours = shapes.get(layer.tops[0]) if layer.tops else None
    if theirs is None or ours is None or tuple(theirs) == tuple(ours):
        return []
    block = {"Flatten": ("flatten_param", "axis"), "Reshape": ("reshape_param", "shape"),
             "Permute": ("permute_param", "order")}.get(layer.type, ("type",))
    return [Finding("NN506", "shape", layer.name, block,
                    dict(type=layer.type, caffe="×".join(map(str, ours)), onnx="×".join(map(str, theirs)),
                         op=m.nodes[-1].op))]

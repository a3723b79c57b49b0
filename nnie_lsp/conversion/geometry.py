"""Convolution and pooling geometry of a converted layer against its ONNX node: kernel, stride,
pads (asymmetric ones included), dilation, group, pooling rounding and averaging.

ONNX ``pads`` are ``[x1_begin, x2_begin, x1_end, x2_end]`` and ``auto_pad`` SAME_UPPER puts the
odd pad at the end; MaxPool/AveragePool round down unless ``ceil_mode`` is 1; AveragePool leaves
the padding out of the average unless ``count_include_pad`` is 1.  Caffe pads symmetrically,
rounds pooling up unless ``round_mode: FLOOR`` and averages over the padded window.
docs/field-facts.md §17.1–§17.2.
"""

from __future__ import annotations

import math

from nnie_lsp.conversion.findings import FieldFix, Finding


def _pair(values, h, w, default):
    """(h, w) of a Caffe field given as repeated values (convolution) or one value (pooling)."""
    vals = ([values] if values else []) if isinstance(values, int) else [int(v) for v in values]
    if h or w:
        return int(h or default), int(w or default)
    if not vals:
        return default, default
    return (vals[0], vals[0]) if len(vals) == 1 else (vals[0], vals[1])


def onnx_pads(node, in_shape, kernel, strides, dilations) -> tuple[int, int, int, int] | None:
    """(top, left, bottom, right); None when ``auto_pad`` needs a shape that is unknown."""
    auto = node.attrs.get("auto_pad", "NOTSET")
    if auto in ("NOTSET", "", "VALID"):
        p = tuple(node.attrs.get("pads", (0, 0, 0, 0))) if auto != "VALID" else (0, 0, 0, 0)
        return p if len(p) == 4 else None
    if in_shape is None:
        return None
    begin, end = [], []
    for size, k, s, d in zip(in_shape[2:], kernel, strides, dilations):
        total = max((math.ceil(size / s) - 1) * s + (k - 1) * d + 1 - size, 0)
        small, big = total // 2, total - total // 2
        begin.append(small if auto == "SAME_UPPER" else big)
        end.append(big if auto == "SAME_UPPER" else small)
    return (begin[0], begin[1], end[0], end[1])


def _check_pads(m, param_name, pads_caffe, pads_onnx, kind) -> list[Finding]:
    if pads_onnx is None:
        return []
    top, left, bottom, right = pads_onnx
    ph, pw = pads_caffe
    if (top, left) != (bottom, right):
        return [Finding("NN502", "asym_pads", m.layer.name, (param_name, "pad"),
                        dict(kind=kind, top=top, left=left, bottom=bottom, right=right, ph=ph, pw=pw))]
    if (ph, pw) == (top, left):
        return []
    fields = (("pad", str(top)),) if top == left else (("pad_h", str(top)), ("pad_w", str(left)))
    remove = ("pad_h", "pad_w") if top == left else ("pad",)
    return [Finding("NN502", "pads", m.layer.name, (param_name, "pad"),
                    dict(kind=kind, ph=ph, pw=pw, oh=top, ow=left),
                    FieldFix(param_name, fields, remove), "fix_pads")]


def _mismatch(m, param_name, field, what, caffe, onnx) -> Finding:
    return Finding("NN502", "geometry", m.layer.name, (param_name, field),
                   dict(what=what, caffe=_txt(caffe), onnx=_txt(onnx)))


def _txt(v) -> str:
    v = tuple(v) if isinstance(v, (tuple, list)) else (v,)
    return str(v[0]) if len(set(v)) == 1 else "×".join(str(x) for x in v)


def check_conv(m, node, og) -> list[Finding]:
    cp = m.layer.param.convolution_param
    w = og.const(node.inputs[1]) if len(node.inputs) > 1 else None
    kernel = tuple(node.attrs.get("kernel_shape") or (w.shape[2:] if w is not None else ()))
    out: list[Finding] = []
    if len(kernel) != 2:
        return out
    kh, kw = _pair(cp.kernel_size, cp.kernel_h, cp.kernel_w, 1)
    if (kh, kw) != kernel:
        out.append(_mismatch(m, "convolution_param", "kernel_size", "kernel", (kh, kw), kernel))
    strides = tuple(node.attrs.get("strides", (1, 1)))
    if _pair(cp.stride, cp.stride_h, cp.stride_w, 1) != strides:
        out.append(_mismatch(m, "convolution_param", "stride", "stride",
                             _pair(cp.stride, cp.stride_h, cp.stride_w, 1), strides))
    dil = tuple(node.attrs.get("dilations", (1, 1)))
    if _pair(cp.dilation, 0, 0, 1) != dil:
        out.append(_mismatch(m, "convolution_param", "dilation", "dilation", _pair(cp.dilation, 0, 0, 1), dil))
    group = int(node.attrs.get("group", 1))
    if (cp.group or 1) != group:
        out.append(_mismatch(m, "convolution_param", "group", "group", cp.group or 1, group))
    pads = onnx_pads(node, og.shape(m.inputs[0]) if m.inputs and m.inputs[0] else None, kernel, strides, dil)
    out += _check_pads(m, "convolution_param", _pair(cp.pad, cp.pad_h, cp.pad_w, 0), pads, "Conv")
    return out


def _pool_size(size, k, pb, pe, s, ceil):
    span = size + pb + pe - k
    n = (-(-span // s) if ceil else span // s) + 1
    if ceil and pb and (n - 1) * s >= size + pb:  # Caffe: the last window must start inside the image
        n -= 1
    return n


def check_pool(m, node, og, shapes) -> list[Finding]:
    pp = m.layer.param.pooling_param
    out: list[Finding] = []
    is_max = node.op in ("MaxPool", "GlobalMaxPool")
    if (pp.pool == pp.MAX) != is_max:
        out.append(Finding("NN503", "method", m.layer.name, ("pooling_param", "pool"),
                           dict(caffe="MAX" if pp.pool == pp.MAX else "AVE", onnx=node.op)))
    in_shape = og.shape(m.inputs[0]) if m.inputs and m.inputs[0] else None
    if node.op.startswith("Global"):
        k = _pair(pp.kernel_size, pp.kernel_h, pp.kernel_w, 0)
        if not pp.global_pooling and in_shape is not None and k != tuple(in_shape[2:]):
            out.append(_mismatch(m, "pooling_param", "kernel_size", "kernel (ONNX pools the whole map)", k,
                                 tuple(in_shape[2:])))
        return out
    if pp.global_pooling:
        return out
    kernel = tuple(node.attrs["kernel_shape"])
    k = _pair(pp.kernel_size, pp.kernel_h, pp.kernel_w, 1)
    if k != kernel:
        out.append(_mismatch(m, "pooling_param", "kernel_size", "kernel", k, kernel))
    strides = tuple(node.attrs.get("strides", (1, 1)))
    s = _pair(pp.stride, pp.stride_h, pp.stride_w, 1)
    if s != strides:
        out.append(_mismatch(m, "pooling_param", "stride", "stride", s, strides))
    pads = onnx_pads(node, in_shape, kernel, strides, (1, 1))
    out += _check_pads(m, "pooling_param", _pair(pp.pad, pp.pad_h, pp.pad_w, 0), pads, node.op)
    caffe_ceil = pp.round_mode == pp.CEIL
    onnx_ceil = bool(node.attrs.get("ceil_mode", 0))
    if caffe_ceil != onnx_ceil and pads is not None:
        caffe_in = shapes.get(m.layer.bottoms[0]) if m.layer.bottoms else None
        size = tuple(caffe_in[2:]) if caffe_in and len(caffe_in) == 4 else (tuple(in_shape[2:]) if in_shape else None)
        if size is None:
            differ, sizes = True, None
        else:
            c = tuple(_pool_size(size[i], kernel[i], pads[i], pads[i + 2], strides[i], caffe_ceil) for i in (0, 1))
            o = tuple(_pool_size(size[i], kernel[i], pads[i], pads[i + 2], strides[i], onnx_ceil) for i in (0, 1))
            differ, sizes = c != o, (c, o)
        if differ:
            params = dict(size="×".join(map(str, size)) if size else "?",
                          caffe_out="×".join(map(str, sizes[0])) if sizes else "?",
                          onnx_out="×".join(map(str, sizes[1])) if sizes else "?")
            if onnx_ceil:
                out.append(Finding("NN503", "ceil", m.layer.name, ("pooling_param", "round_mode"), params,
                                   FieldFix("pooling_param", remove=("round_mode",)), "fix_ceil"))
            else:
                # no fix: round_mode: FLOOR would make Caffe agree with ONNX but not the NNIE wk,
                # which always rounds up (NN018); only a geometry where both roundings agree ports
                out.append(Finding("NN503", "floor" if sizes else "floor_unknown", m.layer.name,
                                   ("pooling_param", "round_mode"), params))
    if not is_max and pads and any(pads) and not node.attrs.get("count_include_pad", 0):
        out.append(Finding("NN503", "avg_pad", m.layer.name, ("pooling_param", "pad"), {}))
    return out

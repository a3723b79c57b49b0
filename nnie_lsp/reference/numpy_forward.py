"""A small Caffe forward pass in numpy, with hooks for NNIE-style quantization.

Covers the layer types of typical NNIE nets: Convolution (group, dilation, pad, stride),
Deconvolution, InnerProduct, Pooling (MAX/AVE, Caffe ceil rounding, global), ReLU (leaky), PReLU,
Sigmoid, TanH, Softmax, BatchNorm, Scale, Bias, Eltwise, Concat, Flatten, Reshape, Permute,
Dropout, Split, Power, Upsample (nearest), Normalize, and the layers converters write that OpenCV's
Caffe importer cannot create: Clip (``clip_param``), ReLU6 (a type with no fields in the schema:
min 0, max 6), Slice (``slice_param``: ``axis``/``slice_dim``, ``slice_point`` or equal parts).
It is checked against OpenCV's Caffe importer in the tests; it exists so that quantization can be
inserted between layers (OpenCV cannot), and it is the Caffe reference of nets OpenCV cannot load
(:func:`nnie_lsp.reference.caffe_forward.reference_engine`).
"""

from __future__ import annotations

from typing import Callable, Iterable

import numpy as np

from nnie_lsp.reference.net import CaffeNet, LayerDef
from nnie_lsp.reference.blas import one_blas_thread


class UnsupportedLayer(ValueError):
    pass


def _pair(values: Iterable[int], h_field: int, w_field: int, default: int) -> tuple[int, int]:
    vals = list(values)
    if h_field or w_field:
        return int(h_field or default), int(w_field or default)
    if not vals:
        return default, default
    if len(vals) == 1:
        return int(vals[0]), int(vals[0])
    return int(vals[0]), int(vals[1])


def conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride, pad, dilation, group: int) -> np.ndarray:
    """Caffe's convolution, accumulated in float64: one matrix product per kernel tap (all groups
    at once), a broadcast product for depthwise layers (one input channel per group)."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    sh, sw = stride
    ph, pw = pad
    dh, dw = dilation
    xp = np.zeros((n, c, h + 2 * ph, wd + 2 * pw))
    xp[:, :, ph:ph + h, pw:pw + wd] = x
    oh = (h + 2 * ph - ((kh - 1) * dh + 1)) // sh + 1
    ow = (wd + 2 * pw - ((kw - 1) * dw + 1)) // sw + 1
    og = o // group
    xg = xp.reshape(n, group, cg, xp.shape[2], xp.shape[3])
    wg = np.asarray(w, dtype=np.float64).reshape(group, og, cg, kh, kw)
    y = np.zeros((n, group, og, max(oh, 0), max(ow, 0)))
    for i in range(kh):
        for j in range(kw):
            tap = xg[:, :, :, i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw]
            if cg == 1:  # depthwise: each output channel scales its group's one input channel
                y += tap * wg[None, :, :, 0, i, j, None, None]
            else:
                y += np.matmul(wg[:, :, :, i, j], tap.reshape(n, group, cg, oh * ow)).reshape(y.shape)
    y = y.reshape(n, o, oh, ow)
    if b is not None:
        y = y + b.reshape(1, -1, 1, 1)
    return y.astype(np.float32)


def deconv2d(x, w, b, stride, pad, dilation, group):
    n, c, h, wd = x.shape
    cin, og, kh, kw = w.shape
    sh, sw = stride
    ph, pw = pad
    dh, dw = dilation
    oh = (h - 1) * sh - 2 * ph + dh * (kh - 1) + 1
    ow = (wd - 1) * sw - 2 * pw + dw * (kw - 1) + 1
    full = np.zeros((n, og * group, (h - 1) * sh + dh * (kh - 1) + 1, (wd - 1) * sw + dw * (kw - 1) + 1))
    cg = c // group
    for g in range(group):
        xs = x[:, g * cg:(g + 1) * cg].astype(np.float64)
        ws = w[g * cg:(g + 1) * cg].astype(np.float64)
        contrib = np.einsum("nchw,coij->nohwij", xs, ws)
        for i in range(kh):
            for j in range(kw):
                full[:, g * og:(g + 1) * og, i * dh:i * dh + (h - 1) * sh + 1:sh,
                     j * dw:j * dw + (wd - 1) * sw + 1:sw] += contrib[..., i, j]
    y = full[:, :, ph:ph + oh, pw:pw + ow]
    if b is not None:
        y = y + b.reshape(1, -1, 1, 1)
    return y.astype(np.float32)


def pool2d(x: np.ndarray, p) -> np.ndarray:
    n, c, h, w = x.shape
    if p.global_pooling:
        kh, kw = h, w
    else:
        kh, kw = _pair([p.kernel_size] if p.kernel_size else [], p.kernel_h, p.kernel_w, 1)
    sh, sw = _pair([p.stride] if p.HasField("stride") else [], p.stride_h, p.stride_w, 1)
    ph, pw = _pair([p.pad] if p.pad else [], p.pad_h, p.pad_w, 0)
    if p.global_pooling:
        sh = sw = 1
        ph = pw = 0
    ceil_mode = not (p.HasField("round_mode") and p.round_mode == 1) if hasattr(p, "round_mode") else True
    if ceil_mode:
        oh = int(np.ceil((h + 2 * ph - kh) / sh)) + 1
        ow = int(np.ceil((w + 2 * pw - kw) / sw)) + 1
    else:
        oh = (h + 2 * ph - kh) // sh + 1
        ow = (w + 2 * pw - kw) // sw + 1
    if ph or pw:
        if (oh - 1) * sh >= h + ph:
            oh -= 1
        if (ow - 1) * sw >= w + pw:
            ow -= 1
    y = np.zeros((n, c, oh, ow), dtype=np.float64)
    is_max = p.pool == 0
    for i in range(oh):
        hs = i * sh - ph
        he = min(hs + kh, h + ph)
        size_h = he - hs
        hs0, he0 = max(hs, 0), min(he, h)
        for j in range(ow):
            ws = j * sw - pw
            we = min(ws + kw, w + pw)
            size = size_h * (we - ws)
            ws0, we0 = max(ws, 0), min(we, w)
            patch = x[:, :, hs0:he0, ws0:we0]
            if is_max:
                y[:, :, i, j] = patch.max(axis=(2, 3))
            else:
                y[:, :, i, j] = patch.sum(axis=(2, 3), dtype=np.float64) / size
    return y.astype(np.float32)


def _softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(np.float32)


def _bcast(v: np.ndarray, ndim: int, axis: int = 1) -> np.ndarray:
    shape = [1] * ndim
    shape[axis] = v.size
    return v.reshape(shape)


#: The layer types :func:`run_layer` runs (the docstring's list; docs/triage/commands.md, the reference).
SUPPORTED = frozenset({
    "Convolution", "Deconvolution", "DepthwiseConvolution", "InnerProduct", "Pooling", "ReLU", "PReLU",
    "Sigmoid", "TanH", "AbsVal", "Power", "Softmax", "BatchNorm", "Scale", "Bias", "Eltwise", "Concat",
    "Flatten", "Reshape", "Permute", "Dropout", "Split", "Silence", "Upsample", "Normalize", "Clip", "ReLU6",
    "Slice"})

WeightHook = Callable[[LayerDef, list[np.ndarray]], list[np.ndarray]]
InputHook = Callable[[LayerDef, str, np.ndarray], np.ndarray]
OutputHook = Callable[[LayerDef, str, np.ndarray], np.ndarray]


def run_layer(layer: LayerDef, inputs: list[np.ndarray], blobs: list[np.ndarray]) -> list[np.ndarray]:
    t = layer.type
    lp = layer.param
    x = inputs[0] if inputs else None
    if t in ("Convolution", "Deconvolution", "DepthwiseConvolution"):
        cp = lp.convolution_param
        kh, kw = _pair(cp.kernel_size, cp.kernel_h, cp.kernel_w, 1)
        stride = _pair(cp.stride, cp.stride_h, cp.stride_w, 1)
        pad = _pair(cp.pad, cp.pad_h, cp.pad_w, 0)
        dil = _pair(cp.dilation, 0, 0, 1)
        group = int(cp.group) if cp.group else 1
        if t == "DepthwiseConvolution":
            group = x.shape[1]
        w = blobs[0]
        b = blobs[1].reshape(-1) if (len(blobs) > 1 and cp.bias_term) else None
        if t == "Deconvolution":
            return [deconv2d(x, w, b, stride, pad, dil, group)]
        return [conv2d(x, w, b, stride, pad, dil, group)]
    if t == "InnerProduct":
        ip = lp.inner_product_param
        axis = ip.axis if ip.HasField("axis") else 1
        lead = int(np.prod(x.shape[:axis]))
        flat = x.reshape(lead, -1).astype(np.float64)
        w = blobs[0].reshape(blobs[0].shape[-2:] if blobs[0].ndim > 2 else blobs[0].shape).astype(np.float64)
        if ip.transpose:
            w = w.T
        y = flat @ w.T
        if len(blobs) > 1 and ip.bias_term:
            y = y + blobs[1].reshape(1, -1)
        return [y.reshape(x.shape[:axis] + (y.shape[-1],)).astype(np.float32)]
    if t == "Pooling":
        return [pool2d(x, lp.pooling_param)]
    if t == "ReLU":
        slope = lp.relu_param.negative_slope
        return [np.where(x > 0, x, x * slope).astype(np.float32)]
    if t == "Clip":  # y = max(min, min(max, x)); both fields `required` in BVLC
        cp = lp.clip_param
        if not (cp.HasField("min") and cp.HasField("max")):
            raise UnsupportedLayer(f"layer {layer.name!r}: Clip needs clip_param {{ min max }} (both required)")
        return [np.clip(x, cp.min, cp.max).astype(np.float32)]
    if t == "ReLU6":  # converter forks' type; no fields in the schema
        return [np.clip(x, 0.0, 6.0).astype(np.float32)]
    if t == "PReLU":
        a = blobs[0].reshape(-1)
        a = _bcast(a, x.ndim) if a.size > 1 else a
        return [np.where(x > 0, x, x * a).astype(np.float32)]
    if t == "Sigmoid":
        return [(1.0 / (1.0 + np.exp(-x.astype(np.float64)))).astype(np.float32)]
    if t == "TanH":
        return [np.tanh(x).astype(np.float32)]
    if t == "AbsVal":
        return [np.abs(x)]
    if t == "Power":
        pp = lp.power_param
        power = pp.power if pp.HasField("power") else 1.0
        scale = pp.scale if pp.HasField("scale") else 1.0
        return [((x * scale + pp.shift) ** power).astype(np.float32)]
    if t == "Softmax":
        axis = lp.softmax_param.axis if lp.softmax_param.HasField("axis") else 1
        return [_softmax(x.astype(np.float64), axis)]
    if t == "BatchNorm":
        mean, var = blobs[0].reshape(-1), blobs[1].reshape(-1)
        sf = float(blobs[2].reshape(-1)[0]) if len(blobs) > 2 else 1.0
        sf = 0.0 if sf == 0 else 1.0 / sf
        eps = lp.batch_norm_param.eps if lp.batch_norm_param.HasField("eps") else 1e-5
        m, v = mean * sf, var * sf
        return [((x - _bcast(m, x.ndim)) / np.sqrt(_bcast(v, x.ndim) + eps)).astype(np.float32)]
    if t in ("Scale", "Bias"):
        if len(inputs) > 1:
            s = inputs[1].reshape(-1)
            return [(x * _bcast(s, x.ndim)).astype(np.float32)]
        if t == "Bias":
            return [(x + _bcast(blobs[0].reshape(-1), x.ndim)).astype(np.float32)]
        y = x * _bcast(blobs[0].reshape(-1), x.ndim)
        if lp.scale_param.bias_term and len(blobs) > 1:
            y = y + _bcast(blobs[1].reshape(-1), x.ndim)
        return [y.astype(np.float32)]
    if t == "Eltwise":
        ep = lp.eltwise_param
        op = ep.operation if ep.HasField("operation") else 1
        if op == 0:
            y = np.prod(np.stack(inputs), axis=0)
        elif op == 2:
            y = np.max(np.stack(inputs), axis=0)
        else:
            coeff = list(ep.coeff) or [1.0] * len(inputs)
            y = sum(c * i.astype(np.float64) for c, i in zip(coeff, inputs))
        return [np.asarray(y, dtype=np.float32)]
    if t == "Concat":
        cp = lp.concat_param
        axis = cp.axis if cp.HasField("axis") else (cp.concat_dim if cp.HasField("concat_dim") else 1)
        return [np.concatenate(inputs, axis=axis)]
    if t == "Flatten":
        fp = lp.flatten_param
        axis = fp.axis if fp.HasField("axis") else 1
        return [x.reshape(x.shape[:axis] + (-1,))]
    if t == "Reshape":
        dims = [int(d) for d in lp.reshape_param.shape.dim]
        shape = [x.shape[i] if d == 0 else d for i, d in enumerate(dims)]
        return [x.reshape(shape)]
    if t == "Permute":
        order = [int(o) for o in lp.permute_param.order]
        order += [i for i in range(x.ndim) if i not in order]
        return [np.ascontiguousarray(np.transpose(x, order))]
    if t == "Slice":
        sp = lp.slice_param
        axis = sp.axis if sp.HasField("axis") else (sp.slice_dim if sp.HasField("slice_dim") else 1)
        axis = axis % x.ndim
        points = [int(p) for p in sp.slice_point]
        if not points:  # equal parts, one per top
            if x.shape[axis] % len(layer.tops):
                raise UnsupportedLayer(f"layer {layer.name!r}: {x.shape[axis]} values on axis {axis} do not split "
                                       f"into {len(layer.tops)} equal parts")
            step = x.shape[axis] // len(layer.tops)
            points = [step * k for k in range(1, len(layer.tops))]
        if len(points) + 1 != len(layer.tops) or points != sorted(points) or points[-1] >= x.shape[axis]:
            raise UnsupportedLayer(f"layer {layer.name!r}: slice_point {points} does not cut axis {axis} "
                                   f"({x.shape[axis]} values) into {len(layer.tops)} tops")
        return [np.ascontiguousarray(part) for part in np.split(x, points, axis=axis)]
    if t in ("Dropout", "Split", "Silence"):
        return [x for _ in layer.tops]
    if t == "Upsample":  # nearest, `scale` (default 1) in H and W; SegNet's fields: separate scales
        up = lp.upsample_param
        if len(inputs) > 1 or up.HasField("upsample_h") or up.HasField("upsample_w") or up.pad_out_h or up.pad_out_w:
            raise UnsupportedLayer(f"layer {layer.name!r}: SegNet's Upsample (pooling mask, output size) is not "
                                   "supported by the numpy forward")
        sh = int(up.scale_h) if up.HasField("scale_h") else int(up.scale)
        sw = int(up.scale_w) if up.HasField("scale_w") else int(up.scale)
        if sh < 1 or sw < 1:
            raise UnsupportedLayer(f"layer {layer.name!r}: Upsample scale {sh}×{sw} is not a positive integer")
        return [x.repeat(sh, axis=2).repeat(sw, axis=3)]
    if t == "Normalize":
        norm = np.sqrt((x.astype(np.float64) ** 2).sum(axis=1, keepdims=True) + 1e-10)
        s = blobs[0].reshape(-1) if blobs else np.ones(1)
        return [(x / norm * (_bcast(s, x.ndim) if s.size > 1 else s)).astype(np.float32)]
    raise UnsupportedLayer(f"layer {layer.name!r}: type {t} is not supported by the numpy forward")


@one_blas_thread()
def forward(net: CaffeNet, inputs: dict[str, np.ndarray], *, weight_hook: WeightHook | None = None,
            input_hook: InputHook | None = None, output_hook: OutputHook | None = None,
            ) -> list[tuple[LayerDef, dict[str, np.ndarray]]]:
    """Run the net layer by layer. Returns, in network order, (layer, {top: value}).

    `weight_hook(layer, blobs)` may replace the weights (e.g. quantize them), `input_hook(layer,
    bottom, value)` the value a layer reads, `output_hook(layer, top, value)` the value it writes.
    """
    blobs: dict[str, np.ndarray] = {k: np.asarray(v, dtype=np.float32) for k, v in inputs.items()}
    out: list[tuple[LayerDef, dict[str, np.ndarray]]] = []
    for layer in net.layers:
        missing = [b for b in layer.bottoms if b not in blobs]
        if missing:
            raise ValueError(f"layer {layer.name!r}: bottom {missing[0]!r} is never produced")
        xs = [blobs[b] for b in layer.bottoms]
        if input_hook is not None:
            xs = [input_hook(layer, b, x) for b, x in zip(layer.bottoms, xs)]
        wb = layer.blobs
        if weight_hook is not None and wb:
            wb = weight_hook(layer, wb)
        ys = run_layer(layer, xs, wb)
        written: dict[str, np.ndarray] = {}
        for top, y in zip(layer.tops, ys):
            if output_hook is not None:
                y = output_hook(layer, top, y)
            blobs[top] = y
            written[top] = y
        out.append((layer, written))
    return out

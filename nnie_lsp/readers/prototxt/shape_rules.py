"""Per-type shape rules (Caffe semantics, N x C x H x W): ``(layer, bottom shapes) -> top shapes``.

Formulas follow BVLC Caffe's ``Reshape`` implementations (and the extension layers' usual
implementations, noted where inferred).  A rule raises :class:`_Unknown` when it cannot tell the
output (a parameter missing, an input shape unknown) and :class:`ShapeProblem` when the layer's
parameters or inputs do not fit (Caffe refuses to set the net up).  Reshape's ``dim: 0`` /
``dim: -1`` rules: docs/field-facts.md §16.4; NNIE pooling always rounds up (ceil mode):
docs/field-facts.md §7.5.  The driver is :mod:`nnie_lsp.readers.prototxt.shapes`.
"""

from __future__ import annotations

import math
from typing import Callable, TYPE_CHECKING

from nnie_lsp.readers.prototxt.shape_reasons import ShapeProblem, _Unknown

if TYPE_CHECKING:
    from nnie_lsp.readers.prototxt.graph import GraphLayer

__all__ = ["ShapeProblem", "conv_out", "deconv_out", "pool_out", "SHAPE_RULES", "INPUT_LAYER_TYPES",
           "declared_tops"]

Shape = tuple[int, ...]


# ---------------------------------------------------------------------------------------------
# formulas


def conv_out(size: int, kernel: int, pad: int, stride: int, dilation: int = 1) -> int:
    """Caffe ConvolutionLayer: floor((in + 2*pad - (dilation*(k-1)+1)) / stride) + 1."""
    ext = dilation * (kernel - 1) + 1
    return (size + 2 * pad - ext) // stride + 1


def deconv_out(size: int, kernel: int, pad: int, stride: int, dilation: int = 1) -> int:
    """Caffe DeconvolutionLayer: stride*(in-1) + dilation*(k-1)+1 - 2*pad."""
    ext = dilation * (kernel - 1) + 1
    return stride * (size - 1) + ext - 2 * pad


def pool_out(size: int, kernel: int, pad: int, stride: int, ceil_mode: bool = True) -> int:
    """Caffe PoolingLayer (rounds up by default; drops a last window starting in the padding)."""
    if ceil_mode:
        out = int(math.ceil((size + 2 * pad - kernel) / stride)) + 1
    else:
        out = (size + 2 * pad - kernel) // stride + 1
    if pad and (out - 1) * stride >= size + pad:
        out -= 1
    return out


# ---------------------------------------------------------------------------------------------
# helpers


def _need(shape: Shape | None, ndim: int | None = None) -> Shape:
    if shape is None:
        raise _Unknown("input_unknown")
    if ndim is not None and len(shape) < ndim:
        raise _Unknown("rank", ndim=ndim, got=len(shape))
    return shape


def _axis(axis: int, ndim: int) -> int:
    a = axis + ndim if axis < 0 else axis
    if not 0 <= a < max(ndim, 1):
        raise _Unknown("axis_range", axis=axis, ndim=ndim)
    return a


def _spatial(p, name: str, default: int, hw_names: tuple[str, str]) -> tuple[int, int]:
    """kernel/pad/stride/dilation for 2-D from repeated or optional `name` plus *_h/*_w."""
    h_name, w_name = hw_names
    if h_name and p.HasField(h_name) or (w_name and p.HasField(w_name)):
        h = getattr(p, h_name) if p.HasField(h_name) else default
        w = getattr(p, w_name) if p.HasField(w_name) else default
        return h, w
    v = getattr(p, name)
    if isinstance(v, int):  # optional scalar (PoolingParameter)
        return (v, v) if p.HasField(name) else (default, default)
    vals = list(v)
    if not vals:
        return default, default
    if len(vals) == 1:
        return vals[0], vals[0]
    return vals[0], vals[1]


# ---------------------------------------------------------------------------------------------
# rules: (layer, bottom shapes) -> top shapes


def _same(gl: "GraphLayer", ins: list[Shape | None]) -> list[Shape | None]:
    s = ins[0] if ins else None
    return [s] * len(gl.tops)


def _conv(gl, ins):
    x = _need(ins[0] if ins else None, 4)
    p = gl.param.convolution_param
    if not p.HasField("num_output"):
        raise _Unknown("num_output")
    kh, kw = _spatial(p, "kernel_size", 0, ("kernel_h", "kernel_w"))
    if kh <= 0 or kw <= 0:
        raise _Unknown("kernel")
    ph, pw = _spatial(p, "pad", 0, ("pad_h", "pad_w"))
    sh, sw = _spatial(p, "stride", 1, ("stride_h", "stride_w"))
    dh, dw = _spatial(p, "dilation", 1, ("", ""))
    if sh <= 0 or sw <= 0:
        raise _Unknown("stride")
    if gl.type == "Deconvolution":
        h, w = deconv_out(x[2], kh, ph, sh, dh), deconv_out(x[3], kw, pw, sw, dw)
    else:
        h, w = conv_out(x[2], kh, ph, sh, dh), conv_out(x[3], kw, pw, sw, dw)
    return [(x[0], p.num_output, h, w)] * len(gl.tops)


def _pool(gl, ins):
    x = _need(ins[0] if ins else None, 4)
    p = gl.param.pooling_param
    if p.global_pooling:
        return [(x[0], x[1], 1, 1)] * len(gl.tops)
    kh, kw = _spatial(p, "kernel_size", 0, ("kernel_h", "kernel_w"))
    if kh <= 0 or kw <= 0:
        raise _Unknown("kernel")
    ph, pw = _spatial(p, "pad", 0, ("pad_h", "pad_w"))
    sh, sw = _spatial(p, "stride", 1, ("stride_h", "stride_w"))
    if sh <= 0 or sw <= 0:
        raise _Unknown("stride")
    ceil_mode = p.round_mode == p.CEIL if hasattr(p, "round_mode") else True
    h, w = pool_out(x[2], kh, ph, sh, ceil_mode), pool_out(x[3], kw, pw, sw, ceil_mode)
    # Caffe: a second top (MAX only) holds the argmax mask, same shape
    return [(x[0], x[1], h, w)] * len(gl.tops)


def _inner_product(gl, ins):
    x = _need(ins[0] if ins else None)
    p = gl.param.inner_product_param
    if not p.HasField("num_output"):
        raise _Unknown("num_output")
    a = _axis(p.axis, len(x))
    return [tuple(x[:a]) + (p.num_output,)] * len(gl.tops)


def _eltwise(gl, ins):
    x = _need(ins[0] if ins else None)
    return [x] * len(gl.tops)


def _concat(gl, ins):
    """Caffe ``ConcatLayer::Reshape``: every input has the same number of axes and the same size
    on every axis but the concat axis (checked among the inputs whose shapes are known)."""
    p = gl.param.concat_param
    if not ins:
        raise _Unknown("concat_empty")
    known = [(k, s) for k, s in enumerate(ins) if s is not None]
    if known:
        k0, first = known[0]
        nd = len(first)
        axis = p.concat_dim if (p.HasField("concat_dim") and not p.HasField("axis")) else p.axis
        a = _axis(axis, nd)
        for k, s in known[1:]:
            if len(s) != nd:
                raise ShapeProblem(gl.index, "concat_axes", bottom=k, first_bottom=k0, input=s, first=first, axis=a)
            bad = [j for j in range(nd) if j != a and s[j] != first[j]]
            if bad:
                raise ShapeProblem(gl.index, "concat_shape", bottom=k, first_bottom=k0, input=s, first=first,
                                   axis=a, at=bad[0])
    if len(known) < len(ins):
        raise _Unknown("input_unknown")
    out = list(ins[0])
    out[a] = sum(s[a] for s in ins)
    return [tuple(out)] * len(gl.tops)


def _flatten(gl, ins):
    x = _need(ins[0] if ins else None)
    p = gl.param.flatten_param
    a = _axis(p.axis, len(x))
    e = _axis(p.end_axis, len(x))
    return [tuple(x[:a]) + (math.prod(x[a:e + 1]),) + tuple(x[e + 1:])] * len(gl.tops)


def _reshape(gl, ins):
    """Caffe ``ReshapeLayer``: ``shape`` replaces input axes ``[axis, axis + num_axes)`` (all by
    default); ``dim: 0`` copies input axis ``axis + k``, one ``dim: -1`` is inferred, and the
    element count must not change.  Inconsistent parameters raise :class:`ShapeProblem`."""
    p = gl.param.reshape_param
    dims = list(p.shape.dim)
    inferred = [k for k, d in enumerate(dims) if d == -1]
    # LayerSetUp checks: these do not need the input shape
    if len(inferred) > 1:
        raise ShapeProblem(gl.index, "two_inferred", dim=inferred[1], dims=tuple(dims))
    for k, d in enumerate(dims):
        if d < -1:
            raise ShapeProblem(gl.index, "negative_dim", dim=k, value=d, dims=tuple(dims))
    if p.num_axes < -1:
        raise ShapeProblem(gl.index, "num_axes", num_axes=p.num_axes, axis=p.axis, dims=tuple(dims))
    x = _need(ins[0] if ins else None)
    nd = len(x)
    start = p.axis + nd + 1 if p.axis < 0 else p.axis
    if not 0 <= start <= nd:
        raise ShapeProblem(gl.index, "axis", axis=p.axis, input=x, dims=tuple(dims))
    end = nd if p.num_axes == -1 else start + p.num_axes
    if end > nd:
        raise ShapeProblem(gl.index, "num_axes", num_axes=p.num_axes, axis=p.axis, input=x, dims=tuple(dims))
    shape = list(x[:start]) + dims + list(x[end:])
    for k, d in enumerate(dims):
        if d == 0:
            if start + k >= nd:
                raise ShapeProblem(gl.index, "copy_missing", dim=k, axis=start + k, input=x, dims=tuple(dims))
            shape[start + k] = x[start + k]
    total = math.prod(x)
    if inferred:
        at = start + inferred[0]
        known = math.prod(d for i, d in enumerate(shape) if i != at)
        if known == 0:
            raise _Unknown("reshape_zero")
        if total % known:
            raise ShapeProblem(gl.index, "not_divisible", dim=inferred[0], input=x, count=total,
                               known=known, dims=tuple(dims))
        shape[at] = total // known
    elif math.prod(shape) != total:
        raise ShapeProblem(gl.index, "count", input=x, output=tuple(shape), count=total,
                           output_count=math.prod(shape), dims=tuple(dims))
    return [tuple(shape)] * len(gl.tops)


def _permute(gl, ins):
    x = _need(ins[0] if ins else None)
    order = list(gl.param.permute_param.order)
    for a in range(len(x)):
        if a not in order:
            order.append(a)
    if sorted(order) != list(range(len(x))):
        raise _Unknown("permute_order")
    return [tuple(x[a] for a in order)] * len(gl.tops)


def _upsample(gl, ins):
    x = _need(ins[0] if ins else None, 4)
    p = gl.param.upsample_param
    if p.HasField("upsample_h") and p.HasField("upsample_w"):
        h, w = p.upsample_h, p.upsample_w
    else:
        sh = p.scale_h if p.HasField("scale_h") else p.scale
        sw = p.scale_w if p.HasField("scale_w") else p.scale
        h, w = x[2] * sh, x[3] * sw
        if p.pad_out_h:
            h -= 1
        if p.pad_out_w:
            w -= 1
    return [(x[0], x[1], h, w)] * len(gl.tops)


def _slice(gl, ins):
    x = _need(ins[0] if ins else None)
    p = gl.param.slice_param
    axis = p.slice_dim if (p.HasField("slice_dim") and not p.HasField("axis")) else p.axis
    a = _axis(axis, len(x))
    n = len(gl.tops)
    points = list(p.slice_point)
    if points:
        if len(points) != n - 1:
            raise _Unknown("slice_points")
        bounds = [0] + points + [x[a]]
        sizes = [bounds[k + 1] - bounds[k] for k in range(n)]
    else:
        if n == 0 or x[a] % n:
            raise _Unknown("slice_split")
        sizes = [x[a] // n] * n
    out = []
    for size in sizes:
        s = list(x)
        s[a] = size
        out.append(tuple(s))
    return out


def _priorbox(gl, ins):
    x = _need(ins[0] if ins else None, 4)
    p = gl.param.prior_box_param
    ars = [1.0]
    for ar in p.aspect_ratio:
        if any(abs(ar - a) < 1e-6 for a in ars):
            continue
        ars.append(ar)
        if p.flip:
            ars.append(1.0 / ar)
    num_priors = len(ars) * len(p.min_size) + len(p.max_size)
    return [(1, 2, x[2] * x[3] * num_priors * 4)] * len(gl.tops)


def _reorg(gl, ins):
    x = _need(ins[0] if ins else None, 4)
    p = gl.param.reorg_param
    s = p.stride
    if s <= 0:
        raise _Unknown("stride")
    if p.reverse:
        if x[1] % (s * s):
            raise _Unknown("reorg_channels")
        return [(x[0], x[1] // (s * s), x[2] * s, x[3] * s)] * len(gl.tops)
    if x[2] % s or x[3] % s:
        raise _Unknown("reorg_hw")
    return [(x[0], x[1] * s * s, x[2] // s, x[3] // s)] * len(gl.tops)


def _crop(gl, ins):
    if len(ins) < 2 or ins[0] is None or ins[1] is None:
        raise _Unknown("crop_inputs")
    x, ref = ins[0], ins[1]
    a = _axis(gl.param.crop_param.axis, len(x))
    return [tuple(x[:a]) + tuple(ref[a:])] * len(gl.tops)


def _interp(gl, ins):
    # PSPNet InterpLayer (inferred from its implementation; not in BVLC)
    x = _need(ins[0] if ins else None, 4)
    p = gl.param.interp_param
    h_in = x[2] + p.pad_beg + p.pad_end
    w_in = x[3] + p.pad_beg + p.pad_end
    if p.HasField("height") and p.HasField("width"):
        h, w = p.height, p.width
    elif p.HasField("zoom_factor") and p.HasField("shrink_factor"):
        h = (h_in - 1) // p.shrink_factor + 1
        w = (w_in - 1) // p.shrink_factor + 1
        h = h + (h - 1) * (p.zoom_factor - 1)
        w = w + (w - 1) * (p.zoom_factor - 1)
    elif p.HasField("shrink_factor"):
        h = (h_in - 1) // p.shrink_factor + 1
        w = (w_in - 1) // p.shrink_factor + 1
    elif p.HasField("zoom_factor"):
        h = h_in + (h_in - 1) * (p.zoom_factor - 1)
        w = w_in + (w_in - 1) * (p.zoom_factor - 1)
    else:
        raise _Unknown("interp_size")
    return [(x[0], x[1], h, w)] * len(gl.tops)


def _custom(gl, ins):
    shapes = [tuple(s.dim) for s in gl.param.custom_param.shape]
    if len(shapes) < len(gl.tops):
        raise _Unknown("custom_shapes")
    return shapes[:len(gl.tops)]


def _roi_pooling(gl, ins):
    if len(ins) < 2 or ins[0] is None or ins[1] is None:
        raise _Unknown("roi_inputs")
    p = gl.param.roi_pooling_param
    return [(ins[1][0], ins[0][1], p.pooled_h, p.pooled_w)] * len(gl.tops)


def _psroi_pooling(gl, ins):
    if len(ins) < 2 or ins[1] is None:
        raise _Unknown("psroi_inputs")
    p = gl.param.psroi_pooling_param
    return [(ins[1][0], p.output_dim, p.group_size, p.group_size)] * len(gl.tops)


def _input(gl, ins):
    shapes = [tuple(s.dim) for s in gl.param.input_param.shape]
    if not shapes:
        raise _Unknown("input_layer_shape")
    if len(shapes) == 1:
        return [shapes[0]] * len(gl.tops)
    if len(shapes) < len(gl.tops):
        raise _Unknown("input_layer_per_top")
    return shapes[:len(gl.tops)]


def _pick(values: list[int], k: int, what: str) -> int:
    # DummyData's legacy num/channels/height/width: one value for every top, or one per top
    if len(values) == 1:
        return values[0]
    if k < len(values):
        return values[k]
    raise _Unknown("dummy_per_top", what=what)


def _dummy_data(gl, ins):
    """Caffe ``DummyDataLayer``: one ``shape`` for every top or one per top; or the legacy
    ``num``/``channels``/``height``/``width`` (each once, or once per top)."""
    p = gl.param.dummy_data_param
    shapes = [tuple(s.dim) for s in p.shape]
    if shapes:
        if len(shapes) == 1:
            return [shapes[0]] * len(gl.tops)
        if len(shapes) < len(gl.tops):
            raise _Unknown("dummy_per_top", what="shape")
        return shapes[:len(gl.tops)]
    legacy = [list(p.num), list(p.channels), list(p.height), list(p.width)]
    if not all(legacy):
        raise _Unknown("dummy_shape")
    names = ("num", "channels", "height", "width")
    return [tuple(_pick(v, k, n) for v, n in zip(legacy, names)) for k in range(len(gl.tops))]


def _memory_data(gl, ins):
    """Caffe ``MemoryDataLayer``: data ``batch_size × channels × height × width``, label
    ``batch_size × 1 × 1 × 1``."""
    p = gl.param.memory_data_param
    if not all(p.HasField(f) for f in ("batch_size", "channels", "height", "width")):
        raise _Unknown("memory_data")
    data = (p.batch_size, p.channels, p.height, p.width)
    return [data, (p.batch_size, 1, 1, 1)][:len(gl.tops)]


#: layer types that declare the shape of the net's input blobs they produce (no bottoms)
INPUT_LAYER_TYPES: dict[str, Callable] = {"Input": _input, "DummyData": _dummy_data, "MemoryData": _memory_data}


def declared_tops(gl) -> list[Shape | None]:
    """The shapes an input-declaring layer (:data:`INPUT_LAYER_TYPES`) gives its tops (``None``
    where it declares none)."""
    rule = INPUT_LAYER_TYPES.get(gl.type)
    try:
        tops = list(rule(gl, [])) if rule is not None else []
    except _Unknown:
        tops = []
    return tops + [None] * (len(gl.tops) - len(tops))


def _crelu(gl, ins):
    # CReLU = Concat(ReLU(x), ReLU(-x)) along channels [inferred]
    x = _need(ins[0] if ins else None, 2)
    return [(x[0], 2 * x[1]) + tuple(x[2:])] * len(gl.tops)


def _tile(gl, ins):
    x = _need(ins[0] if ins else None)
    p = gl.param.tile_param
    a = _axis(p.axis, len(x))
    s = list(x)
    s[a] *= p.tiles
    return [tuple(s)] * len(gl.tops)


def _recurrent(gl, ins):
    # BVLC RecurrentLayer (LSTM, RNN): x is T × N × …; h is T × N × num_output
    x = _need(ins[0] if ins else None, 2)
    return [(x[0], x[1], gl.param.recurrent_param.num_output)] + [None] * (len(gl.tops) - 1)


_SAME_TYPES = (
    "ReLU", "PReLU", "Sigmoid", "TanH", "BatchNorm", "Scale", "Bias", "Dropout", "Power",
    "AbsVal", "BNLL", "ELU", "Exp", "Log", "Threshold", "LRN", "MVN", "Normalize", "Softmax",
    "Swish", "Mish", "Clip", "Split", "RReLU", "ShuffleChannel", "ReLU6", "HardSigmoid",
)

SHAPE_RULES: dict[str, Callable] = {t: _same for t in _SAME_TYPES}
SHAPE_RULES.update({
    "Convolution": _conv,
    "DepthwiseConvolution": _conv,
    "ConvolutionDepthwise": _conv,
    "Deconvolution": _conv,
    "Pooling": _pool,
    "InnerProduct": _inner_product,
    "Eltwise": _eltwise,
    "Concat": _concat,
    "Flatten": _flatten,
    "Reshape": _reshape,
    "Permute": _permute,
    "Upsample": _upsample,
    "Slice": _slice,
    "PriorBox": _priorbox,
    "Reorg": _reorg,
    "PassThrough": _reorg,
    "Crop": _crop,
    "Interp": _interp,
    "Custom": _custom,
    "ROIPooling": _roi_pooling,
    "PSROIPooling": _psroi_pooling,
    **INPUT_LAYER_TYPES,
    "CReLU": _crelu,
    "Tile": _tile,
    "LSTM": _recurrent,
    "RNN": _recurrent,
})

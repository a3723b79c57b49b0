"""NNIE layer limits NN018-NN019: layer parameters nnie_mapper refuses or computes differently.

NN018 checks the documented limits (Permute order, pooling rounding, Upsample scale, the batch
axis, Power exponents, Convolution group, kernel/stride/pad ranges, feature-map width, Eltwise
shapes, Reshape rank); NN019 finds the darknet 2x2 stride-1 max pooling that shrinks the map.
Registered when :mod:`.schema_rules` is loaded.
"""

from __future__ import annotations

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.core.lang import pick
from nnie_lsp.readers.prototxt.batch import BATCH_AXIS_FIELDS
from nnie_lsp.readers.prototxt.layers import WIDE_OUTPUT_RUNS, WIDTH_LIMIT
from nnie_lsp.readers.prototxt.shapes import unread_layers
from nnie_lsp.rules._proto import Place, child, children, field_range, layer_anchor, one_per_cause
from nnie_lsp.core.registry import rule

POWER_ALLOWED = (-3.0, -2.0, -1.0, -0.5, 0.5, 1.0, 2.0, 3.0)
INT_PARAM_FIELDS = ("kernel_size", "kernel_h", "kernel_w", "stride", "stride_h", "stride_w", "pad", "pad_h", "pad_w")


@rule("NN018", "nnie-limit", Severity.ERROR, step=None,
      summary=("A documented NNIE layer limit is broken", "违反 NNIE 文档记载的层限制"),
      messages={
          "permute": ("Permute order ({order}) is not supported: NNIE only permutes (0,1,2,3) -> (0,2,3,1)",
                      "Permute 的 order ({order}) 不受支持：NNIE 只支持 (0,1,2,3) -> (0,2,3,1)"),
          "ceil": ("Pooling `{field}` makes Caffe round {how}; the NNIE wk always rounds up (ceil), so its output has another size than Caffe's: make both roundings agree (pads, or an input size for which input + 2·pad − kernel is a multiple of the stride) — deleting the field alone makes Caffe differ from a model trained rounding down",
                   "Pooling 的 `{field}` 使 Caffe 按{how}取整；NNIE 的 wk 总是向上取整（ceil），其输出尺寸与 Caffe 不同：请让两种取整一致（调整 pad，或使 输入 + 2·pad − kernel 为 stride 整数倍的输入尺寸）——只删除该字段会使 Caffe 与按向下取整训练的模型不一致"),
          "upsample": ("Upsample scale {scale}: NNIE only supports 2x nearest upsampling",
                       "Upsample 放大倍数为 {scale}：NNIE 只支持 2 倍最近邻上采样"),
          "power": ("Power exponent {power} is not supported: NNIE allows -3, -2, -1, -1/2, 1/2, 1, 2, 3",
                    "Power 指数 {power} 不受支持：NNIE 只允许 -3、-2、-1、-1/2、1/2、1、2、3"),
          "group": ("Convolution group {group} exceeds the NNIE limit of 2048",
                    "Convolution 的 group {group} 超过 NNIE 上限 2048"),
          "intparam": ("{field} {value} is outside 1-255, the range NNIE accepts for most integer layer parameters",
                       "{field} 为 {value}，超出 NNIE 对多数整型层参数允许的 1-255 范围"),
          "width": ("output \"{blob}\" is {width} wide: a user's summary of the vendor guide says most NNIE layers accept feature maps up to 4096 wide (not in the vendor's public text; which layers are exempt is not known)",
                    "输出 \"{blob}\" 宽度为 {width}：一份用户整理的厂商指南摘要称多数 NNIE 层只支持宽度不超过 4096 的特征图（厂商公开文本中没有；哪些层例外未知）"),
          "eltwise": ("Eltwise inputs have different shapes ({shapes}): the mapper fails with \"All inputs must have the same shape!\"",
                      "Eltwise 的输入形状不同（{shapes}）：mapper 会报错 \"All inputs must have the same shape!\""),
          "batch": ("{type} \"{layer}\" works on axis 0, the batch dimension: no NNIE operation may touch the batch dimension",
                    "{type} 层 \"{layer}\" 作用在第 0 维（batch 维）上：NNIE 的任何操作都不能涉及 batch 维"),
          "reshape_batch": ("Reshape \"{layer}\" sets the batch dimension to {n}: use 0 (copy) so the mapper can set N from [batch_num]",
                            "Reshape 层 \"{layer}\" 把 batch 维设为 {n}：请用 0（保持不变），以便 mapper 按 [batch_num] 设置 N"),
          "reshape": ("Reshape to {n} dims: users report the mapper needs 4-D shapes with first dim 0 (or deleting the Reshape)",
                      "Reshape 为 {n} 维：用户反馈 mapper 需要首维为 0 的 4 维形状（或删除该 Reshape）"),
          "more": (" (the same in {n} more: {layers})", "（另有 {n} 个层相同：{layers}）"),
          "also": ("the same in layer \"{layer}\"", "层 \"{layer}\" 中相同"),
      },
      docs_zh=('违反 NNIE 文档记载的限制：Permute 只支持 (0,2,3,1)；'
               '`round_mode: FLOOR`（wk 总是向上取整；仅当向下与向上取整尺寸不同时报告，'
               '建议让两种取整一致）；Upsample 只支持 2 倍；Power 指数只允许 '
               '−3、−2、−1、−½、½、1、2、3；卷积 group ≤ 2048；'
               'kernel/stride/pad 在 1–255 之间；特征图宽度 ≤ '
               '4096（仅来自用户整理的指南摘要，措辞如实；Reshape/Flatten '
               '输出不报告：YOLOv5 移植版用来代替 Permute 的 6400 '
               '宽 Reshape 据用户反馈可在板端运行）；Eltwise 输入形状必须相同；'
               'Reshape 应为 4 维（用户反馈；为 LSTM 生成 T×N×C '
               '输入的 Reshape 除外）。仅训练用层（NN015）不检查。同一原因（同一限制、'
               '同一种写法）只报告一次，其他层作为相关位置列出。'))
def nn018(project, ctx):
    """
    ## What it finds
    Layer parameters outside what NNIE maps, from the HiSVP guide §3.1.6 and user reports
    (docs/field-facts.md §7.5):
    Permute orders other than (0,2,3,1); Pooling `round_mode: FLOOR` (the wk always rounds up;
    a `ceil_mode` field from PyTorch converters is reported by NN011); Upsample scale other than
    2; operations on axis 0, the batch (Concat/Slice/Softmax/Flatten/Reduction/InnerProduct `axis: 0`, a
    Reshape whose first dim is not 0); Power exponents outside −3, −2, −1, −½, ½, 1,
    2, 3; Convolution `group` > 2048; kernel/stride/pad outside 1–255 (pad 0 is fine); feature maps
    wider than 4096 (a warning worded as what it is: a user's summary of the guide says "most
    layers"; a Reshape or Flatten output that wide is not reported: the YOLOv5 ports' Reshape to
    (0, 3, 85, 6400) in place of the head Permute runs on the board, users report); Eltwise inputs
    of different shapes; Reshape to other than 4 dims (warning, user-reported).  A
    `round_mode: FLOOR` is reported only where rounding down gives another size than up.  A Reshape's output rank and batch dim are read as Caffe does with `axis` and
    `num_axes` (`axis: 1 num_axes: 1 shape { dim: 2 dim: 9 }` makes a 4-D blob 5-D; its first
    dim is not the batch); where that needs an input shape nnie-lint does not know, and for the
    Eltwise and width checks past a layer shape inference stops at (NN022), nothing is said.

    One finding per cause: the same limit broken the same way in several layers (every Permute
    and Reshape of the channel-shuffle blocks of a ShuffleNet, say) is reported once, at the first
    layer, with the other layers as related locations.

    ## Why
    The mapper either refuses the layer (`Permute can only support (0,1,2,3) -> (0,2,3,1) order!`,
    `All inputs must have the same shape!`) or, for pooling rounding, silently computes something
    else than Caffe — a step-4 layer mismatch in the triage.

    ## Example
    ```
    layer { name: "p" type: "Permute" bottom: "x" top: "p" permute_param { order: 0 order: 3 order: 1 order: 2 } }
    ```

    ## Fix
    None automatic: each needs a change of the net (e.g. Upsample 4× as two 2× layers, a
    Deconvolution instead, or a different input size for Eltwise).
    """
    doc, g = project.prototxt, project.graph
    if doc is None or g is None:
        return
    places = list(_limit_places(g, ctx))
    yield from one_per_cause(ctx, doc, places, more_msg="more", related_msg="also")


def _limit_places(g, ctx):
    """Every place breaking a limit, in layer order (NN018 then keeps one finding per cause)."""
    shapes, tops_of = {}, {}
    try:
        shapes = g.blob_shapes() or {}
        tops_of = g.layer_shapes() or {}
    except Exception:  # shape inference is best effort
        shapes, tops_of = {}, {}
    from nnie_lsp.rules.layer_support import training_only_layers

    training = training_only_layers(g)  # NN015 says delete them: their limits do not matter
    for layer in g.layers:
        src, p, t = layer.source, layer.source.param, layer.type
        name = layer.name
        if id(layer) in training:
            continue
        if t == "Permute" and p.HasField("permute_param"):
            order = tuple(p.permute_param.order)
            if order and order not in ((0, 2, 3, 1),):
                yield Place("permute", field_range(src, "permute_param", "order"), name,
                            {"order": ",".join(map(str, order))})
        elif t == "Pooling":
            pp = child(src.node, "pooling_param")
            rm = child(pp, "round_mode")
            if rm is not None and str(rm.value).upper() == "FLOOR" and _roundings_differ(layer, shapes):
                yield Place("ceil", rm.range, name, {"field": "round_mode: FLOOR",
                            "how": pick(("down (floor)", "向下"), ctx.lang)},
                            Severity.WARNING)
        elif t == "Upsample":
            up = child(src.node, "upsample_param")
            for fname in ("scale", "scale_h", "scale_w"):
                n = child(up, fname)
                if n is not None and _num(n.value) not in (2, None):
                    yield Place("upsample", n.value_range, name, {"scale": n.value_text})
        elif t == "Power":
            n = child(src.node, "power_param", "power")
            v = _num(n.value) if n is not None else None
            if v is not None and not any(abs(v - a) < 1e-9 for a in POWER_ALLOWED):
                yield Place("power", n.value_range, name, {"power": n.value_text})
        if t in ("Convolution", "Deconvolution", "DepthwiseConvolution"):
            n = child(src.node, "convolution_param", "group")
            v = _num(n.value) if n is not None else None
            if v is not None and v > 2048:
                yield Place("group", n.value_range, name, {"group": n.value_text})
        param_node = None
        if t in ("Convolution", "Deconvolution", "DepthwiseConvolution"):
            param_node = child(src.node, "convolution_param")
        elif t == "Pooling" and not _is_global_pool(src):
            param_node = child(src.node, "pooling_param")
        if param_node is not None:
            for fname in INT_PARAM_FIELDS:
                for n in children(param_node, fname):
                    v = _num(n.value)
                    if v is None:
                        continue
                    lo = 0 if fname.startswith("pad") else 1
                    if v < lo or v > 255:
                        yield Place("intparam", n.value_range, name, {"field": fname, "value": n.value_text})
        if t == "Reshape" and not src.is_v1 and not _feeds_recurrent(g, layer):
            yield from _reshape_places(layer, shapes, tops_of.get(layer.index, ()))
        axis_field = BATCH_AXIS_FIELDS.get(t)
        if axis_field is not None:
            pnode = child(src.node, axis_field[0])
            for fname in axis_field[1:]:
                n = child(pnode, fname)
                if n is not None and _num(n.value) == 0:
                    yield Place("batch", n.value_range, name, {"type": t, "layer": name})
        if t == "Eltwise" and len(layer.bottoms) > 1:
            ins = [shapes.get(b) for b in layer.bottoms]
            if all(s is not None for s in ins) and len({tuple(s) for s in ins}) > 1:
                yield Place("eltwise", layer_anchor(src), name,
                            {"shapes": ", ".join("x".join(map(str, s)) for s in ins)})
        if t in WIDE_OUTPUT_RUNS:  # a layout change this wide is reported to run (field-facts §7.5)
            continue
        for top in layer.tops:
            s = shapes.get(top)
            if s is not None and len(s) == 4 and s[3] is not None and s[3] > WIDTH_LIMIT and top not in layer.bottoms:
                yield Place("width", layer_anchor(src), name, {"blob": top, "width": s[3]}, Severity.WARNING)


def _feeds_recurrent(g, layer) -> bool:
    """A Reshape that makes an LSTM/RNN's T × N × C sequence input: 3-D and time-major by design."""
    readers = [c for t in layer.tops for c in g.consumers(t) if c.index > layer.index]
    return bool(readers) and all(c.type in ("LSTM", "RNN") for c in readers)


def _roundings_differ(layer, shapes) -> bool:
    """Whether rounding the pooled size down gives another size than up for this layer's input;
    True when the input's shape is unknown (then it may)."""
    inp = shapes.get(layer.bottoms[0]) if layer.bottoms else None
    if inp is None or len(inp) != 4 or any(d is None for d in inp[2:]):
        return True
    p = layer.param.pooling_param
    if p.global_pooling:
        return False
    k = (p.kernel_h or p.kernel_size, p.kernel_w or p.kernel_size)
    s = (p.stride_h or (p.stride if p.HasField("stride") else 1), p.stride_w or (p.stride if p.HasField("stride") else 1))
    pad = (p.pad_h or p.pad, p.pad_w or p.pad)
    return any(k[i] and s[i] and (inp[2 + i] + 2 * pad[i] - k[i]) % s[i] != 0 for i in (0, 1))


def _reshape_places(layer, shapes, tops):
    """NN018's Reshape checks, as Caffe's ``ReshapeLayer`` reads ``axis``/``num_axes``: ``shape``
    replaces the input axes ``[axis, axis + num_axes)``, so the output rank is the input's minus
    the replaced axes plus the dims, and the first dim is the batch only when ``axis`` is 0.
    With other than the defaults (axis 0, all axes) both need the input's rank: unknown when
    its shape is unknown, and then nothing is said."""
    src, name = layer.source, layer.name
    dims = _dim_elements(child(src.node, "reshape_param", "shape"))
    if not dims:
        return
    p = layer.param.reshape_param
    out = tops[0] if tops else None
    if out is not None:
        rank = len(out)
    elif p.axis == 0 and p.num_axes == -1:
        rank = len(dims)  # the shape replaces every axis: the rank is written
    else:
        return
    if rank != 4:
        yield Place("reshape", layer_anchor(src), name, {"n": rank}, Severity.WARNING)
        return
    inp = shapes.get(layer.bottoms[0]) if layer.bottoms else None
    start = p.axis if p.axis >= 0 else (p.axis + len(inp) + 1 if inp is not None else None)
    if start == 0 and _num(dims[0].value) not in (0, None):
        yield Place("reshape_batch", dims[0].value_range, name, {"layer": name, "n": dims[0].value_text},
                    Severity.WARNING)


def _dim_elements(shape_node):
    out = []
    for n in children(shape_node, "dim"):
        out.extend(n.children if n.kind == "list" else (n,))
    return out


def _is_global_pool(src) -> bool:
    n = child(src.node, "pooling_param", "global_pooling")
    return n is not None and str(n.value).lower() in ("true", "1", "t")


def _num(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return v
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


@rule("NN019", "stride1-pool-shrinks-map", Severity.WARNING, step=None,
      summary=("A 2×2 stride-1 max pooling shrinks the map by one (darknet keeps the size)",
               "2×2、步长 1 的最大池化会使特征图缩小 1（darknet 保持尺寸不变）"),
      messages={"shrink_unknown": ("Pooling \"{layer}\" (kernel 2, stride 1, pad 0) makes {blob} one row and one column smaller than its input (its shape is unknown here): darknet's size-2 stride-1 maxpool keeps the size, so the heads after it no longer have the grid the darknet model (anchors, decoding) expects",
                                 "池化层 \"{layer}\"（kernel 2、stride 1、pad 0）使 {blob} 比输入少一行一列（此处输入形状未知）：darknet 的 size=2 stride=1 maxpool 保持尺寸不变，其后检测头的网格与 darknet 模型（anchor、解码）不再一致"),
                "shrink": ("Pooling \"{layer}\" (kernel 2, stride 1, pad 0) makes {blob} {out} from {inp}: darknet's size-2 stride-1 maxpool keeps {inp}, so the heads after it no longer have the grid the darknet model (anchors, decoding) expects",
                           "池化层 \"{layer}\"（kernel 2、stride 1、pad 0）使 {blob} 从 {inp} 变为 {out}：darknet 的 size=2 stride=1 maxpool 保持 {inp} 不变，其后检测头的网格与 darknet 模型（anchor、解码）不再一致")},
      docs_zh=('darknet 的 size=2 stride=1 maxpool 会在右下补边并保持尺寸（13×13 '
               '仍为 13×13），而 Caffe 与 NNIE 计算得到 12×12，'
               '其后检测头的网格与 darknet 模型不一致。Caffe 与 NNIE '
               '对比时看不出来，只有板端检测框出错。'))
def nn019(project, ctx):
    """
    ## What it finds
    A MAX Pooling layer with a 2×2 kernel, stride 1 and no padding — the darknet2caffe translation
    of darknet's `[maxpool] size=2 stride=1` (yolov3-tiny's 6th pooling layer).  A layer whose
    parameters could not be read as written (a field the schema rejects, such as a converter's
    `ceil_mode`) is not judged.

    ## Why
    Darknet pads that layer on the right and bottom and keeps the feature-map size (13×13 stays
    13×13 at 416×416). Caffe — and NNIE, whose pooling always rounds up — computes
    ceil((13 − 2) / 1) + 1 = 12, so every later layer and the YOLO heads run on a 12×12 grid (and
    24×24 after the upsample). The Caffe-vs-NNIE triage cannot see this (both sides agree); only
    the boxes on the board are wrong. Found with the shape inference on the real yolov3-tiny
    prototxt of the corpus.

    ## Example
    ```
    layer { name: "layer12-maxpool" type: "Pooling" bottom: "layer11-conv" top: "layer12-maxpool"
            pooling_param { pool: MAX kernel_size: 2 stride: 1 pad: 0 } }
    ```

    ## Fix
    None automatic: Caffe has no one-sided padding. Usual workarounds: decode the heads with the
    grid the converted net really has, or replace the layer (e.g. kernel 3, pad 1 keeps the size
    with slightly different values) and check accuracy.
    """
    doc, g = project.prototxt, project.graph
    if doc is None or g is None:
        return
    pools = [l for l in g.layers if l.type == "Pooling"]
    if not pools:
        return
    shapes = None
    unread = unread_layers(g)
    for layer in pools:
        if layer.index in unread:  # parameters not read as written (a fork's field): unknown
            continue
        p = layer.source.param.pooling_param
        if p.pool != 0 or p.global_pooling:  # MAX only
            continue
        k = p.kernel_h or p.kernel_size
        kw = p.kernel_w or p.kernel_size
        s = p.stride_h or (p.stride if p.HasField("stride") else 1)
        pad = p.pad_h or p.pad
        if not (k == 2 and kw == 2 and s == 1 and pad == 0):
            continue
        if shapes is None:
            try:
                shapes = g.blob_shapes() or {}
            except Exception:
                shapes = {}
        inp = shapes.get(layer.bottoms[0]) if layer.bottoms else None
        out = shapes.get(layer.tops[0]) if layer.tops else None
        fmt = lambda sh: "×".join(str(x) for x in sh[2:]) if sh and len(sh) == 4 else "?"
        if inp and out and len(inp) == 4 and len(out) == 4 and out[2] == inp[2]:
            continue  # already size-preserving (e.g. an extra pad layer before it)
        known = inp and out and len(inp) == 4 and len(out) == 4
        yield ctx.diag("shrink" if known else "shrink_unknown", doc.path, layer_anchor(layer.source), layer=layer.name,
                       blob=layer.tops[0] if layer.tops else "?", inp=fmt(inp), out=fmt(out))

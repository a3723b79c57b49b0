"""Schema and graph rules NN010-NN018: the prototxt as nnie_mapper will read it."""

from __future__ import annotations

from ..diagnostics import Severity
from ..prototxt import layers as LT
from ..text import Range, TextEdit
from ._proto import child, children, field_range, layer_anchor
from .registry import rule

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO


def _reader_errors(project, ctx, code):
    doc = project.prototxt
    if doc is None:
        return
    for err in doc.errors:
        if err.code == code:
            yield ctx.diag("err", doc.path, err.range, message=err.message)


@rule("NN010", "prototxt-syntax", E, step=None,
      summary=("prototxt syntax error", "prototxt 语法错误"),
      messages={"err": ("{message}", "语法错误：{message}"),
                "more": ("{n} more syntax errors not shown (is this really a text prototxt?)",
                         "另有 {n} 个语法错误未显示（这真的是文本格式的 prototxt 吗？）"),
                "binary": ("this file is binary data, not a text prototxt (a .caffemodel?)",
                           "该文件是二进制数据，不是文本格式的 prototxt（是 .caffemodel 吗？）"),
                "binary_ref": ("[prototxt_file] {file} is binary data, not a text prototxt (a .caffemodel?)",
                               "[prototxt_file] {file} 是二进制数据，不是文本格式的 prototxt（是 .caffemodel 吗？）")})
def nn010(project, ctx):
    """
    ## What it finds
    Text that is not protobuf text format: an unterminated string, a missing `}` or `{`, a stray
    token. The reader recovers and reports every such place in one pass.

    ## Why
    nnie_mapper (protobuf 3.5.1 inside) stops at the first syntax error with a terse message; you
    fix one error per mapper run.

    ## Example
    ```
    layer { name: "conv1" type: "Convolution"     # missing closing brace
    ```

    ## Fix
    None automatic.
    """
    if project.binary_prototxt:
        origin = project.prototxt_origin
        if origin is not None and project.cfg is not None and origin.resolved == project.binary_prototxt:
            yield ctx.diag("binary_ref", project.cfg.path, origin.entry.value_range, file=origin.written)
        yield ctx.diag("binary", project.binary_prototxt, Range.point(0, 0))
        return
    doc = project.prototxt
    if doc is None:
        return
    errs = [e for e in doc.errors if e.code == "NN010"]
    for err in errs[:MAX_SYNTAX_ERRORS]:
        yield ctx.diag("err", doc.path, err.range, message=err.message)
    if len(errs) > MAX_SYNTAX_ERRORS:
        yield ctx.diag("more", doc.path, errs[MAX_SYNTAX_ERRORS].range, n=len(errs) - MAX_SYNTAX_ERRORS)


MAX_SYNTAX_ERRORS = 25


@rule("NN011", "unknown-field", E, step=None,
      summary=("Unknown prototxt field", "未知的 prototxt 字段"),
      messages={"err": ("{message}", "未知字段：{message}"),
                "ceil_mode": ("`ceil_mode` is not a Caffe field (PyTorch converters add it); the NNIE guide says to delete it: the wk always rounds pooling up (ceil), so delete it and align the pads",
                              "`ceil_mode` 不是 Caffe 字段（PyTorch 转换工具会添加）；NNIE 指南要求删除它：wk 的池化总是向上取整（ceil），请删除并对齐 pad")})
def nn011(project, ctx):
    """
    ## What it finds
    A field that the Caffe schema (BVLC caffe.proto plus the NNIE extension layers) does not have
    in that message, e.g. `botom:` or `upsample_param` spelled `upsampe_param`; with a did-you-mean.

    ## Why
    The mapper's protobuf parser rejects the whole file at the first unknown field.  OpenCV and
    some Caffe forks silently accept unknown fields, so the net "works" on the PC and fails in the
    mapper.

    ## Example
    ```
    layer { name: "c1" type: "Convolution" botom: "data" top: "c1" }
    ```

    ## Fix
    None automatic (the quick fix in the editor offers the suggestion).
    """
    doc = project.prototxt
    if doc is None:
        return
    for err in doc.errors:
        if err.code != "NN011":
            continue
        idx = doc.line_index
        if doc.text[idx.offset(err.range.start):idx.offset(err.range.end)] == "ceil_mode":
            yield ctx.diag("ceil_mode", doc.path, err.range)
        else:
            yield ctx.diag("err", doc.path, err.range, message=err.message)


@rule("NN012", "bad-value", E, step=None,
      summary=("Bad prototxt value or enum", "prototxt 值或枚举无效"),
      messages={"err": ("{message}", "值无效：{message}")})
def nn012(project, ctx):
    """
    ## What it finds
    A value of the wrong type for its field (a string where a number is needed, a float in an
    integer field, a negative number in an unsigned field), an unknown enum value (`pool: MEAN`),
    or a non-repeated field given twice.

    ## Why
    The mapper's parser rejects these; some are silently truncated by other tools.

    ## Example
    ```
    pooling_param { pool: MEAN }     # MAX, AVE or STOCHASTIC
    ```

    ## Fix
    None automatic.
    """
    yield from _reader_errors(project, ctx, "NN012")


@rule("NN013", "undefined-bottom", E, step=None,
      summary=("A bottom blob is never produced", "bottom 引用的 blob 没有被任何层产生"),
      messages={"undefined": ("bottom \"{blob}\" of layer \"{layer}\" is not produced by any earlier layer or input{hint}",
                              "层 \"{layer}\" 的 bottom \"{blob}\" 不是任何前面的层或输入产生的{hint}"),
                "hint": ("; did you mean \"{suggestion}\"?", "；是否应为 \"{suggestion}\"？"),
                "later": (" (layer \"{producer}\" produces it later: layers must be in topological order)",
                          "（层 \"{producer}\" 在后面才产生它：层必须按拓扑顺序排列）"),
                "rename": ("Use \"{suggestion}\"", "改为 \"{suggestion}\"")},
      fix="unsafe")
def nn013(project, ctx):
    """
    ## What it finds
    A `bottom:` naming a blob that no network input and no earlier layer's `top:` defines — a typo,
    a layer deleted while cutting the net (e.g. removing the SSD/YOLO heads), or layers out of order.

    ## Why
    The mapper (like Caffe) fails with an "unknown bottom blob" error; after cutting a net for NNIE
    this is the most common breakage.

    ## Example
    ```
    layer { name: "relu1" type: "ReLU" bottom: "conv_1" top: "conv1" }   # blob is "conv1"
    ```

    ## Fix
    Unsafe: rename to the closest defined blob, when one is close enough.
    """
    import difflib
    doc, g = project.prototxt, project.graph
    if doc is None or g is None:
        return
    defined = {i.name for i in g.inputs}
    later_producer = {}
    for layer in g.layers:
        for t in layer.tops:
            later_producer.setdefault(t, layer.name)
    for layer in g.layers:
        if all(b in defined for b in layer.bottoms):  # fast path: no ranges needed
            defined.update(layer.tops)
            continue
        for blob, rng in layer.source.bottoms:
            if blob in defined:
                continue
            hint = ""
            fix = None
            if blob in later_producer and later_producer[blob] != layer.name:
                hint = ctx.text("later", producer=later_producer[blob])
            else:
                close = difflib.get_close_matches(blob, sorted(defined), n=1, cutoff=0.8)
                if close:
                    hint = ctx.text("hint", suggestion=close[0])
                    from ..fixes import replace_string_token
                    fix = ctx.fix("rename", [(doc.path, replace_string_token(doc, rng, close[0]))],
                                  safe=False, suggestion=close[0])
            yield ctx.diag("undefined", doc.path, rng, fix=fix, blob=blob, layer=layer.name, hint=hint)
        defined.update(layer.tops)


@rule("NN014", "duplicate-layer-name", E, step=None,
      summary=("Two layers share a name", "两个层同名"),
      messages={"dup": ("layer name \"{name}\" is used again (first at line {line})",
                        "层名 \"{name}\" 重复（第一次出现在第 {line} 行）"),
                "first": ("first layer named \"{name}\"", "第一个名为 \"{name}\" 的层")})
def nn014(project, ctx):
    """
    ## What it finds
    Two `layer { name: ... }` blocks with the same name.

    ## Why
    Weights in the caffemodel and the mapper's per-layer dumps (`mapper_quant/<layer>_output…`) are
    keyed by layer name, so the second layer takes the first one's weights and the similarity
    triage cannot tell them apart.

    ## Example
    ```
    layer { name: "conv1" type: "Convolution" ... }
    layer { name: "conv1" type: "ReLU" ... }
    ```

    ## Fix
    None automatic: renaming a layer changes which caffemodel weights it gets.
    """
    doc, g = project.prototxt, project.graph
    if doc is None or g is None:
        return
    first = {}
    for layer in g.layers:
        if not layer.name:
            continue
        if layer.name in first:
            f = first[layer.name]
            yield ctx.diag("dup", doc.path, layer_anchor(layer.source), name=layer.name,
                           line=layer_anchor(f.source).start.line + 1,
                           related=[ctx.related("first", doc.path, layer_anchor(f.source), name=layer.name)])
        else:
            first[layer.name] = layer


@rule("NN015", "unsupported-layer", E, step=None,
      summary=("Layer type NNIE does not support", "NNIE 不支持的层类型"),
      messages={"unsupported": ("layer type \"{type}\" is not supported by NNIE: {advice}",
                                "NNIE 不支持层类型 \"{type}\"：{advice}"),
                "unknown": ("unknown layer type \"{type}\"{hint}; NNIE only maps known Caffe and extension layers: rewrite it as Custom or Proposal, or name the layer \"*_cpu\"",
                            "未知的层类型 \"{type}\"{hint}；NNIE 只映射已知的 Caffe 层和扩展层：请改写为 Custom 或 Proposal，或将层名加 \"_cpu\" 后缀"),
                "hint": (" (did you mean \"{suggestion}\"?)", "（是否应为 \"{suggestion}\"？）"),
                "advice_default": ("rewrite it as Custom (tensor outputs) or Proposal (one box output), or name the layer \"{name}_cpu\" and implement it on the CPU",
                                   "请改写为 Custom（输出张量）或 Proposal（输出检测框），或将层名改为 \"{name}_cpu\" 并在 CPU 上实现"),
                "advice_cut": ("cut the net before it and run it on the CPU (usual practice for {type}), or rewrite it as Custom",
                               "通常的做法是在它之前截断网络并在 CPU 上实现（{type} 的惯例），或改写为 Custom"),
                "advice_train": ("it is a training-only layer: delete it from the deploy prototxt",
                                 "这是仅用于训练的层：请从部署用 prototxt 中删除")})
def nn015(project, ctx):
    """
    ## What it finds
    A layer whose type NNIE cannot map: training-only layers (Data, Accuracy, SoftmaxWithLoss…),
    detection heads normally done on the CPU (PriorBox, DetectionOutput, Region/Yolo), private or
    misspelled types.  Layers named `*_cpu` (user CPU layers), `Custom` and `Proposal` are accepted.

    ## Why
    The HiSVP guide (§3.1.4) asks you to rewrite non-supported layers as `Proposal` (box output,
    exactly one top) or `Custom` (tensor outputs with `custom_param` shapes), or to mark them
    `_cpu`; the net is then split into NNIE and CPU segments.  The mapper otherwise fails at "net
    parsing".

    ## Example
    ```
    layer { name: "detection_out" type: "DetectionOutput" ... }    # run on the CPU instead
    ```

    ## Fix
    None automatic: it is a design decision where to cut the net.
    """
    doc, g = project.prototxt, project.graph
    if doc is None or g is None:
        return
    for layer in g.layers:
        t = layer.type
        if not t or layer.name.endswith("_cpu"):
            continue
        spec = LT.lookup(t)
        if spec is not None and spec.support != "unsupported":
            continue
        rng = layer.source.type_range or layer_anchor(layer.source)
        if spec is None:
            close = LT.suggest(t)
            hint = ctx.text("hint", suggestion=close) if close else ""
            yield ctx.diag("unknown", doc.path, rng, type=t, hint=hint)
            continue
        if spec.training_only:
            advice = ctx.text("advice_train")
        elif spec.category == "detection":
            advice = ctx.text("advice_cut", type=t)
        else:
            advice = ctx.text("advice_default", name=layer.name)
        yield ctx.diag("unsupported", doc.path, rng, type=t, advice=advice)


def _input_dim_nodes(doc):
    return [n for n in doc.nodes if n.name == "input_dim"]


@rule("NN016", "legacy-form", W, step=None,
      summary=("Legacy prototxt form (V1 `layers`, `input_dim`)", "旧式 prototxt 写法（V1 `layers`、`input_dim`）"),
      messages={"v1": ("V1 `layers {{ }}` block: NNIE expects the new `layer {{ }}` form with a string type",
                       "V1 格式的 `layers {{ }}` 块：NNIE 要求新格式 `layer {{ }}` 与字符串类型"),
                "input_dim": ("legacy `input_dim` lines: declare the input with `input_shape {{ dim: … }}`",
                              "旧式 `input_dim` 写法：请用 `input_shape {{ dim: … }}` 声明输入"),
                "convert": ("Rewrite as input_shape {{ dim: … }}", "改写为 input_shape {{ dim: … }}")},
      fix="safe")
def nn016(project, ctx):
    """
    ## What it finds
    Legacy Caffe forms: V1 `layers { type: CONVOLUTION }` blocks and four top-level `input_dim`
    lines per input.

    ## Why
    The HiSVP guide and the Taurus kit docs require the new `layer { type: "Convolution" }` form
    and tell users to replace the leading `input_dim` block; converters (darknet2caffe,
    PytorchToCaffe) still emit `input_dim`.

    ## Example
    ```
    input: "data"
    input_dim: 1
    input_dim: 3
    input_dim: 416
    input_dim: 416
    ```
    becomes `input_shape { dim: 1 dim: 3 dim: 416 dim: 416 }`.

    ## Fix
    `input_dim` → `input_shape` is safe (the parsed shape is identical) when the dims are
    consecutive lines with no comments between them. V1 blocks: no automatic fix.
    """
    doc = project.prototxt
    if doc is None:
        return
    for n in doc.nodes:
        if n.name == "layers":
            yield ctx.diag("v1", doc.path, n.name_range)
    dims = _input_dim_nodes(doc)
    if not dims:
        return
    fix = None
    top_names = [n.name for n in doc.nodes]
    start = top_names.index("input_dim")
    block = doc.nodes[start:start + len(dims)]
    contiguous = all(n.name == "input_dim" for n in block) and len(dims) % 4 == 0
    idx = doc.line_index
    a, b = idx.offset(dims[0].range.start), idx.offset(dims[-1].range.end)
    has_comment = any(a <= idx.offset(r.start) < b for r, _ in doc.comments)
    if contiguous and not has_comment:
        parts = []
        indent = idx.line_text(dims[0].range.start.line)[:dims[0].range.start.character]
        indent = indent if not indent.strip() else ""
        for k in range(0, len(dims), 4):
            vals = [d.value_text for d in dims[k:k + 4]]
            body = "\n".join(f"{indent}  dim: {v}" for v in vals)
            parts.append(f"input_shape {{\n{body}\n{indent}}}")
        new = f"\n{indent}".join(parts)
        fix = ctx.fix("convert", [(doc.path, TextEdit(Range(dims[0].range.start, dims[-1].range.end), new))], safe=True)
    yield ctx.diag("input_dim", doc.path, Range(dims[0].range.start, dims[min(3, len(dims) - 1)].range.end), fix=fix)


def _batch_dim_nodes(doc, g):
    """(input name, node of its first dim) for each input whose shape is declared."""
    out = []
    shapes = children_top(doc, "input_shape")
    dims = _input_dim_nodes(doc)
    names = [n.value for n in doc.nodes if n.name == "input"]
    for k, name in enumerate(names):
        if k < len(shapes):
            d = children(shapes[k], "dim")
            if d:
                out.append((name, d[0]))
        elif len(dims) >= 4 * (k + 1):
            out.append((name, dims[4 * k]))
    for layer in g.layers:
        if layer.type == "Input":
            shapes_l = children(child(layer.source.node, "input_param"), "shape")
            for j, top in enumerate(layer.tops):
                s = shapes_l[j] if j < len(shapes_l) else (shapes_l[0] if len(shapes_l) == 1 else None)
                d = children(s, "dim") if s is not None else ()
                if d:
                    out.append((top, d[0]))
    return out


def children_top(doc, name):
    return [n for n in doc.nodes if n.name == name]


@rule("NN017", "input-batch-not-one", W, step=None,
      summary=("Input batch dimension is not 1", "输入的 batch 维不为 1"),
      messages={"batch": ("input \"{name}\" declares batch {n}; NNIE expects 1 (the mapper sets N from [batch_num] and the image count)",
                          "输入 \"{name}\" 的 batch 为 {n}；NNIE 要求为 1（N 由 [batch_num] 与图片数决定）"),
                "set": ("Set the batch dimension to 1", "将 batch 维改为 1")},
      fix="safe")
def nn017(project, ctx):
    """
    ## What it finds
    A network input declared with a first (batch) dimension other than 1.

    ## Why
    The guide says n should be 1 in the prototxt: nnie_mapper sets N itself from the image count
    and `[batch_num]`, and no NNIE operation may touch the batch dimension.

    ## Example
    ```
    input_shape { dim: 8 dim: 3 dim: 224 dim: 224 }
    ```

    ## Fix
    Set the first dim to 1 (safe: the mapper ignores the declared batch for mapping).
    """
    doc, g = project.prototxt, project.graph
    if doc is None or g is None:
        return
    for name, node in _batch_dim_nodes(doc, g):
        try:
            n = int(node.value)
        except (TypeError, ValueError):
            continue
        if n != 1:
            fix = ctx.fix("set", [(doc.path, TextEdit(node.value_range, "1"))], safe=True)
            yield ctx.diag("batch", doc.path, node.value_range, fix=fix, name=name, n=n)


POWER_ALLOWED = (-3.0, -2.0, -1.0, -0.5, 0.5, 1.0, 2.0, 3.0)
INT_PARAM_FIELDS = ("kernel_size", "kernel_h", "kernel_w", "stride", "stride_h", "stride_w", "pad", "pad_h", "pad_w")


@rule("NN018", "nnie-limit", E, step=None,
      summary=("A documented NNIE layer limit is broken", "违反 NNIE 文档记载的层限制"),
      messages={
          "permute": ("Permute order ({order}) is not supported: NNIE only permutes (0,1,2,3) -> (0,2,3,1)",
                      "Permute 的 order ({order}) 不受支持：NNIE 只支持 (0,1,2,3) -> (0,2,3,1)"),
          "ceil": ("Pooling `{field}` makes Caffe round {how}; the NNIE wk always rounds up (ceil), so outputs will differ: delete it and align the pads",
                   "Pooling 的 `{field}` 使 Caffe 按{how}取整；NNIE 的 wk 总是向上取整（ceil），输出会不一致：请删除它并对齐 pad"),
          "upsample": ("Upsample scale {scale}: NNIE only supports 2x nearest upsampling",
                       "Upsample 放大倍数为 {scale}：NNIE 只支持 2 倍最近邻上采样"),
          "power": ("Power exponent {power} is not supported: NNIE allows -3, -2, -1, -1/2, 1/2, 1, 2, 3",
                    "Power 指数 {power} 不受支持：NNIE 只允许 -3、-2、-1、-1/2、1/2、1、2、3"),
          "group": ("Convolution group {group} exceeds the NNIE limit of 2048",
                    "Convolution 的 group {group} 超过 NNIE 上限 2048"),
          "intparam": ("{field} {value} is outside 1-255, the range NNIE accepts for most integer layer parameters",
                       "{field} 为 {value}，超出 NNIE 对多数整型层参数允许的 1-255 范围"),
          "width": ("output \"{blob}\" is {width} wide: most NNIE layers accept feature maps up to 4096 wide",
                    "输出 \"{blob}\" 宽度为 {width}：多数 NNIE 层只支持宽度不超过 4096 的特征图"),
          "eltwise": ("Eltwise inputs have different shapes ({shapes}): the mapper fails with \"All inputs must have the same shape!\"",
                      "Eltwise 的输入形状不同（{shapes}）：mapper 会报错 \"All inputs must have the same shape!\""),
          "batch": ("{type} \"{layer}\" works on axis 0, the batch dimension: no NNIE operation may touch the batch dimension",
                    "{type} 层 \"{layer}\" 作用在第 0 维（batch 维）上：NNIE 的任何操作都不能涉及 batch 维"),
          "reshape_batch": ("Reshape \"{layer}\" sets the batch dimension to {n}: use 0 (copy) so the mapper can set N from [batch_num]",
                            "Reshape 层 \"{layer}\" 把 batch 维设为 {n}：请用 0（保持不变），以便 mapper 按 [batch_num] 设置 N"),
          "reshape": ("Reshape to {n} dims: users report the mapper needs 4-D shapes with first dim 0 (or deleting the Reshape)",
                      "Reshape 为 {n} 维：用户反馈 mapper 需要首维为 0 的 4 维形状（或删除该 Reshape）"),
      })
def nn018(project, ctx):
    """
    ## What it finds
    Layer parameters outside what NNIE maps, from the HiSVP guide §3.1.6 and user reports:
    Permute orders other than (0,2,3,1); Pooling `round_mode: FLOOR` (the wk always rounds up;
    a `ceil_mode` field from PyTorch converters is reported by NN011); Upsample scale other than
    2; operations on axis 0, the batch (Concat/Slice/Softmax/Flatten/Reduction `axis: 0`, a
    Reshape whose first dim is not 0); Power exponents outside −3, −2, −1, −½, ½, 1,
    2, 3; Convolution `group` > 2048; kernel/stride/pad outside 1–255 (pad 0 is fine); feature maps
    wider than 4096; Eltwise inputs of different shapes; Reshape to other than 4 dims (warning,
    user-reported).

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
    shapes = {}
    try:
        shapes = g.blob_shapes() or {}
    except Exception:  # shape inference is best effort
        shapes = {}
    for layer in g.layers:
        src, p, t = layer.source, layer.source.param, layer.type
        if t == "Permute" and p.HasField("permute_param"):
            order = tuple(p.permute_param.order)
            if order and order not in ((0, 2, 3, 1),):
                yield ctx.diag("permute", doc.path, field_range(src, "permute_param", "order"),
                               order=",".join(map(str, order)))
        elif t == "Pooling":
            pp = child(src.node, "pooling_param")
            rm = child(pp, "round_mode")
            if rm is not None and str(rm.value).upper() == "FLOOR":
                yield ctx.diag("ceil", doc.path, rm.range, severity=W, field="round_mode: FLOOR",
                               how="down (floor)" if not ctx.lang.startswith("zh") else "向下")
        elif t == "Upsample":
            up = child(src.node, "upsample_param")
            for fname in ("scale", "scale_h", "scale_w"):
                n = child(up, fname)
                if n is not None and _num(n.value) not in (2, None):
                    yield ctx.diag("upsample", doc.path, n.value_range, scale=n.value_text)
        elif t == "Power":
            n = child(src.node, "power_param", "power")
            v = _num(n.value) if n is not None else None
            if v is not None and not any(abs(v - a) < 1e-9 for a in POWER_ALLOWED):
                yield ctx.diag("power", doc.path, n.value_range, power=n.value_text)
        if t in ("Convolution", "Deconvolution", "DepthwiseConvolution"):
            n = child(src.node, "convolution_param", "group")
            v = _num(n.value) if n is not None else None
            if v is not None and v > 2048:
                yield ctx.diag("group", doc.path, n.value_range, group=n.value_text)
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
                        yield ctx.diag("intparam", doc.path, n.value_range, field=fname, value=n.value_text)
        if t == "Reshape":
            dims = children(child(src.node, "reshape_param", "shape"), "dim")
            if dims and len(dims) != 4:
                yield ctx.diag("reshape", doc.path, layer_anchor(src), severity=W, n=len(dims))
            elif dims and _num(dims[0].value) not in (0, None):
                yield ctx.diag("reshape_batch", doc.path, dims[0].value_range, severity=W, layer=layer.name,
                               n=dims[0].value_text)
        axis_field = _BATCH_AXIS_FIELDS.get(t)
        if axis_field is not None:
            pnode = child(src.node, axis_field[0])
            for fname in axis_field[1:]:
                n = child(pnode, fname)
                if n is not None and _num(n.value) == 0:
                    yield ctx.diag("batch", doc.path, n.value_range, type=t, layer=layer.name)
        if t == "Eltwise" and len(layer.bottoms) > 1:
            ins = [shapes.get(b) for b in layer.bottoms]
            if all(s is not None for s in ins) and len({tuple(s) for s in ins}) > 1:
                yield ctx.diag("eltwise", doc.path, layer_anchor(src),
                               shapes=", ".join("x".join(map(str, s)) for s in ins))
        for top in layer.tops:
            s = shapes.get(top)
            if s is not None and len(s) == 4 and s[3] is not None and s[3] > 4096 and top not in layer.bottoms:
                yield ctx.diag("width", doc.path, layer_anchor(src), severity=W, blob=top, width=s[3])


# layer type -> (parameter message, axis fields); axis 0 is the batch (defaults are never 0)
_BATCH_AXIS_FIELDS = {
    "Concat": ("concat_param", "axis", "concat_dim"),
    "Slice": ("slice_param", "axis", "slice_dim"),
    "Softmax": ("softmax_param", "axis"),
    "Flatten": ("flatten_param", "axis"),
    "Reduction": ("reduction_param", "axis"),
    "ArgMax": ("argmax_param", "axis"),
}


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


@rule("NN019", "stride1-pool-shrinks-map", W, step=None,
      summary=("A 2×2 stride-1 max pooling shrinks the map by one (darknet keeps the size)",
               "2×2、步长 1 的最大池化会使特征图缩小 1（darknet 保持尺寸不变）"),
      messages={"shrink": ("Pooling \"{layer}\" (kernel 2, stride 1, pad 0) makes {blob} {out} from {inp}: darknet's size-2 stride-1 maxpool keeps {inp}, so the heads after it no longer have the grid the darknet model (anchors, decoding) expects",
                           "池化层 \"{layer}\"（kernel 2、stride 1、pad 0）使 {blob} 从 {inp} 变为 {out}：darknet 的 size=2 stride=1 maxpool 保持 {inp} 不变，其后检测头的网格与 darknet 模型（anchor、解码）不再一致")})
def nn019(project, ctx):
    """
    ## What it finds
    A MAX Pooling layer with a 2×2 kernel, stride 1 and no padding — the darknet2caffe translation
    of darknet's `[maxpool] size=2 stride=1` (yolov3-tiny's 6th pooling layer).

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
    for layer in pools:
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
        yield ctx.diag("shrink", doc.path, layer_anchor(layer.source), layer=layer.name,
                       blob=layer.tops[0] if layer.tops else "?", inp=fmt(inp), out=fmt(out))

"""Schema and graph rules NN010-NN017: the prototxt as nnie_mapper will read it.

Syntax, unknown fields and bad values (from the reader), undefined bottoms, duplicate layer names,
unsupported layer types, legacy forms and the input batch.  The documented NNIE layer limits
(NN018-NN019) are in :mod:`.layer_limits`, imported here so that loading this module registers
both.
"""

from __future__ import annotations

from ..diagnostics import Severity
from ..prototxt import layers as layer_table
from ..text import Range, TextEdit
from . import layer_limits  # noqa: F401  (registers NN018-NN019 with the rules below)
from ._proto import child, children, layer_anchor
from .registry import rule


def _reader_errors(project, ctx, code):
    doc = project.prototxt
    if doc is None:
        return
    for err in doc.errors:
        if err.code == code:
            yield ctx.diag("err", doc.path, err.range, message=err.message)


@rule("NN010", "prototxt-syntax", Severity.ERROR, step=None,
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


@rule("NN011", "unknown-field", Severity.ERROR, step=None,
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


@rule("NN012", "bad-value", Severity.ERROR, step=None,
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


@rule("NN013", "undefined-bottom", Severity.ERROR, step=None,
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


@rule("NN014", "duplicate-layer-name", Severity.ERROR, step=None,
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


@rule("NN015", "unsupported-layer", Severity.ERROR, step=None,
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
        spec = layer_table.lookup(t)
        if spec is not None and spec.support != "unsupported":
            continue
        rng = layer.source.type_range or layer_anchor(layer.source)
        if spec is None:
            close = layer_table.suggest(t)
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


@rule("NN016", "legacy-form", Severity.WARNING, step=None,
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


@rule("NN017", "input-batch-not-one", Severity.WARNING, step=None,
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

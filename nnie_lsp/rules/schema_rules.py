"""Schema and graph rules NN010-NN016 and NN020: the prototxt as nnie_mapper will read it.

Syntax, unknown fields and bad values (from the reader), undefined bottoms, duplicate layer names,
unsupported layer types, legacy forms and the layers outside the TEST net.  The input batch
(NN017) is in :mod:`.input_batch`, the documented NNIE layer limits (NN018-NN019) in
:mod:`.layer_limits` and the layers the net cannot be set up with (NN021) in
:mod:`.layer_setup`, imported here so that loading this module registers them all.

Rules look at the TEST net nnie_mapper converts (``project.graph.layers``); layers of other
phases (``graph.excluded``) are only counted by NN020.  Syntax and schema errors (NN010-NN012)
are reported everywhere in the file: the mapper's parser reads it whole.
"""

from __future__ import annotations

from ..diagnostics import Severity
from ..lang import pick
from ..prototxt import layers as layer_table
from ..prototxt.python_layers import python_layer_advice
from ..text import Range, TextEdit
from ._proto import layer_anchor, line_directives, names_text, top_level
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
      messages={"undefined": ("bottom \"{blob}\" of layer \"{layer}\" is not produced by any earlier layer or input{hint}{more}",
                              "层 \"{layer}\" 的 bottom \"{blob}\" 不是任何前面的层或输入产生的{hint}{more}"),
                "more": ("; also read by {n} more: {layers}", "；另有 {n} 个层也读取它：{layers}"),
                "also": ("layer \"{layer}\" also reads \"{blob}\"", "层 \"{layer}\" 也读取 \"{blob}\""),
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

    One finding per missing blob, at its first reader; the other layers reading it are related
    locations (a net cut before a deleted head often has one blob read by dozens of layers).

    ## Fix
    Unsafe: rename to the closest defined blob, when one is close enough (in every layer that
    reads the missing blob).
    """
    doc, g = project.prototxt, project.graph
    if doc is None or g is None:
        return
    defined = {i.name for i in g.inputs}
    later_producer = {}
    for layer in g.layers:
        for t in layer.tops:
            later_producer.setdefault(t, layer.name)
    readers: dict[str, list] = {}  # missing blob -> [(layer, range)] in order
    close_at_first: dict[str, str | None] = {}
    for layer in g.layers:
        if all(b in defined for b in layer.bottoms):  # fast path: no ranges needed
            defined.update(layer.tops)
            continue
        for blob, rng in layer.source.bottoms:
            if blob in defined:
                continue
            if blob not in readers:
                import difflib  # only for a missing blob (start-up)

                close = difflib.get_close_matches(blob, sorted(defined), n=1, cutoff=0.8)
                close_at_first[blob] = close[0] if close else None
            readers.setdefault(blob, []).append((layer, rng))
        defined.update(layer.tops)
    directives = line_directives(doc) if readers else []
    for blob, places in readers.items():
        suggestion = close_at_first[blob]
        grouped = []
        for layer, rng in places:
            probe = ctx.diag("undefined", doc.path, rng, blob=blob, layer=layer.name, hint="", more="")
            if any(d.covers(probe) for d in directives):  # a suppressed place silences only itself
                yield _undefined(ctx, doc, blob, [(layer, rng)], suggestion, later_producer)
            else:
                grouped.append((layer, rng))
        if grouped:
            yield _undefined(ctx, doc, blob, grouped, suggestion, later_producer)


def _undefined(ctx, doc, blob, places, suggestion, later_producer):
    """NN013 for one missing blob: at its first reader, the other readers as related places."""
    (layer, rng), others = places[0], places[1:]
    hint = ""
    fix = None
    if blob in later_producer and later_producer[blob] != layer.name:
        hint = ctx.text("later", producer=later_producer[blob])
    elif suggestion:
        hint = ctx.text("hint", suggestion=suggestion)
        from ..fixes import replace_string_token
        fix = ctx.fix("rename", [(doc.path, replace_string_token(doc, r, suggestion)) for _, r in places],
                      safe=False, suggestion=suggestion)
    more = ctx.text("more", n=len(others), layers=names_text([other.name for other, _ in others])) if others else ""
    related = [ctx.related("also", doc.path, r, blob=blob, layer=other.name) for other, r in others]
    return ctx.diag("undefined", doc.path, rng, fix=fix, related=related, blob=blob, layer=layer.name,
                    hint=hint, more=more)


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
                                 "这是仅用于训练的层：请从部署用 prototxt 中删除"),
                "python": ("Python layer \"{layer_class}\" does not run on NNIE: {advice}",
                           "Python 层 \"{layer_class}\" 无法在 NNIE 上运行：{advice}")})
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

    A pycaffe `type: "Python"` layer gets the advice of its class (`python_param { layer: … }`):
    Faster R-CNN / R-FCN's `ProposalLayer` is needed at inference and becomes NNIE's `Proposal`
    layer with `[net_type] 1` (docs/field-facts.md §7.3, §16.4); training-only classes
    (`AnchorTargetLayer`, `ProposalTargetLayer`, `SpatialDropout`) are deleted; `RoIDataLayer`
    becomes an input declaration; other classes get the general advice.

    ## Example
    ```
    layer { name: "detection_out" type: "DetectionOutput" ... }    # run on the CPU instead
    layer { name: "proposal" type: "Python" bottom: "rpn_cls_prob_reshape" bottom: "rpn_bbox_pred"
            bottom: "im_info" top: "rois"
            python_param { module: "rpn.proposal_layer" layer: "ProposalLayer" } }   # -> Proposal
    ```

    ## Fix
    None automatic: it is a design decision where to cut the net.
    """
    doc, g = project.prototxt, project.graph
    if doc is None or g is None:
        return
    for layer in g.layers:
        t = layer.type
        if not t or layer_table.is_cpu_layer_name(layer.name):
            continue
        spec = layer_table.lookup(t)
        if spec is not None and spec.support != "unsupported":
            continue
        rng = layer.source.type_range or layer_anchor(layer.source)
        if t == "Python" and not layer.source.is_v1:
            yield _python_layer(layer, rng, doc, ctx)
            continue
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


def _python_layer(layer, rng, doc, ctx):
    """NN015 for a pycaffe layer: the advice depends on its class (``python_param.layer``)."""
    layer_class = layer.param.python_param.layer
    known = python_layer_advice(layer_class) if layer_class else None
    if known is None:
        advice = ctx.text("advice_default", name=layer.name)
    else:
        advice = pick((known.en, known.zh), ctx.lang)
    return ctx.diag("python", doc.path, rng, layer_class=layer_class or "?", advice=advice)


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
    outside = {id(e.layer.source.node) for e in project.graph.excluded} if project.graph is not None else set()
    for n in doc.nodes:
        if n.name == "layers" and id(n) not in outside:
            yield ctx.diag("v1", doc.path, n.name_range)
    dims = top_level(doc, "input_dim")
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


@rule("NN020", "layers-outside-test-net", Severity.INFO, step=None,
      summary=("Layers outside the TEST net are not checked", "不属于 TEST 网络的层不做检查"),
      messages={"excluded": ("{n} layers are not part of the TEST net nnie_mapper converts ({reasons}) and are not checked: {layers}",
                             "{n} 个层不属于 nnie_mapper 转换的 TEST 网络（{reasons}），不做检查：{layers}"),
                "one": ("layer \"{layer}\" is not part of the TEST net nnie_mapper converts ({reasons}) and is not checked",
                        "层 \"{layer}\" 不属于 nnie_mapper 转换的 TEST 网络（{reasons}），不做检查"),
                "also": ("layer \"{layer}\": {reason}", "层 \"{layer}\"：{reason}")},
      docs_zh=("BVLC 的 train_val.prototxt 同时包含 TRAIN 与 TEST 两个阶段的层（`include { phase: TRAIN }` 等），"
               "nnie_mapper 转换的是部署/TEST 网络。不属于 TEST 网络的层不参与任何检查，这里每个文件只提示一次被忽略的层数；"
               "语法与字段错误（NN010-NN012）仍在整个文件中报告，因为 mapper 会解析整个文件。"))
def nn020(project, ctx):
    """
    ## What it finds
    Layers that Caffe's phase rules leave out of the TEST net (`include { phase: TRAIN }`,
    `exclude { phase: TEST }`, a `stage` or `min_level` the deploy net does not have).  Said once
    per file, at the first such layer, with the others as related locations.

    ## Why
    A BVLC `train_val.prototxt` holds the layers of both phases, often with the same names; NNIE
    converts the deploy/TEST net (docs/field-facts.md §16.4), so the other layers are not part of
    the NNIE net and no rule reports them as NNIE problems.  This note says which layers were
    left out, so that a layer you expected to be checked is not silently skipped.  Syntax and
    schema errors (NN010-NN012) are still reported in those layers: the mapper's parser reads the
    whole file.

    ## Example
    ```
    layer { name: "data" type: "Data" top: "data" top: "label" include { phase: TRAIN } ... }
    layer { name: "data" type: "Data" top: "data" top: "label" include { phase: TEST } ... }
    ```

    ## Fix
    None needed.  To convert, a deploy prototxt without the training layers is the usual input.
    """
    doc, g = project.prototxt, project.graph
    if doc is None or g is None or not g.excluded:
        return
    counts: dict[str, int] = {}
    for excluded in g.excluded:
        counts[excluded.reason] = counts.get(excluded.reason, 0) + 1
    reasons = "; ".join(r if n == 1 else f"{r} ×{n}" for r, n in counts.items())
    first, others = g.excluded[0], g.excluded[1:]
    related = [ctx.related("also", doc.path, layer_anchor(e.layer.source), layer=e.layer.name or e.layer.type,
                           reason=e.reason) for e in others]
    rng = layer_anchor(first.layer.source)
    if not others:
        yield ctx.diag("one", doc.path, rng, layer=first.layer.name or first.layer.type, reasons=reasons)
        return
    names = names_text([e.layer.name or e.layer.type for e in g.excluded])
    yield ctx.diag("excluded", doc.path, rng, related=related, n=len(g.excluded), reasons=reasons, layers=names)

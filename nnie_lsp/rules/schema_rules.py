"""Schema and graph rules NN010-NN014 and NN016: the prototxt as nnie_mapper will read it.

Syntax, unknown fields and bad values (from the reader), undefined bottoms, duplicate layer names,
legacy forms.  The layers NNIE cannot map (NN015) are in :mod:`.layer_support`, which net is
judged (NN020) in :mod:`.judged_net`, the input batch (NN017) in :mod:`.input_batch`, the
documented NNIE layer limits (NN018-NN019) in :mod:`.layer_limits` and the layers the net cannot
be set up with (NN021) in :mod:`.layer_setup`; the rule index (:mod:`.index`) says which module
registers which code.

Rules look at the TEST net nnie_mapper converts (``project.graph.layers``); layers of other
phases (``graph.excluded``) are only named by NN020.  Syntax and schema errors (NN010-NN012)
are reported everywhere in the file: the mapper's parser reads it whole.
"""

from __future__ import annotations

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.core.text import Range, TextEdit
from nnie_lsp.rules._proto import layer_anchor, line_directives, names_text, top_level
from nnie_lsp.core.registry import rule


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
                               "[prototxt_file] {file} 是二进制数据，不是文本格式的 prototxt（是 .caffemodel 吗？）")},
      docs_zh=('prototxt 不是合法的 protobuf 文本格式（未闭合的字符串、'
               '缺少 `}` 等）。mapper 遇到第一个错误就停止；这里一次列出全部错误（最多 '
               '25 个）。'))
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
                              "`ceil_mode` 不是 Caffe 字段（PyTorch 转换工具会添加）；NNIE 指南要求删除它：wk 的池化总是向上取整（ceil），请删除并对齐 pad")},
      docs_zh=('Caffe 模式（BVLC caffe.proto 加 NNIE 扩展层）'
               '中没有该字段，例如 `botom:`；mapper 的解析器会拒绝整个文件，'
               '而 OpenCV 等工具可能悄悄接受。来自 PyTorch 转换工具的 '
               '`ceil_mode` 也在此报告：NNIE 的池化总是向上取整，应删除它并对齐 '
               'pad。'))
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
    owned = _fork_param_blocks(project) if any(e.code == "NN011" for e in doc.errors) else {}
    idx = doc.line_index
    for err in doc.errors:
        if err.code != "NN011":
            continue
        name = doc.text[idx.offset(err.range.start):idx.offset(err.range.end)]
        if name == "ceil_mode":
            yield ctx.diag("ceil_mode", doc.path, err.range)
        elif err.range in owned:
            continue  # the layer's type is reported by NN015, its block with it
        else:
            yield ctx.diag("err", doc.path, err.range, message=_with_block_hint(project, err, name, ctx))


def _layer_blocks(project):
    """(layer source, its direct child node) for every ``*_param`` block directly in a layer."""
    for ls in project.prototxt.layers:
        for n in ls.node.children:
            if n.name.endswith("_param") and n.field is None:
                yield ls, n


def _fork_param_blocks(project) -> dict:
    """Name ranges of the parameter blocks that belong to a layer type NN015 reports (a fork's
    ``bn_param`` in a ``type: "BN"`` layer of the judged net): one finding for the layer."""
    from nnie_lsp.readers.prototxt.fork_layers import fork_layer
    from nnie_lsp.readers.prototxt.schema import param_field_for_type
    from nnie_lsp.readers.prototxt.layers import lookup
    from nnie_lsp.rules.layer_support import FORK, TRAINING_ONLY, UNKNOWN, layer_verdicts

    g = project.graph
    if g is None:
        return {}
    # a type no table knows, judged training-only by its name (CTC losses of OCR forks), too
    reported = {id(v.layer.source) for v in layer_verdicts(g)
                if v.kind in (FORK, UNKNOWN) or fork_layer(v.layer.type) is not None
                or (v.kind == TRAINING_ONLY and lookup(v.layer.type) is None)}
    out = {}
    for ls, n in _layer_blocks(project):
        if id(ls) not in reported:
            continue
        fork = fork_layer(ls.type)
        own = fork.param_field if fork is not None else _snake_param(ls.type)
        if n.name == own or n.name == param_field_for_type(ls.type):
            out[n.name_range] = ls
    return out


def _snake_param(layer_type: str) -> str:
    import re

    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", layer_type)
    s = re.sub(r"(?<=[A-Z])([A-Z][a-z])", r"_\1", s)
    return s.lower() + "_param"


def _with_block_hint(project, err, name, ctx) -> str:
    """An unknown ``*_param`` block in a layer gets a did-you-mean only for the layer type's own
    block (``upsampe_param`` in an Upsample layer), never another type's (the reader gives none)."""
    from nnie_lsp.readers.prototxt.schema import is_param_block, param_block_suggestion

    msg = err.message
    if not is_param_block("caffe.LayerParameter", name) or not msg.startswith('Message type "caffe.LayerParameter"'):
        return msg
    for ls, n in _layer_blocks(project):
        if n.name_range == err.range:
            close = param_block_suggestion(ls.type, name)
            return msg + (f' Did you mean "{close}" (the {ls.type} layer\'s block)?' if close else "")
    return msg


@rule("NN012", "bad-value", Severity.ERROR, step=None,
      summary=("Bad prototxt value or enum", "prototxt 值或枚举无效"),
      messages={"err": ("{message}", "值无效：{message}")},
      docs_zh=('字段值类型错误（数字字段写了字符串、整型字段写了小数等）、枚举值不存在（如 '
               '`pool: MEAN`），或非重复字段写了两次。'))
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
                "several": ("bottoms {blobs} of layer \"{layer}\" are not produced by any earlier layer or input{hint}{more}",
                            "层 \"{layer}\" 的 bottom {blobs} 不是任何前面的层或输入产生的{hint}{more}"),
                "more": ("; also read by {n} more: {layers}", "；另有 {n} 个层也读取它：{layers}"),
                "also": ("layer \"{layer}\" also reads \"{blob}\"", "层 \"{layer}\" 也读取 \"{blob}\""),
                "same_layer": ("bottom \"{blob}\" of the same layer is not produced either", "同一层的 bottom \"{blob}\" 也没有被产生"),
                "hint": ("; did you mean \"{suggestion}\"?", "；是否应为 \"{suggestion}\"？"),
                "later": (" (layer \"{producer}\" produces it later: layers must be in topological order)",
                          "（层 \"{producer}\" 在后面才产生它：层必须按拓扑顺序排列）"),
                "rename": ("Use \"{suggestion}\"", "改为 \"{suggestion}\"")},
      fix="unsafe",
      docs_zh=('bottom 引用的 blob 没有被任何输入或前面的层产生：多为笔误、'
               '裁剪网络（删除 SSD/YOLO 检测头）时删掉了层，或层顺序不对。同一原因只报一次：'
               '一个层最先读取的所有缺失 blob 合并为该层的一条结果（读取六个已删除检测头的 '
               'Concat 只报一条），其他读取它们的层作为相关位置。只由被检查网络之外的层（如 '
               '`phase: TRAIN` 的数据层）产生的 blob 不在此报告，而由 '
               'NN020 说明。'))
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

    One finding per cause: the missing blobs a layer is the first to read are one finding at that
    layer (a Concat reading six deleted heads is one finding); the other layers reading them are
    related locations (a net cut before a deleted head often has one blob read by dozens of layers).
    A blob made only by layers outside the judged net (a `phase: TRAIN` data layer of a training
    file) is not reported here: NN020 says that the judged net has no producer for it.

    ## Fix
    Unsafe: rename to the closest defined blob, when one is close enough (in every layer that
    reads the missing blob), offered when the finding is about one blob.
    """
    doc, g = project.prototxt, project.graph
    if doc is None or g is None:
        return
    defined = {i.name for i in g.inputs}
    outside = {t for e in g.excluded for t in e.layer.tops}  # NN020's to say
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
            if blob in defined or (blob in outside and blob not in later_producer):
                continue
            if blob not in readers:
                import difflib  # only for a missing blob (start-up)

                close = difflib.get_close_matches(blob, sorted(defined), n=1, cutoff=0.8)
                close_at_first[blob] = close[0] if close else None
            readers.setdefault(blob, []).append((layer, rng))
        defined.update(layer.tops)
    directives = line_directives(doc) if readers else []
    by_first: dict[int, list] = {}  # first reader's layer index -> [(blob, places)]
    for blob, places in readers.items():
        grouped = []
        for layer, rng in places:
            probe = ctx.diag("undefined", doc.path, rng, blob=blob, layer=layer.name, hint="", more="")
            if any(d.covers(probe) for d in directives):  # a suppressed place silences only itself
                yield _undefined(ctx, doc, [(blob, [(layer, rng)])], close_at_first, later_producer)
            else:
                grouped.append((layer, rng))
        if grouped:
            by_first.setdefault(grouped[0][0].index, []).append((blob, grouped))
    for group in by_first.values():
        yield _undefined(ctx, doc, group, close_at_first, later_producer)


def _undefined(ctx, doc, blobs, close_at_first, later_producer):
    """NN013 for the missing blobs one layer reads first: at its first missing bottom; the
    layer's other missing bottoms and the other readers are related places."""
    blob, places = blobs[0]
    (layer, rng), others = places[0], places[1:]
    hint = ""
    fix = None
    if blob in later_producer and later_producer[blob] != layer.name:
        hint = ctx.text("later", producer=later_producer[blob])
    elif close_at_first.get(blob) and len(blobs) == 1:
        suggestion = close_at_first[blob]
        hint = ctx.text("hint", suggestion=suggestion)
        from nnie_lsp.rules.fixes import replace_string_token
        fix = ctx.fix("rename", [(doc.path, replace_string_token(doc, r, suggestion)) for _, r in places],
                      safe=False, suggestion=suggestion)
    related = []
    for other_blob, other_places in blobs[1:]:
        related.append(ctx.related("same_layer", doc.path, other_places[0][1], blob=other_blob))
    for b, ps in blobs:
        related += [ctx.related("also", doc.path, r, blob=b, layer=other.name)
                    for other, r in (ps[1:] if b == blob else ps[1:])]
    readers = [other.name for other, _ in others]
    for _, ps in blobs[1:]:
        readers += [other.name for other, _ in ps[1:] if other.name not in readers]
    more = ctx.text("more", n=len(readers), layers=names_text(readers)) if readers else ""
    if len(blobs) == 1:
        return ctx.diag("undefined", doc.path, rng, fix=fix, related=related, blob=blob, layer=layer.name,
                        hint=hint, more=more)
    return ctx.diag("several", doc.path, rng, fix=fix, related=related, layer=layer.name, hint=hint, more=more,
                    blobs=names_text([b for b, _ in blobs]))


@rule("NN014", "duplicate-layer-name", Severity.ERROR, step=None,
      summary=("Two layers share a name", "两个层同名"),
      messages={"dup": ("layer name \"{name}\" is used again (first at line {line})",
                        "层名 \"{name}\" 重复（第一次出现在第 {line} 行）"),
                "first": ("first layer named \"{name}\"", "第一个名为 \"{name}\" 的层")},
      docs_zh=('两个层同名：caffemodel 权重和 mapper 的逐层输出（mapper_quant/<层名>_outp'
               'ut…）都按层名对应，第二个层会拿到第一个层的权重，对比也无法区分它们。'))
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


@rule("NN016", "legacy-form", Severity.WARNING, step=None,
      summary=("Legacy prototxt form (V1 `layers`, `input_dim`)", "旧式 prototxt 写法（V1 `layers`、`input_dim`）"),
      messages={"v1": ("V1 `layers {{ }}` block: NNIE expects the new `layer {{ }}` form with a string type",
                       "V1 格式的 `layers {{ }}` 块：NNIE 要求新格式 `layer {{ }}` 与字符串类型"),
                "input_dim": ("legacy `input_dim` lines: declare the input with `input_shape {{ dim: … }}`",
                              "旧式 `input_dim` 写法：请用 `input_shape {{ dim: … }}` 声明输入"),
                "convert": ("Rewrite as input_shape {{ dim: … }}", "改写为 input_shape {{ dim: … }}")},
      fix="safe",
      docs_zh=('旧式写法：V1 的 `layers { type: CONVOLUTION '
               '}` 与顶层的四个 `input_dim`。NNIE 要求新格式；把 `input_dim` '
               '改写为 `input_shape` 的修复是安全的。'))
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

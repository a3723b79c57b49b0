"""NN015: the layers of the judged net that NNIE cannot map, with the advice of what the file
really says -- a pycaffe layer by its module and class, a Caffe fork's type (``BN``) by its
entry in :mod:`nnie_lsp.readers.prototxt.fork_layers`, a DummyData that feeds the net by the Input layer
it should become.  One finding per cause: every training-only layer of a net is one finding (the
others as related locations), as is every layer of one unsupported type or Python class.

:func:`layer_verdicts` is also what NN011 (a fork type's parameter block is part of this finding)
and NN020 (is this a training net?) read.
"""

from __future__ import annotations

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.core.lang import pick
from nnie_lsp.readers.prototxt import layers as layer_table
from nnie_lsp.readers.prototxt.fork_layers import fork_layer
from nnie_lsp.readers.prototxt.python_layers import TRAINING, python_layer_advice
from nnie_lsp.core.records import NamedTuple
from nnie_lsp.core.text import Range, TextEdit
from nnie_lsp.rules import crop_identity
from nnie_lsp.rules._proto import Place, child, layer_anchor, line_directives, names_text, one_per_cause
from nnie_lsp.core.registry import rule

# verdict kinds
TRAINING_ONLY = "training"   # delete it (said once per net)
DUMMY_INPUT = "dummy_input"  # DummyData feeding the net: an Input layer of the same shape
PYTHON = "python"            # a pycaffe layer: the advice of its class
FORK = "fork"                # a Caffe fork's type with a known NNIE answer (BN)
UNKNOWN = "unknown"          # a type no table knows
UNSUPPORTED = "unsupported"  # a known type NNIE does not map
UNCONFIRMED = "unconfirmed"  # an NNIE operation under a type name no published list has

#: layers that only move values about: one that feeds nothing but training-only layers is one too
#: (a CRNN's Permute before its CTC loss and accuracy)
LAYOUT_TYPES = frozenset({"Permute", "Reshape", "Flatten", "Split", "Transpose"})


class Verdict(NamedTuple):
    """What NN015 says about one layer of the judged net (``why``: the reason in words)."""

    layer: object  # GraphLayer
    kind: str
    why: tuple[str, str] = ("", "")


def layer_verdicts(graph) -> list[Verdict]:
    """The layers of the judged net that NNIE cannot map, in net order.  A DummyData is the
    net's input when a layer that is not training-only reads one of its tops; otherwise it only
    feeds a training net (labels, losses) and is training-only too."""
    out: list[Verdict] = []
    dummies = []
    for layer in graph.layers:
        t = layer.type
        if not t or layer_table.is_cpu_layer_name(layer.name):
            continue
        spec = layer_table.lookup(t)
        if spec is not None and spec.support != "unsupported":
            if spec.confirmed_as:
                out.append(Verdict(layer, UNCONFIRMED, (spec.limits, "")))
            continue
        if t == "DummyData":
            dummies.append(layer)
            continue
        if t == "Python" and not layer.source.is_v1:
            pp = layer.param.python_param
            advice = python_layer_advice(pp.layer, pp.module) if pp.layer else None
            kind = TRAINING_ONLY if advice is not None and advice.action == TRAINING else PYTHON
            why = (advice.en, advice.zh) if advice is not None else ("", "")
            out.append(Verdict(layer, kind, why))
            continue
        fork = fork_layer(t)
        if fork is not None:
            out.append(Verdict(layer, TRAINING_ONLY if fork.action == TRAINING else FORK, (fork.en, fork.zh)))
        elif spec is None and _training_by_name(layer):
            out.append(Verdict(layer, TRAINING_ONLY, ("read from its type name or `loss_weight` (inferred)",
                                                      "由类型名或 `loss_weight` 推断")))
        elif spec is None:
            out.append(Verdict(layer, UNKNOWN))
        elif spec.training_only:
            out.append(Verdict(layer, TRAINING_ONLY, (spec.doc_en, spec.doc_zh)))
        else:
            out.append(Verdict(layer, UNSUPPORTED))
    out = _feeding_training(graph, out)
    if dummies:
        training = {id(v.layer) for v in out if v.kind == TRAINING_ONLY}
        read_by_net = {b for layer in graph.layers if id(layer) not in training and layer.type != "DummyData"
                       for b in layer.bottoms}
        for layer in dummies:
            feeds = any(t in read_by_net for t in layer.tops)
            why = (layer_table.lookup("DummyData").doc_en, layer_table.lookup("DummyData").doc_zh)
            out.append(Verdict(layer, DUMMY_INPUT if feeds else TRAINING_ONLY, why))
        order = {id(layer): i for i, layer in enumerate(graph.layers)}
        out.sort(key=lambda v: order[id(v.layer)])
    return out


def _training_by_name(layer) -> bool:
    """A type no table knows that says it is a loss or a metric: its name ends in ``Loss`` or holds
    ``Accuracy``, or it has a ``loss_weight`` (inferred, and the advice says so)."""
    t = layer.type
    if t.endswith("Loss") or "Accuracy" in t:
        return True
    return any(n.name == "loss_weight" for n in layer.source.node.children)


def _feeding_training(graph, verdicts: list[Verdict]) -> list[Verdict]:
    """Layout layers (:data:`LAYOUT_TYPES`) and Input layers whose every reader is training-only are
    training-only too: deleting the loss leaves them dangling (a CRNN's Permute feeding only the
    CTC loss and the accuracy, its `label` Input)."""
    training = {id(v.layer) for v in verdicts if v.kind == TRAINING_ONLY}
    if not training:
        return verdicts
    added: list[Verdict] = []
    changed = True
    while changed:
        changed = False
        for layer in reversed(graph.layers):
            if id(layer) in training or layer.type not in LAYOUT_TYPES | {"Input"} or layer.in_place:
                continue
            readers = [c for t in layer.tops for c in graph.consumers(t) if c.index > layer.index]
            if readers and all(id(c) in training for c in readers):
                training.add(id(layer))
                names = names_text([c.name for c in readers])
                added.append(Verdict(layer, TRAINING_ONLY, (f"it only feeds {names}", f"它只为 {names} 提供输入")))
                changed = True
    if not added:
        return verdicts
    order = {id(layer): i for i, layer in enumerate(graph.layers)}
    return sorted(verdicts + added, key=lambda v: order[id(v.layer)])


def training_only_layers(graph) -> frozenset[int]:
    """``id()`` of the judged net's training-only layers (other rules leave them to NN015)."""
    return frozenset(id(v.layer) for v in layer_verdicts(graph) if v.kind == TRAINING_ONLY)


@rule("NN015", "unsupported-layer", Severity.ERROR, step=None,
      summary=("Layer type NNIE does not support", "NNIE 不支持的层类型"),
      messages={"unsupported": ("layer type \"{type}\" is not supported by NNIE: {advice}",
                                "NNIE 不支持层类型 \"{type}\"：{advice}"),
                "unlisted": ("layer type \"{type}\" is probably not supported by NNIE (it is in none of the published layer lists; not documented either way): {advice}",
                             "NNIE 可能不支持层类型 \"{type}\"（它不在任何公开的层列表中；文档未说明）：{advice}"),
                "unconfirmed": ("layer type \"{type}\" is in none of the published NNIE layer lists; NNIE's confirmed form of this operation is {confirmed}, and whether nnie_mapper accepts the name \"{type}\" is not documented: {advice}",
                                "层类型 \"{type}\" 不在任何公开的 NNIE 层列表中；该操作在 NNIE 中确认的写法是 {confirmed}，nnie_mapper 是否接受 \"{type}\" 这个名字未见文档：{advice}"),
                "as_convolution": ("write it as Convolution with group = its channels (same weights and output), which the mapper is documented to take",
                                   "请改写为 group 等于通道数的 Convolution（权重与输出相同），这是 mapper 有文档可依的写法"),
                "as_other": ("if the mapper rejects it, use type {confirmed} and check the layer's output in the triage (its parameters may be read differently)",
                             "若 mapper 拒绝它，请改用 {confirmed} 类型，并在 triage 中核对该层输出（其参数的读取方式可能不同）"),
                "to_convolution": ("Rewrite the {type} layers as Convolution with group = channels", "把 {type} 层改写为 group 等于通道数的 Convolution"),
                "crop_identity": ("Crop \"{layer}\" crops nothing here: its input \"{blob}\" is already {shape}, the size of \"{ref}\" (shape inference){more}; nnie_mapper refuses Crop, and rewriting it as Custom or *_cpu would cut the net into CPU segments: delete it (its readers read \"{blob}\")",
                                  "Crop 层 \"{layer}\" 在此什么也不裁剪：其输入 \"{blob}\" 已是 {shape}，与 \"{ref}\" 尺寸相同（形状推断）{more}；nnie_mapper 不支持 Crop，改写为 Custom 或 *_cpu 会把网络切成多个 CPU 段：请删除它（读取它的层改读 \"{blob}\"）"),
                "delete_crops": ("Delete the {n} Crop layer(s) that crop nothing", "删除 {n} 个什么也不裁剪的 Crop 层"),
                "advice_crop": ("a Crop that really crops cannot run on NNIE: choose an input size at which its two inputs already agree (then it crops nothing and can be deleted), or cut the net before it and crop on the CPU",
                                "真正裁剪的 Crop 无法在 NNIE 上运行：请选择使其两个输入尺寸一致的网络输入尺寸（此时它不裁剪，可删除），或在它之前截断网络、在 CPU 上裁剪"),
                "unknown": ("unknown layer type \"{type}\"{hint}; NNIE only maps known Caffe and extension layers: rewrite it as Custom or Proposal, or name the layer \"*_cpu\"",
                            "未知的层类型 \"{type}\"{hint}；NNIE 只映射已知的 Caffe 层和扩展层：请改写为 Custom 或 Proposal，或将层名加 \"_cpu\" 后缀"),
                "hint": (" (did you mean \"{suggestion}\"?)", "（是否应为 \"{suggestion}\"？）"),
                "advice_default": ("rewrite it as Custom (tensor outputs) or Proposal (one box output), or name the layer \"{name}_cpu\" and implement it on the CPU",
                                   "请改写为 Custom（输出张量）或 Proposal（输出检测框），或将层名改为 \"{name}_cpu\" 并在 CPU 上实现"),
                "advice_cut": ("cut the net before it and run it on the CPU (usual practice for {type}), or rewrite it as Custom",
                               "通常的做法是在它之前截断网络并在 CPU 上实现（{type} 的惯例），或改写为 Custom"),
                "python": ("Python layer \"{layer_class}\" does not run on NNIE: {advice}",
                           "Python 层 \"{layer_class}\" 无法在 NNIE 上运行：{advice}"),
                "fork": ("layer type \"{type}\" is not supported by NNIE: {advice}",
                         "NNIE 不支持层类型 \"{type}\"：{advice}"),
                "fork_param": ("its `{field}` block is the fork's too: not in the mapper's caffe.proto, it goes with the layer",
                               "其 `{field}` 块同样来自该分支：不在 mapper 的 caffe.proto 中，随该层一起改写"),
                "training": ("training-only {what} in the judged net ({layers}): delete {them} from the deploy prototxt (nnie_mapper converts the deploy net; training-only layers are non-support layers)",
                             "被检查的网络中有仅用于训练的{what}（{layers}）：请从部署用 prototxt 中删除{them}（nnie_mapper 转换部署网络；仅训练用的层属于不支持的层）"),
                "what_one": ("layer", "层"),
                "what_many": ("layers ×{n}", "层 ×{n}"),
                "them_one": ("it", "它"),
                "them_many": ("them", "它们"),
                "training_place": ("training-only layer \"{layer}\" ({type}){why}", "仅训练用的层 \"{layer}\"（{type}）{why}"),
                "dummy_input": ("DummyData layer \"{layer}\" feeds the net its input: replace it with an Input layer of the same shape{shape_note}",
                                "DummyData 层 \"{layer}\" 为网络提供输入：请替换为形状相同的 Input 层{shape_note}"),
                "dummy_unknown": (" (its shape is not fully known: check the dims the fix writes)",
                                  "（其形状不完全确定：请核对修复写入的维度）"),
                "dummy_random": (" (its filler is random: the net computed from random data, an Input layer takes the images the mapper feeds)",
                                 "（其 filler 为随机：原网络基于随机数据计算，Input 层接收 mapper 提供的图像）"),
                "dummy_noshape": (" (its shape is not known: write input_param {{ shape {{ dim: … }} }} by hand)",
                                  "（其形状未知：请手动写 input_param {{ shape {{ dim: … }} }}）"),
                "to_input": ("Replace DummyData \"{layer}\" with an Input layer", "将 DummyData \"{layer}\" 替换为 Input 层"),
                "more": ("; the same in {n} more: {layers}", "；另有 {n} 处相同：{layers}"),
                "also": ("layer \"{layer}\": the same", "层 \"{layer}\"：相同")},
      fix="safe/unsafe",
      docs_zh=('NNIE 无法映射的层类型，建议按文件实际写的内容给出：网络中所有仅训练用的层（Data、'
               '损失层、Accuracy、Python 损失层、只提供标签的 DummyData）'
               '合并为一条“仅训练用：删除”，其他作为相关位置；为网络提供输入的 DummyData '
               '应替换为形状相同的 Input 层（修复始终不安全：原网络基于自身的 filler '
               '计算，Input 层则基于输入的图像）；`type: "Python"` '
               '层按 `python_param` 的 module 与 class 给出建议：'
               'ProposalLayer 替换为 NNIE 的 Proposal 层并设置 '
               '`[net_type] 1`，ENet 的 SpatialDropoutLayer '
               '删除（推理时 Dropout 不起作用），数据层改为输入声明，表中没有的类按名称判断并如实说明；'
               'SegNet/ENet/PSPNet 分支的 `BN` 类型改写为 BatchNorm '
               '+ Scale 或合并到前面的卷积中（其 `bn_param` 块并入同一条结果，'
               '不再单独报 NN011）；检测后处理层（PriorBox、DetectionOutput、'
               'Region/Yolo）在 CPU 上实现；同类型、同建议的层合并为一条。'
               '仅由推断认为不受支持的 BVLC 类型（Embed 等）为警告。名字未见于任何公开层列表、'
               '但操作是 NNIE 层的类型（ConvolutionDepthwise/DepthwiseConvolution'
               '、Reorg）为警告，并说明确认的写法（group 等于通道数的 Convolution——附不安全修复；'
               'PassThrough）。Crop 被真实 mapper 日志拒绝：形状推断证明它什么也不裁剪（两个输入尺寸已一'
               '致、无 offset）时，安全修复直接删除它并让读取者改读其输入，而不是改写为 '
               'Custom/_cpu。CRNN 的 CtcLoss、LabelsequenceAccuracy，'
               '名字以 Loss 结尾或含 Accuracy、或带 loss_weight '
               '的未知类型（推断），以及只为它们提供输入的 Permute/Reshape/Flatten/Input，'
               '一并作为仅训练用层。'))
def nn015(project, ctx):
    """
    ## What it finds
    A layer of the judged net whose type NNIE cannot map: training-only layers (Data, Accuracy,
    SoftmaxWithLoss, pycaffe losses…), detection heads normally done on the CPU (PriorBox,
    DetectionOutput, Region/Yolo), types of Caffe forks (`BN`), private or misspelled types.
    Layers named `*_cpu` (user CPU layers), `Custom` and `Proposal` are accepted.

    The advice follows what the file says:

    - every **training-only** layer of the net (losses, Data, Accuracy, Python losses, a
      DummyData that only feeds labels) is **one** finding, "training-only: delete", with the
      others as related locations;
    - a **DummyData that feeds the net** (its top is read by the net) becomes an Input layer of
      the same shape;
    - a **pycaffe** `type: "Python"` layer gets the advice of its class as written in
      `python_param { module: … layer: … }`: Faster R-CNN / R-FCN's `ProposalLayer` becomes NNIE's
      `Proposal` layer with `[net_type] 1` (docs/field-facts.md §7.3, §16.4); ENet's
      `SpatialDropoutLayer` is deleted (dropout does nothing at inference); `RoIDataLayer` and
      other data layers become an input declaration; a class the table does not know is judged by
      its name when the name says loss, accuracy, dropout or data layer (inferred, and said so);
    - a **Caffe fork's batch normalization** (`type: "BN"` with `bn_param`, SegNet / ENet / PSPNet
      forks) becomes BatchNorm + Scale, or is folded into the convolution before it; its
      `bn_param` block is part of this finding (not a separate NN011);
    - all layers of one type or Python class with the same advice are one finding;
    - a type that is in none of the published layer lists but is a BVLC type (Embed, Im2col…) is a
      warning worded as such: that NNIE refuses it is inferred (docs/field-facts.md §7.2 [I]).

    ## Why
    The HiSVP guide (§3.1.4) asks you to rewrite non-supported layers as `Proposal` (box output,
    exactly one top) or `Custom` (tensor outputs with `custom_param` shapes), or to mark them
    `_cpu`; the net is then split into NNIE and CPU segments.  The mapper otherwise fails at "net
    parsing".  Training-only layers are non-support layers (docs/field-facts.md §7.2); NN020 says
    which net and phase is judged.

    ## Example
    ```
    layer { name: "detection_out" type: "DetectionOutput" ... }    # run on the CPU instead
    layer { name: "proposal" type: "Python" bottom: "rpn_cls_prob_reshape" bottom: "rpn_bbox_pred"
            bottom: "im_info" top: "rois"
            python_param { module: "rpn.proposal_layer" layer: "ProposalLayer" } }   # -> Proposal
    layer { name: "data" type: "DummyData" top: "data"
            dummy_data_param { shape { dim: 1 dim: 3 dim: 224 dim: 224 } } }   # -> Input
    ```

    ## Fix
    DummyData feeding the net → Input layer with the same shapes, always unsafe: the DummyData net
    computes on its own filler whatever is fed, the Input net on the fed image, so the fix changes
    what Caffe computes (that is its point); the note says when a shape is incomplete or a filler
    random.  Otherwise none automatic: it is a
    design decision where to cut the net.
    """
    doc, g = project.prototxt, project.graph
    if doc is None or g is None:
        return
    verdicts = layer_verdicts(g)
    if not verdicts:
        return
    training = [v for v in verdicts if v.kind == TRAINING_ONLY]
    if training:
        yield from _training(ctx, doc, training)
    places = []
    fork_at = {}  # range of a fork-type layer's type -> the layer
    unconfirmed_at: dict[str, list] = {}  # type -> its layers (the depthwise types get a fix)
    crops = []  # Crops that crop nothing
    try:
        shapes = g.blob_shapes() or {}
    except Exception:  # shape inference is best effort: no Crop is proved the identity then
        shapes = {}
    for v in verdicts:
        layer = v.layer
        rng = layer.source.type_range or layer_anchor(layer.source)
        if v.kind == DUMMY_INPUT:
            yield _dummy_input(ctx, doc, layer)
        elif v.kind == PYTHON:
            cls = layer.param.python_param.layer or "?"
            advice = pick(v.why, ctx.lang) if v.why[0] else ctx.text("advice_default", name=layer.name)
            places.append(Place("python", rng, layer.name, {"layer_class": cls, "advice": advice}))
        elif v.kind == FORK:
            fork_at[rng] = layer
            places.append(Place("fork", rng, layer.name, {"type": layer.type, "advice": pick(v.why, ctx.lang)}))
        elif v.kind == UNKNOWN:
            from nnie_lsp.readers.prototxt.schema import type_suggestion

            close = type_suggestion(layer.type)
            places.append(Place("unknown", rng, layer.name, {
                "type": layer.type, "hint": ctx.text("hint", suggestion=close) if close else ""}))
        elif v.kind == UNCONFIRMED:
            spec = layer_table.lookup(layer.type)
            key = "as_convolution" if spec.confirmed_as == "Convolution" else "as_other"
            unconfirmed_at.setdefault(layer.type, []).append(layer)
            places.append(Place("unconfirmed", rng, layer.name, {
                "type": layer.type, "confirmed": spec.confirmed_as,
                "advice": ctx.text(key, confirmed=spec.confirmed_as, type=layer.type)}, Severity.WARNING))
        elif v.kind == UNSUPPORTED and layer.type == "Crop" and crop_identity.identity(g, layer, shapes):
            crops.append(layer)
        elif v.kind == UNSUPPORTED:
            spec = layer_table.lookup(layer.type)
            advice = (ctx.text("advice_cut", type=layer.type) if spec.category == "detection"
                      else ctx.text("advice_crop") if layer.type == "Crop"
                      else ctx.text("advice_default", name=layer.name))
            if spec.tag in ("I", "?"):  # inferred from the published lists (docs/field-facts.md §7.2)
                places.append(Place("unlisted", rng, layer.name, {"type": layer.type, "advice": advice},
                                    Severity.WARNING))
            else:
                places.append(Place("unsupported", rng, layer.name, {"type": layer.type, "advice": advice}))
    if crops:
        yield _crops_that_crop_nothing(ctx, doc, g, crops, shapes)
    for diag in one_per_cause(ctx, doc, places, more_msg="more", related_msg="also"):
        if diag.range in fork_at:
            diag = _with_fork_block(ctx, doc, fork_at[diag.range], diag)
        typ = next((t for t, ls in unconfirmed_at.items() if ls[0].source.type_range == diag.range), None)
        if typ is not None and layer_table.lookup(typ).confirmed_as == "Convolution":
            diag = _with_group_fix(ctx, doc, g, unconfirmed_at[typ], shapes, diag)
        yield diag


def _crops_that_crop_nothing(ctx, doc, g, crops, shapes):
    """One finding for every Crop the shape inference proves to be the identity, with the delete."""
    edits, safe = crop_identity.delete_edits(doc, g, crops)
    first = crops[0]
    shape = "×".join(map(str, crop_identity.identity(g, first, shapes)))
    fix = ctx.fix("delete_crops", [(doc.path, e) for e in edits], safe=safe, n=len(crops))
    related = [ctx.related("also", doc.path, layer_anchor(c.source), layer=c.name) for c in crops[1:]]
    more = ctx.text("more", n=len(crops) - 1, layers=names_text([c.name for c in crops[1:]])) if crops[1:] else ""
    return ctx.diag("crop_identity", doc.path, first.source.type_range or layer_anchor(first.source), fix=fix,
                    related=related, layer=first.name, blob=first.bottoms[0], ref=first.bottoms[1], shape=shape,
                    more=more)


def _with_group_fix(ctx, doc, g, layers, shapes, diag):
    """The depthwise types' finding gets the unsafe rewrite as Convolution with ``group`` = the
    channels, for the layers whose input channels are known and equal their outputs."""
    from nnie_lsp.core.text import Position, Range, TextEdit

    edits = []
    for layer in layers:
        x = shapes.get(layer.bottoms[0]) if layer.bottoms else None
        cp = layer.param.convolution_param
        block = child(layer.source.node, "convolution_param")
        if x is None or len(x) != 4 or x[1] != cp.num_output or block is None or layer.source.type_range is None:
            continue
        edits.append((doc.path, TextEdit(layer.source.type_range, '"Convolution"')))
        grp = child(block, "group")
        if grp is not None:
            edits.append((doc.path, TextEdit(grp.value_range, str(cp.num_output))))
        else:
            end = block.range.end
            at = Position(end.line, max(end.character - 1, 0))
            space = doc.text[doc.line_index.offset(at) - 1:doc.line_index.offset(at)].isspace()
            edits.append((doc.path, TextEdit(Range(at, at), f"{'' if space else ' '}group: {cp.num_output} ")))
    if not edits:
        return diag
    return diag._replace(fix=ctx.fix("to_convolution", edits, safe=False, type=layers[0].type))


def _with_fork_block(ctx, doc, layer, diag):
    """A fork-type finding also points at its first layer's parameter block (``bn_param``)."""
    fork = fork_layer(layer.type)
    block = child(layer.source.node, fork.param_field) if fork is not None else None
    if block is None:
        return diag
    extra = ctx.related("fork_param", doc.path, block.name_range, field=fork.param_field)
    return diag._replace(related=(extra, *diag.related))


def _training(ctx, doc, verdicts):
    """One finding for every training-only layer of the net; a place a line suppression covers
    is reported (and silenced) on its own."""
    directives = line_directives(doc)
    grouped = []
    for v in verdicts:
        single = _training_diag(ctx, doc, [v])
        if any(d.covers(single) for d in directives):
            yield single
        else:
            grouped.append(v)
    if grouped:
        yield _training_diag(ctx, doc, grouped)


def _training_diag(ctx, doc, verdicts):
    first = verdicts[0]
    n = len(verdicts)
    names = names_text([f"{v.layer.name or v.layer.type}" for v in verdicts])
    what = ctx.text("what_one") if n == 1 else ctx.text("what_many", n=n)
    them = ctx.text("them_one" if n == 1 else "them_many")
    related = []
    for v in verdicts:
        why = pick(v.why, ctx.lang)
        label = v.layer.param.python_param.layer if v.layer.type == "Python" else v.layer.type
        related.append(ctx.related("training_place", doc.path, layer_anchor(v.layer.source), layer=v.layer.name,
                                   type=label or v.layer.type, why=f": {why}" if why else ""))
    rng = first.layer.source.type_range or layer_anchor(first.layer.source)
    return ctx.diag("training", doc.path, rng, related=related[1:] if n > 1 else related,
                    what=what, them=them, layers=names)


# ------------------------------------------------------------------ DummyData -> Input

def _dummy_shapes(layer):
    """(shapes, known): one dim list per top as Caffe's DummyData reads them (``shape`` or the
    legacy num/channels/height/width, one entry for all tops or one per top), and whether every
    shape is fully known and positive."""
    p = layer.param.dummy_data_param
    tops = len(layer.tops)
    if p.shape:
        given = [list(s.dim) for s in p.shape]
    elif p.num or p.channels or p.height or p.width:
        n = max(len(p.num), len(p.channels), len(p.height), len(p.width))
        given = []
        for k in range(n):
            dims = [getattr(p, f)[k] if k < len(getattr(p, f)) else None
                    for f in ("num", "channels", "height", "width")]
            given.append(dims)
    else:
        return [], False
    if len(given) == 1:
        shapes = given * tops
    elif len(given) == tops:
        shapes = given
    else:
        return given[:tops], False
    known = all(d is not None and d > 0 for s in shapes for d in s) and all(shapes)
    return shapes, known


def _dummy_input(ctx, doc, layer):
    shapes, known = _dummy_shapes(layer)
    constant = all(f.type == "constant" for f in layer.param.dummy_data_param.data_filler)
    complete = known and constant
    src = layer.source
    if not shapes:
        return ctx.diag("dummy_input", doc.path, src.type_range, layer=layer.name,
                        shape_note=ctx.text("dummy_noshape"))
    body = " ".join("shape { " + " ".join(f"dim: {d if d is not None else '?'}" for d in s) + " }"
                    for s in shapes)
    edits = [(doc.path, TextEdit(src.type_range, '"Input"'))]
    block = child(src.node, "dummy_data_param")
    if block is not None:
        edits.append((doc.path, TextEdit(block.range, f"input_param {{ {body} }}")))
    else:
        end = src.type_range.end
        edits.append((doc.path, TextEdit(Range(end, end), f" input_param {{ {body} }}")))
    usable = all(d is not None for s in shapes for d in s)
    # never safe: the net then computes on the fed image instead of its own filler (module doc)
    fix = ctx.fix("to_input", edits, safe=False, layer=layer.name) if usable else None
    note = ("" if complete else ctx.text("dummy_random") if known
            else ctx.text("dummy_unknown" if usable else "dummy_noshape"))
    return ctx.diag("dummy_input", doc.path, src.type_range, fix=fix, layer=layer.name, shape_note=note)

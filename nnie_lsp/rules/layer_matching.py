"""Layer-matching rules NN301-NN306 (guide step 4: what the mapper splits, rewrites or reports)."""

from __future__ import annotations

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.rules.fixes import deinplace_edits
from nnie_lsp.readers.prototxt import layers as layer_table
from nnie_lsp.core.text import Range
from nnie_lsp.rules._proto import layer_anchor
from nnie_lsp.rules.mapper_output import INSERTED_NODE_MESSAGES, inserted_node_findings
from nnie_lsp.core.registry import rule

NORM_TYPES = ("Scale", "BatchNorm", "Bias")
ROI_TYPES = ("ROIPooling", "PSROIPooling")
RNN_TYPES = ("LSTM", "RNN")


def inplace_heads(graph):
    """(producer, first in-place layer) for every blob written in place right after its producer."""
    last_writer = {}
    out = []
    for layer in graph.layers:
        for blob in layer.tops:
            if blob in layer.bottoms:
                prod = last_writer.get(blob)
                if prod is not None and not (blob in prod.bottoms and blob in prod.tops):
                    out.append((prod, layer))
            last_writer[blob] = layer
    return out


def _deinplace_fix(ctx, project, layer):
    new, edits = deinplace_edits(project.prototxt, project.graph, layer)
    return ctx.fix("deinplace", [(project.prototxt.path, e) for e in edits], safe=True,
                   layer=layer.name, blob=new)


def _pair_kind(settings, producer_type, layer_type):
    for a, b in settings.extra_inplace_pairs:
        if a == producer_type and b == layer_type:
            return "extra"
    return None


def split_code(settings, producer_type: str, layer_type: str) -> str:
    """Which rule reports an in-place `layer_type` right after its `producer_type`: NN301 (an
    activation after Concat, or after a configured extra pair), NN302 (Scale/BatchNorm/Bias after
    InnerProduct, or a configured extra pair that is not an activation) or NN303 (every other
    in-place pair).  The one definition: the three rules below and nnie-triage use it."""
    extra = _pair_kind(settings, producer_type, layer_type)
    if layer_table.is_activation(layer_type) and (producer_type == "Concat" or extra):
        return "NN301"
    if extra or (producer_type == "InnerProduct" and layer_type in NORM_TYPES):
        return "NN302"
    return "NN303"


def _split_pair_diag(ctx, project, msg_id, prod, layer):
    """The NN301/NN302 finding for an in-place `layer` right after its producer `prod`."""
    doc = project.prototxt
    blob = next(b for b in layer.tops if b in layer.bottoms)
    return ctx.diag(msg_id, doc.path, layer_anchor(layer.source), fix=_deinplace_fix(ctx, project, layer),
                    related=[ctx.related("producer", doc.path, layer_anchor(prod.source), producer=prod.name, blob=blob)],
                    type=layer.type, layer=layer.name, ptype=prod.type, producer=prod.name, blob=blob,
                    data={"layer": layer.name})


_DEINPLACE_MSG = ("De-inplace \"{layer}\": write to new blob \"{blob}\"", "取消 \"{layer}\" 的原位计算：输出到新 blob \"{blob}\"")


@rule("NN301", "inplace-activation-after-concat", Severity.WARNING, step=4,
      summary=("In-place activation on a Concat output", "Concat 输出上的原位激活层"),
      messages={"concat": ("in-place {type} \"{layer}\" on the output of {ptype} \"{producer}\": the mapper computes them as separate layers (the vendor's accuracy guide says so, step 4; not seen in public files), so Caffe's blob \"{blob}\" (after {type}) may not be comparable with the mapper's {ptype} output",
                           "原位 {type} 层 \"{layer}\" 作用在 {ptype} 层 \"{producer}\" 的输出上：mapper 会把它们拆成两个层（厂商精度排查指南第 4 步如此说明；公开文件中未见），Caffe 的 blob \"{blob}\"（{type} 之后）可能无法与 mapper 的 {ptype} 输出对比"),
                "producer": ("\"{producer}\" writes \"{blob}\"", "\"{producer}\" 产生 \"{blob}\""),
                "deinplace": _DEINPLACE_MSG},
      fix="safe",
      docs_zh=('Concat 输出上的原位激活层：mapper 很可能把它们拆成两个层（该组合文档未说明）'
               '，Caffe 只保存激活之后的 blob，逐层对比时可能出现假的相似度下降（指南第 '
               '4 步）。修复给该层一个新的 top 并改写其后所有引用，计算图不变，是安全的。'))
def nn301(project, ctx):
    """
    ## What it finds
    An activation (ReLU, PReLU, Sigmoid, TanH, …) computed in place (`bottom` = `top`) on the
    output of a Concat layer — and any extra (producer, in-place layer) pair you configure with
    `extra-inplace-pairs` whose in-place layer is an activation.

    ## Why
    Guide step 4: the mapper splits some in-place pairs (concat + relu, fc + scale…) into separate
    layers.  Caffe dumps one blob per name — the value after the activation — while the mapper
    dumps the Concat output on its own, so the similarity triage shows a false dip at that layer
    (middle layers < 0.90 while the last is ≈ 0.99).  Rewriting the layer out of place makes both
    sides dump the same tensors.

    ## Example
    ```
    layer { name: "cat" type: "Concat" bottom: "a" bottom: "b" top: "cat" }
    layer { name: "cat_relu" type: "ReLU" bottom: "cat" top: "cat" }       # in place
    ```
    becomes `top: "cat_relu"` (the layer's name, or `<name>_1` if that blob exists), and every
    later `bottom: "cat"` reads `"cat_relu"`.

    ## Fix
    Safe: give the in-place layer a new unique top and rewire every later reference to the blob
    (including later in-place layers of the same chain) up to the next layer that rewrites it.
    The computed graph is unchanged; only blob names differ (an output blob of the net gets the
    new name).
    """
    g, doc = project.graph, project.prototxt
    if g is None or doc is None:
        return
    for prod, layer in inplace_heads(g):
        if split_code(project.settings, prod.type, layer.type) == "NN301":
            yield _split_pair_diag(ctx, project, "concat", prod, layer)


@rule("NN302", "inplace-scale-after-innerproduct", Severity.WARNING, step=4,
      summary=("In-place Scale/BatchNorm/Bias on an InnerProduct output", "InnerProduct 输出上的原位 Scale/BatchNorm/Bias"),
      messages={"fc": ("in-place {type} \"{layer}\" on the output of {ptype} \"{producer}\": the mapper splits them (the vendor's accuracy guide says so, step 4; not seen in public files), so Caffe's blob \"{blob}\" (after {type}) may not match the mapper's {ptype} output",
                       "原位 {type} 层 \"{layer}\" 作用在 {ptype} 层 \"{producer}\" 的输出上：mapper 会把它们拆开（厂商精度排查指南第 4 步如此说明；公开文件中未见），Caffe 的 blob \"{blob}\"（{type} 之后）可能与 mapper 的 {ptype} 输出对不上"),
                "producer": ("\"{producer}\" writes \"{blob}\"", "\"{producer}\" 产生 \"{blob}\""),
                "deinplace": _DEINPLACE_MSG},
      fix="safe",
      docs_zh=('InnerProduct 输出上的原位 Scale/BatchNorm/Bias：'
               '指南第 4 步提到的 fc + scale 拆分，逐层对比可能会把 Caffe '
               '的 Scale 之后结果与 mapper 的 InnerProduct '
               '原始输出配对（该组合的拆分文档未说明）。修复同 NN301。'))
def nn302(project, ctx):
    """
    ## What it finds
    A Scale, BatchNorm or Bias layer computed in place on the output of an InnerProduct layer —
    and any extra (producer, in-place layer) pair configured with `extra-inplace-pairs` whose
    in-place layer is not an activation.

    ## Why
    Guide step 4 names "fc + scale" among the in-place pairs the mapper splits: the per-layer
    comparison then pairs Caffe's post-Scale blob with the mapper's raw InnerProduct output and
    reports a dip that is not a real error.

    ## Example
    ```
    layer { name: "fc1" type: "InnerProduct" bottom: "x" top: "fc1" }
    layer { name: "fc1_scale" type: "Scale" bottom: "fc1" top: "fc1" }
    ```

    ## Fix
    Safe: de-inplace the layer (new unique top, later references rewired), as for NN301.
    """
    g, doc = project.graph, project.prototxt
    if g is None or doc is None:
        return
    for prod, layer in inplace_heads(g):
        if split_code(project.settings, prod.type, layer.type) == "NN302":
            yield _split_pair_diag(ctx, project, "fc", prod, layer)


@rule("NN303", "inplace-layer", Severity.INFO, step=4, default_enabled=False,
      summary=("Any other in-place layer (off by default)", "其它原位计算层（默认关闭）"),
      messages={"inplace": ("{type} \"{layer}\" runs in place on \"{blob}\" (written by \"{producer}\"): per-layer comparison sees only the value after it",
                            "{type} 层 \"{layer}\" 在 \"{blob}\" 上原位计算（由 \"{producer}\" 产生）：逐层对比时只能看到它之后的值"),
                "deinplace": _DEINPLACE_MSG},
      fix="safe",
      docs_zh=('其它所有原位层（默认关闭）：原位链中 Caffe 只保留最后一个值，只能在链尾比较。'
               '需要逐层对比每个层自己的输出时用 --select NN303 打开。'))
def nn303(project, ctx):
    """
    ## What it finds
    Every in-place layer not covered by NN301/NN302 (e.g. Convolution + in-place BatchNorm, Scale,
    ReLU chains). Off by default; enable it (`--select NN303`) when you want the triage to compare
    every layer's own output.

    ## Why
    In an in-place chain Caffe keeps only the last value of the shared blob, so the per-layer
    similarity can only be computed at the end of the chain; the mapper fuses most of these chains
    (conv + bn + scale + relu) correctly, so they are not errors.

    ## Example
    ```
    layer { name: "conv1" type: "Convolution" top: "conv1" ... }
    layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
    ```

    ## Fix
    Safe: de-inplace, as for NN301 (costs memory on the PC side only).
    """
    g, doc = project.graph, project.prototxt
    if g is None or doc is None:
        return
    for prod, layer in inplace_heads(g):
        if split_code(project.settings, prod.type, layer.type) != "NN303":
            continue
        blob = next(b for b in layer.tops if b in layer.bottoms)
        yield ctx.diag("inplace", doc.path, layer_anchor(layer.source), fix=_deinplace_fix(ctx, project, layer),
                       type=layer.type, layer=layer.name, blob=blob, producer=prod.name, data={"layer": layer.name})


@rule("NN304", "mapper-inserts-permute", Severity.INFO, step=4,
      summary=("The mapper inserts a Permute after " + "/".join(layer_table.permute_inserting_types()),
               "mapper 会在 " + "/".join(layer_table.permute_inserting_types()) + " 后插入 Permute"),
      messages={"permute": ("the mapper rewrites {type} \"{layer}\" as {type} + Permute: compare its output with the inserted Permute (see cnn_net_tree.dot) or with the next layer",
                            "mapper 会把 {type} 层 \"{layer}\" 改写为 {type} + Permute：请与插入的 Permute（见 cnn_net_tree.dot）或下一层的输出对比"),
                **INSERTED_NODE_MESSAGES},
      docs_zh=('mapper 会把 Upsample、ROIPooling、PSROIPooling '
               '改写为该层 + Permute（见 cnn_net_tree.dot），'
               '其输出布局不同；请与插入的 Permute 或下一层对比（nnie-triage '
               '会自动按匹配的布局比较）。'))
def nn304(project, ctx):
    """
    ## What it finds
    Layers after which the mapper inserts a Permute node: Upsample, ROIPooling, PSROIPooling and
    SSD's Normalize (information only; the list is the layer table's `mapper_inserts_permute`).
    With a `cnn_net_tree.dot` beside the cfg, the nodes it shows the mapper inserting
    (`permute_<k>`, type `Permute (batch)`) are reported on the layer they follow, whatever its type.

    ## Why
    Guide step 4: the mapper rewrites these layers and inserts a Permute after them (see
    `cnn_net_tree.dot`: after each Normalize a node `permute_<k>` of type `Permute (batch)`;
    MQBench names the Upsample clip entry `<layer>_permute_<k>`).  Their dumped output is
    in another layout, so a raw per-layer comparison shows a false dip; nnie-triage compares them in
    the matching layout.

    ## Example
    ```
    layer { name: "up1" type: "Upsample" bottom: "x" top: "up1" upsample_param { scale: 2 } }
    ```

    ## Fix
    None needed.
    """
    g, doc = project.graph, project.prototxt
    if g is None or doc is None:
        return
    from_dot, covered = inserted_node_findings(project, ctx)  # what cnn_net_tree.dot shows, if read
    yield from from_dot
    for layer in g.layers:
        spec = layer_table.lookup(layer.type)
        if spec is not None and spec.mapper_inserts_permute and layer.index not in covered:
            yield ctx.diag("permute", doc.path, layer.source.type_range or layer_anchor(layer.source),
                           type=layer.type, layer=layer.name)


@rule("NN305", "report-suffix-misuse", Severity.WARNING, step=4,
      summary=("`_report` on a top where it is an error or has no effect", "`_report` 用在会报错或无效的 top 上"),
      messages={"custom": ("`_report` on a top of Custom layer \"{layer}\" is an error for the mapper",
                           "Custom 层 \"{layer}\" 的 top 带 `_report`，mapper 会报错"),
                "inplace": ("`_report` on in-place {type} \"{layer}\" has no effect: its blob is written by \"{producer}\" as \"{base}\"; rename that top to \"{blob}\" (the activation shares it), or make {type} non-in-place to report its own output",
                            "原位 {type} 层 \"{layer}\" 上的 `_report` 无效：该 blob 由 \"{producer}\" 以 \"{base}\" 产生；请把那个 top 改名为 \"{blob}\"（激活层共享它），或把 {type} 改为非原位以报告其自身输出"),
                "cpu": ("`_report` on a top of {what} \"{layer}\" has no effect (it is not an NNIE layer)",
                        "{what} \"{layer}\" 的 top 带 `_report` 无效（它不是 NNIE 层）"),
                "data": ("`_report` on input \"{blob}\" has no effect", "输入 \"{blob}\" 带 `_report` 无效"),
                "layer_name": ("`_report` goes on top (blob) names, not layer names: layer \"{layer}\" reports nothing extra",
                               "`_report` 应加在 top（blob）名上而不是层名上：层 \"{layer}\" 不会额外报告")},
      docs_zh=('`_report` 加错位置：Custom 层的 top 上会报错；Proposal、'
               '`_cpu` 层的 top 或数据输入上没有效果；加在层名上而不是 top '
               '名上也没有效果。原位激活应标记其生产者的 top。'))
def nn305(project, ctx):
    """
    ## What it finds
    Misplaced `_report` suffixes (which request an intermediate output from the chip):
    on a top of a Custom layer (an error); on a Proposal or `_cpu` layer's top, or the data input
    (no effect); on a layer name instead of a top name; on an in-place activation whose producer
    writes the unmarked blob (`conv3` → ReLU on `conv3_report`).  (In-place activations share their
    producer's blob, so marking the producer's top — `conv3_report` — is the right way; the
    activation then reports nothing extra, which is expected, not a mistake.)

    ## Why
    The guide's `_report` rules (docs/field-facts.md §7.4): only tops of NNIE layers get report points;
    for in-place activations, mark the producing layer's top or make the activation non-in-place.
    Misplaced marks either break mapping or silently give you no extra dump to compare.

    ## Example
    ```
    layer { name: "rpn_proposal" type: "Proposal" bottom: "rpn_cls" top: "rois_report" }  # no effect
    layer { name: "conv3_report" type: "Convolution" bottom: "x" top: "conv3" }     # layer name: no effect
    ```

    ## Fix
    None automatic.
    """
    g, doc = project.graph, project.prototxt
    if g is None or doc is None:
        return
    for inp in g.inputs:
        if inp.name.endswith(layer_table.REPORT_SUFFIX):
            yield ctx.diag("data", doc.path, inp.range, blob=inp.name)
    writer = {i.name: None for i in g.inputs}
    for layer in g.layers:
        yield from _report_misuse(ctx, doc, layer, writer)
        for t in layer.tops:
            writer[t] = layer


def _report_misuse(ctx, doc, layer, seen_before):
    """NN305 findings of one layer; `seen_before` maps blobs to their writer so far."""
    src = layer.source
    if not layer.name.endswith(layer_table.REPORT_SUFFIX) and not any(t.endswith(layer_table.REPORT_SUFFIX) for t in layer.tops):
        return  # fast path: no ranges needed
    marked = [(b, r) for b, r in src.tops if b.endswith(layer_table.REPORT_SUFFIX)]
    if layer.name.endswith(layer_table.REPORT_SUFFIX) and not marked:
        yield ctx.diag("layer_name", doc.path, layer_anchor(src), layer=layer.name)
    for blob, rng in marked:
        if layer.type == "Custom":
            yield ctx.diag("custom", doc.path, rng, severity=Severity.ERROR, layer=layer.name)
        elif layer.type == "Proposal" or layer_table.is_cpu_layer_name(layer.name):
            what = "Proposal layer" if layer.type == "Proposal" else "CPU layer"
            yield ctx.diag("cpu", doc.path, rng, what=what, layer=layer.name)
        elif blob in layer.bottoms and layer_table.is_activation(layer.type) and blob not in seen_before:
            # the activation was marked on its own: its producer writes the unmarked name
            base = blob[: -len(layer_table.REPORT_SUFFIX)]
            prod = seen_before.get(base)
            if prod is not None:
                yield ctx.diag("inplace", doc.path, rng, type=layer.type, layer=layer.name,
                               producer=prod.name, base=base, blob=blob)


@rule("NN306", "net-type-mismatch", Severity.ERROR, step=4,
      summary=("net_type inconsistent with ROI/recurrent layers, or roi_coordinate_file count wrong",
               "net_type 与 ROI/循环层不一致，或 roi_coordinate_file 个数不对"),
      messages={"need1": ("the net has {what} layer(s) ({names}) so [net_type] must be 1, not {nt}",
                          "网络含 {what} 层（{names}），[net_type] 必须为 1，而不是 {nt}"),
                "need2": ("the net has {what} layer(s) ({names}) so [net_type] must be 2, not {nt}",
                          "网络含 {what} 层（{names}），[net_type] 必须为 2，而不是 {nt}"),
                "no_roi": ("[net_type] 1 is for nets with ROIPooling/PSROIPooling, but the prototxt has none",
                           "[net_type] 1 用于含 ROIPooling/PSROIPooling 的网络，但 prototxt 中没有"),
                "no_rnn": ("[net_type] 2 is for recurrent nets (LSTM/RNN), but the prototxt has none",
                           "[net_type] 2 用于循环网络（LSTM/RNN），但 prototxt 中没有"),
                "roi_count": ("{n} [roi_coordinate_file] for {m} ROI layer(s) ({names}): give one per ROIPooling/PSROIPooling layer, in prototxt order",
                              "有 {n} 个 [roi_coordinate_file]，而 ROI 层有 {m} 个（{names}）：每个 ROIPooling/PSROIPooling 层一个，按 prototxt 顺序"),
                "set": ("Set [net_type] {value}", "设置 [net_type] {value}"),
                "unset": ("unset", "未设置"),
                "recurrent": ("the net has {what} layer(s) ({names}): its cfg needs [net_type] 2 (recurrent nets, the guide's key table){mixed}",
                              "网络含 {what} 层（{names}）：其 cfg 需要 [net_type] 2（循环网络，见指南的配置表）{mixed}"),
                "mixed": ("; the {n} convolution layer(s) before them make it a CNN and a recurrent net in one: net_type 0 is for nets without LSTM/RNN, and whether one wk may hold both is not documented — the usual way is two wks, the CNN part (net_type 0) and the recurrent part (net_type 2, fed the CNN's output as a feature map, image_type 0) (inferred)",
                          "；其前面的 {n} 个卷积层使它成为 CNN 与循环网络的组合：net_type 0 用于不含 LSTM/RNN 的网络，一个 wk 能否同时包含两者未见文档——通常做法是拆成两个 wk：CNN 部分（net_type 0）与循环部分（net_type 2，以 CNN 的输出作为特征图输入，image_type 0）（推断）"),
                "mixed_cfg": ("[net_type] 2 for a net with {n} convolution layer(s) before its {what} layer(s): whether one wk may hold a CNN and a recurrent net is not documented — the usual way is two wks, the CNN part (net_type 0) and the recurrent part (net_type 2, image_type 0 feature input) (inferred)",
                              "[net_type] 2 用于在 {what} 层前还有 {n} 个卷积层的网络：一个 wk 能否同时包含 CNN 与循环网络未见文档——通常拆成两个 wk：CNN 部分（net_type 0）与循环部分（net_type 2，image_type 0 特征输入）（推断）")},
      fix="safe",
      docs_zh=('net_type 与网络不符：含 ROIPooling/PSROIPooling '
               '的网络需要 1，含 LSTM/RNN 的需要 2；ROI 网络每个 ROI '
               '层需要一个 `[roi_coordinate_file]`，按 prototxt '
               '顺序。没有 cfg 时，含 LSTM/RNN 的网络得到一条信息：其 cfg '
               '需要 `[net_type] 2`；若前面还有卷积层（CRNN），说明一个 '
               'wk 能否同时容纳 CNN 与循环网络未见文档，通常拆成 CNN（net_type '
               '0）与循环部分（net_type 2，image_type 0 特征输入）'
               '两个 wk（推断）。'))
def nn306(project, ctx):
    """
    ## What it finds
    `[net_type]` that does not match the layers: 0 (or unset) with ROIPooling/PSROIPooling (needs
    1) or LSTM/RNN (needs 2); 1 without ROI layers; 2 without recurrent layers; and a number of
    `[roi_coordinate_file]` entries different from the number of ROI layers.

    Without a cfg, a net with LSTM/RNN layers gets an info saying its cfg needs `[net_type] 2`;
    with convolutions before them (a CRNN text recogniser) it adds that whether one wk may hold a
    CNN and a recurrent net is not documented, and that such nets are usually split into a CNN wk
    (net_type 0) and a recurrent wk (net_type 2, fed the CNN's output as a feature map) — inferred,
    and said so; the same info goes with a cfg whose `[net_type]` is 2.

    ## Why
    The guide's key table: net_type 0 is a plain CNN, 1 a net with ROI/PSROI pooling (RPN-based),
    2 a recurrent net; ROI nets need one `roi_coordinate_file` per ROI layer, in prototxt order.

    ## Example
    ```
    [net_type] 0         # but the prototxt has ROIPooling "roi_pool5"
    ```

    ## Fix
    Safe: set `[net_type]` to the value the layers require (when the layers leave no doubt).
    """
    g, cfg, config = project.graph, project.cfg, project.config
    if g is None or project.prototxt is None:
        return
    rois = [l for l in g.layers if l.type in ROI_TYPES]
    rnns = [l for l in g.layers if l.type in RNN_TYPES]
    convs = [l for l in g.layers if rnns and l.type in ("Convolution", "DepthwiseConvolution", "ConvolutionDepthwise")
             and l.index < rnns[0].index]
    what = "/".join(sorted({l.type for l in rnns}))
    if cfg is None or config is None:
        if rnns and not rois:  # no cfg yet: what its cfg will need, said on the net
            mixed = ctx.text("mixed", n=len(convs)) if convs else ""
            doc = project.prototxt
            yield ctx.diag("recurrent", doc.path, rnns[0].source.type_range or rnns[0].source.name_range,
                           severity=Severity.INFO, what=what, names=", ".join(l.name for l in rnns[:3]), mixed=mixed)
        return
    entry = config.entry("net_type")
    nt = config.value("net_type")
    anchor = entry.value_range if entry is not None else (cfg.entries[0].line_range if cfg.entries else Range.point(0, 0))
    nt_txt = str(nt) if entry is not None else ctx.text("unset")

    def fix_to(v):
        from nnie_lsp.rules.fixes import insert_cfg_line, set_cfg_value
        edit = set_cfg_value(entry, str(v)) if entry is not None else insert_cfg_line(cfg, "net_type", str(v))
        return ctx.fix("set", [(cfg.path, edit)], safe=True, value=v)

    names = lambda ls: ", ".join(l.name for l in ls[:3]) + ("…" if len(ls) > 3 else "")
    if rois and not rnns and nt != 1:
        yield ctx.diag("need1", cfg.path, anchor, fix=fix_to(1), what="/".join(sorted({l.type for l in rois})), names=names(rois), nt=nt_txt)
    elif rnns and not rois and nt != 2:
        yield ctx.diag("need2", cfg.path, anchor, fix=fix_to(2), what="/".join(sorted({l.type for l in rnns})), names=names(rnns), nt=nt_txt)
    elif nt == 1 and not rois and entry is not None:
        yield ctx.diag("no_roi", cfg.path, anchor, severity=Severity.WARNING)
    elif nt == 2 and not rnns and entry is not None:
        yield ctx.diag("no_rnn", cfg.path, anchor, severity=Severity.WARNING)
    elif nt == 2 and rnns and convs:
        yield ctx.diag("mixed_cfg", cfg.path, anchor, severity=Severity.INFO, what=what, n=len(convs))
    roi_files = cfg.get("roi_coordinate_file")
    if rois and nt == 1 and len(roi_files) != len(rois):
        home = roi_files[-1].key_range if roi_files else anchor
        yield ctx.diag("roi_count", cfg.path, home, n=len(roi_files), m=len(rois), names=names(rois))

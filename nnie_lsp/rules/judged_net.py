"""NN020: which net of a file is judged.  On every multi-phase or training file, one note names
the net and phase the rules judge (the TEST net nnie_mapper converts), the layers Caffe's phase
rules leave out of it, whether the file is a training net, and the blobs the judged net reads that
only left-out layers make (docs/field-facts.md §16.4)."""

from __future__ import annotations

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.rules._proto import layer_anchor, names_text
from nnie_lsp.rules.layer_support import TRAINING_ONLY, layer_verdicts
from nnie_lsp.core.registry import rule


@rule("NN020", "layers-outside-test-net", Severity.INFO, step=None,
      summary=("Which net and phase of a multi-phase or training file is judged",
               "多阶段或训练用文件中被检查的是哪个网络、哪个阶段"),
      messages={"judged": ("judged: the TEST net nnie_mapper converts (phase: TEST, level 0, no stages){left_out}{training}{no_input}",
                           "检查的是 nnie_mapper 转换的 TEST 网络（phase: TEST，level 0，无 stage）{left_out}{training}{no_input}"),
                "left_out_many": ("; {n} layers are not part of it ({reasons}) and are not checked: {layers}",
                                  "；{n} 个层不属于该网络（{reasons}），不做检查：{layers}"),
                "left_out_one": ("; layer \"{layer}\" is not part of it ({reasons}) and is not checked",
                                 "；层 \"{layer}\" 不属于该网络（{reasons}），不做检查"),
                "all_in": ("; every layer of the file is part of it", "；文件中的每个层都属于该网络"),
                "training": ("; this file is a training net (training-only layers: {layers}, see NN015): convert a deploy prototxt",
                             "；这是训练用网络（仅训练用的层：{layers}，见 NN015）：请转换部署用 prototxt"),
                "no_input": ("; nothing in it produces {blobs} (made only by {producers}, outside it): the mapper cannot build this net from the file",
                             "；该网络中没有层产生 {blobs}（只由网络外的 {producers} 产生）：mapper 无法由此文件构建网络"),
                "also": ("layer \"{layer}\": {reason}", "层 \"{layer}\"：{reason}"),
                "reader": ("layer \"{layer}\" reads \"{blob}\"", "层 \"{layer}\" 读取 \"{blob}\""),
                "train_layer": ("training-only layer \"{layer}\"", "仅训练用的层 \"{layer}\"")},
      docs_zh=("说明被检查的是哪个网络、哪个阶段：BVLC 的 train_val.prototxt 同时包含 TRAIN 与 TEST 两个阶段的层"
               "（`include { phase: TRAIN }` 等），只含训练网络的文件（数据层、损失层）也会被当作部署网络检查。"
               "nnie_mapper 转换的是部署/TEST 网络（phase: TEST，level 0，无 stage）。每个多阶段或训练用文件提示一次："
               "哪些层不属于该网络（不做检查）、文件是否为训练网络、以及该网络读取却只由网络外的层产生的 blob"
               "（此时为警告：mapper 无法构建该网络；这些 blob 不再由 NN013 报告）。"
               "语法与字段错误（NN010-NN012）仍在整个文件中报告，因为 mapper 会解析整个文件。"))
def nn020(project, ctx):
    """
    ## What it finds
    On every file with phase rules (`include { phase: TRAIN }`, `exclude { phase: TEST }`, a
    `stage` or `min_level`) and on every training net (it has Data, loss or other training-only
    layers, NN015), one note saying which net is judged — the TEST net nnie_mapper converts
    (phase TEST, level 0, no stages) — which layers Caffe's phase rules leave out of it (the
    others as related locations), and whether the file is a training net.  When the judged net
    reads a blob that only left-out layers make (a training file whose data layer is
    `include { phase: TRAIN }`), the note is a warning and says so; NN013 does not report such
    blobs as undefined.

    ## Why
    A BVLC `train_val.prototxt` holds the layers of both phases, often with the same names; NNIE
    converts the deploy/TEST net (docs/field-facts.md §16.4), so the other layers are not part of
    the NNIE net and no rule reports them as NNIE problems.  A training file given to the mapper
    is judged as the net the mapper would build from it; this note says so, so that findings on
    it are read as what they are.  Syntax and schema errors (NN010-NN012) are still reported in
    left-out layers: the mapper's parser reads the whole file.

    ## Example
    ```
    layer { name: "data" type: "Data" top: "data" top: "label" include { phase: TRAIN } ... }
    layer { name: "data" type: "Data" top: "data" top: "label" include { phase: TEST } ... }
    ```

    ## Fix
    None needed.  To convert, a deploy prototxt without the training layers is the usual input.
    """
    doc, g = project.prototxt, project.graph
    if doc is None or g is None or not doc.layers:
        return
    phase_rules = bool(g.excluded) or any(ls.param.include or ls.param.exclude for ls in doc.layers)
    training = [v.layer for v in layer_verdicts(g) if v.kind == TRAINING_ONLY]
    if not phase_rules and not training:
        return
    related = []
    left_out = ""
    if g.excluded:
        counts: dict[str, int] = {}
        for excluded in g.excluded:
            counts[excluded.reason] = counts.get(excluded.reason, 0) + 1
        reasons = "; ".join(r if n == 1 else f"{r} ×{n}" for r, n in counts.items())
        first = g.excluded[0]
        if len(g.excluded) == 1:
            left_out = ctx.text("left_out_one", layer=first.layer.name or first.layer.type, reasons=reasons)
        else:
            left_out = ctx.text("left_out_many", n=len(g.excluded), reasons=reasons,
                                layers=names_text([e.layer.name or e.layer.type for e in g.excluded]))
        related += [ctx.related("also", doc.path, layer_anchor(e.layer.source), layer=e.layer.name or e.layer.type,
                                reason=e.reason) for e in g.excluded[1:]]
    else:
        left_out = ctx.text("all_in")
    training_text = ""
    if training:
        training_text = ctx.text("training", layers=names_text([l.name or l.type for l in training]))
        if not g.excluded:
            related += [ctx.related("train_layer", doc.path, layer_anchor(l.source), layer=l.name or l.type)
                        for l in training[1:]]
    no_input, readers = _made_only_outside(g)
    severity = None
    no_input_text = ""
    if no_input:
        producers = names_text(list(dict.fromkeys(p for p in no_input.values())))
        no_input_text = ctx.text("no_input", blobs=names_text(list(no_input)), producers=producers)
        related += [ctx.related("reader", doc.path, rng, layer=layer.name, blob=blob) for layer, blob, rng in readers]
        severity = Severity.WARNING
    if g.excluded:
        anchor = layer_anchor(g.excluded[0].layer.source)
    elif training:
        anchor = layer_anchor(training[0].source)
    else:
        anchor = layer_anchor(doc.layers[0])
    yield ctx.diag("judged", doc.path, anchor, severity=severity, related=related, left_out=left_out,
                   training=training_text, no_input=no_input_text)


def _made_only_outside(g):
    """Blobs the judged net reads that no input and no layer of it makes, but a left-out layer
    does: {blob: the left-out layer making it}, and the first reader of each as
    (layer, blob, range)."""
    outside = {}
    for e in g.excluded:
        for t in e.layer.tops:
            outside.setdefault(t, e.layer.name or e.layer.type)
    if not outside:
        return {}, []
    made = {i.name for i in g.inputs} | {t for layer in g.layers for t in layer.tops}
    found: dict[str, str] = {}
    readers = []
    for layer in g.layers:
        for blob in layer.bottoms:
            if blob in outside and blob not in made and blob not in found:
                found[blob] = outside[blob]
                rng = next((r for b, r in layer.source.bottoms if b == blob), layer_anchor(layer.source))
                readers.append((layer, blob, rng))
    return found, readers

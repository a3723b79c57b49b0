"""The stage before the mapper: the verdict "conversion" (T501, registered here beside the code that
emits it) when the Caffe net already differs from the ONNX model it was converted from.

With ``compare --framework DIR`` (the ONNX side, ``nnie-triage reference --onnx``) the comparison
has two hops, ONNX → Caffe (:mod:`nnie_lsp.triage.measure.framework`) and Caffe → NNIE (the
guide's cases).  The stage that lost the accuracy is the first hop that differs:

- Caffe differs from ONNX from layer X on (X: the first layer after the data whose status is
  ``differs`` or ``shape``) → **conversion**: T501 on X's name in the prototxt, citing what the
  static check (``nnie-lint --onnx``, NN502-NN507) says about X's layers when it finds something;
  the verdict names the stage, the next step is 0 (before mapping: fix the conversion), and the
  Caffe → NNIE verdict is kept in the reason (it is measured against a Caffe net that is already
  wrong);
- X reads a blob whose values agree with ONNX in another shape (a Reshape target in the wrong
  order: the values stay, their meaning changes, and the next Softmax/InnerProduct differs) → the
  conversion went wrong where that shape changed: T501 and the verdict name that layer (the
  earliest of a run of such blobs before X), the finding says which later layer differs;
- the data blobs differ → the two runs were given different inputs: T501 says so and the ONNX →
  Caffe hop is not judged (the guide's verdict stands);
- otherwise the guide's verdict stands.

Registering loads no numpy.
"""

from __future__ import annotations

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.rules.triage_common import register_finding
from nnie_lsp.triage.diagnose.postprocessing import CHECK_POSTPROCESSING

VERDICT = "conversion: Caffe already differs from the ONNX model"

register_finding(
    __name__,
    "T501", "conversion-differs", Severity.ERROR, 1,
    summary=("The Caffe net already differs from the ONNX model it was converted from",
             "Caffe 网络与其转换来源 ONNX 模型的结果已经不同"),
    messages={
        "differs": ("Caffe already differs from the ONNX model at {layer} (blob {blob}: {what}) and every layer "
                    "after it depends on it: the conversion ONNX → Caffe lost the accuracy before nnie_mapper — fix "
                    "the conversion first (the Caffe → NNIE comparison measures a net that is already wrong){static}",
                    "Caffe 在 {layer}（blob {blob}：{what}）处已与 ONNX 模型不同，其后的层都受其影响：精度在 nnie_mapper "
                    "之前的 ONNX → Caffe 转换中丢失——请先修正转换（Caffe → NNIE 的对比测量的是一个本身已错的网络）{static}"),
        "reshaped": ("Caffe already differs from the ONNX model at {later} (blob {later_blob}: {what}), and it reads "
                     "{layer}, whose values agree with ONNX but in another shape ({shapes}): the conversion changed the "
                     "shape at {layer}, and every layer after it depends on it — fix the conversion first (the Caffe → "
                     "NNIE comparison measures a net that is already wrong){static}",
                     "Caffe 在 {later}（blob {later_blob}：{what}）处已与 ONNX 模型不同，它读取的 {layer} 数值与 ONNX 相同但形状不同"
                     "（{shapes}）：转换在 {layer} 处改变了形状，其后的层都受其影响——请先修正转换（Caffe → NNIE 的对比测量的是一个本身已错的网络）"
                     "{static}"),
        "static": ("; nnie-lint --onnx on this layer: {findings}", "；nnie-lint --onnx 在该层发现：{findings}"),
        "no_static": ("; the static check (nnie-lint --onnx) finds nothing on this layer: compare the layer's "
                      "parameters and weights with its ONNX node(s) by hand",
                      "；静态检查（nnie-lint --onnx）在该层未发现问题：请手动比较该层的参数与权重和对应的 ONNX 节点"),
        "no_model": ("; the ONNX model is not known (the framework folder has no manifest naming it), so the static "
                     "check did not run: nnie-lint {prototxt} --onnx MODEL",
                     "；ONNX 模型未知（framework 目录没有记录它的清单），因此静态检查未运行：nnie-lint {prototxt} --onnx MODEL"),
        "model_changed": ("the ONNX dumps in {folder} were made from another version of {onnx} (its bytes changed "
                          "since `nnie-triage reference --onnx` ran): the ONNX → Caffe hop is not judged; run it again",
                          "{folder} 中的 ONNX dump 来自 {onnx} 的另一个版本（运行 `nnie-triage reference --onnx` 之后文件内容已改变）："
                          "不判断 ONNX → Caffe 这一段；请重新运行"),
        "inputs_differ": ("the ONNX dumps and the Caffe dumps were made from different inputs (data blob {blob}: "
                          "{what}): the ONNX → Caffe hop is not judged; run `nnie-triage reference --onnx` with the "
                          "cfg and image of the Caffe reference",
                          "ONNX 与 Caffe 的 dump 来自不同的输入（数据 blob {blob}：{what}）：不判断 ONNX → Caffe 这一段；"
                          "请用与 Caffe 参考相同的 cfg 和图片运行 `nnie-triage reference --onnx`"),
    },
    docs="""
    ## What it finds
    With `nnie-triage compare --framework DIR` (the dumps of the ONNX model the prototxt was
    converted from, written by `nnie-triage reference --onnx`): the first layer whose Caffe output
    already differs from the ONNX tensor it stands for — cosine below `conversion` (0.9999),
    relative L2 error above `conversion_rel_l2`, or another size.  The finding sits on that
    layer's name, says how it differs and quotes what `nnie-lint --onnx` (NN502-NN507) finds on
    it.  When the data blobs themselves differ, the two runs had different inputs and the finding
    says that instead.

    ## Why
    Guide step 1 compares the Caffe run with the NNIE side layer by layer — it starts at Caffe.
    A net whose conversion from PyTorch/ONNX is already wrong
    (a pooling that rounds the other way, a lost pad, ReLU6 become ReLU, InnerProduct weights in
    the wrong order) shows up as "case 2: quantization" or "case 3" and is chased in `_hp` layers.
    Comparing ONNX with Caffe first names the stage that lost the accuracy: a faithful conversion
    agrees to float rounding (cosine ≥ 0.9999 on every layer).

    ## Example
    ```
    T501 Caffe already differs from the ONNX model at pool1 (blob pool1: its shape 10×12×12 against
    ONNX's 10×11×11) …; nnie-lint --onnx on this layer: NN503 pooling rounds up in Caffe …
    ```

    ## Fix
    None in the triage: fix the conversion (the NN5xx findings' fixes in the prototxt, or the
    converter), convert again and compare again.
    """,
    docs_zh="使用 `nnie-triage compare --framework DIR`（由 `nnie-triage reference --onnx` 写出的 ONNX 模型 dump）时：第一个 Caffe 输出已与其对应 "
            "ONNX 张量不同的层——余弦低于 conversion（0.9999）、相对 L2 误差高于 conversion_rel_l2，或尺寸不同。指南从 Caffe 开始：转换已出错的网络"
            "会被当作\"情况 2：量化\"或\"情况 3\"，在 `_hp` 层上白费时间。先比较 ONNX 与 Caffe，就能指出精度丢失在哪个阶段；忠实的转换每层余弦都 ≥ 0.9999。"
            "修正：修正转换（NN5xx 的 prototxt 修复或转换工具），重新转换后再对比。")


def _static(builder, sources, hop_row, onnx: str | None) -> str:
    """What nnie-lint --onnx says about the layers that write the blob of ``hop_row``."""
    src = sources
    prototxt = src.prototxt.path if src.prototxt is not None else None
    if not onnx or not prototxt:
        return builder.text("T501", "no_model", prototxt=prototxt or "net.prototxt")
    from nnie_lsp.lint.driver import lint_files
    from nnie_lsp.project.settings import settings_from_mapping

    graph = src.graph
    names = {hop_row.name}
    chain = graph.chain_of(hop_row.blob) if graph is not None else None
    if chain is not None:
        names |= {chain.head.name} | {m.name for m in chain.inplace}
    layers = [gl for gl in graph.layers if gl.name in names] if graph is not None else []
    try:
        run = lint_files([prototxt], settings=settings_from_mapping({"select": ["NN5"], "onnx": onnx}),
                         lang=src.lang)
    except Exception:  # the static check is a citation: its failure never stops the verdict
        return builder.text("T501", "no_static")
    found = []
    for d in run.diagnostics:
        if d.code in ("NN500", "NN501"):
            continue
        start = d.range.start
        if any(gl.source.node.range.start <= start <= gl.source.node.range.end for gl in layers):
            found.append(f"{d.code} {d.message} (line {start.line + 1})")
    if not found:
        return builder.text("T501", "no_static")
    return builder.text("T501", "static", findings="; ".join(found))


def _reshaped_origin(first, hop, graph):
    """The earliest row before ``first`` on a run of blobs it reads whose values agree with ONNX in
    another shape (:mod:`..measure.framework` notes them), or None."""
    if graph is None:
        return None
    by_blob = {r.blob: r for r in hop.rows}
    found, seen = None, set()
    todo = [first.blob]
    while todo:
        blob = todo.pop()
        for layer in graph.producers(blob):
            for bottom in layer.bottoms:
                row = by_blob.get(bottom)
                if bottom in seen or row is None or row.status != "ok" or not row.note or row.order >= first.order:
                    continue
                seen.add(bottom)
                if found is None or row.order < found.order:
                    found = row
                todo.append(bottom)
    return found


def apply(diag, hop, sources, thresholds) -> None:
    """Name the stage in ``diag`` (a :class:`~.tree.Diagnosis`) from the ONNX → Caffe ``hop``."""
    from nnie_lsp.triage.diagnose.builder import FindingBuilder

    builder = FindingBuilder(sources)
    if hop.model_changed:
        builder.add("T501", "model_changed", severity=Severity.WARNING, place=sources.cfg_home(),
                    folder=hop.folder, onnx=hop.onnx)
        diag.findings = builder.items + diag.findings
        return
    data = hop.data_differs
    if data is not None:
        builder.add("T501", "inputs_differ", severity=Severity.WARNING, place=sources.input_place(data.blob),
                    blob=data.blob, what=data.what())
        diag.findings = builder.items + diag.findings
        return
    first = hop.first
    if first is None:
        return
    origin = _reshaped_origin(first, hop, sources.graph)
    if origin is not None:
        shapes = origin.note.split(": ", 1)[-1]
        builder.add("T501", "reshaped", place=sources.layer_place(origin.name), later=first.name,
                    later_blob=first.blob, what=first.what(), layer=origin.name, shapes=shapes,
                    static=_static(builder, sources, origin, hop.onnx))
        first = origin
    else:
        static = _static(builder, sources, first, hop.onnx)
        builder.add("T501", "differs", place=sources.layer_place(first.name), layer=first.name, blob=first.blob,
                    what=first.what(), static=static)
    before = f"{diag.verdict} (case {diag.case})" if diag.case and "(case" not in diag.verdict else diag.verdict
    what = first.what() if origin is None else f"{origin.note}; {hop.first.name} ({hop.first.blob}) reads it: {hop.first.what()}"
    diag.reason = (f"{first.name} ({first.blob}): {what} (conversion bar: cosine ≥ {thresholds.conversion}, "
                   f"relative L2 ≤ {thresholds.conversion_rel_l2}); the Caffe → NNIE hop alone says: {before}")
    diag.verdict = f"{VERDICT} from {first.name} on"
    diag.case, diag.next_step = None, 0
    # case 4's "the NNIE side computes what Caffe computes — check the post-processing" (T401) is not
    # the next step while Caffe itself is wrong; the Caffe → NNIE hop's other findings stand
    diag.findings = builder.items + [f for f in diag.findings if f.code != CHECK_POSTPROCESSING]

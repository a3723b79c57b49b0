"""NN022: where shape inference stopped, and why — one finding per net.

Shapes are inferred only from what the file really says (:mod:`nnie_lsp.readers.prototxt.shapes`): a
layer whose type is unknown, whose parameters the schema rejected, that has no shape rule or
whose rule cannot tell its output leaves its outputs unknown, and everything after them.  The
shape-based checks (NN017's fix safety, NN018's Eltwise and width checks, NN019, NN021) then say
nothing past that point; this finding says where it is, so silence is not read as "checked".
"""

from __future__ import annotations

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.readers.prototxt.shape_reasons import REASONS
from nnie_lsp.readers.prototxt.shapes import REPORTED_ELSEWHERE
from nnie_lsp.rules._proto import layer_anchor, names_text
from nnie_lsp.core.registry import rule


def _where(stop, by_index, ctx) -> tuple[str, object, str]:
    """(text naming the place, its range, the layer's name for the related list)."""
    if stop.layer is None:
        return ctx.text("input", blob=stop.blob), stop.range, stop.blob or "?"
    layer = by_index[stop.layer]
    rng = stop.range if stop.range is not None else (layer.source.type_range or layer_anchor(layer.source))
    return ctx.text("layer", type=layer.type or "?", layer=layer.name), rng, layer.name


#: the Chinese form of each reason shape inference gives (the English is REASONS'); a reason
#: without one fails at import, so no reason reaches a Chinese message in English
_WHY_ZH = {
    "input_unknown": "输入形状未知",
    "rank": "需要 {ndim} 维输入，实际为 {got} 维",
    "axis_range": "axis {axis} 超出 {ndim} 维 blob 的范围",
    "num_output": "缺少 num_output",
    "kernel": "缺少 kernel 大小",
    "stride": "stride 必须为正",
    "concat_empty": "Concat 没有输入",
    "reshape_zero": "复制的维度为 0：无法推断 -1",
    "permute_order": "permute 的 order 无效",
    "slice_points": "slice_point 的个数必须等于 top 数减 1",
    "slice_split": "该轴长度不能被 top 数整除",
    "reorg_channels": "通道数不能被 stride² 整除",
    "reorg_hw": "H/W 不能被 stride 整除",
    "crop_inputs": "Crop 需要两个形状已知的 bottom",
    "interp_size": "没有输出尺寸参数",
    "custom_shapes": "custom_param 需要为每个 top 给出一个 shape",
    "roi_inputs": "ROIPooling 需要特征图和 ROI 的形状",
    "psroi_inputs": "PSROIPooling 需要 ROI 的形状",
    "input_layer_shape": "Input 层没有 shape",
    "input_layer_per_top": "Input 层需要为每个 top 给出一个 shape",
    "dummy_per_top": "dummy_data_param 需要为每个 top 给出一个 {what}",
    "dummy_shape": "DummyData 没有 shape",
    "memory_data": "memory_data_param 需要 batch_size、channels、height 和 width",
    "not_positive": "输出尺寸 {shape} 不为正",
    "top_unknown": "某个 top 的形状未知",
    "no_shape_every_top": "{type} 没有为每个 top 声明形状",
    "error": "{error}",
}
_WHY = {f"why_{key}": (en, _WHY_ZH[key]) for key, en in REASONS.items()}


def _reason(stop, ctx) -> str:
    if stop.kind == "unread":
        msg_id = {"NN011": "unread_field", "NN012": "unread_value"}.get(stop.code, "unread_syntax")
        return ctx.text(msg_id, field=stop.detail or "?")
    if stop.kind == "unread_input":
        msg_id = {"NN011": "input_unread_field", "NN012": "input_unread_value"}.get(stop.code, "input_unread_syntax")
        return ctx.text(msg_id, field=stop.detail or "?", **dict(stop.params))
    if stop.kind == "bad_input_shape":
        return ctx.text("bad_input_shape", shape=stop.detail)
    if stop.kind == "no_input_shape":
        return ctx.text("no_input_shape")
    if stop.kind in ("unknown_type", "python", "data", "no_rule"):
        return ctx.text(stop.kind, type=stop.detail, module=stop.detail)
    why = ctx.text(f"why_{stop.reason}", **dict(stop.params)) if stop.reason else stop.detail
    return ctx.text("rule", detail=why)


@rule("NN022", "shape-inference-stopped", Severity.INFO, step=None,
      summary=("Shape inference stops here: the shape checks say nothing past this point",
               "形状推断在此中止：其后的形状检查不再生效"),
      messages={
          "stop": ("shape inference stops at {where} (line {line}): {reason}; every shape after it is unknown, so the shape checks (NN017's fix safety, NN018, NN019, NN021) say nothing about the layers it feeds{more}",
                   "形状推断在 {where}（第 {line} 行）中止：{reason}；其后的形状均未知，形状检查（NN017 修复的安全性、NN018、NN019、NN021）对它所连接的后续层不作判断{more}"),
          "layer": ("{type} layer \"{layer}\"", "{type} 层 \"{layer}\""),
          "input": ("input \"{blob}\"", "输入 \"{blob}\""),
          "unread_field": ("{field} is not in the schema, so the layer's parameters could not be read",
                           "{field} 不在 schema 中，该层参数无法读取"),
          "unread_value": ("{field} has a value the schema rejects, so the layer's parameters could not be read",
                           "{field} 的值不被 schema 接受，该层参数无法读取"),
          "unread_syntax": ("its block has a syntax error (at {field}), so the layer's parameters could not be read",
                            "该层块有语法错误（位于 {field}），参数无法读取"),
          "unknown_type": ("type \"{type}\" is unknown", "类型 \"{type}\" 未知"),
          "python": ("a Python layer ({module}) sets its output shapes in its code",
                     "Python 层（{module}）的输出形状由其代码决定"),
          "data": ("a {type} layer takes its shape from the data it reads", "{type} 层的形状取决于它读取的数据"),
          "no_rule": ("nnie-lint has no shape rule for type \"{type}\"", "nnie-lint 没有类型 \"{type}\" 的形状规则"),
          "rule": ("its output shape cannot be inferred ({detail})", "无法推断其输出形状（{detail}）"),
          "no_input_shape": ("it declares no shape", "未声明形状"),
          "input_unread_field": ("{field} (line {line}) is not in the schema, so the input's shape could not be read",
                                 "{field}（第 {line} 行）不在 schema 中，该输入的形状无法读取"),
          "input_unread_value": ("{field} (line {line}) has a value the schema rejects, so the input's shape could not be read",
                                 "{field}（第 {line} 行）的值不被 schema 接受，该输入的形状无法读取"),
          "input_unread_syntax": ("its {field} has a syntax error (line {line}), so the input's shape could not be read",
                                  "其 {field} 有语法错误（第 {line} 行），该输入的形状无法读取"),
          "bad_input_shape": ("its declared shape {shape} has a negative dim", "其声明的形状 {shape} 含有负数维度"),
          **_WHY,
          "more": (" (it also stops at {layers})", "（另在以下位置中止：{layers}）"),
          "also": ("shape inference also stops here: {reason}", "形状推断也在此中止：{reason}"),
      },
      docs_zh=("形状只按文件实际写出的内容推断：类型未知、参数被 schema 拒绝（例如转换器写出的 "
               "upsample_param { height_scale: 2 }，并不等于 scale: 2）、没有形状规则或无法推断输出的层，"
               "以及未声明形状或形状只读出一部分的输入（input_shape 或 input_dim 中有读取错误，或有负的 dim，"
               "如 ONNX 的 -1），其输出形状未知，之后的所有形状也未知，绝不按默认值猜测。此时基于形状的检查（NN017 修复的安全性、"
               "NN018、NN019、NN021）对其后的层不作判断；本提示在每个网络中只出现一次，指出推断在哪一层、"
               "因何中止，其余中止处作为相关位置列出。NN021（参数与输入不符）与 NN013（blob 未产生）"
               "已报告的原因不再重复。"))
def nn022(project, ctx):
    """
    ## What it finds
    The first place in the net where shape inference stops, and why: a layer whose type is
    unknown, whose parameters could not be read (a block or field the schema rejects — NN011,
    NN012 or NN010 in the layer), a Python or data layer, a type nnie-lint has no shape rule for,
    a layer whose output cannot be inferred (a missing `num_output`, say), an input declaring
    no shape, or an input whose declared shape was read only in part (an error the reader flags in
    its `input_shape` block or `input_dim` values, or a negative dim such as ONNX's `-1`) — when
    some layer reads the unknown output.  One finding per net; the other places
    where inference stops are related locations.  Causes NN021 (parameters that do not fit) and
    NN013 (a blob no layer produces) already report are not repeated.

    ## Why
    A shape computed from defaults is an invented fact: a converter's
    `upsample_param { height_scale: 2 width_scale: 2 mode: NEAREST }` is not in the schema, and
    reading it as the default `scale: 1` made every later shape wrong (a Reshape "from
    1×18×20×20" when the real input is 1×18×80×80) and let a mismatched Concat pass.  nnie-lint
    therefore leaves every shape after such a layer unknown, and its shape-based checks (NN017's
    fix safety, NN018's Eltwise/width checks, NN019, NN021) say nothing there.  This finding says
    where that silence starts, so it is not read as "checked and fine".

    ## Example
    ```
    layer {
      name: "Resize_120"
      type: "Upsample"
      bottom: "238"
      top: "242"
      upsample_param { height_scale: 2 width_scale: 2 mode: NEAREST }
    }
    ```

    ## Fix
    None automatic: write the parameters the schema (and nnie_mapper) reads — here
    `upsample_param { scale: 2 }` — or declare the shape that is missing; shape checks then
    cover the rest of the net.
    """
    doc, g = project.prototxt, project.graph
    if doc is None or g is None:
        return
    try:
        stops = g.shape_inference().stops
    except Exception:  # shape inference is best effort; a crash there must not hide other rules
        return
    shown = [s for s in stops if s.reached and s.kind not in REPORTED_ELSEWHERE]
    if not shown:
        return
    by_index = {layer.index: layer for layer in g.layers}
    first, others = shown[0], shown[1:]
    where, rng, _ = _where(first, by_index, ctx)
    related, names = [], []
    for stop in others:
        _w, r, name = _where(stop, by_index, ctx)
        if r is None:
            continue
        related.append(ctx.related("also", doc.path, r, reason=_reason(stop, ctx)))
        names.append(name)
    more = ctx.text("more", n=len(names), layers=names_text(names)) if names else ""
    if rng is None:
        return
    yield ctx.diag("stop", doc.path, rng, related=related, where=where, line=rng.start.line + 1,
                   reason=_reason(first, ctx), more=more)

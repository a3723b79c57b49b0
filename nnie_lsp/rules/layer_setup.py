"""NN021: a layer the net cannot be set up with — Caffe and nnie_mapper stop building the net.

An inconsistent Reshape (Caffe's ``ReshapeLayer`` checks, found by the shape inference), a Concat
of inputs that differ beyond the concat axis (``ConcatLayer::Reshape``), and an
``Input`` layer without ``input_param`` (nnie_mapper: "input layer has no input param!",
docs/field-facts.md §16.3).  Registered when :mod:`.schema_rules` is loaded.

These are not NNIE limits (NN018): the net is broken for Caffe too (or, for the Input layer,
for the mapper whatever the target), so they are errors of their own code that ignoring the
user-reported NNIE limits does not hide.
"""

from __future__ import annotations

import math

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.rules._proto import child, children, layer_anchor
from nnie_lsp.core.registry import rule


def _shape_text(shape) -> str:
    return "×".join(str(d) for d in shape) if shape else "?"


def _dim_nodes(layer):
    shape = child(layer.source.node, "reshape_param", "shape")
    nodes = children(shape, "dim")
    if len(nodes) == 1 and nodes[0].kind == "list":
        nodes = nodes[0].children
    return shape, nodes


def _concat_place(layer, problem):
    """A Concat problem: its range (the mismatching bottom) and the message parameters."""
    d = problem.details
    bottoms = layer.source.bottoms
    k, k0 = d["bottom"], d["first_bottom"]
    rng = bottoms[k][1] if k < len(bottoms) else (layer.source.type_range or layer_anchor(layer.source))
    name = lambda i: layer.bottoms[i] if i < len(layer.bottoms) else "?"
    params = {"layer": layer.name, "blob": name(k), "shape": _shape_text(d["input"]),
              "first_blob": name(k0), "first": _shape_text(d["first"]), "axis": d["axis"],
              "ndim": len(d["input"]), "first_ndim": len(d["first"]), "at": d.get("at", "")}
    return rng, params


def _problem_range(layer, problem):
    """The exact place of a Reshape problem: the dim at fault, the axis field, or the shape."""
    shape, dims = _dim_nodes(layer)
    details = problem.details
    index = details.get("dim")
    if index is not None and index < len(dims) and len(dims) == len(details.get("dims", ())):
        return dims[index].value_range or dims[index].range
    if problem.kind in ("axis", "num_axes"):
        node = child(layer.source.node, "reshape_param", problem.kind)
        if node is not None:
            return node.value_range
    if shape is not None:
        return shape.range
    return layer.source.type_range or layer_anchor(layer.source)


def _reshape_params(layer, problem) -> dict:
    d = problem.details
    dims = d.get("dims", ())
    params = {"layer": layer.name, "shape": " ".join(f"dim: {x}" for x in dims) or "(no dims)",
              "input": _shape_text(d.get("input"))}
    if d.get("input") is not None:
        params["count"] = math.prod(d["input"])
    if problem.kind == "count":
        params.update(output=_shape_text(d["output"]), output_count=d["output_count"])
    elif problem.kind == "not_divisible":
        params.update(known=d["known"])
    elif problem.kind in ("copy_missing", "two_inferred", "negative_dim"):
        params.update(position=d["dim"] + 1, value=d.get("value", ""), axis=d.get("axis", ""),
                      ndim=len(d["input"]) if d.get("input") else "?")
    elif problem.kind in ("axis", "num_axes"):
        params.update(axis=d.get("axis"), num_axes=d.get("num_axes"),
                      ndim=len(d["input"]) if d.get("input") else "?")
    return params


@rule("NN021", "layer-setup-error", Severity.ERROR, step=None,
      summary=("A layer's parameters do not fit its input: the net cannot be set up",
               "层参数与其输入不符：网络无法建立"),
      messages={
          "count": ("Reshape \"{layer}\" ({shape}) makes {output} = {output_count} elements from {input} = {count}: the element count must not change (Caffe: \"output count must match input count\")",
                    "Reshape 层 \"{layer}\"（{shape}）把 {input} = {count} 个元素变为 {output} = {output_count} 个：元素个数不能改变（Caffe：\"output count must match input count\"）"),
          "not_divisible": ("Reshape \"{layer}\" ({shape}): the input {input} has {count} elements, not divisible by {known} (the product of the other dims), so -1 cannot be inferred",
                            "Reshape 层 \"{layer}\"（{shape}）：输入 {input} 有 {count} 个元素，不能被其余各维之积 {known} 整除，无法推断 -1"),
          "two_inferred": ("Reshape \"{layer}\" ({shape}): dim {position} is a second -1; at most one dim can be inferred",
                           "Reshape 层 \"{layer}\"（{shape}）：第 {position} 个 dim 是第二个 -1；最多只能推断一维"),
          "negative_dim": ("Reshape \"{layer}\" ({shape}): dim {position} is {value}; only 0 (copy) and -1 (infer) are special, other dims must be positive",
                           "Reshape 层 \"{layer}\"（{shape}）：第 {position} 个 dim 为 {value}；只有 0（保持）与 -1（推断）有特殊含义，其余必须为正数"),
          "copy_missing": ("Reshape \"{layer}\" ({shape}): dim {position} is 0 (copy input axis {axis}) but the input {input} has only {ndim} axes",
                           "Reshape 层 \"{layer}\"（{shape}）：第 {position} 个 dim 为 0（保持输入第 {axis} 维），但输入 {input} 只有 {ndim} 维"),
          "axis": ("Reshape \"{layer}\": axis {axis} is out of range for the {ndim}-D input {input}",
                   "Reshape 层 \"{layer}\"：axis {axis} 超出 {ndim} 维输入 {input} 的范围"),
          "no_shape": ("Reshape \"{layer}\" has no reshape_param shape: Caffe makes a 1-element blob of no axes from {input} = {count}; give the output shape (dim: 0 keeps an axis, one dim: -1 is inferred)",
                       "Reshape 层 \"{layer}\" 没有 reshape_param 的 shape：Caffe 会把 {input} = {count} 个元素变成没有维度的 1 个元素；请给出输出形状（dim: 0 保持该维，一个 dim: -1 自动推断）"),
          "num_axes_value": ("Reshape \"{layer}\": num_axes {num_axes} is neither -1 (all axes) nor 0 or more",
                             "Reshape 层 \"{layer}\"：num_axes {num_axes} 既不是 -1（全部维）也不是非负数"),
          "num_axes": ("Reshape \"{layer}\": num_axes {num_axes} (from axis {axis}) is out of range for the {ndim}-D input {input}",
                       "Reshape 层 \"{layer}\"：num_axes {num_axes}（从 axis {axis} 起）超出 {ndim} 维输入 {input} 的范围"),
          "concat_shape": ("Concat \"{layer}\" joins \"{blob}\" {shape} to \"{first_blob}\" {first} along axis {axis}, but they differ on axis {at}: every axis but the concat axis must match (Caffe: \"All inputs must have the same shape, except at concat_axis.\")",
                           "Concat 层 \"{layer}\" 沿第 {axis} 维拼接 \"{blob}\" {shape} 与 \"{first_blob}\" {first}，但两者第 {at} 维不同：除拼接维外各维必须相同（Caffe：\"All inputs must have the same shape, except at concat_axis.\"）"),
          "concat_axes": ("Concat \"{layer}\" joins \"{blob}\" {shape} ({ndim} axes) to \"{first_blob}\" {first} ({first_ndim} axes): all inputs must have the same number of axes (Caffe: \"All inputs must have the same #axes.\")",
                          "Concat 层 \"{layer}\" 拼接的 \"{blob}\" {shape}（{ndim} 维）与 \"{first_blob}\" {first}（{first_ndim} 维）维数不同：所有输入的维数必须相同（Caffe：\"All inputs must have the same #axes.\"）"),
          "input_param": ("Input layer \"{layer}\" has no input_param: nnie_mapper stops with \"input layer has no input param!\"; declare input_param {{ shape {{ dim: 1 dim: C dim: H dim: W }} }}",
                          "Input 层 \"{layer}\" 没有 input_param：nnie_mapper 会报错 \"input layer has no input param!\"；请声明 input_param {{ shape {{ dim: 1 dim: C dim: H dim: W }} }}"),
      },
      docs_zh=("层参数与其输入不符，Caffe 与 nnie_mapper 都无法建立网络：Reshape 的元素个数改变、-1 无法整除推断、"
               "出现两个 -1、dim 为 0 却没有对应的输入维、axis/num_axes 越界（按 Caffe ReshapeLayer 的规则检查，"
               "消息给出元素个数）；Concat 的输入在拼接维以外的维上不同或维数不同；以及没有 input_param 的 Input 层（mapper 报错 \"input layer has no input param!\"）。"
               "这些不是 NNIE 的限制（NN018），而是网络本身的错误。"))
def nn021(project, ctx):
    """
    ## What it finds
    - A Reshape whose parameters do not fit its input, checked as Caffe's `ReshapeLayer` does
      (`shape` replaces the input axes from `axis` for `num_axes`; `dim: 0` copies the input
      axis at its position, one `dim: -1` is inferred): the element count changes, the input
      count is not divisible by the other dims, two dims are -1, a 0 copies an axis the input
      does not have, a dim is negative, or `axis`/`num_axes` is out of range.  The message gives
      the shapes and element counts.
    - A Concat whose inputs differ on an axis other than the concat axis (8×32×32 and 3×64×64
      along channels), or have different numbers of axes — checked as Caffe's `ConcatLayer`
      does, among the inputs whose shapes are known.
    - An `Input` layer without `input_param`.

    Shapes are only those the file states: past a layer whose parameters could not be read or
    whose type is unknown nothing is checked (NN022 says where).

    ## Why
    Caffe stops setting up the net (`output count must match input count`, `new shape contains
    multiple -1 dims`, `All inputs must have the same shape, except at concat_axis.`, …) and so does nnie_mapper; for the Input layer the mapper stops with
    `input layer has no input param!` (seen in real mapper logs) although Caffe would accept a
    shape set later from Python.  Typical causes: a Reshape that hard-codes the batch or a
    feature size of another input size, or a converter that left the shape of an input out.
    These are not NNIE limits (NN018) but errors of the net itself.

    ## Example
    ```
    input: "data"
    input_shape { dim: 1 dim: 3 dim: 224 dim: 224 }
    layer { name: "conv" type: "Convolution" bottom: "data" top: "conv" convolution_param { num_output: 256 kernel_size: 1 } }
    layer { name: "r" type: "Reshape" bottom: "conv" top: "r" reshape_param { shape { dim: 16 dim: 10 dim: 4096 } } }
    ```

    ## Fix
    None automatic: write the shape with `dim: 0` for axes to keep and one `dim: -1`, or declare
    the input's shape.
    """
    doc, g = project.prototxt, project.graph
    if doc is None or g is None:
        return
    by_index = {layer.index: layer for layer in g.layers}
    for layer in g.layers:
        if layer.type == "Input" and not layer.source.is_v1 and not layer.param.HasField("input_param"):
            rng = layer.source.type_range or layer_anchor(layer.source)
            yield ctx.diag("input_param", doc.path, rng, layer=layer.name)
    try:
        problems = g.shape_inference().problems
    except Exception:  # shape inference is best effort; a crash there must not hide other rules
        return
    for problem in problems:
        layer = by_index.get(problem.layer)
        if layer is None or problem.kind not in ctx.messages:  # a kind without a message: not reported
            continue
        message = problem.kind
        if message == "num_axes" and problem.details.get("input") is None:
            message = "num_axes_value"  # found before the input shape is known: num_axes < -1
        elif message == "count" and not problem.details.get("dims") and not problem.details.get("output"):
            message = "no_shape"
        if message.startswith("concat"):
            rng, params = _concat_place(layer, problem)
            yield ctx.diag(message, doc.path, rng, **params)
            continue
        yield ctx.diag(message, doc.path, _problem_range(layer, problem), **_reshape_params(layer, problem))

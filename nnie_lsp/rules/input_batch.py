"""NN017: the input batch must be 1, and setting it to 1 is a safe fix only when no layer depends
on the batch (:mod:`nnie_lsp.readers.prototxt.batch`).  Registered when :mod:`.schema_rules` is loaded."""

from __future__ import annotations

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.readers.prototxt.batch import batch_dependence
from nnie_lsp.core.text import TextEdit
from nnie_lsp.rules._proto import child, children, names_text, top_level
from nnie_lsp.core.registry import rule


def _elements(nodes):
    """Each written value of repeated fields given as ``name: v`` lines or ``name: [v, …]`` lists."""
    out = []
    for n in nodes:
        out.extend(n.children if n.kind == "list" else (n,))
    return out


def _first_dim(shape_node):
    """The node of the first ``dim`` of a ``BlobShape`` block (``dim: 8`` or ``dim: [8, …]``)."""
    dims = _elements(children(shape_node, "dim")) if shape_node is not None else []
    return dims[0] if dims else None


def _per_top(nodes, k: int, n_tops: int):
    """Caffe's rule for Input/DummyData shapes: one for every top, or one per top."""
    if len(nodes) == 1:
        return nodes[0]
    return nodes[k] if k < len(nodes) else None


def _layer_batch_nodes(layer):
    """(top, node of its batch) for an Input, DummyData or MemoryData layer."""
    node, tops, out = layer.source.node, layer.tops, []
    if layer.type == "Input":
        shapes = children(child(node, "input_param"), "shape")
        out = [(t, _first_dim(_per_top(shapes, k, len(tops)))) for k, t in enumerate(tops)]
    elif layer.type == "DummyData":
        p = child(node, "dummy_data_param")
        shapes = children(p, "shape")
        if shapes:
            out = [(t, _first_dim(_per_top(shapes, k, len(tops)))) for k, t in enumerate(tops)]
        else:  # legacy num / channels / height / width, once or once per top
            nums = _elements(children(p, "num"))
            out = [(t, _per_top(nums, k, len(tops)) if nums else None) for k, t in enumerate(tops)]
    elif layer.type == "MemoryData" and tops:  # batch_size: the data top (the label top follows it)
        out = [(tops[0], child(node, "memory_data_param", "batch_size"))]
    return [(t, d) for t, d in out if d is not None]


def _batch_dim_nodes(doc, g):
    """(input name, node of its first dim) for each input whose shape is declared: top-level
    ``input`` + ``input_shape`` / ``input_dim`` (line or list forms), and the tops of Input,
    DummyData and MemoryData layers (every form of a net input the schema has)."""
    out = []
    # as the graph reads them (prototxt/graph.py _inputs): a non-string `input:` names no input
    names = [n.value for n in _elements(top_level(doc, "input")) if isinstance(n.value, str)]
    shapes = [e for e in _elements(top_level(doc, "input_shape")) if e.kind == "message"]
    dims = _elements(top_level(doc, "input_dim"))
    for k, name in enumerate(names):
        if shapes:
            d = _first_dim(shapes[k]) if k < len(shapes) else None
        else:
            d = dims[4 * k] if len(dims) >= 4 * (k + 1) else None
        if d is not None:
            out.append((name, d))
    for layer in g.layers:
        out.extend(_layer_batch_nodes(layer))
    return out


#: layers whose inputs are time-major (T × N × …): their first dim is no batch
RECURRENT = frozenset({"LSTM", "RNN"})


@rule("NN017", "input-batch-not-one", Severity.WARNING, step=None,
      summary=("Input batch dimension is not 1", "输入的 batch 维不为 1"),
      messages={"batch": ("input \"{name}\" declares batch {n}; NNIE expects 1 (the mapper sets N from [batch_num] and the image count){why}",
                          "输入 \"{name}\" 的 batch 为 {n}；NNIE 要求为 1（N 由 [batch_num] 与图片数决定）{why}"),
                "set": ("Set the batch dimension to 1", "将 batch 维改为 1"),
                "set_all": ("Set the batch dimension of inputs {inputs} to 1", "将输入 {inputs} 的 batch 维改为 1"),
                "unchecked": ("the shapes could not be inferred", "无法推断形状"),
                "unsafe": ("; setting it to 1 is not a safe fix: {reason}{more}",
                           "；把它改为 1 不是安全的修复：{reason}{more}"),
                "breaks": ("; setting it to 1 alone would give a net Caffe refuses: {reason}{more} — change that layer for batch 1 first",
                           "；仅把它改为 1 会得到 Caffe 拒绝的网络：{reason}{more}——请先让该层适配 batch 1"),
                "more": (" (also {layers})", "（另有 {layers}）"),
                "reshape_dims": ("Reshape \"{layer}\" hard-codes the batch in its shape ({dims})",
                                 "Reshape 层 \"{layer}\" 的形状中写死了 batch（{dims}）"),
                "axis0": ("{type} \"{layer}\" works on axis 0 (`{field}: 0`), the batch",
                          "{type} 层 \"{layer}\" 作用在第 0 维（`{field}: 0`），即 batch 维"),
                "setup": ("{type} \"{layer}\" no longer fits its input {input} with batch 1",
                          "batch 为 1 时 {type} 层 \"{layer}\" 与其输入 {input} 不再相符"),
                "shape": ("{type} \"{layer}\" would make \"{blob}\" {after} instead of {before}: its output depends on the batch",
                          "{type} 层 \"{layer}\" 会使 \"{blob}\" 变为 {after} 而不是 {before}：其输出依赖 batch"),
                "mixes": ("{type} \"{layer}\" would combine inputs with different batches ({shapes})",
                          "{type} 层 \"{layer}\" 会合并 batch 不同的输入（{shapes}）"),
                "unknown": ("the shape of \"{blob}\" ({type} \"{layer}\") is unknown, so nnie-lint cannot check that no later layer depends on the batch",
                            "\"{blob}\"（{type} 层 \"{layer}\"）的形状未知，nnie-lint 无法确认其后的层不依赖 batch")},
      fix="safe/unsafe",
      docs_zh=('输入的 batch 维不为 1：指南要求 prototxt 中 n 为 '
               '1，N 由 mapper 根据图片数与 `[batch_num]` 决定。'
               '只有当网络中没有任何层依赖 batch 时，改为 1 的修复才是安全的；'
               '若某层（如写死 16×10×4096 的 Reshape）依赖 batch，'
               '或形状无法推断，修复标为不安全并指出该层。只把 batch 改为 1 会得到 '
               'Caffe 拒绝的网络时（Reshape 写死了 batch、某层输入不再相符）'
               '不提供修复，并指出必须先修改的层。LSTM/RNN 的时间优先输入（cont）'
               '首维是时间，不报告。'))
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
    Set the first dim to 1 — of every input declaring that batch, together (NNIE sets N for the
    whole net; two inputs meeting in an Eltwise must keep one batch).  Safe only when no layer fed
    by those inputs depends on the batch: the shapes are inferred with the declared batch and
    with 1, and every blob must keep its shape apart from the batch.  The fix is unsafe, and the
    message names the layer, when a layer depends on the batch — an operation on axis 0, a Reshape
    or Flatten whose output would change beyond the batch — or when a shape cannot be inferred, so
    that nothing after it can be checked.  No fix is offered when batch 1 alone would give a net
    Caffe refuses — a Reshape whose shape hard-codes the batch (an LRCN net's `16×10×4096`,
    docs/field-facts.md §16.4), a layer whose inputs would no longer fit: the message says which
    layer must change first (the fix would only trade this finding for NN021).
    """
    doc, g = project.prototxt, project.graph
    if doc is None or g is None:
        return
    by_node: dict[int, tuple] = {}  # one finding per written dim (an Input layer's shape may serve several tops)
    for name, node in _batch_dim_nodes(doc, g):
        readers = g.consumers(name)
        if readers and all(c.type in RECURRENT for c in readers):
            continue  # a recurrent layer's sequence input (`cont`): its first dim is the time, T × N
        try:
            n = int(node.value)
        except (TypeError, ValueError):
            continue
        if n != 1:
            by_node.setdefault(id(node), (node, n, []))[2].append(name)
    # the fix sets every input declaring the same batch at once: NNIE sets N for the whole net, and
    # changing one of two inputs that meet in an Eltwise or Concat would break the net
    by_batch: dict[int, list] = {}
    for node, n, names in by_node.values():
        by_batch.setdefault(n, []).append((node, names))
    for n, group in by_batch.items():
        all_names = [name for _, names in group for name in names]
        why, breaks = _unsafe_why(g, all_names, ctx)
        edits = [(doc.path, TextEdit(node.value_range, "1")) for node, _ in group]
        if breaks:
            fix = None  # batch 1 would give a net Caffe refuses (NN021): the layer must change first
        elif len(group) > 1:
            fix = ctx.fix("set_all", edits, safe=not why, inputs=names_text(all_names))
        else:
            fix = ctx.fix("set", edits, safe=not why)
        for node, names in group:
            yield ctx.diag("batch", doc.path, node.value_range, fix=fix, name='", "'.join(names), n=n, why=why)


#: dependences with which batch 1 gives a net Caffe refuses (a Reshape's count, a layer's setup)
BREAKING = frozenset({"reshape_dims", "setup", "mixes"})


def _unsafe_why(g, names, ctx) -> tuple[str, bool]:
    """Why setting the batch of ``names`` to 1 is not a safe fix ("" when it is safe), and whether
    it would break the net (then no fix is offered)."""
    try:
        dependent = batch_dependence(g, names, 1)
    except Exception:  # shape inference is best effort: unchecked means not safe
        return ctx.text("unsafe", reason=ctx.text("unchecked"), more=""), False
    if not dependent:
        return "", False
    more = ctx.text("more", layers=names_text([d.layer.name for d in dependent[1:]])) if dependent[1:] else ""
    breaks = any(d.kind in BREAKING and d.details.get("breaks", True) for d in dependent)
    key = "breaks" if breaks else "unsafe"
    return ctx.text(key, reason=_dependence_text(dependent[0], ctx), more=more), breaks


def _dims_text(shape) -> str:
    return "×".join(str(d) for d in shape) if shape else "?"


def _dependence_text(dependence, ctx) -> str:
    layer, d = dependence.layer, dependence.details
    params = {"layer": layer.name, "type": layer.type}
    if dependence.kind == "reshape_dims":
        params["dims"] = _dims_text(d["dims"])
    elif dependence.kind == "axis0":
        params["field"] = d["field"]
    elif dependence.kind == "setup":
        params["input"] = _dims_text(d.get("input"))
    elif dependence.kind == "shape":
        params.update(blob=d["blob"], before=_dims_text(d["before"]), after=_dims_text(d["after"]))
    elif dependence.kind == "mixes":
        params["shapes"] = ", ".join(_dims_text(s) for s in d["shapes"])
    elif dependence.kind == "unknown":
        params["blob"] = d["blob"]
    return ctx.text(dependence.kind, **params)

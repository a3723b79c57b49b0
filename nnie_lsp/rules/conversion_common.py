"""The NN5xx rules' shared part: the conversion findings of a project
(:func:`nnie_lsp.conversion.analysis.analyze`, computed once per project and read by every NN5xx
rule) turned into Diagnostics, on the prototxt line of the field at fault, with the prototxt edit
as a fix.

Every NN5xx fix is **unsafe**: it changes what Caffe computes (to compute what the ONNX model
does), which the house definition of a safe fix excludes.
"""

from __future__ import annotations

from nnie_lsp.core.text import Position, Range, TextEdit
from nnie_lsp.rules._proto import child

#: how a layer was matched (MatchLayer.confidence) in Chinese
HOW_ZH = {"tensor name": "张量名", "graph structure": "图结构", "graph structure and shapes": "图结构与形状"}

MATCH_MESSAGES = {"match": (" [ONNX: {onnx}; matched by {how}]", " [ONNX：{onnx}；匹配方式：{how}]")}


def _first_range(doc) -> Range:
    return doc.nodes[0].name_range if doc.nodes else Range.point(0, 0)


def finding_range(doc, layer, where) -> Range:
    """The exact place of a finding inside ``layer`` (see :class:`nnie_lsp.conversion.findings.Finding`)."""
    if layer is None:
        return _first_range(doc)
    src = layer.source
    fallback = src.type_range or src.name_range
    kind = where[0] if where else "type"
    if kind == "type":
        return fallback
    if kind == "name":
        return src.name_range or fallback
    if kind == "bottom":
        nodes = src.node.find("bottom")
        return nodes[where[1]].value_range if where[1] < len(nodes) else fallback
    node = child(src.node, *where)
    if node is not None:
        return node.value_range if node.kind == "scalar" else node.name_range
    block = child(src.node, where[0])
    return block.name_range if block is not None else fallback


def _line_of(doc, node) -> tuple[int, int, str]:
    start = node.range.start
    return start.line, doc.line_index.line_start(start.line), doc.line_index.line_text(start.line)


def _delete(doc, node) -> TextEdit:
    line, _, text = _line_of(doc, node)
    r = node.range
    if r.start.line == r.end.line and text.strip() == doc.text[doc.line_index.offset(r.start):
                                                                 doc.line_index.offset(r.end)].strip():
        return TextEdit(Range(Position(line, 0), Position(line + 1, 0)), "")
    return TextEdit(r, "")


def _insert_in_block(doc, block, text: str) -> TextEdit:
    end = block.range.end
    close = Position(end.line, end.character - 1)  # the closing brace
    line_text = doc.line_index.line_text(end.line)
    before = line_text[:close.character]
    if not before.strip():  # `}` alone on its line: a line of its own, indented one step more
        return TextEdit(Range.point(end.line, 0), f"{before}  {text}\n")
    return TextEdit(Range(close, close), f"{text} ")


def fix_edits(doc, layer, ffix) -> list[TextEdit]:
    """The edits of a :class:`~nnie_lsp.conversion.findings.FieldFix` in ``layer``."""
    src = layer.source.node
    block = src.first(ffix.block)
    fields = " ".join(f"{k}: {v}" for k, v in ffix.fields)
    if block is None or ffix.replace_block:
        text = f"{ffix.block} {{ {fields} }}" if fields else f"{ffix.block} {{ }}"
        if block is not None:
            return [TextEdit(block.range, text)]
        return [_insert_in_block(doc, src, text)]  # a new block, last in the layer
    edits: list[TextEdit] = []
    for name in ffix.remove:
        for node in block.find(name):
            edits.append(_delete(doc, node))
    for name, value in ffix.fields:
        node = block.first(name)
        if node is not None:
            edits.append(TextEdit(node.value_range, value))
        else:
            edits.append(_insert_in_block(doc, block, f"{name}: {value}"))
    return edits


def emit(project, ctx, severities=None):
    """The Diagnostics of ``ctx.code`` among the project's conversion findings (``severities``:
    message id -> severity, for messages that are not of the code's default severity)."""
    doc, graph = project.prototxt, project.graph
    if doc is None or graph is None or not getattr(project, "onnx_path", None):
        return
    from nnie_lsp.conversion.analysis import analyze
    analysis = analyze(project)
    if analysis is None:
        return
    zh = ctx.lang.startswith("zh")
    for f in analysis.findings:
        if f.code != ctx.code:
            continue
        layer = graph.layer(f.layer) if f.layer else None
        if f.layer and layer is None:
            continue
        params = {"layer": f.layer or "", **f.params}
        params["match"] = ctx.text("match", onnx=f.onnx, how=HOW_ZH.get(f.how, f.how) if zh else f.how) \
            if f.onnx else ""
        fix = None
        if f.fix is not None and layer is not None:
            fix = ctx.fix(f.fix_msg, [(doc.path, e) for e in fix_edits(doc, layer, f.fix)], safe=False, **params)
        yield ctx.diag(f.msg_id, doc.path, finding_range(doc, layer, f.where), fix=fix,
                       severity=(severities or {}).get(f.msg_id), **params)

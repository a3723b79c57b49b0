"""Hover markdown for cfg keys and values, layer types, blob names, fields and suppression codes.

Each function returns ``(markdown, range)`` or ``None``; ranges are engine ranges (code points).
The source and status tags in the texts (``[C, S13]``, ``[I]``) are explained by
:mod:`.fact_tags` in :func:`cfg_hover` and :func:`prototxt_hover` (and in completion docs): a
plain word or a link to the entry in ``docs/field-facts.md``.
"""

from __future__ import annotations

import os

from nnie_lsp.readers.cfg.keys import KEYS, KeySpec, foreign, lookup, suggest
from nnie_lsp.readers.cfg.values import check_value
from nnie_lsp.core.i18n import is_zh, pick, t
from nnie_lsp.readers.mapper.nettree import NetTree, TreeNode
from nnie_lsp.project.project import PATH_KEYS, Project
from nnie_lsp.readers.prototxt import layers as layer_table
from nnie_lsp.readers.prototxt import schema
from nnie_lsp.readers.prototxt.graph import NetGraph
from nnie_lsp.readers.prototxt.reader import PrototxtDocument
from nnie_lsp.core.catalogue import get_rule
from nnie_lsp.core.text import Position, Range
from nnie_lsp.editor.common import blob_ref_at, layer_at, suppression_code_at
from nnie_lsp.editor.fact_tags import explain as explain_tags

Hover = tuple[str, Range]


# ------------------------------------------------------------------ rule codes

def rule_markdown(code: str, lang: str = "en") -> str:
    r = get_rule(code)
    if r is None:
        return t("hover.unknown_code", lang, code=code)
    return r.explain(lang).replace("\n# ", "\n### ").replace("# ", "### ", 1)


def suppression_hover(line_text: str, pos: Position, lang: str = "en") -> Hover | None:
    code = suppression_code_at(line_text, pos.character)
    if code is None:
        return None
    start = line_text.upper().rfind(code, 0, pos.character + len(code))
    start = max(start, 0)
    return rule_markdown(code, lang), Range.of(pos.line, start, pos.line, start + len(code))


# ------------------------------------------------------------------ cfg

def key_markdown(spec: KeySpec, lang: str = "en") -> str:
    lines = [f"**[{spec.name}]** — {t('hover.key', lang)}", "", pick((spec.doc_en, spec.doc_zh), lang), ""]
    if spec.alias_of:
        lines += [t("hover.alias", lang, preferred=spec.alias_of), ""]
    if spec.choices:
        lines.append(f"**{t('hover.values', lang)}**")
        for c in spec.choices:
            doc = spec.value_docs.get(c)
            lines.append(f"- `{c}`" + (f": {pick(doc, lang)}" if doc else ""))
        lines.append("")
    if spec.minimum is not None or spec.maximum is not None:
        lo = spec.bound_labels[0] or (str(spec.minimum) if spec.minimum is not None else "-∞")
        hi = spec.bound_labels[1] or (str(spec.maximum) if spec.maximum is not None else "+∞")
        lb = "[" if spec.min_inclusive else "("
        rb = "]" if spec.max_inclusive else ")"
        lines += [f"**{t('hover.range', lang)}**: {lb}{lo}, {hi}{rb}", ""]
    default = f"`{spec.default}`" if spec.default is not None else t("hover.no_default", lang)
    if spec.default_note:
        default += f" ({spec.default_note})"
    lines.append(f"**{t('hover.default', lang)}**: {default}")
    if spec.required:
        lines.append(f"**{t('hover.required', lang)}**" + (f" ({spec.required_note})" if spec.required_note else ""))
    if spec.per_input:
        lines.append(f"*{t('hover.repeatable', lang)}*")
    lines += ["", f"*{t('hover.source', lang)}: {spec.source}*"]
    return "\n".join(lines).rstrip() + "\n"


def _explained(hit: Hover | None, lang: str) -> Hover | None:
    return (explain_tags(hit[0], lang), hit[1]) if hit is not None else None


def cfg_hover(project: Project, pos: Position, lang: str = "en") -> Hover | None:
    """Hover in a cfg: a key, a value (with the file a path resolves to), a suppression code; on
    ``[instruction_name]``, first the summary of the `.wk` it names (:mod:`.wk`); on a preprocessing
    key, what the model card says the net was trained with."""
    hit = _explained(_with_wk_summary(project, pos, _cfg_hover(project, pos, lang)), lang)
    entry = project.cfg.entry_at(pos) if hit is not None and project.cfg is not None else None
    if entry is not None:
        from nnie_lsp.editor.card import cfg_card_line

        said = cfg_card_line(project, entry.key, lang)
        if said:
            hit = (said + "\n\n---\n\n" + hit[0], hit[1])
    return hit


def _with_wk_summary(project: Project, pos: Position, hit: Hover | None) -> Hover | None:
    entry = project.cfg.entry_at(pos) if project.cfg is not None and hit is not None else None
    if entry is None or getattr(project, "wk", None) is None or lookup(entry.key) is None \
            or (lookup(entry.key).alias_of or lookup(entry.key).name) != "instruction_name":
        return hit
    from nnie_lsp.editor.wk import instruction_summary

    summary = instruction_summary(project)
    return (summary + "\n---\n\n" + hit[0], hit[1]) if summary else hit


def _cfg_hover(project: Project, pos: Position, lang: str = "en") -> Hover | None:
    cfg = project.cfg
    if cfg is None:
        return None
    sup = suppression_hover(cfg.line_index.line_text(pos.line), pos, lang)
    if sup is not None:
        return sup
    entry = cfg.entry_at(pos)
    if entry is None:
        return None
    spec = lookup(entry.key)
    if entry.bracket_range.contains(pos):
        if spec is not None:
            return key_markdown(spec, lang), entry.bracket_range
        fk = foreign(entry.key)
        if fk is not None:
            return f"**[{fk.name}]** — {t('hover.foreign_key', lang)}\n\n{pick((fk.doc_en, fk.doc_zh), lang)}\n\n*{fk.source}*\n", entry.bracket_range
        s = suggest(entry.key)
        md = f"**[{entry.key}]** — {t('hover.unknown_key', lang)}"
        if s:
            md += "\n\n" + t("hover.did_you_mean", lang, key=s)
        return md, entry.bracket_range
    if not entry.value_range.contains(pos) or spec is None:
        return None
    value = entry.value
    lines = [f"**[{spec.name}] {value}**", ""]
    doc = spec.value_docs.get(value)
    if doc:
        lines += [pick(doc, lang), ""]
    if entry.key in PATH_KEYS:
        ref = project.ref_for(entry)
        if ref is not None and not ref.is_null and not ref.foreign:
            if ref.resolved:
                lines.append(t("hover.resolved", lang, path=ref.resolved))
            else:
                lines.append(t("hover.not_found", lang, where=", ".join(f"`{c}`" for c in ref.candidates[:3])))
    else:
        chk = check_value(spec, value)
        if not chk.ok:
            lines.append("⚠ " + (chk.message_zh if is_zh(lang) and chk.message_zh else chk.message))
    lines += ["", "---", "", key_markdown(spec, lang)]
    return "\n".join(lines).rstrip() + "\n", entry.value_range


# ------------------------------------------------------------------ prototxt

def layer_type_markdown(type_: str, lang: str = "en") -> str:
    spec = layer_table.lookup(type_)
    if spec is None:
        md = t("hover.unknown_type", lang, type=type_)
        s = layer_table.suggest(type_)
        if s:
            md += "\n\n" + t("hover.did_you_mean", lang, key=s).replace("[", "`").replace("]", "`")
        return md
    lines = [f"**{spec.type}** — {t('hover.layer_type', lang)}", "",
             f"**{t('hover.support.' + spec.support, lang)}**", "",
             pick((spec.doc_en, spec.doc_zh), lang), ""]
    if spec.limits:
        lines += [f"**{t('hover.limits', lang)}**: {spec.limits}", ""]
    if spec.mapper_inserts_permute:
        lines += [t("hover.permute", lang), ""]
    if spec.training_only:
        lines += [t("hover.training_only", lang), ""]
    if spec.inplace_capable:
        lines += [t("hover.inplace_ok", lang), ""]
    if spec.param_field:
        lines += [f"`{spec.param_field} {{ … }}`", ""]
    if spec.source:
        lines.append(f"*{t('hover.source', lang)}: {spec.source}*")
    return "\n".join(lines).rstrip() + "\n"


def _shape_text(shape) -> str:
    return " × ".join(str(d) for d in shape) if shape else "?"


def blob_markdown(graph: NetGraph, blob: str, lang: str = "en", with_shape: bool = True) -> str:
    def where(gl) -> str:
        return f"`{gl.name}` ({gl.type}, {t('hover.line', lang, line=gl.source.name_range.start.line + 1)})"

    lines = [f"**{t('hover.blob', lang)}** `{blob}`", ""]
    if graph.is_input(blob):
        lines.append(f"- {t('hover.net_input', lang)}")
    producers = graph.producers(blob)
    real = [p for p in producers if not p.in_place]
    if real:
        lines.append(f"- {t('hover.produced_by', lang)}: " + ", ".join(where(p) for p in real))
    elif not graph.is_input(blob) and not any(i.name == blob for i in graph.inputs):
        lines.append(f"- {t('hover.produced_by', lang)}: {t('hover.no_producer', lang)}")
    for ch in graph.inplace_chains():
        if ch.blob != blob:
            continue
        head = f"`{ch.producer.name}` ({ch.producer.type})" if ch.producer else f"`{blob}`"
        chain = " → ".join([head] + [f"`{gl.name}` ({gl.type})" for gl in ch.layers])
        lines.append(f"- {t('hover.inplace_chain', lang)}: {chain}")
    consumers = [c for c in graph.consumers(blob) if not (c.in_place and blob in c.tops)]
    if consumers:
        shown = ", ".join(where(c) for c in consumers[:12]) + (" …" if len(consumers) > 12 else "")
        lines.append(f"- {t('hover.consumers', lang)}: {shown}")
    else:
        lines.append(f"- {t('hover.consumers', lang)}: {t('hover.no_consumers', lang)}")
    if with_shape:
        try:
            shape = graph.blob_shapes().get(blob)
        except Exception:  # shape inference is best effort
            shape = None
        if shape:
            lines.append(f"- {t('hover.shape', lang)}: {_shape_text(shape)}")
    return "\n".join(lines) + "\n"


def field_markdown(message: str, field: str, lang: str = "en") -> str | None:
    fi = schema.field_info(message, field)
    if fi is None:
        return None
    lines = [f"**{fi.name}**: `{fi.type_name}`" + (" (repeated)" if fi.repeated else ""), ""]
    if fi.doc:
        lines += [fi.doc, ""]
    if fi.enum_values:
        lines.append(f"**{t('hover.values', lang)}**: " + ", ".join(f"`{v}`" for v in fi.enum_values))
    if fi.default not in (None, "", 0, False) or fi.kind == "enum":
        if fi.default is not None:
            lines.append(f"**{t('hover.default', lang)}**: `{fi.default}`")
    lines.append(f"*{message}*")
    return "\n".join(lines) + "\n"


def _message_path(doc: PrototxtDocument, pos: Position):
    """(message full name, node) for the innermost field whose *name* is under the cursor."""
    path = doc.path_at(pos)
    if not path:
        return None
    desc_names = []
    for n in path[:-1]:
        desc_names.append(n.name)
    node = path[-1]
    if not node.name_range.contains(pos):
        return None
    desc = schema.descriptor_at(tuple(desc_names), doc.message_type)
    if desc is None:
        return None
    return desc.full_name, node


def _size_text(node: TreeNode) -> str | None:
    if not node.output_sizes:
        return None
    return ", ".join(" × ".join(str(d) for d in dims) for dims in node.output_sizes)


def mapper_view_markdown(tree: NetTree, layer: str, tops=(), lang: str = "en") -> str:
    """The mapper's view of a prototxt layer from ``cnn_net_tree.dot`` (docs/field-facts.md §16.2):
    its node, segment(s), node type(s), output size and ``data_bit_mode`` (shown raw: its meaning
    is undocumented), the nodes the mapper inserted after it and the report points of its tops."""
    file = os.path.basename(tree.path) if tree.path else "cnn_net_tree.dot"
    lines = [f"**{t('hover.mapper.title', lang, file=file)}**", ""]
    view = tree.view_of(layer, tops=tops)
    if view is None:
        lines.append(t("hover.mapper.absent", lang, layer=layer, file=file))
        return "\n".join(lines) + "\n"
    node = view.node
    lines.append("- " + t("hover.mapper.node", lang, node=node.name, type=node.type_name or "?"))
    if view.segments:
        lines.append("- " + t("hover.mapper.segment", lang, segments=", ".join(str(s) for s in view.segments)))
    if len(view.node_types) > 1:
        lines.append("- " + t("hover.mapper.node_types", lang, types=" → ".join(view.node_types)))
    size = _size_text(node)
    if size:
        lines.append("- " + t("hover.mapper.output", lang, size=size))
    if node.data_bit_mode is not None:
        lines.append("- " + t("hover.mapper.bit_mode", lang, value=node.data_bit_mode))
    for extra in view.inserted:
        details = [extra.type_name or "?"]
        extra_size = _size_text(extra)
        if extra_size:
            details.append(extra_size)
        if extra.data_bit_mode is not None:
            details.append(t("hover.mapper.bit_mode", lang, value=extra.data_bit_mode))
        lines.append("- " + t("hover.mapper.inserted", lang, node=extra.name, details="; ".join(details)))
    for report in view.reports:
        point = report.report_point
        segment = point.segment if point is not None else report.segment
        lines.append("- " + t("hover.mapper.reported", lang, node=report.name, segment=segment))
    return "\n".join(lines) + "\n"


def prototxt_hover(doc: PrototxtDocument, graph: NetGraph, pos: Position, lang: str = "en",
                   net_tree: NetTree | None = None) -> Hover | None:
    """Hover in a prototxt.  On a layer's name, ``net_tree`` (the project's ``cnn_net_tree.dot``)
    adds the mapper's view of the layer."""
    return _explained(_prototxt_hover(doc, graph, pos, lang, net_tree), lang)


def _prototxt_hover(doc: PrototxtDocument, graph: NetGraph, pos: Position, lang: str,
                    net_tree: NetTree | None) -> Hover | None:
    sup = suppression_hover(doc.line_index.line_text(pos.line), pos, lang)
    if sup is not None:
        return sup
    ls = layer_at(doc, pos)
    if ls is not None and ls.type_range.contains(pos) and ls.type_range != ls.node.name_range:
        return layer_type_markdown(ls.type, lang), ls.type_range
    ref = blob_ref_at(doc, pos)
    if ref is not None:
        return blob_markdown(graph, ref.blob, lang), ref.range
    if ls is not None and ls.name_range.contains(pos) and ls.name_range != ls.node.name_range:
        gl = graph.layers[ls.index] if ls.index < len(graph.layers) else None
        md = f"**{t('hover.layer', lang)}** `{ls.name}` — {ls.type}\n"
        if gl is not None:
            md += "\n- bottom: " + ", ".join(f"`{b}`" for b in gl.bottoms) + \
                  "\n- top: " + ", ".join(f"`{x}`" for x in gl.tops) + "\n"
        if net_tree is not None:
            md += "\n" + mapper_view_markdown(net_tree, ls.name, gl.tops if gl is not None else (), lang)
        md += "\n---\n\n" + layer_type_markdown(ls.type, lang)
        return md, ls.name_range
    hit = _message_path(doc, pos)
    if hit is not None:
        message, node = hit
        md = field_markdown(message, node.name, lang)
        if md:
            return md, node.name_range
    return None


__all__ = ["cfg_hover", "prototxt_hover", "key_markdown", "layer_type_markdown", "blob_markdown",
           "rule_markdown", "suppression_hover", "mapper_view_markdown", "KEYS"]

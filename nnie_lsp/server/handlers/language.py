"""Hover and completion."""

from __future__ import annotations

import os

from lsprotocol import types as lsp
from pygls.capabilities import get_capability

from nnie_lsp.editor import completion as completion_features
from nnie_lsp.editor import hover as hover_features
from nnie_lsp.editor.fact_tags import explain as explain_tags
from nnie_lsp.core.text import LineIndex
from nnie_lsp.server.server import NnieLanguageServer
from nnie_lsp.server.handlers.common import HandlerTable, document_at, guard

handlers = HandlerTable()

COMPLETION_KINDS = {
    "key": lsp.CompletionItemKind.Property, "value": lsp.CompletionItemKind.Value,
    "enum": lsp.CompletionItemKind.EnumMember, "type": lsp.CompletionItemKind.Class,
    "field": lsp.CompletionItemKind.Field, "message": lsp.CompletionItemKind.Struct,
    "blob": lsp.CompletionItemKind.Variable,
}


@handlers.feature(lsp.TEXT_DOCUMENT_HOVER)
@guard("textDocument/hover")
async def hover(ls: NnieLanguageServer, params: lsp.HoverParams):
    record = ls.documents.get(params.text_document.uri)
    if record is not None and record.kind == "card":
        return _card_hover(ls, record, params)
    at = await document_at(ls, params.text_document.uri, params.position)
    if at is None:
        return None
    if at.project is not None:
        hit = hover_features.cfg_hover(at.project, at.pos, ls.lang)
    else:
        project = await ls.scheduler.project_for(params.text_document.uri)  # its cnn_net_tree.dot, if any
        hit = hover_features.prototxt_hover(at.doc, at.graph, at.pos, ls.lang,
                                            net_tree=project.net_tree if project is not None else None)
    if hit is None:
        return None
    markdown, rng = hit
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=markdown),
                     range=ls.encoder().range(at.li, rng))


def _card_hover(ls: NnieLanguageServer, record, params: lsp.HoverParams):
    from nnie_lsp.editor import card as card_features

    text = ls.documents.text(record.uri)[0]
    li = LineIndex(text)
    hit = card_features.card_hover(text, record.path, ls.encoder().from_lsp(li, params.position), ls.lang)
    if hit is None:
        return None
    markdown, rng = hit
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=markdown),
                     range=ls.encoder().range(li, rng))


@handlers.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["[", '"', ":", " "]))
@guard("textDocument/completion")
async def completion(ls: NnieLanguageServer, params: lsp.CompletionParams):
    uri = params.text_document.uri
    record = ls.documents.get(uri)
    if record is None or ls.documents.problem(uri) is not None:
        return None
    encoder = ls.encoder()
    snippets = bool(get_capability(ls.client_capabilities,
                                   "text_document.completion.completion_item.snippet_support", False))
    if record.kind == "cfg":
        text = ls.documents.text(uri)[0]
        li = LineIndex(text)
        pos = encoder.from_lsp(li, params.position)
        items = completion_features.cfg_completions(li.line_text(pos.line), pos, ls.lang, snippets,
                                                    base_dir=os.path.dirname(record.path) if record.path else None,
                                                    text=text)
    elif record.kind == "card":
        from nnie_lsp.editor import card as card_features

        text = ls.documents.text(uri)[0]
        li = LineIndex(text)
        pos = encoder.from_lsp(li, params.position)
        items = card_features.card_completions(text, record.path, pos, ls.lang)
    else:
        model = await ls.scheduler.prototxt_model(uri)
        if model is None:
            return None
        doc, graph = model
        li = doc.line_index
        pos = encoder.from_lsp(li, params.position)
        items = completion_features.prototxt_completions(doc, graph, pos, ls.lang)
    out = []
    for item in items:
        insert = item.insert_text
        text_format = lsp.InsertTextFormat.PlainText
        if item.snippet:
            if snippets:
                text_format = lsp.InsertTextFormat.Snippet
            else:
                insert = completion_features.plain_from_snippet(insert)
        documentation = lsp.MarkupContent(kind=lsp.MarkupKind.Markdown,
                                          value=explain_tags(item.documentation, ls.lang)) \
            if item.documentation else None
        out.append(lsp.CompletionItem(
            label=item.label, kind=COMPLETION_KINDS.get(item.kind), detail=item.detail or None,
            documentation=documentation, sort_text=item.sort_text, filter_text=item.filter_text,
            insert_text_format=text_format,
            text_edit=lsp.TextEdit(range=encoder.range(li, item.replace), new_text=insert)))
    return lsp.CompletionList(is_incomplete=False, items=out)

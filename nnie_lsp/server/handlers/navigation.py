"""Definition, references, rename, outline, document links, folding and formatting."""

from __future__ import annotations

import os

from lsprotocol import types as lsp

from nnie_lsp.core import i18n
from nnie_lsp.editor import navigation as navigation_features
from nnie_lsp.project.project import cached_cfg
from nnie_lsp.readers.prototxt.format import format_edits
from nnie_lsp.core.text import LineIndex
from nnie_lsp.server.convert import uri_of
from nnie_lsp.server.protocol import request_failed
from nnie_lsp.server.server import NnieLanguageServer
from nnie_lsp.server.handlers.common import HandlerTable, document_at, guard

handlers = HandlerTable()

SYMBOL_KINDS = {"layer": lsp.SymbolKind.Class, "input": lsp.SymbolKind.Variable, "key": lsp.SymbolKind.Property}


def _locations(ls: NnieLanguageServer, locations: list[navigation_features.Location],
               home_lines: LineIndex | None, home_path: str) -> list[lsp.Location]:
    encoder = ls.encoder()
    out = []
    for location in locations:
        same_file = os.path.abspath(location.path) == home_path
        li = home_lines if same_file else ls.documents.line_index_for_path(location.path)
        out.append(lsp.Location(uri=uri_of(location.path), range=encoder.range(li, location.range)))
    return out


@handlers.feature(lsp.TEXT_DOCUMENT_DEFINITION)
@guard("textDocument/definition")
async def definition(ls: NnieLanguageServer, params: lsp.DefinitionParams):
    at = await document_at(ls, params.text_document.uri, params.position)
    if at is None:
        return None
    if at.project is not None:
        locations = navigation_features.cfg_definition(at.project, at.pos)
    else:
        locations = navigation_features.prototxt_definition(at.doc, at.graph, at.pos)
    return _locations(ls, locations, at.li, at.record.path) or None


@handlers.feature(lsp.TEXT_DOCUMENT_REFERENCES)
@guard("textDocument/references")
async def references(ls: NnieLanguageServer, params: lsp.ReferenceParams):
    at = await document_at(ls, params.text_document.uri, params.position, kind="prototxt")
    if at is None:
        return None
    locations = navigation_features.blob_references(at.doc, at.pos, params.context.include_declaration)
    return _locations(ls, locations, at.li, at.record.path) or None


@handlers.feature(lsp.TEXT_DOCUMENT_PREPARE_RENAME)
@guard("textDocument/prepareRename")
async def prepare_rename(ls: NnieLanguageServer, params: lsp.PrepareRenameParams):
    at = await document_at(ls, params.text_document.uri, params.position, kind="prototxt")
    if at is None:
        return None
    hit = navigation_features.rename_placeholder(at.doc, at.pos)
    if hit is None:
        return None
    rng, name = hit
    return lsp.PrepareRenamePlaceholder(range=ls.encoder().range(at.li, rng), placeholder=name)


@handlers.feature(lsp.TEXT_DOCUMENT_RENAME, lsp.RenameOptions(prepare_provider=True))
@guard("textDocument/rename")
async def rename(ls: NnieLanguageServer, params: lsp.RenameParams):
    uri = params.text_document.uri
    at = await document_at(ls, uri, params.position, kind="prototxt")
    if at is None:
        raise request_failed(i18n.t("rename.nothing", ls.lang))
    encoder = ls.encoder()
    try:
        edits = navigation_features.rename(at.doc, at.graph, at.pos, params.new_name, ls.lang)
    except navigation_features.RenameError as exc:
        raise request_failed(str(exc)) from None
    return lsp.WorkspaceEdit(changes={uri: [lsp.TextEdit(range=encoder.range(at.li, e.range), new_text=e.new_text)
                                            for e in edits]})


@handlers.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
@guard("textDocument/documentSymbol")
async def document_symbol(ls: NnieLanguageServer, params: lsp.DocumentSymbolParams):
    uri = params.text_document.uri
    record = ls.documents.get(uri)
    if record is None or record.kind == "card" or ls.documents.problem(uri) is not None:
        return None
    if record.kind == "cfg":
        cfg = cached_cfg(ls.documents.text(uri)[0], record.path)
        li, symbols = cfg.line_index, navigation_features.cfg_symbols(cfg)
    else:
        model = await ls.scheduler.prototxt_model(uri)
        if model is None:
            return None
        doc, graph = model
        li, symbols = doc.line_index, navigation_features.prototxt_symbols(doc, graph)
    encoder = ls.encoder()
    return [lsp.DocumentSymbol(name=s.name or "?", detail=s.detail or None, kind=SYMBOL_KINDS[s.kind],
                               range=encoder.range(li, s.range), selection_range=encoder.range(li, s.selection_range))
            for s in symbols]


@handlers.feature(lsp.TEXT_DOCUMENT_DOCUMENT_LINK)
@guard("textDocument/documentLink")
async def document_link(ls: NnieLanguageServer, params: lsp.DocumentLinkParams):
    at = await document_at(ls, params.text_document.uri, kind="cfg")
    if at is None:
        return None
    encoder = ls.encoder()
    return [lsp.DocumentLink(range=encoder.range(at.li, link.range), target=uri_of(link.target))
            for link in navigation_features.cfg_links(at.project)]


@handlers.feature(lsp.TEXT_DOCUMENT_FOLDING_RANGE)
@guard("textDocument/foldingRange")
async def folding_range(ls: NnieLanguageServer, params: lsp.FoldingRangeParams):
    uri = params.text_document.uri
    record = ls.documents.get(uri)
    if record is None or record.kind == "card" or ls.documents.problem(uri) is not None:
        return None
    if record.kind == "cfg":
        folds = navigation_features.cfg_folding(cached_cfg(ls.documents.text(uri)[0], record.path))
    else:
        model = await ls.scheduler.prototxt_model(uri)
        if model is None:
            return None
        folds = navigation_features.prototxt_folding(model[0])
    return [lsp.FoldingRange(start_line=f.start_line, end_line=f.end_line,
                             kind=lsp.FoldingRangeKind.Comment if f.kind == "comment" else lsp.FoldingRangeKind.Region)
            for f in folds]


@handlers.feature(lsp.TEXT_DOCUMENT_FORMATTING)
@guard("textDocument/formatting")
async def formatting(ls: NnieLanguageServer, params: lsp.DocumentFormattingParams):
    uri = params.text_document.uri
    record = ls.documents.get(uri)
    if record is None or record.kind != "prototxt" or ls.documents.problem(uri) is not None:
        return None
    text, _version = ls.documents.text(uri)
    edits = await ls.scheduler.run_aux(format_edits, text)
    if edits is None:
        doc, _graph = await ls.scheduler.prototxt_model(uri)
        first = doc.syntax_errors[0] if doc.syntax_errors else None
        message = i18n.t("format.syntax_errors", ls.lang, file=os.path.basename(record.path),
                         line=first.range.start.line + 1 if first else "?", message=first.message if first else "")
        ls.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=message))
        raise request_failed(message)
    li = LineIndex(text)
    encoder = ls.encoder()
    return [lsp.TextEdit(range=encoder.range(li, e.range), new_text=e.new_text) for e in edits]

"""The ``nnie.triage`` command and its per-layer cosine inlay hints."""

from __future__ import annotations

from lsprotocol import types as lsp

from ...features import triage as triage_features
from ..server import NnieLanguageServer
from .common import HandlerTable, guard

handlers = HandlerTable()


@handlers.feature(lsp.TEXT_DOCUMENT_INLAY_HINT)
@guard("textDocument/inlayHint")
async def inlay_hint(ls: NnieLanguageServer, params: lsp.InlayHintParams):
    uri = params.text_document.uri
    record = ls.documents.get(uri)
    if record is None or record.kind != "prototxt":
        return None
    result = ls.triage.result_for(record.path)
    if result is None:
        return None
    doc, _graph = await ls.scheduler.prototxt_model(uri)
    encoder = ls.encoder()
    first, last = params.range.start.line, params.range.end.line
    return [lsp.InlayHint(position=encoder.position(doc.line_index, note.hint_at), label=note.label,
                          padding_left=True, tooltip=note.message)
            for note in triage_features.annotations(result, doc, ls.lang) if first <= note.hint_at.line <= last]


@handlers.command("nnie.triage")
async def run_triage(ls: NnieLanguageServer, *args):
    """Arguments: one object {reference, sim, cfg?, prototxt?, sim16?}; the result: the triage JSON."""
    return await ls.triage.run(args)

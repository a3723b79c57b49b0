"""Document sync (open, change, save, close) and pulled diagnostics."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os

from lsprotocol import types as lsp
from pygls.uris import to_fs_path

from nnie_lsp.server.server import NnieLanguageServer
from nnie_lsp.server.handlers.common import HandlerTable

handlers = HandlerTable()


@handlers.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: NnieLanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
    item = params.text_document
    record = ls.documents.track(item.uri, item.language_id, item.text)
    if record is None:
        return
    asyncio.ensure_future(ls.triage.results.load_beside(os.path.dirname(record.path)))   # results stored beside it
    ls.workspace_lint.opened(item.uri)
    if not ls.pull:
        ls.scheduler.schedule(item.uri, 0.0, related=True, force=True)
    elif len(ls.documents) > 1:
        ls.scheduler.schedule_refresh(0.0)


@handlers.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: NnieLanguageServer, params: lsp.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    if uri not in ls.documents:
        document = ls.workspace.get_text_document(uri)
        if ls.documents.track(uri, document.language_id, document.source) is None:
            return
    if ls.settings.run == "onSave":
        return
    ls.scheduler.on_change(uri)


@handlers.feature(lsp.TEXT_DOCUMENT_DID_SAVE, lsp.SaveOptions(include_text=False))
def did_save(ls: NnieLanguageServer, params: lsp.DidSaveTextDocumentParams) -> None:
    uri = params.text_document.uri
    if uri not in ls.documents or ls.settings.run != "onSave":
        return
    if ls.pull:
        async def lint_then_refresh():
            await ls.scheduler.ensure_result(uri, force=True)
            ls.refresh_pull()
        asyncio.ensure_future(lint_then_refresh())
    else:
        ls.scheduler.schedule(uri, 0.0, related=True, force=True)


@handlers.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: NnieLanguageServer, params: lsp.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    record = ls.documents.close(uri)
    if record is None:
        return
    ls.forget(uri)
    if not ls.pull:
        ls.scheduler.relint_dependents(record.path)
    elif len(ls.documents):
        ls.refresh_pull()
    ls.workspace_lint.closed(record.path)


@handlers.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: NnieLanguageServer, params: lsp.DidChangeWatchedFilesParams) -> None:
    """cfg/prototxt files changed on disk (watched for workspace diagnostics); a model card
    (nnie.toml) that changed makes every lint stale: the cfgs judged against it are linted again."""
    from nnie_lsp.editor.common import CARD_FILE_NAME

    if any(os.path.basename(to_fs_path(c.uri) or "") == CARD_FILE_NAME for c in params.changes):
        ls.settings_gen += 1
        ls.scheduler.relint_all()
    ls.workspace_lint.files_changed(params.changes)


async def pull_diagnostics(ls: NnieLanguageServer, params: lsp.DocumentDiagnosticParams):
    """textDocument/diagnostic (registered at initialize for clients that pull)."""
    uri = params.text_document.uri
    if uri not in ls.documents:
        return lsp.RelatedFullDocumentDiagnosticReport(items=[], result_id="none")
    await ls.scheduler.ensure_result(uri)
    items = ls.report(uri)
    digest = hashlib.blake2b(json.dumps(ls.protocol._converter.unstructure(items), sort_keys=True,
                                        default=str).encode(), digest_size=12).hexdigest()
    if params.previous_result_id == digest:
        return lsp.RelatedUnchangedDocumentDiagnosticReport(result_id=digest)
    return lsp.RelatedFullDocumentDiagnosticReport(items=items, result_id=digest)

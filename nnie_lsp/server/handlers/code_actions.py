"""Code actions: each diagnostic's fix and its alternatives (their edits are in
``Diagnostic.data``, ready to use), "Disable NNxxx for this line", ``source.fixAll.nnie`` (safe
lint fixes only) and ``source.nnieTriage.applyAll`` (every triage fix of a current result).

The triage kind is deliberately not under ``source.fixAll``: editors apply ``source.fixAll``
actions on save, and triage fixes change what the net computes.
"""

from __future__ import annotations

import os

from lsprotocol import types as lsp
from pygls.capabilities import get_capability

from nnie_lsp.core import i18n
from nnie_lsp.core.diagnostics import Applicability
from nnie_lsp.editor import actions as action_features
from nnie_lsp.core.text import LineIndex
from nnie_lsp.server.convert import (SOURCE, TRIAGE_SOURCE, can_create_files, stale_files, to_code_action, versioned_edits,
                       workspace_edit)
from nnie_lsp.server.server import NnieLanguageServer
from nnie_lsp.server.handlers.common import HandlerTable, guard

FIX_ALL_KIND = "source.fixAll.nnie"
TRIAGE_FIX_ALL_KIND = "source.nnieTriage.applyAll"
#: "Create the model card from a draft" (a quick fix beside the findings a card settles)
CREATE_CARD_KIND = "refactor.nnie.createModelCard"
CARD_SETTLES = {"NN108", "NN109", "NN120", "T100"}

handlers = HandlerTable()


def _kind_wanted(kind: str, only) -> bool:
    if not only:
        return True
    return any(kind == wanted or kind.startswith(str(wanted) + ".") for wanted in only)


def _blocked(ls: NnieLanguageServer, fix: dict) -> str | None:
    """Why a fix cannot be applied here now, or None."""
    creates = fix.get("creates") or []
    if not creates:
        return None
    from pygls.uris import to_fs_path
    names = ", ".join(os.path.basename(to_fs_path(uri) or uri) for uri in creates)
    if any(os.path.exists(to_fs_path(uri) or "") for uri in creates):
        return i18n.t("triage.exists_now", ls.lang, file=names)
    if not can_create_files(ls.client_capabilities):
        return i18n.t("triage.cannot_create", ls.lang, file=names)
    return None


def _quick_fix(ls: NnieLanguageServer, diagnostic: lsp.Diagnostic, fix: dict, preferred: bool) -> lsp.CodeAction | None:
    """The code action of a fix a diagnostic carries, or None when its document changed since
    (a newer diagnostic carries the fix for the new text) or the data is malformed.  A fix that
    creates a file the client cannot create is disabled with the reason (or left out)."""
    try:
        edit = workspace_edit(fix, versioned_edits(ls.client_capabilities))
        versions = dict(fix.get("versions") or {})
        safe = fix.get("applicability") == Applicability.SAFE.value
        title = action_features.fix_title(str(fix["message"]), str(diagnostic.code), safe, ls.lang)
    except (KeyError, ValueError, TypeError, AttributeError) as exc:
        ls.log(f"ignoring malformed fix data: {exc!r}", lsp.MessageType.Warning)
        return None
    for uri, version in versions.items():
        if uri in ls.documents and ls.documents.version(uri) != version:
            return None
    if stale_files(fix, ls.documents.current_text):
        return None   # a closed file changed on disk since: the next lint carries the fix for it
    reason = _blocked(ls, fix)
    if reason is not None:
        if not get_capability(ls.client_capabilities, "text_document.code_action.disabled_support", False):
            ls.log(f"{title}: {reason}", lsp.MessageType.Info)
            return None
        return lsp.CodeAction(title=title, kind=lsp.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                              disabled=lsp.CodeActionDisabled(reason=reason))
    return lsp.CodeAction(title=title, kind=lsp.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                          is_preferred=(preferred and safe) or None, edit=edit)


def _fix_actions(ls: NnieLanguageServer, diagnostic: lsp.Diagnostic) -> list[lsp.CodeAction]:
    data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    fixes = ([(data["fix"], True)] if isinstance(data.get("fix"), dict) else []) + [
        (alternative, False) for alternative in data.get("alternatives") or [] if isinstance(alternative, dict)]
    return [action for action in (_quick_fix(ls, diagnostic, fix, preferred) for fix, preferred in fixes)
            if action is not None]


def _triage_fix_all(ls: NnieLanguageServer, path: str) -> lsp.CodeAction | None:
    entry = ls.triage.results.entry_for(path)
    if entry is None:
        return None
    data, count, left_out = ls.triage.results.fix_all_data(entry, can_create_files(ls.client_capabilities))
    if data is None:
        return None
    title = i18n.t("triage.fix_all", ls.lang, count=count)
    if left_out:
        title += i18n.t("triage.left_out", ls.lang, count=len(left_out), reason="; ".join(left_out))
    return lsp.CodeAction(title=title, kind=TRIAGE_FIX_ALL_KIND,
                          edit=workspace_edit(data, versioned_edits(ls.client_capabilities)))


@handlers.feature(lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(
    code_action_kinds=[lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.SourceFixAll, FIX_ALL_KIND,
                       TRIAGE_FIX_ALL_KIND, CREATE_CARD_KIND],
    resolve_provider=False))
@guard("textDocument/codeAction")
async def code_action(ls: NnieLanguageServer, params: lsp.CodeActionParams):
    uri = params.text_document.uri
    record = ls.documents.get(uri)
    if record is None or ls.documents.problem(uri) is not None:
        return None
    only = params.context.only
    out: list[lsp.CodeAction] = []
    text, version = ls.documents.text(uri)
    li = LineIndex(text)
    encoder = ls.encoder()
    lines = ls.documents.line_index_for_path
    versioned = versioned_edits(ls.client_capabilities)
    if _kind_wanted("quickfix", only):
        disabled = set()
        for diagnostic in params.context.diagnostics:
            if diagnostic.source not in (SOURCE, TRIAGE_SOURCE) or not diagnostic.code:
                continue
            out.extend(_fix_actions(ls, diagnostic))
            if diagnostic.source != SOURCE or record.kind == "card":
                continue   # triage findings and the model card have no suppression comment
            key = (str(diagnostic.code), diagnostic.range.start.line)
            if key not in disabled:
                disabled.add(key)
                action = action_features.disable_action(record.path, text, diagnostic.range.start.line,
                                                        str(diagnostic.code), record.kind, ls.lang, li)
                out.append(to_code_action(action, lines, encoder, [diagnostic],
                                          {record.path: version} if versioned else None))
    if _kind_wanted(FIX_ALL_KIND, only):
        result = await ls.scheduler.ensure_result(uri, force=True)
        if result is not None:
            action = action_features.fix_all(result.engine, record.path, ls.lang)
            if action is not None:   # computed for the version the lint read
                out.append(to_code_action(action, lines, encoder, None,
                                          {record.path: result.version} if versioned else None))
    if _kind_wanted(TRIAGE_FIX_ALL_KIND, only):
        action = _triage_fix_all(ls, record.path)
        if action is not None:
            out.append(action)
    if record.kind == "cfg" and (_kind_wanted(CREATE_CARD_KIND, only) or _kind_wanted("quickfix", only)):
        action = await _create_card(ls, record.path, params.context.diagnostics, only)
        if action is not None:
            out.append(action)
    return out


async def _create_card(ls: NnieLanguageServer, cfg: str, diagnostics, only) -> lsp.CodeAction | None:
    """"Create the model card nnie.toml from a draft" when the cfg's net has no card entry and the
    project says something about how it was trained (its Caffe dumps, its inference code)."""
    from nnie_lsp.server.handlers.card import draft

    settles = [d for d in diagnostics if str(d.code) in CARD_SETTLES]
    if not settles and not _kind_wanted(CREATE_CARD_KIND, only):
        return None
    try:
        result = await draft(ls, cfg)
    except Exception as exc:   # a draft is an offer: its failure never takes the other actions with it
        ls.log(f"the model card draft of {cfg} failed: {exc!r}", lsp.MessageType.Warning)
        return None
    if result.has_entry or not result.edits:
        return None
    name = os.path.basename(result.card_path)
    files = ", ".join(os.path.basename(f) for f in result.draft.files[:2]) or "the project"
    title = i18n.t("card.create" if not result.card_exists else "card.add", ls.lang, card=name, files=files)
    from nnie_lsp.core.diagnostics import Applicability, Fix
    from nnie_lsp.server.convert import fix_data

    _overlay, versions = ls.documents.overlay()
    data = fix_data(Fix(title, Applicability.UNSAFE, tuple(result.edits)), ls.documents.line_index_for_path,
                    ls.encoder(), versions)
    reason = _blocked(ls, data)
    kind = lsp.CodeActionKind.QuickFix if settles else CREATE_CARD_KIND
    if reason is not None:
        return lsp.CodeAction(title=title, kind=kind, disabled=lsp.CodeActionDisabled(reason=reason))
    return lsp.CodeAction(title=title, kind=kind, diagnostics=settles or None, edit=workspace_edit(data))

"""Code actions: each diagnostic's fix (its edits are in ``Diagnostic.data``, ready to use),
"Disable NNxxx for this line", and ``source.fixAll.nnie`` (safe fixes only)."""

from __future__ import annotations

from lsprotocol import types as lsp

from ...diagnostics import Applicability
from ...features import actions as action_features
from ...text import LineIndex
from ..convert import SOURCE, changes_from_data, to_code_action
from ..server import NnieLanguageServer
from .common import HandlerTable, guard

FIX_ALL_KIND = "source.fixAll.nnie"

handlers = HandlerTable()


def _kind_wanted(kind: str, only) -> bool:
    if not only:
        return True
    return any(kind == wanted or kind.startswith(str(wanted) + ".") for wanted in only)


def _quick_fix(ls: NnieLanguageServer, diagnostic: lsp.Diagnostic, fix: dict) -> lsp.CodeAction | None:
    """The code action of the fix a diagnostic carries, or None when its document changed since
    (a newer diagnostic carries the fix for the new text) or the data is malformed."""
    try:
        changes = changes_from_data(fix)
        versions = dict(fix.get("versions") or {})
        title = action_features.fix_title(str(fix["message"]), str(diagnostic.code),
                                          fix.get("applicability") == Applicability.SAFE.value, ls.lang)
    except (KeyError, ValueError, TypeError, AttributeError) as exc:
        ls.log(f"ignoring malformed fix data: {exc!r}", lsp.MessageType.Warning)
        return None
    for uri, version in versions.items():
        if uri in ls.documents and ls.documents.version(uri) != version:
            return None
    return lsp.CodeAction(title=title, kind=lsp.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                          is_preferred=fix.get("applicability") == Applicability.SAFE.value or None,
                          edit=lsp.WorkspaceEdit(changes=changes))


@handlers.feature(lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(
    code_action_kinds=[lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.SourceFixAll, FIX_ALL_KIND],
    resolve_provider=False))
@guard("textDocument/codeAction")
async def code_action(ls: NnieLanguageServer, params: lsp.CodeActionParams):
    uri = params.text_document.uri
    record = ls.documents.get(uri)
    if record is None:
        return None
    only = params.context.only
    out: list[lsp.CodeAction] = []
    text, _version = ls.documents.text(uri)
    li = LineIndex(text)
    encoder = ls.encoder()
    lines = ls.documents.line_index_for_path
    if _kind_wanted("quickfix", only):
        disabled = set()
        for diagnostic in params.context.diagnostics:
            if diagnostic.source != SOURCE or not diagnostic.code:
                continue
            data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
            if data.get("fix"):
                action = _quick_fix(ls, diagnostic, data["fix"])
                if action is not None:
                    out.append(action)
            key = (str(diagnostic.code), diagnostic.range.start.line)
            if key not in disabled:
                disabled.add(key)
                action = action_features.disable_action(record.path, text, diagnostic.range.start.line,
                                                        str(diagnostic.code), record.kind, ls.lang, li)
                out.append(to_code_action(action, lines, encoder, [diagnostic]))
    if _kind_wanted(FIX_ALL_KIND, only):
        result = await ls.scheduler.ensure_result(uri, force=True)
        if result is not None:
            action = action_features.fix_all(result.engine, record.path, ls.lang)
            if action is not None:
                out.append(to_code_action(action, lines, encoder, None))
    return out

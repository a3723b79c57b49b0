"""The editor's triage as LSP: the ``nnie.*`` triage commands (docs/editor-protocol.md), the code
lens with the verdict, and the per-layer cosine inlay hints.

The handlers only translate: running a job is :mod:`.runner` (with :mod:`.jobs` for the
subprocess and its progress), the stored results and their staleness are :mod:`.results`, the
words and places are :mod:`nnie_lsp.server.triage`.
"""

from __future__ import annotations

import os

from lsprotocol import types as lsp
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import from_fs_path

from nnie_lsp.core import i18n
from nnie_lsp.server.triage import annotations as triage_features
from nnie_lsp.server.triage import carry_over
from nnie_lsp.server.convert import can_create_files, stale_files, versioned_edits, workspace_edit
from nnie_lsp.server.server import NnieLanguageServer
from nnie_lsp.server.triage.results import Entry, rerun_arguments
from nnie_lsp.server.handlers.common import HandlerTable, document_at, guard

handlers = HandlerTable()

TRIAGE = "nnie.triage"
DISCOVER = "nnie.discoverTriageInputs"
RESULT = "nnie.triageResult"
APPLY_FIXES = "nnie.applyTriageFixes"
OPEN_REPORT = "nnie.openTriageReport"
CLEAR = "nnie.clearTriageResults"
REFERENCE = "nnie.reference"
EMULATE = "nnie.emulate"
CHECK_TOOL_INPUTS = "nnie.checkToolInputs"


@handlers.feature(lsp.TEXT_DOCUMENT_INLAY_HINT)
@guard("textDocument/inlayHint")
async def inlay_hint(ls: NnieLanguageServer, params: lsp.InlayHintParams):
    uri = params.text_document.uri
    record = ls.documents.get(uri)
    result = ls.triage.result_for(record.path) if record is not None else None
    if result is None:
        return None  # no triage result: the prototxt is not parsed at all
    at = await document_at(ls, uri, kind="prototxt")
    if at is None:
        return None
    encoder = ls.encoder()
    first, last = params.range.start.line, params.range.end.line
    return [lsp.InlayHint(position=encoder.position(at.li, note.hint_at), label=note.label,
                          padding_left=True, tooltip=note.message)
            for note in triage_features.annotations(result, at.doc, ls.lang) if first <= note.hint_at.line <= last]


@handlers.feature(lsp.TEXT_DOCUMENT_CODE_LENS, lsp.CodeLensOptions(resolve_provider=False))
@guard("textDocument/codeLens")
async def code_lens(ls: NnieLanguageServer, params: lsp.CodeLensParams):
    record = ls.documents.get(params.text_document.uri)
    built = await _wk_lens(ls, params.text_document.uri, record)
    entry = ls.triage.results.entry_for(record.path) if record is not None else None
    if entry is None:
        return built or None
    return _triage_lenses(ls, entry) + built


OPEN_WK = "nnie.openWk"   # a client command (VS Code: opens the .wk's view); other clients show the title


async def _wk_lens(ls: NnieLanguageServer, uri: str, record) -> list[lsp.CodeLens]:
    """The cfg's lens about the `.wk` it builds (features/wk.py), on its [instruction_name] line."""
    if record is None or record.kind != "cfg":
        return []
    from nnie_lsp.editor.wk import wk_lens

    project = await ls.scheduler.project_for(uri)
    lens = wk_lens(project) if project is not None else None
    if lens is None:
        return []
    rng, title, path = lens
    line = lsp.Position(line=rng.start.line, character=0)
    at = lsp.Range(start=line, end=line)
    return [lsp.CodeLens(range=at, command=lsp.Command(title=title, command=OPEN_WK, arguments=[{"path": path}]))]


def _triage_lenses(ls: NnieLanguageServer, entry) -> list[lsp.CodeLens]:
    view = ls.triage.results.view(entry)
    titles = carry_over.lens_titles(entry.record.result, stale=view.stale,
                                    applicable=view.counts.get("applicable", 0), lang=ls.lang, remake=view.remake)
    top = lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=0, character=0))
    which = {"cfg": entry.record.cfg, "prototxt": entry.record.prototxt}
    paths = entry.record.paths
    report = {"html": paths.html, "text": paths.text, "json": paths.json, **which} if paths else dict(which)
    lenses = [lsp.CodeLens(range=top, command=lsp.Command(title=titles["report"], command=OPEN_REPORT,
                                                           arguments=[report]))]
    if "apply" in titles:
        lenses.append(lsp.CodeLens(range=top, command=lsp.Command(title=titles["apply"], command=APPLY_FIXES,
                                                                   arguments=[which])))
    if "regenerate" in titles and view.remake:      # an emulation: made again with the current cfg, then compared
        lenses.append(lsp.CodeLens(range=top, command=lsp.Command(title=titles["regenerate"], command=TRIAGE,
                                                                   arguments=[view.remake["arguments"]])))
    elif "remap" in titles:   # the mapper's dumps: words, no command (the mapper runs outside the editor)
        lenses.append(lsp.CodeLens(range=top, command=lsp.Command(title=titles["remap"], command="")))
    elif "rerun" in titles:
        lenses.append(lsp.CodeLens(range=top, command=lsp.Command(title=titles["rerun"], command=TRIAGE,
                                                                   arguments=[rerun_arguments(entry.record)])))
    return lenses


def _entry(ls: NnieLanguageServer, command: str, args) -> Entry | None:
    values = ls.triage.arguments(command, args, triage_features.LOOKUP_KEYS)
    path = values.get("cfg") or values.get("prototxt")
    if path is None:
        raise JsonRpcInvalidParams(i18n.t("triage.bad_args", ls.lang, command=command, error="give a cfg or a prototxt"))
    entry = ls.triage.results.entry_for(path)
    if entry is None:
        ls.triage.results.load_folder(os.path.dirname(path))
        entry = ls.triage.results.entry_for(path)
    return entry


@handlers.command(TRIAGE)
async def run_triage(ls: NnieLanguageServer, *args):
    """One object {cfg?, prototxt?, reference?, sim?, sim16?, dot?, framework?, discover?}: the triage result."""
    return await ls.triage.run(args)


@handlers.command(DISCOVER)
async def discover_inputs(ls: NnieLanguageServer, *args):
    """{cfg?, prototxt?}: what lies beside the cfg (nothing is run)."""
    return ls.triage.discovery(args)


@handlers.command(RESULT)
async def stored_result(ls: NnieLanguageServer, *args):
    """{cfg?, prototxt?}: the stored result with its ``editor`` object, or null."""
    entry = _entry(ls, RESULT, args)
    return ls.triage.results.result_with_editor(entry) if entry is not None else None


@handlers.command(APPLY_FIXES)
async def apply_fixes(ls: NnieLanguageServer, *args):
    """{cfg?, prototxt?}: workspace/applyEdit of every triage fix (unless the result is stale)."""
    entry = _entry(ls, APPLY_FIXES, args)
    if entry is None:
        return {"applied": False, "fixes": 0, "skipped": [i18n.t("triage.no_result", ls.lang, what="this file")]}
    data, count, left_out = ls.triage.results.fix_all_data(entry, can_create_files(ls.client_capabilities))
    if data is None:
        if not ls.client_shows_outcomes():   # else the client shows the response: one message
            ls.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Warning, message="; ".join(left_out)))
        return {"applied": False, "fixes": 0, "skipped": left_out}
    if stale_files(data, ls.documents.current_text):   # checked just before the edit is sent
        return {"applied": False, "fixes": 0, "skipped": [i18n.t("triage.no_fixes", ls.lang)]}
    response = await ls.workspace_apply_edit_async(lsp.ApplyWorkspaceEditParams(
        edit=workspace_edit(data, versioned_edits(ls.client_capabilities)),
        label=i18n.t("triage.fix_all", ls.lang, count=count)))
    if left_out and not ls.client_shows_outcomes():
        ls.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Warning, message="; ".join(left_out)))
    return {"applied": bool(response and response.applied), "fixes": count, "skipped": left_out,
            "failure": getattr(response, "failure_reason", None)}


@handlers.command(OPEN_REPORT)
async def open_report(ls: NnieLanguageServer, *args):
    """{html, text?, json?, cfg?, prototxt?}: show the HTML report (window/showDocument, external)."""
    values = ls.triage.arguments(OPEN_REPORT, args, triage_features.REPORT_KEYS)
    html = values.get("html")
    if not html or not os.path.isfile(html):
        raise JsonRpcInvalidParams(i18n.t("triage.bad_args", ls.lang, command=OPEN_REPORT,
                                          error=f"html: {html} does not exist" if html else "html is required"))
    shown = False
    if get_capability(ls.client_capabilities, "window.show_document.support", False):
        response = await ls.window_show_document_async(lsp.ShowDocumentParams(uri=from_fs_path(html), external=True))
        shown = bool(response and response.success)
    if not shown:
        ls.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Info,
                                                     message=i18n.t("triage.report_at", ls.lang, path=html)))
    return {"shown": shown, "html": html}


@handlers.command(CLEAR)
async def clear_results(ls: NnieLanguageServer, *args):
    """{cfg?, prototxt?} or {}: delete stored results; they disappear from the editor."""
    values = ls.triage.arguments(CLEAR, args, triage_features.LOOKUP_KEYS)
    path = values.get("cfg") or values.get("prototxt")
    results = ls.triage.results
    entries = list(results.entries.values()) if path is None else [e for e in [_entry(ls, CLEAR, args)] if e]
    cleared: list[str] = []
    for entry in entries:
        cleared += results.remove(entry)
    results.show_everywhere()
    return {"cleared": [p for p in cleared if p.endswith(".json")]}


@handlers.command(REFERENCE)
async def run_reference(ls: NnieLanguageServer, *args):
    """{cfg, prototxt?, caffemodel?, image?, out?, overwrite?}: the Caffe-side dumps."""
    return await ls.triage.run_tool("reference", args)


@handlers.command(CHECK_TOOL_INPUTS)
async def check_tool_inputs(ls: NnieLanguageServer, *args):
    """{kind: reference|emulate, cfg, prototxt?, caffemodel?, image?}: {ok, problems} -- what the
    job lacks, at the cfg's lines, before the editor asks anything."""
    return await ls.triage.check_tool_inputs(args)


@handlers.command(EMULATE)
async def run_emulate(ls: NnieLanguageServer, *args):
    """{cfg, prototxt?, caffemodel?, image?, out?, overwrite?, bits?, hp?, format?}: emulated NNIE dumps."""
    return await ls.triage.run_tool("emulate", args)

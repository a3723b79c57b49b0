"""The ``nnie.triage`` command: ``nnie-triage compare`` in a subprocess, with cancellable progress.

The comparison is CPU- and disk-heavy, so it runs in its own process (as esbonio runs Sphinx
builds) mapped onto a work-done progress token: the editor's Cancel button
(``window/workDoneProgress/cancel``) kills the process; ``$/cancelRequest`` cannot reach a running
command in pygls.  The last result per prototxt is kept: its low layers become ``nnie-triage``
diagnostics in the diagnostics store and every matched layer gets an inlay hint (see
:mod:`nnie_lsp.features.triage`, which reads the JSON).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from lsprotocol import types as lsp
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcRequestCancelled

from .. import i18n
from ..features import triage as triage_features
from ..lint import project_for_file
from ..project import DiskProvider, cached_prototxt
from ..settings import LintSettings
from .convert import TRIAGE_SOURCE
from .protocol import request_failed

if TYPE_CHECKING:
    from .server import NnieLanguageServer

PROGRESS_POLL_SECONDS = 1.0


@dataclass
class TriageState:
    result: dict
    prototxt: str | None = None


class _Progress:
    """Work-done progress of one job, or nothing when the client cannot show it."""

    def __init__(self, ls: NnieLanguageServer) -> None:
        self.ls = ls
        self.token = str(uuid.uuid4())   # tokens are never reused (pygls keeps them all)
        self.enabled = bool(get_capability(ls.client_capabilities, "window.work_done_progress", False))

    async def begin(self, title: str, message: str) -> None:
        if not self.enabled:
            return
        try:
            await self.ls.work_done_progress.create_async(self.token)
            self.ls.work_done_progress.begin(self.token, lsp.WorkDoneProgressBegin(
                title=title, cancellable=True, message=message))
        except Exception as exc:
            self.ls.log(f"work-done progress unavailable: {exc!r}", lsp.MessageType.Info)
            self.enabled = False

    def cancel_future(self) -> asyncio.Future | None:
        """Cancelled by pygls when the editor's Cancel button is pressed."""
        return self.ls.work_done_progress.tokens.get(self.token) if self.enabled else None

    def report(self, message: str) -> None:
        if self.enabled:
            self.ls.work_done_progress.report(self.token, lsp.WorkDoneProgressReport(message=message))

    def end(self, message: str) -> None:
        if self.enabled:
            self.ls.work_done_progress.end(self.token, lsp.WorkDoneProgressEnd(message=message[:200]))


class TriageRunner:
    def __init__(self, ls: NnieLanguageServer) -> None:
        self.ls = ls
        self.results: dict[str, TriageState] = {}         # prototxt path -> last triage
        self._annotated: dict[str, tuple] = {}            # uri -> what its stored diagnostics reflect

    # ---------------------------------------------------------------- results as annotations
    def result_for(self, path: str) -> dict | None:
        state = self.results.get(path)
        return state.result if state is not None else None

    def refresh_diagnostics(self, uri: str) -> None:
        """Bring `uri`'s ``nnie-triage`` entry in the diagnostics store up to date with its text."""
        record = self.ls.documents.get(uri)
        state = self.results.get(record.path) if record is not None and record.kind == "prototxt" else None
        if state is None:
            self._annotated.pop(uri, None)
            self.ls.diagnostics.clear(uri, TRIAGE_SOURCE)
            return
        text, version = self.ls.documents.text(uri)
        encoder = self.ls.encoder()
        reflects = (version, id(state), self.ls.lang, encoder.encoding)
        if self._annotated.get(uri) == reflects and self.ls.diagnostics.get(TRIAGE_SOURCE, uri) is not None:
            return
        doc, _graph = cached_prototxt(text, record.path)
        items = []
        for note in triage_features.annotations(state.result, doc, self.ls.lang):
            if note.message is None:
                continue
            items.append(lsp.Diagnostic(range=encoder.range(doc.line_index, note.range), message=note.message,
                                        severity=lsp.DiagnosticSeverity(int(note.severity)), source=TRIAGE_SOURCE,
                                        code="triage", data={"layer": note.layer}))
        self.ls.diagnostics.set(TRIAGE_SOURCE, uri, items, version)
        self._annotated[uri] = reflects

    def forget(self, uri: str) -> None:
        self._annotated.pop(uri, None)

    # ---------------------------------------------------------------- the command
    def _arguments(self, args: Sequence) -> triage_features.TriageArgs:
        try:
            targs = triage_features.TriageArgs.parse(list(args), self.ls.root)
        except triage_features.TriageArgsError as exc:
            raise JsonRpcInvalidParams(i18n.t("triage.bad_args", self.ls.lang, error=str(exc))) from None
        if targs.prototxt is None and targs.cfg:
            prototxt = self._prototxt_of_cfg(targs.cfg)
            if prototxt:
                targs = dataclasses.replace(targs, prototxt=prototxt)
        return targs

    def _prototxt_of_cfg(self, cfg: str) -> str | None:
        """The prototxt the cfg names (with the editor's unsaved texts)."""
        overlay, _versions = self.ls.documents.overlay()
        try:
            project = project_for_file(cfg, settings=LintSettings(), provider=DiskProvider(overlay), is_cfg=True)
            return project.prototxt_path
        except Exception:
            return None

    async def run(self, args: Sequence) -> dict:
        """Run one triage; its JSON result is the command's response."""
        lang = self.ls.lang
        targs = self._arguments(args)
        progress = _Progress(self.ls)
        await progress.begin(i18n.t("triage.title", lang), os.path.basename(targs.sim))
        command = triage_features.triage_command(targs)
        self.ls.log("running " + " ".join(command))
        cancelled = False
        process: asyncio.subprocess.Process | None = None
        try:
            process = await asyncio.create_subprocess_exec(
                *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                stdin=asyncio.subprocess.DEVNULL)

            def on_cancel(future: asyncio.Future) -> None:
                nonlocal cancelled
                if future.cancelled() and process is not None and process.returncode is None:
                    cancelled = True
                    try:
                        process.kill()
                    except ProcessLookupError:
                        pass
            cancel_future = progress.cancel_future()
            if cancel_future is not None:
                cancel_future.add_done_callback(on_cancel)
            communicate = asyncio.ensure_future(process.communicate())
            started = time.monotonic()
            while not communicate.done():
                await asyncio.wait({communicate}, timeout=PROGRESS_POLL_SECONDS)
                if not communicate.done():
                    progress.report(i18n.t("triage.running", lang, seconds=int(time.monotonic() - started)))
            out, err = communicate.result()
        except asyncio.CancelledError:
            if process is not None and process.returncode is None:
                process.kill()
            raise
        if cancelled:
            progress.end(i18n.t("triage.cancelled", lang))
            raise JsonRpcRequestCancelled("nnie.triage cancelled")
        if process.returncode != 0:
            message = i18n.t("triage.failed", lang, code=process.returncode,
                             error=err.decode("utf-8", "replace").strip()[-2000:])
            progress.end(message)
            self.ls.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Error, message=message))
            raise request_failed(message)
        try:
            result = json.loads(out.decode("utf-8"))
        except ValueError as exc:
            message = i18n.t("triage.failed", lang, code=0, error=f"invalid JSON: {exc}")
            progress.end(message)
            raise request_failed(message) from None
        self._keep(result, targs.prototxt)
        progress.end(i18n.t("triage.done", lang, verdict=_verdict(result)))
        return result

    def _keep(self, result: dict, prototxt: str | None) -> None:
        """Remember `result` for its prototxt and show it there if the prototxt is open."""
        prototxt = prototxt or _prototxt_of_result(result)
        if not prototxt:
            return
        path = os.path.abspath(prototxt)
        self.results[path] = TriageState(result, path)
        uri = self.ls.documents.uri_for_path(path)
        if uri is None:
            return
        if self.ls.pull:
            self.ls.refresh_pull()
        else:
            self.ls.publish(uri)
        if get_capability(self.ls.client_capabilities, "workspace.inlay_hint.refresh_support", False):
            try:
                self.ls.workspace_inlay_hint_refresh(None)
            except Exception:
                pass


def _prototxt_of_result(result: dict) -> str | None:
    inputs = result.get("inputs")
    return inputs.get("prototxt") if isinstance(inputs, dict) else None


def _verdict(result: dict) -> str:
    return str(result.get("verdict") or result.get("case"))

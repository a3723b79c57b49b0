"""Long jobs in a subprocess (``nnie-triage compare``, ``reference``, ``emulate``) with cancellable
work-done progress.

The work is CPU- and disk-heavy and takes minutes on big nets, so it runs in its own process (as
esbonio runs Sphinx builds) mapped onto a work-done progress token: the editor's Cancel button
(``window/workDoneProgress/cancel``) kills the process; ``$/cancelRequest`` cannot reach a running
command in pygls.  A job that fails ends with a ``RequestFailed`` error whose message is the tool's
own error line; a cancelled one with ``RequestCancelled``.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import time
import uuid
from typing import TYPE_CHECKING, Sequence

from lsprotocol import types as lsp
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcRequestCancelled

from ... import i18n
from ..protocol import request_failed

if TYPE_CHECKING:
    from ..server import NnieLanguageServer

PROGRESS_POLL_SECONDS = 1.0


class Progress:
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


class Busy:
    """The jobs running now, by (command, what): one of each at a time."""

    def __init__(self) -> None:
        self._running: set[tuple[str, str]] = set()

    def claim(self, command: str, what: str, lang: str) -> tuple[str, str]:
        key = (command, os.path.abspath(what))
        if key in self._running:
            raise request_failed(i18n.t("job.busy", lang, command=command, what=what))
        self._running.add(key)
        return key

    def release(self, key: tuple[str, str]) -> None:
        self._running.discard(key)


async def run_job(ls: NnieLanguageServer, command: Sequence[str], *, title: str, message: str,
                  running: str = "job.running", cwd: str | None = None) -> tuple[str, Progress]:
    """Run `command`; its stdout.  The progress is left open for the caller to end (it knows the
    outcome's words); on failure or cancellation it is ended here."""
    lang = ls.lang
    progress = Progress(ls)
    await progress.begin(title, message)
    ls.log("running " + " ".join(shlex.quote(part) for part in command) + (f" (in {cwd})" if cwd else ""))
    cancelled = False
    process: asyncio.subprocess.Process | None = None
    try:
        process = await asyncio.create_subprocess_exec(
            *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            stdin=asyncio.subprocess.DEVNULL, cwd=cwd)

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
                progress.report(i18n.t(running, lang, seconds=int(time.monotonic() - started)))
        out, err = communicate.result()
    except asyncio.CancelledError:
        if process is not None and process.returncode is None:
            process.kill()
        progress.end(i18n.t("triage.cancelled", lang))
        raise
    except OSError as exc:   # the command itself cannot start
        text = i18n.t("triage.failed", lang, code="-", error=f"{command[0]}: {exc.strerror or exc}")
        progress.end(text)
        raise request_failed(text) from None
    if cancelled:
        progress.end(i18n.t("triage.cancelled", lang))
        raise JsonRpcRequestCancelled(f"{title} cancelled")
    if process.returncode != 0:
        text = i18n.t("triage.failed", lang, code=process.returncode,
                      error=err.decode("utf-8", "replace").strip()[-2000:])
        progress.end(text)
        try:
            ls.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Error, message=text))
        except Exception:
            pass
        raise request_failed(text)
    tail = err.decode("utf-8", "replace").strip()
    if tail:
        ls.log(tail[-4000:])
    return out.decode("utf-8", "replace"), progress

"""Workspace diagnostics (setting ``nnie.lint.workspace``, off by default): every NNIE cfg and
prototxt of the workspace is linted, so the Problems list covers the whole project, not only the
open files.

How: the findings of files that are **not open** are *published* (``textDocument/publishDiagnostics``,
which every client takes, pull or push); an open file keeps its usual diagnostics (pulled or pushed:
:mod:`.server`), never both, so no problem is counted twice.  When a file opens, a pull client is
sent an empty list for it (its pull takes over); when it closes, its saved text is linted and
published again.  Each file is linted exactly as the editor lints it when open (the same project:
a prototxt with the cfg that names it, unsaved editor texts included), one file at a time in a
worker thread of its own (never on the event loop, never blocking the open files' lint).

Bounded: the scan skips ``.git``, ``node_modules``, virtual environments, build output and every
folder starting with a dot (:data:`nnie_lsp.lint.driver.SKIP_DIRS`), sniffs ``.cfg`` files (only
nnie_mapper cfgs) and prototxts (no solver files) as the editor does, and stops at
:data:`MAX_FILES` files — the log says so, and one message tells the user.  Progress is work-done
progress ("NNIE: linting the workspace", files done of all).

Changes: the server asks the client to watch ``**/*.cfg`` and ``**/*.prototxt``
(``workspace/didChangeWatchedFiles``, when the client can register it); a created or changed file
is linted again with the unopened files whose last lint read it (a cfg's prototxt), a deleted one
loses its diagnostics.  A settings change lints everything again; turning the setting off
withdraws every published list.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import time
import uuid
from typing import TYPE_CHECKING, Iterable

from lsprotocol import types as lsp
from pygls.capabilities import get_capability
from pygls.uris import from_fs_path, to_fs_path

from nnie_lsp.core import i18n
from nnie_lsp.editor.common import document_kind
from nnie_lsp.lint.driver import SKIP_DIRS
from nnie_lsp.core.text import read_text

if TYPE_CHECKING:
    from nnie_lsp.server.server import NnieLanguageServer

#: At most this many files are linted (the first ones in a sorted walk); more: the user is told.
#: ``NNIE_LSP_WORKSPACE_MAX_FILES`` sets another bound (tests, very large monorepos).
MAX_FILES = 1000
MAX_FILES_ENV = "NNIE_LSP_WORKSPACE_MAX_FILES"


def max_files() -> int:
    try:
        return max(1, int(os.environ.get(MAX_FILES_ENV, "")))
    except ValueError:
        return MAX_FILES
#: At most one progress report this often.
REPORT_SECONDS = 0.25
#: How many bytes of a file are read to tell an nnie_mapper cfg or a solver file.
SNIFF_BYTES = 1 << 16
WATCHERS = ("**/*.cfg", "**/*.prototxt")


def _sniff(path: str) -> str | None:
    """"cfg", "prototxt" or None, by extension and content, as the editor claims documents."""
    low = path.lower()
    if not low.endswith((".cfg", ".prototxt")):
        return None
    try:
        text = read_text(path).text[:SNIFF_BYTES]
    except (OSError, ValueError):
        return None
    return document_kind(path, None, text)


def scan(roots: Iterable[str], limit: int = MAX_FILES) -> tuple[list[tuple[str, str]], bool]:
    """The NNIE files under `roots` as ``(path, kind)``, sorted, at most `limit`; and whether
    there were more (runs in a worker thread)."""
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
            for name in sorted(files):
                path = os.path.abspath(os.path.join(folder, name))
                if path in seen or not name.lower().endswith((".cfg", ".prototxt")):
                    continue
                kind = _sniff(path)
                if kind is None:
                    continue
                if len(found) >= limit:
                    return found, True
                seen.add(path)
                found.append((path, kind))
    return found, False


class WorkspaceLinter:
    def __init__(self, ls: NnieLanguageServer) -> None:
        self.ls = ls
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="nnie-workspace")
        self.files: dict[str, str] = {}                 # path -> kind: the workspace's NNIE files
        #: path -> (the URI its findings were published under, the files its last lint read)
        self.published: dict[str, tuple[str, frozenset[str]]] = {}
        self.generation = 0
        self.capped = False
        self.task: asyncio.Task | None = None
        self._watching = False
        self._enabled = False
        self._cap_shown = False     # the cap is shown once a session (logged every scan)

    @property
    def enabled(self) -> bool:
        return bool(self.ls.settings.workspace)

    def roots(self) -> list[str]:
        folders = [to_fs_path(f.uri) for f in getattr(self.ls.workspace, "folders", {}).values()]
        roots = [os.path.abspath(f) for f in folders if f and os.path.isdir(f)]
        if not roots and self.ls.root and os.path.isdir(self.ls.root):
            roots = [os.path.abspath(self.ls.root)]
        return roots

    # ---------------------------------------------------------------- the setting
    def settings_changed(self) -> None:
        """Settings changed (or were first read): lint the workspace again, or withdraw it all."""
        if self.enabled:
            self._enabled = True
            self.start()
        elif self._enabled:
            self._enabled = False
            self.stop()

    def start(self) -> None:
        self.generation += 1
        if self.task is not None and not self.task.done():
            self.task.cancel()
        self.task = asyncio.ensure_future(self._lint_workspace(self.generation))

    def stop(self) -> None:
        self.generation += 1
        if self.task is not None and not self.task.done():
            self.task.cancel()
        for uri, _members in list(self.published.values()):
            self._publish(uri, [])
        self.published.clear()
        self.files.clear()
        self.ls.log("workspace diagnostics off: the Problems list shows the open files only")

    # ---------------------------------------------------------------- linting
    async def _lint_workspace(self, generation: int) -> None:
        roots = self.roots()
        if not roots:
            self.ls.log("workspace diagnostics: no workspace folder to lint", lsp.MessageType.Info)
            return
        lang = self.ls.lang
        progress = _Progress(self.ls)
        await progress.begin(i18n.t("workspace.title", lang), i18n.t("workspace.scanning", lang))
        started = time.monotonic()
        try:
            loop = asyncio.get_running_loop()
            limit = max_files()
            files, capped = await loop.run_in_executor(self.pool, scan, roots, limit)
            if generation != self.generation:
                return
            self.files = dict(files)
            self.capped = capped
            if capped:
                text = i18n.t("workspace.capped", lang, limit=limit, roots=", ".join(roots))
                self.ls.log(text, lsp.MessageType.Warning)
                if not self._cap_shown:
                    self._cap_shown = True
                    self.ls.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=text))
            for path in [p for p in self.published if p not in self.files]:   # gone since the last scan
                self._publish(self.published.pop(path)[0], [])
            problems, last = 0, 0.0
            for done, (path, kind) in enumerate(files, 1):
                if generation != self.generation:
                    return
                problems += await self._lint_one(path, kind, generation)
                now = time.monotonic()
                if now - last >= REPORT_SECONDS or done == len(files):
                    progress.report(i18n.t("workspace.progress", lang, done=done, total=len(files)),
                                    int(100 * done / max(len(files), 1)))
                    last = now
            summary = i18n.t("workspace.done", lang, files=len(files), problems=problems,
                             seconds=f"{time.monotonic() - started:.1f}")
            self.ls.log(summary + (" " + i18n.t("workspace.capped_short", lang, limit=limit) if capped else ""))
            progress.end(summary)
        except asyncio.CancelledError:
            progress.end(i18n.t("triage.cancelled", lang))
            raise
        except Exception as exc:   # never let a scan take the server down
            self.ls.log(f"workspace diagnostics failed: {exc!r}", lsp.MessageType.Error)
            progress.end(str(exc))
        finally:
            progress.end("")
        await self._watch()

    async def _lint_one(self, path: str, kind: str, generation: int) -> int:
        """Lint one unopened file and publish its findings; how many there were."""
        uri = from_fs_path(path)
        if uri is None or self.ls.documents.uri_for_path(path) is not None:
            return 0                     # open: its own diagnostics are shown
        snap = self.ls.scheduler.snapshot_of(uri, path, kind)
        try:
            result = await asyncio.get_running_loop().run_in_executor(self.pool, self.ls.scheduler.compute, snap)
        except Exception as exc:
            self.ls.log(i18n.t("server.lint_failed", self.ls.lang, file=path, error=repr(exc)), lsp.MessageType.Error)
            return 0
        if generation != self.generation or self.ls.documents.uri_for_path(path) is not None:
            return 0
        self._publish(uri, result.lsp_diagnostics)
        self.published[path] = (uri, result.members)
        return len(result.lsp_diagnostics)

    def _publish(self, uri: str, items) -> None:
        try:
            self.ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=list(items)))
        except Exception as exc:   # transport gone
            self.ls.log(f"publishing workspace diagnostics failed: {exc!r}", lsp.MessageType.Warning)

    def _relint(self, paths: Iterable[str]) -> None:
        if not self.enabled:
            return
        generation = self.generation

        async def run() -> None:
            for path in paths:
                kind = self.files.get(path)
                if kind is not None:
                    await self._lint_one(path, kind, generation)
        asyncio.ensure_future(run())

    # ---------------------------------------------------------------- documents and files
    def opened(self, uri: str) -> None:
        """A file opened: its usual diagnostics take over (a pull client must not also keep ours)."""
        path = to_fs_path(uri)
        entry = self.published.pop(os.path.abspath(path), None) if path else None
        if entry is not None and self.ls.pull:
            self._publish(entry[0], [])

    def closed(self, path: str) -> None:
        """A file closed: its saved text is linted and published again."""
        if self.enabled and path in self.files:
            self._relint([path])

    def files_changed(self, changes: Iterable[lsp.FileEvent]) -> None:
        """``workspace/didChangeWatchedFiles``: lint the changed files and those whose lint read them."""
        if not self.enabled:
            return
        todo: list[str] = []
        for change in changes:
            path = to_fs_path(change.uri)
            if not path:
                continue
            path = os.path.abspath(path)
            if change.type == lsp.FileChangeType.Deleted:
                self.files.pop(path, None)
                entry = self.published.pop(path, None)
                if entry is not None:
                    self._publish(entry[0], [])
            elif path not in self.files:
                kind = _sniff(path)
                if kind is not None and len(self.files) < max_files() and _inside(path, self.roots()):
                    self.files[path] = kind
                    todo.append(path)
            else:
                todo.append(path)
            todo += [other for other, (_uri, members) in self.published.items() if path in members]
        self._relint(list(dict.fromkeys(p for p in todo if p)))

    async def _watch(self) -> None:
        """Ask the client to tell us about cfg/prototxt changes (once, when it can register that)."""
        if self._watching or not get_capability(self.ls.client_capabilities,
                                                "workspace.did_change_watched_files.dynamic_registration", False):
            return
        self._watching = True
        try:
            await asyncio.wait_for(self.ls.client_register_capability_async(lsp.RegistrationParams(registrations=[
                lsp.Registration(id=str(uuid.uuid4()), method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                 register_options=lsp.DidChangeWatchedFilesRegistrationOptions(watchers=[
                                     lsp.FileSystemWatcher(glob_pattern=g) for g in WATCHERS]))])), timeout=5)
        except Exception as exc:
            self.ls.log(f"could not watch cfg/prototxt files: {exc!r}", lsp.MessageType.Info)


def _inside(path: str, roots: list[str]) -> bool:
    """`path` lies under one of `roots`, in no folder the scan skips."""
    for root in roots:
        try:
            rel = os.path.relpath(path, root)
        except ValueError:        # another drive
            continue
        if rel == os.pardir or rel.startswith(os.pardir + os.sep):
            continue
        return not any(part in SKIP_DIRS or part.startswith(".") for part in rel.split(os.sep)[:-1])
    return False


class _Progress:
    """Work-done progress of the scan (not cancellable: turning the setting off stops it)."""

    def __init__(self, ls: NnieLanguageServer) -> None:
        self.ls = ls
        self.token = str(uuid.uuid4())
        self.enabled = bool(get_capability(ls.client_capabilities, "window.work_done_progress", False))
        self.ended = False

    async def begin(self, title: str, message: str) -> None:
        if not self.enabled:
            return
        try:
            await asyncio.wait_for(self.ls.work_done_progress.create_async(self.token), timeout=5)
            self.ls.work_done_progress.begin(self.token, lsp.WorkDoneProgressBegin(
                title=title, cancellable=False, message=message, percentage=0))
        except Exception as exc:
            self.ls.log(f"work-done progress unavailable: {exc!r}", lsp.MessageType.Info)
            self.enabled = False

    def report(self, message: str, percentage: int) -> None:
        if self.enabled and not self.ended:
            self.ls.work_done_progress.report(self.token, lsp.WorkDoneProgressReport(message=message,
                                                                                    percentage=percentage))

    def end(self, message: str) -> None:
        if self.enabled and not self.ended:
            self.ended = True
            self.ls.work_done_progress.end(self.token, lsp.WorkDoneProgressEnd(message=message[:200] or None))

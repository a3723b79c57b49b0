"""When to lint, off the event loop: debounce, one lint per document at a time, stale work dropped.

- An isolated edit is linted at once; a burst of edits once it pauses for ``lint.debounce`` ms.
- The engine runs on a :class:`Snapshot` (every open document's text, the settings), never on the
  event loop; requests for the same state share one computation.
- Per document: a document over the bound of its kind (:func:`nnie_lsp.core.safe_io.check_text`, as a
  file of that name) is not linted at all: it gets its NN903 diagnostic at once, and nothing parses
  it.  A document of :data:`~.lint_process.BIG_DOCUMENT` bytes or more is linted in a child process
  (:mod:`.lint_process`), the others in worker threads (two): a big buffer never delays the other
  documents' lints.
- **Cancelled by newer versions**: a lint that has not started when a newer snapshot of its
  document is taken is dropped; a big lint running in the child is killed.  A result that is no
  longer current is not published (a newer lint is coming), and the diagnostics store keeps
  whichever computation started last.
- Editing a cfg relints the open prototxt it pairs with, and the other way round.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import os
import time
import traceback
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, TypeVar

from lsprotocol import types as lsp

from nnie_lsp.core import i18n
from nnie_lsp.core.diagnostics import Diagnostic
from nnie_lsp.lint import lint
from nnie_lsp.project.project import DiskProvider, Project, cached_prototxt, project_for_file
from nnie_lsp.rules.meta import not_linted
from nnie_lsp.core.safe_io import text_size
from nnie_lsp.project.settings import LintSettings
from nnie_lsp.core.text import LineIndex
from nnie_lsp.server.convert import SOURCE, Encoder, to_lsp_diagnostics
from nnie_lsp.server.lint_process import BIG_DOCUMENT, Cancelled, LintProcess

if TYPE_CHECKING:
    from nnie_lsp.server.documents import OpenDocument
    from nnie_lsp.server.server import NnieLanguageServer

TIMING = bool(os.environ.get("NNIE_LSP_TIMING"))  # log each lint's duration (benchmarks)
Result = TypeVar("Result")


@dataclass
class Snapshot:
    """Everything a lint of one document needs, copied on the event loop."""

    uri: str
    path: str
    kind: str
    version: int | None
    key: tuple                   # (settings generation, versions of the open documents)
    overlay: dict[str, str]      # path -> unsaved editor text
    versions: dict[str, int]     # path -> document version
    settings: LintSettings
    lang: str
    encoder: Encoder
    cwd: str
    sequence: int                # snapshots are numbered in the order they are taken


@dataclass
class LintResult:
    key: tuple
    version: int | None
    engine: list[Diagnostic]
    lsp_diagnostics: list[lsp.Diagnostic]
    members: frozenset[str]      # the cfg and prototxt paths of the linted project
    project: Project | None      # None: linted in the child process (features build their own)
    elapsed: float
    sequence: int


class LintScheduler:
    def __init__(self, ls: NnieLanguageServer) -> None:
        self.ls = ls
        self.lint_pool = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="nnie-lint")
        # the big documents' lane: one thread waiting on the child process (.lint_process)
        self.big_pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="nnie-big")
        self.process = LintProcess()
        self.aux_pool = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="nnie-aux")
        self._inflight: dict[tuple, asyncio.Future] = {}
        self._latest: dict[str, int] = {}      # uri -> sequence of its newest lint snapshot
        self._sequence = itertools.count(1)
        self._refresh_task: asyncio.Task | None = None

    # ---------------------------------------------------------------- state
    def key(self) -> tuple:
        return (self.ls.settings_gen, self.ls.documents.state())

    def _on_save_only(self) -> bool:
        return self.ls.settings.run == "onSave"

    def snapshot(self, record: OpenDocument) -> Snapshot:
        documents = self.ls.documents
        overlay, versions = documents.overlay()
        return Snapshot(record.uri, record.path, record.kind, documents.version(record.uri), self.key(), overlay,
                        versions, self.ls.lint_settings_for(record.path), self.ls.lang, self.ls.encoder(),
                        self.ls.root or os.path.dirname(record.path), next(self._sequence))

    def snapshot_of(self, uri: str, path: str, kind: str) -> Snapshot:
        """A snapshot for a file that is not open (workspace diagnostics: :mod:`.workspace_lint`)."""
        documents = self.ls.documents
        overlay, versions = documents.overlay()
        return Snapshot(uri, path, kind, None, self.key(), overlay, versions, self.ls.lint_settings_for(path),
                        self.ls.lang, self.ls.encoder(), self.ls.root or os.path.dirname(path), next(self._sequence))

    # ---------------------------------------------------------------- linting
    def superseded(self, snap: Snapshot) -> bool:
        """A newer snapshot of the same document was taken since `snap` (its lint is not needed)."""
        return self._latest.get(snap.uri, snap.sequence) > snap.sequence

    def compute(self, snap: Snapshot) -> LintResult:
        """Runs in a lint thread (the workspace linter calls it too, for files not open)."""
        if snap.version is not None and self.superseded(snap):
            raise Cancelled()
        started = time.perf_counter()
        provider = DiskProvider(dict(snap.overlay))
        outcome = lint(snap.path, settings=snap.settings, provider=provider, cwd=snap.cwd, kind=snap.kind,
                       lang=snap.lang)
        project = outcome.project
        indexes: dict[str, LineIndex | None] = {}
        if project.cfg is not None and project.cfg.path:
            indexes[project.cfg.path] = project.cfg.line_index
        if project.prototxt is not None and project.prototxt.path:
            indexes[project.prototxt.path] = project.prototxt.line_index
        card = project.card.card_path if project.card is not None else None   # editing the card relints the cfg
        members = frozenset(p for p in (project.cfg_path, project.prototxt_path, card) if p)
        return self._result(snap, outcome.diagnostics, outcome.internal_errors, members, project, provider,
                            indexes, started)

    def compute_big(self, snap: Snapshot) -> LintResult:
        """Runs in the big documents' thread: the lint itself runs in the child process."""
        if self.superseded(snap):
            raise Cancelled()
        started = time.perf_counter()
        diagnostics, errors, members = self.process.lint(snap.uri, snap.sequence, (
            snap.path, snap.kind, dict(snap.overlay), snap.settings, snap.cwd, snap.lang),
            lambda: self.superseded(snap))
        return self._result(snap, diagnostics, errors, frozenset(members), None, DiskProvider(dict(snap.overlay)),
                            {}, started)

    def _result(self, snap: Snapshot, diagnostics: list[Diagnostic], errors, members: frozenset[str],
                project: Project | None, provider: DiskProvider, indexes: dict, started: float) -> LintResult:
        for error in errors:
            self.ls.log(f"nnie-lint rule crashed on {snap.path}: {error}", lsp.MessageType.Error)

        def lines(path: str) -> LineIndex | None:
            absolute = os.path.abspath(path)
            if absolute not in indexes:
                decoded = provider.read_text(absolute)
                indexes[absolute] = LineIndex(decoded.text) if decoded is not None else None
            return indexes[absolute]

        lsp_diagnostics = to_lsp_diagnostics(diagnostics, lines, snap.encoder, snap.versions)
        return LintResult(snap.key, snap.version, diagnostics, lsp_diagnostics, members, project,
                          time.perf_counter() - started, snap.sequence)

    def refused(self, record: OpenDocument) -> LintResult | None:
        """The result of a document over the bound of its kind: NN903 at once, nothing parsed
        (computed on the event loop: it only measures the text)."""
        problem = self.ls.documents.problem(record.uri)
        if problem is None:
            return None
        settings = self.ls.lint_settings_for(record.path)
        diagnostic = not_linted(problem, record.path, self.ls.lang)
        items = to_lsp_diagnostics([diagnostic], lambda _path: None, self.ls.encoder(), {})
        return LintResult(self.key(), self.ls.documents.version(record.uri), [diagnostic], items,
                          frozenset([record.path]), Project(settings), 0.0, next(self._sequence))

    def _big(self, record: OpenDocument) -> bool:
        """Whether `record`'s lint goes to the child process: the document, or the other member of
        its last project (a cfg's prototxt), is big."""
        text, _version = self.ls.documents.text(record.uri)
        if len(text) >= BIG_DOCUMENT or text_size(text) >= BIG_DOCUMENT:
            return True
        last = record.lint
        for member in (last.members if last is not None else ()):
            if member == record.path:
                continue
            uri = self.ls.documents.uri_for_path(member)
            if uri is not None:
                if len(self.ls.documents.text(uri)[0]) >= BIG_DOCUMENT:
                    return True
            else:
                try:
                    if os.path.getsize(member) >= BIG_DOCUMENT:
                        return True
                except OSError:
                    pass
        return False

    async def ensure_result(self, uri: str, *, force: bool = False) -> LintResult | None:
        """The lint result for the current state of `uri` (computed off the event loop); its LSP
        diagnostics are in the diagnostics store when this returns."""
        record = self.ls.documents.get(uri)
        if record is None:
            return None
        key = self.key()
        cached = record.lint
        if cached is not None and (cached.key == key or (self._on_save_only() and not force
                                                          and cached.key[0] == key[0])):
            return cached
        refused = self.refused(record)
        if refused is not None:
            record.lint = refused
            self.ls.diagnostics.set(SOURCE, uri, refused.lsp_diagnostics, refused.version, refused.sequence)
            return refused
        inflight_key = (uri, key)
        future = self._inflight.get(inflight_key)
        if future is None:
            loop = asyncio.get_running_loop()
            snap = self.snapshot(record)
            self._latest[uri] = snap.sequence
            self.process.supersede(uri, snap.sequence)   # a big lint of an older version: killed
            if self._big(record):
                future = loop.run_in_executor(self.big_pool, self.compute_big, snap)
            else:
                future = loop.run_in_executor(self.lint_pool, self.compute, snap)
            self._inflight[inflight_key] = future
            future.add_done_callback(lambda _f, k=inflight_key: self._inflight.pop(k, None))
        try:
            result = await asyncio.shield(future)
        except asyncio.CancelledError:
            raise
        except Cancelled:   # a newer version's lint took its place
            current = self.ls.documents.get(uri)
            return current.lint if current is not None else None
        except Exception as exc:
            self.ls.log(i18n.t("server.lint_failed", self.ls.lang, file=record.path, error=repr(exc))
                        + "\n" + traceback.format_exc(), lsp.MessageType.Error)
            current = self.ls.documents.get(uri)
            return current.lint if current is not None else None
        record = self.ls.documents.get(uri)
        if record is not None:
            if result.key == self.key() or self._on_save_only():
                record.lint = result
            self.ls.diagnostics.set(SOURCE, uri, result.lsp_diagnostics, result.version, result.sequence)
        return result

    async def lint_and_publish(self, uri: str, *, related: bool, force: bool = False) -> None:
        before = set(self.related_uris(uri)) if related else set()
        result = await self.ensure_result(uri, force=force)
        if result is None or uri not in self.ls.documents:
            return
        if result.key != self.key() and not self._on_save_only():
            return  # a newer lint is scheduled
        if not self.ls.pull:
            self.ls.publish(uri)
        if TIMING:
            self.ls.log(f"timing: lint {result.elapsed * 1000:.1f} ms for version {result.version} of {uri}")
        if related:
            others = before | {r.uri for r in self.ls.documents if r.path in result.members and r.uri != uri}
            if self.ls.pull:
                if others:
                    self.ls.refresh_pull()
            else:
                for other in others:
                    self.schedule(other, 0.0, related=False, force=force)

    def related_uris(self, uri: str) -> list[str]:
        """Open documents whose last lint read `uri`'s file (a cfg's prototxt and the reverse)."""
        record = self.ls.documents.get(uri)
        if record is None:
            return []
        return [r.uri for r in self.ls.documents
                if r.uri != uri and r.lint is not None and record.path in r.lint.members]

    # ---------------------------------------------------------------- scheduling
    def schedule(self, uri: str, delay: float, *, related: bool = True, force: bool = False) -> None:
        """Lint `uri` after `delay` seconds and publish, replacing the lint pending for it."""
        record = self.ls.documents.get(uri)
        if record is None:
            return
        if record.pending is not None and not record.pending.done():
            record.pending.cancel()

        async def run() -> None:
            try:
                if delay > 0:
                    await asyncio.sleep(delay)
                await self.lint_and_publish(uri, related=related, force=force)
            except asyncio.CancelledError:
                pass
            except Exception as exc:
                self.ls.log(i18n.t("server.lint_failed", self.ls.lang, file=uri, error=repr(exc)) + "\n"
                            + traceback.format_exc(), lsp.MessageType.Error)
            finally:
                if record.pending is task:
                    record.pending = None

        task = asyncio.ensure_future(run())
        record.pending = task

    def on_change(self, uri: str) -> None:
        """Debounce with a leading edge: an isolated edit is linted at once, a burst of edits
        once it pauses for `debounce` ms."""
        record = self.ls.documents.get(uri)
        if record is None:
            return
        now = time.monotonic()
        debounce = self.ls.settings.debounce_ms / 1000.0
        previous, record.last_change = record.last_change, now
        busy = record.pending is not None and not record.pending.done()
        delay = debounce if (busy or (previous is not None and now - previous < debounce)) else 0.0
        if self.ls.pull:
            if len(self.ls.documents) > 1:  # the others' findings may depend on this one
                self.schedule_refresh(delay)
            return
        self.schedule(uri, delay)

    def schedule_refresh(self, delay: float) -> None:
        """Ask a pull client to pull again after `delay` (at least 50 ms; one refresh per burst)."""
        if self._refresh_task is not None and not self._refresh_task.done():
            self._refresh_task.cancel()

        async def run() -> None:
            try:
                await asyncio.sleep(max(delay, 0.05))
                self.ls.refresh_pull()
            except asyncio.CancelledError:
                pass

        self._refresh_task = asyncio.ensure_future(run())

    def relint_all(self) -> None:
        """After a settings change: every open document again (a pull client is asked to pull)."""
        if self.ls.pull:
            self.ls.refresh_pull()
            return
        for record in self.ls.documents:
            self.schedule(record.uri, 0.0, related=False, force=True)

    def relint_dependents(self, path: str) -> None:
        """After `path` was closed: the open documents whose lint read it (push clients)."""
        for record in self.ls.documents:
            if record.lint is not None and path in record.lint.members:
                self.schedule(record.uri, 0.0, related=False, force=True)

    # ---------------------------------------------------------------- models for the features
    async def run_aux(self, function: Callable[..., Result], *args) -> Result:
        """Run `function` in the auxiliary pool (parsing for hover, formatting…)."""
        return await asyncio.get_running_loop().run_in_executor(self.aux_pool, function, *args)

    async def project_for(self, uri: str) -> Project | None:
        """The project (cfg + prototxt + files) of `uri` as it is now: the current lint's, or a
        fresh one built off the event loop."""
        record = self.ls.documents.get(uri)
        if record is None:
            return None
        if record.lint is not None and record.lint.key == self.key() and record.lint.project is not None:
            return record.lint.project
        snap = self.snapshot(record)

        def build() -> Project:
            return project_for_file(snap.path, settings=snap.settings, provider=DiskProvider(snap.overlay),
                                    cwd=snap.cwd, is_cfg=snap.kind == "cfg")
        return await self.run_aux(build)

    async def prototxt_model(self, uri: str):
        """(PrototxtDocument, NetGraph) of an open prototxt, parsed off the event loop (cached by text)."""
        record = self.ls.documents.get(uri)
        if record is None or record.kind != "prototxt" or self.ls.documents.problem(uri) is not None:
            return None
        text, _version = self.ls.documents.text(uri)
        return await self.run_aux(cached_prototxt, text, record.path)

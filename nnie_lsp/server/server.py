"""The pygls wiring: server class, document/diagnostic stores, debounce, handlers, commands.

Analysis lives in the engine (:mod:`nnie_lsp.lint`) and editor logic in :mod:`nnie_lsp.features`;
this module converts, schedules and talks LSP.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import json
import logging
import os
import time
import traceback
import uuid
from dataclasses import dataclass
from typing import Any

from lsprotocol import types as T
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcRequestCancelled
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import to_fs_path

from .. import __version__ as VERSION
from .. import i18n
from ..diagnostics import Diagnostic
from ..features import actions as fa
from ..features import completion as fc
from ..features import hover as fh
from ..features import navigation as fn
from ..features import triage as ft
from ..features.common import document_kind
from ..lint import lint_project, project_for_file
from ..project import DiskProvider, Project, cached_cfg, cached_prototxt
from ..prototxt.format import format_edits
from ..settings import LintSettings, SettingsError, load_settings
from ..text import LineIndex, Position, decode
from .config import ServerSettings, choose_language, parse_settings, unwrap
from .convert import TRIAGE_SOURCE, Encoder, edit_text, to_lsp_diagnostic, uri_of

log = logging.getLogger("nnie_lsp.server")

REQUEST_FAILED = -32803
TIMING = bool(os.environ.get("NNIE_LSP_TIMING"))  # log each lint's duration (benchmarks)
FIX_ALL_KIND = "source.fixAll.nnie"


# ---------------------------------------------------------------------------- protocol

class _Ignored:
    jsonrpc = None


_IGNORED = _Ignored()


class NnieProtocol(LanguageServerProtocol):
    """Answers requests whose params cannot be structured with an InvalidParams *response*
    (pygls 2.1.1 only logs and leaves the client waiting)."""

    def structure_message(self, data):
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if isinstance(data, dict) and "id" in data and "method" in data:
                cause = exc.__cause__
                detail = str(cause).splitlines()[0] if cause else str(exc)
                err = JsonRpcInvalidParams(f"invalid params for {data['method']}: {detail}")
                self._send_response(data["id"], None, err.to_response_error())
                try:
                    self._server.log(f"rejected malformed {data['method']} request: {detail}", T.MessageType.Warning)
                except Exception:
                    pass
                return _IGNORED
            if isinstance(data, dict) and "method" in data and "jsonrpc" in data:
                log.warning("dropping malformed notification %s", data.get("method"))
                return _IGNORED
            raise

    def handle_message(self, message):
        if message is _IGNORED:
            return
        super().handle_message(message)


# ---------------------------------------------------------------------------- state

@dataclass
class DocState:
    uri: str
    path: str
    kind: str          # "cfg" | "prototxt"


@dataclass
class LintResult:
    key: tuple
    version: int | None
    engine: list[Diagnostic]
    lsp: list[T.Diagnostic]
    members: frozenset[str]
    project: Project
    elapsed: float


@dataclass
class Snapshot:
    uri: str
    path: str
    kind: str
    version: int | None
    key: tuple
    overlay: dict[str, str]
    versions: dict[str, int]
    settings: LintSettings
    lang: str
    encoder: Encoder
    cwd: str


@dataclass
class TriageState:
    result: dict
    prototxt: str | None = None


# ---------------------------------------------------------------------------- server

class NnieLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("nnie-lsp", VERSION, protocol_cls=NnieProtocol, max_workers=4)
        self.docs: dict[str, DocState] = {}
        self.results: dict[str, LintResult] = {}
        self.inflight: dict[tuple, asyncio.Future] = {}
        self.tasks: dict[str, asyncio.Task] = {}
        self.last_change: dict[str, float] = {}
        self.triage: dict[str, TriageState] = {}      # prototxt path -> last triage
        self.settings = ServerSettings()
        self.settings_gen = 0
        self.locale: str | None = None
        self.cli_lang: str | None = None
        self.lang = "en"
        self.pull = False
        self.base_settings: dict[str, LintSettings] = {}
        self.lint_pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="nnie-lint")
        self.aux_pool = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="nnie-aux")
        self.root: str | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._settings_error_shown: set[str] = set()

    # ---------------------------------------------------------------- logging
    def log(self, message: str, kind: T.MessageType = T.MessageType.Log) -> None:
        """window/logMessage, from any thread."""
        def send():
            try:
                self.window_log_message(T.LogMessageParams(type=kind, message=message))
            except Exception:  # transport gone
                pass
        loop = self._loop
        if loop is not None and loop.is_running():
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if running is loop:
                send()
            else:
                loop.call_soon_threadsafe(send)
        else:
            send()

    def report_server_error(self, error: Exception, source) -> None:
        tb = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        self.log(f"nnie-lsp internal error ({getattr(source, '__name__', source)}): {error}\n{tb}",
                 T.MessageType.Error)

    # ---------------------------------------------------------------- documents
    def encoder(self) -> Encoder:
        return Encoder(self.workspace.position_encoding)

    def doc_text(self, uri: str) -> tuple[str, int | None]:
        d = self.workspace.get_text_document(uri)
        return d.source, d.version

    def track(self, uri: str, language_id: str | None, text: str) -> DocState | None:
        path = to_fs_path(uri)
        if path is None:
            return None
        kind = document_kind(path, language_id, text)
        if kind is None:
            self.docs.pop(uri, None)
            return None
        st = DocState(uri, os.path.abspath(path), kind)
        self.docs[uri] = st
        return st

    def uri_for_path(self, path: str) -> str | None:
        ap = os.path.abspath(path)
        for uri, st in self.docs.items():
            if st.path == ap:
                return uri
        return None

    def key_for(self, uri: str) -> tuple:
        vers = []
        for u in sorted(self.docs):
            try:
                vers.append((u, self.workspace.get_text_document(u).version))
            except Exception:
                vers.append((u, None))
        return (self.settings_gen, tuple(vers))

    def lint_settings_for(self, path: str) -> LintSettings:
        d = os.path.dirname(path)
        hit = self.base_settings.get(d)
        if hit is not None:
            return hit
        try:
            base = load_settings(d)
        except SettingsError as exc:
            if str(exc) not in self._settings_error_shown:
                self._settings_error_shown.add(str(exc))
                self.show_settings_error(str(exc))
            base = LintSettings()
        try:
            st = self.settings.lint_settings(base)
        except SettingsError as exc:  # validated earlier; defensive
            self.show_settings_error(str(exc))
            st = base
        st = st.merged(lang=self.lang)
        self.base_settings[d] = st
        return st

    def show_settings_error(self, error: str) -> None:
        msg = i18n.t("settings.invalid", self.lang, error=error)
        self.log(msg, T.MessageType.Warning)
        try:
            self.window_show_message(T.ShowMessageParams(type=T.MessageType.Warning, message=msg))
        except Exception:
            pass

    def snapshot(self, uri: str) -> Snapshot:
        st = self.docs[uri]
        overlay, versions = {}, {}
        for u, s in self.docs.items():
            d = self.workspace.get_text_document(u)
            overlay[s.path] = d.source
            if d.version is not None:
                versions[s.path] = d.version
        d = self.workspace.get_text_document(uri)
        return Snapshot(uri, st.path, st.kind, d.version, self.key_for(uri), overlay, versions,
                        self.lint_settings_for(st.path), self.lang, self.encoder(),
                        self.root or os.path.dirname(st.path))

    # ---------------------------------------------------------------- linting
    def compute(self, snap: Snapshot) -> LintResult:
        """Runs in the lint thread."""
        t0 = time.perf_counter()
        provider = DiskProvider(dict(snap.overlay))
        project = project_for_file(snap.path, settings=snap.settings, provider=provider, cwd=snap.cwd,
                                   is_cfg=snap.kind == "cfg")
        outcome = lint_project(project, lang=snap.lang, paths=[snap.path])
        for err in outcome.errors:
            self.log(f"nnie-lint rule crashed on {snap.path}: {err}", T.MessageType.Error)
        indexes: dict[str, LineIndex | None] = {}
        if project.cfg is not None and project.cfg.path:
            indexes[project.cfg.path] = project.cfg.line_index
        if project.prototxt is not None and project.prototxt.path:
            indexes[project.prototxt.path] = project.prototxt.line_index

        def lines(p: str) -> LineIndex | None:
            ap = os.path.abspath(p)
            if ap not in indexes:
                dec = provider.read_text(ap)
                indexes[ap] = LineIndex(dec.text) if dec is not None else None
            return indexes[ap]

        lsp = [to_lsp_diagnostic(d, lines, snap.encoder, snap.versions) for d in outcome.diagnostics]
        members = frozenset(p for p in (project.cfg_path, project.prototxt_path) if p)
        return LintResult(snap.key, snap.version, outcome.diagnostics, lsp, members, project,
                          time.perf_counter() - t0)

    async def ensure_result(self, uri: str, *, force: bool = False) -> LintResult | None:
        """The lint result for the current state of `uri` (computed off the event loop)."""
        if uri not in self.docs:
            return None
        key = self.key_for(uri)
        cached = self.results.get(uri)
        if cached is not None and (cached.key == key or (self.settings.run == "onSave" and not force
                                                          and cached.key[0] == key[0])):
            return cached
        fkey = (uri, key)
        fut = self.inflight.get(fkey)
        if fut is None:
            snap = self.snapshot(uri)
            loop = asyncio.get_running_loop()
            fut = loop.run_in_executor(self.lint_pool, self.compute, snap)
            self.inflight[fkey] = fut
            fut.add_done_callback(lambda _f, k=fkey: self.inflight.pop(k, None))
        try:
            res = await asyncio.shield(fut)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            st = self.docs.get(uri)
            self.log(i18n.t("server.lint_failed", self.lang, file=st.path if st else uri, error=repr(exc))
                     + "\n" + traceback.format_exc(), T.MessageType.Error)
            return self.results.get(uri)
        if uri in self.docs and res.key == self.key_for(uri):
            self.results[uri] = res
        elif uri in self.docs and self.settings.run == "onSave":
            self.results[uri] = res
        return res

    def triage_diagnostics(self, uri: str) -> list[T.Diagnostic]:
        st = self.docs.get(uri)
        if st is None or st.kind != "prototxt":
            return []
        tri = self.triage.get(st.path)
        if tri is None:
            return []
        text, _ = self.doc_text(uri)
        doc, _g = cached_prototxt(text, st.path)
        enc = self.encoder()
        out = []
        for note in ft.annotations(tri.result, doc, self.lang):
            if note.message is None:
                continue
            out.append(T.Diagnostic(range=enc.range(doc.line_index, note.range), message=note.message,
                                    severity=T.DiagnosticSeverity(int(note.severity)), source=TRIAGE_SOURCE,
                                    code="triage", data={"layer": note.layer}))
        return out

    def publish(self, uri: str, res: LintResult | None) -> None:
        items = list(res.lsp) if res is not None else []
        try:
            items += self.triage_diagnostics(uri)
        except Exception as exc:
            self.log(f"triage annotations failed: {exc!r}", T.MessageType.Error)
        self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(
            uri=uri, diagnostics=items, version=res.version if res is not None else None))

    async def lint_and_publish(self, uri: str, *, related: bool, force: bool = False) -> None:
        before = set(self.related_uris(uri)) if related else set()
        res = await self.ensure_result(uri, force=force)
        if res is None or uri not in self.docs:
            return
        stale = res.key != self.key_for(uri) and self.settings.run != "onSave"
        if stale:
            return  # a newer request is scheduled
        if not self.pull:
            self.publish(uri, res)
        if TIMING:
            self.log(f"timing: lint {res.elapsed * 1000:.1f} ms for version {res.version} of {uri}")
        if related:
            others = before | {u for u, s in self.docs.items() if s.path in res.members and u != uri}
            for other in others:
                if not self.pull:
                    self.schedule(other, 0.0, related=False, force=force)
            if others and self.pull:
                self.refresh_pull()

    def related_uris(self, uri: str) -> list[str]:
        st = self.docs.get(uri)
        if st is None:
            return []
        return [u for u, r in self.results.items() if u != uri and u in self.docs and st.path in r.members]

    def schedule(self, uri: str, delay: float, *, related: bool = True, force: bool = False) -> None:
        old = self.tasks.pop(uri, None)
        if old is not None and not old.done():
            old.cancel()

        async def run():
            try:
                if delay > 0:
                    await asyncio.sleep(delay)
                await self.lint_and_publish(uri, related=related, force=force)
            except asyncio.CancelledError:
                pass
            except Exception as exc:
                self.log(i18n.t("server.lint_failed", self.lang, file=uri, error=repr(exc)) + "\n"
                         + traceback.format_exc(), T.MessageType.Error)
            finally:
                if self.tasks.get(uri) is task:
                    self.tasks.pop(uri, None)

        task = asyncio.ensure_future(run())
        self.tasks[uri] = task

    def on_change(self, uri: str) -> None:
        """Debounce with a leading edge: an isolated edit is linted at once, a burst of edits
        once it pauses for `debounce` ms."""
        now = time.monotonic()
        debounce = self.settings.debounce_ms / 1000.0
        prev = self.last_change.get(uri)
        self.last_change[uri] = now
        busy = uri in self.tasks and not self.tasks[uri].done()
        delay = debounce if (busy or (prev is not None and now - prev < debounce)) else 0.0
        if self.pull:
            if any(u != uri for u in self.docs):
                self.schedule_refresh(delay)
            return
        self.schedule(uri, delay)

    _refresh_task: asyncio.Task | None = None

    def schedule_refresh(self, delay: float) -> None:
        if self._refresh_task is not None and not self._refresh_task.done():
            self._refresh_task.cancel()

        async def run():
            try:
                await asyncio.sleep(max(delay, 0.05))
                self.refresh_pull()
            except asyncio.CancelledError:
                pass

        self._refresh_task = asyncio.ensure_future(run())

    def refresh_pull(self) -> None:
        if get_capability(self.client_capabilities, "workspace.diagnostics.refresh_support", False):
            try:
                self.workspace_diagnostic_refresh(None)
            except Exception as exc:
                self.log(f"diagnostic refresh failed: {exc!r}", T.MessageType.Warning)

    def relint_all(self) -> None:
        self.base_settings.clear()
        if self.pull:
            self.refresh_pull()
            return
        for uri in list(self.docs):
            self.schedule(uri, 0.0, related=False, force=True)

    # ---------------------------------------------------------------- settings
    def apply_settings(self, raw: Any) -> None:
        mapping = unwrap(raw)
        try:
            self.settings = parse_settings(mapping, self.lang)
        except SettingsError as exc:
            self.settings = ServerSettings()
            self.show_settings_error(str(exc))
        self.lang = choose_language(self.settings.language, self.locale, self.cli_lang)
        self.settings_gen += 1
        self.base_settings.clear()

    async def fetch_configuration(self) -> None:
        if not get_capability(self.client_capabilities, "workspace.configuration", False):
            return
        try:
            values = await asyncio.wait_for(self.workspace_configuration_async(T.ConfigurationParams(
                items=[T.ConfigurationItem(section="nnie")])), timeout=5)
        except Exception as exc:
            self.log(f"workspace/configuration failed: {exc!r}", T.MessageType.Warning)
            return
        value = values[0] if values else None
        if value is not None:
            self.apply_settings(value)
            self.relint_all()

    # ---------------------------------------------------------------- helpers for features
    async def project_for(self, uri: str) -> Project | None:
        res = self.results.get(uri)
        if res is not None and res.key == self.key_for(uri):
            return res.project
        if uri not in self.docs:
            return None
        snap = self.snapshot(uri)
        loop = asyncio.get_running_loop()

        def build():
            return project_for_file(snap.path, settings=snap.settings, provider=DiskProvider(snap.overlay),
                                    cwd=snap.cwd, is_cfg=snap.kind == "cfg")
        return await loop.run_in_executor(self.aux_pool, build)

    async def prototxt_model(self, uri: str):
        st = self.docs.get(uri)
        if st is None or st.kind != "prototxt":
            return None
        text, _ = self.doc_text(uri)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.aux_pool, cached_prototxt, text, st.path)

    def line_index_for_path(self, path: str) -> LineIndex | None:
        uri = self.uri_for_path(path)
        if uri is not None:
            return LineIndex(self.doc_text(uri)[0])
        try:
            with open(path, "rb") as fh:
                return LineIndex(decode(fh.read()).text)
        except OSError:
            return None

    def to_code_action(self, action: fa.Action, diagnostics: list[T.Diagnostic] | None) -> T.CodeAction:
        enc = self.encoder()
        changes: dict[str, list[T.TextEdit]] = {}
        for path, edits in action.edits.items():
            li = self.line_index_for_path(path)
            changes[uri_of(path)] = [T.TextEdit(range=enc.range(li, e.range), new_text=edit_text(e.new_text, li))
                                     for e in edits]
        return T.CodeAction(title=action.title, kind=action.kind, diagnostics=diagnostics or None,
                            is_preferred=action.preferred or None, edit=T.WorkspaceEdit(changes=changes))


server = NnieLanguageServer()


def _fail(message: str) -> JsonRpcException:
    return JsonRpcException(message=message, code=REQUEST_FAILED)


def _guard(method: str):
    """Log unexpected exceptions of a request handler (pygls turns them into an error response)."""
    def deco(fn):
        import functools

        @functools.wraps(fn)
        async def wrapper(ls, params):
            try:
                return await fn(ls, params)
            except JsonRpcException:
                raise
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                ls.log(i18n.t("server.handler_failed", ls.lang, method=method, error=repr(exc)) + "\n"
                       + traceback.format_exc(), T.MessageType.Error)
                raise
        return wrapper
    return deco


# ---------------------------------------------------------------------------- lifecycle

@server.feature(T.INITIALIZE)
def initialize(ls: NnieLanguageServer, params: T.InitializeParams) -> None:
    ls._loop = asyncio.get_event_loop()
    ls.locale = params.locale
    if params.root_uri:
        ls.root = to_fs_path(params.root_uri)
    elif params.root_path:
        ls.root = params.root_path
    ls.apply_settings(params.initialization_options)
    ls.pull = get_capability(params.capabilities, "text_document.diagnostic", None) is not None
    if ls.pull:
        ls.feature(T.TEXT_DOCUMENT_DIAGNOSTIC, T.DiagnosticOptions(
            identifier="nnie-lint", inter_file_dependencies=True, workspace_diagnostics=False))(pull_diagnostics)
    ls.log(f"nnie-lsp {VERSION}: {'pull' if ls.pull else 'push'} diagnostics, language {ls.lang}, "
           f"position encoding {ls.encoder().encoding}")


@server.feature(T.INITIALIZED)
async def initialized(ls: NnieLanguageServer, params: T.InitializedParams) -> None:
    if get_capability(ls.client_capabilities, "workspace.did_change_configuration.dynamic_registration", False):
        try:
            await asyncio.wait_for(ls.client_register_capability_async(T.RegistrationParams(registrations=[
                T.Registration(id=str(uuid.uuid4()), method=T.WORKSPACE_DID_CHANGE_CONFIGURATION)])), timeout=5)
        except Exception as exc:
            ls.log(f"could not register for configuration changes: {exc!r}", T.MessageType.Info)
    await ls.fetch_configuration()


@server.feature(T.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(ls: NnieLanguageServer, params: T.DidChangeConfigurationParams) -> None:
    if get_capability(ls.client_capabilities, "workspace.configuration", False):
        await ls.fetch_configuration()
        return
    settings = params.settings
    if isinstance(settings, dict) and "nnie" in settings:
        ls.apply_settings(settings["nnie"])
        ls.relint_all()


# ---------------------------------------------------------------------------- document sync

@server.feature(T.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: NnieLanguageServer, params: T.DidOpenTextDocumentParams) -> None:
    td = params.text_document
    st = ls.track(td.uri, td.language_id, td.text)
    if st is None:
        return
    if not ls.pull:
        ls.schedule(td.uri, 0.0, related=True, force=True)
    else:
        ls.schedule_refresh(0.0) if len(ls.docs) > 1 else None


@server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: NnieLanguageServer, params: T.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    if uri not in ls.docs:
        d = ls.workspace.get_text_document(uri)
        if ls.track(uri, d.language_id, d.source) is None:
            return
    if ls.settings.run == "onSave":
        return
    ls.on_change(uri)


@server.feature(T.TEXT_DOCUMENT_DID_SAVE, T.SaveOptions(include_text=False))
def did_save(ls: NnieLanguageServer, params: T.DidSaveTextDocumentParams) -> None:
    uri = params.text_document.uri
    if uri not in ls.docs:
        return
    if ls.settings.run == "onSave":
        if ls.pull:
            async def redo():
                await ls.ensure_result(uri, force=True)
                ls.refresh_pull()
            asyncio.ensure_future(redo())
        else:
            ls.schedule(uri, 0.0, related=True, force=True)


@server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: NnieLanguageServer, params: T.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    st = ls.docs.pop(uri, None)
    ls.results.pop(uri, None)
    task = ls.tasks.pop(uri, None)
    if task is not None:
        task.cancel()
    if st is None:
        return
    if not ls.pull:
        ls.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        for u, r in list(ls.results.items()):
            if st.path in r.members:
                ls.schedule(u, 0.0, related=False, force=True)
    elif ls.docs:
        ls.refresh_pull()


async def pull_diagnostics(ls: NnieLanguageServer, params: T.DocumentDiagnosticParams):
    uri = params.text_document.uri
    if uri not in ls.docs:
        return T.RelatedFullDocumentDiagnosticReport(items=[], result_id="none")
    res = await ls.ensure_result(uri)
    items = list(res.lsp) if res is not None else []
    items += ls.triage_diagnostics(uri)
    digest = hashlib.blake2b(json.dumps(ls.protocol._converter.unstructure(items), sort_keys=True,
                                        default=str).encode(), digest_size=12).hexdigest()
    if params.previous_result_id == digest:
        return T.RelatedUnchangedDocumentDiagnosticReport(result_id=digest)
    return T.RelatedFullDocumentDiagnosticReport(items=items, result_id=digest)


# ---------------------------------------------------------------------------- code actions

def _kind_wanted(kind: str, only) -> bool:
    if not only:
        return True
    return any(kind == o or kind.startswith(str(o) + ".") for o in only)


@server.feature(T.TEXT_DOCUMENT_CODE_ACTION, T.CodeActionOptions(
    code_action_kinds=[T.CodeActionKind.QuickFix, T.CodeActionKind.SourceFixAll, FIX_ALL_KIND],
    resolve_provider=False))
@_guard("textDocument/codeAction")
async def code_action(ls: NnieLanguageServer, params: T.CodeActionParams):
    uri = params.text_document.uri
    st = ls.docs.get(uri)
    if st is None:
        return None
    only = params.context.only
    out: list[T.CodeAction] = []
    text, _version = ls.doc_text(uri)
    li = LineIndex(text)
    if _kind_wanted("quickfix", only):
        disabled = set()
        for d in params.context.diagnostics:
            if d.source != "nnie-lint" or not d.code:
                continue
            data = d.data if isinstance(d.data, dict) else {}
            fix_data = data.get("fix")
            if fix_data:
                try:
                    fix = fa.fix_from_data(fix_data)
                except (KeyError, ValueError, TypeError) as exc:
                    ls.log(f"ignoring malformed fix data: {exc!r}", T.MessageType.Warning)
                    fix = None
                stale = False
                for p, v in (data.get("versions") or {}).items():
                    u = ls.uri_for_path(p)
                    if u is not None and ls.workspace.get_text_document(u).version != v:
                        stale = True
                if fix is not None and not stale:
                    out.append(ls.to_code_action(fa.fix_action(fix, str(d.code), ls.lang), [d]))
            key = (str(d.code), d.range.start.line)
            if key not in disabled:
                disabled.add(key)
                action = fa.disable_action(st.path, text, d.range.start.line, str(d.code), st.kind, ls.lang, li)
                out.append(ls.to_code_action(action, [d]))
    if _kind_wanted(FIX_ALL_KIND, only):
        res = await ls.ensure_result(uri, force=True)
        if res is not None:
            action = fa.fix_all(res.engine, st.path, ls.lang)
            if action is not None:
                out.append(ls.to_code_action(action, None))
    return out


# ---------------------------------------------------------------------------- hover / completion

@dataclass
class _At:
    """What a position request works on: the document, its parsed model, the cursor."""

    st: DocState
    li: LineIndex
    pos: Position | None
    project: object = None   # cfg documents: the Project (cfg + prototxt + files)
    doc: object = None       # prototxt documents: PrototxtDocument and NetGraph
    graph: object = None


async def _at(ls: NnieLanguageServer, uri: str, position: T.Position | None = None,
              kind: str | None = None) -> _At | None:
    """The open document at `uri` (optionally only of `kind`), parsed, with the cursor converted."""
    st = ls.docs.get(uri)
    if st is None or (kind is not None and st.kind != kind):
        return None
    enc = ls.encoder()
    if st.kind == "cfg":
        project = await ls.project_for(uri)
        if project is None or project.cfg is None:
            return None
        li = project.cfg.line_index
        return _At(st, li, enc.from_lsp(li, position) if position else None, project=project)
    model = await ls.prototxt_model(uri)
    if model is None:
        return None
    doc, graph = model
    li = doc.line_index
    return _At(st, li, enc.from_lsp(li, position) if position else None, doc=doc, graph=graph)


@server.feature(T.TEXT_DOCUMENT_HOVER)
@_guard("textDocument/hover")
async def hover(ls: NnieLanguageServer, params: T.HoverParams):
    at = await _at(ls, params.text_document.uri, params.position)
    if at is None:
        return None
    if at.project is not None:
        hit = fh.cfg_hover(at.project, at.pos, ls.lang)
    else:
        hit = fh.prototxt_hover(at.doc, at.graph, at.pos, ls.lang)
    if hit is None:
        return None
    md, rng = hit
    return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=md), range=ls.encoder().range(at.li, rng))


_COMPLETION_KINDS = {
    "key": T.CompletionItemKind.Property, "value": T.CompletionItemKind.Value,
    "enum": T.CompletionItemKind.EnumMember, "type": T.CompletionItemKind.Class,
    "field": T.CompletionItemKind.Field, "message": T.CompletionItemKind.Struct,
    "blob": T.CompletionItemKind.Variable,
}


@server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=["[", '"', ":", " "]))
@_guard("textDocument/completion")
async def completion(ls: NnieLanguageServer, params: T.CompletionParams):
    uri = params.text_document.uri
    st = ls.docs.get(uri)
    if st is None:
        return None
    enc = ls.encoder()
    snippets = bool(get_capability(ls.client_capabilities,
                                   "text_document.completion.completion_item.snippet_support", False))
    text, _ = ls.doc_text(uri)
    if st.kind == "cfg":
        li = LineIndex(text)
        pos = enc.from_lsp(li, params.position)
        items = fc.cfg_completions(li.line_text(pos.line), pos, ls.lang, snippets,
                                   base_dir=os.path.dirname(st.path) if st.path else None)
    else:
        model = await ls.prototxt_model(uri)
        if model is None:
            return None
        doc, graph = model
        li = doc.line_index
        pos = enc.from_lsp(li, params.position)
        items = fc.prototxt_completions(doc, graph, pos, ls.lang)
    out = []
    for it in items:
        ins = it.insert_text
        fmt = T.InsertTextFormat.PlainText
        if it.snippet:
            if snippets:
                fmt = T.InsertTextFormat.Snippet
            else:
                ins = fc.plain_from_snippet(ins)
        out.append(T.CompletionItem(
            label=it.label, kind=_COMPLETION_KINDS.get(it.kind), detail=it.detail or None,
            documentation=T.MarkupContent(kind=T.MarkupKind.Markdown, value=it.documentation) if it.documentation else None,
            sort_text=it.sort_text, filter_text=it.filter_text, insert_text_format=fmt,
            text_edit=T.TextEdit(range=enc.range(li, it.replace), new_text=ins)))
    return T.CompletionList(is_incomplete=False, items=out)


# ---------------------------------------------------------------------------- navigation

def _locations(ls: NnieLanguageServer, locs: list[fn.Location], li_default: LineIndex | None, default_path: str):
    enc = ls.encoder()
    out = []
    for loc in locs:
        li = li_default if os.path.abspath(loc.path) == default_path else ls.line_index_for_path(loc.path)
        out.append(T.Location(uri=uri_of(loc.path), range=enc.range(li, loc.range)))
    return out


@server.feature(T.TEXT_DOCUMENT_DEFINITION)
@_guard("textDocument/definition")
async def definition(ls: NnieLanguageServer, params: T.DefinitionParams):
    at = await _at(ls, params.text_document.uri, params.position)
    if at is None:
        return None
    if at.project is not None:
        locs = fn.cfg_definition(at.project, at.pos)
    else:
        locs = fn.prototxt_definition(at.doc, at.graph, at.pos)
    return _locations(ls, locs, at.li, at.st.path) or None


@server.feature(T.TEXT_DOCUMENT_REFERENCES)
@_guard("textDocument/references")
async def references(ls: NnieLanguageServer, params: T.ReferenceParams):
    at = await _at(ls, params.text_document.uri, params.position, kind="prototxt")
    if at is None:
        return None
    locs = fn.blob_references(at.doc, at.pos, params.context.include_declaration)
    return _locations(ls, locs, at.li, at.st.path) or None


@server.feature(T.TEXT_DOCUMENT_PREPARE_RENAME)
@_guard("textDocument/prepareRename")
async def prepare_rename(ls: NnieLanguageServer, params: T.PrepareRenameParams):
    at = await _at(ls, params.text_document.uri, params.position, kind="prototxt")
    if at is None:
        return None
    hit = fn.rename_placeholder(at.doc, at.pos)
    if hit is None:
        return None
    rng, name = hit
    return T.PrepareRenamePlaceholder(range=ls.encoder().range(at.li, rng), placeholder=name)


@server.feature(T.TEXT_DOCUMENT_RENAME, T.RenameOptions(prepare_provider=True))
@_guard("textDocument/rename")
async def rename(ls: NnieLanguageServer, params: T.RenameParams):
    uri = params.text_document.uri
    at = await _at(ls, uri, params.position, kind="prototxt")
    if at is None:
        raise _fail(i18n.t("rename.nothing", ls.lang))
    enc = ls.encoder()
    try:
        edits = fn.rename(at.doc, at.graph, at.pos, params.new_name, ls.lang)
    except fn.RenameError as exc:
        raise _fail(str(exc)) from None
    return T.WorkspaceEdit(changes={uri: [T.TextEdit(range=enc.range(at.li, e.range), new_text=e.new_text)
                                          for e in edits]})


_SYMBOL_KINDS = {"layer": T.SymbolKind.Class, "input": T.SymbolKind.Variable, "key": T.SymbolKind.Property}


@server.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
@_guard("textDocument/documentSymbol")
async def document_symbol(ls: NnieLanguageServer, params: T.DocumentSymbolParams):
    uri = params.text_document.uri
    st = ls.docs.get(uri)
    if st is None:
        return None
    text, _ = ls.doc_text(uri)
    if st.kind == "cfg":
        cfg = cached_cfg(text, st.path)
        li, syms = cfg.line_index, fn.cfg_symbols(cfg)
    else:
        doc, graph = await ls.prototxt_model(uri)
        li, syms = doc.line_index, fn.prototxt_symbols(doc, graph)
    enc = ls.encoder()
    return [T.DocumentSymbol(name=s.name or "?", detail=s.detail or None, kind=_SYMBOL_KINDS[s.kind],
                             range=enc.range(li, s.range), selection_range=enc.range(li, s.selection_range))
            for s in syms]


@server.feature(T.TEXT_DOCUMENT_DOCUMENT_LINK)
@_guard("textDocument/documentLink")
async def document_link(ls: NnieLanguageServer, params: T.DocumentLinkParams):
    at = await _at(ls, params.text_document.uri, kind="cfg")
    if at is None:
        return None
    enc = ls.encoder()
    return [T.DocumentLink(range=enc.range(at.li, k.range), target=uri_of(k.target)) for k in fn.cfg_links(at.project)]


@server.feature(T.TEXT_DOCUMENT_FOLDING_RANGE)
@_guard("textDocument/foldingRange")
async def folding_range(ls: NnieLanguageServer, params: T.FoldingRangeParams):
    uri = params.text_document.uri
    st = ls.docs.get(uri)
    if st is None:
        return None
    text, _ = ls.doc_text(uri)
    if st.kind == "cfg":
        folds = fn.cfg_folding(cached_cfg(text, st.path))
    else:
        doc, _graph = await ls.prototxt_model(uri)
        folds = fn.prototxt_folding(doc)
    return [T.FoldingRange(start_line=f.start_line, end_line=f.end_line,
                           kind=T.FoldingRangeKind.Comment if f.kind == "comment" else T.FoldingRangeKind.Region)
            for f in folds]


# ---------------------------------------------------------------------------- formatting

@server.feature(T.TEXT_DOCUMENT_FORMATTING)
@_guard("textDocument/formatting")
async def formatting(ls: NnieLanguageServer, params: T.DocumentFormattingParams):
    uri = params.text_document.uri
    st = ls.docs.get(uri)
    if st is None or st.kind != "prototxt":
        return None
    text, _ = ls.doc_text(uri)
    loop = asyncio.get_running_loop()
    edits = await loop.run_in_executor(ls.aux_pool, format_edits, text)
    if edits is None:
        doc, _g = await ls.prototxt_model(uri)
        first = doc.syntax_errors[0] if doc.syntax_errors else None
        msg = i18n.t("format.syntax_errors", ls.lang, file=os.path.basename(st.path),
                     line=first.range.start.line + 1 if first else "?", message=first.message if first else "")
        ls.window_show_message(T.ShowMessageParams(type=T.MessageType.Warning, message=msg))
        raise _fail(msg)
    li = LineIndex(text)
    enc = ls.encoder()
    return [T.TextEdit(range=enc.range(li, e.range), new_text=e.new_text) for e in edits]


# ---------------------------------------------------------------------------- inlay hints + triage

@server.feature(T.TEXT_DOCUMENT_INLAY_HINT)
@_guard("textDocument/inlayHint")
async def inlay_hint(ls: NnieLanguageServer, params: T.InlayHintParams):
    uri = params.text_document.uri
    st = ls.docs.get(uri)
    if st is None or st.kind != "prototxt" or st.path not in ls.triage:
        return None
    doc, _graph = await ls.prototxt_model(uri)
    enc = ls.encoder()
    lo, hi = params.range.start.line, params.range.end.line
    out = []
    for note in ft.annotations(ls.triage[st.path].result, doc, ls.lang):
        if lo <= note.hint_at.line <= hi:
            out.append(T.InlayHint(position=enc.position(doc.line_index, note.hint_at), label=note.label,
                                   padding_left=True, tooltip=note.message))
    return out


@server.command("nnie.triage")
async def nnie_triage(ls: NnieLanguageServer, *args):
    try:
        targs = ft.TriageArgs.parse(list(args), ls.root)
    except ft.TriageArgsError as exc:
        raise JsonRpcInvalidParams(i18n.t("triage.bad_args", ls.lang, error=str(exc))) from None
    prototxt = targs.prototxt
    if prototxt is None and targs.cfg:
        try:
            project = project_for_file(targs.cfg, settings=LintSettings(), provider=DiskProvider(
                {s.path: ls.doc_text(u)[0] for u, s in ls.docs.items()}), is_cfg=True)
            prototxt = project.prototxt_path
        except Exception:
            prototxt = None
        if prototxt:
            import dataclasses
            targs = dataclasses.replace(targs, prototxt=prototxt)
    token = str(uuid.uuid4())
    progress = bool(get_capability(ls.client_capabilities, "window.work_done_progress", False))
    title = i18n.t("triage.title", ls.lang)
    cancelled = False
    proc: asyncio.subprocess.Process | None = None
    if progress:
        try:
            await ls.work_done_progress.create_async(token)
            ls.work_done_progress.begin(token, T.WorkDoneProgressBegin(title=title, cancellable=True,
                                                                       message=os.path.basename(targs.sim)))
        except Exception as exc:
            ls.log(f"work-done progress unavailable: {exc!r}", T.MessageType.Info)
            progress = False
    cmd = ft.triage_command(targs)
    ls.log("running " + " ".join(cmd))
    try:
        proc = await asyncio.create_subprocess_exec(*cmd, stdout=asyncio.subprocess.PIPE,
                                                    stderr=asyncio.subprocess.PIPE, stdin=asyncio.subprocess.DEVNULL)
        fut = ls.work_done_progress.tokens.get(token) if progress else None

        def on_cancel(f):
            nonlocal cancelled
            if f.cancelled() and proc is not None and proc.returncode is None:
                cancelled = True
                try:
                    proc.kill()
                except ProcessLookupError:
                    pass
        if fut is not None:
            fut.add_done_callback(on_cancel)
        comm = asyncio.ensure_future(proc.communicate())
        t0 = time.monotonic()
        while not comm.done():
            await asyncio.wait({comm}, timeout=1.0)
            if progress and not comm.done():
                ls.work_done_progress.report(token, T.WorkDoneProgressReport(
                    message=i18n.t("triage.running", ls.lang, seconds=int(time.monotonic() - t0))))
        out, err = comm.result()
    except asyncio.CancelledError:
        if proc is not None and proc.returncode is None:
            proc.kill()
        raise
    if cancelled:
        if progress:
            ls.work_done_progress.end(token, T.WorkDoneProgressEnd(message=i18n.t("triage.cancelled", ls.lang)))
        raise JsonRpcRequestCancelled("nnie.triage cancelled")
    if proc.returncode != 0:
        msg = i18n.t("triage.failed", ls.lang, code=proc.returncode,
                     error=err.decode("utf-8", "replace").strip()[-2000:])
        if progress:
            ls.work_done_progress.end(token, T.WorkDoneProgressEnd(message=msg[:200]))
        ls.window_show_message(T.ShowMessageParams(type=T.MessageType.Error, message=msg))
        raise _fail(msg)
    try:
        result = json.loads(out.decode("utf-8"))
    except ValueError as exc:
        msg = i18n.t("triage.failed", ls.lang, code=0, error=f"invalid JSON: {exc}")
        if progress:
            ls.work_done_progress.end(token, T.WorkDoneProgressEnd(message=msg[:200]))
        raise _fail(msg) from None
    if prototxt is None and isinstance(result.get("inputs"), dict):
        prototxt = result["inputs"].get("prototxt")
    if prototxt:
        path = os.path.abspath(prototxt)
        ls.triage[path] = TriageState(result, path)
        uri = ls.uri_for_path(path)
        if uri is not None:
            if ls.pull:
                ls.refresh_pull()
            else:
                ls.publish(uri, ls.results.get(uri))
            if get_capability(ls.client_capabilities, "workspace.inlay_hint.refresh_support", False):
                try:
                    ls.workspace_inlay_hint_refresh(None)
                except Exception:
                    pass
    if progress:
        ls.work_done_progress.end(token, T.WorkDoneProgressEnd(
            message=i18n.t("triage.done", ls.lang, verdict=str(result.get("verdict") or result.get("case")))))
    return result

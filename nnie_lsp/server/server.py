"""The language server object: it holds the stores and the settings and talks to the client.

The parts, one job each:

- :mod:`.documents` — the open documents (one record each: path, kind, lint state);
- :mod:`.diagnostic_store` — LSP diagnostics by (source, uri), read by push and pull alike;
- :mod:`.scheduler` — debounce, linting off the event loop, stale results dropped;
- :mod:`.triage.runner` — the ``nnie.triage``, ``nnie.reference``, ``nnie.emulate`` jobs
  (``nnie-triage`` in a subprocess with the tool's progress, cancellable: :mod:`.triage.jobs`);
  :mod:`.triage.results` — stored triage results shown on the open documents (diagnostics, code
  lens, stale marks);
- :mod:`.handlers` — the LSP methods, calling :mod:`nnie_lsp.editor` for the logic;
- :mod:`.convert` — engine objects to LSP types; :mod:`.config` — the ``nnie`` settings section.

Push or pull, never both: diagnostics are pulled when the client supports
``textDocument/diagnostic`` *and* ``workspace/diagnostic/refresh`` (the server must be able to say
"pull again" when findings change without an edit: a triage run, a stored result going stale, a
cfg edit changing its prototxt's findings), and pushed otherwise — Neovim 0.11 pulls only after
its own edits, so it is pushed to.
"""

from __future__ import annotations

import asyncio
import os
import traceback
from typing import Any

from lsprotocol import types as lsp
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from nnie_lsp import __version__ as VERSION
from nnie_lsp.core import i18n
from nnie_lsp.project.settings import LintSettings, SettingsError, load_settings
from nnie_lsp.server.config import ServerSettings, choose_language, parse_settings, unwrap
from nnie_lsp.server.convert import Encoder
from nnie_lsp.server.diagnostic_store import DiagnosticStore
from nnie_lsp.server.documents import DocumentStore
from nnie_lsp.server.protocol import NnieProtocol, install_log_filter, is_expected
from nnie_lsp.server.scheduler import LintScheduler
from nnie_lsp.server.triage.runner import TriageRunner
from nnie_lsp.server.workspace_lint import WorkspaceLinter

CONFIGURATION_TIMEOUT = 5  # seconds to wait for workspace/configuration


class NnieLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("nnie-lsp", VERSION, protocol_cls=NnieProtocol, max_workers=4)
        install_log_filter()
        self.documents = DocumentStore(lambda uri: self.workspace.get_text_document(uri))
        self.diagnostics = DiagnosticStore()
        self.scheduler = LintScheduler(self)
        self.triage = TriageRunner(self)
        self.workspace_lint = WorkspaceLinter(self)
        self.settings = ServerSettings()
        self.settings_gen = 0                 # bumped by every settings change: all lints are stale
        self.locale: str | None = None
        self.cli_lang: str | None = None
        self.lang = "en"
        self.pull = False                     # the client pulls diagnostics (else they are pushed)
        self.root: str | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._lint_settings: dict[str, LintSettings] = {}     # directory -> pyproject + editor settings
        self._settings_errors_shown: set[str] = set()

    # ---------------------------------------------------------------- logging
    def log(self, message: str, kind: lsp.MessageType = lsp.MessageType.Log) -> None:
        """window/logMessage, from any thread."""
        def send():
            try:
                self.window_log_message(lsp.LogMessageParams(type=kind, message=message))
            except Exception:  # transport gone
                pass
        loop = self.loop
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
        if isinstance(error, ValueError) and (type(error).__name__ == "JSONDecodeError"
                                              or isinstance(error, UnicodeDecodeError)):
            reject = getattr(self.protocol, "reject_unreadable_body", None)
            if reject is not None:  # malformed input from the client, not a server bug
                reject(error)
                return
        if is_expected(error):
            # bad arguments, a refused or failed job, a Cancel: the client got the message as the
            # error response; one line in the log (none when the command already wrote it)
            if not getattr(error, "nnie_logged", False):
                text = " | ".join(line.strip() for line in str(getattr(error, "message", error)).splitlines()
                                  if line.strip())
                self.log(f"request ended: {text}", lsp.MessageType.Info)
            return
        text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        self.log(f"nnie-lsp internal error ({getattr(source, '__name__', source)}): {error}\n{text}",
                 lsp.MessageType.Error)

    def outcome(self, command: str, error: JsonRpcException) -> JsonRpcException:
        """Log an expected outcome of `command` as one line (cancelled: Info; else Warning) and
        return `error`, marked so that :meth:`report_server_error` does not log it again."""
        cancelled = error.code == -32800
        text = " | ".join(line.strip() for line in str(error.message).splitlines() if line.strip())
        self.log(f"{command}: {text}", lsp.MessageType.Info if cancelled else lsp.MessageType.Warning)
        error.nnie_logged = True
        return error

    def client_shows_outcomes(self) -> bool:
        """The client shows every command's outcome itself (the VS Code client says so with
        ``experimental.nnie.commandOutcomes``): the server then sends no window/showMessage of its
        own for it, so that each event is one notification."""
        experimental = getattr(self.client_capabilities, "experimental", None)
        nnie = experimental.get("nnie") if isinstance(experimental, dict) else None
        return isinstance(nnie, dict) and bool(nnie.get("commandOutcomes"))

    def encoder(self) -> Encoder:
        return Encoder(self.workspace.position_encoding)

    # ---------------------------------------------------------------- settings
    def lint_settings_for(self, path: str) -> LintSettings:
        """``[tool.nnie-lint]`` of the nearest pyproject.toml, then the editor settings."""
        directory = os.path.dirname(path)
        hit = self._lint_settings.get(directory)
        if hit is not None:
            return hit
        try:
            base = load_settings(directory)
        except SettingsError as exc:
            if str(exc) not in self._settings_errors_shown:
                self._settings_errors_shown.add(str(exc))
                self.show_settings_error(str(exc))
            base = LintSettings()
        try:
            settings = self.settings.lint_settings(base)
        except SettingsError as exc:  # validated earlier; defensive
            self.show_settings_error(str(exc))
            settings = base
        settings = settings.merged(lang=self.lang)
        self._lint_settings[directory] = settings
        return settings

    def show_settings_error(self, error: str) -> None:
        message = i18n.t("settings.invalid", self.lang, error=error)
        self.log(message, lsp.MessageType.Warning)
        try:
            self.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=message))
        except Exception:
            pass

    def apply_settings(self, raw: Any) -> None:
        """New editor settings (invalid ones: a message, then the defaults)."""
        try:
            self.settings = parse_settings(unwrap(raw), self.lang)
        except SettingsError as exc:
            self.settings = ServerSettings()
            self.show_settings_error(str(exc))
        self.lang = choose_language(self.settings.language, self.locale, self.cli_lang)
        self.settings_gen += 1
        self._lint_settings.clear()

    def settings_changed(self) -> None:
        """pyproject.toml or the editor settings changed: lint everything again (the workspace's
        unopened files too, when ``lint.workspace`` is on)."""
        self._lint_settings.clear()
        self.scheduler.relint_all()
        self.workspace_lint.settings_changed()

    async def fetch_configuration(self) -> bool:
        """Read the ``nnie`` section; whether settings were applied (and everything linted again)."""
        if not get_capability(self.client_capabilities, "workspace.configuration", False):
            return False
        try:
            values = await asyncio.wait_for(self.workspace_configuration_async(lsp.ConfigurationParams(
                items=[lsp.ConfigurationItem(section="nnie")])), timeout=CONFIGURATION_TIMEOUT)
        except Exception as exc:
            self.log(f"workspace/configuration failed: {exc!r}", lsp.MessageType.Warning)
            return False
        value = values[0] if values else None
        if value is not None:
            self.apply_settings(value)
            self.settings_changed()
            return True
        return False

    # ---------------------------------------------------------------- diagnostics to the client
    def report(self, uri: str) -> list[lsp.Diagnostic]:
        """Every source's diagnostics of `uri` (triage annotations follow the current text)."""
        try:
            self.triage.refresh_diagnostics(uri)
        except Exception as exc:
            self.log(f"triage annotations failed: {exc!r}", lsp.MessageType.Error)
        return self.diagnostics.items(uri)

    def publish(self, uri: str) -> None:
        """Push `uri`'s diagnostics (push clients only)."""
        items = self.report(uri)
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
            uri=uri, diagnostics=items, version=self.diagnostics.version(uri)))

    def forget(self, uri: str) -> None:
        """`uri` was closed: drop its diagnostics (a push client is sent an empty list)."""
        self.diagnostics.clear(uri)
        self.triage.forget(uri)
        if not self.pull:
            self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def refresh_pull(self) -> None:
        """Ask a pull client to pull again (when it supports workspace/diagnostic/refresh)."""
        if get_capability(self.client_capabilities, "workspace.diagnostics.refresh_support", False):
            try:
                self.workspace_diagnostic_refresh(None)
            except Exception as exc:
                self.log(f"diagnostic refresh failed: {exc!r}", lsp.MessageType.Warning)

"""initialize / initialized and configuration changes."""

from __future__ import annotations

import asyncio
import uuid

from lsprotocol import types as lsp
from pygls.capabilities import get_capability
from pygls.uris import to_fs_path

from nnie_lsp import __version__ as VERSION
from nnie_lsp.server.server import CONFIGURATION_TIMEOUT, NnieLanguageServer
from nnie_lsp.server.handlers.common import HandlerTable
from nnie_lsp.server.handlers.sync import pull_diagnostics

handlers = HandlerTable()


@handlers.feature(lsp.INITIALIZE)
def initialize(ls: NnieLanguageServer, params: lsp.InitializeParams) -> None:
    ls.loop = asyncio.get_event_loop()
    ls.locale = params.locale
    if params.root_uri:
        ls.root = to_fs_path(params.root_uri)
    elif params.root_path:
        ls.root = params.root_path
    ls.apply_settings(params.initialization_options)
    # pull when the client can, and can be told to pull again (it then never gets pushed
    # diagnostics); else push (see the server module doc)
    ls.pull = (get_capability(params.capabilities, "text_document.diagnostic", None) is not None
               and bool(get_capability(params.capabilities, "workspace.diagnostics.refresh_support", False)))
    if ls.pull:
        ls.feature(lsp.TEXT_DOCUMENT_DIAGNOSTIC, lsp.DiagnosticOptions(
            identifier="nnie-lint", inter_file_dependencies=True, workspace_diagnostics=False))(pull_diagnostics)
    ls.log(f"nnie-lsp {VERSION}: {'pull' if ls.pull else 'push'} diagnostics, language {ls.lang}, "
           f"position encoding {ls.encoder().encoding}")


@handlers.feature(lsp.INITIALIZED)
async def initialized(ls: NnieLanguageServer, params: lsp.InitializedParams) -> None:
    if get_capability(ls.client_capabilities, "workspace.did_change_configuration.dynamic_registration", False):
        try:
            await asyncio.wait_for(ls.client_register_capability_async(lsp.RegistrationParams(registrations=[
                lsp.Registration(id=str(uuid.uuid4()), method=lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)])),
                timeout=CONFIGURATION_TIMEOUT)
        except Exception as exc:
            ls.log(f"could not register for configuration changes: {exc!r}", lsp.MessageType.Info)
    if not await ls.fetch_configuration():
        ls.workspace_lint.settings_changed()     # the initializationOptions' lint.workspace
    asyncio.ensure_future(_load_stored_triage(ls))
    asyncio.ensure_future(_watch_cards(ls))


#: the model cards (nnie.toml) every cfg's lint and reference read: a change on disk relints
CARD_WATCHER = "**/nnie.toml"


async def _watch_cards(ls: NnieLanguageServer) -> None:
    """Ask the client to tell us when a model card changes on disk (when it can register that)."""
    if not get_capability(ls.client_capabilities, "workspace.did_change_watched_files.dynamic_registration", False):
        return
    try:
        await asyncio.wait_for(ls.client_register_capability_async(lsp.RegistrationParams(registrations=[
            lsp.Registration(id=str(uuid.uuid4()), method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                             register_options=lsp.DidChangeWatchedFilesRegistrationOptions(watchers=[
                                 lsp.FileSystemWatcher(glob_pattern=CARD_WATCHER)]))])), timeout=CONFIGURATION_TIMEOUT)
    except Exception as exc:
        ls.log(f"could not watch the model cards (nnie.toml): {exc!r}", lsp.MessageType.Info)


async def _load_stored_triage(ls: NnieLanguageServer) -> None:
    """The triage results stored under the workspace root come back (a failure is only logged)."""
    try:
        await ls.triage.results.load_workspace(ls.root)
    except Exception as exc:
        ls.log(f"loading stored triage results failed: {exc!r}", lsp.MessageType.Warning)


@handlers.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(ls: NnieLanguageServer, params: lsp.DidChangeConfigurationParams) -> None:
    if get_capability(ls.client_capabilities, "workspace.configuration", False):
        await ls.fetch_configuration()
        return
    settings = params.settings
    if isinstance(settings, dict) and "nnie" in settings:
        ls.apply_settings(settings["nnie"])
        ls.settings_changed()


@handlers.feature(lsp.SHUTDOWN)
def shutdown(ls: NnieLanguageServer, params) -> None:
    """The big documents' lint process ends with the server (it would end at the server's exit
    anyway: its stdin closes)."""
    ls.scheduler.process.close()

"""The LSP methods and commands, by area; each module declares its handlers in a
:class:`~.common.HandlerTable` and :func:`register_all` puts them on a server.  The triage's
commands, code lens and inlay hints sit with the rest of the editor's triage, in
:mod:`nnie_lsp.server.triage.commands`."""

from __future__ import annotations

from nnie_lsp.server.server import NnieLanguageServer
from nnie_lsp.server.handlers import card, code_actions, folders, language, lifecycle, navigation, sync, wk
from nnie_lsp.server.triage import commands as triage_commands


def register_all(server: NnieLanguageServer) -> NnieLanguageServer:
    for module in (lifecycle, sync, code_actions, language, navigation, folders, wk, card, triage_commands):
        module.handlers.register(server)
    return server

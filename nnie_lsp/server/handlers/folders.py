"""``nnie.checkFolder``: what a folder holds, asked by an editor before it runs a triage job (an
input folder must hold dumps; an output folder holding dumps nnie-triage did not write cannot be
overwritten).  The other triage commands are in :mod:`nnie_lsp.server.triage.commands`."""

from __future__ import annotations

from nnie_lsp.server.server import NnieLanguageServer
from nnie_lsp.server.handlers.common import HandlerTable

handlers = HandlerTable()

CHECK_FOLDER = "nnie.checkFolder"


@handlers.command(CHECK_FOLDER)
async def check_folder(ls: NnieLanguageServer, *args):
    """{folder}: ``{path, exists, is_folder, files, written_by_nnie_triage, foreign_dumps,
    foreign_examples, can_overwrite, empty, holds_dumps, why_not_dumps}``."""
    return ls.triage.check_folder(args)

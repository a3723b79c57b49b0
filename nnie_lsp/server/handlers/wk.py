"""The `.wk` view: ``nnie.describeWk`` {path} → the table as text and HTML (docs/editor-protocol.md).

The code lens and the [instruction_name] hover come with the cfg's lens and hover handlers
(:mod:`nnie_lsp.editor.wk` holds the logic)."""

from __future__ import annotations

from pygls.exceptions import JsonRpcInvalidParams

from nnie_lsp.editor import wk as wk_features
from nnie_lsp.server.triage.annotations import TriageArgsError, parse_arguments
from nnie_lsp.server.server import NnieLanguageServer
from nnie_lsp.server.handlers.common import HandlerTable

handlers = HandlerTable()

DESCRIBE = "nnie.describeWk"


@handlers.command(DESCRIBE)
async def describe_wk(ls: NnieLanguageServer, *args):
    """{path}: ``{path, title, intact, summary, text, html, error, model}`` of a `.wk` file."""
    try:
        values = parse_arguments(list(args), {"path": "path"}, ls.root)
    except TriageArgsError as exc:
        raise JsonRpcInvalidParams(f"{DESCRIBE} expects one object {{path}}: {exc}") from None
    if "path" not in values:
        raise JsonRpcInvalidParams(f"{DESCRIBE} expects one object {{path}} naming a .wk file")
    return await ls.scheduler.run_aux(wk_features.wk_view, values["path"])

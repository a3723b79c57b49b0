"""What every handler module uses: a table of handlers to register, the error guard, and the
document/model/cursor a position request works on."""

from __future__ import annotations

import asyncio
import functools
import traceback
from dataclasses import dataclass
from typing import Any, Callable

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException

from nnie_lsp.core import i18n
from nnie_lsp.core.text import LineIndex, Position
from nnie_lsp.server.documents import OpenDocument
from nnie_lsp.server.server import NnieLanguageServer


class HandlerTable:
    """LSP methods and commands declared next to their handlers (``@handlers.feature(...)``, as
    with pygls' own decorators) and registered on a server by :meth:`register`."""

    def __init__(self) -> None:
        self._features: list[tuple[str, Any, Callable]] = []
        self._commands: list[tuple[str, Callable]] = []

    def feature(self, method: str, options: Any = None):
        def decorate(handler: Callable) -> Callable:
            self._features.append((method, options, handler))
            return handler
        return decorate

    def command(self, name: str):
        def decorate(handler: Callable) -> Callable:
            self._commands.append((name, handler))
            return handler
        return decorate

    def register(self, server: NnieLanguageServer) -> None:
        for method, options, handler in self._features:
            server.feature(method, options)(handler)
        for name, handler in self._commands:
            server.command(name)(handler)


def guard(method: str):
    """Log unexpected exceptions of a request handler (pygls turns them into an error response)."""
    def decorate(handler):
        @functools.wraps(handler)
        async def wrapper(ls, params):
            try:
                return await handler(ls, params)
            except JsonRpcException:
                raise
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                ls.log(i18n.t("server.handler_failed", ls.lang, method=method, error=repr(exc)) + "\n"
                       + traceback.format_exc(), lsp.MessageType.Error)
                raise
        return wrapper
    return decorate


@dataclass
class At:
    """What a position request works on: the document, its parsed model, the cursor."""

    record: OpenDocument
    li: LineIndex
    pos: Position | None
    project: object = None   # cfg documents: the Project (cfg + prototxt + files)
    doc: object = None       # prototxt documents: PrototxtDocument and NetGraph
    graph: object = None


async def document_at(ls: NnieLanguageServer, uri: str, position: lsp.Position | None = None,
                      kind: str | None = None) -> At | None:
    """The open document at `uri` (optionally only of `kind`), parsed, with the cursor converted."""
    record = ls.documents.get(uri)
    if record is None or (kind is not None and record.kind != kind) or ls.documents.problem(uri) is not None:
        return None   # a document past the bound of its kind is never parsed
    if record.kind == "card":
        return None   # the model card's features read its text (handlers/language.py)
    encoder = ls.encoder()
    if record.kind == "cfg":
        project = await ls.scheduler.project_for(uri)
        if project is None or project.cfg is None:
            return None
        li = project.cfg.line_index
        return At(record, li, encoder.from_lsp(li, position) if position else None, project=project)
    model = await ls.scheduler.prototxt_model(uri)
    if model is None:
        return None
    doc, graph = model
    li = doc.line_index
    return At(record, li, encoder.from_lsp(li, position) if position else None, doc=doc, graph=graph)

"""The nnie-lsp language server (pygls 2.x over stdio), split as esbonio's is:

- :mod:`.server`: the server object (stores, settings, push/pull, logging);
- :mod:`.documents`: the open documents, one record each;
- :mod:`.diagnostic_store`: LSP diagnostics by (source, uri), read by push and pull;
- :mod:`.scheduler`: debounce, linting off the event loop, stale results dropped;
- :mod:`.triage`: the editor's triage — its commands, code lens and inlay hints
  (:mod:`.triage.commands`), running ``nnie-triage`` (:mod:`.triage.runner`) in a subprocess with
  the tool's progress and cancellation (:mod:`.triage.jobs`), the stored results shown on the open
  documents (:mod:`.triage.results`);
- :mod:`.handlers`: the LSP methods by area, calling :mod:`nnie_lsp.editor` for the logic;
- :mod:`.convert`: engine objects <-> LSP types (positions in the negotiated encoding);
- :mod:`.config`: the ``nnie`` settings section and the UI language choice;
- :mod:`.protocol`: JSON-RPC details (malformed requests still get a response).

Run with ``python -m nnie_lsp`` or the ``nnie-lsp`` console script (:mod:`nnie_lsp.cli.lsp` parses its
command line).  Only :mod:`nnie_lsp.cli` and ``__main__`` import this package's face.

May import: core, readers, project, rules, lint, triage, card_draft, editor.
"""

from __future__ import annotations

def create_server():
    """A server with every handler registered (one per process: pygls binds it to stdio)."""
    from nnie_lsp.server.handlers import register_all
    from nnie_lsp.server.server import NnieLanguageServer
    return register_all(NnieLanguageServer())


__all__ = ["create_server"]

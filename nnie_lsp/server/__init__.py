"""The nnie-lsp language server (pygls 2.x over stdio), split as esbonio's is:

- :mod:`.server`: the server object (stores, settings, push/pull, logging);
- :mod:`.documents`: the open documents, one record each;
- :mod:`.diagnostic_store`: LSP diagnostics by (source, uri), read by push and pull;
- :mod:`.scheduler`: debounce, linting off the event loop, stale results dropped;
- :mod:`.triage`: the editor's triage — its commands, code lens and inlay hints
  (:mod:`.triage.commands`), running ``nnie-triage`` (:mod:`.triage.runner`) in a subprocess with
  the tool's progress and cancellation (:mod:`.triage.jobs`), the stored results shown on the open
  documents (:mod:`.triage.results`);
- :mod:`.handlers`: the LSP methods by area, calling :mod:`nnie_lsp.features` for the logic;
- :mod:`.convert`: engine objects <-> LSP types (positions in the negotiated encoding);
- :mod:`.config`: the ``nnie`` settings section and the UI language choice;
- :mod:`.protocol`: JSON-RPC details (malformed requests still get a response).

Run with ``python -m nnie_lsp`` (or the ``nnie-lsp`` console script pointing at :func:`main`).
"""

from __future__ import annotations

import argparse
import logging
import sys


def create_server():
    """A server with every handler registered (one per process: pygls binds it to stdio)."""
    from nnie_lsp.server.handlers import register_all
    from nnie_lsp.server.server import NnieLanguageServer
    return register_all(NnieLanguageServer())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="nnie-lsp", description="Language server for NNIE mapper cfg and Caffe prototxt")
    ap.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    ap.add_argument("--tcp", action="store_true", help="listen on a TCP port instead")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=2087)
    ap.add_argument("--lang", help="UI and message language when the client gives none: en or zh")
    ap.add_argument("--log-level", default="WARNING", help="Python log level for stderr (default WARNING)")
    ap.add_argument("--version", action="store_true")
    args = ap.parse_args(argv)
    from nnie_lsp import __version__
    from nnie_lsp.i18n import language
    if args.version:
        print(f"nnie-lsp {__version__}")
        return 0
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, str(args.log_level).upper(), logging.WARNING),
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    server = create_server()
    if args.lang:
        server.cli_lang = args.lang
        server.lang = language(args.lang)
    if args.tcp:
        server.start_tcp(args.host, args.port)
    else:
        server.start_io()
    return 0


__all__ = ["create_server", "main"]

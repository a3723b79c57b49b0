"""The nnie-lsp language server (pygls 2.x over stdio).

- :mod:`.server`: the server class, the document and diagnostic stores, debounce and every handler;
- :mod:`.convert`: engine objects <-> LSP types (positions in the negotiated encoding);
- :mod:`.config`: the ``nnie`` settings section and the UI language choice.

Run with ``python -m nnie_lsp`` (or the ``nnie-lsp`` console script pointing at :func:`main`).
"""

from __future__ import annotations

import argparse
import logging
import sys


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
    from .. import __version__
    if args.version:
        print(f"nnie-lsp {__version__}")
        return 0
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, str(args.log_level).upper(), logging.WARNING),
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    from .server import server
    if args.lang:
        server.cli_lang = args.lang
        server.lang = "zh" if args.lang.lower().startswith("zh") else "en"
    if args.tcp:
        server.start_tcp(args.host, args.port)
    else:
        server.start_io()
    return 0


__all__ = ["main"]

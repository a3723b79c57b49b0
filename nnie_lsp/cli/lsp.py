"""``nnie-lsp``: the language server's command line (stdio by default, TCP for debugging)."""

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
    from nnie_lsp import __version__
    from nnie_lsp.core.i18n import language
    if args.version:
        print(f"nnie-lsp {__version__}")
        return 0
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, str(args.log_level).upper(), logging.WARNING),
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    from nnie_lsp.server import create_server
    server = create_server()
    if args.lang:
        server.cli_lang = args.lang
        server.lang = language(args.lang)
    if args.tcp:
        server.start_tcp(args.host, args.port)
    else:
        server.start_io()
    return 0


__all__ = ["main"]

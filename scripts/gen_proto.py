#!/usr/bin/env python
"""Regenerate ``nnie_lsp/prototxt/caffe_pb2.py`` from ``nnie_lsp/grammar/caffe.proto``.

Usage: ``python scripts/gen_proto.py [--out DIR]`` (needs grpcio-tools, the ``dev`` extra).
The generated module ships in the package so installing nnie-lsp never needs protoc.
``tests/prototxt/test_caffe_pb2_sync.py`` fails when the shipped module is out of date.
"""

from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRAMMAR_DIR = os.path.join(ROOT, "nnie_lsp", "grammar")
PROTO = os.path.join(GRAMMAR_DIR, "caffe.proto")
DEFAULT_OUT = os.path.join(ROOT, "nnie_lsp", "prototxt")


def generate(out_dir: str = DEFAULT_OUT) -> str:
    """Run protoc (grpc_tools) on caffe.proto; returns the path of the written caffe_pb2.py."""
    from grpc_tools import protoc  # imported lazily: only needed by developers

    os.makedirs(out_dir, exist_ok=True)
    args = ["protoc", f"-I{GRAMMAR_DIR}", f"--python_out={out_dir}", PROTO]
    rc = protoc.main(args)
    if rc != 0:
        raise RuntimeError(f"protoc failed with exit code {rc}: {' '.join(args)}")
    return os.path.join(out_dir, "caffe_pb2.py")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=DEFAULT_OUT, help="output directory")
    ns = parser.parse_args(argv)
    path = generate(ns.out)
    print(f"wrote {os.path.relpath(path, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

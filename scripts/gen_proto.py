#!/usr/bin/env python
"""Regenerate ``nnie_lsp/readers/prototxt/caffe_pb2.py`` from ``nnie_lsp/grammar/caffe.proto``.

Usage: ``python scripts/gen_proto.py [--out DIR]`` (needs grpcio-tools, the ``dev`` extra).
The generated module ships in the package so installing nnie-lsp never needs protoc.
``tests/readers/prototxt/test_caffe_pb2_sync.py`` fails when the shipped module is out of date.
"""

from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRAMMAR_DIR = os.path.join(ROOT, "nnie_lsp", "grammar")
PROTO = os.path.join(GRAMMAR_DIR, "caffe.proto")
DEFAULT_OUT = os.path.join(ROOT, "nnie_lsp", "readers", "prototxt")


LAZY_MARK = "# nnie-lsp: message classes built on first use"

LAZY_TAIL = '''
{mark} (scripts/gen_proto.py rewrote protoc's eager build).
# Building all of caffe.proto's ~80 message classes at import costs about 4 ms, paid by every
# nnie-lint run at start-up; a class is built when its name is first looked up here
# (message_factory.GetMessageClass: the class protobuf itself makes for a sub-message, so
# `type(NetParameter().layer.add()) is LayerParameter`).  The pure-Python protobuf runtime gets
# protoc's eager build, unchanged.
from google.protobuf import message_factory as _message_factory


def __getattr__(name):
  desc = DESCRIPTOR.message_types_by_name.get(name)
  if desc is not None:
    value = _message_factory.GetMessageClass(desc)
  elif name in DESCRIPTOR.enum_types_by_name:
    from google.protobuf.internal import enum_type_wrapper
    value = enum_type_wrapper.EnumTypeWrapper(DESCRIPTOR.enum_types_by_name[name])
  else:
    for enum in DESCRIPTOR.enum_types_by_name.values():
      if name in enum.values_by_name:
        value = enum.values_by_name[name].number
        break
    else:
      raise AttributeError(f"module {{__name__!r}} has no attribute {{name!r}}")
  globals()[name] = value
  return value


if not _descriptor._USE_C_DESCRIPTORS:
  _globals = globals()
{eager}
'''


def make_lazy(source: str) -> str:
    """protoc's module with its eager build (every message class at import) replaced by classes
    built on first use (see LAZY_TAIL); the serialized descriptor is kept byte for byte."""
    if LAZY_MARK in source:
        return source
    head, sep, rest = source.partition("_globals = globals()\n")
    if not sep:
        raise RuntimeError("unexpected protoc output: no `_globals = globals()` line")
    eager = "\n".join("  " + line if line.strip() else line
                      for line in rest.replace("# @@protoc_insertion_point(module_scope)", "").rstrip().splitlines())
    return head.rstrip() + "\n\n" + LAZY_TAIL.format(mark=LAZY_MARK, eager=eager) + \
        "# @@protoc_insertion_point(module_scope)\n"


def generate(out_dir: str = DEFAULT_OUT) -> str:
    """Run protoc (grpc_tools) on caffe.proto and make its build lazy (:func:`make_lazy`);
    returns the path of the written caffe_pb2.py."""
    from grpc_tools import protoc  # imported lazily: only needed by developers

    os.makedirs(out_dir, exist_ok=True)
    args = ["protoc", f"-I{GRAMMAR_DIR}", f"--python_out={out_dir}", PROTO]
    rc = protoc.main(args)
    if rc != 0:
        raise RuntimeError(f"protoc failed with exit code {rc}: {' '.join(args)}")
    path = os.path.join(out_dir, "caffe_pb2.py")
    with open(path, encoding="utf-8") as fh:
        lazy = make_lazy(fh.read())
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(lazy)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=DEFAULT_OUT, help="output directory")
    ns = parser.parse_args(argv)
    path = generate(ns.out)
    print(f"wrote {os.path.relpath(path, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

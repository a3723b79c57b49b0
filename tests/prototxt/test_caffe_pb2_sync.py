"""The shipped caffe_pb2.py is generated from grammar/caffe.proto and in sync with it."""

from __future__ import annotations

import ast
import importlib.util
import pathlib
import sys

import pytest
from google.protobuf import descriptor_pb2

from nnie_lsp.prototxt import caffe_pb2

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _serialized_from_generated(path: pathlib.Path) -> bytes:
    """The FileDescriptorProto bytes inside a generated module, without importing it (its file
    name is already registered in the default descriptor pool)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "AddSerializedFile":
            return ast.literal_eval(node.args[0])
    raise AssertionError("no AddSerializedFile call in generated module")


def test_generated_module_in_sync(tmp_path):
    pytest.importorskip("grpc_tools")
    spec = importlib.util.spec_from_file_location("gen_proto", ROOT / "scripts" / "gen_proto.py")
    gen = importlib.util.module_from_spec(spec)
    sys.modules["gen_proto_under_test"] = gen
    spec.loader.exec_module(gen)
    out = gen.generate(str(tmp_path))
    fresh = descriptor_pb2.FileDescriptorProto.FromString(_serialized_from_generated(pathlib.Path(out)))
    shipped = descriptor_pb2.FileDescriptorProto.FromString(caffe_pb2.DESCRIPTOR.serialized_pb)
    assert fresh == shipped, "run: .venv/bin/python scripts/gen_proto.py"
    shipped_file = ROOT / "nnie_lsp" / "prototxt" / "caffe_pb2.py"
    assert _serialized_from_generated(shipped_file) == caffe_pb2.DESCRIPTOR.serialized_pb


def test_schema_basics():
    fd = descriptor_pb2.FileDescriptorProto.FromString(caffe_pb2.DESCRIPTOR.serialized_pb)
    assert fd.package == "caffe" and fd.syntax in ("", "proto2")
    assert (ROOT / "grammar" / "caffe.proto").exists()  # the repo-root symlink
    numbers = [f.number for f in caffe_pb2.LayerParameter.DESCRIPTOR.fields]
    assert len(numbers) == len(set(numbers))

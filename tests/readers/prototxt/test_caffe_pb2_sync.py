"""The shipped caffe_pb2.py is generated from grammar/caffe.proto and in sync with it."""

from __future__ import annotations

import ast
import importlib.util
import pathlib
import sys

import pytest
from google.protobuf import descriptor_pb2

from nnie_lsp.readers.prototxt import caffe_pb2

ROOT = pathlib.Path(__file__).resolve().parents[3]


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
    fresh = _serialized_from_generated(pathlib.Path(out))
    shipped_file = ROOT / "nnie_lsp" / "readers" / "prototxt" / "caffe_pb2.py"
    shipped = _serialized_from_generated(shipped_file)
    assert fresh == shipped, "caffe_pb2.py is stale: run .venv/bin/python scripts/gen_proto.py"
    # the imported module is that file: same descriptor (upb re-serializes float defaults,
    # e.g. "0.999" -> "0.999000013", so compare with normalised defaults)
    loaded = _normalised(descriptor_pb2.FileDescriptorProto.FromString(caffe_pb2.DESCRIPTOR.serialized_pb))
    assert loaded == _normalised(descriptor_pb2.FileDescriptorProto.FromString(shipped))


def _normalised(fd: descriptor_pb2.FileDescriptorProto) -> descriptor_pb2.FileDescriptorProto:
    import struct

    def fix(msg):
        for f in msg.field:
            if f.type in (f.TYPE_FLOAT, f.TYPE_DOUBLE) and f.HasField("default_value"):
                v = float(f.default_value)
                if f.type == f.TYPE_FLOAT:
                    v = struct.unpack("f", struct.pack("f", v))[0]
                f.default_value = repr(v)
        for m in msg.nested_type:
            fix(m)

    for m in fd.message_type:
        fix(m)
    return fd


def test_schema_basics():
    fd = descriptor_pb2.FileDescriptorProto.FromString(caffe_pb2.DESCRIPTOR.serialized_pb)
    assert fd.package == "caffe" and fd.syntax in ("", "proto2")
    assert (ROOT / "grammar" / "caffe.proto").exists()  # the repo-root symlink
    numbers = [f.number for f in caffe_pb2.LayerParameter.DESCRIPTOR.fields]
    assert len(numbers) == len(set(numbers))

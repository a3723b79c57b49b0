"""Schema helpers from the protobuf descriptors, for completion, hover and rules.

- :func:`fields_at` -- the fields valid inside a message reached by a path of field names
  from the root (``("layer", "convolution_param")``), with type, enum values, default and doc;
- :func:`field_info` -- the same for one field;
- :func:`param_field_for_type` -- the ``LayerParameter`` ``*_param`` field of a layer type;
- :func:`layer_types_for_param` -- the reverse;
- :func:`field_suggestion` / :func:`param_block_suggestion` / :func:`type_suggestion` -- the
  did-you-mean for an unknown field, a layer's parameter block and a layer type, among names of
  the same kind only (:mod:`.close_names` decides what is close);
- docs come from the comments of ``nnie_lsp/grammar/caffe.proto`` (the generated module keeps
  no comments), read once, lazily.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from google.protobuf import descriptor as _descriptor

from nnie_lsp.readers.prototxt import caffe_pb2
from nnie_lsp.readers.prototxt.layers import LAYERS

__all__ = [
    "FieldInfo",
    "message_descriptor",
    "descriptor_at",
    "fields_at",
    "field_info",
    "field_doc",
    "message_doc",
    "enum_values",
    "param_field_for_type",
    "layer_types_for_param",
    "layer_param_fields",
    "field_suggestion",
    "param_block_suggestion",
    "type_suggestion",
    "PROTO_PATH",
]

PROTO_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "grammar",
                          "caffe.proto")

_FD = _descriptor.FieldDescriptor
_TYPE_NAMES = {
    _FD.TYPE_DOUBLE: "double", _FD.TYPE_FLOAT: "float", _FD.TYPE_INT64: "int64",
    _FD.TYPE_UINT64: "uint64", _FD.TYPE_INT32: "int32", _FD.TYPE_FIXED64: "fixed64",
    _FD.TYPE_FIXED32: "fixed32", _FD.TYPE_BOOL: "bool", _FD.TYPE_STRING: "string",
    _FD.TYPE_BYTES: "bytes", _FD.TYPE_UINT32: "uint32", _FD.TYPE_SFIXED32: "sfixed32",
    _FD.TYPE_SFIXED64: "sfixed64", _FD.TYPE_SINT32: "sint32", _FD.TYPE_SINT64: "sint64",
}


@dataclass(frozen=True, slots=True)
class FieldInfo:
    name: str
    number: int
    message: str  # full name of the containing message
    type_name: str  # "uint32", "string", "caffe.BlobShape", "caffe.PoolingParameter.PoolMethod"...
    kind: str  # "scalar" | "enum" | "message"
    repeated: bool
    default: object  # the proto default (None for messages / repeated)
    enum_values: tuple[str, ...]  # for enums
    doc: str
    descriptor: _descriptor.FieldDescriptor

    def snippet(self) -> str:
        """Text to insert for completion: ``name { }`` for messages, ``name: `` otherwise."""
        return f"{self.name} {{\n}}" if self.kind == "message" else f"{self.name}: "


def message_descriptor(name: str = "caffe.NetParameter") -> _descriptor.Descriptor | None:
    """Descriptor of ``caffe.X`` (nested names like ``caffe.PoolingParameter`` ok)."""
    full = name if name.startswith("caffe.") else "caffe." + name
    try:
        return caffe_pb2.DESCRIPTOR.pool.FindMessageTypeByName(full)
    except KeyError:
        return None


def descriptor_at(path: Sequence[str], root: str = "caffe.NetParameter") -> _descriptor.Descriptor | None:
    """The message reached by following message fields ``path`` from ``root``; None if a step
    is not a message field."""
    desc = message_descriptor(root)
    for step in path:
        if desc is None:
            return None
        fd = desc.fields_by_name.get(step)
        if fd is None or fd.message_type is None:
            return None
        desc = fd.message_type
    return desc


def _info(fd: _descriptor.FieldDescriptor) -> FieldInfo:
    if fd.message_type is not None:
        kind, type_name, default, enums = "message", fd.message_type.full_name, None, ()
    elif fd.enum_type is not None:
        kind, type_name = "enum", fd.enum_type.full_name
        enums = tuple(v.name for v in fd.enum_type.values)
        default = None if fd.is_repeated else fd.enum_type.values_by_number[fd.default_value].name
    else:
        kind, type_name, enums = "scalar", _TYPE_NAMES[fd.type], ()
        default = None if fd.is_repeated else fd.default_value
    return FieldInfo(fd.name, fd.number, fd.containing_type.full_name, type_name, kind,
                     fd.is_repeated, default, enums, field_doc(fd.containing_type.full_name, fd.name), fd)


def fields_at(path: Sequence[str] = (), root: str = "caffe.NetParameter") -> tuple[FieldInfo, ...]:
    """Fields valid inside the message at ``path`` (in declaration order); () if invalid."""
    desc = descriptor_at(path, root)
    if desc is None:
        return ()
    return tuple(_info(fd) for fd in desc.fields)


def field_info(message: str, field: str) -> FieldInfo | None:
    desc = message_descriptor(message)
    if desc is None:
        return None
    fd = desc.fields_by_name.get(field)
    return _info(fd) if fd is not None else None


def enum_values(message: str, field: str) -> tuple[str, ...]:
    fi = field_info(message, field)
    return fi.enum_values if fi else ()


# ---------------------------------------------------------------------------------------------
# layer type <-> *_param field


def layer_param_fields() -> tuple[str, ...]:
    """Every ``*_param`` field of LayerParameter."""
    desc = caffe_pb2.LayerParameter.DESCRIPTOR
    return tuple(f.name for f in desc.fields if f.name.endswith("_param"))


def _snake(name: str) -> str:
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    s = re.sub(r"(?<=[A-Z])([A-Z][a-z])", r"_\1", s)
    return s.lower()


def param_field_for_type(layer_type: str) -> str | None:
    """``"Convolution"`` -> ``"convolution_param"``; from the layer table, else by naming
    convention when such a LayerParameter field exists."""
    spec = LAYERS.get(layer_type)
    if spec is not None:
        return spec.param_field
    guess = _snake(layer_type) + "_param"
    return guess if guess in caffe_pb2.LayerParameter.DESCRIPTOR.fields_by_name else None


def layer_types_for_param(param_field: str) -> tuple[str, ...]:
    return tuple(t for t, s in LAYERS.items() if s.param_field == param_field)


# ---------------------------------------------------------------------------------------------
# did-you-mean among names of the same kind

LAYER_MESSAGE = "caffe.LayerParameter"


def is_param_block(message: str, name: str) -> bool:
    """A layer's ``*_param`` block: which one is right depends on the layer's type."""
    return message == LAYER_MESSAGE and name.endswith("_param")


def field_suggestion(message: str, name: str, candidates: Sequence[str]) -> str | None:
    """The field of `message` that the unknown field `name` is a typo of, among fields of the
    same kind: in a layer, a plain field (``botom`` -> ``bottom``) is compared with the plain
    fields only, and a ``*_param`` block gets no suggestion here -- the only right block is the
    layer type's own (:func:`param_block_suggestion`), never another type's (``bn_param`` is not
    ``mvn_param``)."""
    from nnie_lsp.readers.prototxt.close_names import close_name

    if is_param_block(message, name):
        return None
    if message == LAYER_MESSAGE:
        candidates = [c for c in candidates if not c.endswith("_param")]
    return close_name(name, candidates)


def param_block_suggestion(layer_type: str, name: str) -> str | None:
    """The layer type's own parameter block when `name` is a typo of it
    (``upsampe_param`` in an Upsample layer -> ``upsample_param``), else None."""
    from nnie_lsp.readers.prototxt.close_names import close_name

    own = param_field_for_type(layer_type) if layer_type else None
    return close_name(name, [own]) if own else None


def type_suggestion(layer_type: str) -> str | None:
    """The known layer type that `layer_type` is a typo of (``Relu`` -> ``ReLU``), or None."""
    from nnie_lsp.readers.prototxt.close_names import close_name

    if layer_type in LAYERS:
        return None
    return close_name(layer_type, list(LAYERS))


# ---------------------------------------------------------------------------------------------
# docs from caffe.proto comments

_FIELD_RE = re.compile(
    r"^\s*(?:optional|repeated|required)\s+[\w.]+\s+(\w+)\s*=\s*\d+[^;]*;\s*(?://\s?(.*))?$")
_BLOCK_RE = re.compile(r"^\s*(message|enum)\s+(\w+)\s*\{")


@lru_cache(maxsize=1)
def _docs() -> tuple[dict[tuple[str, str], str], dict[str, str]]:
    fields: dict[tuple[str, str], str] = {}
    messages: dict[str, str] = {}
    try:
        with open(PROTO_PATH, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return fields, messages
    stack: list[tuple[str, str]] = []  # (kind, name)
    pending: list[str] = []
    for line in lines:
        s = line.strip()
        if s.startswith("//"):
            pending.append(s[2:].strip())
            continue
        m = _BLOCK_RE.match(line)
        if m:
            stack.append((m.group(1), m.group(2)))
            if m.group(1) == "message":
                full = "caffe." + ".".join(n for k, n in stack if k == "message")
                if pending:
                    messages[full] = " ".join(pending)
            pending = []
            continue
        if s.startswith("}"):
            if stack:
                stack.pop()
            pending = []
            continue
        m = _FIELD_RE.match(line)
        if m and stack and stack[-1][0] == "message":
            full = "caffe." + ".".join(n for k, n in stack if k == "message")
            doc = " ".join(pending + ([m.group(2).strip()] if m.group(2) else []))
            if doc:
                fields[(full, m.group(1))] = doc
        pending = []
    return fields, messages


def field_doc(message: str, field: str) -> str:
    full = message if message.startswith("caffe.") else "caffe." + message
    return _docs()[0].get((full, field), "")


def message_doc(message: str) -> str:
    full = message if message.startswith("caffe.") else "caffe." + message
    return _docs()[1].get(full, "")


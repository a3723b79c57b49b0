"""Decoding protobuf text-format values, driven by the caffe descriptors.

- field tables: :class:`MsgInfo` / :class:`FieldInfo` per message type (value kind ``K_*``,
  enum names and numbers, field names for did-you-mean), built once per type;
- scalars: integers (decimal, hex, C octal; range-checked per type), floats (``1e-5``, ``10f``,
  ``inf``, ``nan``), bools (``true``/``t``/``1``...), enums by name or number, and strings
  (adjacent literals concatenate, C escapes, UTF-8 check for ``string`` fields).

Messages follow ``text_format``'s wording where it has one.  A value that cannot be decoded
raises :class:`BadValue`; the parser reports it as NN012.
"""

from __future__ import annotations

import re
import warnings

from google.protobuf import descriptor as _descriptor
from google.protobuf import text_encoding as _text_encoding
from google.protobuf import text_format as _text_format
from google.protobuf.message import Message

from nnie_lsp.readers.prototxt import caffe_pb2
from nnie_lsp.readers.prototxt.tokenizer import IDENT, NUMBER, STRING

# ---------------------------------------------------------------------------------------------
# field tables

_FieldDescriptor = _descriptor.FieldDescriptor
K_INT32, K_INT64, K_UINT32, K_UINT64, K_FLOAT, K_BOOL, K_STRING, K_BYTES, K_ENUM, K_MSG = range(1, 11)

_TYPE_TO_K = {
    _FieldDescriptor.TYPE_INT32: K_INT32,
    _FieldDescriptor.TYPE_SINT32: K_INT32,
    _FieldDescriptor.TYPE_SFIXED32: K_INT32,
    _FieldDescriptor.TYPE_INT64: K_INT64,
    _FieldDescriptor.TYPE_SINT64: K_INT64,
    _FieldDescriptor.TYPE_SFIXED64: K_INT64,
    _FieldDescriptor.TYPE_UINT32: K_UINT32,
    _FieldDescriptor.TYPE_FIXED32: K_UINT32,
    _FieldDescriptor.TYPE_UINT64: K_UINT64,
    _FieldDescriptor.TYPE_FIXED64: K_UINT64,
    _FieldDescriptor.TYPE_FLOAT: K_FLOAT,
    _FieldDescriptor.TYPE_DOUBLE: K_FLOAT,
    _FieldDescriptor.TYPE_BOOL: K_BOOL,
    _FieldDescriptor.TYPE_STRING: K_STRING,
    _FieldDescriptor.TYPE_BYTES: K_BYTES,
    _FieldDescriptor.TYPE_ENUM: K_ENUM,
    _FieldDescriptor.TYPE_MESSAGE: K_MSG,
    _FieldDescriptor.TYPE_GROUP: K_MSG,
}

_K_NAMES = {
    K_INT32: "int32", K_INT64: "int64", K_UINT32: "uint32", K_UINT64: "uint64",
    K_FLOAT: "float", K_BOOL: "bool", K_STRING: "string", K_BYTES: "bytes", K_ENUM: "enum",
    K_MSG: "message",
}

_INT_RANGES = {
    K_INT32: (-(2**31), 2**31 - 1),
    K_INT64: (-(2**63), 2**63 - 1),
    K_UINT32: (0, 2**32 - 1),
    K_UINT64: (0, 2**64 - 1),
}


class FieldInfo:
    """What decoding needs of one field: ``k`` (a ``K_*`` value kind), enum tables, the nested
    message's :class:`MsgInfo` (``minfo``, built on first use) and the fast path's value cache."""

    __slots__ = ("desc", "name", "k", "repeated", "type_name", "_minfo", "enum_names",
                 "enum_numbers", "enum_full_name", "fast_values")

    def __init__(self, fd: _descriptor.FieldDescriptor) -> None:
        self.desc = fd
        self.name = fd.name
        self.k = _TYPE_TO_K[fd.type]
        self.repeated = fd.is_repeated
        self._minfo = None
        self.fast_values: dict[str, tuple] = {}  # token -> decoded value (see fast_parse)
        if self.k == K_ENUM:
            et = fd.enum_type
            self.enum_names = {v.name: v.number for v in et.values}
            self.enum_numbers = {v.number: v.name for v in et.values}
            self.enum_full_name = et.full_name
            self.type_name = et.full_name
        else:
            self.enum_names = self.enum_numbers = None
            self.enum_full_name = ""
            self.type_name = fd.message_type.full_name if self.k == K_MSG else _K_NAMES[self.k]

    @property
    def minfo(self) -> "MsgInfo":
        if self._minfo is None:
            self._minfo = msg_info(self.desc.message_type)
        return self._minfo


class MsgInfo:
    """One message type: its :class:`FieldInfo` by field name, and the sorted names."""

    __slots__ = ("desc", "full_name", "fields", "names")

    def __init__(self, desc: _descriptor.Descriptor) -> None:
        self.desc = desc
        self.full_name = desc.full_name
        self.fields = {f.name: FieldInfo(f) for f in desc.fields}
        self.names = sorted(self.fields)


_MSG_INFOS: dict[str, MsgInfo] = {}


def msg_info(desc: _descriptor.Descriptor) -> MsgInfo:
    mi = _MSG_INFOS.get(desc.full_name)
    if mi is None:
        mi = _MSG_INFOS[desc.full_name] = MsgInfo(desc)
    return mi


def message_class(full_name: str) -> type[Message] | None:
    """``caffe_pb2`` class for ``caffe.X`` / ``X`` (top-level messages only)."""
    name = full_name[6:] if full_name.startswith("caffe.") else full_name
    return getattr(caffe_pb2, name, None) if name in caffe_pb2.DESCRIPTOR.message_types_by_name else None


def did_you_mean(name: str, candidates: list[str]) -> str:
    import difflib  # only for a did-you-mean (start-up)

    m = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
    if not m:
        low = name.lower()
        m = [c for c in candidates if c.lower() == low]
    return f' Did you mean "{m[0]}"?' if m else ""


# ---------------------------------------------------------------------------------------------
# values

_C_OCTAL = r"(-?)0(\d+)$"  # compiled on first use (re's cache): plain numbers never need it
TRUE_WORDS = frozenset(("true", "t", "1", "True"))
FALSE_WORDS = frozenset(("false", "f", "0", "False"))


class BadValue(Exception):
    """A value that cannot be decoded; the message says why (reported as NN012)."""


def parse_int(tok: str) -> int:
    if tok.isdigit() and (tok[0] != "0" or len(tok) == 1):
        return int(tok)
    t = tok
    m = re.match(_C_OCTAL, t)
    if m:
        t = m.group(1) + "0o" + m.group(2)
    try:
        return int(t, 0)
    except ValueError:
        raise BadValue(f"Couldn't parse integer: {tok}") from None


def parse_float(tok: str) -> float:
    c0 = tok[0]
    if c0 == "-":
        if len(tok) > 2 and tok[1] == "0" and tok[2].isdigit():
            raise BadValue(f"Invalid octal float: {tok}")
    elif c0 == "0" and len(tok) > 1 and tok[1].isdigit():
        raise BadValue(f"Invalid octal float: {tok}")
    try:
        return float(tok)
    except ValueError:
        pass
    try:
        return _text_format.ParseFloat(tok)
    except ValueError:
        raise BadValue(f"Couldn't parse float: {tok}") from None


def _unescape(body: str) -> bytes:
    try:
        with warnings.catch_warnings():  # CUnescape warns on unknown escapes such as "\q"
            warnings.simplefilter("ignore", DeprecationWarning)
            return _text_encoding.CUnescape(body)
    except Exception as e:  # ValueError / UnicodeDecodeError on odd escapes
        raise BadValue(f"Invalid escape in string: {e}") from None


def string_value(text: str, starts: list[int], ends: list[int], i: int, j: int, k: int):
    """Decode string tokens i..j-1 (adjacent literals concatenate)."""
    if j == i + 1:
        body = text[starts[i] + 1:ends[i] - 1]
        if "\\" not in body:
            return body if k != K_BYTES else body.encode("utf-8")
        raw = _unescape(body)
    else:
        parts = []
        for t in range(i, j):
            body = text[starts[t] + 1:ends[t] - 1]
            parts.append(_unescape(body) if "\\" in body else body.encode("utf-8"))
        raw = b"".join(parts)
    if k == K_BYTES:
        return raw
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadValue("String is not valid UTF-8 after unescaping") from None


def generic_value(kind: int, tok: str, text: str, starts, ends, i: int, j: int):
    """Best-effort decoding for fields without a descriptor."""
    if kind == STRING:
        try:
            return string_value(text, starts, ends, i, j, K_STRING)
        except BadValue:
            return None
    if kind == NUMBER:
        try:
            return parse_int(tok)
        except BadValue:
            try:
                return parse_float(tok)
            except BadValue:
                return tok
    return tok


def decode_token(fi: FieldInfo, kind: int, tok: str):
    """(message value, node value) for a non-string scalar token; raises BadValue."""
    k = fi.k
    if k <= K_UINT64:
        if kind != NUMBER:
            raise BadValue(
                f'Field "{fi.name}" ({fi.type_name}) needs an integer, found {_describe(kind, tok)}.'
            )
        v = parse_int(tok)
        lo, hi = _INT_RANGES[k]
        if v < lo or v > hi:
            raise BadValue(
                f'Value {v} is out of range for {fi.type_name} field "{fi.name}" ({lo}..{hi}).'
            )
        return v, v
    if k == K_FLOAT:
        if kind == NUMBER or kind == IDENT:
            v = parse_float(tok)
            return v, v
        raise BadValue(f'Field "{fi.name}" (float) needs a number, found {_describe(kind, tok)}.')
    if k == K_BOOL:
        if tok in TRUE_WORDS:
            return True, True
        if tok in FALSE_WORDS:
            return False, False
        raise BadValue(
            f'Field "{fi.name}" (bool) needs true or false, found {_describe(kind, tok)}.'
        )
    if k == K_ENUM:
        if kind == IDENT:
            num = fi.enum_names.get(tok)
            if num is None:
                valid = list(fi.enum_names)
                raise BadValue(
                    f'Enum type "{fi.enum_full_name}" has no value named {tok}. '
                    f"Valid values: {', '.join(valid)}.{did_you_mean(tok, valid)}"
                )
            return num, tok
        if kind == NUMBER:
            try:
                num = int(tok, 0)  # as text_format: "01" is not a number here
            except ValueError:
                raise BadValue(
                    f'Enum type "{fi.enum_full_name}" has no value named {tok}. '
                    f"Valid values: {', '.join(fi.enum_names)}."
                ) from None
            name = fi.enum_numbers.get(num)
            if name is None:
                valid = ", ".join(f"{n} ({v})" for n, v in fi.enum_names.items())
                raise BadValue(
                    f'Enum type "{fi.enum_full_name}" has no value with number {num}. '
                    f"Valid values: {valid}."
                )
            return num, name
        raise BadValue(
            f'Field "{fi.name}" ({fi.enum_full_name}) needs an enum value, found {_describe(kind, tok)}.'
        )
    if k == K_STRING or k == K_BYTES:
        raise BadValue(
            f'Field "{fi.name}" ({fi.type_name}) needs a quoted string, found {_describe(kind, tok)}.'
        )
    raise BadValue(f'Field "{fi.name}" is a message ({fi.type_name}): write "{fi.name} {{ ... }}".')


def _describe(kind: int, tok: str) -> str:
    if kind == STRING:
        return f"the string {tok}"
    if kind == NUMBER:
        return f"the number {tok}"
    if kind == IDENT:
        return f"the identifier {tok}"
    return f"'{tok}'"

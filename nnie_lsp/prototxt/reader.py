"""Position-aware reader for Caffe prototxt (protobuf text format).

One pass over the text gives a :class:`PrototxtDocument`: the ``caffe_pb2`` message built from
everything that was valid (equal to ``text_format.Parse``'s result on a valid file), a source
tree with the ranges of every field occurrence, the layers with their name/type/bottom/top
ranges, every ``#`` comment and *all* problems found (``text_format`` stops at the first one):

- ``NN010`` syntax error (bad token, unterminated string, missing ``:``/``}``/``]``...);
- ``NN011`` unknown field (with a did-you-mean from the descriptor's field names);
- ``NN012`` bad value (wrong type, out of range, bad enum value, repeated singular field...).

The tokenizer is one regular expression; the parser is recursive descent driven by the
protobuf descriptors.  A fast path (``_fast_parse``) reads the common valid line shapes one
statement per regex match and hands over to the general parser at the first top-level field it
cannot read.  Ranges are computed lazily from offsets (``Node.name_range`` etc.), so a 30k-line
file reads in about 40 ms.  ``parse_prototxt`` never raises.
"""

from __future__ import annotations

import difflib
import gc
import re
import warnings
from dataclasses import dataclass
from operator import itemgetter
from typing import Iterator

from google.protobuf import descriptor as _descriptor
from google.protobuf import text_encoding as _text_encoding
from google.protobuf import text_format as _text_format
from google.protobuf.message import Message

from ..text import LineIndex, Position, Range
from . import caffe_pb2

__all__ = [
    "NN010",
    "NN011",
    "NN012",
    "ProtoError",
    "Node",
    "LayerSource",
    "PrototxtDocument",
    "parse_prototxt",
    "tokenize",
    "V1_TYPE_NAMES",
    "message_class",
]

NN010 = "NN010"  # syntax error
NN011 = "NN011"  # unknown field
NN012 = "NN012"  # bad value


@dataclass(frozen=True, slots=True)
class ProtoError:
    code: str
    message: str
    range: Range

    def __str__(self) -> str:
        return f"{self.range.start}: {self.code} {self.message}"


# ---------------------------------------------------------------------------------------------
# tokenizer

# token kinds
EOF, IDENT, NUMBER, STRING, PUNCT, COMMENT, USTRING, BAD = 0, 1, 2, 3, 4, 5, 6, 7

# Identifiers and numbers follow text_format's tokenizer (a number token is loose: "10f",
# "1e-5", "-inf", "0x1F" are single tokens and are checked when the field type is known).
_TOKEN_RE = re.compile(
    r"""\s*(?:
      ([A-Za-z_][0-9A-Za-z_+-]*)                            # 1 identifier
     |((?:[0-9+-]|\.[0-9])[0-9A-Za-z_.+-]*)                # 2 number
     |("[^"\n\\]*(?:\\.[^"\n\\]*)*"|'[^'\n\\]*(?:\\.[^'\n\\]*)*')   # 3 string
     |([{}<>\[\]:,;])                                      # 4 punctuation
     |(\#[^\n\r]*)                                         # 5 comment
     |(["'][^\n\r]*)                                       # 6 unterminated string
     |(\S)                                                 # 7 anything else
    )""",
    re.X,
)


def tokenize(text: str) -> tuple[list[int], list[int], list[int], list[tuple[int, int]]]:
    """``(kinds, starts, ends, comments)``; comments are ``(start, end)`` offsets.

    ``kinds`` holds ``IDENT``/``NUMBER``/``STRING``/``USTRING``/``BAD`` codes, or the character
    itself for punctuation (``"{"``, ``":"``...).  The lists end with an ``EOF`` token at
    ``len(text)``.
    """
    return _tokenize(text, 1 if text.startswith("\ufeff") else 0)


def _tokenize(text: str, pos: int) -> tuple[list[int], list[int], list[int], list[tuple[int, int]]]:
    """:func:`tokenize` from offset ``pos`` (a token boundary)."""
    kinds: list[int] = []
    starts: list[int] = []
    ends: list[int] = []
    comments: list[tuple[int, int]] = []
    ka, sa, ea = kinds.append, starts.append, ends.append
    for m in _TOKEN_RE.finditer(text, pos):
        k = m.lastindex
        s, e = m.span(k)
        if k == PUNCT:
            ka(text[s])
        elif k == COMMENT:
            comments.append((s, e))
            continue
        else:
            ka(k)
        sa(s)
        ea(e)
    n = len(text)
    ka(EOF)
    sa(n)
    ea(n)
    return kinds, starts, ends, comments


# ---------------------------------------------------------------------------------------------
# source tree


class Node(tuple):
    """One field occurrence.  Immutable; ranges are computed on demand.

    ``kind`` is ``"scalar"``, ``"message"`` or ``"list"`` (``name: [a, b]``; its children are the
    elements).  ``value`` is the decoded scalar (``None`` if invalid; enum values by name; a
    tuple for lists; ``None`` for messages).  ``field`` is the ``FieldDescriptor`` or ``None``
    for unknown fields.
    """

    __slots__ = ()

    name: str = property(itemgetter(0))  # type: ignore[assignment]
    kind: str = property(itemgetter(1))  # type: ignore[assignment]
    value = property(itemgetter(2))
    children: tuple["Node", ...] = property(itemgetter(3))  # type: ignore[assignment]
    field = property(itemgetter(11))

    @property
    def name_range(self) -> Range:
        return self[4].range(self[5], self[6])

    @property
    def range(self) -> Range:
        """From the field name to the end of the value / closing brace."""
        return self[4].range(self[7], self[8])

    @property
    def value_range(self) -> Range:
        """The value as written (incl. quotes), or the ``{ ... }`` block, or ``[ ... ]``."""
        return self[4].range(self[9], self[10])

    @property
    def value_text(self) -> str:
        return self[4].text[self[9]:self[10]]

    @property
    def start_offset(self) -> int:
        return self[7]

    @property
    def end_offset(self) -> int:
        return self[8]

    @property
    def value_offsets(self) -> tuple[int, int]:
        return self[9], self[10]

    @property
    def name_offsets(self) -> tuple[int, int]:
        return self[5], self[6]

    def find(self, name: str) -> tuple["Node", ...]:
        return tuple([c for c in self[3] if c[0] == name])

    def first(self, name: str) -> "Node | None":
        for c in self[3]:
            if c[0] == name:
                return c
        return None

    def walk(self) -> Iterator["Node"]:
        """This node and all descendants, in document order."""
        yield self
        for c in self[3]:
            yield from c.walk()

    def __repr__(self) -> str:
        if self[1] == "message":
            return f"Node({self[0]!r}, message, {len(self[3])} children)"
        return f"Node({self[0]!r}, {self[1]}, {self.value_text!r})"

    # tuple equality would compare LineIndex objects by identity, which is what we want, but
    # make hashing cheap and stable for use in dicts/sets.
    def __hash__(self) -> int:  # type: ignore[override]
        return hash((self[0], self[7], self[8]))

    def __eq__(self, other: object) -> bool:  # type: ignore[override]
        return self is other or (
            isinstance(other, Node) and self[4] is other[4] and self[7] == other[7]
            and self[8] == other[8] and self[0] == other[0]
        )

    def __ne__(self, other: object) -> bool:  # type: ignore[override]
        return not self.__eq__(other)


_new_node = tuple.__new__

# V1LayerParameter.LayerType enum name -> modern type string (Caffe's UpgradeV1LayerType).
V1_TYPE_NAMES: dict[str, str] = {
    "NONE": "",
    "ABSVAL": "AbsVal",
    "ACCURACY": "Accuracy",
    "ARGMAX": "ArgMax",
    "BNLL": "BNLL",
    "CONCAT": "Concat",
    "CONTRASTIVE_LOSS": "ContrastiveLoss",
    "CONVOLUTION": "Convolution",
    "DECONVOLUTION": "Deconvolution",
    "DATA": "Data",
    "DROPOUT": "Dropout",
    "DUMMY_DATA": "DummyData",
    "EUCLIDEAN_LOSS": "EuclideanLoss",
    "ELTWISE": "Eltwise",
    "EXP": "Exp",
    "FLATTEN": "Flatten",
    "HDF5_DATA": "HDF5Data",
    "HDF5_OUTPUT": "HDF5Output",
    "HINGE_LOSS": "HingeLoss",
    "IM2COL": "Im2col",
    "IMAGE_DATA": "ImageData",
    "INFOGAIN_LOSS": "InfogainLoss",
    "INNER_PRODUCT": "InnerProduct",
    "LRN": "LRN",
    "MEMORY_DATA": "MemoryData",
    "MULTINOMIAL_LOGISTIC_LOSS": "MultinomialLogisticLoss",
    "MVN": "MVN",
    "POOLING": "Pooling",
    "POWER": "Power",
    "RELU": "ReLU",
    "SIGMOID": "Sigmoid",
    "SIGMOID_CROSS_ENTROPY_LOSS": "SigmoidCrossEntropyLoss",
    "SILENCE": "Silence",
    "SOFTMAX": "Softmax",
    "SOFTMAX_LOSS": "SoftmaxWithLoss",
    "SPLIT": "Split",
    "SLICE": "Slice",
    "TANH": "TanH",
    "WINDOW_DATA": "WindowData",
    "THRESHOLD": "Threshold",
}


class LayerSource:
    """One ``layer { }`` (or V1 ``layers { }``) block with its source ranges.

    ``param`` is the ``LayerParameter`` (``V1LayerParameter`` for V1 blocks) built from the
    block.  ``bottoms``/``tops`` are ``(blob, Range)`` pairs, the range being the quoted value.
    """

    __slots__ = ("index", "node", "param", "is_v1", "_cache")

    def __init__(self, index: int, node: Node, param: Message, is_v1: bool) -> None:
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "node", node)
        object.__setattr__(self, "param", param)
        object.__setattr__(self, "is_v1", is_v1)
        object.__setattr__(self, "_cache", {})

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError("LayerSource is immutable")

    @property
    def name(self) -> str:
        return self.param.name

    @property
    def type(self) -> str:
        if self.is_v1:
            p = self.param
            if not p.HasField("type"):
                return ""
            enum = p.DESCRIPTOR.fields_by_name["type"].enum_type
            return V1_TYPE_NAMES.get(enum.values_by_number[p.type].name, "")
        return self.param.type

    def _last(self, field: str) -> Node | None:
        found = None
        for c in self.node[3]:
            if c[0] == field and c[1] == "scalar" and c[2] is not None:
                found = c
        return found

    @property
    def name_range(self) -> Range:
        """The value range of ``name:`` (the block keyword if the layer has no name)."""
        c = self._cache
        if "name_range" not in c:
            n = self._last("name")
            c["name_range"] = n.value_range if n is not None else self.node.name_range
        return c["name_range"]

    @property
    def type_range(self) -> Range:
        """The value range of ``type:`` (the block keyword if the layer has no type)."""
        c = self._cache
        if "type_range" not in c:
            n = self._last("type")
            c["type_range"] = n.value_range if n is not None else self.node.name_range
        return c["type_range"]

    def _blobs(self, field: str) -> tuple[tuple[str, Range], ...]:
        c = self._cache
        if field not in c:
            out = []
            for n in self.node[3]:
                if n[0] != field:
                    continue
                if n[1] == "scalar":
                    if isinstance(n[2], str):
                        out.append((n[2], n.value_range))
                elif n[1] == "list":
                    for e in n[3]:
                        if e[1] == "scalar" and isinstance(e[2], str):
                            out.append((e[2], e.value_range))
            c[field] = tuple(out)
        return c[field]

    @property
    def bottoms(self) -> tuple[tuple[str, Range], ...]:
        return self._blobs("bottom")

    @property
    def tops(self) -> tuple[tuple[str, Range], ...]:
        return self._blobs("top")

    @property
    def block_range(self) -> Range:
        return self.node.range

    def __repr__(self) -> str:
        return f"LayerSource({self.index}, {self.name!r}, {self.type!r})"


@dataclass(frozen=True, slots=True)
class PrototxtDocument:
    text: str
    path: str | None
    line_index: LineIndex
    message: Message
    nodes: tuple[Node, ...]
    layers: tuple[LayerSource, ...]
    errors: tuple[ProtoError, ...]
    comments: tuple[tuple[Range, str], ...]
    message_type: str = "caffe.NetParameter"

    @property
    def syntax_errors(self) -> tuple[ProtoError, ...]:
        return tuple(e for e in self.errors if e.code == NN010)

    @property
    def ok(self) -> bool:
        return not self.errors

    def find(self, name: str) -> tuple[Node, ...]:
        return tuple([n for n in self.nodes if n[0] == name])

    def first(self, name: str) -> Node | None:
        for n in self.nodes:
            if n[0] == name:
                return n
        return None

    def walk(self) -> Iterator[Node]:
        for n in self.nodes:
            yield from n.walk()

    def path_at(self, pos: Position) -> tuple[Node, ...]:
        """Nodes containing ``pos`` from the outermost to the innermost."""
        off = self.line_index.offset(pos)
        out: list[Node] = []
        nodes = self.nodes
        while True:
            hit = None
            for n in nodes:
                if n[7] <= off <= n[8]:
                    hit = n
                    break
                if n[7] > off:
                    break
            if hit is None:
                return tuple(out)
            out.append(hit)
            nodes = hit[3]

    def node_at(self, pos: Position) -> Node | None:
        p = self.path_at(pos)
        return p[-1] if p else None


# ---------------------------------------------------------------------------------------------
# descriptor tables

_FD = _descriptor.FieldDescriptor
K_INT32, K_INT64, K_UINT32, K_UINT64, K_FLOAT, K_BOOL, K_STRING, K_BYTES, K_ENUM, K_MSG = range(1, 11)

_TYPE_TO_K = {
    _FD.TYPE_INT32: K_INT32,
    _FD.TYPE_SINT32: K_INT32,
    _FD.TYPE_SFIXED32: K_INT32,
    _FD.TYPE_INT64: K_INT64,
    _FD.TYPE_SINT64: K_INT64,
    _FD.TYPE_SFIXED64: K_INT64,
    _FD.TYPE_UINT32: K_UINT32,
    _FD.TYPE_FIXED32: K_UINT32,
    _FD.TYPE_UINT64: K_UINT64,
    _FD.TYPE_FIXED64: K_UINT64,
    _FD.TYPE_FLOAT: K_FLOAT,
    _FD.TYPE_DOUBLE: K_FLOAT,
    _FD.TYPE_BOOL: K_BOOL,
    _FD.TYPE_STRING: K_STRING,
    _FD.TYPE_BYTES: K_BYTES,
    _FD.TYPE_ENUM: K_ENUM,
    _FD.TYPE_MESSAGE: K_MSG,
    _FD.TYPE_GROUP: K_MSG,
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


class _FieldInfo:
    __slots__ = ("desc", "name", "k", "repeated", "type_name", "_minfo", "enum_names",
                 "enum_numbers", "enum_full_name", "fast_values")

    def __init__(self, fd: _descriptor.FieldDescriptor) -> None:
        self.desc = fd
        self.name = fd.name
        self.k = _TYPE_TO_K[fd.type]
        self.repeated = fd.is_repeated
        self._minfo = None
        self.fast_values: dict[str, tuple] = {}  # token -> decoded value (see _fast_parse)
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
    def minfo(self) -> "_MsgInfo":
        if self._minfo is None:
            self._minfo = _msg_info(self.desc.message_type)
        return self._minfo


class _MsgInfo:
    __slots__ = ("desc", "full_name", "fields", "names")

    def __init__(self, desc: _descriptor.Descriptor) -> None:
        self.desc = desc
        self.full_name = desc.full_name
        self.fields = {f.name: _FieldInfo(f) for f in desc.fields}
        self.names = sorted(self.fields)


_MSG_INFOS: dict[str, _MsgInfo] = {}


def _msg_info(desc: _descriptor.Descriptor) -> _MsgInfo:
    mi = _MSG_INFOS.get(desc.full_name)
    if mi is None:
        mi = _MSG_INFOS[desc.full_name] = _MsgInfo(desc)
    return mi


def message_class(full_name: str) -> type[Message] | None:
    """``caffe_pb2`` class for ``caffe.X`` / ``X`` (top-level messages only)."""
    name = full_name[6:] if full_name.startswith("caffe.") else full_name
    return getattr(caffe_pb2, name, None) if name in caffe_pb2.DESCRIPTOR.message_types_by_name else None


def _did_you_mean(name: str, candidates: list[str]) -> str:
    m = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
    if not m:
        low = name.lower()
        m = [c for c in candidates if c.lower() == low]
    return f' Did you mean "{m[0]}"?' if m else ""


# ---------------------------------------------------------------------------------------------
# value decoding

_C_OCTAL = re.compile(r"(-?)0(\d+)$")
_TRUE = frozenset(("true", "t", "1", "True"))
_FALSE = frozenset(("false", "f", "0", "False"))
_HEADER_RE = re.compile(r"#\s*proto-message:\s*([A-Za-z_][\w.]*)")


class _BadValue(Exception):
    pass


def _parse_int(tok: str) -> int:
    if tok.isdigit() and (tok[0] != "0" or len(tok) == 1):
        return int(tok)
    t = tok
    m = _C_OCTAL.match(t)
    if m:
        t = m.group(1) + "0o" + m.group(2)
    try:
        return int(t, 0)
    except ValueError:
        raise _BadValue(f"Couldn't parse integer: {tok}") from None


def _parse_float(tok: str) -> float:
    c0 = tok[0]
    if c0 == "-":
        if len(tok) > 2 and tok[1] == "0" and tok[2].isdigit():
            raise _BadValue(f"Invalid octal float: {tok}")
    elif c0 == "0" and len(tok) > 1 and tok[1].isdigit():
        raise _BadValue(f"Invalid octal float: {tok}")
    try:
        return float(tok)
    except ValueError:
        pass
    try:
        return _text_format.ParseFloat(tok)
    except ValueError:
        raise _BadValue(f"Couldn't parse float: {tok}") from None


def _unescape(body: str) -> bytes:
    try:
        with warnings.catch_warnings():  # CUnescape warns on unknown escapes such as "\q"
            warnings.simplefilter("ignore", DeprecationWarning)
            return _text_encoding.CUnescape(body)
    except Exception as e:  # ValueError / UnicodeDecodeError on odd escapes
        raise _BadValue(f"Invalid escape in string: {e}") from None


def _string_value(text: str, starts: list[int], ends: list[int], i: int, j: int, k: int):
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
        raise _BadValue("String is not valid UTF-8 after unescaping") from None


def _generic_value(kind: int, tok: str, text: str, starts, ends, i: int, j: int):
    """Best-effort decoding for fields without a descriptor."""
    if kind == STRING:
        try:
            return _string_value(text, starts, ends, i, j, K_STRING)
        except _BadValue:
            return None
    if kind == NUMBER:
        try:
            return _parse_int(tok)
        except _BadValue:
            try:
                return _parse_float(tok)
            except _BadValue:
                return tok
    return tok


def _decode(fi: _FieldInfo, kind: int, tok: str):
    """(message value, node value) for a non-string scalar token; raises _BadValue."""
    k = fi.k
    if k <= K_UINT64:
        if kind != NUMBER:
            raise _BadValue(
                f'Field "{fi.name}" ({fi.type_name}) needs an integer, found {_describe(kind, tok)}.'
            )
        v = _parse_int(tok)
        lo, hi = _INT_RANGES[k]
        if v < lo or v > hi:
            raise _BadValue(
                f'Value {v} is out of range for {fi.type_name} field "{fi.name}" ({lo}..{hi}).'
            )
        return v, v
    if k == K_FLOAT:
        if kind == NUMBER or kind == IDENT:
            v = _parse_float(tok)
            return v, v
        raise _BadValue(f'Field "{fi.name}" (float) needs a number, found {_describe(kind, tok)}.')
    if k == K_BOOL:
        if tok in _TRUE:
            return True, True
        if tok in _FALSE:
            return False, False
        raise _BadValue(
            f'Field "{fi.name}" (bool) needs true or false, found {_describe(kind, tok)}.'
        )
    if k == K_ENUM:
        if kind == IDENT:
            num = fi.enum_names.get(tok)
            if num is None:
                valid = list(fi.enum_names)
                raise _BadValue(
                    f'Enum type "{fi.enum_full_name}" has no value named {tok}. '
                    f"Valid values: {', '.join(valid)}.{_did_you_mean(tok, valid)}"
                )
            return num, tok
        if kind == NUMBER:
            try:
                num = int(tok, 0)  # as text_format: "01" is not a number here
            except ValueError:
                raise _BadValue(
                    f'Enum type "{fi.enum_full_name}" has no value named {tok}. '
                    f"Valid values: {', '.join(fi.enum_names)}."
                ) from None
            name = fi.enum_numbers.get(num)
            if name is None:
                valid = ", ".join(f"{n} ({v})" for n, v in fi.enum_names.items())
                raise _BadValue(
                    f'Enum type "{fi.enum_full_name}" has no value with number {num}. '
                    f"Valid values: {valid}."
                )
            return num, name
        raise _BadValue(
            f'Field "{fi.name}" ({fi.enum_full_name}) needs an enum value, found {_describe(kind, tok)}.'
        )
    if k == K_STRING or k == K_BYTES:
        raise _BadValue(
            f'Field "{fi.name}" ({fi.type_name}) needs a quoted string, found {_describe(kind, tok)}.'
        )
    raise _BadValue(f'Field "{fi.name}" is a message ({fi.type_name}): write "{fi.name} {{ ... }}".')


def _describe(kind: int, tok: str) -> str:
    if kind == STRING:
        return f"the string {tok}"
    if kind == NUMBER:
        return f"the number {tok}"
    if kind == IDENT:
        return f"the identifier {tok}"
    return f"'{tok}'"


# ---------------------------------------------------------------------------------------------
# parser

_MAX_DEPTH = 64
_CLOSE_OF = {"{": "}", "<": ">"}
_OPENERS = ("{", "<")


class _Parser:
    def __init__(self, text: str, li: LineIndex, root_mi: _MsgInfo, start: int | None = None) -> None:
        """``start``: read from this offset (the start of a top-level field), not from the top."""
        self.text = text
        self.li = li
        if start is None:
            self.kinds, self.starts, self.ends, self.comment_offsets = tokenize(text)
        else:
            self.kinds, self.starts, self.ends, self.comment_offsets = _tokenize(text, start)
        self.i = 0
        self.errors: list[tuple[str, str, int, int]] = []
        self.root_mi = root_mi
        self.layer_entries: list[tuple[Node, Message, bool]] = []
        self.unwind = False
        self.top_col = 0
        self.stack: list[tuple[str, int, int]] = []  # (block name, name start, brace end)
        self.mi_stack: list[_MsgInfo | None] = [root_mi]

    def err(self, code: str, msg: str, s: int, e: int) -> None:
        self.errors.append((code, msg, s, e))

    # -- recovery ---------------------------------------------------------------------------

    def skip_line(self, i: int) -> int:
        """Skip tokens to the start of the next line (nested blocks are skipped whole).

        Stops before a closing brace of the enclosing block.
        """
        kinds, starts, text = self.kinds, self.starts, self.text
        line_end = text.find("\n", starts[i])
        if line_end < 0:
            line_end = len(text)
        depth = 0
        while True:
            k = kinds[i]
            if k == EOF:
                break
            if depth == 0 and starts[i] > line_end:
                break
            if k == "{" or k == "<" or k == "[":
                depth += 1
            elif k == "}" or k == ">" or k == "]":
                if depth == 0:
                    if k != "]":
                        break
                else:
                    depth -= 1
                    if depth == 0:
                        line_end = text.find("\n", starts[i])
                        if line_end < 0:
                            line_end = len(text)
            i += 1
        return i

    def _skip_block(self, i: int) -> int:
        """i at an opening brace; returns the index after its matching close (or EOF)."""
        kinds = self.kinds
        depth = 0
        while True:
            k = kinds[i]
            if k == EOF:
                return i
            if k == "{" or k == "<":
                depth += 1
            elif k == "}" or k == ">":
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1

    # -- fields -----------------------------------------------------------------------------

    def fields(self, msg: Message | None, mi: _MsgInfo | None, depth: int,
               close: str | None, seen: set[str] | None = None) -> tuple[list[Node], int]:
        """Parse fields until ``close`` (consumed) or EOF.  Returns (nodes, end offset).

        ``seen``: the singular fields of ``msg`` already set (when resuming a partial read).
        """
        kinds, starts, ends, text = self.kinds, self.starts, self.ends, self.text
        li = self.li
        err = self.err
        nodes: list[Node] = []
        append = nodes.append
        if seen is None:
            seen = set()
        fields_get = mi.fields.get if mi is not None else None
        i = self.i
        while True:
            k = kinds[i]
            if k == IDENT:
                ns = starts[i]
                ne = ends[i]
                name = text[ns:ne]
                fi = None
                fd = None
                if fields_get is not None:
                    fi = fields_get(name)
                    if fi is None:
                        if depth > 0 and self._starts_new_top_level(i, name):
                            self._report_unclosed(i, name)
                            self.i = i
                            return nodes, ends[i - 1]
                        err(NN011, self._unknown_field_message(mi, name), ns, ne)
                    else:
                        fd = fi.desc
                if depth == 0:
                    self.top_col = ns - text.rfind("\n", 0, ns) - 1
                i += 1
                k = kinds[i]
                colon = k == ":"
                if colon:
                    i += 1
                    k = kinds[i]
                if k == STRING or k == NUMBER or k == IDENT:
                    # ---- scalar value (the hot path)
                    vs = starts[i]
                    j = i + 1
                    if k == STRING:
                        while kinds[j] == STRING:
                            j += 1
                        tok = None
                    else:
                        tok = text[vs:ends[i]]
                    ve = ends[j - 1]
                    value = None
                    if fi is None:
                        if not colon:
                            err(NN010, f'Expected ":" after "{name}".', ne, vs)
                        value = _generic_value(k, tok, text, starts, ends, i, j)
                    else:
                        fk = fi.k
                        try:
                            if not colon:
                                if fk == K_MSG:
                                    raise _BadValue(f'Field "{name}" is a message ({fi.type_name}): '
                                                    f'write "{name} {{ ... }}".')
                                err(NN010, f'Expected ":" between "{name}" and its value.', ne, vs)
                            if k == STRING:
                                if fk == K_STRING and j == i + 1:
                                    value = text[vs + 1:ve - 1]
                                    if "\\" in value:
                                        value = _string_value(text, starts, ends, i, j, fk)
                                elif fk == K_STRING or fk == K_BYTES:
                                    value = _string_value(text, starts, ends, i, j, fk)
                                else:
                                    raise _BadValue(
                                        f'Field "{name}" ({fi.type_name}) needs '
                                        f'{"a { ... } block" if fk == K_MSG else "a number or identifier"}, '
                                        f"found a quoted string."
                                    )
                                mv = value
                            elif fk == K_UINT32 and k == NUMBER and tok.isdigit() and (tok[0] != "0" or len(tok) == 1):
                                mv = value = int(tok)
                                if mv > 4294967295:
                                    mv, value = _decode(fi, k, tok)
                            elif fk == K_FLOAT and k == NUMBER:
                                mv = value = _parse_float(tok)
                            elif fk == K_BOOL:
                                if tok in _TRUE:
                                    mv = value = True
                                elif tok in _FALSE:
                                    mv = value = False
                                else:
                                    mv, value = _decode(fi, k, tok)
                            else:
                                mv, value = _decode(fi, k, tok)
                            if msg is not None:
                                if fi.repeated:
                                    getattr(msg, name).append(mv)
                                else:
                                    if name in seen:
                                        err(NN012, f'Message type "{mi.full_name}" should not have multiple '
                                                   f'"{name}" fields.', ns, ve)
                                    else:
                                        seen.add(name)
                                    setattr(msg, name, mv)
                        except _BadValue as e:
                            err(NN012, str(e), vs, ve)
                            value = None
                    append(_new_node(Node, (name, "scalar", value, (), li, ns, ne, ns, ve, vs, ve, fd)))
                    i = j
                elif k == "{" or k == "<":
                    # ---- message value
                    bs = starts[i]
                    sub = None
                    submi = None
                    if fi is not None:
                        if fi.k != K_MSG:
                            err(NN012, f'Field "{name}" is a {fi.type_name} value, not a message: '
                                       f'write "{name}: <value>".', ns, ends[i])
                        else:
                            submi = fi.minfo
                            if msg is not None:
                                if fi.repeated:
                                    sub = getattr(msg, name).add()
                                else:
                                    if name in seen:
                                        err(NN012, f'Message type "{mi.full_name}" should not have multiple '
                                                   f'"{name}" fields.', ns, ends[i])
                                    else:
                                        seen.add(name)
                                    sub = getattr(msg, name)
                                    sub.SetInParent()
                    if depth >= _MAX_DEPTH:
                        err(NN010, "Blocks are nested too deeply.", bs, ends[i])
                        i = self._skip_block(i)
                        children: list[Node] = []
                        be = ends[i - 1]
                    else:
                        self.i = i + 1
                        self.stack.append((name, ns, ends[i]))
                        self.mi_stack.append(submi)
                        children, be = self.fields(sub, submi, depth + 1, _CLOSE_OF[k])
                        self.mi_stack.pop()
                        self.stack.pop()
                        i = self.i
                    node = _new_node(Node, (name, "message", None, tuple(children), li, ns, ne, ns, be,
                                            bs, be, fd))
                    append(node)
                    if depth == 0 and sub is not None and (name == "layer" or name == "layers"):
                        self.layer_entries.append((node, sub, name == "layers"))
                    if self.unwind:
                        if depth > 0:
                            self.i = i
                            return nodes, be
                        self.unwind = False
                        continue
                elif k == "[":
                    self.i = i
                    node = self._list(msg, mi, fi, name, ns, ne, colon, depth)
                    append(node)
                    i = self.i
                    if self.unwind:
                        if depth > 0:
                            return nodes, node[8]
                        self.unwind = False
                        continue
                elif k == USTRING:
                    err(NN010, "Unterminated string (missing closing quote).", starts[i], ends[i])
                    append(_new_node(Node, (name, "scalar", None, (), li, ns, ne, ns, ends[i], starts[i],
                                            ends[i], fd)))
                    i += 1
                else:
                    # ---- missing value
                    what = "end of file" if k == EOF else f"'{text[starts[i]:ends[i]]}'"
                    err(NN010, f'Expected a value for "{name}", found {what}.', ns, ne if k == EOF else ends[i])
                    append(_new_node(Node, (name, "scalar", None, (), li, ns, ne, ns, ne, ne, ne, fd)))
                    if k == BAD or k == ":" or k == "," or k == ";" or k == "]":
                        i = self.skip_line(i)
                # optional separator
                k = kinds[i]
                if k == "," or k == ";":
                    i += 1
                continue
            if k == "}" or k == ">":
                if close is not None:
                    if k != close:
                        err(NN010, f"Expected '{close}' to close the block, found '{k}'.", starts[i], ends[i])
                    self.i = i + 1
                    return nodes, ends[i]
                err(NN010, f"Unmatched '{k}' (no block is open).", starts[i], ends[i])
                i += 1
                continue
            if k == EOF:
                self.i = i
                if close is not None:
                    bname, bns, bbe = self.stack[-1]
                    err(NN010, f"Missing '{close}': the \"{bname}\" block is never closed.", bns, bbe)
                return nodes, starts[i]
            # anything else where a field name is expected
            if k == USTRING:
                err(NN010, "Unterminated string (missing closing quote).", starts[i], ends[i])
            elif k == BAD:
                err(NN010, f"Unexpected character '{text[starts[i]:ends[i]]}'.", starts[i], ends[i])
            else:
                err(NN010, f"Expected a field name, found '{text[starts[i]:ends[i]]}'.", starts[i], ends[i])
            ni = self.skip_line(i)
            i = ni if ni > i else i + 1

    def _to_list_end(self, i: int) -> int:
        """After an error inside [ ... ]: skip past the closing ']' if it is on the same line
        (and no brace comes first); otherwise stay at i."""
        kinds, starts, text = self.kinds, self.starts, self.text
        line_end = text.find("\n", starts[i])
        if line_end < 0:
            line_end = len(text)
        j = i
        while True:
            k = kinds[j]
            if k == EOF or starts[j] > line_end or k in ("{", "}", "<", ">", "["):
                return i
            if k == "]":
                return j + 1
            j += 1

    def _starts_new_top_level(self, i: int, name: str) -> bool:
        """A name unknown here but valid at the top level (a ``layer`` must open a block), on
        its own line at a column not deeper than the enclosing top-level field: a '}' is
        missing before it."""
        if name not in self.root_mi.fields:
            return False
        kinds, starts, text = self.kinds, self.starts, self.text
        j = i + 1
        if kinds[j] == ":":
            j += 1
        if kinds[j] not in _OPENERS and (name == "layer" or name == "layers"):
            return False
        s = starts[i]
        line_start = text.rfind("\n", 0, s) + 1
        if text[line_start:s].strip():
            return False
        return s - line_start <= self.top_col

    def _report_unclosed(self, i: int, name: str) -> None:
        line = self.li.position(self.starts[i]).line + 1
        for block, s, e in reversed(self.stack):
            self.err(NN010, f'Missing \'}}\': the "{block}" block is not closed before the top-level '
                            f'"{name}" on line {line}.', s, e)
        self.unwind = True

    def _unknown_field_message(self, mi: _MsgInfo, name: str) -> str:
        msg = f'Message type "{mi.full_name}" has no field named "{name}".'
        hint = _did_you_mean(name, mi.names)
        if not hint:
            # a field of an enclosing message: probably a misplaced '}'
            for outer in self.mi_stack[:-1]:
                if outer is not None and name in outer.fields:
                    hint = f' "{name}" is a field of the enclosing {outer.full_name}: is a "}}" misplaced?'
                    break
        return msg + hint

    def _list(self, msg, mi, fi, name, ns, ne, colon, depth) -> Node:
        kinds, starts, ends, text, li = self.kinds, self.starts, self.ends, self.text, self.li
        fd = fi.desc if fi is not None else None
        i = self.i
        ls = starts[i]
        i += 1
        fi_use = fi
        if fi is not None and not fi.repeated:
            self.err(NN012, f'Field "{name}" is not repeated: a [ ... ] list is not allowed.', ls, ends[i - 1])
            fi_use = None
        if fi is not None and fi.k != K_MSG and not colon:
            self.err(NN010, f'Expected ":" between "{name}" and its value.', ne, ls)
        elements: list[Node] = []
        values: list = []
        target = getattr(msg, name) if (msg is not None and fi_use is not None) else None
        le = ends[i - 1]
        while True:
            k = kinds[i]
            if k == "]":
                le = ends[i]
                i += 1
                break
            if k == IDENT or k == NUMBER or k == STRING:
                vs = starts[i]
                j = i + 1
                if k == STRING:
                    while kinds[j] == STRING:
                        j += 1
                ve = ends[j - 1]
                tok = text[vs:ends[i]]
                value = None
                if fi_use is None:
                    value = _generic_value(k, tok, text, starts, ends, i, j)
                else:
                    try:
                        if k == STRING:
                            if fi_use.k not in (K_STRING, K_BYTES):
                                raise _BadValue(f'Field "{name}" ({fi_use.type_name}) does not take a quoted string.')
                            mv = value = _string_value(text, starts, ends, i, j, fi_use.k)
                        else:
                            mv, value = _decode(fi_use, k, tok)
                        if target is not None:
                            target.append(mv)
                    except _BadValue as e:
                        self.err(NN012, str(e), vs, ve)
                        value = None
                elements.append(_new_node(Node, (name, "scalar", value, (), li, ns, ne, vs, ve, vs, ve, fd)))
                values.append(value)
                i = j
                le = ve
            elif k == "{" or k == "<":
                bs = starts[i]
                sub = None
                submi = None
                if fi_use is not None:
                    if fi_use.k == K_MSG:
                        submi = fi_use.minfo
                        sub = target.add() if target is not None else None
                    else:
                        self.err(NN012, f'Field "{name}" is a {fi_use.type_name} value, not a message.', bs, ends[i])
                if depth + 1 >= _MAX_DEPTH:
                    self.err(NN010, "Blocks are nested too deeply.", bs, ends[i])
                    i = self._skip_block(i)
                    children, be = [], ends[i - 1]
                else:
                    self.i = i + 1
                    self.stack.append((name, ns, ends[i]))
                    self.mi_stack.append(submi)
                    children, be = self.fields(sub, submi, depth + 1, _CLOSE_OF[k])
                    self.mi_stack.pop()
                    self.stack.pop()
                    i = self.i
                elements.append(_new_node(Node, (name, "message", None, tuple(children), li, ns, ne, bs, be,
                                                 bs, be, fd)))
                values.append(None)
                le = be
                if self.unwind:
                    break
            else:
                what = "end of file" if k == EOF else f"'{text[starts[i]:ends[i]]}'"
                self.err(NN010, f"Expected a value or ']' in the list, found {what}.", starts[i],
                         ends[i] if k != EOF else starts[i])
                i = self._to_list_end(i)
                break
            k = kinds[i]
            if k == ",":
                i += 1
                continue
            if k == "]":
                continue
            what = "end of file" if k == EOF else f"'{text[starts[i]:ends[i]]}'"
            self.err(NN010, f"Expected ',' or ']' in the list, found {what}.", starts[i], ends[i])
            i = self._to_list_end(i)
            break
        self.i = i
        return _new_node(Node, (name, "list", tuple(values), tuple(elements), li, ns, ne, ns, le, ls, le, fd))


# ---------------------------------------------------------------------------------------------
# fast path
#
# Most files are valid and use a handful of line shapes (``name: value``, ``name {``, ``}``,
# ``# comment``).  ``_fast_parse`` reads such files one *statement* per regex match, without a
# token list, and builds exactly what the general parser would.  At the first thing it does
# not handle (any error, unknown field, list, ``,``/``;`` separator, escaped or adjacent
# strings, ...) it stops and the general parser takes over at the start of the top-level field
# being read (what it is done with is undone): the general parser's state at that point is
# exactly what the fast path built, so the output never depends on which path read what.

# The sub-patterns are the tokenizer's; possessive quantifiers keep the engine from
# backtracking into a token, so a statement splits into exactly the tokenizer's tokens.
_STMT_RE = re.compile(
    r"""\s*+(?:
      ([A-Za-z_][0-9A-Za-z_+-]*+)\s*+(?:                    # 1 field name
          :\s*+(?:
              ("[^"\n\\]*+"|'[^'\n\\]*+')                   # 2 simple string
             |((?:[0-9+-]|\.[0-9])[0-9A-Za-z_.+-]*+)        # 3 number
             |([A-Za-z_][0-9A-Za-z_+-]*+)                   # 4 identifier
          )
         |(?::\s*+)?([{<])                                  # 5 block opening
      )
     |([}>])                                                # 6 block closing
     |(\#[^\n\r]*+)                                         # 7 comment
     |(\S)                                                  # 8 anything else: give up
    )""",
    re.X,
)
_S_STRING, _S_NUMBER, _S_IDENT, _S_OPEN, _S_CLOSE, _S_COMMENT = 2, 3, 4, 5, 6, 7
_S_KIND = (None, None, STRING, NUMBER, IDENT)


def _fast_decode(fi: _FieldInfo, kind: int, tok: str):
    """(message value, node value) of an unquoted token, as the general parser decodes it."""
    fk = fi.k
    if fk == K_UINT32 and kind == NUMBER and tok.isdigit() and (tok[0] != "0" or len(tok) == 1):
        v = int(tok)
        return (v, v) if v <= 4294967295 else _decode(fi, kind, tok)
    if fk == K_FLOAT and kind == NUMBER:
        v = _parse_float(tok)
        return v, v
    if fk == K_BOOL:
        if tok in _TRUE:
            return True, True
        if tok in _FALSE:
            return False, False
    return _decode(fi, kind, tok)


def _undo_field(msg: Message, seen: set[str], fi: _FieldInfo) -> None:
    """Undo the last occurrence of a (fully or partly read) top-level field."""
    if fi.repeated:
        del getattr(msg, fi.name)[-1]
    else:
        msg.ClearField(fi.name)
        seen.discard(fi.name)


def _fast_parse(text: str, li: LineIndex, msg: Message, root_mi: _MsgInfo):
    """Read ``text`` into ``msg`` as far as the fast path can.

    Returns ``(nodes, layer_entries, comment_offsets, resume)``: ``resume`` is ``None`` if the
    whole file was read, else ``(offset, seen)``: the general parser must go on from
    ``offset`` (the start of a top-level field) with ``seen`` the singular root fields already
    set; the other items hold what comes before ``offset``.  Returns ``None`` if the general
    parser must read the whole file into a fresh message.
    """
    nodes: list[Node] = []
    append = nodes.append
    layer_entries: list[tuple[Node, Message, bool]] = []
    comments: list[tuple[int, int]] = []
    # one entry per open block: the enclosing level's state + the block's own data
    stack: list[tuple] = []
    push, pop = stack.append, stack.pop
    mi = root_mi
    fields_get = mi.fields.get
    seen: set[str] = set()
    node_cls = Node
    k_string, k_bytes, k_msg = K_STRING, K_BYTES, K_MSG
    kinds = _S_KIND
    max_depth = _MAX_DEPTH
    m = None
    try:
        for m in _STMT_RE.finditer(text, 1 if text.startswith("\ufeff") else 0):
            k = m.lastindex
            if k <= 4:
                # ---- name: scalar  (k: 2 string, 3 number, 4 identifier)
                name = m[1]
                fi = fields_get(name)
                if fi is None:
                    break
                tok = m[k]
                if k == 2:
                    fk = fi.k
                    if fk == k_string:
                        mv = value = tok[1:-1]
                    elif fk == k_bytes:
                        mv = value = tok[1:-1].encode("utf-8")
                    else:
                        break
                else:
                    # decoded values of unquoted tokens are cached per field (1, 0.1, true...)
                    cache = fi.fast_values
                    r = cache.get(tok)
                    if r is None:
                        r = _fast_decode(fi, kinds[k], tok)
                        if len(cache) < 512:
                            cache[tok] = r
                    mv, value = r
                if fi.repeated:
                    getattr(msg, name).append(mv)
                elif name in seen:
                    break
                else:
                    seen.add(name)
                    setattr(msg, name, mv)
                ns = m.start(1)
                vs, ve = m.span(k)
                # fi.name: one shared string per field name instead of one per occurrence
                append(node_cls((fi.name, "scalar", value, (), li, ns, ns + len(name), ns, ve, vs, ve, fi.desc)))
            elif k == 5:
                # ---- name {  : push the current level
                name = m[1]
                fi = fields_get(name)
                if fi is None or fi.k != k_msg or len(stack) >= max_depth:
                    break
                if fi.repeated:
                    sub = getattr(msg, name).add()
                elif name in seen:
                    break
                else:
                    seen.add(name)
                    sub = getattr(msg, name)  # marked present when a field is set, or at '}'
                push((nodes, msg, mi, seen, fi.name, m.start(1), fi, m.start(5), "}" if m[5] == "{" else ">"))
                nodes = []
                append = nodes.append
                msg = sub
                mi = fi._minfo or fi.minfo
                fields_get = mi.fields.get
                seen = set()
            elif k == 6:
                # ---- }  : pop
                if not stack or m[6] != stack[-1][8]:
                    break
                children = nodes
                nodes, parent, mi, seen, name, ns, fi, bs, close = pop()
                if not children and not fi.repeated:
                    msg.SetInParent()  # an empty singular block: "name { }"
                be = m.end(6)
                append = nodes.append
                fields_get = mi.fields.get
                node = node_cls((name, "message", None, tuple(children), li, ns, ns + len(name), ns, be,
                                 bs, be, fi.desc))
                append(node)
                if not stack and (name == "layer" or name == "layers"):
                    layer_entries.append((node, msg, name == "layers"))
                msg = parent
            elif k == 7:
                comments.append(m.span(7))
            else:
                break
        else:
            if not stack:
                return nodes, layer_entries, comments, None
    except _BadValue:
        pass
    # ---- hand over to the general parser
    if stack:
        # inside a top-level block: undo it and resume at its name
        nodes, msg, _, seen, _, offset, fi, _, _ = stack[0]
        _undo_field(msg, seen, fi)
    else:
        # at the top level: resume here (nothing of this statement was done yet) unless the
        # previous field may take this token ("a" "b", a ',' / ';' separator): then read that
        # field again too
        offset = m.start(1) if m[1] is not None else m.start(m.lastindex)
        if text[offset] in "\"',;":
            if not nodes:
                return None
            last = nodes.pop()
            _undo_field(msg, seen, root_mi.fields[last[0]])
            if layer_entries and layer_entries[-1][0] is last:
                layer_entries.pop()
            offset = last[7]
    while comments and comments[-1][0] >= offset:
        comments.pop()
    return nodes, layer_entries, comments, (offset, seen)

# ---------------------------------------------------------------------------------------------
# entry point


def parse_prototxt(text: str, path: str | None = None, message_type: str | None = None) -> PrototxtDocument:
    """Read a prototxt.  Never raises; problems are in ``errors``.

    The root message is ``caffe.NetParameter`` unless ``message_type`` is given or the file
    starts with a ``# proto-message: caffe.X`` header comment.
    """
    li = LineIndex(text)
    header_errors: list[tuple[str, str, int, int]] = []
    root_name = "caffe.NetParameter"
    # the header is looked up before parsing (cheap: only leading comments)
    lead = text[:4096]
    hm = _HEADER_RE.search(lead) if "proto-message" in lead else None
    requested = message_type
    if requested is None and hm is not None:
        # only honour it if nothing but comments/whitespace precedes it
        before = text[:hm.start()]
        if all(not ln.strip() or ln.lstrip().startswith("#") for ln in before.split("\n")):
            requested = hm.group(1)
            if message_class(requested) is None:
                header_errors.append((NN011, f'Unknown message type "{requested}" in the proto-message header; '
                                             f"reading the file as caffe.NetParameter.", hm.start(1), hm.end(1)))
                requested = None
    if requested is not None and message_class(requested) is not None:
        root_name = "caffe." + (requested[6:] if requested.startswith("caffe.") else requested)
    cls = message_class(root_name) or caffe_pb2.NetParameter
    msg = cls()
    root_mi = _msg_info(cls.DESCRIPTOR)
    # The tree is many small acyclic objects: the cyclic GC only costs time while it is built.
    # At the end one gen-1 collection moves it to the oldest generation at once; otherwise the
    # next allocation would trigger a gen-0 pass over all of it and a later gen-1 pass would
    # traverse it again (about 10 ms each on a 30k-line file).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        try:
            fast = _fast_parse(text, li, msg, root_mi)
        except Exception:  # pragma: no cover - safety net: the general parser reads it all
            fast = None
        if fast is not None and fast[3] is None:
            nodes, layer_entries, comment_offsets, _ = fast
            raw_errors = header_errors
        else:
            if fast is None:
                msg = cls()
                p = _Parser(text, li, root_mi)
                seen = None
                nodes = layer_entries = comment_offsets = []
            else:
                # the general parser goes on where the fast path stopped
                nodes, layer_entries, comment_offsets, (offset, seen) = fast
                p = _Parser(text, li, root_mi, offset)
            p.errors.extend(header_errors)
            p.layer_entries = layer_entries + p.layer_entries
            try:
                rest, _ = p.fields(msg, root_mi, 0, None, seen)
                nodes = nodes + rest
            except RecursionError:
                nodes = []
                p.errors.append((NN010, "Blocks are nested too deeply.", 0, 0))
            except Exception as e:  # pragma: no cover - safety net; tests assert it never triggers
                nodes = []
                p.errors.append((NN010, f"internal error: {type(e).__name__}: {e}", 0, 0))
            layer_entries, raw_errors = p.layer_entries, p.errors
            comment_offsets = comment_offsets + p.comment_offsets
    finally:
        if gc_was_enabled:
            gc.enable()
            gc.collect(1)
    errors = sorted(
        (ProtoError(code, message, li.range(s, max(s, e))) for code, message, s, e in raw_errors),
        key=lambda er: (er.range.start, er.range.end),
    )
    comments = tuple((li.range(s, e), text[s:e]) for s, e in comment_offsets)
    layers = tuple(
        LayerSource(idx, node, sub, v1) for idx, (node, sub, v1) in enumerate(layer_entries)
    )
    return PrototxtDocument(
        text=text,
        path=path,
        line_index=li,
        message=msg,
        nodes=tuple(nodes),
        layers=layers,
        errors=tuple(errors),
        comments=comments,
        message_type=root_name,
    )

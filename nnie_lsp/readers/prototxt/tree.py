"""The source tree of a prototxt: the immutable document the reader returns.

- :class:`Node` -- one field occurrence (name, kind, decoded value, children, descriptor), with
  its exact ranges computed on demand from offsets;
- :class:`LayerSource` -- one ``layer { }`` (or V1 ``layers { }``) block with its parameter
  message and the ranges of its name, type, bottoms and tops;
- :class:`PrototxtDocument` -- text, message, top-level nodes, layers, comments and errors
  (:class:`ProtoError` with code ``NN010`` syntax, ``NN011`` unknown field, ``NN012`` bad value).
"""

from __future__ import annotations

from operator import itemgetter
from typing import Iterator

from google.protobuf.message import Message

from nnie_lsp.core.records import NamedTuple
from nnie_lsp.core.text import LineIndex, Position, Range

NN010 = "NN010"  # syntax error
NN011 = "NN011"  # unknown field
NN012 = "NN012"  # bad value


class ProtoError(NamedTuple):
    code: str
    message: str
    range: Range

    def __str__(self) -> str:
        return f"{self.range.start}: {self.code} {self.message}"


class Node(tuple):
    """One field occurrence.  Immutable; ranges are computed on demand.

    ``kind`` is ``"scalar"``, ``"message"`` or ``"list"`` (``name: [a, b]``; its children are the
    elements).  ``value`` is the decoded scalar (``None`` if invalid; enum values by name; a
    tuple for lists; ``None`` for messages).  ``field`` is the ``FieldDescriptor`` or ``None``
    for unknown fields.

    The parser and the fast path build the tuple directly, in this order: ``(name, kind, value,
    children, line_index, name_start, name_end, start, end, value_start, value_end, field)``
    (offsets into ``line_index.text``).
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


class PrototxtDocument(NamedTuple):
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

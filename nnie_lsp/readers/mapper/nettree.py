"""Reader for the mapper's compiled network ``cnn_net_tree.dot`` in the NNIE label format.

The format (``docs/field-facts.md §16.2``, seen in real NNIE 1.1 and 1.2 files): one DOT node per
mapper node, the node id is the node's name, edges ``a -> b;``, and the label is ``\\n``-separated
lines: the name, then ``key: value`` fields, several per line for some of them::

    conv1\\n net segment id: 0\\n id: 1  type: 0\\ntype name: Convolution\\n input size: 3*640*640
    \\n output size: 64*319*319\\n kernel_h: 3 kernel_w: 3\\n stride_h: 2 stride_w: 2\\n pad_h: 0 pad_w: 0
    \\n pad_up: 0 pad_down -1\\n pad_left: 0 pad_right -1\\n report_flag: 0\\n bond_type: 1
    \\n data_bit_mode: 0\\n aligned_input_data_size: …\\n data_delta: 0

(note ``pad_down -1`` without a colon).  Every field is kept raw in :attr:`TreeNode.fields`; the
known ones are also parsed: segment, numeric id and type, type name, sizes as integer dims,
kernel / stride / pad, report flag, bond type, ``data_bit_mode`` (raw: its meaning is not
documented, §16.2) and ``data_delta`` (a number, or a pair for Concat).

Mapper rewrites are visible here (§16.2, §9): ``permute_<k>`` nodes of type ``Permute (batch)``
after every Normalize (and Upsample / ROIPooling / PSROIPooling), ``Reportop`` nodes named
``<top>_report_<segment>_<k>``, the data input as a ``Preprocess`` node named after its blob.

Labels in other formats (ATC-style ``name:`` / ``type:`` lines, records, free text) are read by
:mod:`.dot_labels`: every node has a :attr:`TreeNode.reading` (a name, a type, a node number,
merged operators, in any label format), which the triage's dot pass pairs dumps with
(:mod:`nnie_lsp.triage.align.dot_nodes`); :meth:`NetTree.by_key`, :meth:`NetTree.by_number`,
:meth:`NetTree.topo_order` and :meth:`NetTree.describe_labels` answer from it.  This is the one
reader of ``cnn_net_tree.dot`` (lint, hover and triage), on the one DOT tokenizer :mod:`.dot`.

Never raises: :func:`parse_net_tree` accepts any ``str``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable, Iterable

from nnie_lsp.core import safe_io
from nnie_lsp.core.text import LineIndex, Range, read_text
from nnie_lsp.readers.mapper.dot import DotEdge, DotNodeStatement, label_lines, parse_dot_syntax
from nnie_lsp.readers.mapper.dot_labels import NAME_SOURCES, LabelReading, read_label

__all__ = [
    "TreeNode", "ReportPoint", "LayerView", "NetTree", "parse_net_tree", "read_net_tree", "parse_dims",
    "report_point_of", "inserted_by_mapper", "BIT_MODE_NOTE",
]

BIT_MODE_NOTE = "meaning undocumented"

# Fields whose value is the rest of the line (it may hold blanks: "Permute (batch)", "(a, b)").
_WHOLE_LINE_KEYS = frozenset({
    "net segment id", "type name", "input size", "output size", "data_delta",
    "aligned_input_data_size", "aligned_output_data_size",
})
# Patterns are linear on any label line (ends are trimmed in Python), whatever the file holds.
_LINE_KEY_RE = re.compile(r"^\s*(?P<key>[A-Za-z_][^:]*):(?P<value>.*)$")
_KEY_WORDS_RE = re.compile(r"[A-Za-z_][\w ]*")
# "id: 1  type: 0", "kernel_h: 3 kernel_w: 3", "pad_up: 0 pad_down -1" (colon optional)
_PAIR_RE = re.compile(r"\b(?P<key>[A-Za-z_]\w*)(?:\s*:\s*|\s+)(?P<value>[-+]?[\w.]+)")
# "pad_up: 0 pad_down -1": the value of a one-colon line that is really two pairs
_COLONLESS_TAIL_RE = re.compile(r"^[-+]?[\w.]+\s+[A-Za-z_]\w*\s+[-+]?\d+$")
_DIMS_RE = re.compile(r"[0-9]+(?:\s*[*xX×]\s*[0-9]+)*")
_NUMBER_RE = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_REPORT_RE = re.compile(r"^(?P<top>.+)_report_(?P<segment>\d{1,9})_(?P<k>\d{1,9})$")   # no segment or index past 9 digits
_PERMUTE_NAME_RE = re.compile(r"^permute_\d+$")
_QUALIFIER_RE = re.compile(r"\(([^()]*)\)\s*$")


def parse_dims(text: str) -> tuple[tuple[int, ...], ...]:
    """Every ``C*H*W`` group in a size field: ``"3*640*640"`` → ``((3, 640, 640),)``."""
    out = []
    for match in _DIMS_RE.finditer(text):
        dims = tuple(_int(part) for part in re.split(r"\s*[*xX×]\s*", match.group(0)))
        if None not in dims:
            out.append(dims)
    return tuple(out)  # type: ignore[arg-type]


def _int(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return int(text.strip())
    except ValueError:  # not a number, or more digits than Python converts
        return None


def _numbers(text: str) -> tuple[float, ...]:
    out = []
    for match in _NUMBER_RE.finditer(text):
        try:
            out.append(float(match.group(0)))
        except ValueError:  # pragma: no cover - the pattern only matches floats
            continue
    return tuple(out)


def _label_fields(lines: list[str]) -> tuple[str | None, tuple[tuple[str, str], ...]]:
    """(name line, fields) of an NNIE label; keys are lower-cased and blank-normalised."""
    name = None
    fields: list[tuple[str, str]] = []
    for number, line in enumerate(lines):
        text = line.strip()
        if not text:
            continue
        match = _LINE_KEY_RE.match(text)
        if match and not _KEY_WORDS_RE.fullmatch(match.group("key").rstrip()):
            match = None
        key = " ".join(match.group("key").lower().split()) if match else ""
        value = match.group("value").strip() if match else ""
        if match and key in _WHOLE_LINE_KEYS:
            fields.append((key, value))
            continue
        if ":" not in text and number == 0:
            name = text
            continue
        colons = text.count(":")
        tail = _COLONLESS_TAIL_RE.match(value) if match and colons == 1 else None
        if colons >= 2 or tail:
            fields.extend((pair.group("key").lower(), pair.group("value")) for pair in _PAIR_RE.finditer(text))
        elif match:
            fields.append((key, value))
        else:
            fields.append(("", text))  # a line we cannot split: kept whole
    return name, tuple(fields)


@dataclass(frozen=True, slots=True)
class ReportPoint:
    """A ``Reportop`` node ``<top>_report_<segment>_<k>``: the blob it reports and where."""

    top: str
    segment: int
    k: int


def _base_type(type_name: str | None) -> str | None:
    if type_name is None:
        return None
    return _QUALIFIER_RE.sub("", type_name).strip() or type_name


def _type_qualifier(type_name: str | None) -> str | None:
    match = _QUALIFIER_RE.search(type_name or "")
    return match.group(1).strip() if match else None


def report_point_of(name: str, type_name: str | None) -> ReportPoint | None:
    """``<top>_report_<segment>_<k>`` → (top, segment, k) for a node of type ``Reportop`` (or of no
    type) so named."""
    if type_name not in (None, "Reportop"):
        return None
    match = _REPORT_RE.match(name)
    if not match:
        return None
    return ReportPoint(match.group("top"), int(match.group("segment")), int(match.group("k")))


def inserted_by_mapper(name: str, type_name: str | None) -> bool:
    """A node the mapper added (not a prototxt layer): a qualified type such as ``Permute (batch)``,
    or a ``permute_<k>`` Permute node (§16.2).  Reportop nodes are told apart by
    :func:`report_point_of`."""
    if _type_qualifier(type_name) is not None:
        return True
    return bool(_PERMUTE_NAME_RE.match(name)) and (_base_type(type_name) or "Permute") == "Permute"


@dataclass(frozen=True)
class TreeNode:
    """One mapper node.  ``None`` = the field is not in the label."""

    name: str  # the DOT node id = the node's name
    label: str = ""
    label_name: str | None = None  # first label line, when it is a bare name
    fields: tuple[tuple[str, str], ...] = ()  # every label field, raw, in order
    range: Range | None = None  # the node statement in the dot file
    attrs: tuple[tuple[str, str], ...] = ()  # the DOT attributes as written (names lower-cased)
    segment: int | None = None
    node_id: int | None = None  # the numeric ``id`` field
    type_code: int | None = None  # the numeric ``type`` field
    type_name: str | None = None  # "Convolution", "Permute (batch)", "Preprocess", "Reportop" …
    input_sizes: tuple[tuple[int, ...], ...] = ()
    output_sizes: tuple[tuple[int, ...], ...] = ()
    kernel: tuple[int | None, int | None] | None = None  # (h, w)
    stride: tuple[int | None, int | None] | None = None
    pad: tuple[int | None, int | None] | None = None  # (pad_h, pad_w)
    pad_sides: tuple[int | None, int | None, int | None, int | None] | None = None  # up, down, left, right
    report_flag: int | None = None
    bond_type: int | None = None
    data_bit_mode: str | None = None  # raw: meaning undocumented
    data_delta: float | tuple[float, ...] | None = None
    data_delta_raw: str | None = None

    def field(self, key: str) -> str | None:
        """The first raw value of a label field (keys lower-case: ``"net segment id"``)."""
        for name, value in self.fields:
            if name == key:
                return value
        return None

    @property
    def is_nnie_label(self) -> bool:
        """The label is in the NNIE format: a ``net segment id`` field, or a bare name line followed
        by a ``type name`` field (ATC-style labels start with ``type name:`` / ``name:`` fields)."""
        return self.segment is not None or (self.label_name is not None and self.type_name is not None)

    @property
    def base_type(self) -> str | None:
        """The type name without a mapper qualifier: ``"Permute (batch)"`` → ``"Permute"``."""
        return _base_type(self.type_name)

    @property
    def type_qualifier(self) -> str | None:
        """``"batch"`` for ``"Permute (batch)"``; ``None`` without a qualifier."""
        return _type_qualifier(self.type_name)

    @property
    def is_mapper_inserted(self) -> bool:
        """A node the mapper added, by its ``type name`` field (:func:`inserted_by_mapper`)."""
        return inserted_by_mapper(self.name, self.type_name)

    @property
    def report_point(self) -> ReportPoint | None:
        """What a ``Reportop`` node reports, by its ``type name`` field (:func:`report_point_of`)."""
        return report_point_of(self.name, self.type_name)

    @cached_property
    def reading(self) -> LabelReading:
        """The node's name, type, number and merged operators in any label format: from the fields
        of an NNIE label (the name line, else the id; ``type name``; the numeric ``id``), else
        :func:`~nnie_lsp.readers.mapper.dot_labels.read_label` (with the DOT ``type`` attribute)."""
        if self.is_nnie_label:
            return LabelReading(self.label_name or self.name, self.type_name, (), self.node_id, "NNIE label")
        return read_label(self.name, self.label, dict(self.attrs).get("type"))

    @property
    def output_size(self) -> tuple[int, ...] | None:
        return self.output_sizes[0] if self.output_sizes else None

    def describe_bit_mode(self) -> str | None:
        if self.data_bit_mode is None:
            return None
        return f"data_bit_mode {self.data_bit_mode} ({BIT_MODE_NOTE})"


def _pair(node_fields: dict[str, str], first: str, second: str) -> tuple[int | None, int | None] | None:
    if first not in node_fields and second not in node_fields:
        return None
    return _int(node_fields.get(first)), _int(node_fields.get(second))


def _build_node(statement: DotNodeStatement) -> TreeNode:
    label = statement.attr("label")
    name, fields = _label_fields(label_lines(label)) if label else (None, ())
    first: dict[str, str] = {}
    for key, value in fields:
        first.setdefault(key, value)
    delta_raw = first.get("data_delta")
    delta_numbers = _numbers(delta_raw) if delta_raw is not None else ()
    delta: float | tuple[float, ...] | None
    if not delta_numbers:
        delta = None
    elif len(delta_numbers) == 1 and "(" not in (delta_raw or ""):
        delta = delta_numbers[0]
    else:
        delta = delta_numbers
    sides = None
    if any(k in first for k in ("pad_up", "pad_down", "pad_left", "pad_right")):
        sides = tuple(_int(first.get(k)) for k in ("pad_up", "pad_down", "pad_left", "pad_right"))
    type_name = first.get("type name")
    return TreeNode(
        name=statement.id,
        label=label,
        label_name=name,
        fields=fields,
        range=statement.range,
        attrs=statement.attrs,
        segment=_int(first.get("net segment id")),
        node_id=_int(first.get("id")),
        type_code=_int(first.get("type")),
        type_name=" ".join(type_name.split()) if type_name else None,
        input_sizes=parse_dims(first.get("input size", "")),
        output_sizes=parse_dims(first.get("output size", "")),
        kernel=_pair(first, "kernel_h", "kernel_w"),
        stride=_pair(first, "stride_h", "stride_w"),
        pad=_pair(first, "pad_h", "pad_w"),
        pad_sides=sides,  # type: ignore[arg-type]
        report_flag=_int(first.get("report_flag")),
        bond_type=_int(first.get("bond_type")),
        data_bit_mode=first.get("data_bit_mode"),
        data_delta=delta,
        data_delta_raw=delta_raw,
    )


@dataclass(frozen=True)
class LayerView:
    """The mapper's view of one prototxt layer (for hover): its node and the nodes it added."""

    layer: str
    node: TreeNode
    inserted: tuple[TreeNode, ...] = ()  # mapper-inserted nodes that follow it (permute_<k> …)
    reports: tuple[TreeNode, ...] = ()  # Reportop nodes reporting its output

    @property
    def segments(self) -> tuple[int, ...]:
        found = [n.segment for n in (self.node, *self.inserted) if n.segment is not None]
        return tuple(dict.fromkeys(found))

    @property
    def node_types(self) -> tuple[str, ...]:
        return tuple(n.type_name for n in (self.node, *self.inserted) if n.type_name)

    def describe(self) -> list[str]:
        """Plain lines: segment, node type(s), output size, bit mode (raw, meaning undocumented)."""
        node = self.node
        lines = [f"cnn_net_tree.dot node `{node.name}`"]
        if self.segments:
            lines.append("segment " + ", ".join(str(s) for s in self.segments))
        if self.node_types:
            lines.append("node type(s): " + " → ".join(self.node_types))
        if node.output_sizes:
            lines.append("output size: " + ", ".join("×".join(map(str, dims)) for dims in node.output_sizes))
        if node.data_bit_mode is not None:
            lines.append(f"data_bit_mode: {node.data_bit_mode} ({BIT_MODE_NOTE})")
        for extra in self.inserted:
            details = [extra.type_name or "no type"]
            if extra.output_size:
                details.append("output " + "×".join(map(str, extra.output_size)))
            if extra.data_bit_mode is not None:
                details.append(f"data_bit_mode {extra.data_bit_mode}, {BIT_MODE_NOTE}")
            lines.append(f"followed by mapper node `{extra.name}` ({'; '.join(details)})")
        for report in self.reports:
            lines.append(f"reported as `{report.name}`")
        return lines


def _plain_key(name: str) -> str:
    return name.strip().replace("/", "_").replace("\\", "_")


@dataclass(frozen=True)
class NetTree:
    """A ``cnn_net_tree.dot``: nodes in file order, edges, what could not be used."""

    nodes: dict  # name -> TreeNode, file order
    edges: tuple[DotEdge, ...] = ()
    warnings: tuple[str, ...] = ()
    path: str | None = None
    graph_name: str | None = None
    line_index: LineIndex | None = field(default=None, compare=False, repr=False)

    @cached_property
    def _successors(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {name: [] for name in self.nodes}
        for edge in self.edges:
            out.setdefault(edge.source, []).append(edge.target)
        return out

    @cached_property
    def _predecessors(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {name: [] for name in self.nodes}
        for edge in self.edges:
            out.setdefault(edge.target, []).append(edge.source)
        return out

    def successors(self, name: str) -> list[str]:
        return list(self._successors.get(name, ()))

    def predecessors(self, name: str) -> list[str]:
        return list(self._predecessors.get(name, ()))

    @property
    def is_nnie_format(self) -> bool:
        """Most labelled nodes use the NNIE label format."""
        labelled = [n for n in self.nodes.values() if n.label]
        return bool(labelled) and 2 * sum(n.is_nnie_label for n in labelled) > len(labelled)

    @property
    def segments(self) -> tuple[int, ...]:
        return tuple(sorted({n.segment for n in self.nodes.values() if n.segment is not None}))

    def find(self, name: str, key: Callable[[str], str] | None = None) -> TreeNode | None:
        """The node named ``name``: exact, then with ``/`` and ``\\`` read as ``_``, then by ``key``
        (a caller's name normalisation, applied to both sides)."""
        node = self.nodes.get(name)
        if node is not None:
            return node
        for keyer in (_plain_key, key):
            if keyer is None:
                continue
            wanted = keyer(name)
            for candidate in self.nodes.values():
                if keyer(candidate.name) == wanted:
                    return candidate
        return None

    def inserted_nodes(self) -> list[TreeNode]:
        """Nodes the mapper added (``Permute (batch)``, ``permute_<k>``), in file order."""
        return [n for n in self.nodes.values() if n.is_mapper_inserted]

    def report_nodes(self) -> list[TreeNode]:
        return [n for n in self.nodes.values() if n.report_point is not None]

    @staticmethod
    def _is_layer_node(node: TreeNode, reading: bool = False) -> bool:
        type_name = node.reading.type if reading else node.type_name
        return not inserted_by_mapper(node.name, type_name) and report_point_of(node.name, type_name) is None

    def followed_layer(self, name: str, *, reading: bool = False) -> TreeNode | None:
        """For a mapper-inserted (or report) node: the nearest layer node before it, through edges
        (inserted chains are walked back; the first predecessor in file order wins).  ``reading``:
        tell the mapper's nodes by the type of :attr:`TreeNode.reading` (any label format) instead
        of the ``type name`` field."""
        seen = {name}
        frontier = self.predecessors(name)
        while frontier:
            nxt: list[str] = []
            for pred in frontier:
                if pred in seen:
                    continue
                seen.add(pred)
                node = self.nodes.get(pred)
                if node is None:
                    continue
                if self._is_layer_node(node, reading):
                    return node
                nxt.extend(self.predecessors(pred))
            frontier = nxt
        return None

    def inserted_after(self, name: str) -> list[TreeNode]:
        """Mapper-inserted nodes that follow the layer node ``name`` (chains included)."""
        out: list[TreeNode] = []
        seen = {name}
        frontier = self.successors(name)
        while frontier:
            nxt: list[str] = []
            for succ in frontier:
                node = self.nodes.get(succ)
                if succ in seen or node is None or not node.is_mapper_inserted:
                    continue
                seen.add(succ)
                out.append(node)
                nxt.extend(self.successors(succ))
            frontier = nxt
        return out

    def view_of(self, layer: str, key: Callable[[str], str] | None = None,
                tops: Iterable[str] = ()) -> LayerView | None:
        """The mapper's view of a prototxt layer (hover): its node, the nodes inserted after it and
        the Reportop nodes of its ``tops`` (or of the layer name)."""
        node = self.find(layer, key)
        if node is None:
            return None
        wanted = {layer, node.name, *tops}
        reports = tuple(n for n in self.report_nodes() if n.report_point and n.report_point.top in wanted)
        return LayerView(layer=layer, node=node, inserted=tuple(self.inserted_after(node.name)), reports=reports)

    # -- through each node's reading (any label format) ----------------------------------------

    def by_key(self, key: Callable[[str], str]) -> dict[str, TreeNode]:
        """Nodes by ``key`` of the name their :attr:`~TreeNode.reading` gives (the first node of a
        key; a key that comes out empty is left out)."""
        out: dict[str, TreeNode] = {}
        for node in self.nodes.values():
            name = node.reading.name
            k = key(name) if name else None
            if k and k not in out:
                out[k] = node
        return out

    def by_number(self) -> dict[int, TreeNode]:
        """Nodes by the number their :attr:`~TreeNode.reading` gives (the first node of a number)."""
        out: dict[int, TreeNode] = {}
        for node in self.nodes.values():
            number = node.reading.number
            if number is not None and number not in out:
                out[number] = node
        return out

    def topo_order(self) -> list[str]:
        """Node names in a topological order (file order breaks ties; cycles tolerated)."""
        indeg = {n: 0 for n in self.nodes}
        succ: dict[str, list[str]] = {n: [] for n in self.nodes}
        for edge in self.edges:
            a, b = edge.source, edge.target
            if a in indeg and b in indeg:
                indeg[b] += 1
                succ[a].append(b)
        pos = {n: i for i, n in enumerate(self.nodes)}
        ready = sorted([n for n, d in indeg.items() if d == 0], key=pos.get)
        out: list[str] = []
        seen = set()
        while ready:
            n = ready.pop(0)
            if n in seen:
                continue
            seen.add(n)
            out.append(n)
            for m in succ[n]:
                indeg[m] -= 1
                if indeg[m] == 0:
                    ready.append(m)
                    ready.sort(key=pos.get)
        out.extend(n for n in self.nodes if n not in seen)  # cycles: file order
        return out

    @property
    def name_source(self) -> str:
        """Where node names came from, the most informative source any node used (one of
        :data:`~nnie_lsp.readers.mapper.dot_labels.NAME_SOURCES`; ``"none"`` without nodes)."""
        sources = {node.reading.source for node in self.nodes.values()}
        return next((s for s in NAME_SOURCES if s in sources), "none")

    def describe_labels(self) -> str:
        """What the labels gave (the triage's note): counts, where names came from, typed nodes,
        nodes with merged operators, warnings."""
        readings = [node.reading for node in self.nodes.values()]
        typed = sum(1 for r in readings if r.type)
        merged = sum(1 for r in readings if r.merged_ops)
        parts = [f"{len(self.nodes)} nodes, {len(self.edges)} edges", f"names from {self.name_source}"]
        if typed:
            parts.append(f"{typed} typed")
        if merged:
            parts.append(f"{merged} with mergedOps")
        if self.warnings:
            parts.append(f"{len(self.warnings)} warning(s)")
        return "; ".join(parts)

    def describe(self) -> str:
        parts = [f"{len(self.nodes)} nodes, {len(self.edges)} edges"]
        if self.segments:
            parts.append(f"{len(self.segments)} segment(s)")
        parts.append("NNIE labels" if self.is_nnie_format else "labels not in the NNIE format")
        inserted = self.inserted_nodes()
        if inserted:
            parts.append(f"{len(inserted)} mapper-inserted node(s)")
        if self.warnings:
            parts.append(f"{len(self.warnings)} warning(s)")
        return "; ".join(parts)


def parse_net_tree(text: str, path: str | None = None) -> NetTree:
    """Read ``cnn_net_tree.dot`` text; never raises (problems go to ``warnings``)."""
    syntax = parse_dot_syntax(text)
    nodes = {name: _build_node(statement) for name, statement in syntax.nodes.items()}
    return NetTree(
        nodes=nodes,
        edges=syntax.edges,
        warnings=syntax.warnings,
        path=path,
        graph_name=syntax.graph_name,
        line_index=syntax.line_index,
    )


def read_net_tree(path) -> NetTree:
    """Read a ``cnn_net_tree.dot`` file (UTF-8, GB18030 or latin-1); regular files up to the bound
    for dot files only (:mod:`nnie_lsp.core.safe_io`), else :class:`~nnie_lsp.core.safe_io.FileReadError`."""
    return parse_net_tree(read_text(str(path), safe_io.DOT).text, path=str(path))

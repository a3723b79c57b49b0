"""Alignment's view of the mapper's ``cnn_net_tree.dot`` (and ``_gv`` / ``_org`` / ``_pre`` variants).

The DOT text is read by the project's one DOT reader (:mod:`nnie_lsp.mapper.dot`), and labels in
the NNIE format (``docs/field-facts.md §16.2``) by :mod:`nnie_lsp.mapper.nettree`: for those the
node name is the node id, the type is the ``type name`` field and the node number is the numeric
``id`` field.  What stays here is triage-specific: matching keys (:func:`~.names.normalize_name`)
and a defensive reading of labels in other formats (ATC-style ``type name: <Type>``,
``name: X``, ``mergedOps: Permute;Reshape;``, record labels ``{a|b}``, free text) to find a name,
a type and a number for alignment.  :meth:`DotGraph.describe` says what was used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...mapper.nettree import TreeNode, parse_net_tree
from ...text import read_text
from ...dumpio.names import normalize_name

__all__ = ["DotNode", "DotGraph", "parse_dot", "read_dot"]


@dataclass(frozen=True)
class DotNode:
    id: str
    label: str = ""
    name: str | None = None  # layer name taken from the label (or the id)
    type: str | None = None
    merged_ops: tuple[str, ...] = ()
    number: int | None = None  # a node number found in the id or label (instruction-sim node id?)
    attrs: tuple[tuple[str, str], ...] = ()
    segment: int | None = None  # NNIE labels: the ``net segment id`` field

    @property
    def key(self) -> str | None:
        return normalize_name(self.name) if self.name else None


@dataclass(frozen=True)
class DotGraph:
    nodes: dict = field(default_factory=dict)  # id -> DotNode (insertion = file order)
    edges: tuple[tuple[str, str], ...] = ()
    warnings: tuple[str, ...] = ()
    path: str | None = None
    name_source: str = "none"  # where node names came from: "label name:", "label", "id"

    def successors(self, node_id: str) -> list[str]:
        return [b for a, b in self.edges if a == node_id]

    def predecessors(self, node_id: str) -> list[str]:
        return [a for a, b in self.edges if b == node_id]

    def by_key(self) -> dict[str, DotNode]:
        out: dict[str, DotNode] = {}
        for n in self.nodes.values():
            if n.key and n.key not in out:
                out[n.key] = n
        return out

    def by_number(self) -> dict[int, DotNode]:
        out: dict[int, DotNode] = {}
        for n in self.nodes.values():
            if n.number is not None and n.number not in out:
                out[n.number] = n
        return out

    def topo_order(self) -> list[str]:
        """Node ids in a topological order (file order breaks ties; cycles tolerated)."""
        indeg = {n: 0 for n in self.nodes}
        succ: dict[str, list[str]] = {n: [] for n in self.nodes}
        for a, b in self.edges:
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

    def describe(self) -> str:
        typed = sum(1 for n in self.nodes.values() if n.type)
        merged = sum(1 for n in self.nodes.values() if n.merged_ops)
        parts = [f"{len(self.nodes)} nodes, {len(self.edges)} edges", f"names from {self.name_source}"]
        if typed:
            parts.append(f"{typed} typed")
        if merged:
            parts.append(f"{merged} with mergedOps")
        if self.warnings:
            parts.append(f"{len(self.warnings)} warning(s)")
        return "; ".join(parts)


KNOWN_TYPES = frozenset(
    "Convolution Deconvolution DepthwiseConv ConvolutionDepthwise Pooling ReLU PReLU Sigmoid TanH InnerProduct Concat "
    "Eltwise Upsample Permute Reshape Flatten Softmax BatchNorm BN Scale Bias ROIPooling PSROIPooling Slice Split Data "
    "Input Dropout LRN Power Proposal Normalize Crop Reorg MatMul Threshold ArgMax Interp Exp Log Abs Lstm LSTM RNN "
    "Dense Conv Conv2D Pool Relu Add Mul".split()
)

_NAME_RE = re.compile(r"(?:^|[\s\\|{,;])(?:layer[_ ]?)?name\s*[:=]\s*([^\s\\|{}\";,]+)", re.IGNORECASE)
_TYPE_RE = re.compile(r"(?:^|[\s\\|{,;])(?:type(?:\s+name)?|op(?:_?type)?)\s*[:=]\s*([A-Za-z][\w.]*)", re.IGNORECASE)
_MERGED_RE = re.compile(r"merged_?ops\s*[:=]\s*([\w;, ]*)", re.IGNORECASE)
_NUM_RE = re.compile(r"(?:^|[^\d])(\d+)(?:[^\d]|$)")


def _parse_label(node_id: str, label: str) -> tuple[str | None, str | None, tuple[str, ...], int | None, str]:
    lab = label.replace("\\n", "\n").replace("\\l", "\n").replace("\\r", "\n")
    name = typ = None
    src = "id"
    for m in _NAME_RE.finditer(lab):
        if re.search(r"type\s*$", lab[: m.start()].rstrip() + lab[m.start() : m.start(1)].split("name")[0], re.IGNORECASE):
            continue
        name, src = m.group(1), "label name:"
        break
    m = _TYPE_RE.search(lab)
    if m:
        typ = m.group(1)
    merged: tuple[str, ...] = ()
    m = _MERGED_RE.search(lab)
    if m:
        merged = tuple(x.strip() for x in re.split(r"[;,]", m.group(1)) if x.strip())
    if name is None and lab.strip():
        # record labels {a|b|c} or free text: first field that looks like an identifier
        fields = [f.strip() for f in re.split(r"[|{}\n]", lab) if f.strip()]
        if len(fields) >= 2 and fields[0].split()[0] in KNOWN_TYPES:
            typ = typ or fields[0].split()[0]
            fields = fields[1:]
        for f in fields:
            if ":" in f and re.match(r"^\w+\s*:", f):
                continue  # "key: value" pairs that are not names
            tok = f.split()[0]
            if re.match(r"^[\w/.:\-]+$", tok):
                name, src = tok, "label"
                break
    if name is None:
        name = node_id
    num = None
    m = re.search(r"(?:node|layer|id)\s*[:=_ ]?\s*([0-9]+)", lab + " " + node_id, re.IGNORECASE)
    if m:
        num = _number(m.group(1))
    elif node_id.isascii() and node_id.isdigit():
        num = _number(node_id)
    return name, typ, merged, num, src


def _number(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:  # more digits than Python converts
        return None


def _node(tree_node: TreeNode) -> tuple[DotNode, str]:
    attrs = tuple(sorted(tree_node.attrs))
    if tree_node.is_nnie_label:
        node = DotNode(
            id=tree_node.name, label=tree_node.label, name=tree_node.label_name or tree_node.name,
            type=tree_node.type_name, number=tree_node.node_id, attrs=attrs, segment=tree_node.segment,
        )
        return node, "NNIE label"
    name, typ, merged, num, src = _parse_label(tree_node.name, tree_node.label)
    explicit_type = dict(attrs).get("type")
    if explicit_type and not typ:
        typ = explicit_type
    return DotNode(id=tree_node.name, label=tree_node.label, name=name, type=typ, merged_ops=merged,
                   number=num, attrs=attrs), src


_SOURCE_ORDER = ("NNIE label", "label name:", "label", "id")


def parse_dot(text: str, path: str | None = None) -> DotGraph:
    """Parse DOT text defensively; never raises on odd content (problems go to ``warnings``)."""
    tree = parse_net_tree(text, path)
    nodes: dict[str, DotNode] = {}
    sources = set()
    for node_id, tree_node in tree.nodes.items():
        nodes[node_id], src = _node(tree_node)
        sources.add(src)
    src = next((s for s in _SOURCE_ORDER if s in sources), "none")
    edges = tuple((edge.source, edge.target) for edge in tree.edges)
    return DotGraph(nodes=nodes, edges=edges, warnings=tree.warnings, path=path, name_source=src)


def read_dot(path) -> DotGraph:
    return parse_dot(read_text(str(path)).text, path=str(path))

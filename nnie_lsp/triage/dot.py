"""Defensive reader for the mapper's ``cnn_net_tree.dot`` (and ``_gv`` / ``_org`` / ``_pre`` variants).

The NNIE label format is undocumented (NNIE_REFERENCE §9, [?]); ATC-style labels carry
``type name: <Type>``, ``name: X`` and ``mergedOps: Permute;Reshape;``. This reader accepts any DOT
it can tokenise: node statements ``id [attr=val, ...]``, edge chains ``a -> b -> c`` (and ``--``),
subgraphs, comments, quoted / HTML labels, record labels ``{a|b}``; what it could not use is listed
in :attr:`DotGraph.warnings`, and :meth:`DotGraph.describe` says what was used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .names import normalize_name

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


_TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|\#[^\n]*|/\*.*?\*/)
  | (?P<html><(?:[^<>]|<[^<>]*>)*>)
  | (?P<qstr>"(?:[^"\\]|\\.)*")
  | (?P<edge>->|--)
  | (?P<punct>[{}\[\];,=:])
  | (?P<id>(?:[^\s{}\[\];,=:"<>\-]|-(?![->]))+)
    """,
    re.VERBOSE | re.DOTALL,
)


def _tokens(text: str):
    pos = 0
    out = []
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if not m:
            out.append(("junk", text[pos]))
            pos += 1
            continue
        kind = m.lastgroup
        val = m.group(kind)
        pos = m.end()
        if kind in ("ws", "comment"):
            continue
        if kind == "qstr":
            val = val[1:-1].replace('\\"', '"')
            kind = "id"
        elif kind == "html":
            val = re.sub(r"<[^<>]*>", " ", val[1:-1])
            kind = "id"
        out.append((kind, val))
    return out


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
    m = re.search(r"(?:node|layer|id)\s*[:=_ ]?\s*(\d+)", lab + " " + node_id, re.IGNORECASE)
    if m:
        num = int(m.group(1))
    elif node_id.isdigit():
        num = int(node_id)
    return name, typ, merged, num, src


def parse_dot(text: str, path: str | None = None) -> DotGraph:
    """Parse DOT text defensively; never raises on odd content (problems go to ``warnings``)."""
    toks = _tokens(text)
    warnings: list[str] = []
    junk = [v for k, v in toks if k == "junk"]
    if junk:
        warnings.append(f"{len(junk)} character(s) not understood were skipped")
    raw_nodes: dict[str, dict[str, str]] = {}
    edges: list[tuple[str, str]] = []

    def attrs_at(i: int) -> tuple[dict[str, str], int]:
        attrs: dict[str, str] = {}
        if i < len(toks) and toks[i] == ("punct", "["):
            i += 1
            while i < len(toks) and toks[i] != ("punct", "]"):
                if toks[i][0] == "id" and i + 2 < len(toks) and toks[i + 1] == ("punct", "=") and toks[i + 2][0] == "id":
                    attrs[toks[i][1].lower()] = toks[i + 2][1]
                    i += 3
                else:
                    i += 1
            i += 1
        return attrs, i

    i = 0
    keywords = {"digraph", "graph", "subgraph", "strict", "node", "edge"}
    while i < len(toks):
        kind, val = toks[i]
        if kind == "id" and val.lower() in keywords:
            if val.lower() in ("node", "edge", "graph") and i + 1 < len(toks) and toks[i + 1] == ("punct", "["):
                _, i = attrs_at(i + 1)
                continue
            i += 1
            if val.lower() in ("digraph", "graph", "subgraph") and i < len(toks) and toks[i][0] == "id":
                i += 1  # the graph's own name
            continue
        if kind == "id":
            # statement: id [attrs] | id -> id -> ... [attrs] | key = value
            if i + 1 < len(toks) and toks[i + 1] == ("punct", "="):
                i += 3
                continue
            chain = [val]
            j = i + 1
            if j < len(toks) and toks[j] == ("punct", ":"):  # port: a:p
                j += 2
            while j + 1 < len(toks) and toks[j][0] == "edge" and toks[j + 1][0] == "id":
                chain.append(toks[j + 1][1])
                j += 2
                if j < len(toks) and toks[j] == ("punct", ":"):
                    j += 2
            attrs, j = attrs_at(j)
            if len(chain) == 1:
                raw_nodes.setdefault(val, {}).update(attrs)
            else:
                for a, b in zip(chain, chain[1:]):
                    edges.append((a, b))
                    raw_nodes.setdefault(a, {})
                    raw_nodes.setdefault(b, {})
            i = j
            continue
        i += 1
    nodes: dict[str, DotNode] = {}
    sources = set()
    for nid, attrs in raw_nodes.items():
        label = attrs.get("label", "")
        name, typ, merged, num, src = _parse_label(nid, label)
        if attrs.get("type") and not typ:
            typ = attrs["type"]
        sources.add(src)
        nodes[nid] = DotNode(id=nid, label=label, name=name, type=typ, merged_ops=merged, number=num, attrs=tuple(sorted(attrs.items())))
    if not nodes:
        warnings.append("no nodes found")
    src = "label name:" if "label name:" in sources else ("label" if "label" in sources else ("id" if nodes else "none"))
    return DotGraph(nodes=nodes, edges=tuple(edges), warnings=tuple(warnings), path=path, name_source=src)


def read_dot(path) -> DotGraph:
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", errors="replace")
    return parse_dot(text, path=str(path))

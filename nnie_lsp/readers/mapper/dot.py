"""The project's one DOT tokenizer and statement reader (for the mapper's ``cnn_net_tree*.dot``).

It reads any DOT text it can tokenise and keeps what a graph file says, with exact ranges:
node statements ``id [attr=val, ...]``, edge chains ``a -> b -> c`` (and ``--``), subgraphs,
``//`` / ``#`` / ``/* */`` comments, quoted, concatenated (``"a" + "b"``) and HTML labels, ports
``a:p``.  What it could not use is listed in :attr:`DotSyntax.warnings`.  The one reader of
``cnn_net_tree.dot`` is built on it: :mod:`.nettree` (the NNIE label format,
``docs/field-facts.md §16.2``) with :mod:`.dot_labels` (labels in other formats), for the lint,
the hover and the triage's alignment alike.

Never raises: :func:`parse_dot_syntax` accepts any ``str``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from nnie_lsp.core.text import LineIndex, Range

__all__ = ["DotToken", "DotNodeStatement", "DotEdge", "DotSyntax", "tokenize_dot", "parse_dot_syntax", "label_lines"]


@dataclass(frozen=True, slots=True)
class DotToken:
    kind: str  # "id" (identifiers, numbers, quoted and HTML strings), "edge", "punct", "junk"
    value: str  # quoted strings unquoted (``\\"`` → ``"``), HTML tags replaced by blanks
    start: int  # offsets in the text
    end: int


@dataclass(frozen=True, slots=True)
class DotNodeStatement:
    """One node: its attributes merged over every statement naming it, in file order."""

    id: str
    attrs: tuple[tuple[str, str], ...]  # lower-cased attribute names
    range: Range  # the statement that declared it (or its first mention in an edge)
    id_range: Range  # the node id in that statement

    def attr(self, name: str, default: str = "") -> str:
        for key, value in self.attrs:
            if key == name:
                return value
        return default


@dataclass(frozen=True, slots=True)
class DotEdge:
    source: str
    target: str
    range: Range  # ``source -> target`` in the text


@dataclass(frozen=True)
class DotSyntax:
    graph_name: str | None
    directed: bool
    nodes: dict  # id -> DotNodeStatement, insertion = file order
    edges: tuple[DotEdge, ...]
    warnings: tuple[str, ...]
    line_index: LineIndex = field(compare=False, repr=False)


_TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|\#[^\n]*|/\*.*?\*/)
  | (?P<html><(?:[^<>]|<[^<>]*>)*>)
  | (?P<qstr>"(?:[^"\\]|\\.)*")
  | (?P<edge>->|--)
  | (?P<punct>[{}\[\];,=:+])
  | (?P<id>(?:[^\s{}\[\];,=:+"<>\-]|-(?![->]))+)
    """,
    re.VERBOSE | re.DOTALL,
)
_HTML_TAG_RE = re.compile(r"<[^<>]*>")


def tokenize_dot(text: str) -> list[DotToken]:
    """Tokens of a DOT text; a character no rule matches becomes a ``junk`` token."""
    pos = 0
    out: list[DotToken] = []
    size = len(text)
    while pos < size:
        match = _TOKEN_RE.match(text, pos)
        if not match:
            out.append(DotToken("junk", text[pos], pos, pos + 1))
            pos += 1
            continue
        kind = match.lastgroup or "junk"
        value = match.group(kind)
        start, pos = match.start(), match.end()
        if kind in ("ws", "comment"):
            continue
        if kind == "qstr":
            value = value[1:-1].replace("\\\r\n", "").replace("\\\n", "").replace('\\"', '"')
            kind = "id"
        elif kind == "html":
            value = _HTML_TAG_RE.sub(" ", value[1:-1])
            kind = "id"
        out.append(DotToken(kind, value, start, pos))
    return out


def label_lines(label: str) -> list[str]:
    """A DOT label split into its lines: the escapes ``\\n``, ``\\l``, ``\\r`` and real newlines."""
    return re.split(r"\\[nlr]|\r?\n", label)


_KEYWORDS = frozenset({"digraph", "graph", "subgraph", "strict", "node", "edge"})


class _Reader:
    """Walks the token list once; collects nodes (with merged attributes) and edges."""

    def __init__(self, text: str) -> None:
        self.index = LineIndex(text)
        self.tokens = tokenize_dot(text)
        self.raw: dict[str, dict[str, str]] = {}
        self.spans: dict[str, tuple[int, int, int, int, bool]] = {}  # id -> span, id span, declared
        self.edges: list[DotEdge] = []
        self.graph_name: str | None = None
        self.directed = True

    def is_punct(self, i: int, value: str) -> bool:
        return i < len(self.tokens) and self.tokens[i].kind == "punct" and self.tokens[i].value == value

    def id_at(self, i: int) -> tuple[str, int, int] | None:
        """An id at ``i`` with ``+`` concatenations: (value, index after, end offset)."""
        if i >= len(self.tokens) or self.tokens[i].kind != "id":
            return None
        value, end = self.tokens[i].value, self.tokens[i].end
        i += 1
        while self.is_punct(i, "+") and i + 1 < len(self.tokens) and self.tokens[i + 1].kind == "id":
            value += self.tokens[i + 1].value
            end = self.tokens[i + 1].end
            i += 2
        return value, i, end

    def attrs_at(self, i: int) -> tuple[dict[str, str], int, int | None]:
        """Attribute lists ``[a=b, c=d][e=f]`` at ``i``: (attrs, index after, end offset)."""
        attrs: dict[str, str] = {}
        end = None
        while self.is_punct(i, "["):
            i += 1
            while i < len(self.tokens) and not self.is_punct(i, "]"):
                key = self.id_at(i)
                if key is not None and self.is_punct(key[1], "="):
                    value = self.id_at(key[1] + 1)
                    if value is not None:
                        attrs[key[0].lower()] = value[0]
                        i = value[1]
                        continue
                i += 1
            if i < len(self.tokens):
                end = self.tokens[i].end
            i += 1
        return attrs, i, end

    def skip_port(self, i: int) -> int:
        """Skip ``:port`` / ``:port:compass`` after a node id."""
        while self.is_punct(i, ":") and i + 1 < len(self.tokens) and self.tokens[i + 1].kind == "id":
            i += 2
        return i

    def mention(self, node: str, start: int, end: int, declared: bool, stmt_end: int) -> None:
        self.raw.setdefault(node, {})
        old = self.spans.get(node)
        if old is None or (declared and not old[4]):
            self.spans[node] = (start, stmt_end, start, end, declared)

    def run(self) -> None:
        i = 0
        tokens = self.tokens
        while i < len(tokens):
            token = tokens[i]
            if token.kind == "id" and token.value.lower() in _KEYWORDS:
                word = token.value.lower()
                if word in ("node", "edge", "graph") and self.is_punct(i + 1, "["):
                    _, i, _ = self.attrs_at(i + 1)
                    continue
                if word == "graph" and self.graph_name is None:
                    self.directed = False
                i += 1
                if word in ("digraph", "graph", "subgraph") and i < len(tokens) and tokens[i].kind == "id":
                    if word != "subgraph" and self.graph_name is None:
                        self.graph_name = tokens[i].value
                    i += 1
                continue
            first = self.id_at(i)
            if first is None:
                i += 1
                continue
            value, j, end = first
            if self.is_punct(j, "="):  # graph attribute ``key = value``
                after = self.id_at(j + 1)
                i = after[1] if after is not None else j + 1
                continue
            chain = [(value, token.start, end)]
            j = self.skip_port(j)
            while j < len(tokens) and tokens[j].kind == "edge":
                nxt = self.id_at(j + 1)
                if nxt is None:
                    break
                chain.append((nxt[0], tokens[j + 1].start, nxt[2]))
                j = self.skip_port(nxt[1])
            attrs, j, attrs_end = self.attrs_at(j)
            stmt_end = attrs_end if attrs_end is not None else chain[-1][2]
            if len(chain) == 1:
                self.mention(value, token.start, end, True, stmt_end)
                self.raw[value].update(attrs)
            else:
                for (a, a_start, a_end), (b, b_start, b_end) in zip(chain, chain[1:]):
                    self.edges.append(DotEdge(a, b, self.index.range(a_start, b_end)))
                    self.mention(a, a_start, a_end, False, a_end)
                    self.mention(b, b_start, b_end, False, b_end)
            i = j

    def result(self) -> DotSyntax:
        warnings: list[str] = []
        junk = [t for t in self.tokens if t.kind == "junk"]
        if junk:
            where = self.index.position(junk[0].start)
            warnings.append(f"{len(junk)} character(s) not understood were skipped (first at {where})")
        nodes: dict[str, DotNodeStatement] = {}
        for node, attrs in self.raw.items():
            start, stmt_end, id_start, id_end, _ = self.spans[node]
            nodes[node] = DotNodeStatement(
                id=node,
                attrs=tuple(attrs.items()),
                range=self.index.range(start, stmt_end),
                id_range=self.index.range(id_start, id_end),
            )
        if not nodes:
            warnings.append("no nodes found")
        return DotSyntax(self.graph_name, self.directed, nodes, tuple(self.edges), tuple(warnings), self.index)


def parse_dot_syntax(text: str) -> DotSyntax:
    """Nodes, edges and warnings of a DOT text; never raises on odd content."""
    reader = _Reader(text)
    reader.run()
    return reader.result()

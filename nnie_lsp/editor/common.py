"""Shared helpers for the editor features: document kinds and "what is under the cursor"."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from nnie_lsp.readers.cfg.reader import looks_like_mapper_cfg
from nnie_lsp.readers.prototxt.graph import GraphLayer, NetGraph
from nnie_lsp.readers.prototxt.reader import LayerSource, PrototxtDocument
from nnie_lsp.readers.prototxt.solver import looks_like_solver
from nnie_lsp.core.text import Position, Range

CFG_LANGUAGE_IDS = frozenset({"nnie-cfg", "nniecfg", "nnie_cfg"})
PROTOTXT_LANGUAGE_IDS = frozenset({"prototxt", "protobuf-text", "textproto", "pbtxt"})


CARD_FILE_NAME = "nnie.toml"   # the model card (nnie_lsp/readers/card): told by its name


def document_kind(path: str | None, language_id: str | None, text: str) -> str | None:
    """"cfg", "prototxt", "card" (a model card, ``nnie.toml``) or None (not an NNIE document).

    A cfg is claimed by language id, or by content for any ``.cfg`` (VS Code gives ``.cfg`` to
    its properties/ini language), so ``setup.cfg`` and friends are left alone.  A Caffe solver
    file (``solver.prototxt``: ``net:``, ``base_lr:`` … and no layer) is not a net: not claimed,
    as ``nnie-lint`` skips it (:mod:`nnie_lsp.readers.prototxt.solver`).
    """
    lid = (language_id or "").lower()
    low = (path or "").lower()
    if path and path.replace("\\", "/").rsplit("/", 1)[-1] == CARD_FILE_NAME:
        return "card"
    if lid in CFG_LANGUAGE_IDS:
        return "cfg"
    if lid in PROTOTXT_LANGUAGE_IDS or low.endswith(".prototxt"):
        return None if looks_like_solver(text) else "prototxt"
    if low.endswith(".cfg") and looks_like_mapper_cfg(text):
        return "cfg"
    return None


# ------------------------------------------------------------------ prototxt look-ups

def layer_at(doc: PrototxtDocument, pos: Position) -> LayerSource | None:
    """The layer block containing ``pos`` (binary search over the layers in file order)."""
    layers = doc.layers
    if not layers:
        return None
    off = doc.line_index.offset(pos)
    starts = [ls.node.start_offset for ls in layers] if len(layers) < 64 else _starts(doc)
    i = bisect.bisect_right(starts, off) - 1
    if i < 0:
        return None
    ls = layers[i]
    return ls if ls.node.start_offset <= off <= ls.node.end_offset else None


_STARTS_CACHE: dict[int, tuple[PrototxtDocument, list[int]]] = {}


def _starts(doc: PrototxtDocument) -> list[int]:
    hit = _STARTS_CACHE.get(id(doc))
    if hit is not None and hit[0] is doc:
        return hit[1]
    starts = [ls.node.start_offset for ls in doc.layers]
    if len(_STARTS_CACHE) > 8:
        _STARTS_CACHE.clear()
    _STARTS_CACHE[id(doc)] = (doc, starts)
    return starts


def graph_layer(graph: NetGraph, source: LayerSource) -> GraphLayer | None:
    """The graph layer built from ``source`` (graph layers follow ``doc.layers`` by index)."""
    for gl in (graph.layers[source.index:source.index + 1] if source.index < len(graph.layers) else ()):
        if gl.source is source:
            return gl
    for gl in graph.layers:
        if gl.source is source:
            return gl
    return None


@dataclass(frozen=True)
class BlobRef:
    """A blob name occurrence: a layer's bottom/top or a net ``input:``."""

    blob: str
    range: Range
    role: str                     # "bottom" | "top" | "input"
    layer: LayerSource | None


def blob_ref_at(doc: PrototxtDocument, pos: Position) -> BlobRef | None:
    ls = layer_at(doc, pos)
    if ls is not None:
        for role, items in (("bottom", ls.bottoms), ("top", ls.tops)):
            for blob, rng in items:
                if rng.contains(pos):
                    return BlobRef(blob, rng, role, ls)
        return None
    for n in doc.nodes:
        if n.name != "input":
            continue
        elems = n.children if n.kind == "list" else (n,)
        for e in elems:
            if isinstance(e.value, str) and e.value_range.contains(pos):
                return BlobRef(e.value, e.value_range, "input", None)
    return None


def blob_occurrences(doc: PrototxtDocument, blob: str) -> list[BlobRef]:
    """Every place a blob name is written: net inputs, then bottoms/tops in file order."""
    out: list[BlobRef] = []
    for n in doc.nodes:
        if n.name != "input":
            continue
        elems = n.children if n.kind == "list" else (n,)
        for e in elems:
            if e.value == blob:
                out.append(BlobRef(blob, e.value_range, "input", None))
    for ls in doc.layers:
        for b, rng in ls.bottoms:
            if b == blob:
                out.append(BlobRef(blob, rng, "bottom", ls))
        for t, rng in ls.tops:
            if t == blob:
                out.append(BlobRef(blob, rng, "top", ls))
    return out


def layer_name_at(doc: PrototxtDocument, pos: Position) -> LayerSource | None:
    """The layer whose ``name:`` value is under the cursor."""
    ls = layer_at(doc, pos)
    if ls is None:
        return None
    if ls.name_range.contains(pos) and ls.name_range != ls.node.name_range:
        return ls
    return None


# ------------------------------------------------------------------ suppression comments

DIRECTIVE_RE = re.compile(r"nnie-lint\s*:\s*(?:disable-file|disable)\b\s*=?\s*([A-Za-z0-9_,\s]*)")
CODE_RE = re.compile(r"\bNN\d{1,3}\b", re.IGNORECASE)


def suppression_code_at(line_text: str, character: int) -> str | None:
    """The rule code under the cursor inside a ``# nnie-lint: disable=…`` comment."""
    hash_at = line_text.find("#")
    if hash_at < 0 or character < hash_at:
        return None
    for m in DIRECTIVE_RE.finditer(line_text, hash_at):
        for c in CODE_RE.finditer(line_text, m.start(1), m.end(1)):
            if c.start() <= character <= c.end():
                return c.group(0).upper()
    return None


def line_text(text: str, line: int) -> str:
    """Line `line` of `text` without its newline ('' past the end)."""
    start = 0
    for _ in range(line):
        start = text.find("\n", start)
        if start < 0:
            return ""
        start += 1
    end = text.find("\n", start)
    s = text[start:] if end < 0 else text[start:end]
    return s[:-1] if s.endswith("\r") else s

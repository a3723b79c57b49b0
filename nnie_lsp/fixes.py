"""Edit builders shared by the rules (lint --fix) and the language server (quick fixes)."""

from __future__ import annotations

import weakref
from typing import Iterable

from .cfg.reader import CfgDocument, CfgEntry
from .prototxt.graph import GraphLayer, NetGraph
from .prototxt.reader import PrototxtDocument
from .text import Position, Range, TextEdit


# ------------------------------------------------------------------ cfg

def set_cfg_value(entry: CfgEntry, value: str) -> TextEdit:
    """Replace an entry's value (an inline comment after it is kept)."""
    return TextEdit(entry.value_range, value)


def delete_cfg_line(doc: CfgDocument, entry: CfgEntry) -> TextEdit:
    return TextEdit(doc.line_index.full_line_range(entry.line), "")


def insert_cfg_line(doc: CfgDocument, key: str, value: str, *, after: CfgEntry | None = None) -> TextEdit:
    """Insert `[key] value` on a new line after `after` (default: after the last entry)."""
    anchor = after or (doc.entries[-1] if doc.entries else None)
    idx = doc.line_index
    line = f"[{key}] {value}"
    if anchor is None:
        end = idx.position(len(doc.text))
        sep = "" if not doc.text or doc.text.endswith("\n") else "\n"
        return TextEdit(Range(end, end), f"{sep}{line}\n")
    end = Position(anchor.line, idx.line_end(anchor.line) - idx.line_start(anchor.line))
    return TextEdit(Range(end, end), f"\n{line}")


def rename_cfg_key(entry: CfgEntry, new_key: str) -> TextEdit:
    return TextEdit(entry.key_range, new_key)


# ------------------------------------------------------------------ prototxt

def token_text(doc: PrototxtDocument, rng: Range) -> str:
    idx = doc.line_index
    return doc.text[idx.offset(rng.start):idx.offset(rng.end)]


def replace_string_token(doc: PrototxtDocument, rng: Range, new: str) -> TextEdit:
    """Replace a (possibly quoted) string value, keeping its quote style."""
    old = token_text(doc, rng)
    if len(old) >= 2 and old[0] in "\"'" and old[-1] == old[0]:
        q = old[0]
        escaped = new.replace("\\", "\\\\").replace(q, "\\" + q)
        return TextEdit(rng, f"{q}{escaped}{q}")
    return TextEdit(rng, f'"{new}"')


def rename_layer(doc: PrototxtDocument, layer: GraphLayer, new_name: str) -> TextEdit:
    return replace_string_token(doc, layer.source.name_range, new_name)


_BLOB_SETS: "weakref.WeakKeyDictionary[NetGraph, frozenset[str]]" = weakref.WeakKeyDictionary()


def _blob_names(graph: NetGraph) -> frozenset[str]:
    names = _BLOB_SETS.get(graph)
    if names is None:
        names = _BLOB_SETS[graph] = frozenset(graph.blobs())
    return names


def unique_blob_name(graph: NetGraph, wanted: str) -> str:
    """`wanted`, or `wanted_1`, `wanted_2`… — unused as a blob name (layer names are another namespace)."""
    taken = _blob_names(graph)
    if wanted not in taken:
        return wanted
    i = 1
    while f"{wanted}_{i}" in taken:
        i += 1
    return f"{wanted}_{i}"


def deinplace_edits(doc: PrototxtDocument, graph: NetGraph, layer: GraphLayer,
                    new_blob: str | None = None) -> tuple[str, list[TextEdit]]:
    """Make an in-place layer write a new blob and rewire every later reader of the old blob.

    Later in-place layers on the same blob (the rest of the chain) are moved to the new blob too,
    so they stay in place on it.  Rewiring stops where a non-in-place layer writes the old blob
    again.  Returns (new blob name, edits).
    """
    (old,) = {b for b in layer.bottoms if b in layer.tops} or {layer.tops[0]}
    if new_blob is None:
        wanted = layer.name if layer.name and layer.name != old else f"{old}_out"
        new_blob = unique_blob_name(graph, wanted)
    new = new_blob
    edits: list[TextEdit] = [replace_string_token(doc, rng, new) for blob, rng in layer.source.tops if blob == old]
    # only the layers that touch the old blob after this one, in order (uses the graph's indexes)
    later = sorted({l.index: l for l in (*graph.consumers(old), *graph.producers(old))
                    if l.index > layer.index}.values(), key=lambda l: l.index)
    for l in later:
        s = l.source
        for blob, rng in s.bottoms:
            if blob == old:
                edits.append(replace_string_token(doc, rng, new))
        if old in l.tops and old not in l.bottoms:
            break  # rewritten by a non-in-place layer: later readers see that value
        for blob, rng in s.tops:
            if blob == old:  # in-place layer later in the chain: keep it in place on the new blob
                edits.append(replace_string_token(doc, rng, new))
    return new, edits


def dedupe_edits(edits: Iterable[TextEdit]) -> list[TextEdit]:
    seen = {}
    for e in edits:
        seen.setdefault((e.range, e.new_text), e)
    return list(seen.values())

"""Edit builders shared by every face: the rules (lint --fix), the language server (quick fixes)
and the triage (the fixes its findings carry).

Builders return :class:`TextEdit`s of one document, or :class:`FileEdit`s when a change spans
files (the `_hp` plan edits the prototxt and the cfg).  They decide *where* an edit goes; whether
it is safe is decided by whoever wraps the edits in a :class:`~nnie_lsp.core.diagnostics.Fix`.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Iterable, Sequence

from nnie_lsp.core.diagnostics import FileEdit
from nnie_lsp.readers.prototxt.graph import GraphLayer, NetGraph
from nnie_lsp.readers.prototxt.reader import PrototxtDocument
from nnie_lsp.core.text import Position, Range, TextEdit

if TYPE_CHECKING:  # the cfg side is loaded only by the cfg fixes' callers (nnie-lint's start-up)
    from nnie_lsp.readers.cfg.model import MapperConfig
    from nnie_lsp.readers.cfg.reader import CfgDocument, CfgEntry

HP_SUFFIX = "_hp"  # the mapper's high-precision mark on a layer name (with [compile_mode] 2)


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


def _insert_lines_after(doc: CfgDocument, anchor: CfgEntry | None, lines: Sequence[str]) -> TextEdit:
    """New lines after `anchor` (after the last entry when None; at the end of an empty cfg)."""
    anchor = anchor or (doc.entries[-1] if doc.entries else None)
    idx = doc.line_index
    if anchor is None:
        end = idx.position(len(doc.text))
        sep = "" if not doc.text or doc.text.endswith("\n") else "\n"
        return TextEdit(Range(end, end), sep + "".join(f"{line}\n" for line in lines))
    end = Position(anchor.line, idx.line_end(anchor.line) - idx.line_start(anchor.line))
    return TextEdit(Range(end, end), "".join(f"\n{line}" for line in lines))


def set_input_key(doc: CfgDocument, config: MapperConfig, index: int, key: str, value: str) -> list[TextEdit] | None:
    """Set a per-input key (``RGB_order``, ``data_scale``, ``norm_type``, ``mean_file``…) for
    network input ``index`` only, following the mapper's rule that the k-th occurrence of the key
    belongs to input k (docs/field-facts.md §4):

    - the input's own entry exists → its value is replaced;
    - a shareable key (RGB_order, data_scale) written once for several inputs → that line keeps the
      value for input 0 and one line per further input is added, so only input ``index`` changes;
    - the key is absent → a new line after the input's own entries (one line per input, the others
      with the key's default, when the key is shareable and the cfg has several inputs);
    - an earlier input lacks the key too → ``None``: no single place gives input ``index`` the value.
    """
    from nnie_lsp.readers.cfg.keys import KEYS, SHAREABLE_PER_INPUT_KEYS

    entries = config.entries(key)
    inputs = max(config.input_count, len(config.groups), index + 1)
    shared = len(entries) == 1 and inputs > 1 and key in SHAREABLE_PER_INPUT_KEYS
    if index < len(entries) and not shared:
        return [set_cfg_value(entries[index], value)]
    if shared:
        old = entries[0].value
        edits = [set_cfg_value(entries[0], value)] if index == 0 else []
        more = [f"[{key}] {value if k == index else old}" for k in range(1, inputs)]
        return edits + [_insert_lines_after(doc, entries[0], more)]
    if len(entries) != index and not (not entries and key in SHAREABLE_PER_INPUT_KEYS):
        return None
    if not entries and key in SHAREABLE_PER_INPUT_KEYS and inputs > 1:
        default = KEYS[key].default
        if default is None:
            return None
        lines = [f"[{key}] {value if k == index else default}" for k in range(inputs)]
        return [_insert_lines_after(doc, _group_anchor(config, 0, None), lines)]
    after = entries[-1] if entries else None
    return [_insert_lines_after(doc, _group_anchor(config, index, after), [f"[{key}] {value}"])]


def _group_anchor(config: MapperConfig, index: int, after: CfgEntry | None) -> CfgEntry | None:
    """The last entry of input ``index``'s own (not shared) per-input entries, if it comes after
    ``after``; else ``after`` (a new line must follow the previous occurrence of its key)."""
    group = config.group(index)
    own = [e for e in (group.entries if group is not None else ())
           if not any(getattr(group, k) is e for k in group.shared)]
    last = own[-1] if own else None
    if last is not None and (after is None or last.line > after.line):
        return last
    return after


def set_or_insert_key(doc: CfgDocument, config: MapperConfig, key: str, value: str, *,
                      after_key: str | None = None) -> TextEdit:
    """Set a single-valued key (its effective, i.e. last, entry) or add it after ``after_key``'s
    entry (after the last entry when that is absent too)."""
    entry = config.entry(key)
    if entry is not None:
        return set_cfg_value(entry, value)
    anchor = config.entry(after_key) if after_key else None
    return insert_cfg_line(doc, key, value, after=anchor)


def set_compile_mode(doc: CfgDocument, config: MapperConfig, value: str = "2") -> TextEdit:
    """``[compile_mode] value`` (2 = the layers named ``*_hp`` run at 16 bit, the rest at 8 bit)."""
    return set_or_insert_key(doc, config, "compile_mode", value, after_key="net_type")


def write_whole_file(path: str, current_text: str | None, new_text: str) -> FileEdit:
    """Replace a whole file's content; ``current_text`` None = the file does not exist yet, and the
    edit (an insertion at 1:1 of a missing file) creates it."""
    if current_text is None:
        return FileEdit(path, TextEdit(Range.point(0, 0), new_text))
    from nnie_lsp.core.text import LineIndex

    end = LineIndex(current_text).position(len(current_text))
    return FileEdit(path, TextEdit(Range(Position(0, 0), end), new_text))


def channel_mean_text(means: Sequence[float]) -> str:
    """A channel-mean file (norm_type 2/5): one value per line, in the net's channel order."""
    return "".join(f"{v:g}\n" for v in means)


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


def hp_rename_edits(doc: PrototxtDocument, layers: Iterable[GraphLayer]) -> list[TextEdit]:
    """Rename each layer to ``<name>_hp`` (tops unchanged); layers already ending in ``_hp`` and
    layers without a written name are left alone."""
    return [rename_layer(doc, layer, layer.name + HP_SUFFIX) for layer in layers
            if layer.name and not layer.name.endswith(HP_SUFFIX) and layer.source.name_range is not None]


def hp_plan_edits(prototxt: PrototxtDocument | None, layers: Iterable[GraphLayer],
                  cfg: CfgDocument | None, config: MapperConfig | None) -> list[FileEdit]:
    """The guide's step-3 change as one edit set: the layers renamed ``_hp`` in the prototxt and
    ``[compile_mode] 2`` in the cfg (without which the marks are ignored)."""
    out: list[FileEdit] = []
    if prototxt is not None and prototxt.path:
        out += [FileEdit(prototxt.path, e) for e in hp_rename_edits(prototxt, layers)]
    if cfg is not None and cfg.path and config is not None and config.compile_mode != 2:
        out.append(FileEdit(cfg.path, set_compile_mode(cfg, config, "2")))
    return out


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
    # the first blob it works in place on (a layer in place on several blobs is fixed one blob
    # per pass: the next pass finds it still in place on the others)
    old = next((b for b in layer.bottoms if b in layer.tops), layer.tops[0])
    if new_blob is None:
        wanted = layer.name if layer.name and layer.name != old else f"{old}_out"
        new_blob = unique_blob_name(graph, wanted)
    new = new_blob
    edits: list[TextEdit] = [replace_string_token(doc, rng, new) for blob, rng in layer.source.tops if blob == old]
    return new, edits + rewire_edits(doc, graph, layer, old, new)


def rewire_edits(doc: PrototxtDocument, graph: NetGraph, layer: GraphLayer, old: str, new: str) -> list[TextEdit]:
    """Every later reader of blob ``old`` after ``layer`` reads ``new`` instead; later in-place
    layers on ``old`` (the rest of the chain) move to ``new`` too, in place on it.  Stops where a
    non-in-place layer writes ``old`` again."""
    edits: list[TextEdit] = []
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
    return edits


def delete_layer_edit(doc: PrototxtDocument, layer: GraphLayer) -> TextEdit:
    """Delete a layer block: its whole lines when it has them to itself, else just the block."""
    r = layer.source.node.range
    idx = doc.line_index
    before = doc.text[idx.line_start(r.start.line):idx.offset(r.start)]
    after = doc.text[idx.offset(r.end):idx.line_end(r.end.line)]
    if not before.strip() and not after.strip():
        end = Position(r.end.line + 1, 0) if r.end.line + 1 < idx.line_count else Position(r.end.line, len(idx.line_text(r.end.line)))
        return TextEdit(Range(Position(r.start.line, 0), end), "")
    return TextEdit(r, "")


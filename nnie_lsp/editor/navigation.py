"""Navigation: definition, references, rename, document symbols, document links, folding ranges.

Pure functions on engine objects (positions in code points); the server converts to LSP.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from nnie_lsp.core import i18n
from nnie_lsp.readers.cfg.reader import CfgDocument
from nnie_lsp.rules.fixes import replace_string_token
from nnie_lsp.project.project import PATH_KEYS, Project
from nnie_lsp.readers.prototxt.graph import NetGraph
from nnie_lsp.readers.prototxt.reader import PrototxtDocument
from nnie_lsp.core.text import Position, Range, TextEdit
from nnie_lsp.editor.common import blob_occurrences, blob_ref_at, layer_name_at


@dataclass(frozen=True)
class Location:
    path: str
    range: Range


# ------------------------------------------------------------------ definition

def prototxt_definition(doc: PrototxtDocument, graph: NetGraph, pos: Position) -> list[Location]:
    """bottom (or in-place top) -> the top of the layer that last wrote the blob before this
    layer; a net input -> its ``input:`` declaration."""
    ref = blob_ref_at(doc, pos)
    if ref is None:
        return []
    path = doc.path or ""
    if ref.layer is not None:
        producer = graph.producer_before(ref.layer.index, ref.blob)
        if producer is not None:
            ranges = [r for b, r in producer.source.tops if b == ref.blob]
            if ranges:
                return [Location(path, ranges[-1])]
    for inp in graph.inputs:
        if inp.name == ref.blob and (inp.layer is None or ref.layer is None or inp.layer < ref.layer.index):
            return [Location(path, inp.range)]
    if ref.role == "top" and ref.layer is not None:
        return [Location(path, ref.range)]
    return []


def cfg_definition(project: Project, pos: Position) -> list[Location]:
    """A path value in the cfg -> the file it names (when it exists)."""
    cfg = project.cfg
    if cfg is None:
        return []
    entry = cfg.entry_at(pos)
    if entry is None or entry.key not in PATH_KEYS or not entry.value_range.contains(pos):
        return []
    ref = project.ref_for(entry)
    if ref is None or ref.resolved is None or os.path.isdir(ref.resolved):
        return []
    return [Location(ref.resolved, Range.point(0, 0))]


# ------------------------------------------------------------------ references

def blob_references(doc: PrototxtDocument, pos: Position, include_declaration: bool = True) -> list[Location]:
    ref = blob_ref_at(doc, pos)
    if ref is None:
        ls = layer_name_at(doc, pos)
        if ls is None:
            return []
        return [Location(doc.path or "", ls.name_range)]
    occ = blob_occurrences(doc, ref.blob)
    if not include_declaration:
        occ = [o for o in occ if o.role == "bottom"]
    return [Location(doc.path or "", o.range) for o in occ]


# ------------------------------------------------------------------ rename

class RenameError(ValueError):
    """A rename that must be refused; the message is for the user."""


@dataclass(frozen=True)
class RenameTarget:
    kind: str      # "blob" | "layer"
    name: str
    range: Range


def rename_target(doc: PrototxtDocument, pos: Position) -> RenameTarget | None:
    ls = layer_name_at(doc, pos)
    if ls is not None:
        return RenameTarget("layer", ls.name, ls.name_range)
    ref = blob_ref_at(doc, pos)
    if ref is not None:
        return RenameTarget("blob", ref.blob, ref.range)
    return None


def rename_placeholder(doc: PrototxtDocument, pos: Position) -> tuple[Range, str] | None:
    """For prepareRename: the range of the name without its quotes, and the name."""
    target = rename_target(doc, pos)
    if target is None:
        return None
    rng, li = target.range, doc.line_index
    text = doc.text[li.offset(rng.start):li.offset(rng.end)]
    if len(text) >= 2 and text[0] in "\"'" and text[-1] == text[0]:
        rng = Range(Position(rng.start.line, rng.start.character + 1), Position(rng.end.line, rng.end.character - 1))
    return rng, target.name


def _check_new_name(new: str, lang: str) -> None:
    if not new or not new.strip():
        raise RenameError(i18n.t("rename.empty", lang))
    if any(c in new for c in "\"'\\\n\r"):
        raise RenameError(i18n.t("rename.bad_chars", lang))


def rename(doc: PrototxtDocument, graph: NetGraph, pos: Position, new_name: str,
           lang: str = "en") -> list[TextEdit]:
    """Edits renaming the layer name or blob under the cursor everywhere in the file.

    Refuses (RenameError) an empty name, quotes/newlines, or a name already used by another
    layer (layer rename) or another blob (blob rename).
    """
    target = rename_target(doc, pos)
    if target is None:
        raise RenameError(i18n.t("rename.nothing", lang))
    _check_new_name(new_name, lang)
    if new_name == target.name:
        return []
    if target.kind == "layer":
        for gl in graph.layers:
            if gl.name == new_name:
                raise RenameError(i18n.t("rename.layer_exists", lang, name=new_name,
                                         line=gl.source.name_range.start.line + 1))
        ls = layer_name_at(doc, pos)
        return [replace_string_token(doc, ls.name_range, new_name)]
    existing = blob_occurrences(doc, new_name)
    if existing:
        raise RenameError(i18n.t("rename.blob_exists", lang, name=new_name,
                                 line=existing[0].range.start.line + 1))
    return [replace_string_token(doc, o.range, new_name) for o in blob_occurrences(doc, target.name)]


# ------------------------------------------------------------------ symbols, links, folding

@dataclass(frozen=True)
class Symbol:
    name: str
    detail: str
    kind: str            # "layer" | "input" | "key"
    range: Range
    selection_range: Range
    children: tuple["Symbol", ...] = ()


def prototxt_symbols(doc: PrototxtDocument, graph: NetGraph | None = None) -> list[Symbol]:
    out: list[Symbol] = []
    for n in doc.nodes:
        if n.name == "input":
            elems = n.children if n.kind == "list" else (n,)
            for e in elems:
                if isinstance(e.value, str):
                    out.append(Symbol(e.value, "input", "input", n.range, e.value_range))
    for ls in doc.layers:
        sel = ls.name_range
        blk = ls.block_range
        if not (blk.start <= sel.start and sel.end <= blk.end):
            sel = Range(blk.start, blk.start)
        out.append(Symbol(ls.name or f"#{ls.index}", ls.type or "?", "layer", blk, sel))
    return out


def cfg_symbols(cfg: CfgDocument) -> list[Symbol]:
    return [Symbol(f"[{e.key}]", e.value, "key", e.line_range, e.key_range) for e in cfg.entries]


@dataclass(frozen=True)
class Link:
    range: Range
    target: str   # absolute path


def cfg_links(project: Project) -> list[Link]:
    out = []
    for r in project.refs:
        if r.resolved and not os.path.isdir(r.resolved) and r.entry.value_range.start != r.entry.value_range.end:
            out.append(Link(r.entry.value_range, r.resolved))
    return out


@dataclass(frozen=True)
class Fold:
    start_line: int
    end_line: int
    kind: str = "region"   # "region" | "comment"


def prototxt_folding(doc: PrototxtDocument, max_depth: int = 3) -> list[Fold]:
    """Every message block spanning several lines (layer blocks and their nested params)."""
    out: list[Fold] = []

    def visit(nodes, depth):
        for n in nodes:
            if n.kind not in ("message", "list"):
                continue
            r = n.range
            if r.end.line > r.start.line:
                out.append(Fold(r.start.line, r.end.line))
            if depth + 1 < max_depth:
                visit(n.children, depth + 1)

    visit(doc.nodes, 0)
    # runs of full-line comments
    lines = sorted({rng.start.line for rng, _ in doc.comments
                    if not doc.line_index.line_text(rng.start.line)[:rng.start.character].strip()})
    out += _comment_runs(lines)
    return sorted(out, key=lambda f: (f.start_line, -f.end_line))


def cfg_folding(cfg: CfgDocument) -> list[Fold]:
    """Runs of full-line comments (banners)."""
    return _comment_runs([c.range.start.line for c in cfg.comments])


def _comment_runs(lines: list[int]) -> list[Fold]:
    """A comment fold for every run of two or more consecutive comment lines."""
    out: list[Fold] = []
    start = prev = None
    for ln in lines + [None]:
        if ln is not None and prev is not None and ln == prev + 1:
            prev = ln
            continue
        if start is not None and prev is not None and prev > start:
            out.append(Fold(start, prev, "comment"))
        start = prev = ln
    return out


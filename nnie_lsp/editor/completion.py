"""Completion candidates for cfg files (keys with value snippets, enum values) and prototxt files
(layer types, schema fields valid at the cursor, enum values, blob names after ``bottom:``/``top:``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nnie_lsp.readers.cfg.keys import KEYS, lookup
from nnie_lsp.core.i18n import pick
from nnie_lsp.readers.prototxt import layers as layer_table
from nnie_lsp.readers.prototxt import schema
from nnie_lsp.readers.prototxt.graph import NetGraph
from nnie_lsp.readers.prototxt.reader import PrototxtDocument
from nnie_lsp.core.text import LineIndex, Position, Range
from nnie_lsp.editor.common import layer_at


@dataclass(frozen=True)
class Completion:
    label: str
    kind: str                   # "key" | "value" | "type" | "field" | "message" | "enum" | "blob"
    insert_text: str
    replace: Range              # the text the item replaces
    detail: str = ""
    documentation: str = ""     # markdown
    snippet: bool = False
    sort_text: str | None = None
    filter_text: str | None = None


_SNIPPET_META = re.compile(r"\$\{\d+\|([^|]*)\|\}|\$\{\d+:([^}]*)\}|\$\d+")


def plain_from_snippet(snippet: str) -> str:
    """Snippet → plain text (first choice / placeholder), for clients without snippet support."""
    def repl(m):
        if m.group(1) is not None:
            return m.group(1).split(",")[0]
        return m.group(2) or ""
    return _SNIPPET_META.sub(repl, snippet).replace("\\}", "}").replace("\\$", "$")


# ------------------------------------------------------------------ cfg

_KEY_PREFIX = re.compile(r"^(\s*)(\[?)([A-Za-z_0-9]*)$")
_VALUE_PREFIX = re.compile(r"^\s*\[([^\]\s]+)\]\s*(\S*)$")


# which files a path key names (for path completion); directories are always offered
_PATH_EXTENSIONS = {
    "prototxt_file": (".prototxt",), "caffemodel_file": (".caffemodel",),
    "image_list": (".txt", ".list", ".lst"), "mean_file": (".txt", ".binaryproto"),
    "roi_coordinate_file": (".txt",), "gfpq_param_file": (".txt",),
}
_MAX_PATH_ITEMS = 200


def _path_completions(key: str, typed: str, rng: Range, base_dir: str) -> list[Completion]:
    """Files and folders under the cfg's folder (or the typed folder) for a path-valued key."""
    import os
    exts = _PATH_EXTENSIONS.get(key, ())
    head, _, _partial = typed.replace("\\", "/").rpartition("/")
    folder = head if os.path.isabs(head) else os.path.normpath(os.path.join(base_dir, head or "."))
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    prefix = (head + "/") if head else ("./" if typed.startswith("./") or not typed else "")
    out = []
    for name in names:
        if name.startswith("."):
            continue
        full = os.path.join(folder, name)
        is_dir = os.path.isdir(full)
        if not is_dir and exts and not name.lower().endswith(exts):
            continue
        text = prefix + name + ("/" if is_dir else "")
        out.append(Completion(text, "value", text, rng, detail="folder" if is_dir else key,
                              sort_text=("1" if is_dir else "0") + name.lower()))
        if len(out) >= _MAX_PATH_ITEMS:
            break
    return out


def _keys_elsewhere(text: str | None, line: int) -> set[str]:
    """The keys the cfg already sets on lines other than `line`."""
    if not text:
        return set()
    from nnie_lsp.readers.cfg.reader import parse_cfg
    present = set()
    for entry in parse_cfg(text).entries:
        spec = lookup(entry.key)
        if entry.line != line and spec is not None:
            present.add(spec.alias_of or spec.name)   # a spelling variant sets its key
    return present


def _key_rank(spec, present: set[str]) -> str:
    """Sort rank of a key: required keys not set yet, then other keys not set (and repeatable
    ones, which may be given once per input), last the keys already set that cannot repeat."""
    if spec.name in present and not spec.repeatable:
        return "3"
    return "0" if spec.required and spec.name not in present else "1"


def cfg_completions(text_line: str, pos: Position, lang: str = "en", snippets: bool = True,
                    base_dir: str | None = None, text: str | None = None) -> list[Completion]:
    """Candidates at `pos`, given the text of the cursor's line (`base_dir`: the cfg's folder, for
    completing file paths; `text`: the whole cfg, so keys already set rank last)."""
    before = text_line[:pos.character]
    after = text_line[pos.character:]
    m = _VALUE_PREFIX.match(before)
    if m:
        spec = lookup(m.group(1))
        if spec is not None and spec.kind == "path" and base_dir:
            typed = m.group(2)
            rest = re.match(r"\S*", after).group(0)
            rng = Range.of(pos.line, pos.character - len(typed), pos.line, pos.character + len(rest))
            return _path_completions(spec.name, typed, rng, base_dir)
        if spec is None or not spec.choices:
            return []
        typed = m.group(2)
        start = pos.character - len(typed)
        rest = re.match(r"\S*", after).group(0)
        rng = Range.of(pos.line, start, pos.line, pos.character + len(rest))
        out = []
        for i, c in enumerate(spec.choices):
            doc = spec.value_docs.get(c)
            text = pick(doc, lang) if doc else ""
            out.append(Completion(c, "enum", c, rng, detail=f"[{spec.name}]", documentation=text,
                                  sort_text=f"{i:03d}"))
        return out
    m = _KEY_PREFIX.match(before)
    if not m:
        return []
    start = len(m.group(1))
    # replace through the closing bracket and any value already on the line only if the
    # user is completing a bare word; keep it simple: replace the typed key and a trailing ']'
    rest = re.match(r"[A-Za-z_0-9]*\]?", after).group(0)
    rng = Range.of(pos.line, start, pos.line, pos.character + len(rest))
    present = _keys_elsewhere(text, pos.line)
    out = []
    for name, spec in KEYS.items():
        if spec.status == "unverified" or spec.alias_of:
            continue
        ins = spec.snippet if snippets else plain_from_snippet(spec.snippet)
        doc = pick((spec.doc_en, spec.doc_zh), lang)
        out.append(Completion(
            f"[{name}]", "key", ins, rng, detail=doc.split("。")[0][:80], documentation=doc, snippet=snippets,
            sort_text=_key_rank(spec, present) + name.lower(), filter_text=f"[{name}"))
    return out


# ------------------------------------------------------------------ prototxt

_TYPE_VALUE = re.compile(r"\btype\s*:\s*([\"']?)([A-Za-z0-9_]*)$")
_BLOB_VALUE = re.compile(r"\b(bottom|top|input)\s*:\s*([\"']?)([^\"'\s]*)$")
_ENUM_VALUE = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([A-Za-z0-9_]*)$")
_FIELD_NAME = re.compile(r"(?:^|[\s{;,])([A-Za-z_][A-Za-z0-9_]*)?$")


def _enclosing_messages(doc: PrototxtDocument, pos: Position) -> tuple[str, ...]:
    """Field names of the message blocks whose braces contain `pos`, outermost first."""
    off = doc.line_index.offset(pos)
    names = []
    nodes = doc.nodes
    while True:
        hit = None
        for n in nodes:
            if n.kind == "message":
                vs, ve = n.value_offsets
                if vs < off < ve or (vs < off and ve <= vs + 1):
                    hit = n
                    break
            elif n.kind == "list":
                for e in n.children:
                    if e.kind == "message":
                        vs, ve = e.value_offsets
                        if vs < off < ve:
                            hit = e
                            break
                if hit is not None:
                    break
            if n.start_offset > off:
                break
        if hit is None:
            return tuple(names)
        names.append(hit.name if hit.name else n.name)
        nodes = hit.children


def _brace_path_fallback(text: str, offset: int) -> tuple[str, ...]:
    """Field names of the open ``name {`` blocks before `offset`, by scanning braces (works on
    half-typed text the parser could not place)."""
    stack: list[str] = []
    for m in re.finditer(r"#[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|([A-Za-z_]\w*)\s*:?\s*[{<]|[}>]",
                         text[:offset]):
        tok = m.group(0)
        if tok[0] in "#\"'":
            continue
        if m.group(1):
            stack.append(m.group(1))
        elif stack:
            stack.pop()
    return tuple(stack)


def prototxt_completions(doc: PrototxtDocument, graph: NetGraph | None, pos: Position,
                         lang: str = "en", text_line: str | None = None) -> list[Completion]:
    li: LineIndex = doc.line_index
    line = text_line if text_line is not None else (li.line_text(pos.line) if pos.line < li.line_count else "")
    before = line[:pos.character]
    after = line[pos.character:]

    m = _TYPE_VALUE.search(before)
    if m:
        quote = m.group(1)
        typed = m.group(2)
        start = pos.character - len(typed) - len(quote)
        rest = re.match(r"[A-Za-z0-9_]*[\"']?", after).group(0)
        rng = Range.of(pos.line, start, pos.line, pos.character + len(rest))
        out = []
        for name in layer_table.all_types():
            spec = layer_table.lookup(name)
            rank = {"supported": "0", "extension": "1", "cpu": "2"}.get(spec.support, "3")
            out.append(Completion(name, "type", f'"{name}"', rng, detail=spec.support,
                                  documentation=pick((spec.doc_en, spec.doc_zh), lang),
                                  sort_text=rank + name.lower(), filter_text=f'{quote}{name}'))
        return out

    m = _BLOB_VALUE.search(before)
    if m and graph is not None:
        role, quote, typed = m.group(1), m.group(2), m.group(3)
        start = pos.character - len(typed) - len(quote)
        rest = re.match(r"[^\"'\s]*[\"']?", after).group(0)
        rng = Range.of(pos.line, start, pos.line, pos.character + len(rest))
        ls = layer_at(doc, pos)
        if role == "bottom" and ls is not None:
            avail: dict[str, str] = {i.name: "input" for i in graph.inputs
                                     if i.layer is None or i.layer < ls.index}
            for gl in graph.layers[:ls.index]:
                for tname in gl.tops:
                    avail[tname] = f"{gl.name} ({gl.type})"
        else:
            avail = {b: "" for b in graph.blobs()}
        items = list(avail.items())
        out = []
        for i, (blob, producer) in enumerate(reversed(items)):  # most recent first
            out.append(Completion(blob, "blob", f'"{blob}"', rng, detail=producer,
                                  sort_text=f"{i:06d}", filter_text=f"{quote}{blob}"))
        return out

    path = _enclosing_messages(doc, pos)
    fb = _brace_path_fallback(doc.text, li.offset(pos))
    if len(fb) > len(path):
        path = fb
    desc = schema.descriptor_at(path, doc.message_type)

    m = _ENUM_VALUE.search(before)
    if m and desc is not None:
        fd = desc.fields_by_name.get(m.group(1))
        if fd is None or fd.enum_type is None:
            if fd is not None and fd.type == fd.TYPE_BOOL:
                values = ("true", "false")
            else:
                return []
        else:
            values = tuple(v.name for v in fd.enum_type.values)
        typed = m.group(2)
        start = pos.character - len(typed)
        rng = Range.of(pos.line, start, pos.line, pos.character + len(re.match(r"\w*", after).group(0)))
        return [Completion(v, "enum", v, rng, detail=f"{desc.full_name}.{m.group(1)}", sort_text=f"{i:03d}")
                for i, v in enumerate(values)]

    m = _FIELD_NAME.search(before)
    if m is None or desc is None:
        return []
    typed = m.group(1) or ""
    start = pos.character - len(typed)
    rng = Range.of(pos.line, start, pos.line, pos.character + len(re.match(r"\w*", after).group(0)))
    preferred = None
    if path and path[-1] in ("layer", "layers"):
        ls = layer_at(doc, pos)
        if ls is not None and ls.type:
            preferred = schema.param_field_for_type(ls.type)
    out = []
    for fi in schema.fields_at(path, doc.message_type):
        if fi.kind == "message":
            ins, kind = f"{fi.name} {{\n\t$0\n}}", "message"
        else:
            ins, kind = f"{fi.name}: ", "field"
        rank = "0" if fi.name == preferred else ("1" if fi.name in ("name", "type", "bottom", "top") else "2")
        out.append(Completion(fi.name, kind, ins, rng, detail=fi.type_name + (" (repeated)" if fi.repeated else ""),
                              documentation=fi.doc, snippet=fi.kind == "message", sort_text=rank + fi.name))
    return out

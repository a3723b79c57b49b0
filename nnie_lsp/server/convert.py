"""Engine objects <-> LSP types: positions in the negotiated encoding, diagnostics, edits.

A diagnostic's ``data`` carries its fix ready for the editor: the WorkspaceEdit ``changes``
(URI -> TextEdits in the client's position encoding, line breaks of the target file), with the
fix message, its applicability and the document versions the edits were computed for (and, for a
file not open in the editor, the digest of the text they were computed for)::

    {"code": "NN301",
     "fix": {"message": "...", "applicability": "safe",
             "changes": {"file:///p/model.prototxt": [{"range": {...}, "newText": "..."}]},
             "versions": {"file:///p/model.prototxt": 3}},
     "info": {...}}

The quick fix is built from it as is (:func:`changes_from_data`); nothing is recomputed.  It is
offered only while every document is still at the version (an open one) or the text (a closed one,
``digests``) the edits were computed for, and it travels as ``documentChanges`` naming those
versions wherever the client supports them (:func:`workspace_edit`): the client refuses edits
made for another text.  Other
fixes the user may choose instead (``Diagnostic.alternatives``) travel the same way in
``data["alternatives"]``.  A fix that creates a file (an edit at 1:1 of a path that does not
exist: a new channel-mean file) lists the file in ``"creates"``; :func:`workspace_edit` then
sends a ``CreateFile`` before the edits (clients with resource operations only).

A rule's code links to its section of ``rules.md`` by the line of its heading (``#L105``): VS
Code opens a ``file:`` link at such a line, while an HTML anchor (``#nn301``) would open the file
at the top (the anchors stay for the rendered page and the JSON ``url``).
"""

from __future__ import annotations

import functools
import os
import re
from typing import Callable, Iterable, Mapping

from lsprotocol import types as lsp
from pygls.uris import from_fs_path

from nnie_lsp.core.diagnostic_json import RULES_DOC, rule_url
from nnie_lsp.core.diagnostics import Diagnostic, Fix, group_repeated
from nnie_lsp.editor.actions import Action
from nnie_lsp.core.text import LineIndex, Position, Range, column_from_utf16, utf16_column

SOURCE = "nnie-lint"
TRIAGE_SOURCE = "nnie-triage"


def uri_of(path: str) -> str:
    return from_fs_path(os.path.abspath(path)) or path


class Encoder:
    """Columns in code points (engine) <-> the client's position encoding (utf-8/16/32)."""

    def __init__(self, encoding: str | None = "utf-16") -> None:
        enc = str(getattr(encoding, "value", encoding) or "utf-16").lower()
        self.encoding = enc if enc in ("utf-8", "utf-16", "utf-32") else "utf-16"

    def to_lsp_col(self, line: str, character: int) -> int:
        if character <= 0:
            return 0
        prefix = line[:character]
        if prefix.isascii():
            return character
        if self.encoding == "utf-32":
            return character
        if self.encoding == "utf-16":
            return utf16_column(line, character)
        return len(prefix.encode("utf-8", "surrogatepass")) + max(0, character - len(line))

    def from_lsp_col(self, line: str, units: int) -> int:
        if units <= 0:
            return 0
        if line.isascii() or self.encoding == "utf-32":
            return min(units, len(line)) if units <= len(line) else len(line)
        if self.encoding == "utf-16":
            return column_from_utf16(line, units)
        count = 0
        for i, ch in enumerate(line):
            if count >= units:
                return i
            count += len(ch.encode("utf-8", "surrogatepass"))
        return len(line)

    def position(self, li: LineIndex | None, pos: Position) -> lsp.Position:
        if li is None or pos.line >= li.line_count:
            return lsp.Position(line=max(pos.line, 0), character=max(pos.character, 0))
        return lsp.Position(line=pos.line, character=self.to_lsp_col(li.line_text(pos.line), pos.character))

    def range(self, li: LineIndex | None, rng: Range) -> lsp.Range:
        return lsp.Range(start=self.position(li, rng.start), end=self.position(li, rng.end))

    def from_lsp(self, li: LineIndex, pos: lsp.Position) -> Position:
        if pos.line >= li.line_count:
            last = li.line_count - 1
            return Position(last, len(li.line_text(last)))
        return Position(pos.line, self.from_lsp_col(li.line_text(pos.line), pos.character))

LineSource = Callable[[str], "LineIndex | None"]


def edit_text(new_text: str, li: LineIndex | None) -> str:
    """Engine edit text uses "\\n"; follow the target document's CRLF style."""
    if li is not None and "\n" in new_text and "\r\n" in li.text[:4096]:
        return new_text.replace("\r\n", "\n").replace("\n", "\r\n")
    return new_text


def _position_json(position: lsp.Position) -> dict:
    return {"line": position.line, "character": position.character}


def creates_file(path: str, rng: Range, li: LineIndex | None) -> bool:
    """An edit at 1:1 of a file that is neither on disk nor open creates that file."""
    return li is None and rng.start == rng.end == Position(0, 0) and not os.path.exists(path)


def fix_data(fix: Fix, lines: LineSource, enc: Encoder, versions: dict[str, int]) -> dict:
    """The fix as WorkspaceEdit ``changes`` ready for the editor (see the module doc);
    `versions` maps the open documents' paths to their versions."""
    changes: dict[str, list[dict]] = {}
    edited_versions: dict[str, int] = {}
    digests: dict[str, str] = {}
    creates: list[str] = []
    for file_edit in fix.edits:
        path = os.path.abspath(file_edit.path)
        uri = uri_of(path)
        li = lines(path)
        if creates_file(path, file_edit.edit.range, li) and uri not in creates:
            creates.append(uri)
        rng = enc.range(li, file_edit.edit.range)
        changes.setdefault(uri, []).append({
            "range": {"start": _position_json(rng.start), "end": _position_json(rng.end)},
            "newText": edit_text(file_edit.edit.new_text, li)})
        if path in versions:
            edited_versions[uri] = versions[path]
        elif li is not None and uri not in digests:
            digests[uri] = text_digest(li.text)
    data = {"message": fix.message, "applicability": fix.applicability.value, "changes": changes,
            "versions": edited_versions}
    if digests:
        data["digests"] = digests
    if creates:
        data["creates"] = creates
    return data


def _position_from_json(raw) -> lsp.Position:
    line, character = raw["line"], raw["character"]
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (line, character)):
        raise ValueError(f"bad position {raw!r}")
    return lsp.Position(line=line, character=character)


def changes_from_data(fix: dict) -> dict[str, list[lsp.TextEdit]]:
    """The ``changes`` of a fix in ``Diagnostic.data`` as LSP TextEdits; raises
    ValueError/KeyError/TypeError when the client sent back something else."""
    raw = fix["changes"]
    if not isinstance(raw, dict) or not raw:
        raise ValueError("fix has no changes")
    changes: dict[str, list[lsp.TextEdit]] = {}
    for uri, edits in raw.items():
        if not isinstance(uri, str) or not isinstance(edits, (list, tuple)):
            raise ValueError(f"bad changes for {uri!r}")
        changes[uri] = [lsp.TextEdit(range=lsp.Range(start=_position_from_json(e["range"]["start"]),
                                                     end=_position_from_json(e["range"]["end"])),
                                     new_text=str(e["newText"])) for e in edits]
    return changes


def merge_fix_data(fixes: Iterable[Mapping]) -> dict:
    """Several fixes' data (non-overlapping) as one: their changes, created files and versions."""
    changes: dict[str, list[dict]] = {}
    versions: dict[str, int] = {}
    digests: dict[str, str] = {}
    creates: list[str] = []
    for fix in fixes:
        for uri, edits in fix["changes"].items():
            changes.setdefault(uri, []).extend(edits)
        versions.update(fix.get("versions") or {})
        digests.update(fix.get("digests") or {})
        creates.extend(uri for uri in fix.get("creates") or [] if uri not in creates)
    merged = {"changes": changes, "versions": versions}
    if digests:
        merged["digests"] = digests
    if creates:
        merged["creates"] = creates
    return merged


def can_create_files(capabilities) -> bool:
    """The client applies ``documentChanges`` with ``CreateFile`` operations."""
    edit = getattr(getattr(capabilities, "workspace", None), "workspace_edit", None)
    operations = getattr(edit, "resource_operations", None) or []
    return bool(getattr(edit, "document_changes", False)) and any(
        str(getattr(op, "value", op)) == "create" for op in operations)


def versioned_edits(capabilities) -> bool:
    """The client applies ``documentChanges``: each document's edits carry the version they were
    computed for, and the client refuses them when the document has changed since."""
    edit = getattr(getattr(capabilities, "workspace", None), "workspace_edit", None)
    return bool(getattr(edit, "document_changes", False))


@functools.lru_cache(maxsize=4)
def text_digest(text: str) -> str:
    """The digest of a text a fix was computed for (a file not open in the editor); cached: the
    fixes of one lint that edit one closed file hash its text once."""
    from nnie_lsp.core.atomic_write import digest

    return digest(text.encode("utf-8", "surrogatepass"))


def stale_files(fix: Mapping, current_text: Callable[[str], "str | None"]) -> list[str]:
    """The URIs of files not open when the fix was computed whose text is no longer the one it was
    computed for (``digests`` of the fix data; `current_text`: a URI's text now, None if unreadable)."""
    out = []
    for uri, expected in (fix.get("digests") or {}).items():
        text = current_text(uri)
        if text is None or text_digest(text) != expected:
            out.append(uri)
    return out


def workspace_edit(fix: Mapping, versioned: bool = False) -> lsp.WorkspaceEdit:
    """The WorkspaceEdit of a fix's data (:func:`fix_data` / :func:`merge_fix_data`).

    With ``versioned`` (the client applies ``documentChanges``: :func:`versioned_edits`) every
    document's edits name the version they were computed for, so the client applies them only to
    that text (compare-and-swap; a closed file has no version and goes with ``null``), with a
    ``CreateFile`` first for each file the fix creates (:func:`can_create_files` is checked by the
    caller).  Without it, plain ``changes`` (the client cannot compare)."""
    changes = changes_from_data(fix)
    creates = [uri for uri in fix.get("creates") or [] if isinstance(uri, str)]
    if not creates and not versioned:
        return lsp.WorkspaceEdit(changes=changes)
    versions = fix.get("versions") or {}
    operations: list = [lsp.CreateFile(uri=uri, options=lsp.CreateFileOptions(overwrite=False, ignore_if_exists=False))
                        for uri in creates]
    for uri, edits in changes.items():
        version = versions.get(uri) if uri not in creates else None
        operations.append(lsp.TextDocumentEdit(
            text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version), edits=edits))
    return lsp.WorkspaceEdit(document_changes=operations)


_HEADING = re.compile(r"^## ([A-Z]+[0-9]+) ")


@functools.lru_cache(maxsize=1)
def _rule_heading_lines(path: str = RULES_DOC) -> dict[str, int]:
    """Code -> the 1-based line of its ``## CODE (name)`` heading in rules.md."""
    try:
        with open(path, encoding="utf-8") as handle:
            return {m.group(1): number for number, line in enumerate(handle, 1) if (m := _HEADING.match(line))}
    except OSError:
        return {}


def documented_rule(code: str) -> bool:
    """Whether rules.md has a section for `code` (a registered rule or T-code)."""
    return code in _rule_heading_lines()


def rule_href(code: str) -> str:
    """The link of a rule code: rules.md at the rule's heading line (module doc)."""
    line = _rule_heading_lines().get(code)
    if line is None:
        return rule_url(code)
    return rule_url(code).split("#", 1)[0] + f"#L{line}"


def to_code_action(action: Action, lines: LineSource, enc: Encoder,
                   diagnostics: list[lsp.Diagnostic] | None,
                   versions: Mapping[str, int | None] | None = None) -> lsp.CodeAction:
    """A code action built by :mod:`nnie_lsp.editor.actions` (engine positions) for the client;
    with `versions` (path -> the version its edits were computed for, None for a closed file) as
    versioned ``documentChanges`` (:func:`workspace_edit`)."""
    changes: dict[str, list[lsp.TextEdit]] = {}
    for path, edits in action.edits.items():
        li = lines(path)
        changes[uri_of(path)] = [lsp.TextEdit(range=enc.range(li, e.range), new_text=edit_text(e.new_text, li))
                                 for e in edits]
    if versions is None:
        edit = lsp.WorkspaceEdit(changes=changes)
    else:
        by_uri = {uri_of(p): v for p, v in versions.items()}
        edit = lsp.WorkspaceEdit(document_changes=[lsp.TextDocumentEdit(
            text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=by_uri.get(uri)), edits=e)
            for uri, e in changes.items()])
    return lsp.CodeAction(title=action.title, kind=action.kind, diagnostics=diagnostics or None,
                          is_preferred=action.preferred or None, edit=edit)


def to_lsp_diagnostics(diags: Iterable[Diagnostic], lines: LineSource, enc: Encoder,
                       versions: dict[str, int], source: str = SOURCE) -> list[lsp.Diagnostic]:
    """The engine's findings for the client, repeated identical ones shown once ("the same in N
    more", the others in ``relatedInformation``: :func:`nnie_lsp.core.diagnostics.group_repeated`)."""
    return [to_lsp_diagnostic(d, lines, enc, versions, source) for d in group_repeated(diags)]


def to_lsp_diagnostic(d: Diagnostic, lines: LineSource, enc: Encoder, versions: dict[str, int],
                      source: str = SOURCE, extra: Mapping | None = None) -> lsp.Diagnostic:
    """An engine diagnostic for the client; `extra` is added to its ``data``."""
    home = lines(d.path)
    related = [lsp.DiagnosticRelatedInformation(
        location=lsp.Location(uri=uri_of(r.path), range=enc.range(lines(r.path), r.range)), message=r.message)
        for r in d.related]
    data: dict = {"code": d.code}
    if d.fix is not None:
        data["fix"] = fix_data(d.fix, lines, enc, versions)
    if d.alternatives:
        data["alternatives"] = [fix_data(fix, lines, enc, versions) for fix in d.alternatives]
    if d.data:
        data["info"] = dict(d.data)
    if extra:
        data.update(extra)
    tags = [lsp.DiagnosticTag.Unnecessary] if d.code == "NN901" else None
    return lsp.Diagnostic(
        range=enc.range(home, d.range),
        message=d.message,
        severity=lsp.DiagnosticSeverity(int(d.severity)),
        code=d.code,
        code_description=lsp.CodeDescription(href=rule_href(d.code)),
        source=source,
        related_information=related or None,
        tags=tags,
        data=data,
    )

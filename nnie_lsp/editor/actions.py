"""Code-action building: engine fixes as quick fixes, "disable NNxxx for this line", fix-all.

Works on engine objects (:class:`~nnie_lsp.core.diagnostics.Fix`, TextEdits in code points); the
server turns the result into LSP ``CodeAction``s.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from nnie_lsp.core import i18n
from nnie_lsp.core.diagnostics import Diagnostic
from nnie_lsp.core.text import LineIndex, Position, Range, TextEdit, edits_overlap


@dataclass(frozen=True)
class Action:
    title: str
    kind: str                                 # "quickfix" | "source.fixAll.nnie"
    edits: dict[str, list[TextEdit]]         # absolute path -> edits
    preferred: bool = False
    codes: tuple[str, ...] = ()


# ------------------------------------------------------------------ quick fix of an engine fix

def fix_title(message: str, code: str, safe: bool, lang: str = "en") -> str:
    """The quick-fix title of an engine fix (its edits travel in ``Diagnostic.data``, ready for
    the editor: see :mod:`nnie_lsp.server.convert`)."""
    title = f"{message} ({code})"
    if not safe:
        title += i18n.t("action.unsafe_suffix", lang)
    return title


# ------------------------------------------------------------------ disable for this line

_DIRECTIVE_IN_LINE = re.compile(r"nnie-lint\s*:\s*disable\s*=\s*([A-Za-z0-9_,\s]*?)\s*$")


def disable_line_edit(text: str, line: int, code: str, kind: str, index: LineIndex | None = None) -> TextEdit:
    """The edit that silences `code` on `line`.

    prototxt: an end-of-line ``# nnie-lint: disable=CODE`` (extends an existing directive at the
    end of the line).  cfg: a comment line above (``[key] value  # …`` would itself be NN007), or
    the code appended to a directive line already above.
    """
    li = index or LineIndex(text)
    line = max(0, min(line, li.line_count - 1))
    content = li.line_text(line)
    if kind == "prototxt":
        m = _DIRECTIVE_IN_LINE.search(content)
        end = Position(line, len(content))
        if m and "#" in content[:m.start()]:
            codes = [c for c in re.split(r"[,\s]+", m.group(1)) if c]
            if code in codes:
                return TextEdit(Range(end, end), "")
            return TextEdit(Range(end, end), f",{code}")
        stripped = content.rstrip()
        start = Position(line, len(stripped))
        return TextEdit(Range(start, end), f"{'  ' if stripped else ''}# nnie-lint: disable={code}")
    # cfg: a directive alone on the previous line covers this line
    if line > 0:
        prev = li.line_text(line - 1)
        m = _DIRECTIVE_IN_LINE.search(prev)
        if m and prev.lstrip().startswith("#") and "[" not in prev[:m.start()]:
            codes = [c for c in re.split(r"[,\s]+", m.group(1)) if c]
            end = Position(line - 1, len(prev.rstrip()))
            if code in codes:
                return TextEdit(Range(end, end), "")
            return TextEdit(Range(end, end), f",{code}")
    indent = re.match(r"[ \t]*", content).group(0)
    at = Position(line, 0)
    newline = "\r\n" if "\r\n" in text[:4096] else "\n"
    return TextEdit(Range(at, at), f"{indent}# nnie-lint: disable={code}{newline}")


def disable_action(path: str, text: str, line: int, code: str, kind: str, lang: str = "en",
                   index: LineIndex | None = None) -> Action:
    edit = disable_line_edit(text, line, code, kind, index)
    return Action(i18n.t("action.disable_line", lang, code=code), "quickfix", {os.path.abspath(path): [edit]},
                  codes=(code,))


# ------------------------------------------------------------------ fix all

def fix_all(diagnostics: list[Diagnostic], path: str, lang: str = "en") -> Action | None:
    """All safe fixes of `path`'s diagnostics that edit only `path`, without overlaps (first
    come, first kept; the rest are left for the next run, as ``nnie-lint --fix`` does)."""
    target = os.path.abspath(path)
    accepted: list[TextEdit] = []
    codes: list[str] = []
    for d in diagnostics:
        fix = d.fix
        if fix is None or not fix.is_safe or not fix.edits:
            continue
        if os.path.abspath(d.path) != target:
            continue
        if any(os.path.abspath(fe.path) != target for fe in fix.edits):
            continue
        edits = [fe.edit for fe in fix.edits]
        if edits_overlap(edits, accepted):
            continue
        accepted.extend(edits)
        codes.append(d.code)
    if not accepted:
        return None
    return Action(i18n.t("action.fix_all", lang), "source.fixAll.nnie", {target: accepted}, codes=tuple(codes))

"""The text of a model card entry, and the edits that add it (or add keys to an entry).

A draft never writes silently: these are the edits of a fix or a code action the user chooses
(lint's NN108 "declare it", the editor's "Create the model card", the reference's ask-once
dialog).  Each value may carry where it came from (``detect.py:42: cv2.dnn.blobFromImage(…)``),
written as a comment at the end of its line, and the entry's ``source`` names the files read.
"""

from __future__ import annotations

import json
import os
from typing import Mapping

from nnie_lsp.core.diagnostics import FileEdit
from nnie_lsp.core.text import LineIndex, Position, Range, TextEdit
from nnie_lsp.readers.card import CARD_FILE

#: the order keys are written in
ORDER = ("prototxt", "channel_order", "mean", "mean_file", "scale", "transpose", "framework", "source")


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return _number(value)
    if isinstance(value, (list, tuple)):
        items = [_number(v) for v in value]
        return items[0] if len(items) == 1 else "[" + ", ".join(items) + "]"
    return json.dumps(str(value), ensure_ascii=False)   # a TOML basic string is a JSON string


def _number(v) -> str:
    if isinstance(v, int) and not isinstance(v, bool):
        return str(v)
    v = float(v)
    if v.is_integer() and abs(v) < 1e15:
        return str(int(v))      # 104 rather than 104.0 (the card reads both as the same number)
    return repr(v)              # the shortest text that reads back exactly: 0.0078125, 0.00392156862745098


def _comment(text: str | None) -> str:
    return f"   # {text}" if text else ""


def entry_text(prototxt: str, values: Mapping[str, object], comments: Mapping[str, str] | None = None,
               header_comment: str | None = None) -> str:
    """``[[model]]`` with ``prototxt`` and `values` (in :data:`ORDER`), one key a line."""
    comments = comments or {}
    lines = [f"# {header_comment}"] if header_comment else []
    lines.append("[[model]]")
    lines.append(f"prototxt = {toml_value(prototxt)}{_comment(comments.get('prototxt'))}")
    for key in ORDER[1:]:
        if key in values and values[key] is not None:
            lines.append(f"{key} = {toml_value(values[key])}{_comment(comments.get(key))}")
    for key, value in values.items():
        if key not in ORDER and value is not None:
            lines.append(f"{key} = {toml_value(value)}{_comment(comments.get(key))}")
    return "\n".join(lines) + "\n"


def card_for_cfg(cfg_path: str, card_path: str | None = None) -> str:
    """Where a new card for this cfg goes: the card given (the nearest one), else beside the cfg."""
    return card_path or os.path.join(os.path.dirname(os.path.abspath(cfg_path)), CARD_FILE)


def relative_prototxt(card_path: str, prototxt: str) -> str:
    return os.path.relpath(os.path.abspath(prototxt), os.path.dirname(os.path.abspath(card_path))).replace(os.sep, "/")


def add_entry_edits(card_path: str, card_text: str | None, prototxt: str, values: Mapping[str, object],
                    comments: Mapping[str, str] | None = None, header_comment: str | None = None) -> list[FileEdit]:
    """The edit that adds an entry for `prototxt` (absolute) at the end of the card at `card_path`
    (`card_text` None: the card does not exist yet, the edit creates it)."""
    entry = entry_text(relative_prototxt(card_path, prototxt), values, comments, header_comment)
    if card_text is None:
        return [FileEdit(card_path, TextEdit(Range.point(0, 0), entry))]
    idx = LineIndex(card_text)
    end = idx.position(len(card_text))
    sep = "" if not card_text else ("\n" if card_text.endswith("\n") else "\n\n")
    return [FileEdit(card_path, TextEdit(Range(end, end), sep + entry))]


def add_keys_edits(card_path: str, document, model, values: Mapping[str, object],
                   comments: Mapping[str, str] | None = None) -> list[FileEdit]:
    """The edits that add `values` (keys the entry does not have) after the entry's last line (its
    end-of-line comment stays where it is)."""
    comments = comments or {}
    line = model.range.end.line
    end = Position(line, len(document.line_index.line_text(line)))
    text = "".join(f"\n{k} = {toml_value(v)}{_comment(comments.get(k))}" for k, v in values.items() if v is not None)
    return [FileEdit(card_path, TextEdit(Range(end, end), text))]

"""The board dump forms as data (no numpy): which extension names which form, for the folder scan
and discovery; :mod:`.board` reads them (the table with what each holds is its docstring and
``docs/board-dumps.md``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["BOARD_FORMS", "BoardForm", "board_form", "stem_of"]


@dataclass(frozen=True)
class BoardForm:
    key: str
    extensions: tuple[str, ...]
    words: bool          # the file holds the blob's words (S32 / U8) themselves
    text: str            # what it holds, for docs and messages


BOARD_FORMS: tuple[BoardForm, ...] = (
    BoardForm("raw", (".bin", ".raw", ".s32", ".u8", ".mem"), True,
              "the blob memory (little-endian S32 words, or bytes for an image input), rows with or without "
              "the stride padding"),
    BoardForm("f32", (".f32", ".float32"), False, "little-endian float32 values (value / 4096)"),
    BoardForm("text", (".txt", ".float", ".csv"), False, "numbers as printed (value / 4096, one per line)"),
    BoardForm("hex", (".hex",), True, "%08x S32 words, one per line (the SDK sample's report form)"),
    BoardForm("npy", (".npy",), False, "a numpy array of values"),
)
_BY_EXT = {ext: form for form in BOARD_FORMS for ext in form.extensions}


def board_form(file_name: str) -> BoardForm | None:
    """The form a file's extension names (case-insensitive), or None."""
    ext = os.path.splitext(file_name)[1].lower()
    return _BY_EXT.get(ext)


def stem_of(file_name: str) -> str:
    """The file's name without the form's extension (``prob1.bin`` → ``prob1``)."""
    return os.path.splitext(os.path.basename(file_name))[0]

"""The forms a board program writes its blobs in, and how each is read (``docs/board-dumps.md``).

One file per node (an output of any segment, optionally a first-segment input), named by the
node's name or its index (:mod:`nnie_lsp.triage.board.folder` matches names).  The form is told by
the extension; the number of values tells whether the rows carry the stride padding:

========  ==========================================  =============================================
form      extensions                                  content
========  ==========================================  =============================================
``raw``   ``.bin`` ``.raw`` ``.s32`` ``.u8`` ``.mem``  the blob memory: little-endian S32 words (one
                                                       byte per value for a U8/YUV input), with or
                                                       without the padding after each row; a file
                                                       of float32 values instead of S32 words is
                                                       told by its bit patterns and read so (a note
                                                       says it)
``f32``   ``.f32`` ``.float32``                       little-endian float32 values (value / 4096)
``text``  ``.txt`` ``.float`` ``.csv``                numbers as the user's code printed them: one
                                                       per line or separated by blanks, commas,
                                                       semicolons or tabs -- value / 4096, or the
                                                       S32 word itself where the division was
                                                       forgotten (the board's scale check names it)
``hex``   ``.hex``                                    ``%08x`` two's-complement S32 words, one per
                                                       line: the SDK sample's report form (field
                                                       facts §10.2), padding skipped
``npy``   ``.npy``                                    a numpy array of values
========  ==========================================  =============================================

:func:`read_board_file` returns the values in file order as the form defines them (S32 words
divided by 4096, bytes as integers, text as written) with the words themselves where the form has
them; what the values mean (which node, which stride, which scale) is the triage's to find out.
Bad content raises ``ValueError`` naming the file; a file that is not a regular file or is too big
raises ``OSError`` (:mod:`nnie_lsp.core.safe_io`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from nnie_lsp.core import safe_io
from nnie_lsp.readers.dumpio.board_forms import BOARD_FORMS, BoardForm, board_form, stem_of
from nnie_lsp.readers.dumpio.readers import QUANT_BASE, parse_hex_words, read_text_floats

__all__ = ["BOARD_FORMS", "BoardForm", "BoardValues", "board_form", "blob_memory", "read_board_file", "stem_of", "to_words",
           "write_board_file", "QUANT_BASE"]


@dataclass(frozen=True)
class BoardValues:
    """A board file read.  ``values``: float64 in file order (S32 words / 4096, bytes, text as
    written); ``words``: the int64 words when the form holds them (raw, hex), else None;
    ``element_size``: 4 for S32 words, 1 for bytes, None for values; ``note``: how the file was read
    when the form alone did not say (float32 in a .bin)."""

    path: str
    form: str
    values: np.ndarray
    words: np.ndarray | None
    element_size: int | None
    note: str | None = None

    @property
    def count(self) -> int:
        return int(self.values.size)


def _float32_in_words(data: bytes) -> bool:
    """A .bin of float32 values rather than S32 words: as int32 most words are huge (a float's
    exponent bits; S32 results of that size are values above 65536), as float32 every word is finite
    and of a plausible size."""
    if len(data) < 16 or len(data) % 4:
        return False
    ints = np.frombuffer(data, dtype="<i4").astype(np.int64)
    nonzero = ints[ints != 0]
    if nonzero.size < max(4, ints.size // 4) or np.median(np.abs(nonzero)) < (1 << 28):
        return False
    floats = np.frombuffer(data, dtype="<f4").astype(np.float64)
    return bool(np.all(np.isfinite(floats)) and np.max(np.abs(floats)) < 1e9)


def read_board_file(path: str, element_size: int | None = 4) -> BoardValues:
    """Read one board file in the form its extension names.  ``element_size``: what a raw file
    holds -- 4 (S32 words: an output, a feature-map input) or 1 (bytes: a U8 or YUV image input);
    None: 4 unless the size is not a whole number of words."""
    base = os.path.basename(path)
    form = board_form(base)
    if form is None:
        raise ValueError(f"{base}: not a board dump form (.bin/.raw/.s32/.u8/.mem, .f32, .txt/.float/.csv, "
                         ".hex, .npy)")
    if form.key == "text":
        values = np.asarray(read_text_floats(path), dtype=np.float64).reshape(-1)
        return BoardValues(path, "text", values, None, None)
    if form.key == "npy":
        import io

        arr = np.load(io.BytesIO(safe_io.read_bytes(path, safe_io.DUMP)), allow_pickle=False)
        return BoardValues(path, "npy", np.asarray(arr, dtype=np.float64).reshape(-1), None, None)
    data = safe_io.read_bytes(path, safe_io.DUMP)
    if form.key == "hex":
        values = parse_hex_words(data, path=base)
        words = np.rint(values * QUANT_BASE).astype(np.int64)
        return BoardValues(path, "hex", values, words, 4)
    if form.key == "f32":
        if len(data) % 4:
            raise ValueError(f"{base}: {len(data)} bytes are not a whole number of float32 values")
        return BoardValues(path, "f32", np.frombuffer(data, dtype="<f4").astype(np.float64), None, None)
    size = element_size
    if size is None:
        size = 4 if len(data) % 4 == 0 else 1
    if size == 1 or base.lower().endswith(".u8"):
        words = np.frombuffer(data, dtype=np.uint8).astype(np.int64)
        return BoardValues(path, "raw", words.astype(np.float64), words, 1)
    if len(data) % 4:
        raise ValueError(f"{base}: {len(data)} bytes are not a whole number of 4-byte S32 words")
    if _float32_in_words(data):
        values = np.frombuffer(data, dtype="<f4").astype(np.float64)
        return BoardValues(path, "raw", values, None, None,
                           note="holds float32 values, not S32 words (its bit patterns say so): read as floats")
    words = np.frombuffer(data, dtype="<i4").astype(np.int64)
    return BoardValues(path, "raw", words.astype(np.float64) / QUANT_BASE, words, 4)


# ------------------------------------------------------------------ writing (tests, benchmarks, examples)

def blob_memory(words: np.ndarray, stride: int, pad: np.ndarray | int = 0) -> np.ndarray:
    """The memory of a blob whose rows (the last axis of ``words``) lie ``stride`` elements apart:
    each row's values, then ``pad`` (a value, or an array broadcast to the padding) up to the
    stride.  Returns the flat memory (rows × stride) in ``words``' dtype."""
    w = np.asarray(words)
    rows = w.reshape(-1, w.shape[-1])
    out = np.empty((rows.shape[0], stride), dtype=rows.dtype)
    out[:, : rows.shape[1]] = rows
    if stride > rows.shape[1]:
        out[:, rows.shape[1]:] = np.broadcast_to(np.asarray(pad, dtype=rows.dtype), (rows.shape[0], stride - rows.shape[1])) \
            if np.ndim(pad) else pad
    return out.reshape(-1)


def to_words(values: np.ndarray) -> np.ndarray:
    """Values on the 20.12 grid as the chip's S32 words (int32, saturated)."""
    v = np.rint(np.asarray(values, dtype=np.float64) * QUANT_BASE)
    return np.clip(v, -(1 << 31), (1 << 31) - 1).astype(np.int32)


def write_board_file(folder: str, name: str, memory: np.ndarray, width: int, stride: int, form: str) -> str:
    """What ``nnie_board_dump_blob`` (board_code/nnie_board_dump.c) writes for one blob whose flat
    ``memory`` (int32 words of an S32 blob, uint8 bytes of a U8 one) holds rows of ``width`` values
    ``stride`` elements apart: ``bin`` the memory as it is, ``txt`` one value per line with the
    padding skipped (S32: word / 4096 as ``%.12g``; U8: the byte), ``hex`` ``%08x`` words.  Returns
    the path."""
    mem = np.asarray(memory)
    safe = "".join(ch if ch.isalnum() or ch in "_-." else "_" for ch in name)
    rows = mem.reshape(-1, stride)[:, :width]
    path = os.path.join(folder, f"{safe}.{form}")
    s32 = mem.dtype.itemsize == 4
    if form == "bin":
        data = mem.astype("<i4" if s32 else np.uint8).tobytes()
    elif form == "txt":
        flat = rows.reshape(-1)
        data = ("".join(f"{int(x) / QUANT_BASE:.12g}\n" for x in flat) if s32
                else "".join(f"{int(x)}\n" for x in flat)).encode("ascii")
    elif form == "hex":
        if not s32:
            raise ValueError("the .hex form holds S32 words only")
        data = "".join(f"{int(x) & 0xFFFFFFFF:08x}\n" for x in rows.reshape(-1)).encode("ascii")
    else:
        raise ValueError(f"unknown board form {form!r} (bin, txt, hex)")
    with open(path, "wb") as fh:
        fh.write(data)
    return path

"""Value readers for dump files: text floats and ``%08x`` fixed-point hex words (``docs/field-facts.md`` §10).

* Text floats (newline / space / comma / tab / semicolon separated): RuyiStudio and numpy ``savetxt``
  ``%.18e`` one-per-line files take a vectorised fixed-width path (:mod:`.fixed_e`), the mapper's
  dequantized ``.float`` files (C++ stream output: ``%g``, six significant digits, one per line)
  a vectorised short-line path (:mod:`.short_g`), anything else a bytes-level tokeniser.
* Hex words: ``%08x`` two's-complement int32, one per line, value = int32 / 2**frac_bits (20.12
  fixed point, ``SAMPLE_SVP_NNIE_QUANT_BASE`` = 4096); fixed-width files take a vectorised path.
* Content probes used by the folder scan: is the first line a hex word; MindSpore's header line.

See ``benchmarks/bench_triage.py`` for ratios against ``numpy.loadtxt`` and an ``int(x, 16)`` loop.
Bad content raises ``ValueError`` naming the file and the token.
"""

from __future__ import annotations

import re
import warnings

import numpy as np

from nnie_lsp.core import safe_io
from nnie_lsp.readers.dumpio import fixed_e, short_g
from nnie_lsp.readers.dumpio.fixed_e import parser_threads

__all__ = [
    "FRAC_BITS",
    "QUANT_BASE",
    "parser_threads",
    "read_text_floats",
    "parse_text_floats",
    "read_hex_words",
    "parse_hex_words",
    "looks_like_hex_words",
    "read_mindspore_header_shape",
]

FRAC_BITS = 12
QUANT_BASE = 1 << FRAC_BITS  # SAMPLE_SVP_NNIE_QUANT_BASE: 20.12 fixed point


# --------------------------------------------------------------------------------------------
# text floats
# --------------------------------------------------------------------------------------------
_SEP_TABLE = bytes.maketrans(b",;\t\r", b"    ")


def _parse_general(data: bytes, path: str) -> np.ndarray:
    text = data.translate(_SEP_TABLE)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            out = np.fromstring(text, dtype=np.float64, sep=" ")  # C tokenizer, whitespace separated
        except (DeprecationWarning, ValueError):
            out = None
    if out is not None and (out.size or not text.strip()):
        return out
    tokens = text.split()
    if not tokens:
        return np.zeros(0)
    vals = []
    for i, tok in enumerate(tokens):
        try:
            vals.append(float(tok))
        except ValueError:
            raise ValueError(f"{path}: token {i + 1} is not a number: {tok[:40]!r}") from None
    return np.array(vals, dtype=np.float64)


_NUMBER_START = re.compile(rb"^[-+.0-9]|^(nan|inf)", re.IGNORECASE)
_HEADER_START = re.compile(rb"^[A-Za-z_]")
_HEAD_BYTES = 4096


def read_text_floats(path, *, skip_header: bool = False, threads: int | None = None) -> np.ndarray:
    """All numbers of a text file (newline, space, comma, tab or semicolon separated) as float64.

    ``%.18e`` one-per-line files (RuyiStudio / numpy ``savetxt``) and the mapper's six-digit
    ``%g`` lines take vectorised paths that read the file in cache-sized pieces (:mod:`.fixed_e`,
    :mod:`.short_g`; ``threads`` caps their threads, 1 = single core); anything else goes through a
    bytes-level tokeniser.  ``skip_header`` drops a first line that does not start with a number
    (MindSpore ``<name> 4 1 H W C`` headers).  Regular files up to the bound for dumps only
    (:mod:`nnie_lsp.core.safe_io`; else ``FileReadError``, an ``OSError``)."""
    with safe_io.open_bounded(path, safe_io.DUMP) as source:
        values, tried = _read_fast(source, skip_header, threads)
    if values is not None:
        return values
    data = safe_io.read_bytes(path, safe_io.DUMP)
    return _parse_text(data, str(path), skip_header, threads, fast_tried=tried)


def _fast_parser(head: bytes):
    """The fast path for a text starting with ``head`` (a function of ``(read_at, size, threads)``),
    or None: ``%.Ne`` lines (:mod:`.fixed_e`), short ``%g`` lines (:mod:`.short_g`)."""
    if head[:1] not in _LINE_STARTS:
        return None
    frac = fixed_e.line_format(head)
    if frac is not None:
        return lambda read_at, size, threads: fixed_e.parse_parts(read_at, size, frac, threads)
    if short_g.line_format(head):
        return short_g.parse_parts
    return None


def _read_fast(source: safe_io.BoundedFile, skip_header: bool,
               threads: int | None) -> tuple[np.ndarray | None, bool]:
    """The fast paths straight from the file: (values, True); (None, whether one was tried) when the
    file is not plainly one of their formats (the caller reads it whole and takes the general path,
    which also words the errors)."""
    head_buffer = bytearray(_HEAD_BYTES)
    head = bytes(head_buffer[: source.readinto_at(head_buffer, 0)])
    start = 0
    first = head.find(b"\n")
    line = head[: first if first >= 0 else len(head)].strip()
    if line and not _NUMBER_START.match(line):
        if first < 0 or not (skip_header or _HEADER_START.match(line)):
            return None, False
        start = first + 1
    parse = _fast_parser(head[start:])
    if parse is None:
        return None, False
    size = source.size
    values = parse(lambda view, offset: source.readinto_at(view, start + offset), size - start,
                   parser_threads(threads))
    if values is not None and source.readinto_at(bytearray(1), size):
        return None, False  # the file grew while it was read: read it whole
    return values, True


_LINE_STARTS = (b"-", b"0", b"1", b"2", b"3", b"4", b"5", b"6", b"7", b"8", b"9")


def parse_text_floats(data: bytes, *, path: str = "<bytes>", skip_header: bool = False,
                      threads: int | None = None) -> np.ndarray:
    """Text floats in ``data`` (see :func:`read_text_floats`); ``path`` only names the source in
    errors; ``threads`` caps the fast path's threads (:func:`parser_threads`; 1 = single core)."""
    return _parse_text(data, path, skip_header, threads, fast_tried=False)


def _parse_text(data: bytes, path: str, skip_header: bool, threads: int | None, *, fast_tried: bool) -> np.ndarray:
    """``fast_tried``: the fast path already refused this text as read from the file; it is tried
    again only when carriage returns, which it does not take, are removed here."""
    first = data.find(b"\n")
    head = data[: first if first >= 0 else len(data)].strip()
    if head and not _NUMBER_START.match(head):
        if not skip_header and not _HEADER_START.match(head):
            raise ValueError(f"{path}: not a text float file (starts with {head[:40]!r})")
        data = data[first + 1 :] if first >= 0 else b""
    if b"\r" in data:
        data = data.replace(b"\r", b"")
        fast_tried = False
    if data[:1] in (b"\n", b" ", b"\t"):
        data = data.lstrip()
        fast_tried = False
    if data and not data.endswith(b"\n"):
        data += b"\n"
    if not data[:4096].strip() and not data.strip():
        return np.zeros(0)
    parse = None if fast_tried else _fast_parser(data[:_HEAD_BYTES])
    if parse is not None:
        view = memoryview(data)

        def read_at(buffer: memoryview, offset: int) -> int:
            piece = view[offset : offset + len(buffer)]
            buffer[: len(piece)] = piece
            return len(piece)

        fast = parse(read_at, len(data), parser_threads(threads))
        if fast is not None:
            return fast
    return _parse_general(data, path)


# --------------------------------------------------------------------------------------------
# hex words
# --------------------------------------------------------------------------------------------
_HEXLUT = np.full(256, 255, dtype=np.uint8)
for _i, _c in enumerate(b"0123456789abcdef"):
    _HEXLUT[_c] = _i
for _i, _c in enumerate(b"ABCDEF"):
    _HEXLUT[_c] = 10 + _i


def parse_hex_words(data: bytes, *, frac_bits: int = FRAC_BITS, path: str = "<bytes>") -> np.ndarray:
    """Hex words in ``data`` (see :func:`read_hex_words`); ``path`` only names the source in errors."""
    if b"\r" in data:
        data = data.replace(b"\r", b"")
    if data[:1].isspace() or (data[-1:].isspace() and data[-1:] != b"\n") or data.endswith(b"\n\n"):
        data = data.strip() + b"\n"
    elif data and not data.endswith(b"\n"):
        data += b"\n"
    if not data.strip(b"\n"):
        return np.zeros(0)
    scale = float(2**frac_bits)
    if len(data) % 9 == 0:
        m = np.frombuffer(data, dtype=np.uint8).reshape(-1, 9)
        if np.all(m[:, 8] == 10):
            nib = _HEXLUT[m[:, :8]]
            if not np.any(nib == 255):
                packed = (nib[:, 0::2] << 4) | nib[:, 1::2]
                ints = np.ascontiguousarray(packed).view(">i4").reshape(-1)
                return ints.astype(np.float64) / scale
    # general path: tokens of any width, optional 0x / sign
    toks = data.translate(_SEP_TABLE).split()
    vals = np.empty(len(toks), dtype=np.int64)
    for i, tok in enumerate(toks):
        try:
            v = int(tok, 16)
        except ValueError:
            raise ValueError(f"{path}: word {i + 1} is not hexadecimal: {tok[:40]!r}") from None
        if 0x80000000 <= v <= 0xFFFFFFFF:
            v -= 1 << 32
        if not -(1 << 63) <= v < (1 << 63):
            raise ValueError(f"{path}: word {i + 1} is wider than 64 bits: {tok[:40]!r}")
        vals[i] = v
    return vals.astype(np.float64) / scale


def read_hex_words(path, frac_bits: int = FRAC_BITS) -> np.ndarray:
    """``%08x`` two's-complement int32 words, one per line → float64 value = int32 / 2**frac_bits
    (20.12 fixed point by default). Fixed-width files take a vectorised path.  Regular files up
    to the bound for dumps only (:mod:`nnie_lsp.core.safe_io`; else ``FileReadError``, an ``OSError``)."""
    data = safe_io.read_bytes(path, safe_io.DUMP)
    return parse_hex_words(data, frac_bits=frac_bits, path=str(path))


def looks_like_hex_words(path) -> bool:
    """True when the first line is one bare hex word (``%08x``); MindSpore's ``_inst.linear.hex``
    inputs hold decimal text with a header instead."""
    head = safe_io.read_head(path, 256, safe_io.DUMP)
    first = head.split(b"\n", 1)[0].strip()
    return bool(re.fullmatch(rb"(0[xX])?[0-9a-fA-F]{1,8}", first))


def read_mindspore_header_shape(path) -> tuple[int, int, int] | None:
    """(C, H, W) from a MindSpore Lite dump header line ``<name> 4 1 <H> <W> <C>``; None when the
    first line is not such a header."""
    head = safe_io.read_head(path, 4096, safe_io.DUMP)
    line, newline, _rest = head.partition(b"\n")
    if not newline and len(head) == 4096:
        return None  # a first line this long holds values, not a header
    first = line.split()
    if len(first) >= 6 and not re.match(rb"^[-+.0-9]", first[0]) and all(x.isdigit() for x in first[-4:]):
        _n, h, w, c = (int(x) for x in first[-4:])
        return (c, h, w)
    return None

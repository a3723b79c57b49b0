"""Value readers for dump files: text floats and ``%08x`` fixed-point hex words (``docs/field-facts.md`` §10).

* Text floats (newline / space / comma / tab / semicolon separated): RuyiStudio and numpy ``savetxt``
  ``%.18e`` one-per-line files take a vectorised fixed-width path, anything else a bytes-level
  tokeniser.
* Hex words: ``%08x`` two's-complement int32, one per line, value = int32 / 2**frac_bits (20.12
  fixed point, ``SAMPLE_SVP_NNIE_QUANT_BASE`` = 4096); fixed-width files take a vectorised path.
* Content probes used by the folder scan: is the first line a hex word; MindSpore's header line.

See ``benchmarks/bench_triage.py`` for ratios against ``numpy.loadtxt`` and an ``int(x, 16)`` loop.
Bad content raises ``ValueError`` naming the file and the token.
"""

from __future__ import annotations

import os
import re
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .. import safe_io

__all__ = [
    "FRAC_BITS",
    "QUANT_BASE",
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
# fast text floats
# --------------------------------------------------------------------------------------------
_U = np.uint64
_M8, _M16, _M32 = _U(0x00FF00FF00FF00FF), _U(0x0000FFFF0000FFFF), _U(0xFFFFFFFF)
_ZEROS = _U(0x3030303030303030)
_HIGH = _U(0xF0F0F0F0F0F0F0F0)
_SIX = _U(0x0606060606060606)
_BLOCK = 1 << 19


def _swar8(w: np.ndarray) -> tuple[np.ndarray, bool]:
    """8 ASCII digits packed little-endian in a uint64 → their integer value; validity flag."""
    ok = bool(np.all((w & _HIGH) == _ZEROS) and np.all(((w + _SIX) & _HIGH) == _ZEROS))
    x = w - _ZEROS
    x = (x * _U(10) + (x >> _U(8))) & _M8
    x = (x * _U(100) + (x >> _U(16))) & _M16
    x = (x * _U(10000) + (x >> _U(32))) & _M32
    return x, ok


def _fixed_e_block(buf: np.ndarray, frac: int) -> np.ndarray | None:
    """Parse a block of ``%.{frac}e`` lines (each ending in ``\\n``); None if the block is not
    exactly in that format (caller falls back to the general parser)."""
    nl = np.flatnonzero(buf == 10)
    n = nl.size
    if n == 0:
        return np.zeros(0)
    st = np.empty(n, np.int64)
    st[0] = 0
    st[1:] = nl[:-1] + 1
    neg = buf[st] == 45
    s2 = st + neg
    ep = s2 + frac + 2
    elen = nl - ep - 2
    if elen.min() < 2 or elen.max() > 3:
        return None
    if not (np.all(buf[s2 + 1] == 46) and np.all(buf[ep] == 101)):
        return None
    esign = buf[ep + 1]
    if not np.all((esign == 43) | (esign == 45)):
        return None
    d0 = buf[s2].astype(np.int64) - 48
    if d0.min() < 0 or d0.max() > 9:
        return None
    words = np.ndarray(shape=(buf.size - 7,), dtype="<u8", buffer=buf, strides=(1,))
    a, ok1 = _swar8(words[s2 + 2])
    b, ok2 = _swar8(words[s2 + 10])
    if not (ok1 and ok2):
        return None
    e1 = buf[ep + 2].astype(np.int64) - 48
    e2 = buf[ep + 3].astype(np.int64) - 48
    e = e1 * 10 + e2
    m3 = elen == 3
    if m3.any():
        e3 = buf[np.minimum(ep + 4, buf.size - 1)].astype(np.int64) - 48
        e = np.where(m3, e * 10 + e3, e)
        if np.any(m3 & ((e3 < 0) | (e3 > 9))):
            return None
    if e1.min() < 0 or e1.max() > 9 or e2.min() < 0 or e2.max() > 9:
        return None
    e = np.where(esign == 45, -e, e)
    mant = d0.astype(np.float64) * 1e16 + a.astype(np.float64) * 1e8 + b.astype(np.float64)
    p = e - 16
    # scale by table lookups (np.power is the slowest step): multiply by 10^p for p >= 0, divide
    # by 10^-p for p < 0 (dividing by an exact power keeps the result correctly rounded)
    idx = np.clip(p, -_P10_SPAN, _P10_SPAN) + _P10_SPAN
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        v = mant * _P10_MUL[idx] / _P10_DIV[idx]
        big = p < -308  # subnormal range: divide in two steps
        if big.any():
            v = np.where(big, mant / 1e300 / 10.0 ** np.minimum(-p - 300, 308), v)
    return np.where(neg, -v, v)


_P10_SPAN = 330
_P10_EXP = np.arange(-_P10_SPAN, _P10_SPAN + 1)
with np.errstate(over="ignore"):
    _P10_MUL = np.where(_P10_EXP >= 0, 10.0 ** np.minimum(np.maximum(_P10_EXP, 0), 308), 1.0)
    _P10_DIV = np.where(_P10_EXP < 0, 10.0 ** np.minimum(np.maximum(-_P10_EXP, 0), 308), 1.0)
_P10_MUL[_P10_EXP > 308] = np.inf


def _block_bounds(data: bytes, block: int) -> list[tuple[int, int]]:
    out = []
    a, n = 0, len(data)
    while a < n:
        b = min(n, a + block)
        if b < n:
            j = data.find(b"\n", b)
            b = n if j < 0 else j + 1
        out.append((a, b))
        a = b
    return out


def parser_threads(threads: int | None = None) -> int:
    """Threads the ``%.18e`` fast path uses: ``threads`` when given, else one per core this
    process may run on (``sched_getaffinity``: taskset and cgroup CPU sets count), at most 4."""
    if threads is not None:
        return max(1, int(threads))
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


def _parse_fixed_e(data: bytes, threads: int | None = None) -> np.ndarray | None:
    """Fast path for numpy ``savetxt`` default output (``%.18e`` one per line), in blocks of
    512 KiB (cache-sized: the single-core speed), spread over :func:`parser_threads` threads."""
    first_nl = data.find(b"\n")
    line = data[: first_nl if first_nl >= 0 else len(data)]
    body = line[1:] if line[:1] == b"-" else line
    epos = body.find(b"e")
    if epos < 18 or body[1:2] != b".":
        return None
    frac = epos - 2
    if frac < 16:
        return None
    buf = np.frombuffer(data, dtype=np.uint8)
    bounds = _block_bounds(data, _BLOCK)
    work = lambda ab: _fixed_e_block(buf[ab[0] : ab[1]], frac)  # noqa: E731
    workers = parser_threads(threads)
    if len(bounds) > 2 and workers > 1:
        with ThreadPoolExecutor(workers) as ex:
            parts = list(ex.map(work, bounds))
    else:
        parts = [work(ab) for ab in bounds]
    if any(p is None for p in parts):
        return None
    return np.concatenate(parts) if parts else np.zeros(0)


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


def read_text_floats(path, *, skip_header: bool = False, threads: int | None = None) -> np.ndarray:
    """All numbers of a text file (newline, space, comma, tab or semicolon separated) as float64.

    ``%.18e`` one-per-line files (RuyiStudio / numpy ``savetxt``) take a vectorised fixed-width
    path; anything else goes through a bytes-level tokeniser. ``skip_header`` drops a first line
    that does not start with a number (MindSpore ``<name> 4 1 H W C`` headers).  Regular files up
    to the bound for dumps only (:mod:`nnie_lsp.safe_io`; else ``FileReadError``, an ``OSError``)."""
    data = safe_io.read_bytes(path, safe_io.DUMP)
    return parse_text_floats(data, path=str(path), skip_header=skip_header, threads=threads)


def parse_text_floats(data: bytes, *, path: str = "<bytes>", skip_header: bool = False,
                      threads: int | None = None) -> np.ndarray:
    """Text floats in ``data`` (see :func:`read_text_floats`); ``path`` only names the source in
    errors; ``threads`` caps the fast path's threads (:func:`parser_threads`; 1 = single core)."""
    first = data.find(b"\n")
    head = data[: first if first >= 0 else len(data)].strip()
    if head and not re.match(rb"^[-+.0-9]|^(nan|inf)", head, re.IGNORECASE):
        if not skip_header and not re.match(rb"^[A-Za-z_]", head):
            raise ValueError(f"{path}: not a text float file (starts with {head[:40]!r})")
        data = data[first + 1 :] if first >= 0 else b""
    if b"\r" in data:
        data = data.replace(b"\r", b"")
    if data[:1] in (b"\n", b" ", b"\t"):
        data = data.lstrip()
    if data and not data.endswith(b"\n"):
        data += b"\n"
    if not data[:4096].strip() and not data.strip():
        return np.zeros(0)
    fast = _parse_fixed_e(data, threads)
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
    to the bound for dumps only (:mod:`nnie_lsp.safe_io`; else ``FileReadError``, an ``OSError``)."""
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

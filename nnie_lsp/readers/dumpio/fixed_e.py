"""The fast path for ``%.{frac}e`` text dumps, one value per line: numpy ``savetxt``'s default
``%.18e``, which RuyiStudio's "Get Caffe Output" writes (``docs/field-facts.md`` §10.3).  Two paths
read the same lines to the same values: the numpy one described here, and a compiled one
(:mod:`.fixed_e_jit`, numba) for the pieces of ``%.18e`` lines with 2-digit exponents, which a
process loads once :mod:`.compiled` says so (the same rule as for the mapper's six-digit text).

How it goes (:func:`parse_stream`):

* The text is read in :data:`CHUNK`-byte pieces into one small buffer that stays in the CPU cache
  (no copy of the whole file); the partial line at the end of a piece is carried to the next one.
* Line ends: ``buf == '\\n'`` viewed as 64-bit words, the words holding a newline, and the byte
  inside each word read from the exponent of the word converted to float64.
* ``%.18e`` lines with a 2-digit exponent (:func:`_parse_chunk_18`) are 25 bytes, 26 with a
  leading ``-``.  Every field sits at a fixed distance from the line's end: five aligned 64-bit
  gathers, shifted into place, hold the whole line; the 19 mantissa digits become one exact
  uint64 (SWAR: 8 digits per word), converted to float64 once and divided by a correctly rounded
  power of ten from a table (the line's sign and the exponent's sign are part of its index).
* Every byte of every line is checked (digits, ``.``, ``e``, exponent sign); the line lengths must
  tile the piece exactly, so a missed or extra newline, a stray byte or a ``-`` that does not start
  a line is caught.  Other shapes (3-digit exponents, ``%.16e``/``%.17e``...) take the slower
  :func:`_parse_lines_general` for that piece; anything else makes :func:`parse_stream` return
  None and the caller uses the general tokeniser (which names the bad token).
* Several threads (:func:`parser_threads`) each take a contiguous part of the text, cut at line
  ends (:func:`split_points`).

Accuracy: one rounding of the exact 19-digit mantissa and one of the division (by an exact power
of ten up to 10^22, a correctly rounded one beyond): within 2 ulp of a correctly rounded parse
(``numpy.loadtxt``), most values exactly it; exponents of 280 and more are parsed one line at a time,
correctly rounded.  Both paths use the same arithmetic, so how the text is cut into pieces and
threads never changes a value.
"""

from __future__ import annotations

import os
import threading

import numpy as np

from nnie_lsp.readers.dumpio import compiled as _compiled
from nnie_lsp.readers.dumpio import text_parts
from nnie_lsp.readers.dumpio.text_parts import MAX_CARRY, MIN_PART_CHUNKS, ReadAt, Reader, split_points

__all__ = ["CHUNK", "line_format", "parse_parts", "parse_stream", "parser_threads", "split_points"]

#: bytes read and parsed per step: the buffer and the per-line work arrays stay in the L2 cache
CHUNK = 1 << 19
# MAX_CARRY (text_parts): the longest partial line carried from one piece to the next (longer
# lines are not this format)
_FRONT = MAX_CARRY + 64  # room for the carried line, the newline before it and 30 bytes of look-back
_BACK = 64
#: the shortest line of the format: ``d.<16 digits>e+dd`` and its newline
MIN_LINE = 23

_U64 = np.uint64


def _word(chars) -> np.uint64:
    """A little-endian uint64 from up to 8 byte values (byte 0 first)."""
    return _U64(int.from_bytes(bytes(chars).ljust(8, b"\0"), "little"))


# SWAR checks: x = word - template; a byte is bad when x's byte or (x + room)'s byte has its high
# bit set (room = 0x7F - the byte's allowed spread: 0x76 for a digit, 0x7F for one exact byte)
_HIGH = _word([0x80] * 8)
_ZEROS = _word(b"0" * 8)
_DIGIT_ROOM = _word([0x76] * 8)
# the byte before d0, d0 and the point, as the top 3 bytes of the word ending at the point
_HEAD_TEMPLATE = _word([0, ord("0"), ord(".")])
_HEAD_ROOM = _word([0, 0x76, 0x7F])  # the byte before d0 ('\n' or '-') is settled by the tiling
# the last two digits, e, the exponent's sign ('+' ',' '-' pass here; ',' is caught by the table),
# two exponent digits, the newline and the next line's first byte (any ASCII)
_TAIL_TEMPLATE = _word(b"00e+00\n")
_TAIL_ROOM = _word([0x76, 0x76, 0x7F, 0x7D, 0x76, 0x76, 0x7F, 0])

_M8, _M16, _M32 = _U64(0x00FF00FF00FF00FF), _U64(0x0000FFFF0000FFFF), _U64(0xFFFFFFFF)
_BYTE, _SHORT = _U64(0xFF), _U64(0xFFFF)
_SIGN_AND_EXPONENT = _U64(0x00FF00FF)
_MINUS_BIT = _U64(0x20)  # set in '-' (0x2D), clear in '\n' (0x0A): the only two bytes the tiling lets through
_INDEX_MUL = _U64((100 << 16) | 1)  # (sign + exponent << 16 + minus << 25) * this >> 16 & 0xFFFF
_MINUS = _U64(ord("-"))             #   = exponent + 100 * sign + 512 * minus
_N = {k: _U64(k) for k in (3, 7, 8, 10, 16, 20, 32, 40, 55, 64, 100, 10000, 10**8, 10**10)}

# Both paths compute value = mantissa / 10^k with the correctly rounded 10^k (exact up to 10^22),
# so a line reads the same whichever path takes it (pieces and threads cannot change a value).
# Exponents of 280 and more are parsed one line at a time instead (overflow, subnormals).
_POW10_SPAN = 300
_POW10 = np.array([float(f"1e{k}") for k in range(-_POW10_SPAN, _POW10_SPAN + 1)])
_EXTREME_EXPONENT = 280

# the 18-digit path's table, index = exponent + 100 * (exponent sign - '+') + 512 * minus; the
# line's sign is the table's sign; an exponent "sign" ',' gives NaN and the piece is refused
_INDEX = np.arange(512 + 300)
_REST = _INDEX % 512
_EXPONENT = _REST % 100
_EXP_SIGN = _REST // 100  # 0 '+', 1 ',', 2 '-' (3 to 5: between the halves, no index reaches them)
_SCALE_DIV = _POW10[18 - np.where(_EXP_SIGN == 2, -_EXPONENT, _EXPONENT) + _POW10_SPAN]
_SCALE_DIV[_INDEX >= 512] *= -1.0
_SCALE_DIV[(_EXP_SIGN == 1) | (_EXP_SIGN > 2)] = np.nan


def parser_threads(threads: int | None = None) -> int:
    """Threads the fast path uses: ``threads`` when given, else one per core this process may run
    on (``sched_getaffinity``: taskset and cgroup CPU sets count), at most 4."""
    if threads is not None:
        return max(1, int(threads))
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


def line_format(head: bytes) -> int | None:
    """The digits after the point (``frac``) when the first line of ``head`` is ``%.{frac}e`` with
    ``frac`` >= 16 (the fast path's formats); None otherwise."""
    first_nl = head.find(b"\n")
    line = head[: first_nl if first_nl >= 0 else len(head)]
    body = line[1:] if line[:1] == b"-" else line
    epos = body.find(b"e")
    if epos < 18 or body[1:2] != b"." or not body[:1].isdigit():
        return None
    return epos - 2


class _Work:
    """One parser's buffers: the text buffer and the per-line arrays, allocated once per run."""

    def __init__(self) -> None:
        self.chunk = CHUNK
        span = _FRONT + ((CHUNK + 7) & ~7)
        self.buf = np.zeros(span + _BACK, np.uint8)
        self.words = self.buf.view(_U64)
        # the 64-bit word starting at every byte (element i is buf[i : i + 8]; the compiled path's loads)
        self.at = np.ndarray(shape=(self.buf.size - 7,), dtype=_U64, buffer=self.buf, offset=0, strides=(1,))
        self.eq = np.empty(span + 8, bool)
        self.eq_words = self.eq.view(_U64)
        self.has_nl = np.empty(self.eq_words.size, bool)
        self.lines = (_FRONT + CHUNK) // 25 + 2  # most lines of the 18-digit shape in one scan
        self.u64 = np.empty((10, self.lines), _U64)
        self.digits = np.empty(2 * self.lines, _U64)  # d1..d8 then d9..d16: one SWAR pass for both
        self.digits_tmp = np.empty(2 * self.lines, _U64)
        self.f64 = np.empty(self.lines, np.float64)
        self.negative = np.empty(self.lines, bool)


_PER_THREAD = threading.local()


def _swar8(x: np.ndarray, tmp: np.ndarray) -> None:
    """In place: 8 digit values (ASCII minus '0', first digit in the low byte) → their number."""
    for step, mask in ((8, _M8), (16, _M16), (32, _M32)):
        np.multiply(x, _N[10 ** (step // 8)], out=tmp)
        x >>= _N[step]
        x += tmp
        x &= mask


def _parse_chunk_18(work: _Work, nl_words: np.ndarray, scan_start: int, prev_nl: int,
                    out: np.ndarray) -> int | None:
    """``%.18e`` lines with 2-digit exponents whose newline is in the scanned words ``nl_words``
    (word indexes from byte ``scan_start``); values into ``out``; the last newline's position, or
    None when any line is not exactly that shape."""
    n = nl_words.size
    words = work.words
    nl, shift, back, index, first, second, x0, x3, tmp, bad = work.u64[:, :n]
    digits, digits_tmp = work.digits[: 2 * n], work.digits_tmp[: 2 * n]
    x1, x2 = digits[:n], digits[n:]
    # the newline's byte inside its word: the word is 1 << (8 * byte); float64's exponent says which
    as_float = work.f64[:n]
    np.take(work.eq_words, nl_words, out=nl)
    np.copyto(as_float, nl, casting="unsafe")
    in_word = as_float.view(_U64)
    in_word >>= _N[55]  # 127 + byte
    np.left_shift(nl_words.view(_U64), _N[3], out=nl)
    nl += in_word
    nl += _U64((scan_start - 127 - 30) % (1 << 64))  # now nl - 30: the first byte gathered
    last = int(nl[-1]) + 30
    # four unaligned words from five aligned gathers: x0 ends at the point, x1 = d1..d8,
    # x2 = d9..d16, x3 = d17 d18 e sign x1 x2 '\n' next
    np.bitwise_and(nl, _N[7], out=shift)
    shift <<= _N[3]
    np.subtract(_N[64], shift, out=back)
    np.right_shift(nl, _N[3], out=index)
    at = index.view(np.int64)
    np.take(words, at, out=first)
    for k, word in enumerate((x0, x1, x2, x3)):
        np.take(words[k + 1 :], at, out=second)
        np.right_shift(first, shift, out=word)
        np.left_shift(second, back, out=tmp)  # a shift by 64 gives 0 in numpy
        word |= tmp
        first, second = second, first
    x0 >>= _N[40]
    x0 -= _HEAD_TEMPLATE
    digits -= _ZEROS
    x3 -= _TAIL_TEMPLATE
    np.add(x0, _HEAD_ROOM, out=bad)
    bad |= x0
    np.add(x3, _TAIL_ROOM, out=tmp)
    bad |= tmp
    bad |= x3
    np.add(digits, _DIGIT_ROOM, out=digits_tmp)
    digits_tmp |= digits
    bad |= digits_tmp[:n]
    bad |= digits_tmp[n:]
    bad &= _HIGH
    if bad.any():
        return None
    # the byte before d0 is '-' (a 26-byte line) or the previous newline (25 bytes): the lines
    # must tile the text from the previous newline to the last one
    negative = work.negative[:n]
    np.bitwise_and(x0, _BYTE, out=tmp)
    np.equal(tmp, _MINUS, out=negative)
    if 25 * n + int(np.count_nonzero(negative)) != last - prev_nl:
        return None
    # pairs (in x3): byte 0 = d17 d18, byte 2 = exponent sign - '+', byte 4 = exponent
    np.right_shift(x3, _N[8], out=tmp)
    x3 *= _N[10]
    x3 += tmp
    np.right_shift(x3, _N[16], out=index)
    index &= _SIGN_AND_EXPONENT
    np.bitwise_and(x0, _MINUS_BIT, out=tmp)
    tmp <<= _N[20]
    index |= tmp
    index *= _INDEX_MUL
    index >>= _N[16]
    index &= _SHORT
    # mantissa = (d0 * 10^8 + d1..d8) * 10^10 + d9..d16 * 100 + d17 d18, exact in uint64
    _swar8(digits, digits_tmp)
    mantissa = x0
    mantissa >>= _N[8]
    mantissa &= _BYTE
    mantissa *= _N[10**8]
    mantissa += x1
    mantissa *= _N[10**10]
    x2 *= _N[100]
    mantissa += x2
    x3 &= _BYTE
    mantissa += x3
    np.copyto(out, mantissa, casting="unsafe")
    factor = work.f64[:n]
    np.take(_SCALE_DIV, index.view(np.int64), out=factor)
    out /= factor
    if np.isnan(out).any():  # an exponent sign ','
        return None
    return last


def _swar8_checked(w: np.ndarray) -> np.ndarray | None:
    """8 ASCII digits packed little-endian in each uint64 → their numbers; None if a byte is not a digit."""
    x = w - _ZEROS
    if np.any(((x + _DIGIT_ROOM) | x) & _HIGH):
        return None
    tmp = np.empty_like(x)
    _swar8(x, tmp)
    return x


def _parse_lines_general(buf: np.ndarray, nl: np.ndarray, prev_nl: int, frac: int) -> np.ndarray | None:
    """``%.{frac}e`` lines ending at ``nl`` (the first starts after ``prev_nl``), frac >= 16,
    2- or 3-digit exponents; None if a line is not exactly that shape."""
    n = nl.size
    start = np.empty(n, np.int64)
    start[0] = prev_nl + 1
    start[1:] = nl[:-1] + 1
    negative = buf[start] == 45
    s2 = start + negative
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
    unaligned = np.ndarray(shape=(buf.size - 7,), dtype="<u8", buffer=buf, strides=(1,))
    high = _swar8_checked(unaligned[s2 + 2])
    low = _swar8_checked(unaligned[s2 + 10])
    if high is None or low is None:
        return None
    kept = min(frac, 18)  # digits kept: d0 and 18 after the point (19 fit in a uint64)
    tail = np.zeros(n, np.uint64)
    dropped = np.zeros(n, bool)  # a non-zero digit after the 18th
    for k in range(16, frac):  # digits after the 16th: checked, the first two kept
        digit = buf[s2 + 2 + k].astype(np.int64) - 48
        if digit.min() < 0 or digit.max() > 9:
            return None
        if k < kept:
            tail = tail * _U64(10) + digit.astype(np.uint64)
        else:
            dropped |= digit != 0
    # Dropping digits after the 19th costs < 1e-18 of a value written as %e writes it (first digit
    # 1-9).  A first digit 0 with anything after it ("0.000…0638e+38", found by fuzzing) would lose
    # its significant digits: such a text goes to the general tokeniser.
    if frac > kept and np.any((d0 == 0) & (dropped | (high != 0) | (low != 0) | (tail != 0))):
        return None
    e1 = buf[ep + 2].astype(np.int64) - 48
    e2 = buf[ep + 3].astype(np.int64) - 48
    e = e1 * 10 + e2
    three = elen == 3
    if three.any():
        e3 = buf[np.minimum(ep + 4, buf.size - 1)].astype(np.int64) - 48
        e = np.where(three, e * 10 + e3, e)
        if np.any(three & ((e3 < 0) | (e3 > 9))):
            return None
    if e1.min() < 0 or e1.max() > 9 or e2.min() < 0 or e2.max() > 9:
        return None
    e = np.where(esign == 45, -e, e)
    mantissa = (d0.astype(np.uint64) * _U64(10**kept) + high * _U64(10 ** (kept - 8))
                + low * _U64(10 ** (kept - 16)) + tail)
    extreme = np.abs(e) >= _EXTREME_EXPONENT
    power = np.clip(kept - e, -_POW10_SPAN, _POW10_SPAN) + _POW10_SPAN
    with np.errstate(over="ignore", under="ignore"):  # the extreme lines, redone below
        v = mantissa.astype(np.float64) / _POW10[power]
    np.negative(v, out=v, where=negative)
    # near the ends of float64 (overflow to inf, subnormals) a scaled value may round the other
    # way: those few lines are parsed one by one, correctly rounded
    for i in np.flatnonzero(extreme):
        v[i] = float(buf[start[i] : nl[i]].tobytes())
    return v


#: what the numpy path costs a byte of ``%.18e`` text, in ns (about 50 ns a 25-byte line under load):
#: :mod:`.compiled` weighs the bytes read with it to choose when to load the compiled path
NUMPY_NS_PER_BYTE = 2.0
_CHECK = b"1.000000000000000000e+00\n-2.500000000000000000e-01\n"


def _load():
    """The compiled ``%.18e`` piece parser (:mod:`.fixed_e_jit`), checked on two lines
    (:func:`.compiled.kernel` calls this once)."""
    from nnie_lsp.readers.dumpio import fixed_e_jit

    kernel = fixed_e_jit.parse_piece
    work = _Work()
    work.buf[_FRONT - 1] = 10
    work.buf[_FRONT : _FRONT + len(_CHECK)] = np.frombuffer(_CHECK, np.uint8)
    out = np.zeros(2)
    got = kernel(work.buf, work.at, _FRONT, _FRONT + len(_CHECK), out, 0, _SCALE_DIV)
    if tuple(got) != (_FRONT + len(_CHECK), 2) or out.tolist() != [1.0, -0.25]:
        raise RuntimeError("the compiled %.18e parser misread its check lines")
    return kernel


def compiled():
    """The compiled ``%.18e`` piece parser, loaded (numba imported, the kernel compiled or read from
    numba's cache) on the first call; None where numba does not load or compile: the numpy path then
    reads the same lines to the same values."""
    return _compiled.kernel("fixed_e", _load)


def parse_stream(read: Reader, capacity: int, frac: int, kernel=None) -> np.ndarray | None:
    """The values of a ``%.{frac}e`` text (one value per line; the first byte starts a line) that
    ``read`` hands out piece by piece; at most ``capacity`` values (None beyond).  A last line
    without its newline is read as if it had one.  None when a line is not the format.  With
    ``kernel`` (:func:`compiled`) it reads the pieces of ``%.18e`` lines with 2-digit exponents; a
    piece it refuses (another shape, or a bad line) goes to the numpy piece parser, which reads it
    to the same values or refuses the text."""
    work = text_parts.thread_work(_PER_THREAD, _Work, CHUNK)  # scratch space: every byte read is written first
    buf = work.buf
    if frac != 18:
        kernel = None

    def piece(out: np.ndarray, count: int, begin: int, end: int) -> tuple[int, int] | None:
        if kernel is not None:
            buf[end : end + 8] = 0  # nothing stale after the text (the next line's sign byte)
            rest, lines = kernel(buf, work.at, begin, end, out, count, _SCALE_DIV)
            if rest >= 0:
                return rest, lines
        scan_end = (end + 7) & ~7
        buf[end : scan_end + 8] = 0  # nothing stale after the text (the newline scan, next-byte reads)
        scan_start = begin & ~7
        eq = work.eq[: scan_end - scan_start]
        np.equal(buf[scan_start:scan_end], 10, out=eq)
        eq[: begin - scan_start] = False
        eq_words = work.eq_words[: (scan_end - scan_start) >> 3]
        has_nl = work.has_nl[: eq_words.size]
        np.not_equal(eq_words, 0, out=has_nl)
        nl_words = np.flatnonzero(has_nl)
        if not nl_words.size:
            return begin, 0  # no line end yet: carry it all
        done = _parse_piece(work, eq, nl_words, scan_start, begin, frac, out, count)
        if done is None:
            return None
        last, lines = done
        return last + 1, lines

    return text_parts.parse_pieces(buf, read, capacity, _FRONT, CHUNK, MAX_CARRY, piece)


def _parse_piece(work: _Work, eq: np.ndarray, nl_words: np.ndarray, scan_start: int, begin: int,
                 frac: int, out: np.ndarray, count: int) -> tuple[int, int] | None:
    """The lines whose newline is in the scanned words ``nl_words`` (word indexes from byte
    ``scan_start``): the 18-digit path, else the general one; (last newline, lines) or None."""
    prev_nl = begin - 1
    n = nl_words.size
    if frac == 18 and n <= work.lines and count + n <= out.size:
        last = _parse_chunk_18(work, nl_words, scan_start, prev_nl, out[count : count + n])
        if last is not None:
            return last, n
    nl = np.flatnonzero(eq) + scan_start
    if count + nl.size > out.size:
        return None
    values = _parse_lines_general(work.buf, nl, prev_nl, frac)
    if values is None:
        return None
    out[count : count + nl.size] = values
    return int(nl[-1]), nl.size


def parse_parts(read_at: ReadAt, size: int, frac: int, threads: int) -> np.ndarray | None:
    """The values of a ``%.{frac}e`` text of ``size`` bytes read with ``read_at(view, offset)``,
    in up to ``threads`` parts parsed at once (one part: a single-core run).  A part is at least
    :data:`MIN_PART_CHUNKS` pieces: a new thread's buffers cost about 1 ms to set up.  ``%.18e``
    takes the compiled path once :mod:`.compiled` says so."""
    kernel = _compiled.kernel_for("fixed_e", _load, size, NUMPY_NS_PER_BYTE) if frac == 18 else None
    return text_parts.parse_parts(read_at, size, threads, CHUNK,
                                  lambda read, part_bytes: parse_stream(read, part_bytes // MIN_LINE + 1, frac, kernel))

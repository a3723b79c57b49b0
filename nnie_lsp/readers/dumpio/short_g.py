"""The fast path for short ``%g`` text dumps, one value per line: nnie_mapper's dequantized
``…_anti_quant[.linear].float`` files, which hold C++ default stream output -- the float32 value
printed as ``%g`` with six significant digits: ``0.353553``, ``0.0743254``, ``0.25``, ``0``,
``-0``, ``1.5e-05``, ``-7.62939e-06``, ``1.23457e+06`` (``docs/field-facts.md`` §16.5).  Two
paths read the same lines to the same values: the numpy one described here, and a compiled one
(:mod:`.short_g_jit`, numba) that runs the same test per line in registers; which one a text takes
is :mod:`.compiled`'s choice, the same rule for every text form.

How it goes (:func:`parse_stream`):

* The text is read in :data:`CHUNK`-byte pieces into one small buffer (no copy of the whole file);
  the partial line at the end of a piece is carried to the next one.  A line is at most
  :data:`MAX_LINE` characters before its newline (the longest six-digit ``%g`` of a float32,
  ``-1.23457e+06`` or ``-0.000123457``, is 12).
* Line ends from the newline positions; the line's sign from its first byte; then the 16 bytes
  before each newline are gathered from three aligned 64-bit words and shifted into place: ``lo``
  holds the line's last 8 characters (its last character in the top byte), ``hi`` the 8 before.
* Plain lines, without an exponent (:func:`_parse_lines`): the bytes of ``lo`` inside the line
  (``lo ^ '0'``: digits 0..9) may hold one non-digit, the point; it is closed up (the digits after
  it move down one byte) and the 8 bytes become one exact integer (SWAR, 3 steps).  Characters
  before ``lo`` (lines of 9 to 12: ``0.0743254``, ``0.000123457``) must be a prefix of ``0.00``:
  six significant digits always sit in the last 8 characters.  Per-length masks and what the prefix
  must be come from small tables indexed by ``2 * length + minus``; one more table gives the
  divisor 10^(digits after the point) with the sign, or NaN for a line this path refuses (a point
  first, a point in lo and in the prefix, a length it does not read).  Value = integer / divisor,
  one correctly rounded division by an exact power of ten: exactly a correctly rounded parse.
* Lines with an exponent (``e±dd``), ``inf``, ``-inf``, ``nan``, ``-nan`` and anything else the
  plain path refuses go to a second, smaller pass (:func:`_parse_other`), which checks every byte
  itself.  Value = integer × or / a power of ten (exact up to 10^22, correctly rounded beyond):
  within 2 ulp of a correctly rounded parse.
* Every byte is checked.  The plain path takes a line's one non-digit for its point; the piece's
  count of ``.`` bytes must then match the points it took (a ``-``, blank, ``e`` or any other byte
  in place of a point leaves the count short, and a line's other bytes are checked exactly).  A
  line neither pass reads makes :func:`parse_stream` return None: the caller uses the general
  tokeniser, which gives the same values and names the bad token.

Cost (``benchmarks/bench_triage.py``, one core of this 2-core machine under load): the numpy path
about 40 ns a line (1.2-1.5x ``numpy.loadtxt``), three quarters of it in the newline search, eight
table and word gathers and some fifty whole-array numpy operations; the compiled path about 12 ns
(5.2-5.5x ``loadtxt``, wall and CPU): 5 ns finding newlines and gathering each line's words, 5 ns
in the vectorised plain test, 2 ns reading the file and filling the output.  Loading the compiled
path costs a process about 0.35 s of CPU (importing numba, then the kernel from numba's cache;
compiling it into an empty cache, once per install, about 2 s): worth it only past some 50 MB of
such text, hence the switch rule of :mod:`.compiled`.  Where numba is missing, does not load with this
numpy, or has no writable cache directory, the numpy path reads everything.
"""

from __future__ import annotations

import threading

import numpy as np

from nnie_lsp.readers.dumpio import compiled as _compiled
from nnie_lsp.readers.dumpio import text_parts
from nnie_lsp.readers.dumpio.text_parts import ReadAt, Reader

__all__ = ["CHUNK", "MAX_LINE", "line_format", "parse_parts", "parse_stream"]

#: bytes read and parsed per step
CHUNK = 1 << 17
#: the longest line (characters before the newline) this path reads
MAX_LINE = 12
_FRONT = 64  # room before the text: the carried partial line, the newline before it, 16 bytes of look-back
_BACK = 64

_U64 = np.uint64
_ALL = (1 << 64) - 1


def _rep(byte: int) -> np.uint64:
    return _U64(int.from_bytes(bytes([byte]) * 8, "little"))


def _right(text: bytes) -> int:
    """``text`` as the top bytes of a little-endian word (its last character in the top byte)."""
    return int.from_bytes(text.rjust(8, b"\0")[-8:], "little")


_ZEROS = _rep(0x30)
_HIGH = _rep(0x80)
_LOW7 = _rep(0x7F)
_DIGIT_ROOM = _rep(0x76)   # a byte x <= 9 stays below 0x80 after + 0x76, 10..127 reach it
_POINT = _rep(ord(".") ^ 0x30)
_SPREAD = _U64(0x0807060504030201)  # top byte of (1 << 8b) * _SPREAD = 8 - b
_M8 = _U64(0x000000FF000000FF)
_MAGIC = _U64(0x4330000000000000)  # the bits of 2.0**52
_TWO52 = 2.0**52
_PAIR_HI = _U64(100 + (1000000 << 32))
_PAIR_LO = _U64(1 + (10000 << 32))
_N = {k: _U64(k) for k in (1, 2, 3, 7, 8, 9, 10, 16, 24, 32, 56, 64, 0x30, 0xFF, 0xFFFF)}
_EXP_PLUS = _U64(int.from_bytes(b"e+", "little"))
_EXP_MINUS = _U64(int.from_bytes(b"e-", "little"))
_INF, _NAN = _U64(_right(b"inf")), _U64(_right(b"nan"))

# tables indexed by key = 2 * (characters before the newline) + minus, clipped to 31: the line's
# length without its sign is key // 2 - key % 2
_KEYS = range(32)


def _unsigned(key: int) -> int:
    return key // 2 - key % 2


#: the bytes of ``lo`` inside the line (after its sign)
_MASK_LO = np.array([0 if _unsigned(k) <= 0 else (_ALL << 8 * max(8 - _unsigned(k), 0)) & _ALL for k in _KEYS],
                    _U64)
#: the bytes of ``hi`` inside the line (after its sign)
_MASK_HI = np.array([0 if _unsigned(k) <= 8 else (_ALL << 8 * (16 - _unsigned(k))) & _ALL for k in _KEYS], _U64)
#: what they must hold: a prefix of "0.00" (six significant digits sit in the last 8 characters)
_PREFIX = np.array([_right(b"0.00"[: max(_unsigned(k) - 8, 0)]) for k in _KEYS], _U64)


def _divisor(key: int, after: int) -> float:
    """What a plain line's integer is divided by: 10^(digits after the point), negative for a minus
    sign; NaN (the line is refused) for a length this path does not read, a point as the first
    character (".5": a lone "." is no number) or a point in lo as well as in the prefix. ``after``
    is the digits after a point in lo + 1 (0: no point in lo)."""
    length, minus = _unsigned(key), key % 2
    if not 1 <= length <= MAX_LINE or after == length or (length >= 10 and after):
        return float("nan")
    digits = length - 2 if length >= 10 else after  # with a point in lo the integer is 10x (see below)
    return (-1.0 if minus else 1.0) * 10.0**digits


#: index key * 9 + after
_DIVISOR = np.array([_divisor(k, a) for k in _KEYS for a in range(9)])
# other lines: value = integer * _SCALE_MUL[k] / _SCALE_DIV[k], k = digits after the point - exponent
_K_MIN, _K_MAX = -99, 99 + 9
_SCALE_MUL = np.array([float(f"1e{-k}") if k < 0 else 1.0 for k in range(_K_MIN, _K_MAX + 1)])
_SCALE_DIV = np.array([float(f"1e{k}") if k >= 0 else 1.0 for k in range(_K_MIN, _K_MAX + 1)])


def line_format(head: bytes) -> bool:
    """Whether the first line of ``head`` looks like a short ``%g`` value (worth trying this path):
    1 to :data:`MAX_LINE` characters of a number, ``inf`` or ``nan``, then a newline or the end."""
    first_nl = head.find(b"\n")
    line = head[: first_nl if first_nl >= 0 else len(head)]
    if not 0 < len(line) <= MAX_LINE:
        return False
    body = line[1:] if line[:1] == b"-" else line
    if body in (b"inf", b"nan"):
        return True
    return body[:1].isdigit() and not body.strip(b"0123456789.e+-")


class _Work:
    """One parser's buffers, allocated once per thread: the text buffer and the per-line arrays."""

    def __init__(self) -> None:
        self.chunk = CHUNK
        span = _FRONT + CHUNK + _BACK
        self.buf = np.zeros(span + (-span) % 8, np.uint8)
        self.words = self.buf.view(_U64)
        self.eq = np.empty(CHUNK + _FRONT, bool)
        self.lines = (CHUNK + _FRONT) // 2 + 2  # lines are 2 bytes or more
        self.i64 = np.empty((2, self.lines), np.int64)
        self.u64 = np.empty((10, self.lines), _U64)
        self.f64 = np.empty(self.lines, np.float64)
        self.u8 = np.empty(self.lines, np.uint8)
        self.b1 = np.empty((3, self.lines), bool)


_PER_THREAD = threading.local()


class _JitWork:
    """The compiled path's buffers, allocated once per thread: the text buffer and the per-line words."""

    def __init__(self, chunk: int | None = None) -> None:
        self.chunk = chunk or CHUNK
        span = _FRONT + self.chunk + _BACK
        self.buf = np.zeros(span + (-span) % 8, np.uint8)
        self.words = self.buf.view(_U64)
        # the 64-bit word starting at every byte (element i is buf[i : i + 8]; unaligned, overlapping)
        self.at = np.ndarray(shape=(self.buf.size - 7,), dtype=_U64, buffer=self.buf, offset=0, strides=(1,))
        lines = self.chunk + _FRONT  # at most a line a byte
        self.lo = np.empty(lines, _U64)
        self.hi = np.empty(lines, _U64)
        self.key = np.empty(lines, np.int64)
        self.flags = np.empty(lines, bool)

    def text(self) -> tuple:
        """The text buffer as the kernel takes it: bytes, aligned words, the word at every byte."""
        return self.buf, self.words, self.at

    def arrays(self) -> tuple:
        """The kernel's per-line arrays."""
        return self.lo, self.hi, self.key, self.flags


_JIT_PER_THREAD = threading.local()

#: what the numpy path costs a byte of this text, in ns (about 40 ns a line of about 7 bytes):
#: :mod:`.compiled` weighs the bytes read with it to choose when to load the compiled path
NUMPY_NS_PER_BYTE = 6.0


def _load():
    """The compiled piece parser, checked on one line (:func:`.compiled.kernel` calls this once)."""
    from nnie_lsp.readers.dumpio import short_g_jit

    kernel = short_g_jit.parse_piece
    work = _JitWork(64)
    work.buf[_FRONT - 1 : _FRONT + 2] = np.frombuffer(b"\n0\n", np.uint8)
    out = np.ones(1)
    got = kernel(*work.text(), _FRONT, _FRONT + 2, out, 0, *work.arrays(), *_tables())
    if tuple(got) != (_FRONT + 2, 1) or out[0] != 0:
        raise RuntimeError("the compiled short %g parser misread '0'")
    return kernel


def compiled():
    """The compiled piece parser (:mod:`.short_g_jit`), loaded (numba imported, the kernel compiled
    or read from numba's cache) on the first call; None where numba does not load or compile: the
    numpy path then reads the same lines to the same values."""
    return _compiled.kernel("short_g", _load)


def _kernel_for(size: int):
    """The compiled parser when this text (``size`` bytes) should take it (:mod:`.compiled`)."""
    return _compiled.kernel_for("short_g", _load, size, NUMPY_NS_PER_BYTE)


def _ladder(x: np.ndarray, tmp: np.ndarray) -> None:
    """In place: 8 digit values (first digit in the low byte, last in the top byte) → their number."""
    np.multiply(x, _N[10], out=tmp)
    x >>= _N[8]
    x += tmp                                  # two-digit numbers in bytes 0, 2, 4, 6
    np.right_shift(x, _N[16], out=tmp)
    tmp &= _M8
    tmp *= _PAIR_LO
    x &= _M8
    x *= _PAIR_HI
    x += tmp
    x >>= _N[32]


def _parse_lines(work: _Work, begin: int, end: int, out: np.ndarray) -> int | None:
    """The lines in ``buf[begin:end]`` (the byte before ``begin`` and the last byte are newlines):
    values into ``out``; the number of lines, or None when a line is not this format."""
    buf, words = work.buf, work.words
    eq = work.eq[: end - begin]
    np.equal(buf[begin:end], 10, out=eq)
    nl = np.flatnonzero(eq)
    n = nl.size
    if n > out.size or n > work.lines:
        return None
    nl += begin
    start, key = work.i64[:2, :n]
    start[0] = begin
    np.add(nl[:-1], 1, out=start[1:])
    first = work.u8[:n]
    buf.take(start, out=first, mode="clip")
    minus, bad, flag = work.b1[:3, :n]
    np.equal(first, 45, out=minus)
    np.subtract(nl, start, out=key)
    key <<= 1
    key += minus                              # 2 * length + minus
    np.minimum(key, 31, out=key)
    lo, hi, shift, back, a, b, c, d, nd, t = work.u64[:10, :n]
    # the 16 bytes before each newline, from three aligned words
    nlu = nl.view(_U64)
    np.bitwise_and(nlu, _N[7], out=shift)
    shift <<= _N[3]
    np.subtract(_N[64], shift, out=back)
    np.right_shift(nlu, _N[3], out=t)
    t -= _N[2]
    at = t.view(np.int64)
    words.take(at, out=a, mode="clip")
    words[1:].take(at, out=b, mode="clip")
    words[2:].take(at, out=c, mode="clip")
    np.right_shift(b, shift, out=lo)
    np.left_shift(c, back, out=c)             # a shift by 64 gives 0 in numpy
    lo |= c
    np.right_shift(a, shift, out=hi)
    np.left_shift(b, back, out=b)
    hi |= b
    # plain lines: digits and at most one point in lo, a prefix of "0.00" before it
    _MASK_LO.take(key, out=a, mode="clip")
    np.bitwise_xor(lo, _ZEROS, out=d)
    d &= a                                    # digits 0..9, the point 0x1e, bytes before the line 0
    np.bitwise_and(d, _LOW7, out=nd)
    nd += _DIGIT_ROOM
    nd |= d
    nd &= _HIGH                               # 0x80 in each non-digit byte
    np.subtract(nd, _N[1], out=t)
    t &= nd
    np.not_equal(t, 0, out=bad)               # a second non-digit
    _MASK_HI.take(key, out=a, mode="clip")
    a &= hi
    _PREFIX.take(key, out=b, mode="clip")
    np.not_equal(a, b, out=flag)
    bad |= flag
    a <<= _N[8]                               # not 0: a prefix of 2+ characters, "0." ...: a point
    a |= nd
    np.not_equal(a, 0, out=flag)              # lines with a point (in lo or in the prefix)
    # close up the point: the digits after it move down one byte, so the integer is 10x the digits
    pbit = nd
    pbit >>= _N[7]
    np.subtract(pbit, _N[1], out=a)           # the bytes before the point (all when there is none)
    np.right_shift(d, _N[8], out=b)
    d ^= b
    d &= a
    d ^= b                                    # before the point from d, from it on from d >> 8
    np.multiply(pbit, _SPREAD, out=t)
    t >>= _N[56]                              # digits after the point + 1 (0: no point)
    _ladder(d, a)
    index = start
    np.multiply(key, 9, out=index)
    index += t.view(np.int64)
    d |= _MAGIC                               # the integer (< 2^52) as the bits of 2^52 + it
    values = out[:n]
    np.subtract(d.view(np.float64), _TWO52, out=values)
    divisor = work.f64[:n]
    _DIVISOR.take(index, out=divisor, mode="clip")
    values /= divisor
    np.isnan(values, out=minus)               # refused by the scale table
    bad |= minus
    points = int(np.count_nonzero(flag))
    if bad.any():
        others = np.flatnonzero(bad)
        length = (key[others] >> 1) - (key[others] & 1)
        other_points = _parse_other(lo[others], hi[others], length, (key[others] & 1).astype(bool), values,
                                    others)
        if other_points is None:
            return None
        points += other_points - int(np.count_nonzero(flag[others]))
    np.equal(buf[begin:end], 46, out=eq)
    if points != np.count_nonzero(eq):
        return None
    return n


def _parse_other(lo: np.ndarray, hi: np.ndarray, length: np.ndarray, minus: np.ndarray,
                 values: np.ndarray, where: np.ndarray) -> int | None:
    """The lines the plain path refused (at ``where`` in the piece): ``[-]d[.ddddd]e±dd`` (a
    mantissa of at most 8 characters, a 2-digit exponent), ``inf`` and ``nan``, every byte checked;
    values into ``values[where]``; the number of points, or None when a line is neither."""
    # the exponent: the last four characters, e, its sign and two digits
    tail = lo >> _N[32]
    mark = tail & _N[0xFFFF]
    exp_minus = mark == _EXP_MINUS
    ok = exp_minus | (mark == _EXP_PLUS)
    e1 = ((tail >> _N[16]) & _N[0xFF]) - _N[0x30]   # wraps past 9 for a byte below '0'
    e2 = (tail >> _N[24]) - _N[0x30]
    ok &= (e1 <= _N[9]) & (e2 <= _N[9])
    exponent = (e1 * _N[10] + e2).view(np.int64)
    np.negative(exponent, out=exponent, where=exp_minus)
    # the mantissa: the line without its exponent, right-aligned in one word
    mlen = np.clip(length - 4, 0, 15)
    mask = _MASK_LO[2 * mlen]                 # (keys are 2 * length for unsigned lines)
    d = ((lo << _N[32]) | (hi >> _N[32])) ^ _ZEROS
    d &= mask
    nd = (((d & _LOW7) + _DIGIT_ROOM) | d) & _HIGH
    z = d ^ _POINT                            # the point's byte is 0 here, exactly
    pm = ~(((z & _LOW7) + _LOW7) | z | _LOW7) & mask
    ok &= (nd == pm) & ((pm & (pm - _N[1])) == 0) & (mlen >= 1) & (length <= MAX_LINE)
    pbit = pm >> _N[7]
    digits = (d & (pbit - _N[1])) | ((d & (_U64(0) - (pbit << _N[8]))) >> _N[8])
    after = ((pbit * _SPREAD) >> _N[56]).view(np.int64)
    ok &= after != mlen                       # a point first (".5e+00") is left to the tokeniser
    _ladder(digits, np.empty_like(digits))
    k = np.clip(after - exponent, _K_MIN, _K_MAX) - _K_MIN
    got = digits.astype(np.float64) * _SCALE_MUL[k] / _SCALE_DIV[k]
    np.negative(got, out=got, where=minus)
    points = int(np.count_nonzero(pm[ok]))
    # inf, -inf, nan, -nan (the general tokeniser reads -nan as nan)
    word = lo & _MASK_LO[6]
    inf = ~ok & (length == 3) & (word == _INF)
    nan = ~ok & (length == 3) & (word == _NAN)
    got[inf] = np.where(minus[inf], -np.inf, np.inf)
    got[nan] = np.nan
    if not (ok | inf | nan).all():
        return None
    values[where] = got
    return points


def parse_stream(read: Reader, capacity: int, kernel=None) -> np.ndarray | None:
    """The values of a short ``%g`` text (one value per line; the first byte starts a line) that
    ``read`` hands out piece by piece; at most ``capacity`` values (None beyond).  A last line
    without its newline is read as if it had one.  None when a line is not this format.  With
    ``kernel`` (:func:`compiled`) the compiled path reads it, else the numpy path."""
    if kernel is not None:
        return _parse_stream_compiled(kernel, read, capacity)
    work = text_parts.thread_work(_PER_THREAD, _Work, CHUNK)  # scratch space: every byte read is written first
    buf = work.buf

    def piece(out: np.ndarray, count: int, begin: int, end: int) -> tuple[int, int] | None:
        buf[end : end + 16] = 0
        window = max(begin, end - MAX_LINE - 1)
        last = bytes(buf[window:end]).rfind(b"\n")
        stop = window + last + 1 if last >= 0 else begin  # no line end yet: carry it all
        if stop == begin:
            return begin, 0
        lines = _parse_lines(work, begin, stop, out[count:])
        return None if lines is None else (stop, lines)

    return text_parts.parse_pieces(buf, read, capacity, _FRONT, CHUNK, MAX_LINE, piece)


def _parse_stream_compiled(kernel, read: Reader, capacity: int) -> np.ndarray | None:
    """:func:`parse_stream` with the compiled piece parser."""
    work = text_parts.thread_work(_JIT_PER_THREAD, _JitWork, CHUNK)
    buf, text, arrays = work.buf, work.text(), work.arrays()
    tables = _tables()

    def piece(out: np.ndarray, count: int, begin: int, end: int) -> tuple[int, int] | None:
        buf[end : end + 16] = 0
        stop, lines = kernel(*text, begin, end, out, count, *arrays, *tables)
        return None if stop < 0 else (stop, lines)

    return text_parts.parse_pieces(buf, read, capacity, _FRONT, CHUNK, MAX_LINE, piece)


def parse_parts(read_at: ReadAt, size: int, threads: int) -> np.ndarray | None:
    """The values of a short ``%g`` text of ``size`` bytes read with ``read_at(view, offset)``, in up
    to ``threads`` parts parsed at once (one part: a single-core run), by the compiled path once
    :mod:`.compiled` says so."""
    kernel = _kernel_for(size)
    return text_parts.parse_parts(read_at, size, threads, CHUNK,
                                  lambda read, part_bytes: parse_stream(read, part_bytes // 2 + 1, kernel))


def _tables() -> tuple:
    """What the compiled kernel reads besides the text: the numpy path's tables for the lines with
    an exponent (its plain test computes what the other tables hold)."""
    return _MASK_LO, MAX_LINE, _K_MIN, _SCALE_MUL, _SCALE_DIV

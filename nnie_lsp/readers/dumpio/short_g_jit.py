"""The compiled piece parser of :mod:`.short_g` (numba): the same lines, the same checks and the
same values as its numpy path, in three loops over a piece instead of some fifty whole-array numpy
passes.  :mod:`.short_g` hands it its tables, so both paths share one definition of what a line may
hold and what it is worth.

:func:`_parse_piece`, per piece:

1. Newlines: each 64-byte block's newlines become one 64-bit mask (SWAR over its eight words),
   and its set bits are taken lowest first (a de Bruijn multiply finds a bit's place), so only one
   branch in about nine lines, a block's end, is hard to predict; a byte loop that stops at each
   newline mispredicts once a line.  For each line: its length, its sign (first byte ``-``) and
   the 16 bytes before its newline (two unaligned 64-bit loads) go into per-line arrays.
2. :func:`_plain_lines`, a loop without branches or table look-ups, which LLVM vectorises: the
   plain test of :func:`.short_g._parse_lines` on those words -- the digits and at most one point
   in the last 8 characters (the one non-digit must be ``.``), a prefix of ``0.00`` before them,
   the point closed up, the 8 digits to an integer in three SWAR steps, one correctly rounded
   division by an exact power of ten (built from its binary digits, no table); what the
   tables of :mod:`.short_g` refuse is flagged.
3. Flagged lines (``d.ddddde±dd``, ``inf``, ``nan``, or not this format) one by one
   (:func:`_other_line`, as :func:`.short_g._parse_other`); a line neither reads refuses the
   piece, and the caller hands the text to the general tokeniser, which names the bad token.

Importing this module imports numba (an ``ImportError`` or another error where numba is missing or
does not load with this numpy: :mod:`.short_g` then keeps its numpy path).  How the kernels are
compiled and cached, and the word helpers shared with :mod:`.fixed_e_jit`: :mod:`.jit_words`; when
a process loads them: :mod:`.compiled`.
"""

from __future__ import annotations

import numba
import numpy as np

from nnie_lsp.readers.dumpio.jit_words import DIGIT_ROOM, HIGH, LOW7, U, ZEROS, jit, ladder

__all__ = ["parse_piece"]

_SPREAD = U(0x0807060504030201)       # top byte of (1 << 8b) * _SPREAD = 8 - b
_POINT = U(int.from_bytes(bytes([ord(".") ^ 0x30]) * 8, "little"))
_EXP_PLUS, _EXP_MINUS = U(int.from_bytes(b"e+", "little")), U(int.from_bytes(b"e-", "little"))
_INF = U(int.from_bytes(b"\0" * 5 + b"inf", "little"))
_NAN = U(int.from_bytes(b"\0" * 5 + b"nan", "little"))
_PREFIX4 = U(int.from_bytes(b"0.00", "little") << 32)   # "0.00" in the top 4 bytes
_NEWLINES = U(0x0A0A0A0A0A0A0A0A)
_LOW1 = U(0x0101010101010101)
_GATHER = U(0x0102040810204080)  # (byte flags in bit 0 of each byte) * _GATHER >> 56: one bit a byte
_DE_BRUIJN = U(0x03F79D71B4CB0A89)
_DE_BRUIJN_PLACE = np.zeros(64, np.int64)  # the place of the bit b from (2^b * _DE_BRUIJN) >> 58
for _bit in range(64):
    _DE_BRUIJN_PLACE[((1 << _bit) * 0x03F79D71B4CB0A89 % (1 << 64)) >> 58] = _bit


@jit
def _other_line(lo, hi, length, minus, mask_lo, max_line, k_min, scale_mul, scale_div):
    """A line the plain test refused, ``length`` characters after its sign: ``[-]d[.ddddd]e±dd``
    (a mantissa of at most 8 characters), ``inf`` or ``nan``; (value, True), or (0, False)."""
    if length == 3:
        word = lo & mask_lo[6]
        if word == _INF:
            return (-np.inf if minus else np.inf), True
        if word == _NAN:
            return np.nan, True                           # "-nan" too, as the general tokeniser
    if length > max_line or length < 5:
        return 0.0, False
    tail = lo >> U(32)                                    # e, its sign, two digits
    mark = tail & U(0xFFFF)
    if mark != _EXP_PLUS and mark != _EXP_MINUS:
        return 0.0, False
    e1 = ((tail >> U(16)) & U(0xFF)) - U(0x30)            # wraps past 9 for a byte below '0'
    e2 = (tail >> U(24)) - U(0x30)
    if e1 > U(9) or e2 > U(9):
        return 0.0, False
    exponent = np.int64(e1 * U(10) + e2)
    if mark == _EXP_MINUS:
        exponent = -exponent
    mlen = length - 4
    mask = mask_lo[2 * mlen]
    d = ((lo << U(32)) | (hi >> U(32))) ^ ZEROS
    d &= mask
    nd = (((d & LOW7) + DIGIT_ROOM) | d) & HIGH
    z = d ^ _POINT
    pm = ~(((z & LOW7) + LOW7) | z | LOW7) & mask        # 0x80 where the byte is the point
    if nd != pm or (pm & (pm - U(1))) != 0:
        return 0.0, False
    pbit = pm >> U(7)
    after = np.int64((pbit * _SPREAD) >> U(56))
    if after == mlen:                                     # a point first: left to the tokeniser
        return 0.0, False
    digits = (d & (pbit - U(1))) | ((d & (U(0) - (pbit << U(8)))) >> U(8))
    k = min(max(after - exponent, k_min), k_min + scale_mul.size - 1) - k_min
    value = np.float64(np.int64(ladder(digits))) * scale_mul[k] / scale_div[k]
    return (-value if minus else value), True


@jit
def _plain_lines(lo, hi, key, out, count, flags, lines, max_line):
    """Lines ``0 .. lines-1`` (``key`` = 2 * characters before the newline + minus, ``lo`` / ``hi``
    the 16 bytes before the newline) read as plain lines into ``out[count:]``; ``flags`` marks the
    lines this test refuses; their number."""
    flagged = 0
    for i in range(lines):
        minus = key[i] & 1
        length = (key[i] >> 1) - minus                        # characters after the sign
        in_lo = min(max(length, 1), 8)
        d = (lo[i] ^ ZEROS) & (~U(0) << U(8 * (8 - in_lo)))
        before = min(max(length - 8, 0), 4)                   # characters before lo: a prefix of "0.00"
        prefix_mask = (~U(0) << U(8 * (8 - before))) if before > 0 else U(0)
        prefix = (_PREFIX4 << U(8 * (4 - before))) if before > 0 else U(0)
        nd = (((d & LOW7) + DIGIT_ROOM) | d) & HIGH       # 0x80 in each non-digit byte
        pbit = nd >> U(7)
        bad = (nd & (nd - U(1))) != U(0)                    # a second non-digit
        bad |= (d & (pbit * U(0xFF))) != pbit * U(0x1E)     # the one non-digit is not the point
        bad |= (prefix_mask & hi[i]) != prefix
        step = d >> U(8)                                     # close up the point (integer 10x)
        d = ((d ^ step) & (pbit - U(1))) ^ step
        after = np.int64((pbit * _SPREAD) >> U(56))          # digits after the point + 1 (0: none)
        # refused as short_g's divisor table refuses: a length it does not read, a point first,
        # a point in lo as well as in the prefix
        bad |= (length < 1) | (length > max_line) | (after == length) | ((length >= 10) & (after != 0))
        digits = (length - 2) if length >= 10 else after      # the power of ten to divide by
        power = ((1 + 9 * (digits & 1)) * (1 + 99 * ((digits >> 1) & 1)) * (1 + 9999 * ((digits >> 2) & 1))
                 * (1 + 99999999 * ((digits >> 3) & 1)) * (1 - 2 * minus))
        out[count + i] = np.float64(np.int64(ladder(d))) / np.float64(power)
        flags[i] = bad
        flagged += bad
    return flagged


_C8 = numba.types.Array(numba.uint8, 1, "C")
_C64 = numba.types.Array(numba.uint64, 1, "C")
_I64 = numba.types.Array(numba.int64, 1, "C")
_F64 = numba.types.Array(numba.float64, 1, "C")
# ``at``: a 64-bit word at every byte, so loads of it must not assume alignment (numba types every
# array it is handed as aligned; hence the signature)
_AT = numba.types.Array(numba.uint64, 1, "A", aligned=False)
_SIGNATURE = numba.types.UniTuple(numba.int64, 2)(
    _C8, _C64, _AT, numba.int64, numba.int64, _F64, numba.int64, _C64, _C64, _I64,
    numba.types.Array(numba.boolean, 1, "C"), _C64, numba.int64, numba.int64, _F64, _F64)


@numba.njit(_SIGNATURE, nogil=True, cache=True, boundscheck=False)
def _parse_piece(buf, words, at, begin, end, out, count, lo, hi, key, flags, mask_lo, max_line, k_min,
                 scale_mul, scale_div):
    """The lines of ``buf[begin:end]`` whose newline is in it (the byte before ``begin`` is a
    newline, with 16 bytes before it; ``words`` is ``buf`` as aligned 64-bit words, ``at`` as the
    word at every byte: element i is ``buf[i : i + 8]``), values into ``out[count:]``: (where the unparsed rest starts,
    lines), or (-1, 0) when a line is not this format or ``out`` is too small."""
    lines = 0
    prev = begin - 1                                          # the newline before the line
    for block in range(begin >> 6, (end + 63) >> 6):
        mask = U(0)
        for w in range(8):
            x = words[block * 8 + w] ^ _NEWLINES
            z = ~(((x & LOW7) + LOW7) | x | LOW7)          # 0x80 in each newline byte, exactly
            mask |= (((z >> U(7)) & _LOW1) * _GATHER >> U(56)) << U(8 * w)
        base = block * 64
        if base < begin:
            mask &= ~U(0) << U(begin - base)
        if base + 64 > end:
            mask &= (U(1) << U(end - base)) - U(1)
        while mask != U(0):
            low = mask & (U(0) - mask)
            mask ^= low
            p = base + _DE_BRUIJN_PLACE[np.int64((low * _DE_BRUIJN) >> U(58))]
            key[lines] = 2 * (p - prev - 1) + np.int64(buf[prev + 1] == 45)
            lo[lines] = at[p - 8]                             # the line's last 8 characters
            hi[lines] = at[p - 16]                            # the 8 before them
            prev = p
            lines += 1
    if lines > out.size - count:
        return -1, 0
    if _plain_lines(lo, hi, key, out, count, flags, lines, max_line):
        for i in range(lines):
            if flags[i]:
                minus = (key[i] & 1) == 1
                value, ok = _other_line(lo[i], hi[i], (key[i] >> 1) - np.int64(minus), minus, mask_lo,
                                        max_line, k_min, scale_mul, scale_div)
                if not ok:
                    return -1, 0
                out[count + i] = value
    return prev + 1, lines


parse_piece = _parse_piece

"""The compiled piece parser of :mod:`.fixed_e` (numba) for ``%.18e`` lines with a 2-digit exponent:
the same lines, the same checks and the same values as its numpy path (:func:`.fixed_e._parse_chunk_18`),
in one loop over a piece instead of some forty whole-array numpy passes.  :mod:`.fixed_e` hands it its
power-of-ten table, so both paths divide the same exact mantissa by the same double.

:func:`_parse_piece` walks the piece line by line without a newline search: a line of this format is
25 bytes, 26 when its first byte is ``-``, so the next newline's place follows from one byte; the
byte there must be the newline.  Every other byte of the line is checked at its fixed place (SWAR,
four unaligned 64-bit loads: ``d0 .``, ``d1..d8``, ``d9..d16``, ``d17 d18 e ± x1 x2``), the 19
mantissa digits become one exact uint64 (:func:`.jit_words.ladder`), converted to float64 once and
divided by the table's correctly rounded power of ten (index: exponent + 100 * (its sign is ``-``) * 2
+ 512 * (the line's sign is ``-``), as the numpy path's).  A line of any other shape refuses the piece
(-1): :mod:`.fixed_e` then hands the piece to its numpy piece parser, which reads other shapes
(3-digit exponents) or refuses the text, and the general tokeniser names the bad token.

Cost (``benchmarks/bench_triage.py``, one core of this 2-core machine under load, load average 4-6):
about 20 ns a line with reading the file, 14.8-17.5x ``numpy.loadtxt`` in CPU time (the numpy path
4.5-6.2x).  No newline search, so none shared with :mod:`.short_g_jit`, whose lines vary in length.
Loading: see :mod:`.jit_words` (compiling, the on-disk cache) and :mod:`.compiled` (when).
"""

from __future__ import annotations

import numba
import numpy as np

from nnie_lsp.readers.dumpio.jit_words import DIGIT_ROOM, U, ZEROS, bad_bytes, ladder

__all__ = ["parse_piece"]


def _word(chars) -> np.uint64:
    """A little-endian uint64 from up to 8 byte values (byte 0 first)."""
    return U(int.from_bytes(bytes(chars).ljust(8, b"\0"), "little"))


_HEAD_TEMPLATE = _word(b"0.000000")                     # d0 . d1..d6 (the point checked here)
_HEAD_ROOM = _word([0x76, 0x7F] + [0x76] * 6)
_TAIL_TEMPLATE = _word(b"0000e+00")                     # d15..d18 e sign x1 x2
_TAIL_ROOM = _word([0x76] * 4 + [0x7F, 0x7D, 0x76, 0x76])  # the sign: '+' ',' '-' (',' refused below)
_BYTE = U(0xFF)

_F64 = numba.types.Array(numba.float64, 1, "C")
# ``at``: a 64-bit word at every byte, so loads of it must not assume alignment (numba types every
# array it is handed as aligned; hence the signature)
_SIGNATURE = numba.types.UniTuple(numba.int64, 2)(
    numba.types.Array(numba.uint8, 1, "C"), numba.types.Array(numba.uint64, 1, "A", aligned=False),
    numba.int64, numba.int64, _F64, numba.int64, _F64)


@numba.njit(_SIGNATURE, nogil=True, cache=True, boundscheck=False)
def _parse_piece(buf, at, begin, end, out, count, scale_div):
    """The lines of ``buf[begin:end]`` whose newline is in it (the byte before ``begin`` is a newline,
    with 32 bytes before it; ``at`` is ``buf`` as the word at every byte: element i is
    ``buf[i : i + 8]``), values into ``out[count:]``: (where the unparsed rest starts, lines), or
    (-1, 0) when a line is not ``%.18e`` with a 2-digit exponent or ``out`` is too small."""
    prev = begin - 1                                      # the newline before the line
    lines = 0
    room = out.size - count
    while True:
        minus = np.int64(buf[prev + 1] == 45)
        p = prev + 25 + minus                             # where its newline must be
        if p >= end:
            break
        head, a, b, tail = at[p - 24], at[p - 22], at[p - 14], at[p - 8]
        bad = bad_bytes(head, _HEAD_TEMPLATE, _HEAD_ROOM) | bad_bytes(tail, _TAIL_TEMPLATE, _TAIL_ROOM)
        bad |= bad_bytes(a, ZEROS, DIGIT_ROOM) | bad_bytes(b, ZEROS, DIGIT_ROOM)
        sign = ((tail >> U(40)) & _BYTE) - U(43)          # 0 '+', 1 ',', 2 '-'
        if bad != U(0) or sign == U(1) or buf[p] != 10 or lines >= room:
            return -1, 0
        d17_18 = ((tail >> U(16)) & _BYTE) * U(10) + ((tail >> U(24)) & _BYTE) - U(11 * 48)
        exponent = ((tail >> U(48)) & _BYTE) * U(10) + (tail >> U(56)) - U(11 * 48)
        mantissa = (((head & _BYTE) - U(48)) * U(10**8) + ladder(a - ZEROS)) * U(10**10)
        mantissa += ladder(b - ZEROS) * U(100) + d17_18
        index = np.int64(exponent + sign * U(100)) + 512 * minus
        out[count + lines] = np.float64(mantissa) / scale_div[index]
        prev = p
        lines += 1
    return prev + 1, lines


parse_piece = _parse_piece

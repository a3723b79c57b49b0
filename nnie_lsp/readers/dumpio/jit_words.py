"""What the compiled text readers (:mod:`.short_g_jit`, :mod:`.fixed_e_jit`; numba) share: how a
kernel is compiled and cached, the SWAR constants, the 8-digits-to-a-number ladder, and the byte
check both use.  When a process loads them is :mod:`.compiled`'s choice, not theirs.

Compiled with ``cache=True``: kept on disk in ``__pycache__`` beside these files, or where that is
read-only in numba's per-user cache directory (``NUMBA_CACHE_DIR`` when set).  Where no cache
directory is writable importing a kernel module fails (numba refuses ``cache=True``) and the numpy
paths read: compiling anew in every process would cost more than it saves.  numba's cache of a
kernel is keyed on its own file only: a kernel calling :func:`ladder` is not recompiled when only
this file changes (an install writes every file anew, so only a working tree sees it; delete the
``*.nbi`` files in ``__pycache__`` after editing this file).

Importing this module imports numba (about 0.2 s of CPU).
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["DIGIT_ROOM", "HIGH", "LOW7", "U", "ZEROS", "bad_bytes", "jit", "ladder"]

#: how every kernel is compiled: no GIL (the parsers' threads run at once), cached on disk
jit = numba.njit(nogil=True, cache=True, boundscheck=False)
U = np.uint64
ZEROS, LOW7, HIGH = U(0x3030303030303030), U(0x7F7F7F7F7F7F7F7F), U(0x8080808080808080)
DIGIT_ROOM = U(0x7676767676767676)   # a byte x <= 9 stays below 0x80 after + 0x76, 10..127 reach it
_M8 = U(0x000000FF000000FF)
_PAIR_HI, _PAIR_LO = U(100 + (1000000 << 32)), U(1 + (10000 << 32))


@jit
def ladder(x):
    """8 digit values (the first in the low byte) -> their number."""
    x = x * U(10) + (x >> U(8))                           # two-digit numbers in bytes 0, 2, 4, 6
    return ((x & _M8) * _PAIR_HI + ((x >> U(16)) & _M8) * _PAIR_LO) >> U(32)


@jit
def bad_bytes(word, template, room):
    """0x80 in the bytes of ``word - template`` whose byte is not ``template``'s byte plus
    0 .. 0x7F - ``room``'s byte (room 0x76: a digit over '0'; 0x7F: exactly the byte), 0 when
    every byte is; exact, as a borrow or carry across bytes only comes from a byte already out."""
    x = word - template
    return ((x + room) | x) & HIGH

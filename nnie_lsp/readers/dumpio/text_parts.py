"""What the one-value-a-line text fast paths (:mod:`.fixed_e`, :mod:`.short_g`) share: each
thread's buffers kept between calls, the piece-by-piece read with the partial line carried from
one piece to the next (:func:`parse_pieces`), and the text cut at line ends into parts parsed by
several threads at once (:func:`split_points`, :func:`parse_parts`).  Each path brings only its own
per-piece parser; how the text is cut into pieces and parts never changes a value.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, TypeVar

import numpy as np

__all__ = ["MAX_CARRY", "MIN_PART_CHUNKS", "ReadAt", "Reader", "parse_parts", "parse_pieces", "split_points",
           "thread_work"]

#: the longest line looked for past a cut between two parts (and fixed_e's longest carried line)
MAX_CARRY = 256
#: the fewest pieces worth a thread of their own: a new thread's buffers cost about 1 ms to set up
MIN_PART_CHUNKS = 8

# a reader fills the memoryview it is given with the next bytes of the text; 0 at the end
Reader = Callable[[memoryview], int]
# read_at(view, offset) fills ``view`` with the bytes at ``offset``; how many it read (0 at the end)
ReadAt = Callable[[memoryview, int], int]
# parse_piece(out, count, begin, end): the lines of buf[begin:end] (the byte before ``begin`` is a
# newline) whose newline is in it, values into out[count:]; (where the unparsed rest starts, how
# many lines) or None when a line is not the format
PieceParser = Callable[[np.ndarray, int, int, int], "tuple[int, int] | None"]

_W = TypeVar("_W")


def thread_work(local: threading.local, make: Callable[[], _W], chunk: int) -> _W:
    """This thread's buffers (``local.work``, made by ``make`` for pieces of ``chunk`` bytes), kept
    between calls: allocating and first touching a few MB costs about 1 ms, a fifth of parsing a
    5 MB file.  Only scratch space is kept, never a value: every byte a parse reads is written by
    that parse first (the newline before the text, the bytes after it) or discarded (masked off)."""
    work = getattr(local, "work", None)
    if work is None or work.chunk != chunk:
        work = local.work = make()
    return work


def parse_pieces(buf: np.ndarray, read: Reader, capacity: int, front: int, chunk: int, longest: int,
                 parse_piece: PieceParser) -> np.ndarray | None:
    """The values of a text (one value per line; the first byte starts a line) that ``read`` hands
    out piece by piece into ``buf[front : front + chunk]``, each piece parsed by ``parse_piece``; at
    most ``capacity`` values.  The partial line at the end of a piece (at most ``longest`` bytes) is
    carried to just before ``front``; a last line without its newline is read as if it had one.
    None when ``parse_piece`` refuses a piece or a partial line is longer than ``longest``."""
    out = np.empty(max(capacity, 1))
    count = 0
    carry = 0  # bytes of the partial line kept just before front
    while True:
        got = read(memoryview(buf)[front : front + chunk])
        at_end = got == 0
        if at_end:
            if carry == 0:
                break
            buf[front] = 10  # the last line's missing newline
            got = 1
        begin = front - carry  # the first line's first byte
        end = front + got
        buf[begin - 1] = 10  # the newline before it (the previous piece's last, or the text's start)
        done = parse_piece(out, count, begin, end)
        if done is None:
            return None
        rest, lines = done
        count += lines
        carry = end - rest
        if carry > longest or (at_end and carry):
            return None
        if carry:
            buf[front - carry : front] = buf[rest:end]
        if at_end:
            break
    out.resize(count, refcheck=False)
    return out


def split_points(size: int, parts: int, read_at: ReadAt) -> list[int] | None:
    """Offsets cutting a text of ``size`` bytes into ``parts`` pieces of about the same size, each
    just after a newline; None when a line near a cut is longer than :data:`MAX_CARRY`."""
    points = [0]
    window = bytearray(MAX_CARRY + 1)
    for i in range(1, parts):
        guess = size * i // parts
        if guess <= points[-1]:
            continue
        got = read_at(memoryview(window), guess - 1)
        nl = bytes(window[:got]).find(b"\n")
        if nl < 0:
            return None
        if guess + nl < size:
            points.append(guess + nl)
    points.append(size)
    return sorted(set(points))


def parse_parts(read_at: ReadAt, size: int, threads: int, chunk: int,
                parse_stream: Callable[[Reader, int], np.ndarray | None]) -> np.ndarray | None:
    """The values of a text of ``size`` bytes read with ``read_at``, in up to ``threads`` parts
    parsed at once (one part: a single-core run), each part at least :data:`MIN_PART_CHUNKS` pieces
    of ``chunk`` bytes; ``parse_stream(read, part_bytes)`` parses one part.  None when a part is
    refused."""
    parts = min(threads, size // (MIN_PART_CHUNKS * chunk))
    points = split_points(size, parts, read_at) if parts > 1 else [0, size]
    if points is None:
        return None

    def run(part: tuple[int, int]) -> np.ndarray | None:
        begin, stop = part
        position = begin

        def read(view: memoryview) -> int:
            nonlocal position
            got = read_at(view[: stop - position], position) if position < stop else 0
            position += got
            return got

        return parse_stream(read, stop - begin)

    spans = list(zip(points[:-1], points[1:]))
    if len(spans) == 1:
        return run(spans[0])
    with ThreadPoolExecutor(len(spans)) as pool:
        results = list(pool.map(run, spans))
    if any(values is None for values in results):
        return None
    return np.concatenate(results)

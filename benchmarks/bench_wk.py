"""The `.wk` reader on the largest real `.wk` of the repository vs the work no reader can skip.

    python benchmarks/bench_wk.py [--repeat 21] [--file PATH]

Baseline, measured in the same run: reading the file's bytes and the CRC-32 over them (zlib), which
any reader that checks the file must do.  Measured: :func:`nnie_lsp.readers.wk.read_wk` (read, CRC, header,
node tables, the whole memory plan, board blobs) and ``nnie-lint``'s one-line summary of it.  Prints
the medians of CPU time and the ratios; exit status is always 0 (a benchmark, not a test).  Goal: the reader
≤ 2× the baseline on the largest file, and the whole `nnie-triage wk` table ≤ 3×
(the file with the most plan records is printed too: `--file`).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nnie_lsp.readers.wk.reader import read_wk  # noqa: E402
from nnie_lsp.readers.wk.describe import render_text, summary  # noqa: E402


def timed(fn, repeat: int) -> tuple[float, float]:
    """(median, min) of the process's CPU time for one call (CPU, not wall: other processes on a
    loaded machine do not count)."""
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return statistics.median(times), min(times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=21)
    ap.add_argument("--file", help="a .wk (default: the largest in tests/data/wk)")
    args = ap.parse_args(argv)
    files = sorted((ROOT / "tests" / "data" / "wk").glob("*.wk"), key=lambda p: p.stat().st_size)
    path = Path(args.file) if args.file else files[-1]
    for candidate in files:   # the file with the most memory-plan records too (the reader's other cost)
        model = read_wk(str(candidate))
        print(f"{candidate.name}: {candidate.stat().st_size:,} bytes, {len(model.plan)} plan records, "
              f"{len(model.nodes)} nodes")

    def baseline():
        data = path.read_bytes()
        return zlib.crc32(data[4:], 0xFFFFFFFF)

    base, base_min = timed(baseline, args.repeat)
    read, read_min = timed(lambda: read_wk(str(path)), args.repeat)
    table, _ = timed(lambda: render_text(read_wk(str(path))), args.repeat)
    line, _ = timed(lambda: summary(read_wk(str(path))), args.repeat)
    print(f"\n{path.name}, median of {args.repeat}:")
    print(f"  baseline (read bytes + crc32)   {base * 1e3:7.2f} ms (min {base_min * 1e3:.2f})")
    print(f"  read_wk                         {read * 1e3:7.2f} ms (min {read_min * 1e3:.2f})  {read / base:5.2f}×")
    print(f"  read_wk + summary line          {line * 1e3:7.2f} ms                  {line / base:5.2f}×")
    print(f"  read_wk + the nnie-triage table {table * 1e3:7.2f} ms                  {table / base:5.2f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Full lint (read + graph + all rules) vs protobuf's own text_format.Parse, same file, same run.

    python benchmarks/bench_lint.py [--layers 2000] [--repeat 7]

Goal: full lint ≤ 0.5× the time text_format.Parse alone takes on the same file.
Prints the medians and the ratio; exit status is always 0 (a benchmark, not a test).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time

from google.protobuf import text_format

from nnie_lsp.lint import lint_project
from nnie_lsp.project.project import Project
from nnie_lsp.readers.prototxt import caffe_pb2
from nnie_lsp.readers.prototxt.graph import build_graph
from nnie_lsp.readers.prototxt.reader import parse_prototxt
from nnie_lsp.testing.synth_nets import generate_big_prototxt
from nnie_lsp.project.settings import LintSettings


def full_lint(text: str, settings: LintSettings):
    doc = parse_prototxt(text, "/bench/big.prototxt")        # no cache: a fresh parse every time
    project = Project(settings=settings, prototxt=doc, graph=build_graph(doc))
    return lint_project(project)


def timed(fn, repeat):
    times = []
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args(argv)
    text = generate_big_prototxt(args.layers)
    settings = LintSettings()                              # the default rule set
    every = LintSettings(extend_select=("NN303",))         # + the off-by-default NN303 (461 fixes to build)
    out = full_lint(text, every)
    print(f"file: {args.layers} layers, {text.count(chr(10))} lines, {len(text) / 1024:.0f} KiB; "
          f"{len(out.diagnostics)} findings with every rule on")
    from google.protobuf.internal import api_implementation
    base_med, base_min = timed(lambda: text_format.Parse(text, caffe_pb2.NetParameter()), args.repeat)
    lint_med, lint_min = timed(lambda: full_lint(text, settings), args.repeat)
    read_med, _ = timed(lambda: parse_prototxt(text), args.repeat)
    every_med, _ = timed(lambda: full_lint(text, every), args.repeat)
    print(f"baseline text_format.Parse ({api_implementation.Type()}): median {base_med * 1e3:.0f} ms (min {base_min * 1e3:.0f})")
    print(f"nnie-lint full lint:                 median {lint_med * 1e3:.0f} ms (min {lint_min * 1e3:.0f}); reader alone {read_med * 1e3:.0f} ms")
    print(f"ratio full lint (default rules) / text_format.Parse: {lint_med / base_med:.2f}x (goal <= 0.50x)")
    print(f"ratio reader alone / text_format.Parse:              {read_med / base_med:.2f}x")
    print(f"ratio with every rule incl. NN303 / text_format.Parse: {every_med / base_med:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

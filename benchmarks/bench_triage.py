"""Triage I/O benchmark: ratios against named baselines measured in the same run, and peak memory
while iterating a generated dump set.

    .venv/bin/python benchmarks/bench_triage.py --quick
    .venv/bin/python benchmarks/bench_triage.py --size-gb 2
    taskset -c 1 .venv/bin/python benchmarks/bench_triage.py --only-fast-readers --size-gb 2

1. one row per real dump form, each against its baseline on the same file, on one core (the
   parser's threads capped at 1), the functions taking turns in every round:

   - "mapper .float (C++ stream, 6 digits)": nnie_mapper's dequantized ``…_anti_quant.float`` text,
     ``std::ofstream << float`` output (``%g``, six significant digits; docs/field-facts.md §16.5):
     ``read_text_floats`` vs ``numpy.loadtxt`` (goal >= 5x).  The values are what such files hold:
     half on 8-bit grids ``clip * 2^(-k/16)`` of several layer clips, half 16-bit-like values, a
     third of them zeros, some negative.  "ours" is the compiled path (``dumpio/short_g_jit.py``,
     numba), loaded before the rounds as a process has it once its numpy paths have cost it
     ``compiled.COMPILE_AFTER`` (``dumpio/compiled.py``); a second line gives the numpy path (what a
     process reads before that, or without numba), a third what loading the compiled path costs a
     fresh process (importing numba, then the kernel from numba's cache, or compiled into an empty
     one);
   - "RuyiStudio/Caffe %.18e": numpy ``savetxt`` defaults, what RuyiStudio's "Get Caffe Output"
     writes: ``read_text_floats`` vs ``numpy.loadtxt`` (goal >= 5x), the same three lines (the
     compiled path ``dumpio/fixed_e_jit.py``, the numpy path, loading), and the threads the parser
     may use;
   - "mapper .hex %08x": 20.12 fixed-point words (mapper_quant outputs, simulator, board):
     ``read_hex_words`` vs a plain Python ``int(x, 16)`` loop;

   with wall and CPU time, the error against ``loadtxt`` and the load average (how busy the machine
   was);
2. peak memory: a child process scans a generated dump set (Caffe text + mapper_quant hex, about
   ``--size-gb`` on disk), aligns it and iterates every pair computing the metrics; its peak RSS
   (``ru_maxrss``) is compared with an import-only child and with the largest single pair — it must
   be bounded by that pair, not by the whole set;
3. the fast text readers end to end (``--only-fast-readers``, the ``--size-gb`` set with the
   mapper's six-digit input dumps added): a whole ``nnie-triage compare`` in a fresh process read
   as installed, with the numpy fast paths alone (no numba) and with neither (the general
   tokeniser), taking turns in each of ``--repeat`` rounds; medians, the ratio of each to the
   installed readers, and whether its JSON (but ``elapsed_s``) is the installed one's.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from nnie_lsp.readers.dumpio import readers, writers  # noqa: E402
import nnie_lsp.readers.dumpio.writers  # noqa: E402,F401


def best_of(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def best_interleaved(fns: dict, repeat: int) -> tuple[dict, dict]:
    """Best wall and CPU (this process, all threads) time of each function, the functions taking
    turns in every round so that a change of load on a busy machine hits them all alike."""
    wall = {name: float("inf") for name in fns}
    cpu = dict(wall)
    for _ in range(repeat):
        for name, fn in fns.items():
            c0, t0 = time.process_time(), time.perf_counter()
            fn()
            wall[name] = min(wall[name], time.perf_counter() - t0)
            cpu[name] = min(cpu[name], time.process_time() - c0)
    return wall, cpu


MAPPER_FLOAT = "mapper .float (C++ stream, 6 digits)"
CAFFE_E18 = "RuyiStudio/Caffe %.18e"
MAPPER_HEX = "mapper .hex %08x"


def mapper_float_values(n: int, seed: int = 0) -> np.ndarray:
    """float32 values as nnie_mapper's dequantized inputs hold them: half on 8-bit grids
    clip * 2^(-k/16) (k = 0..127; clips 2^-4 .. 2^6, a new clip every 4096 values, like layers),
    half 16-bit-like (no grid), a third zeros, a fifth negative."""
    rng = np.random.default_rng(seed)
    clips = 2.0 ** (rng.integers(-64, 97, n // 4096 + 1) / 16)
    grid = np.repeat(clips, 4096)[:n] * 2.0 ** (-rng.integers(0, 128, n) / 16)
    fine = np.abs(rng.normal(0, 1, n)) * np.repeat(clips, 4096)[:n] / 3
    values = np.where(rng.random(n) < 0.5, grid, fine).astype(np.float32)
    values[rng.random(n) < 0.33] = 0
    values[rng.random(n) < 0.2] *= -1
    return values


def _row(form: str, n: int, mb: float, base_name: str, base: float, ours: float, extra: str) -> None:
    print(f"{form:<37} {n:>10,} values {mb:6.1f} MB | {base_name} {base:7.3f} s | ours {ours:7.3f} s "
          f"| ratio {base / ours:5.1f}x single-core{extra}")


def bench_text_form(form: str, path: str, repeat: int, goal: str = " (goal >= 5x)", threads_row: bool = False,
                    numpy_row: bool = False) -> None:
    from nnie_lsp.readers.dumpio import compiled
    from nnie_lsp.readers.dumpio.readers import parser_threads

    def numpy_path():
        keep, compiled.COMPILE_AFTER = compiled.COMPILE_AFTER, None
        try:
            return readers.read_text_floats(path, threads=1)
        finally:
            compiled.COMPILE_AFTER = keep

    fns = {"loadtxt": lambda: np.loadtxt(path), "single": lambda: readers.read_text_floats(path, threads=1)}
    if threads_row:
        fns["threads"] = lambda: readers.read_text_floats(path)
    if numpy_row:
        fns["numpy"] = numpy_path
    wall, cpu = best_interleaved(fns, repeat)
    got = readers.read_text_floats(path, threads=1)
    exact = np.loadtxt(path)
    finite = np.isfinite(exact) & (exact != 0)
    err = float(np.max(np.abs(got[finite] - exact[finite]) / np.abs(exact[finite]), initial=0.0))
    same = float(np.mean((got == exact) | (np.isnan(got) & np.isnan(exact))))
    n = exact.size
    mb = os.path.getsize(path) / 1e6
    _row(form, n, mb, "numpy.loadtxt", wall["loadtxt"], wall["single"],
         f", wall{goal}; CPU {cpu['loadtxt']:.3f} s vs {cpu['single']:.3f} s = "
         f"{cpu['loadtxt'] / cpu['single']:.1f}x | vs loadtxt: max rel err {err:.1e}, {same:.1%} identical")
    if threads_row:
        print(f"{'':<37} on <= {parser_threads()} thread(s) (a thread per 4 MB at most): {wall['threads']:7.3f} s "
              f"| ratio {wall['loadtxt'] / wall['threads']:5.1f}x")
    if numpy_row:
        assert np.array_equal(numpy_path(), got)
        print(f"{'':<37} numpy path (no numba, or before {compiled.COMPILE_AFTER} s of it): {wall['numpy']:7.3f} s "
              f"| ratio {wall['loadtxt'] / wall['numpy']:5.1f}x wall, {cpu['loadtxt'] / cpu['numpy']:.1f}x CPU "
              f"(identical values)")


COLD = r"""
import os, sys, time
sys.path.insert(0, {root!r})
from nnie_lsp.readers.dumpio import compiled, readers, {form}
compiled.COMPILE_AFTER = 0
c0, w0 = time.process_time(), time.perf_counter()
import numba
c1, w1 = time.process_time(), time.perf_counter()
assert {form}.compiled() is not None
c2, w2 = time.process_time(), time.perf_counter()
readers.read_text_floats({path!r}, threads=1)
c3, w3 = time.process_time(), time.perf_counter()
print(c1 - c0, w1 - w0, c2 - c1, w2 - w1, c3 - c2, w3 - w2)
"""


def bench_cold(path: str, tmp: str, form: str) -> None:
    """What the first compiled read costs a fresh process: importing numba, then loading the kernel
    of ``form`` (``short_g``, ``fixed_e``) from numba's cache (a warm cache: every run after the
    first) or compiling it (an empty cache)."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    code = COLD.format(root=root, path=path, form=form)

    def child(env: dict) -> list[float]:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env={**os.environ, **env}).stdout
        return [float(x) for x in out.split()]

    cache = os.path.join(tmp, f"numba-cache-{form}")
    empty = child({"NUMBA_CACHE_DIR": cache})
    warm = min((child({"NUMBA_CACHE_DIR": cache}) for _ in range(3)), key=sum)
    print(f"{'':<37} first compiled read in a fresh process, CPU (wall): import numba {warm[0]:.2f} s "
          f"({warm[1]:.2f}); kernel from numba's cache {warm[2]:.2f} s ({warm[3]:.2f}), compiled with an empty "
          f"cache {empty[2]:.2f} s ({empty[3]:.2f}); then this file {warm[4]:.3f} s ({warm[5]:.3f})")


def bench_text(n: int, repeat: int, tmp: str) -> None:
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"{os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; one core: the parser's "
          f"threads capped at 1")
    mapper = os.path.join(tmp, "conv2_input0_64_56_56_anti_quant.float")
    with open(mapper, "wb") as f:
        f.write(writers.cpp_stream_text(mapper_float_values(n)))
    from nnie_lsp.readers.dumpio import fixed_e, short_g
    if short_g.compiled() is None or fixed_e.compiled() is None:
        print("numba does not load here: the text forms are read by the numpy paths alone")
    bench_text_form(MAPPER_FLOAT, mapper, repeat, numpy_row=True)
    if short_g.compiled() is not None:
        bench_cold(mapper, tmp, "short_g")
    rng = np.random.default_rng(0)
    a = rng.normal(0, 50, n) * rng.choice([1e-3, 1, 1e3], n)
    caffe = os.path.join(tmp, "conv1_output0_caffe.linear.float")
    np.savetxt(caffe, a)
    bench_text_form(CAFFE_E18, caffe, repeat, threads_row=True, numpy_row=True)
    if fixed_e.compiled() is not None:
        bench_cold(caffe, tmp, "fixed_e")
    # generic separators (fallback path) for the record
    p2 = os.path.join(tmp, "t.txt")
    np.savetxt(p2, a.reshape(-1, 1 if n % 8 else 8), fmt="%.7g", delimiter=",")
    base2 = best_of(lambda: np.loadtxt(p2, delimiter=","), repeat)
    ours2 = best_of(lambda: readers.read_text_floats(p2), repeat)
    print(f"{'(other text: %.7g, 8 a row, commas)':<37} {n:>10,} values        | numpy.loadtxt {base2:7.3f} s | ours "
          f"{ours2:7.3f} s | ratio {base2 / ours2:5.1f}x (general tokeniser path)")


def bench_hex(n: int, repeat: int, tmp: str) -> None:
    rng = np.random.default_rng(1)
    a = rng.normal(0, 100, n)
    path = os.path.join(tmp, "seg0_layer38_output0_inst.linear.hex")
    writers.write_hex(path, a)

    def baseline():
        out = []
        with open(path) as f:
            for line in f:
                v = int(line, 16)
                if v >= 0x80000000:
                    v -= 1 << 32
                out.append(v / 4096)
        return np.array(out)

    wall, _cpu = best_interleaved({"loop": baseline, "ours": lambda: readers.read_hex_words(path)}, repeat)
    assert np.array_equal(baseline(), readers.read_hex_words(path))
    _row(MAPPER_HEX, n, os.path.getsize(path) / 1e6, "int(x,16) loop", wall["loop"], wall["ours"], " (identical values)")


# ---------------------------------------------------------------------------------------------
CHILD = r"""
import sys, time, tracemalloc
sys.path.insert(0, {root!r})
from nnie_lsp.triage.pipeline import run_compare
tracemalloc.start()
if {work}:
    # the whole `nnie-triage compare` path: scan, align, metrics, diagnosis (explanations reload
    # the few tensors they need)
    t0 = time.perf_counter()
    res = run_compare({ref!r}, {sim!r})
    dt = time.perf_counter() - t0
    rows = [r for r in res.rows if r.metrics is not None]
    worst = min(r.cosine for r in rows) if rows else float("nan")
    print(f"pairs={{len(rows)}} unmatched={{len(res.unmatched_ref) + len(res.unmatched_sim)}} "
          f"worst_cos={{worst:.6f}} case={{res.diagnosis.case}} secs={{dt:.3f}}")
else:
    import numpy
peak_traced = tracemalloc.get_traced_memory()[1]
hwm = 0
with open("/proc/self/status") as f:  # VmHWM: peak RSS of this process image (ru_maxrss survives exec)
    for line in f:
        if line.startswith("VmHWM:"):
            hwm = int(line.split()[1])
print("maxrss_kb", hwm, peak_traced)
"""


def run_child(root: str, ref: str, sim: str, work: bool) -> tuple[int, int, str]:
    code = CHILD.format(root=root, ref=ref, sim=sim, work=work)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    last = out.strip().splitlines()[-1].split()
    return int(last[1]), int(last[2]), out.strip().splitlines()[0]


def dump_set(size_gb: float, tmp: str, inputs: bool = False) -> tuple[str, str, list[tuple[int, ...]], float]:
    """A generated dump set of about ``size_gb`` on disk: Caffe ``%.18e`` text in ``caffe/`` and
    mapper_quant ``%08x`` hex outputs in ``sim/mapper_quant/`` (``inputs``: also each layer's
    dequantized input, the mapper's six-digit ``…_anti_quant.float``, as real mapper_quant folders
    hold them).  Returns (reference folder, NNIE folder, the shapes, seconds it took)."""
    ref = os.path.join(tmp, "caffe")
    sim = os.path.join(tmp, "sim")
    mq = os.path.join(sim, "mapper_quant")
    os.makedirs(ref)
    os.makedirs(mq)
    bytes_per_value = 25 + 9 + (11 if inputs else 0)  # %.18e line + %08x line (+ a six-digit line)
    total_values = int(size_gb * 1e9 / bytes_per_value)
    # a net-like size profile: many mid tensors, a few big ones; largest = 1/12 of the set
    largest = max(1000, total_values // 12)
    shapes = []
    acc = 0
    rng = np.random.default_rng(2)
    templates: dict[tuple, tuple[str, str, str | None]] = {}
    i = 0
    while acc < total_values:
        frac = [1.0, 0.5, 0.25, 0.125][i % 4]
        c = max(1, int(largest * frac) // (32 * 32))
        shape = (c, 32, 32)
        shapes.append(shape)
        acc += c * 1024
        i += 1
    t0 = time.perf_counter()
    for i, shape in enumerate(shapes):
        name = f"layer{i:03d}"
        dims = "_".join(map(str, shape))
        if shape not in templates:
            a = rng.normal(0, 10, shape)
            rp = writers.write_ruyi_caffe(ref, name, a)
            sp = writers.write_mapper_quant(mq, name, a + rng.normal(0, 0.01, shape), 0)
            ip = writers.write_mapper_input(mq, name, mapper_float_values(a.size, i).reshape(shape), 0,
                                           linear=False) if inputs else None
            templates[shape] = (rp, sp, ip)
        else:
            rp, sp, ip = templates[shape]
            shutil.copyfile(rp, os.path.join(ref, f"{name}_output0_{dims}_caffe.linear.float"))
            # output0: the mapper numbers a layer's outputs (docs/field-facts.md §16.1)
            shutil.copyfile(sp, os.path.join(mq, f"{name}_output0_{dims}_quant.linear.hex"))
            if ip is not None:
                shutil.copyfile(ip, os.path.join(mq, f"{name}_input0_{dims}_anti_quant.float"))
    return ref, sim, shapes, time.perf_counter() - t0


def bench_memory(size_gb: float, tmp: str) -> None:
    ref, sim, shapes, gen = dump_set(size_gb, tmp)
    disk = sum(os.path.getsize(os.path.join(d, f)) for d in (ref, os.path.join(sim, "mapper_quant")) for f in os.listdir(d))
    big = max(int(np.prod(s)) for s in shapes)
    big_text = big * 25
    pair_bytes = big * 8 * 2  # the two float64 arrays of the largest pair
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    base_rss, _, _ = run_child(root, ref, sim, work=False)
    rss, traced, info = run_child(root, ref, sim, work=True)
    extra = (rss - base_rss) * 1024
    unit = pair_bytes + big_text
    print(f"memory       dump set {disk / 1e9:.2f} GB on disk, {len(shapes)} pairs, generated in {gen:.0f} s | {info}")
    print(f"             peak RSS {rss / 1024:.0f} MB (import-only child {base_rss / 1024:.0f} MB) -> +{extra / 1e6:.0f} MB; "
          f"tracemalloc peak {traced / 1e6:.0f} MB")
    print(f"             largest pair: {big:,} values = {pair_bytes / 1e6:.0f} MB as two float64 arrays + {big_text / 1e6:.0f} MB "
          f"of its text file = {unit / 1e6:.0f} MB | run/largest-pair = {extra / unit:.2f} (RSS), {traced / unit:.2f} (traced) "
          f"| run/whole-set = {extra / disk:.3f}")


# ---------------------------------------------------------------------------------------------
#: How a child process reads the text dumps: as installed (the numpy fast paths, then the compiled
#: ones once :data:`compiled.COMPILE_AFTER` is spent), the numpy fast paths alone (no numba), or
#: neither (every text through the general tokeniser, what is left without the fast readers).
TEXT_PATHS = {
    "as installed": "",
    "numpy fast paths": "from nnie_lsp.readers.dumpio import compiled\ncompiled.COMPILE_AFTER = None",
    "general tokeniser": "from nnie_lsp.readers.dumpio import readers\nreaders._fast_parser = lambda head: None",
}
COMPARE_CHILD = r"""
import sys
sys.path.insert(0, {root!r})
{setup}
from nnie_lsp.cli.triage import main
sys.exit(main(["compare", "--reference", {ref!r}, "--sim", {sim!r}, "--format", "json", "--output", {out!r},
               "--progress", "none", "--no-hp-plan"]))
"""


def _compare_child(root: str, ref: str, sim: str, out: str, setup: str) -> tuple[float, float]:
    """Wall and CPU seconds of a whole ``nnie-triage compare`` in a fresh process."""
    code = COMPARE_CHILD.format(root=root, ref=ref, sim=sim, out=out, setup=setup)
    before = os.times()
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    wall = time.perf_counter() - t0
    after = os.times()
    return wall, (after.children_user - before.children_user) + (after.children_system - before.children_system)


def bench_fast_readers(size_gb: float, repeat: int, tmp: str) -> None:
    """A whole ``nnie-triage compare`` (a fresh process: start-up, scan, align, metrics, diagnosis,
    the JSON written) on a generated dump set, once per way of reading its text (:data:`TEXT_PATHS`),
    the ways taking turns in every round; the median of ``repeat`` rounds, and the ratio of each
    to the installed readers."""
    ref, sim, shapes, gen = dump_set(size_gb, tmp, inputs=True)
    disk = sum(os.path.getsize(os.path.join(d, f)) for d in (ref, os.path.join(sim, "mapper_quant"))
               for f in os.listdir(d))
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in TEXT_PATHS}
    outputs: dict[str, dict] = {}
    for _ in range(repeat):
        for name, setup in TEXT_PATHS.items():
            out = os.path.join(tmp, f"compare-{len(outputs)}.json")
            times[name].append(_compare_child(root, ref, sim, out, setup))
            with open(out, encoding="utf-8") as f:
                result = json.load(f)
            result.pop("elapsed_s", None)
            outputs.setdefault(name, result)
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"fast readers dump set {disk / 1e9:.2f} GB on disk ({len(shapes)} layers: Caffe %.18e outputs, mapper_quant "
          f"%08x outputs and six-digit inputs), generated in {gen:.0f} s; {len(os.sched_getaffinity(0))} core(s) "
          f"allowed, load average {load[0]:.2f}; median of {repeat}")
    base_wall = sorted(w for w, _c in times["as installed"])[repeat // 2]
    base_cpu = sorted(c for _w, c in times["as installed"])[repeat // 2]
    for name, runs in times.items():
        wall = sorted(w for w, _c in runs)[repeat // 2]
        cpu = sorted(c for _w, c in runs)[repeat // 2]
        same = ("the same JSON (but elapsed_s)" if outputs[name] == outputs["as installed"] else
                "JSON differs (values in the last digits)")
        print(f"             compare, {name:<18} {wall:7.2f} s wall ({', '.join(f'{w:.2f}' for w, _c in runs)}), "
              f"{cpu:7.2f} s CPU | x{wall / base_wall:.2f} wall, x{cpu / base_cpu:.2f} CPU of the installed | {same}")


# ---------------------------------------------------------------------------------------------
SCALE_SHAPES = ((2, 3, 3), (4, 2, 2), (3, 4, 4), (1, 5, 5), (8,))


class StageClock:
    """A progress reporter that notes when each stage first reports (``triage``'s stages)."""

    silent = False

    def __init__(self) -> None:
        self.first: dict[str, float] = {}

    def step(self, stage: str, done: int, total: int, item: str = "") -> None:
        self.first.setdefault(stage, time.perf_counter())

    def part(self, start: float, end: float) -> "StageClock":
        return self

    def renamed(self, stage):
        return self

    def close(self) -> None:
        pass


def scale_project(tmp: str, tensors: int, nameless: bool) -> str:
    """The demo project (MTCNN det1, examples/triage/channel_swap) with small tensors added until
    each side holds `tensors`: Caffe dumps ``extra_<k>`` and, on the NNIE side, mapper_quant dumps
    of the same names (``nameless``: instruction-simulator dumps ``seg0_layer<node>`` with shuffled
    node ids instead, paired by values).  Returns the cfg."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "triage")
    run = os.path.join(tmp, "run")
    shutil.copytree(os.path.join(root, "channel_swap"), run)
    shutil.copytree(os.path.join(root, "model"), os.path.join(tmp, "model"))
    out, mq = os.path.join(run, "output"), os.path.join(run, "mapper_quant")
    have = sum(1 for f in os.listdir(out) if f.endswith(".float"))
    rng = np.random.default_rng(5)
    extra = max(0, tensors - have)
    nodes = rng.permutation(np.arange(1000, 1000 + extra))
    for k in range(extra):
        a = rng.normal(size=SCALE_SHAPES[k % len(SCALE_SHAPES)])
        writers.write_ruyi_caffe(out, f"extra_{k:05d}", a)
        noisy = a + rng.normal(0, 0.01, a.shape)
        if nameless:
            writers.write_inst(mq, 0, int(nodes[k]), noisy)
        else:
            writers.write_mapper_quant(mq, f"extra_{k:05d}", noisy, 0)
    return os.path.join(run, "sim.cfg")


def read_all(cfg: str) -> int:
    """What any comparison must do at least: list both dump folders and read every tensor once."""
    from nnie_lsp.readers.dumpio.scan import scan_dumps

    run = os.path.dirname(cfg)
    n = 0
    for side in ("output", "mapper_quant"):
        for t in scan_dumps(os.path.join(run, side)).tensors:
            n += int(np.asarray(t.load_raw()).size)
    return n


def bench_scale(tensors: int, repeat: int, tmp: str, nameless: bool = False) -> None:
    """``triage`` (inputs beside the cfg, scan, align, measure, diagnose; no report) on a project
    with `tensors` per side, against reading its files, the two taking turns (best of `repeat`)."""
    from nnie_lsp.triage.pipeline import TriageRequest, triage

    t0 = time.perf_counter()
    cfg = scale_project(tmp, tensors, nameless)
    gen = time.perf_counter() - t0
    here = os.getcwd()
    os.chdir(os.path.dirname(cfg))
    try:
        best_read = best_run = cpu_read = cpu_run = float("inf")
        stages: dict[str, float] = {}
        for _ in range(repeat):
            c0, t0 = time.process_time(), time.perf_counter()
            values = read_all(cfg)
            best_read = min(best_read, time.perf_counter() - t0)
            cpu_read = min(cpu_read, time.process_time() - c0)
            clock = StageClock()
            c0, t0 = time.process_time(), time.perf_counter()
            result = triage(TriageRequest(cfg=cfg), progress=clock)
            t1 = time.perf_counter()
            cpu_run = min(cpu_run, time.process_time() - c0)
            if t1 - t0 < best_run:
                best_run = t1 - t0
                marks = sorted((at, stage) for stage, at in clock.first.items() if stage in ("align", "measure",
                                                                                             "diagnose"))
                stages = {stage: (marks[k + 1][0] if k + 1 < len(marks) else t1) - at
                          for k, (at, stage) in enumerate(marks)}
    finally:
        os.chdir(here)
    rows = [r for r in result.rows if r.metrics is not None]
    by_name = sum(1 for r in rows if r.matched_by in ("name", "graph"))
    kind = "nameless sim (seg0_layer<node>)" if nameless else "named (mapper_quant)"
    split = ", ".join(f"{k} {v:.2f} s" for k, v in stages.items())
    print(f"scale        {tensors:,} tensors per side, {kind}, {values:,} values; generated in {gen:.0f} s | "
          f"read the files {best_read:.2f} s | triage {best_run:.2f} s ({split}) | ratio {best_run / best_read:.2f}x "
          f"wall (goal <= 2x), CPU {cpu_read:.2f} s vs {cpu_run:.2f} s = {cpu_run / cpu_read:.2f}x | "
          f"{len(rows):,} pairs ({by_name:,} by name), unmatched {len(result.unmatched_ref)}+{len(result.unmatched_sim)}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (CI smoke run)")
    ap.add_argument("--values", type=int, default=None, help="values per parsing benchmark file")
    ap.add_argument("--size-gb", type=float, default=None, help="size of the generated dump set for the memory run")
    ap.add_argument("--repeat", type=int, default=None, help="rounds per timing (the best is kept; default 3)")
    ap.add_argument("--no-memory", action="store_true")
    ap.add_argument("--tensors", type=int, default=None,
                    help="tensors per side of the scale rows (default 10,000; --quick 1,000)")
    ap.add_argument("--only-scale", action="store_true", help="run the scale rows alone")
    ap.add_argument("--only-fast-readers", action="store_true",
                    help="run the fast-readers rows alone: a whole compare with and without the fast text readers")
    args = ap.parse_args(argv)
    n = args.values or (200_000 if args.quick else 2_000_000)
    repeat = args.repeat or 3
    size_gb = args.size_gb if args.size_gb is not None else (0.05 if args.quick else 0.25)
    tensors = args.tensors or (1_000 if args.quick else 10_000)
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, {os.cpu_count()} CPU(s)")
    if args.only_fast_readers:
        with tempfile.TemporaryDirectory() as tmp:
            bench_fast_readers(size_gb, repeat, tmp)
        return 0
    if not args.only_scale:
        with tempfile.TemporaryDirectory() as tmp:
            bench_text(n, repeat, tmp)
            bench_hex(n, repeat, tmp)
    for nameless in (False, True):
        with tempfile.TemporaryDirectory() as tmp:
            bench_scale(tensors, repeat, tmp, nameless)
    if args.only_scale:
        return 0
    if not args.no_memory:
        with tempfile.TemporaryDirectory() as tmp:
            bench_memory(size_gb, tmp)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Whole-process start-up of `nnie-lint` against bare Python / protobuf processes, same run.

    .venv/bin/python benchmarks/bench_startup.py [--repeat 21] [--layers 2000] [--tree DIR]

``--tree DIR`` measures another checkout's ``nnie_lsp`` (put first on ``PYTHONPATH``), e.g. the
figures before a change: ``git archive COMMIT | tar -x -C /tmp/before`` then ``--tree /tmp/before``.

The development venv (``make install``) is an *editable* install: its ``site`` start-up imports
setuptools' editable finder (about 7 ms here) before any command runs.  A pre-commit hook gets a
plain ``pip install .`` instead, so the same commands are also timed in such a copy (unless
``--no-installed``): a venv in the temporary folder holding a non-editable install of this
checkout (``pip install --no-deps --target``) and a ``.pth`` line naming the development venv's
site-packages for protobuf (a path line: none of that folder's own ``.pth`` files run).

Goals, all whole processes, measured here and never by a timed test:

1. ``nnie-lint one.prototxt`` (one layer) within 50 ms;
2. ``nnie-lint big.prototxt`` (the 2,000-layer net ``benchmarks/bench_lint.py`` lints) within
   1.0x a bare ``text_format.Parse`` process: ``python -c`` importing protobuf's ``text_format``
   and the generated ``caffe_pb2`` (loaded by file path, no nnie_lsp package code) and parsing
   the same file;
3. ``nnie-lint one.cfg`` (a cfg with its one-layer prototxt, linted as a project) within 1.6x a
   bare ``import google.protobuf.text_format`` process;
4. ``nnie-lint one.prototxt`` whose folder's parent holds two small cfgs that do not name it no
   slower than the same prototxt without them (1.0x; finding the cfg that names a
   prototxt looks for the prototxt's name in each cfg's text before parsing it).

Every command runs ``--repeat`` times, the commands interleaved round-robin so a busy machine
slows them alike; medians and minimums of wall time and the median CPU time (user + system, less
sensitive to a busy machine) are printed, and the ratios use the medians.  Bytecode is
compiled first (a run without ``PYTHONDONTWRITEBYTECODE``), as it is after the first run of an
installed copy.  The floor (``python -c pass``) is printed too: the interpreter and ``site``
(the editable install's path finder) cost the same to every command.  Exit status is always 0.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, ROOT)

from nnie_lsp.testing.synth_nets import generate_big_prototxt  # noqa: E402

ONE_LAYER = """name: "one"
input: "data"
input_shape { dim: 1 dim: 3 dim: 8 dim: 8 }
layer { name: "conv" type: "Convolution" bottom: "data" top: "conv"
  convolution_param { num_output: 4 kernel_size: 3 } }
"""

BARE_PARSE = """
import importlib.util, sys
from google.protobuf import text_format
spec = importlib.util.spec_from_file_location("caffe_pb2", sys.argv[1])
caffe_pb2 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(caffe_pb2)
with open(sys.argv[2], encoding="utf-8") as fh:
    text_format.Parse(fh.read(), caffe_pb2.NetParameter())
"""

ONE_CFG = """[prototxt_file] ./one.prototxt
[net_type] 0
[compile_mode] 0
[image_type] 0
[RGB_order] BGR
[norm_type] 0
"""

IMPORT_ONLY = "python -c 'import text_format'"
HEAVY = ("numpy", "rich", "lark", "lark.load_grammar", "tomllib", "nnie_lsp.readers.mapper.log", "nnie_lsp.readers.cfg.reader",
         "argparse", "json")

PROBE = """
import sys, runpy
sys.argv = ["nnie-lint"] + sys.argv[1:]
try:
    runpy.run_module("nnie_lsp.cli.lint", run_name="__main__")
except SystemExit:
    pass
print("\\nLOADED " + " ".join(m for m in %r if m in sys.modules), file=sys.stderr)
""" % (HEAVY,)


def _env(tree: str | None = None) -> dict:
    env = dict(os.environ)
    if tree:
        env["PYTHONPATH"] = os.path.abspath(tree) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("NO_COLOR", None)
    return env


def _lint_command() -> list[str]:
    script = os.path.join(os.path.dirname(sys.executable), "nnie-lint")
    return [script] if os.path.exists(script) else [sys.executable, "-m", "nnie_lsp.cli.lint"]


def installed_python(tmp: str) -> str | None:
    """A venv holding a non-editable install of ROOT (see the module docstring); None if the
    build fails (the reason is printed)."""
    import sysconfig

    venv = os.path.join(tmp, "installed-venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    python = os.path.join(venv, "bin", "python")
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                           "--target", site, ROOT], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(f"installed copy: pip install failed, not measured:\n{done.stderr[-600:]}")
        return None
    with open(os.path.join(site, "dev-venv-packages.pth"), "w", encoding="utf-8") as fh:
        fh.write(sysconfig.get_paths()["purelib"] + "\n")
    return python


# what the console script `nnie-lint` does
CONSOLE_SCRIPT = "import sys; from nnie_lsp.cli.console import nnie_lint; sys.exit(nnie_lint())"


CPU_TIMES: dict[str, list[float]] = {}  # user + system seconds of each run (less sensitive to a busy machine)


def run_series(commands: dict[str, list[str]], repeat: int, env: dict, cwd: str) -> dict[str, list[float]]:
    import resource

    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, cmd in commands.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False, cwd=cwd)
            times[name].append(time.perf_counter() - t0)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            CPU_TIMES.setdefault(name, []).append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return times


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=21)
    ap.add_argument("--layers", type=int, default=2000)
    ap.add_argument("--tree", help="measure the nnie_lsp of this checkout instead")
    ap.add_argument("--no-installed", action="store_true", help="skip the non-editable installed copy")
    args = ap.parse_args(argv)
    env = _env(args.tree)
    caffe_pb2 = os.path.join(ROOT, "nnie_lsp", "readers", "prototxt", "caffe_pb2.py")
    lint = _lint_command()
    with tempfile.TemporaryDirectory(prefix="nnie-bench-startup-") as tmp:
        one = os.path.join(tmp, "one.prototxt")
        big = os.path.join(tmp, "big.prototxt")
        with open(one, "w", encoding="utf-8") as fh:
            fh.write(ONE_LAYER)
        with open(big, "w", encoding="utf-8") as fh:
            fh.write(generate_big_prototxt(args.layers))
        # a cfg project in its own folder (a cfg beside one.prototxt would make that lint load the
        # cfg side too): goal 3
        project = os.path.join(tmp, "project")
        os.makedirs(project)
        with open(os.path.join(project, "one.prototxt"), "w", encoding="utf-8") as fh:
            fh.write(ONE_LAYER)
        project_cfg = os.path.join(project, "one.cfg")
        with open(project_cfg, "w", encoding="utf-8") as fh:
            fh.write(ONE_CFG)
        # goal 4: the same one-layer prototxt in a folder whose parent holds two small mapper cfgs
        # naming other nets (cfgs_naming looks in the prototxt's folder and the one above)
        crowded = os.path.join(tmp, "crowded")
        os.makedirs(os.path.join(crowded, "net"))
        crowded_one = os.path.join(crowded, "net", "one.prototxt")
        with open(crowded_one, "w", encoding="utf-8") as fh:
            fh.write(ONE_LAYER)
        for name in ("a", "b"):
            with open(os.path.join(crowded, f"{name}.cfg"), "w", encoding="utf-8") as fh:
                fh.write(ONE_CFG.replace("./one.prototxt", f"./other_{name}.prototxt"))
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            IMPORT_ONLY: [sys.executable, "-c", "import google.protobuf.text_format"],
            "bare text_format.Parse (big)": [sys.executable, "-c", BARE_PARSE, caffe_pb2, big],
            "nnie-lint one.prototxt": lint + ["--exit-zero", one],
            "nnie-lint big.prototxt": lint + ["--exit-zero", big],
            "nnie-lint one.cfg (+ its prototxt)": lint + ["--exit-zero", project_cfg],
            "nnie-lint one.prototxt, 2 cfgs above": lint + ["--exit-zero", crowded_one],
        }
        installed = None if args.no_installed or args.tree else installed_python(tmp)
        if installed:
            commands.update({
                "installed: python -c pass": [installed, "-c", "pass"],
                "installed: bare text_format.Parse": [installed, "-c", BARE_PARSE, caffe_pb2, big],
                "installed: nnie-lint one.prototxt": [installed, "-c", CONSOLE_SCRIPT, "--exit-zero", one],
                "installed: nnie-lint big.prototxt": [installed, "-c", CONSOLE_SCRIPT, "--exit-zero", big],
            })
        # run in the temporary folder: `python -c` puts the working folder first on sys.path
        for cmd in commands.values():   # compile bytecode, warm the page cache
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False, cwd=tmp)
        probe = subprocess.run([sys.executable, "-c", PROBE, "--exit-zero", one], capture_output=True, text=True,
                               env=env, check=False, cwd=tmp)
        loaded = [line for line in probe.stderr.splitlines() if line.startswith("LOADED")]
        times = run_series(commands, args.repeat, env, tmp)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{os.cpu_count()} cores, load average {load:.2f}; {args.repeat} runs each, interleaved; "
          f"{args.layers}-layer net for 'big'; nnie_lsp from {args.tree or ROOT}")
    med = {name: statistics.median(ts) for name, ts in times.items()}
    cpu = {name: statistics.median(ts) for name, ts in CPU_TIMES.items()}
    for name, ts in times.items():
        print(f"  {name:38s} median {med[name] * 1e3:6.1f} ms  min {min(ts) * 1e3:6.1f} ms  "
              f"CPU median {cpu[name] * 1e3:6.1f} ms")
    print(f"nnie-lint one-layer whole process: {med['nnie-lint one.prototxt'] * 1e3:.0f} ms (goal <= 50 ms); "
          f"above the interpreter floor: {(med['nnie-lint one.prototxt'] - med['python -c pass']) * 1e3:.0f} ms, "
          f"above 'import text_format': {(med['nnie-lint one.prototxt'] - med[IMPORT_ONLY]) * 1e3:.0f} ms")
    ratio = med["nnie-lint big.prototxt"] / med["bare text_format.Parse (big)"]
    print(f"ratio nnie-lint big / bare text_format.Parse process: {ratio:.2f}x (goal <= 1.00x)")
    for label, a, b, goal in (("nnie-lint one.cfg (+ its one-layer prototxt) / bare 'import text_format' process",
                               "nnie-lint one.cfg (+ its prototxt)", IMPORT_ONLY, "1.60"),
                              ("nnie-lint one.prototxt with two unrelated cfgs in the parent folder / without",
                               "nnie-lint one.prototxt, 2 cfgs above", "nnie-lint one.prototxt", "1.00")):
        print(f"ratio {label}: {med[a] / med[b]:.2f}x wall, {cpu[a] / cpu[b]:.2f}x CPU time (goal <= {goal}x)")
    if "installed: nnie-lint one.prototxt" in med:
        one_installed = med["installed: nnie-lint one.prototxt"]
        print(f"installed copy (as pre-commit installs it): nnie-lint one-layer whole process "
              f"{one_installed * 1e3:.0f} ms (goal <= 50 ms), above its interpreter floor "
              f"{(one_installed - med['installed: python -c pass']) * 1e3:.0f} ms; big / bare text_format.Parse "
              f"{med['installed: nnie-lint big.prototxt'] / med['installed: bare text_format.Parse']:.2f}x")
    print(f"imported by a one-layer lint: {loaded[0][7:] if loaded else '(probe failed: ' + probe.stderr[-200:] + ')'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Coverage-guided fuzzing of the readers (cfg, prototxt, text-float dumps, the `.wk`) with atheris
(libFuzzer), time-boxed.

    python benchmarks/fuzz_readers.py [--reader cfg|prototxt|dump|wk|both|all] [--seconds 300] [--workdir DIR]

Not part of the test suite.  Each reader runs in its own process for ``--seconds``, seeded with
the repository's copies of the real corpus (``tests/data/cfg``, ``tests/data/prototxt``) and the
shared corpus when it is there.  One input = bytes -> ``text.decode`` (the reading path every file
takes) -> the reader, then the invariants the lint relies on:

- the reader returns (never raises: ``parse_cfg`` / ``parse_prototxt`` promise it);
- every range it reports (entries, comments, errors, nodes, layers) lies inside the document;
- the cfg's typed reading (``MapperConfig``: values, duplicates, groups per input) builds;
- the prototxt reader reports no "internal error" and only NN010/NN011/NN012; its graph builds;
- reading the same text twice gives the same result;
- text-float dumps (``--reader dump``, differential): ``parse_text_floats`` on the bytes and on the
  same bytes with a blank before every newline (which neither fast path accepts -- ``%.18e``,
  ``dumpio/fixed_e.py``, nor the mapper's six-digit ``%g``, ``dumpio/short_g.py`` -- so the general
  tokeniser reads it) give the same values (NaN in the same places, same signs, within the 2 ulp
  docs/reliability.md promises), or both a ValueError that names the source.  Seeds hold both fast forms;
  ``--dump-form g`` seeds the mapper's ``%g`` form only;
- the `.wk` (``--reader wk``, bytes straight to ``parse_wk``): a model or a ``WkError``, nothing
  else; every offset it reports inside the file; the same bytes give the same model; every
  description renders.  Seeds: the SDK's MNIST `.wk` (``tests/data/wk``) and small files of the
  test writer (``nnie_lsp.testing.wk_files``), whole.

A broken invariant is a crash: libFuzzer stops, writes the input to ``<workdir>/crash-*`` and this
script prints it.  Every crash found becomes a regression test in ``tests/test_hostile_readers.py``
(and a fix in the reader).  The summary gives executions, time, coverage (libFuzzer's ``cov``
edges and ``ft`` features over the instrumented ``nnie_lsp`` modules) and crashes per reader.

Under atheris the dump target's memory grows by about 1 KB per execution (3.2 M executions reached
libFuzzer's 3 GB limit, reported as ``dump-oom-*``); the same checks in a plain loop stay at 41 MB
over 600,000 runs, so the growth is the instrumented numpy comparisons, not the reader.  Keep dump
runs under about 250 s (or raise ``-rss_limit_mb``); an ``oom`` file from such a run is not a finding.

Without atheris (``pip install atheris``; wheels exist for CPython 3.8-3.11 on Linux and macOS)
``--no-atheris`` runs a plain random-mutation loop over the same seeds and checks: no coverage
guidance, but the same invariants and the same report.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nnie_lsp.testing.shared_files import corpus_dir  # noqa: E402

SEED_DIRS = {
    "cfg": [ROOT / "tests" / "data" / "cfg", ROOT / "tests" / "data" / "rules"],
    "prototxt": [ROOT / "tests" / "data" / "prototxt"],
}
SEED_DIRS["dump"] = []   # generated: see _dump_seeds
SEED_DIRS["wk"] = []     # generated: see _wk_seeds
SEED_SUFFIXES = {"cfg": (".cfg",), "prototxt": (".prototxt",), "dump": (".float",), "wk": (".wk",)}
SHARED = corpus_dir("real")  # NNIE_SHARED, else the copy in tests/data/shared
MAX_LEN = {"cfg": 4096, "prototxt": 8192, "dump": 16384, "wk": 1 << 20}


# ---------------------------------------------------------------- the checks (also used by the fallback)

def _inside(index, rng, what: str) -> None:
    for pos in (rng.start, rng.end):
        if not 0 <= pos.line < index.line_count:
            raise AssertionError(f"{what}: line {pos.line} outside 0..{index.line_count - 1}")
        if not 0 <= pos.character <= len(index.line_text(pos.line)):
            raise AssertionError(f"{what}: column {pos.character} past line {pos.line}")
    if index.offset(rng.start) > index.offset(rng.end):
        raise AssertionError(f"{what}: range ends before it starts")


def check_cfg(data: bytes, parse_cfg, decode, model=None, sniff=None) -> None:
    text = decode(data).text
    doc = parse_cfg(text)
    index = doc.line_index
    for entry in doc.entries:
        for name in ("key_range", "bracket_range", "value_range", "raw_value_range", "line_range"):
            _inside(index, getattr(entry, name), f"entry {entry.key!r} {name}")
        if entry.inline_comment_range is not None:
            _inside(index, entry.inline_comment_range, "inline comment")
        key_start = index.offset(entry.key_range.start)
        if text[key_start:key_start + len(entry.key)] != entry.key:
            raise AssertionError(f"key range does not hold the key {entry.key!r}")
    for comment in doc.comments:
        _inside(index, comment.range, "comment")
    for error in doc.errors:
        _inside(index, error.range, "syntax error")
        if not error.message:
            raise AssertionError("syntax error without a message")
    again = parse_cfg(text)
    if (again.entries, again.comments, again.errors) != (doc.entries, doc.comments, doc.errors):
        raise AssertionError("two readings of one text differ")
    if model is not None:  # the typed reading every rule starts from: values, groups per input
        config = model(doc)
        config.checks, config.duplicates, config.groups, config.unknown_entries, config.foreign_entries  # noqa: B018
        config.missing_required(), config.per_input_mismatches()
        for k in range(config.input_count + 1):
            config.group(k)
    if sniff is not None:
        sniff(text)


def check_prototxt(data: bytes, parse_prototxt, build_graph, decode) -> None:
    text = decode(data).text
    doc = parse_prototxt(text)
    index = doc.line_index
    for error in doc.errors:
        if error.message.startswith("internal error"):
            raise AssertionError(f"reader internal error: {error.message}")
        if error.code not in ("NN010", "NN011", "NN012"):
            raise AssertionError(f"unexpected code {error.code}")
        _inside(index, error.range, f"{error.code} range")
    for node in doc.walk():
        _inside(index, node.range, "node")
        _inside(index, node.name_range, "node name")
        node.value_text  # noqa: B018 - must not raise
    for layer in doc.layers:
        for rng in (layer.name_range, layer.type_range):
            if rng is not None:
                _inside(index, rng, "layer")
        layer.bottoms, layer.tops, layer.type  # noqa: B018
    build_graph(doc)
    again = parse_prototxt(text)
    if [(e.code, e.message, e.range) for e in again.errors] != [(e.code, e.message, e.range) for e in doc.errors]:
        raise AssertionError("two readings of one text differ")


ULPS = 2  # the fast path's documented accuracy: within 2 ulp of a correctly rounded parse (docs/reliability.md)


def _same_floats(a, b) -> bool:
    """Same length, NaN in the same places, signs equal, values within :data:`ULPS` ulp."""
    import numpy as np

    if a.shape != b.shape:
        return False
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    if not np.array_equal(nan_a, nan_b):
        return False
    a, b = a[~nan_a], b[~nan_b]
    if not np.array_equal(np.signbit(a), np.signbit(b)):
        return False
    exact = a == b
    with np.errstate(invalid="ignore", over="ignore"):
        near = np.abs(a - b) <= ULPS * np.spacing(np.maximum(np.abs(a), np.abs(b)))
    return bool(np.all(exact | near))


def check_dump(data: bytes, parse_text_floats) -> None:
    def read(raw: bytes):
        try:
            return parse_text_floats(raw, path="<fuzz>", threads=1)
        except ValueError as exc:
            if "<fuzz>" not in str(exc):
                raise AssertionError(f"error without the source's name: {exc}") from None
            return exc

    fast, general = read(data), read(data.replace(b"\n", b" \n"))
    if isinstance(fast, ValueError) or isinstance(general, ValueError):
        if not (isinstance(fast, ValueError) and isinstance(general, ValueError)):
            raise AssertionError(f"one reading failed, the other did not: {fast!r} / {general!r}"[:400])
        return
    if not _same_floats(fast, general):
        raise AssertionError(f"fast path and general tokeniser differ: {fast[:8]} / {general[:8]}")


def check_wk(data: bytes, parse_wk, error_type, describe) -> None:
    try:
        model = parse_wk(data, "<fuzz>.wk")
    except error_type as exc:
        if exc.offset is not None and not 0 <= exc.offset <= len(data):
            raise AssertionError(f"error offset {exc.offset} outside the file ({len(data)} bytes)") from None
        return
    for damage in model.damage:
        if not 0 <= damage.offset <= len(data) or not damage.message:
            raise AssertionError(f"damage {damage} outside the file or without a message")
    for node in model.nodes:
        if node.offset + 64 > len(data):
            raise AssertionError(f"node record at {node.offset} past the end")
    if parse_wk(data, "<fuzz>.wk") != model:
        raise AssertionError("two readings of one file differ")
    describe(model)


def _describe_wk(model) -> None:
    import json

    from nnie_lsp.readers.wk.describe import lens_title, render_html, render_text, summary, to_json

    render_text(model, records=True), render_html(model), summary(model), lens_title(model)
    json.dumps(to_json(model, records=True))


# ---------------------------------------------------------------- seeds

def _wk_seeds() -> list[Path]:
    from nnie_lsp.testing.wk_files import Node, simple_spec, write_wk

    tmp = Path(tempfile.mkdtemp(prefix="nnie-fuzz-wk-"))
    out = [ROOT / "tests" / "data" / "wk" / "Strand2013__NNIE-lite__inst_mnist_cycle.wk"]
    for name, spec in (("small-8", simple_spec([Node("data", 16, 16, 3)], [Node("o" * 40, 4, 4, 8)])),
                       ("vector-16", simple_spec([Node("data", 8, 8, 1)], [Node("p", 1, 1, 10, vector=True)], bits="16-bit")),
                       ("yuv-mixed", simple_spec([Node("img", 12, 16, 3, image_type=3)], [Node("a", 3, 4, 2)], bits="mixed"))):
        path = tmp / f"{name}.wk"
        path.write_bytes(write_wk(spec))
        out.append(path)
    return out


DUMP_FORMS = ("all", "e", "g")
DUMP_FORM = os.environ.get("NNIE_FUZZ_DUMP_FORM", "all")


def _mapper_g_seeds(tmp: Path) -> list[Path]:
    """Small nnie_mapper dequantized dumps in their real form (C++ stream output of float32, ``%g``
    with six digits): grid values, every line shape (``0``, ``-0``, ``0.0743254``, ``0.000123457``,
    ``1.5e-05``, ``-1.23457e+06``, ``inf``, ``-nan``), CRLF, no final newline, a header line."""
    import numpy as np

    from nnie_lsp.readers.dumpio.writers import cpp_stream_text

    rng = np.random.default_rng(1)
    grid = (2.0 ** (-rng.integers(0, 128, 48) / 16)).astype(np.float32)
    grid[::3] = 0
    grid[1::5] *= -1
    shapes = np.float32([0.0, -0.0, 0.25, 123456.0, 1234567.0, 1.5e-05, -7.62939e-06, 0.353553, 0.0743254,
                         -0.000123457, 12345.6, np.inf, -np.inf, np.nan, -np.nan, 1e-45, 3.4028235e38])
    out = []
    for name, values in (("grid", grid), ("shapes", shapes)):
        path = tmp / f"{name}-g6.float"
        path.write_bytes(cpp_stream_text(values))
        out.append(path)
    text = (tmp / "shapes-g6.float").read_bytes()
    for name, data in (("g6-crlf", text.replace(b"\n", b"\r\n")), ("g6-no-final-newline", text.rstrip(b"\n")),
                       ("g6-header", b"data 4 1 2 2 1\n" + text)):
        path = tmp / f"{name}.float"
        path.write_bytes(data)
        out.append(path)
    return out


def _dump_seeds() -> list[Path]:
    """Small RuyiStudio / numpy ``savetxt`` dumps: ``%.18e`` with both signs, 2- and 3-digit
    exponents, zero, -0.0, subnormals, CRLF, no final newline, a MindSpore-like header line; and the
    mapper's six-digit ``%g`` form (:func:`_mapper_g_seeds`)."""
    import numpy as np

    tmp = Path(tempfile.mkdtemp(prefix="nnie-fuzz-dumps-"))
    if DUMP_FORM == "g":
        return _mapper_g_seeds(tmp)
    rng = np.random.default_rng(0)
    values = {
        "mixed": rng.normal(0, 50, 64) * rng.choice([1e-3, 1, 1e3], 64),
        "edges": np.array([0.0, -0.0, 5e-324, 1e-310, -1.7976931348623157e308, 1e-100, 3.4028234663852886e38]),
        "small": np.array([0.5, -0.25, 1.0]),
    }
    out = []
    for name, v in values.items():
        for fmt in ("%.18e", "%.17e", "%.7g"):
            path = tmp / f"{name}-{fmt[1:].replace('.', '')}.float"
            np.savetxt(path, v, fmt=fmt)
            out.append(path)
    crlf = tmp / "crlf.float"
    crlf.write_bytes((tmp / "small-18e.float").read_bytes().replace(b"\n", b"\r\n"))
    bare = tmp / "no-final-newline.float"
    bare.write_bytes((tmp / "small-18e.float").read_bytes().rstrip(b"\n"))
    header = tmp / "header.float"
    header.write_bytes(b"data 4 1 2 2 1\n" + (tmp / "small-18e.float").read_bytes())
    out += [crlf, bare, header]
    return out if DUMP_FORM == "e" else out + _mapper_g_seeds(tmp)


def seed_files(reader: str) -> list[Path]:
    if reader == "dump":
        return _dump_seeds()
    if reader == "wk":
        return _wk_seeds()
    found: list[Path] = []
    dirs = list(SEED_DIRS[reader]) + ([SHARED] if SHARED.is_dir() else [])
    for folder in dirs:
        if folder.is_dir():
            found += sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in SEED_SUFFIXES[reader])
    if reader == "cfg":  # rule cases hold many small cfgs as TOML strings
        found += _case_cfgs()
    return found


def _case_cfgs() -> list[Path]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    out = []
    tmp = Path(tempfile.mkdtemp(prefix="nnie-fuzz-case-cfgs-"))
    for case_file in sorted((ROOT / "tests" / "rules" / "cases").glob("*.toml")):
        for i, case in enumerate(tomllib.loads(case_file.read_text(encoding="utf-8")).get("case", [])):
            if "cfg" in case:
                path = tmp / f"{case_file.stem}-{i}.cfg"
                path.write_text(case["cfg"], encoding="utf-8")
                out.append(path)
    return out


def _net_pieces(text: str, layers_per_piece: int = 3) -> list[str]:
    """Small valid-looking nets cut from a big one (its header, then a few layers): small inputs
    run fast, and libFuzzer keeps the ones that reach new code."""
    starts = [m.start() for m in re.finditer(r"(?m)^\s*layers?\s*\{", text)]
    if not starts:
        return []
    header = text[:starts[0]][:1024]
    bounds = starts + [len(text)]
    return [header + text[bounds[i]:bounds[min(i + layers_per_piece, len(starts))]]
            for i in range(0, len(starts), layers_per_piece)]


def seed_dir(reader: str, workdir: Path) -> Path:
    target = workdir / f"seeds-{reader}"
    target.mkdir(parents=True, exist_ok=True)
    for i, path in enumerate(seed_files(reader)):
        shutil.copyfile(path, target / f"{i:03d}-{path.name}")
        if reader == "prototxt":
            for k, piece in enumerate(_net_pieces(path.read_text(encoding="utf-8", errors="replace"))):
                (target / f"{i:03d}-{k:03d}-piece.prototxt").write_text(piece, encoding="utf-8")
    return target


# ---------------------------------------------------------------- atheris child

def child(reader: str, seconds: int, workdir: Path) -> None:
    import atheris

    with atheris.instrument_imports(include=["nnie_lsp", "lark"] if reader == "cfg" else ["nnie_lsp"]):
        from nnie_lsp.readers.cfg.model import MapperConfig
        from nnie_lsp.readers.cfg.reader import looks_like_mapper_cfg, parse_cfg
        from nnie_lsp.readers.prototxt.graph import build_graph
        from nnie_lsp.readers.prototxt.reader import parse_prototxt
        from nnie_lsp.core.text import decode
        from nnie_lsp.readers.dumpio.readers import parse_text_floats
        from nnie_lsp.readers.wk.reader import WkError, parse_wk

    if reader == "wk":
        def one(data: bytes) -> None:
            check_wk(data, parse_wk, WkError, _describe_wk)
    elif reader == "cfg":
        def one(data: bytes) -> None:
            check_cfg(data, parse_cfg, decode, MapperConfig.from_document, looks_like_mapper_cfg)
    elif reader == "dump":
        def one(data: bytes) -> None:
            check_dump(data, parse_text_floats)
    else:
        def one(data: bytes) -> None:
            check_prototxt(data, parse_prototxt, build_graph, decode)

    corpus = workdir / f"corpus-{reader}"
    corpus.mkdir(parents=True, exist_ok=True)
    args = [sys.argv[0], str(corpus), str(seed_dir(reader, workdir)), f"-max_total_time={seconds}",
            f"-max_len={MAX_LEN[reader]}", f"-artifact_prefix={workdir}/{reader}-", "-timeout=20",
            "-rss_limit_mb=3072", "-print_final_stats=1"]
    atheris.Setup(args, one)
    atheris.Fuzz()


_DONE = re.compile(r"#(\d+)\s+DONE\s+cov: (\d+) ft: (\d+) corp: (\d+)/")
_PULSE = re.compile(r"#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)/")
_RUNS = re.compile(r"Done (\d+) runs in (\d+) second")


def run_reader(reader: str, seconds: int, workdir: Path) -> dict:
    started = time.monotonic()
    log = workdir / f"{reader}.log"
    with open(log, "w") as handle:
        proc = subprocess.run([sys.executable, __file__, "--child", reader, "--seconds", str(seconds),
                               "--workdir", str(workdir)], stdout=handle, stderr=subprocess.STDOUT)
    text = log.read_text(errors="replace")
    done = _DONE.findall(text) or _PULSE.findall(text)
    runs = _RUNS.search(text)
    last = done[-1] if done else ("0", "0", "0", "0")
    crashes = sorted(str(p) for p in workdir.glob(f"{reader}-crash-*")) + \
        sorted(str(p) for p in workdir.glob(f"{reader}-timeout-*")) + sorted(str(p) for p in workdir.glob(f"{reader}-oom-*"))
    return {"reader": reader, "executions": int(runs.group(1)) if runs else int(last[0]),
            "seconds": round(time.monotonic() - started, 1), "cov": int(last[1]), "ft": int(last[2]),
            "corpus": int(last[3]), "seeds": len(seed_files(reader)), "exit": proc.returncode,
            "crashes": crashes, "log": str(log)}


# ---------------------------------------------------------------- fallback without atheris

_TOKENS = [b"{", b"}", b"[", b"]", b":", b"\n", b"\r\n", b"#", b'"', b"'", b"\\", b"\x00", b"\xef\xbb\xbf",
           b"\xff", b"layer", b"name", b"type", b"bottom", b"top", b"inf", b"-nan", b"0x7fffffffffffffff",
           b"1e999", b"\xe4\xb8\xad", b"\t", b" # ", b"[image_list]", b"[norm_type] 9", b"e-05", b"e+38", b"0.0",
           b".", b"-", b"-0\n", b"0.000123457\n"]


def _mutate(data: bytes, rnd: random.Random, pool: list[bytes]) -> bytes:
    for _ in range(rnd.randint(1, 6)):
        op = rnd.randrange(5)
        at = rnd.randint(0, len(data))
        if op == 0 and data:
            data = data[:at] + data[at + rnd.randint(1, 16):]
        elif op == 1:
            data = data[:at] + rnd.choice(_TOKENS) + data[at:]
        elif op == 2 and data:
            data = data[:at] + bytes([rnd.randrange(256)]) + data[at + 1:]
        elif op == 3:
            other = rnd.choice(pool)
            a = rnd.randint(0, len(other))
            data = data[:at] + other[a:a + rnd.randint(1, 200)] + data[at:]
        elif data:
            b = min(len(data), at + rnd.randint(1, 64))
            data = data[:b] + data[at:b] + data[b:]
    return data


def fallback(reader: str, seconds: int, workdir: Path) -> dict:
    from nnie_lsp.readers.cfg.model import MapperConfig
    from nnie_lsp.readers.cfg.reader import looks_like_mapper_cfg, parse_cfg
    from nnie_lsp.readers.prototxt.graph import build_graph
    from nnie_lsp.readers.prototxt.reader import parse_prototxt
    from nnie_lsp.core.text import decode
    from nnie_lsp.readers.dumpio.readers import parse_text_floats
    from nnie_lsp.readers.wk.reader import WkError, parse_wk

    pool = [p.read_bytes()[:MAX_LEN[reader]] for p in seed_files(reader)] or [b""]
    rnd = random.Random(0)
    started = time.monotonic()
    runs = 0
    crashes = []
    while time.monotonic() - started < seconds:
        data = _mutate(rnd.choice(pool), rnd, pool)
        runs += 1
        try:
            if reader == "cfg":
                check_cfg(data, parse_cfg, decode, MapperConfig.from_document, looks_like_mapper_cfg)
            elif reader == "wk":
                check_wk(data, parse_wk, WkError, _describe_wk)
            elif reader == "dump":
                check_dump(data, parse_text_floats)
            else:
                check_prototxt(data, parse_prototxt, build_graph, decode)
        except Exception as exc:  # noqa: BLE001 - a finding
            path = workdir / f"{reader}-crash-{runs}"
            path.write_bytes(data)
            crashes.append(f"{path} ({type(exc).__name__}: {exc})")
            break
    return {"reader": reader, "executions": runs, "seconds": round(time.monotonic() - started, 1), "cov": None,
            "ft": None, "corpus": None, "seeds": len(pool), "exit": 1 if crashes else 0, "crashes": crashes, "log": ""}


# ---------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> int:
    global DUMP_FORM
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reader", choices=("cfg", "prototxt", "dump", "wk", "both", "all"), default="all",
                        help="both = cfg and prototxt; all = the four (default)")
    parser.add_argument("--seconds", type=int, default=300, help="time per reader (default 300)")
    parser.add_argument("--workdir", help="corpus, logs and crash files (default: a new temporary folder)")
    parser.add_argument("--no-atheris", action="store_true", help="random mutation without coverage guidance")
    parser.add_argument("--dump-form", choices=DUMP_FORMS, default=DUMP_FORM,
                        help="dump seeds: both fast forms (all), %%.18e only (e), the mapper's %%g only (g)")
    parser.add_argument("--child", choices=("cfg", "prototxt", "dump", "wk"), help=argparse.SUPPRESS)
    args, _rest = parser.parse_known_args(argv)
    DUMP_FORM = os.environ["NNIE_FUZZ_DUMP_FORM"] = args.dump_form  # the child reads it too
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="nnie-fuzz-"))
    workdir.mkdir(parents=True, exist_ok=True)
    if args.child:
        child(args.child, args.seconds, workdir)
        return 0
    use_atheris = not args.no_atheris
    if use_atheris:
        try:
            import atheris  # noqa: F401
        except ImportError:
            print("atheris is not installed (pip install atheris): random mutation without coverage instead",
                  file=sys.stderr)
            use_atheris = False
    readers = {"both": ("cfg", "prototxt"), "all": ("cfg", "prototxt", "dump", "wk")}.get(args.reader, (args.reader,))
    results = [(run_reader if use_atheris else fallback)(r, args.seconds, workdir) for r in readers]
    print(f"fuzzing {'with atheris (libFuzzer, coverage-guided)' if use_atheris else 'without coverage guidance'}; "
          f"work folder {workdir}")
    print(f"{'reader':9} {'executions':>11} {'seconds':>8} {'exec/s':>7} {'cov':>6} {'ft':>7} {'corpus':>7} "
          f"{'seeds':>6}  crashes")
    for r in results:
        rate = r["executions"] / r["seconds"] if r["seconds"] else 0
        print(f"{r['reader']:9} {r['executions']:>11} {r['seconds']:>8} {rate:>7.0f} {r['cov'] or '-':>6} "
              f"{r['ft'] or '-':>7} {r['corpus'] or '-':>7} {r['seeds']:>6}  {len(r['crashes'])}")
        for crash in r["crashes"]:
            print(f"  crash input: {crash}")
            if use_atheris:
                print(f"  log: {r['log']}")
    return 1 if any(r["crashes"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())

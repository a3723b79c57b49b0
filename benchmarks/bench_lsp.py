"""Keystroke-to-diagnostics latency of nnie-lsp on the 2,000-layer prototxt (~30k lines).

A real stdio client (pygls) starts ``python -m nnie_lsp`` with push diagnostics, opens the file and
makes ~30 edits, each a single incremental change that makes the text unique (so no parse cache
helps) and toggles an NN011 typo.  For each edit it measures the time from sending didChange to
the publishDiagnostics of that document version.  In the same run it measures a full in-process
``project_for_file`` + ``lint_project`` of the same edited texts.  Goal: server p95 <= 1.2x engine.

    .venv/bin/python benchmarks/bench_lsp.py [--edits 30] [--layers 2000] [--burst] [--big-only]

``--burst`` adds a second series: 5 keystrokes 40 ms apart per edit (the debounce's trailing
edge), latency counted from the last keystroke.

The run is made twice: as above, then with a stored triage result for the file in
``.nnie-triage/`` (a row per layer, some of them low, and ``_hp`` findings with fixes), which the
server loads when the file opens and carries over to every edited text (stale marks, positions
and fixes).  Same goal for both: a stored result must not make typing slower than the goal.

Then the big-buffer rows: the time from opening another file (the example project's prototxt,
a unique text each time) to its diagnostics, alone and with a big buffer in the same server: a
20 MB prototxt buffer open (past the 8 MiB bound: NN903 at once), the same buffer opened just
before the file, and a 3 MB prototxt (within the bound: linted in the server's child process)
opened just before it.  Goal: with the 20 MB buffer open, within 1.2x the time alone.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

from nnie_lsp.lint import lint_project, project_for_file
from nnie_lsp.project.project import DiskProvider
from nnie_lsp.testing.synth_nets import generate_big_prototxt
from nnie_lsp.project.settings import LintSettings


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def edited_line(base_lines: list[str], i: int, n: int) -> tuple[int, str]:
    """Edit i, keystroke n: the line changed and its new content (a unique comment; an NN011
    typo field on every second edit), on one line so undoing it is one range."""
    line = 12 + (i % 7) * 3
    content = base_lines[line] + (f' botom: "t{i}"' if i % 2 else "") + f"  # edit {i}.{n}"
    return line, content


def store_triage_result(path: str, text: str) -> int:
    """A stored triage result for `path` as the server writes one; the number of findings."""
    from nnie_lsp.project.project import cached_prototxt
    from nnie_lsp.triage import store

    doc, _graph = cached_prototxt(text, path)
    layers = [layer for layer in doc.layers if layer.name]
    rows = [{"name": layer.name, "blob": layer.name, "cosine": 0.999 - 0.0001 * i,
             "status": "low" if i % 50 == 49 else "ok"} for i, layer in enumerate(layers)]
    findings = []
    for rank, layer in enumerate(layers[10::200], 1):
        start, end = layer.name_range.start, layer.name_range.end
        place = {"path": path, "line": start.line + 1, "column": start.character + 1,
                 "end_line": end.line + 1, "end_column": end.character + 1}
        findings.append({"code": "T204", "severity": "info", "message": f"`_hp` candidate #{rank}", "layer": layer.name,
                         **place, "fix": {"applicability": "unsafe", "message": f"Rename {layer.name}",
                                          "edits": [{**place, "new_text": f'"{layer.name}_hp"'}]}})
    result = {"schema_version": 2, "tool": "nnie-triage", "case": 2, "next_step": 3,
              "verdict": "quantization error (case 2)", "first_divergence": layers[49].name,
              "thresholds": {"good": 0.99, "decay_end": 0.95, "middle_dip": 0.9, "data_layer": 0.999},
              "inputs": {"working_directory": os.path.dirname(path)}, "layers": rows, "findings": findings}
    record = store.new_record(path, result, cfg=None, prototxt=path, inputs={}, texts={path: text})
    store.save(record, text="Verdict: case 2\n")
    return len(findings)


async def run(args, with_triage: bool = False) -> int:
    text = generate_big_prototxt(args.layers)
    tmp = tempfile.mkdtemp(prefix="nnie-bench-")
    path = os.path.join(tmp, "big.prototxt")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    uri = from_fs_path(path)
    base_lines = text.split("\n")
    print(f"file: {len(base_lines)} lines, {len(text) / 1024:.0f} KB, {args.layers} layers")
    if with_triage:
        print(f"with a stored triage result: {store_triage_result(path, text)} findings with fixes, "
              f"a row per layer")

    client = LanguageClient("bench", "1")
    published: dict[int, float] = {}
    waiters: dict[int, asyncio.Future] = {}

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diag(params: lsp.PublishDiagnosticsParams):
        if params.uri != uri or params.version is None:
            return
        published[params.version] = time.perf_counter()
        fut = waiters.pop(params.version, None)
        if fut is not None and not fut.done():
            fut.set_result(len(params.diagnostics))

    server_lint: list[float] = []

    @client.feature(lsp.WINDOW_LOG_MESSAGE)
    def on_log(params):
        if params.message.startswith("timing: lint "):
            server_lint.append(float(params.message.split()[2]) / 1000)

    await client.start_io(sys.executable, "-m", "nnie_lsp", env={**os.environ, "NNIE_LSP_TIMING": "1"})
    caps = lsp.ClientCapabilities(text_document=lsp.TextDocumentClientCapabilities(
        publish_diagnostics=lsp.PublishDiagnosticsClientCapabilities(version_support=True)))
    await client.initialize_async(lsp.InitializeParams(capabilities=caps, root_uri=from_fs_path(tmp)))
    client.initialized(lsp.InitializedParams())

    loop = asyncio.get_running_loop()
    waiters[1] = loop.create_future()
    t0 = time.perf_counter()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id="prototxt", version=1, text=text)))
    await asyncio.wait_for(waiters[1], 120)
    print(f"open -> first diagnostics: {time.perf_counter() - t0:.3f} s")

    version = 1

    def change(line: int, old: str, new: str) -> None:
        nonlocal version
        version += 1
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[lsp.TextDocumentContentChangePartial(
                range=lsp.Range(start=lsp.Position(line=line, character=0),
                                end=lsp.Position(line=line, character=len(old))), text=new)]))

    async def one_edit(i: int, burst: int = 1) -> tuple[float, int]:
        line = 12 + (i % 7) * 3
        old = base_lines[line]
        sent = 0.0
        for k in range(burst):
            _, content = edited_line(base_lines, i, k)
            if k == burst - 1:
                waiters[version + 1] = loop.create_future()
                fut = waiters[version + 1]
            sent = time.perf_counter()
            change(line, old, content)
            old = content
            if k < burst - 1:
                await asyncio.sleep(0.04)
        n = await asyncio.wait_for(fut, 120)
        lat = published[version] - sent
        waiters[version + 1] = fut2 = loop.create_future()
        change(line, old, base_lines[line])  # undo
        await asyncio.wait_for(fut2, 120)
        await asyncio.sleep(args.gap)
        return lat, n

    lats, counts = [], []
    for i in range(args.edits):
        lat, n = await one_edit(i)
        lats.append(lat)
        counts.append(n)
    burst_lats = []
    if args.burst:
        for i in range(args.edits, args.edits + 5):
            lat, _ = await one_edit(i, burst=5)
            burst_lats.append(lat)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()

    # the engine on the same texts, in this process
    eng = []
    settings = LintSettings()
    for i in range(args.edits):
        line, content = edited_line(base_lines, i, 99)  # distinct texts (no parse-cache hits)
        new_text = "\n".join(base_lines[:line] + [content] + base_lines[line + 1:])
        t0 = time.perf_counter()
        project = project_for_file(path, settings=settings, provider=DiskProvider({path: new_text}), is_cfg=False)
        lint_project(project, paths=[path])
        eng.append(time.perf_counter() - t0)

    def show(name, xs):
        print(f"{name:<34} p50 {pct(xs, .5) * 1000:7.1f} ms   p95 {pct(xs, .95) * 1000:7.1f} ms   "
              f"min {min(xs) * 1000:7.1f} ms   n={len(xs)}")

    show("engine lint_project (in-process)", eng)
    show("server keystroke->diagnostics", lats)
    measured = server_lint[1:1 + 2 * args.edits:2]  # the edits, not the undos (open is first)
    if measured:
        show("  of which lint inside the server", measured)
    if burst_lats:
        show("server, 5-key bursts (last key)", burst_lats)
    ratio50 = pct(lats, .5) / pct(eng, .5)
    ratio95 = pct(lats, .95) / pct(eng, .95)
    print(f"ratio server/engine: p50 {ratio50:.2f}x, p95 {ratio95:.2f}x (goal p95 <= 1.2x)")
    print(f"diagnostics per publish: {sorted(set(counts))}")
    return 0 if ratio95 <= 1.2 else 1


async def _server(env: dict | None = None) -> LanguageClient:
    client = LanguageClient("bench", "1")
    client.waiters = {}   # (uri, predicate) futures

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diag(params: lsp.PublishDiagnosticsParams):
        for key, (predicate, fut) in list(client.waiters.items()):
            if key[0] == params.uri and predicate(params.diagnostics) and not fut.done():
                fut.set_result(time.perf_counter())
                client.waiters.pop(key, None)

    await client.start_io(sys.executable, "-m", "nnie_lsp", env={**os.environ, **(env or {})})
    caps = lsp.ClientCapabilities(text_document=lsp.TextDocumentClientCapabilities(
        publish_diagnostics=lsp.PublishDiagnosticsClientCapabilities(version_support=True)))
    await client.initialize_async(lsp.InitializeParams(capabilities=caps))
    client.initialized(lsp.InitializedParams())
    return client


def _expect(client: LanguageClient, uri: str, predicate) -> asyncio.Future:
    fut = asyncio.get_running_loop().create_future()
    client.waiters[(uri, id(fut))] = (predicate, fut)
    return fut


def _open(client: LanguageClient, path: str, text: str) -> str:
    uri = from_fs_path(path)
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id="prototxt", version=1, text=text)))
    return uri


def _close(client: LanguageClient, uri: str) -> None:
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))


async def big_buffer_rows(trials: int) -> int:
    """Another file's open -> diagnostics, alone and beside a big buffer (module doc)."""
    tmp = tempfile.mkdtemp(prefix="nnie-bench-big-")
    example = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "examples", "project", "model.prototxt")
    with open(example, encoding="utf-8") as fh:
        small_text = fh.read()
    huge = 'layer { name: "r" type: "ReLU" bottom: "data" top: "data" }\n' * 340_000   # 20.4 MB
    within = generate_big_prototxt(14000)                                                 # ~3 MB
    has_nn301 = lambda ds: any(d.code == "NN301" for d in ds)   # noqa: E731 - the small file's finding
    counter = iter(range(10 ** 6))

    async def small_once(client) -> float:
        k = next(counter)
        path = os.path.join(tmp, f"small{k}.prototxt")
        fut = _expect(client, from_fs_path(path), has_nn301)
        start = time.perf_counter()
        uri = _open(client, path, small_text + f"# {k}\n")
        done = await asyncio.wait_for(fut, 120)
        _close(client, uri)
        return done - start

    async def series(setup=None, per_trial=None) -> list[float]:
        client = await _server()
        try:
            await small_once(client)   # warm-up: imports, first parse of the rules' data
            if setup is not None:
                await setup(client)
            out = []
            for _ in range(trials):
                if per_trial is not None:
                    out.append(await per_trial(client))
                else:
                    out.append(await small_once(client))
                await asyncio.sleep(0.1)
            return out
        finally:
            await client.shutdown_async(None)
            client.exit(None)
            await client.stop()

    async def open_huge(client) -> None:
        uri = from_fs_path(os.path.join(tmp, "huge.prototxt"))
        fut = _expect(client, uri, lambda ds: any(d.code == "NN903" for d in ds))
        t0 = time.perf_counter()
        _open(client, os.path.join(tmp, "huge.prototxt"), huge)
        await asyncio.wait_for(fut, 120)
        print(f"20 MB buffer open -> its NN903: {time.perf_counter() - t0:.3f} s")

    def just_opened(text: str, name: str):
        async def trial(client) -> float:
            k = next(counter)
            big = _open(client, os.path.join(tmp, f"{name}{k}.prototxt"), text + f"# {k}\n")
            latency = await small_once(client)
            _close(client, big)
            await asyncio.sleep(0.5)
            return latency
        return trial

    alone = await series()
    beside_open = await series(setup=open_huge)
    beside_new = await series(per_trial=just_opened(huge, "huge"))
    beside_within = await series(per_trial=just_opened(within, "within"))
    base = statistics.median(alone)
    print(f"big buffers: another file's open -> diagnostics (median of {trials}; the file {len(small_text) // 1024} KB)")
    for name, xs in (("alone", alone), ("a 20 MB buffer open", beside_open),
                     ("a 20 MB buffer opened just before", beside_new),
                     (f"a {len(within) / 1e6:.1f} MB buffer opened just before", beside_within)):
        print(f"  {name:<36} median {statistics.median(xs) * 1000:7.1f} ms   max {max(xs) * 1000:7.1f} ms   "
              f"{statistics.median(xs) / base:.2f}x alone")
    ratio = statistics.median(beside_open) / base
    print(f"ratio with a 20 MB buffer open / alone: {ratio:.2f}x (goal <= 1.2x)")
    return 0 if ratio <= 1.2 else 1


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--edits", type=int, default=30)
    ap.add_argument("--layers", type=int, default=2000)
    ap.add_argument("--gap", type=float, default=0.4, help="pause between edits (s), > the 300 ms debounce")
    ap.add_argument("--burst", action="store_true")
    ap.add_argument("--big-only", action="store_true", help="only the big-buffer rows")
    ap.add_argument("--trials", type=int, default=10, help="big-buffer rows: opens of the other file per row")
    args = ap.parse_args()
    plain = triage = 0
    if not args.big_only:
        plain = asyncio.run(run(args))
        print("\n== the same, with a stored triage result for the file ==")
        triage = asyncio.run(run(args, with_triage=True))
        print()
    print("== big buffers ==")
    big = asyncio.run(big_buffer_rows(args.trials))
    return plain or triage or big


if __name__ == "__main__":
    sys.exit(main())

"""Every input is bounded, and one big buffer never starves the others (over stdio, pytest-lsp).

- A 20 MB prototxt buffer is past the 8 MiB bound of a prototxt file: NN903 at once, nothing parses
  it, and another document's diagnostics come as they do alone.
- A big document within the bound (a few MB) is linted in the child process: its findings come,
  and a newer version cancels the lint of the older one (the child is killed and replaced).
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp

from nnie_lsp.server.lint_process import BIG_DOCUMENT

from .conftest import CONFIG, EXAMPLE, EditorClient, start_session

pytestmark = pytest.mark.asyncio


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: EditorClient):
    yield
    await lsp_client.shutdown_session()


def _cpu_ticks(pid: int) -> int:
    """User + system CPU ticks of process `pid` so far (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return 0


async def _until_busy(pid: int, timeout: float = 60.0) -> None:
    """Wait until the child `pid` spends CPU (it is linting), however loaded the machine is."""
    start, deadline = _cpu_ticks(pid), asyncio.get_running_loop().time() + timeout
    while _cpu_ticks(pid) <= start + 2 and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.02)


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    with open(f"/proc/{entry}/cmdline", "rb") as fh:
                        if b"nnie_lsp.server.lint_process" in fh.read():
                            found.append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    return found


def _net(layers: int, relu_at: int | None = None) -> str:
    """A chain of convolutions; with `relu_at`, one in-place ReLU on a Concat there (NN301)."""
    out = ['name: "big"\ninput: "data"\ninput_shape { dim: 1 dim: 3 dim: 32 dim: 32 }\n']
    prev = "data"
    for i in range(layers):
        out.append(f'layer {{\n  name: "conv{i}"\n  type: "Convolution"\n  bottom: "{prev}"\n  top: "conv{i}"\n'
                   f'  convolution_param {{ num_output: 8 kernel_size: 3 pad: 1 }}\n}}\n')
        prev = f"conv{i}"
        if i == relu_at:
            out.append(f'layer {{ name: "cat" type: "Concat" bottom: "{prev}" bottom: "{prev}" top: "cat" }}\n'
                       'layer { name: "relu" type: "ReLU" bottom: "cat" top: "cat" }\n')
            prev = "cat"
    return "".join(out)


async def _small_file_latency(client: EditorClient, uri_text: tuple[Path, str]) -> float:
    path, text = uri_text
    started = time.perf_counter()
    uri = client.open(path, "prototxt", text)
    await client.diagnostics_for(uri, predicate=lambda ds: any(d.code == "NN301" for d in ds), timeout=60)
    return time.perf_counter() - started


async def test_a_20_mb_buffer_gets_nn903_at_once_and_delays_nobody(client: EditorClient, tmp_path: Path):
    await start_session(client, "neovim", root=tmp_path)
    big_text = 'layer { name: "r" type: "ReLU" bottom: "data" top: "data" }\n' * 340_000
    assert len(big_text) > 20_000_000
    started = time.perf_counter()
    big = client.open(tmp_path / "huge.prototxt", "prototxt", big_text)
    items = await client.diagnostics_for(big, timeout=60)
    assert [d.code for d in items] == ["NN903"]
    assert "more than the 8.0 MiB nnie-lsp reads from a prototxt" in items[0].message
    assert items[0].severity == lsp.DiagnosticSeverity.Warning and items[0].range.start.line == 0
    assert time.perf_counter() - started < 15   # the bound is measured, not parsed
    # the small file beside it: its findings come at once
    small = (tmp_path / "model.prototxt", (EXAMPLE / "model.prototxt").read_text())
    assert await _small_file_latency(client, small) < 15
    # nothing parses the big buffer: hover, symbols, folding and code actions answer nothing
    hover = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=big), position=lsp.Position(line=0, character=10)))
    symbols = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(
        text_document=lsp.TextDocumentIdentifier(uri=big)))
    assert hover is None and not symbols
    # an edit that brings it under the bound: linted again, for real
    version = client.change(big, (EXAMPLE / "model.prototxt").read_text())
    items = await client.diagnostics_for(big, min_version=version, timeout=60,
                                         predicate=lambda ds: any(d.code == "NN301" for d in ds))
    assert "NN903" not in {d.code for d in items}


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds the lint process in /proc")
async def test_a_big_document_is_linted_in_the_child_and_cancelled_by_a_newer_version(client: EditorClient,
                                                                                     tmp_path: Path):
    await start_session(client, "neovim", root=tmp_path)
    text = _net(9000, relu_at=8990)
    assert BIG_DOCUMENT <= len(text) < 8 << 20
    path = tmp_path / "big.prototxt"
    uri = client.open(path, "prototxt", text)
    items = await client.diagnostics_for(uri, predicate=lambda ds: any(d.code == "NN301" for d in ds), timeout=120)
    assert any(d.code == "NN301" for d in items)
    server = client._server.pid
    children = _children(server)
    assert len(children) == 1, children       # the lint ran in the child, which stays for the next
    # a newer version while the older one is being linted: the child is killed and replaced
    client.change(uri, text + "# one\n")
    await _until_busy(children[0])           # the lint of "# one" is running in the child
    final = client.change(uri, _net(9000, relu_at=None) + "# two\n")
    items = await client.diagnostics_for(uri, min_version=final, timeout=120)
    assert not any(d.code == "NN301" for d in items)   # the findings of the newest text
    after = _children(server)
    assert len(after) == 1 and after != children
    published = [p.version for p in client.published[uri]]
    assert final in published

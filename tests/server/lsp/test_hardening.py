"""Language-server hardening (issue 11), end to end over stdio, no mocks.

* Raw pipe: bytes exactly as a broken client would send them — invalid JSON, a JSON value that is
  not a message, wrong parameter types, an unknown request and an unknown notification — each
  gets the JSON-RPC answer (-32700 / -32600 with ``id: null``, -32602, -32601, nothing) and the
  server keeps answering.
* Recursion: a prototxt nested 100,000 levels deep and a 1 MB cfg line are opened; the server
  stays up and publishes diagnostics for them.
* Memory: 2,000 edits to a 2,000-layer prototxt over pytest-lsp; the server's RSS growth over the
  last 1,200 (read from /proc) stays within a loose bound.  Nothing here is timed.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls.uris import from_fs_path

from lsp.conftest import CONFIG, REPO, SERVER, EditorClient, start_session


class RawClient:
    """The server over a raw stdio pipe: framed bodies in, parsed messages out."""

    def __init__(self, cwd: Path) -> None:
        self.process = subprocess.Popen(SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, cwd=cwd,
                                        env={**os.environ, "PYTHONPATH": str(REPO)})
        self.messages: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    self.messages.put(None)
                    return
                if not line.strip():
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            self.messages.put(json.loads(stream.read(length)))

    def send_body(self, body: bytes) -> None:
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def send(self, message: dict) -> None:
        self.send_body(json.dumps(message).encode("utf-8"))

    def wait_for(self, predicate, timeout: float = 30.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, "no matching message from the server"
            try:
                message = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            assert message is not None, f"the server closed its output (exit code {self.process.poll()})"
            if predicate(message):
                return message

    def response(self, msg_id, timeout: float = 30.0) -> dict:
        return self.wait_for(lambda m: "method" not in m and m.get("id") == msg_id, timeout)

    def start(self, root: Path) -> None:
        self.send({"jsonrpc": "2.0", "id": "init", "method": "initialize",
                   "params": {"processId": None, "rootUri": from_fs_path(str(root)), "capabilities": {}}})
        assert "result" in self.response("init")
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def still_answers(self) -> None:
        self.send({"jsonrpc": "2.0", "id": "alive", "method": "textDocument/documentSymbol",
                   "params": {"textDocument": {"uri": "file:///nowhere/none.prototxt"}}})
        reply = self.response("alive")
        assert "result" in reply or "error" in reply
        assert self.process.poll() is None

    def close(self) -> None:
        try:
            self.send({"jsonrpc": "2.0", "id": "bye", "method": "shutdown"})
            self.response("bye", 15)
            self.send({"jsonrpc": "2.0", "method": "exit"})
            self.process.wait(15)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def raw(tmp_path):
    client = RawClient(tmp_path)
    client.start(tmp_path)
    yield client
    client.close()


def _null_id_error(message: dict) -> bool:
    return "method" not in message and "error" in message and message.get("id", "missing") is None


def test_invalid_json_gets_a_parse_error(raw):
    raw.send_body(b'{"jsonrpc": "2.0", "id": 7, "method": ')
    reply = raw.wait_for(_null_id_error)
    assert reply["error"]["code"] == -32700 and "not JSON" in reply["error"]["message"]
    raw.send_body(b"\xff\xfe{}")
    assert raw.wait_for(_null_id_error)["error"]["code"] == -32700
    raw.still_answers()


@pytest.mark.parametrize("body", [b"[1, 2, 3]", b"42", b'"text"', b'{"jsonrpc": "2.0"}',
                                  b'[{"jsonrpc": "2.0", "id": 1, "method": "shutdown"}]'])
def test_json_that_is_not_a_message_gets_invalid_request(raw, body):
    raw.send_body(body)
    reply = raw.wait_for(_null_id_error)
    assert reply["error"]["code"] == -32600
    raw.still_answers()


@pytest.mark.parametrize("params", ["not an object", 3, [1, 2], {"textDocument": 5},
                                    {"textDocument": {"uri": "file:///a.prototxt"}, "position": {"line": "x"}}])
def test_wrong_types_get_invalid_params(raw, params):
    raw.send({"jsonrpc": "2.0", "id": 11, "method": "textDocument/hover", "params": params})
    reply = raw.response(11)
    assert reply["error"]["code"] == -32602 and "textDocument/hover" in reply["error"]["message"]
    raw.still_answers()


def test_unknown_request_and_notification(raw):
    raw.send({"jsonrpc": "2.0", "id": 12, "method": "nnie/noSuchMethod", "params": {}})
    assert raw.response(12)["error"]["code"] == -32601
    raw.send({"jsonrpc": "2.0", "method": "nnie/noSuchNotification", "params": {"x": 1}})
    raw.send({"jsonrpc": "2.0", "method": "$/noSuchNotification"})
    raw.send({"jsonrpc": "2.0", "id": 13, "method": "$/noSuchRequest"})
    assert raw.response(13)["error"]["code"] == -32601
    raw.still_answers()


def _open(raw: RawClient, path: Path, language: str, text: str) -> str:
    uri = from_fs_path(str(path))
    raw.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
              "params": {"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}}})
    return uri


def _diagnostics(raw: RawClient, uri: str) -> list:
    message = raw.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                           and m["params"]["uri"] == uri, timeout=120)
    return message["params"]["diagnostics"]


def test_a_prototxt_nested_100k_levels_deep(raw, tmp_path):
    depth = 100_000
    text = 'name: "deep"\n' + "a { " * depth + "}" * depth + "\n"
    uri = _open(raw, tmp_path / "deep.prototxt", "prototxt", text)
    diagnostics = _diagnostics(raw, uri)
    assert diagnostics and all(d["range"]["start"]["line"] <= 1 for d in diagnostics)
    for request in ("textDocument/documentSymbol", "textDocument/foldingRange"):
        raw.send({"jsonrpc": "2.0", "id": request, "method": request, "params": {"textDocument": {"uri": uri}}})
        reply = raw.response(request, 120)  # an answer (result or error), never silence
        assert "result" in reply or "error" in reply
    raw.send({"jsonrpc": "2.0", "id": "hover", "method": "textDocument/hover",
              "params": {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 200_000}}})
    raw.response("hover", 120)
    raw.still_answers()


def test_long_cfg_lines_within_the_bound(raw, tmp_path):
    text = "[prototxt_file] ./net.prototxt\n[image_list] " + "x" * 100_000 + "\n[net_type] 0\n" \
           + "[" + "k" * 100_000 + "] v\n"
    uri = _open(raw, tmp_path / "big.cfg", "nnie-cfg", text)
    diagnostics = _diagnostics(raw, uri)
    assert any(d["range"]["start"]["line"] == 1 for d in diagnostics)  # the image list is reported, not a crash
    raw.send({"jsonrpc": "2.0", "id": "hover", "method": "textDocument/hover",
              "params": {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 50_000}}})
    raw.response("hover", 120)
    raw.still_answers()


def test_a_cfg_buffer_past_the_bound_is_not_parsed(raw, tmp_path):
    """A 2 MB cfg (two 1 MB lines) is past the 256 KiB a cfg file may hold: NN903 at once, as
    nnie-lint says of such a file, and no feature parses it."""
    text = "[prototxt_file] ./net.prototxt\n[image_list] " + "x" * (1 << 20) + "\n[net_type] 0\n" \
           + "[" + "k" * (1 << 20) + "] v\n"
    uri = _open(raw, tmp_path / "big.cfg", "nnie-cfg", text)
    diagnostics = _diagnostics(raw, uri)
    assert [d["code"] for d in diagnostics] == ["NN903"]
    assert "more than the 256.0 KiB nnie-lsp reads from a cfg" in diagnostics[0]["message"]
    for request, params in (("textDocument/hover", {"position": {"line": 1, "character": 500_000}}),
                            ("textDocument/documentSymbol", {}), ("textDocument/foldingRange", {}),
                            ("textDocument/completion", {"position": {"line": 1, "character": 3}})):
        raw.send({"jsonrpc": "2.0", "id": request, "method": request,
                  "params": {"textDocument": {"uri": uri}, **params}})
        assert raw.response(request, 20).get("result") is None
    raw.still_answers()


# ------------------------------------------------------------------ memory over a long session

def _rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:"))


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: EditorClient):
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads the server's RSS from /proc")
async def test_memory_stays_bounded_over_1200_edits(client: EditorClient, tmp_path: Path):
    from nnie_lsp.testing.synth_nets import generate_big_prototxt

    await start_session(client, "neovim", root=tmp_path)
    text = generate_big_prototxt(800)
    path = tmp_path / "big.prototxt"
    path.write_text(text)
    uri = client.open(path, "prototxt", text)
    await client.diagnostics_for(uri, timeout=120)
    pid = client._server.pid
    lines = text.split("\n")
    target = next(i for i, line in enumerate(lines) if "num_output" in line)

    async def edit_many(count: int, start: int) -> None:
        for k in range(start, start + count):
            lines[target] = f"    num_output: {16 + (k % 7)}  # edit {k}"
            version = client.change(uri, "\n".join(lines))
            if k % 50 == 49:  # let the server catch up now and then, as a typist's pauses do
                await client.diagnostics_for(uri, min_version=version, timeout=120)
        await client.diagnostics_for(uri, min_version=version, timeout=120)

    # warm-up: the server's caches (64 parses by content, per-document results) fill to their
    # bounds within the first few hundred edits
    await edit_many(500, 0)
    baseline = _rss_kb(pid)
    await edit_many(700, 500)
    grown = _rss_kb(pid) - baseline
    print(f"server RSS after 500 edits {baseline / 1024:.0f} MiB, growth over 700 more {grown / 1024:.1f} MiB "
          f"(document {len(text) / 1024:.0f} KiB)")
    # a leak of one text, tree or result per edit would add 700 × the 160 KiB document (about 110 MiB)
    assert grown < 64 * 1024, f"server RSS grew by {grown / 1024:.0f} MiB over 700 edits (from {baseline / 1024:.0f})"
    response = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))
    assert response

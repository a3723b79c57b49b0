"""The server's parts in process: the document store and the diagnostics store by (source, uri)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest
from lsprotocol import types as lsp
from pygls.uris import from_fs_path

from nnie_lsp.server.convert import SOURCE, TRIAGE_SOURCE
from nnie_lsp.server.diagnostic_store import DiagnosticStore
from nnie_lsp.server.documents import DocumentStore


def diagnostic(message: str, source: str) -> lsp.Diagnostic:
    start, end = lsp.Position(line=0, character=0), lsp.Position(line=0, character=1)
    return lsp.Diagnostic(range=lsp.Range(start=start, end=end), message=message, source=source)


def test_diagnostic_store_merges_sources_and_keeps_the_newest_computation():
    store = DiagnosticStore()
    uri, other = "file:///p/a.prototxt", "file:///p/b.prototxt"
    store.set(TRIAGE_SOURCE, uri, [diagnostic("low cosine", TRIAGE_SOURCE)], version=4)
    assert store.set(SOURCE, uri, [diagnostic("v4", SOURCE)], version=4, sequence=7)
    store.set("nnie-mapper", uri, [diagnostic("from the log", "nnie-mapper")], version=4)
    store.set(SOURCE, other, [diagnostic("elsewhere", SOURCE)], version=1, sequence=8)
    assert [d.message for d in store.items(uri)] == ["v4", "low cosine", "from the log"]  # lint first
    assert store.version(uri) == 4
    # a computation that started earlier and finished late does not replace the newer one
    assert not store.set(SOURCE, uri, [diagnostic("v3", SOURCE)], version=3, sequence=5)
    assert [d.message for d in store.items(uri)][0] == "v4" and store.version(uri) == 4
    assert store.set(SOURCE, uri, [], version=5, sequence=9)
    assert [d.message for d in store.items(uri)] == ["low cosine", "from the log"] and store.version(uri) == 5
    store.clear(uri, TRIAGE_SOURCE)
    assert store.sources(uri) == [SOURCE, "nnie-mapper"]
    store.clear(uri)
    assert store.items(uri) == [] and store.version(uri) is None
    assert [d.message for d in store.items(other)] == ["elsewhere"]


@dataclass
class FakeTextDocument:
    source: str
    version: int | None


def test_document_store_records_only_nnie_documents(tmp_path):
    texts = {}
    store = DocumentStore(lambda uri: texts[uri])
    cfg_path, proto_path, setup = tmp_path / "net.cfg", tmp_path / "net.prototxt", tmp_path / "setup.cfg"
    cfg_uri, proto_uri, setup_uri = (from_fs_path(str(p)) for p in (cfg_path, proto_path, setup))
    texts[cfg_uri] = FakeTextDocument("[net_type] 0\n[prototxt_file] ./net.prototxt\n", 3)
    texts[proto_uri] = FakeTextDocument('name: "n"\n', 1)
    texts[setup_uri] = FakeTextDocument("[metadata]\nname = x\n", 1)
    assert store.track(setup_uri, "ini", texts[setup_uri].source) is None
    assert store.track("untitled:Untitled-1", "prototxt", "") is None  # no file behind it
    cfg = store.track(cfg_uri, "ini", texts[cfg_uri].source)  # a .cfg claimed by its content
    proto = store.track(proto_uri, "prototxt", texts[proto_uri].source)
    assert (cfg.kind, proto.kind) == ("cfg", "prototxt") and len(store) == 2
    assert setup_uri not in store and store.get(proto_uri) is proto
    assert store.uri_for_path(str(tmp_path / "." / "net.prototxt")) == proto_uri
    assert store.state() == tuple(sorted([(cfg_uri, 3), (proto_uri, 1)]))
    overlay, versions = store.overlay()
    assert overlay[str(proto_path)] == 'name: "n"\n' and versions == {str(cfg_path): 3, str(proto_path): 1}
    texts[proto_uri] = FakeTextDocument('name: "m"\n', 2)
    assert store.text(proto_uri) == ('name: "m"\n', 2) and (proto_uri, 2) in store.state()
    assert store.line_index_for_path(str(proto_path)).line_text(0) == 'name: "m"'  # the editor text, not disk
    proto_path.write_text('name: "disk"\n')
    assert store.line_index_for_path(str(proto_path)).line_text(0) == 'name: "m"'
    assert store.line_index_for_path(str(tmp_path / "missing.prototxt")) is None


@pytest.mark.asyncio
async def test_document_store_close_cancels_the_pending_lint(tmp_path):
    path = tmp_path / "a.prototxt"
    uri = from_fs_path(str(path))
    store = DocumentStore(lambda u: FakeTextDocument("", 1))
    record = store.track(uri, "prototxt", "")
    record.pending = asyncio.ensure_future(asyncio.sleep(10))
    pending = record.pending
    assert store.close(uri) is record
    await asyncio.sleep(0)
    assert pending.cancelled() and uri not in store and store.uri_for_path(str(path)) is None
    assert store.close(uri) is None

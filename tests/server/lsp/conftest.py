"""pytest-lsp harness: an editor-like test client over stdio, parametrised over client presets."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls.protocol import default_converter
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES

REPO = Path(__file__).resolve().parents[3]
EXAMPLE = REPO / "examples" / "project"
SERVER = [sys.executable, "-m", "nnie_lsp"]
PRESETS = ["visual-studio-code", "neovim"]
TIMEOUT = 20.0


def _offset(text: str, pos: lsp.Position, encoding: str) -> int:
    lines = text.split("\n")
    off = sum(len(x) + 1 for x in lines[:pos.line])
    line = lines[pos.line] if pos.line < len(lines) else ""
    units = 0
    for i, ch in enumerate(line):
        if units >= pos.character:
            return off + i
        units += len(ch.encode("utf-8")) if encoding == "utf-8" else (2 if ord(ch) > 0xFFFF and encoding == "utf-16" else 1)
    return off + len(line)


def apply_text_edits(text: str, edits, encoding: str = "utf-16") -> str:
    spans = sorted(((_offset(text, e.range.start, encoding), _offset(text, e.range.end, encoding), e.new_text)
                    for e in edits), reverse=True)
    for s, e, new in spans:
        text = text[:s] + new + text[e:]
    return text


def edit_changes(edit: lsp.WorkspaceEdit) -> dict[str, list]:
    """URI -> text edits of a WorkspaceEdit, whether it came as ``changes`` or as versioned
    ``documentChanges``."""
    if edit.document_changes:
        out: dict[str, list] = {}
        for change in edit.document_changes:
            if isinstance(change, lsp.TextDocumentEdit):
                out.setdefault(change.text_document.uri, []).extend(change.edits)
        return out
    return dict(edit.changes or {})


class EditorClient(LanguageClient):
    """Keeps its open documents' text and versions, applies workspace edits like an editor."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}
        self.published: dict[str, list[lsp.PublishDiagnosticsParams]] = {}
        self.applied: list[lsp.WorkspaceEdit] = []
        self.encoding = "utf-16"
        self.pull = False
        self.inlay_refreshes = 0
        self.code_lens_refreshes = 0

    def open(self, path: Path, language_id: str, text: str | None = None) -> str:
        uri = from_fs_path(str(path))
        text = path.read_text(encoding="utf-8") if text is None else text
        self.texts[uri] = text
        self.versions[uri] = 1
        self.text_document_did_open(lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=uri, language_id=language_id, version=1, text=text)))
        return uri

    def change(self, uri: str, text: str) -> int:
        self.versions[uri] += 1
        self.texts[uri] = text
        self.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)]))
        return self.versions[uri]

    def apply_workspace_edit(self, edit: lsp.WorkspaceEdit) -> bool:
        """Apply `edit` as an editor does: ``documentChanges`` (with CreateFile) when present, else
        ``changes``; open documents change in the editor, closed files on disk."""
        self.applied.append(edit)
        if edit.document_changes:
            for change in edit.document_changes:
                if isinstance(change, lsp.CreateFile):
                    path = Path(change.uri.removeprefix("file://"))
                    if path.exists():
                        return False   # CreateFile without overwrite/ignoreIfExists fails on an existing file
                    path.write_text("", encoding="utf-8")
                elif isinstance(change, lsp.TextDocumentEdit):
                    uri = change.text_document.uri
                    if change.text_document.version is not None and self.versions.get(uri) != change.text_document.version:
                        return False
                    self._edit(uri, change.edits)
                else:
                    return False
            return True
        for uri, edits in (edit.changes or {}).items():
            self._edit(uri, edits)
        return True

    def _edit(self, uri: str, edits) -> None:
        if uri in self.texts:
            self.change(uri, apply_text_edits(self.texts[uri], edits, self.encoding))
        else:
            path = Path(uri.removeprefix("file://"))
            path.write_text(apply_text_edits(path.read_text(encoding="utf-8"), edits, self.encoding),
                            encoding="utf-8")

    async def diagnostics_for(self, uri: str, *, min_version: int | None = None, predicate=None,
                              timeout: float = TIMEOUT) -> list[lsp.Diagnostic]:
        """Pull (when the server advertised it) or wait for a push matching the conditions."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            if self.pull:
                report = await self.text_document_diagnostic_async(lsp.DocumentDiagnosticParams(
                    text_document=lsp.TextDocumentIdentifier(uri=uri)))
                items = list(report.items)
                if predicate is None or predicate(items):
                    return items
            else:
                for p in reversed(self.published.get(uri, [])):
                    if min_version is not None and (p.version or 0) < min_version:
                        continue
                    items = list(p.diagnostics)
                    if predicate is None or predicate(items):
                        return items
                    break
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"no matching diagnostics for {uri} within {timeout} s; "
                                     f"pushed: {[(p.version, [d.code for d in p.diagnostics]) for p in self.published.get(uri, [])]}")
            await asyncio.sleep(0.05)


async def raw_request(client: EditorClient, method: str, params, timeout: float = 10.0):
    """Send a request exactly as given (no client-side type checking), await its response."""
    import uuid
    from concurrent.futures import Future

    proto = client.protocol
    msg_id = str(uuid.uuid4())
    fut: Future = Future()
    proto._request_futures[msg_id] = fut
    proto._send_data({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
    return await asyncio.wait_for(asyncio.wrap_future(fut), timeout)


def make_client() -> EditorClient:
    client = EditorClient(converter_factory=default_converter)
    for method, func in DEFAULT_CLIENT_FEATURES.items():
        if method != lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS:
            client.feature(method)(func)

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_publish(ls: EditorClient, params: lsp.PublishDiagnosticsParams):
        ls.diagnostics[params.uri] = params.diagnostics
        ls.published.setdefault(params.uri, []).append(params)

    @client.feature(lsp.WORKSPACE_APPLY_EDIT)
    def on_apply_edit(ls: EditorClient, params: lsp.ApplyWorkspaceEditParams):
        return lsp.ApplyWorkspaceEditResult(applied=ls.apply_workspace_edit(params.edit))

    @client.feature(lsp.WORKSPACE_INLAY_HINT_REFRESH)
    def on_inlay_refresh(ls: EditorClient, params):
        ls.inlay_refreshes += 1

    @client.feature(lsp.WORKSPACE_CODE_LENS_REFRESH)
    def on_code_lens_refresh(ls: EditorClient, params):
        ls.code_lens_refreshes += 1

    @client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
    def on_register(ls: EditorClient, params: lsp.RegistrationParams):
        return None

    return client


CONFIG = ClientServerConfig(server_command=SERVER, client_factory=make_client,
                            server_env={**os.environ, "PYTHONUNBUFFERED": "1"})


def capabilities_of(preset: str) -> lsp.ClientCapabilities:
    """pytest-lsp's recorded capabilities; "visual-studio-code" (recorded from 1.65) gets the pull
    diagnostics VS Code announces since 1.68 (textDocument.diagnostic and
    workspace.diagnostics.refreshSupport), so the VS Code runs pull and the Neovim 0.11 runs, which
    pull without refresh support, are pushed to: both paths are tested."""
    caps = client_capabilities(preset)
    if preset == "visual-studio-code":
        caps.text_document.diagnostic = lsp.DiagnosticClientCapabilities(dynamic_registration=True,
                                                                          related_document_support=False)
        caps.workspace.diagnostics = lsp.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    return caps


async def start_session(client: EditorClient, preset: str, *, locale: str | None = None,
                        init_options=None, root: Path | None = None, experimental=None) -> lsp.InitializeResult:
    caps = capabilities_of(preset)
    if experimental is not None:   # e.g. {"nnie": {"commandOutcomes": True}}: what the VS Code client announces
        caps.experimental = experimental
    result = await client.initialize_session(lsp.InitializeParams(
        capabilities=caps, locale=locale, initialization_options=init_options,
        root_uri=from_fs_path(str(root)) if root else None))
    client.pull = result.capabilities.diagnostic_provider is not None
    enc = result.capabilities.position_encoding
    client.encoding = str(getattr(enc, "value", enc) or "utf-16")
    return result


@pytest_lsp.fixture(params=PRESETS, config=CONFIG)
async def client(request, lsp_client: EditorClient):
    lsp_client.preset = request.param
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    dest = tmp_path / "project"
    shutil.copytree(EXAMPLE, dest, ignore=shutil.ignore_patterns("*.caffemodel", "make_weights.py"))
    shutil.copy(EXAMPLE / "model.caffemodel", dest / "model.caffemodel")
    return dest


def dump_folder(path: Path) -> Path:
    """`path` as a folder the server takes for dumps (one file named like a dump tensor; the fake
    nnie-triage reads nothing).  The server refuses a folder without dump files before it runs."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "data_output0_1_1_1.npy").write_bytes(b"")
    return path


def find_line(text: str, needle: str, start: int = 0) -> int:
    for i, line in enumerate(text.split("\n")):
        if i >= start and needle in line:
            return i
    raise AssertionError(f"{needle!r} not in text")

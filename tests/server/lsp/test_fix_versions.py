"""The editor's fixes are compare-and-swap too: a quick fix, "fix all" and the triage's
``workspace/applyEdit`` name the document versions their edits were computed for (the client
refuses them for another text), and a fix that edits a file not open in the editor is offered only
while that file is still the text it was computed for."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lsprotocol import types as lsp

from .conftest import REPO, edit_changes, find_line, start_session
from .test_triage_editor import actions, execute, triage_items

pytestmark = pytest.mark.asyncio


def _is_fix(action: lsp.CodeAction, code: str) -> bool:
    return f"({code})" in action.title and not action.title.startswith("Disable")


def _versions(edit: lsp.WorkspaceEdit) -> dict[str, int | None]:
    return {c.text_document.uri: c.text_document.version for c in edit.document_changes or []
            if isinstance(c, lsp.TextDocumentEdit)}


async def test_a_quick_fix_names_its_version_and_is_refused_after_an_edit(client, project: Path):
    await start_session(client, client.preset, root=project)
    uri = client.open(project / "model.prototxt", "prototxt")
    items = await client.diagnostics_for(uri, predicate=lambda ds: any(d.code == "NN301" for d in ds))
    nn301 = next(d for d in items if d.code == "NN301")
    fix = next(a for a in await actions(client, uri, [nn301], [lsp.CodeActionKind.QuickFix]) if _is_fix(a, "NN301"))
    # VS Code applies documentChanges: the edit names its version; Neovim 0.11 announces no
    # documentChanges, so it gets plain changes (and the server's own checks below)
    versioned = client.preset == "visual-studio-code"
    assert _versions(fix.edit) == ({uri: client.versions[uri]} if versioned else {})
    before = client.texts[uri]
    edited = "# note\n" + before
    client.change(uri, edited)
    if versioned:   # the user typed first: the edit made for version 1 is refused, the text is the user's
        assert client.apply_workspace_edit(fix.edit) is False
        assert client.texts[uri] == edited
    # the old diagnostic no longer offers its fix; the new one does, for the new version
    assert not [a for a in await actions(client, uri, [nn301], [lsp.CodeActionKind.QuickFix]) if _is_fix(a, "NN301")]
    fresh = await client.diagnostics_for(uri, min_version=client.versions[uri],
                                         predicate=lambda ds: any(d.code == "NN301" for d in ds))
    again = next(a for a in await actions(client, uri, [next(d for d in fresh if d.code == "NN301")],
                                          [lsp.CodeActionKind.QuickFix]) if _is_fix(a, "NN301"))
    assert _versions(again.edit) == ({uri: client.versions[uri]} if versioned else {})
    assert client.apply_workspace_edit(again.edit) is True
    assert "# note" in client.texts[uri] and 'top: "layer10-act"' in client.texts[uri]


@pytest.fixture
def triage_copy(tmp_path: Path) -> Path:
    dest = tmp_path / "triage"
    examples = REPO / "examples" / "triage"
    for name in ("model", "quant_noise", "quant_outlier"):
        shutil.copytree(examples / name, dest / name)
    shutil.copy(examples / "test1.jpg", dest / "test1.jpg")
    return dest


async def test_a_fix_editing_a_closed_file_is_withdrawn_when_the_file_changes(client, triage_copy: Path):
    """The `_hp` plan (T207 on the cfg) renames layers in the prototxt, which is not open: once the
    prototxt changed on disk, the old diagnostic's quick fix is not offered (its ranges are for the
    old text); the triage's own applyEdit sends versioned edits, checked just before it is sent."""
    project = triage_copy / "quant_outlier"   # a fault hp-plan plans for (quant_noise's it refuses)
    cfg, proto = project / "sim.cfg", project / "det1.prototxt"
    await start_session(client, client.preset, root=triage_copy)
    cfg_uri = client.open(cfg, "nnie-cfg")
    await execute(client, "nnie.triage", {"cfg": str(cfg)})
    items = await client.diagnostics_for(cfg_uri, predicate=lambda ds: bool(triage_items(ds, "T207")))
    t207 = triage_items(items, "T207")[0]
    proto_uri = next(u for u in t207.data["fix"]["changes"] if u.endswith("det1.prototxt"))
    assert set(t207.data["fix"]["digests"]) == {proto_uri}          # closed: its text's digest
    plan = await actions(client, cfg_uri, [t207], [lsp.CodeActionKind.QuickFix])
    assert len(plan) == 1 and set(edit_changes(plan[0].edit)) == {cfg_uri, proto_uri}
    versioned = client.preset == "visual-studio-code"
    assert _versions(plan[0].edit) == ({cfg_uri: client.versions[cfg_uri], proto_uri: None} if versioned else {})
    original = proto.read_text()
    proto.write_text("# the user's note\n" + original)                 # saved by another editor
    assert await actions(client, cfg_uri, [t207], [lsp.CodeActionKind.QuickFix]) == []
    proto.write_text(original)
    assert len(await actions(client, cfg_uri, [t207], [lsp.CodeActionKind.QuickFix])) == 1
    applied = await execute(client, "nnie.applyTriageFixes", {"cfg": str(cfg)})
    assert applied["applied"] is True
    sent = client.applied[-1]
    assert _versions(sent) == ({cfg_uri: client.versions[cfg_uri] - 1, proto_uri: None} if versioned else {})
    assert "[compile_mode] 2" in client.texts[cfg_uri].split("\n")
    assert 'name: "conv1_hp"' in proto.read_text()
    assert find_line(client.texts[cfg_uri], "[compile_mode]") >= 0

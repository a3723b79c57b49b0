"""The model card in the editor, over stdio: nnie.toml is linted live (NN120), editing it relints
the cfg judged against it (NN121 appears and goes), hover and completion work on its keys, and the
cfg's NN121 points at the card's line."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pygls.uris import from_fs_path

from .conftest import start_session

pytestmark = pytest.mark.asyncio

CFG = """[prototxt_file] ./net.prototxt
[net_type] 0
[image_list] ./images.txt
[image_type] 1
[RGB_order] RGB
[norm_type] 2
[mean_file] ./mean.txt
"""
NET = 'name: "yuface"\ninput: "data"\ninput_shape { dim: 1 dim: 3 dim: 24 dim: 24 }\n'
CARD = '[[model]]\nprototxt = "net.prototxt"\nchannel_order = "BGR"\nmean = [104, 117, 123]\nscale = 1.0\n'


def codes(items) -> list[str]:
    return sorted(str(d.code) for d in items)


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "net.prototxt").write_text(NET)
    (root / "mean.txt").write_text("104\n117\n123\n")
    (root / "images.txt").write_text("a.jpg\n")
    (root / "a.jpg").write_bytes(b"\xff\xd8")
    (root / "net.cfg").write_text(CFG)
    (root / "nnie.toml").write_text(CARD)
    return root


async def test_card_judges_the_cfg_and_edits_relint_it(client, tmp_path):
    root = _project(tmp_path)
    await start_session(client, client.preset, root=root)
    cfg = client.open(root / "net.cfg", "nnie-cfg")
    items = await client.diagnostics_for(cfg, predicate=lambda ds: "NN121" in codes(ds))
    nn121 = next(d for d in items if d.code == "NN121")
    assert nn121.severity == lsp.DiagnosticSeverity.Error and nn121.range.start.line == 4
    (related,) = nn121.related_information
    assert related.location.uri == from_fs_path(str(root / "nnie.toml")) and related.location.range.start.line == 2
    assert nn121.data["fix"]["applicability"] == "unsafe"
    assert "NN109" not in codes(items)   # the card settles what NN109 could only guess
    card = client.open(root / "nnie.toml", "toml")
    # the card's own problems, live
    version = client.change(card, CARD.replace("channel_order", "chanel_order"))
    card_items = await client.diagnostics_for(card, min_version=version, predicate=lambda ds: "NN120" in codes(ds))
    problem = next(d for d in card_items if d.code == "NN120")
    assert "did you mean `channel_order`" in problem.message and problem.range.start.line == 2
    # the card now says RGB: the cfg's RGB_order is right, NN121 goes (and NN109 stays quiet: the card decides)
    client.change(card, CARD.replace('"BGR"', '"RGB"'))
    await client.diagnostics_for(cfg, predicate=lambda ds: "NN121" not in codes(ds) and "NN109" not in codes(ds))
    # no card entry at all for the net: NN109's guess is back
    client.change(card, CARD.replace("net.prototxt", "other.prototxt"))
    await client.diagnostics_for(cfg, predicate=lambda ds: "NN109" in codes(ds) and "NN120" in codes(ds))


async def test_hover_and_completion_in_the_card(client, tmp_path):
    root = _project(tmp_path)
    await start_session(client, client.preset, root=root)
    card = client.open(root / "nnie.toml", "toml")
    hover = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=card), position=lsp.Position(line=2, character=3)))
    assert hover is not None and "The channel order the trained net expects" in hover.contents.value
    client.change(card, CARD + "tr")
    items = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=card), position=lsp.Position(line=5, character=2)))
    labels = [i.label for i in items.items]
    assert "transpose" in labels and "channel_order" not in labels
    symbols = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(
        text_document=lsp.TextDocumentIdentifier(uri=card)))
    assert not symbols


DETECT = '''import cv2, numpy as np
def run(net, path):   # feeds net.prototxt
    img = np.float32(cv2.imread(path))
    img -= (104, 117, 123)
    net.setInput(img.transpose(2, 0, 1)[None])
    return net.forward()
'''


async def test_draft_card_code_action_and_write_card(client, tmp_path):
    root = _project(tmp_path)
    (root / "nnie.toml").unlink()
    (root / "detect.py").write_text(DETECT)
    await start_session(client, client.preset, root=root)
    cfg = client.open(root / "net.cfg", "nnie-cfg")
    items = await client.diagnostics_for(cfg, predicate=lambda ds: "NN109" in codes(ds))
    nn109 = next(d for d in items if d.code == "NN109")
    draft = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="nnie.draftCard", arguments=[{"cfg": str(root / "net.cfg")}]))
    values = {v["key"]: v["value"] for v in draft["values"]}
    assert values == {"channel_order": "BGR", "mean": [104.0, 117.0, 123.0], "scale": 1.0, "transpose": False}
    assert draft["card"] == str(root / "nnie.toml") and not draft["card_exists"] and not draft["has_entry"]
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=cfg), range=nn109.range,
        context=lsp.CodeActionContext(diagnostics=[nn109])))
    create = next(a for a in actions if a.title.startswith("Create the model card nnie.toml from a draft"))
    assert create.kind == lsp.CodeActionKind.QuickFix and "detect.py" in create.title
    if create.disabled is not None:   # a client that cannot create files (Neovim's preset): said, and the command writes
        assert "nnie.toml" in create.disabled.reason
        await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            command="nnie.writeCard", arguments=[{"cfg": str(root / "net.cfg"), "values": values,
                                                   "sources": {v["key"]: v["source"] for v in draft["values"]}}]))
    else:
        assert client.apply_workspace_edit(create.edit)
        # the editor's file watcher tells the server the card appeared on disk
        client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(changes=[lsp.FileEvent(
            uri=from_fs_path(str(root / "nnie.toml")), type=lsp.FileChangeType.Created)]))
    text = (root / "nnie.toml").read_text()
    assert 'channel_order = "BGR"   # detect.py:3' in text and "mean = [104, 117, 123]" in text
    # the card now says BGR: the cfg's [RGB_order] RGB is a certain error
    await client.diagnostics_for(cfg, predicate=lambda ds: "NN121" in codes(ds) and "NN109" not in codes(ds))
    # a second entry cannot be written for the same net
    with pytest.raises(Exception, match="already describes"):
        await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            command="nnie.writeCard", arguments=[{"cfg": str(root / "net.cfg"), "values": {"channel_order": "RGB"}}]))


async def test_write_card_writes_what_the_user_confirmed(client, tmp_path):
    root = _project(tmp_path)
    (root / "nnie.toml").unlink()
    await start_session(client, client.preset, root=root)
    written = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="nnie.writeCard", arguments=[{"cfg": str(root / "net.cfg"), "values": {
            "channel_order": "RGB", "mean": [127.5], "scale": 0.0078125, "transpose": True},
            "sources": {"channel_order": "the README"}}]))
    text = (root / "nnie.toml").read_text()
    assert written["card"] == str(root / "nnie.toml") and 'channel_order = "RGB"   # the README' in text
    assert "mean = 127.5   # given in the editor" in text and "transpose = true" in text
    with pytest.raises(Exception, match="channel_order"):
        (root / "nnie.toml").unlink()
        await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            command="nnie.writeCard", arguments=[{"cfg": str(root / "net.cfg"), "values": {"channel_order": "RBG"}}]))
    assert not (root / "nnie.toml").exists()

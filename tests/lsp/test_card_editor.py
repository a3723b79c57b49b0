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
    # the card now says RGB: the cfg's RGB_order is right, NN121 goes
    client.change(card, CARD.replace('"BGR"', '"RGB"'))
    await client.diagnostics_for(cfg, predicate=lambda ds: "NN121" not in codes(ds) and "NN109" in codes(ds))


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

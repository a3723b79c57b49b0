"""The model card's editor features without an editor: hover and completion of its keys and values
(nnie_lsp/editor/card.py), and the card's word in a cfg's hover."""

from __future__ import annotations

from nnie_lsp.editor.card import card_completions, card_hover
from nnie_lsp.editor.common import document_kind
from nnie_lsp.editor.hover import cfg_hover
from nnie_lsp.project.project import load_project
from nnie_lsp.core.text import Position

CARD = '[[model]]\nprototxt = "net.prototxt"\nchannel_order = "BGR"\nmean = [104, 117, 123]\n'


def test_the_card_is_a_document_kind():
    assert document_kind("/p/nnie.toml", "toml", CARD) == "card"
    assert document_kind("/p/pyproject.toml", "toml", CARD) is None


def test_hover_on_keys_values_and_the_header(tmp_path):
    (tmp_path / "net.prototxt").write_text("name: 'n'\n")
    path = str(tmp_path / "nnie.toml")
    md, rng = card_hover(CARD, path, Position(2, 3))
    assert md.startswith("**`channel_order`** — The channel order the trained net expects")
    assert '`"RGB"`, `"BGR"`, `"GRAY"`' in md and "NN121" in md and str(rng) == "3:1-3:14"
    md, _ = card_hover(CARD, path, Position(1, 14))
    assert md.startswith(f"→ `{tmp_path / 'net.prototxt'}`")
    md, _ = card_hover(CARD, path, Position(0, 3))
    assert "Judges every cfg whose `[prototxt_file]` is `net.prototxt`" in md and "BGR, mean 104, 117, 123" in md
    md, _ = card_hover(CARD.replace("channel_order", "chanel_order"), path, Position(2, 2))
    assert "unknown key" in md and "`channel_order`" in md
    zh, _ = card_hover(CARD, path, Position(2, 3), "zh")
    assert "训练好的网络所期望的通道顺序" in zh


def test_completion_of_missing_keys_values_and_the_table(tmp_path):
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "det1.prototxt").write_text("name: 'n'\n")
    (tmp_path / "model" / "det1.caffemodel").write_bytes(b"")
    path = str(tmp_path / "nnie.toml")
    text = CARD + "sc"
    items = card_completions(text, path, Position(4, 2))
    labels = [i.label for i in items]
    assert "scale" in labels and "channel_order" not in labels and "prototxt" not in labels
    scale = next(i for i in items if i.label == "scale")
    assert scale.insert_text == "scale = 1.0" and str(scale.replace) == "5:1-5:3"
    orders = card_completions(CARD + 'channel_order = "', path, Position(4, 17))
    assert [i.insert_text for i in orders] == ['"RGB"', '"BGR"', '"GRAY"'] and str(orders[0].replace) == "5:17-5:18"
    bools = card_completions(CARD + "transpose = ", path, Position(4, 12))
    assert [i.label for i in bools] == ["false", "true"]
    files = card_completions('[[model]]\nprototxt = "model/', path, Position(1, 18))
    assert [i.insert_text for i in files] == ['"model/det1.prototxt"']
    top = card_completions("", path, Position(0, 0))
    assert [i.label for i in top] == ["[[model]]"] and "channel_order" in top[0].insert_text


def test_cfg_hover_says_what_the_card_says(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "net.prototxt").write_text('input: "data"\ninput_shape { dim: 1 dim: 3 dim: 8 dim: 8 }\n')
    (tmp_path / "nnie.toml").write_text(CARD)
    (tmp_path / "net.cfg").write_text("[prototxt_file] ./net.prototxt\n[RGB_order] RGB\n[norm_type] 0\n")
    project = load_project(cfg_path=str(tmp_path / "net.cfg"))
    md, _ = cfg_hover(project, Position(1, 13))
    assert md.startswith('Model card nnie.toml:3: channel_order = "BGR"')

"""Finding a cfg's model card: its folder or any above, up to the repository root; the nearest
card holding an entry for the cfg's prototxt wins (nnie_lsp/project/card_lookup.py)."""

from __future__ import annotations

from nnie_lsp.readers.card import card_paths
from nnie_lsp.project.card_lookup import find_card
from nnie_lsp.project.sources import DiskProvider


def _card(folder, prototxt, order="BGR"):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "nnie.toml").write_text(f'[[model]]\nprototxt = "{prototxt}"\nchannel_order = "{order}"\n')


def test_nearest_card_with_the_entry_wins(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    net = repo / "models" / "face" / "net.prototxt"
    net.parent.mkdir(parents=True)
    net.write_text("name: 'n'\n")
    cfg = repo / "models" / "face" / "cfg" / "net.cfg"
    cfg.parent.mkdir()
    cfg.write_text("[prototxt_file] ../net.prototxt\n")
    _card(repo, "models/face/net.prototxt", "RGB")
    _card(repo / "models", "face/net.prototxt", "BGR")
    _card(repo / "models" / "face" / "cfg", "other.prototxt", "RGB")   # nearest, but for another net
    found = find_card(str(cfg), str(net))
    assert found.card_path == str(repo / "models" / "nnie.toml")
    assert found.model.channel_order == "BGR"
    assert found.cards[0] == str(repo / "models" / "face" / "cfg" / "nnie.toml")
    assert found.where("channel_order").endswith("models/nnie.toml:3")
    assert found.digest() == found.model.digest()


def test_stops_at_the_repository_root(tmp_path):
    _card(tmp_path, "repo/net.prototxt")          # above the repository: not this project's
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".git").write_text("gitdir: elsewhere\n")   # a worktree's .git file counts
    assert card_paths(str(repo / "net.cfg")) == []
    assert find_card(str(repo / "net.cfg"), str(repo / "net.prototxt")) is None


def test_no_entry_names_the_nearest_card(tmp_path):
    (tmp_path / ".git").mkdir()
    _card(tmp_path, "a.prototxt")
    found = find_card(str(tmp_path / "x.cfg"), str(tmp_path / "b.prototxt"))
    assert found is not None and not found.found and found.card_path == str(tmp_path / "nnie.toml")
    assert found.digest() is None


def test_unsaved_text_and_missing_files(tmp_path):
    (tmp_path / ".git").mkdir()
    card = tmp_path / "nnie.toml"
    card.write_text('[[model]]\nprototxt = "net.prototxt"\nchannel_order = "BGR"\n')
    provider = DiskProvider({str(card): '[[model]]\nprototxt = "net.prototxt"\nchannel_order = "RGB"\n'})
    found = find_card(str(tmp_path / "net.cfg"), str(tmp_path / "net.prototxt"), provider)
    assert found.model.channel_order == "RGB"        # the editor's text, not the disk's
    assert [p.msg_id for p in found.problems] == ["missing_file"]
    (tmp_path / "net.prototxt").write_text("name: 'n'\n")
    again = find_card(str(tmp_path / "net.cfg"), str(tmp_path / "net.prototxt"), provider)
    assert again.problems == ()                        # the parse is cached, the file check is not


def test_marked_copy_matches_through_its_original(tmp_path):
    (tmp_path / ".git").mkdir()
    _card(tmp_path, "net.prototxt")
    marked = tmp_path / "net_mark_nnie_20200101120000.prototxt"
    found = find_card(str(tmp_path / "x.cfg"), [str(marked), str(tmp_path / "net.prototxt")])
    assert found.found


def test_mean_image_counts_in_the_digest(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "nnie.toml").write_text('[[model]]\nprototxt = "n.prototxt"\nmean_file = "m.binaryproto"\n')
    (tmp_path / "m.binaryproto").write_bytes(b"\x01\x02")
    first = find_card(str(tmp_path), str(tmp_path / "n.prototxt")).digest()
    (tmp_path / "m.binaryproto").write_bytes(b"\x01\x03")
    assert find_card(str(tmp_path), str(tmp_path / "n.prototxt")).digest() != first

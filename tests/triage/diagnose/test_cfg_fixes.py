"""The cfg edit builders the triage fixes use (nnie_lsp/rules/fixes.py): a per-input key set for input k
lands where the mapper's k-th-occurrence rule gives it to input k, and only to input k."""
from __future__ import annotations

import pytest

from nnie_lsp.readers.cfg.model import MapperConfig
from nnie_lsp.readers.cfg.reader import parse_cfg
from nnie_lsp.rules.fixes import set_compile_mode, set_input_key, write_whole_file
from nnie_lsp.core.text import apply_edits

TWO = """[prototxt_file] ./net.prototxt
[net_type] 0
[image_list] ./a.txt
[image_type] 1
[norm_type] 3
[image_list] ./b.txt
[image_type] 1
[norm_type] 0
[RGB_order] BGR
"""


def _config(text: str) -> MapperConfig:
    return MapperConfig.from_document(parse_cfg(text, "net.cfg"))


def _set(text: str, index: int, key: str, value: str) -> MapperConfig:
    doc = parse_cfg(text, "net.cfg")
    edits = set_input_key(doc, MapperConfig.from_document(doc), index, key, value)
    assert edits is not None
    return _config(apply_edits(text, edits))


def test_own_entry_is_replaced():
    cfg = _set(TWO, 1, "norm_type", "5")
    assert [cfg.group(k).value("norm_type") for k in (0, 1)] == [3, 5]


def test_shared_key_is_split_so_only_that_input_changes():
    cfg = _set(TWO, 1, "RGB_order", "RGB")
    assert [cfg.group(k).value("RGB_order") for k in (0, 1)] == ["BGR", "RGB"]
    cfg = _set(TWO, 0, "RGB_order", "RGB")
    assert [cfg.group(k).value("RGB_order") for k in (0, 1)] == ["RGB", "BGR"]


def test_absent_shareable_key_gets_one_line_per_input_with_the_default_elsewhere():
    cfg = _set(TWO, 1, "data_scale", "0.0039215686")
    assert [cfg.group(k).value("data_scale") for k in (0, 1)] == [pytest.approx(1 / 256), pytest.approx(1 / 255)]
    assert cfg.is_per_input_consistent()


def test_absent_key_of_a_single_input_cfg_is_added_to_its_group():
    text = "[prototxt_file] ./net.prototxt\n[image_list] ./a.txt\n[norm_type] 3\n[compile_mode] 0\n"
    doc = parse_cfg(text, "net.cfg")
    (edit,) = set_input_key(doc, MapperConfig.from_document(doc), 0, "RGB_order", "RGB")
    new = apply_edits(text, [edit])
    assert new.splitlines()[3] == "[RGB_order] RGB"  # after the input's own entries
    assert _config(new).rgb_order(0) == "RGB"


def test_missing_per_input_key_goes_after_the_previous_occurrence():
    text = TWO.replace("[norm_type] 0\n", "")  # input 1 has no norm_type
    cfg = _set(text, 1, "norm_type", "5")
    assert [cfg.group(k).value("norm_type") for k in (0, 1)] == [3, 5] and cfg.is_per_input_consistent()


def test_no_place_gives_input_k_the_value_when_earlier_inputs_lack_the_key():
    text = TWO + "[image_list] ./c.txt\n[image_type] 1\n"
    text = text.replace("[norm_type] 0\n", "")  # norm_type only for input 0: input 2 cannot get one alone
    doc = parse_cfg(text, "net.cfg")
    assert set_input_key(doc, MapperConfig.from_document(doc), 2, "norm_type", "5") is None


def test_compile_mode_set_or_inserted_after_net_type():
    doc = parse_cfg(TWO, "net.cfg")
    new = apply_edits(TWO, [set_compile_mode(doc, MapperConfig.from_document(doc))])
    assert new.splitlines()[2] == "[compile_mode] 2" and _config(new).compile_mode == 2
    doc = parse_cfg(new.replace("[compile_mode] 2", "[compile_mode] 1"), "net.cfg")
    again = apply_edits(doc.text, [set_compile_mode(doc, MapperConfig.from_document(doc))])
    assert again == new


def test_whole_file_write_creates_or_replaces():
    created = write_whole_file("mean.txt", None, "1\n2\n3\n")
    assert apply_edits("", [created.edit]) == "1\n2\n3\n"
    replaced = write_whole_file("mean.txt", "104\n117\n123", "1\n2\n3\n")
    assert apply_edits("104\n117\n123", [replaced.edit]) == "1\n2\n3\n"

"""MapperConfig tests: per-input groups, effective entries, defaults, cross-check helpers."""

from __future__ import annotations

from pathlib import Path

import pytest

from nnie_lsp.readers.cfg.model import MapperConfig
from nnie_lsp.readers.cfg.reader import parse_cfg, read_cfg

DATA = Path(__file__).resolve().parents[2] / "data" / "cfg"
MULTI = DATA / "unresolved__ntk-doc__multi_input_NET.cfg"
MINDSPORE = DATA / "mindspore-ai__docs__docs-lite-docs-source_en-use-nnie.md.nnie.cfg"
ENET = DATA / "Strand2013__NNIE-lite__Converter-ENet-model_inst.cfg"


def cfg(text: str) -> MapperConfig:
    doc = parse_cfg(text)
    assert doc.errors == ()
    return MapperConfig.from_document(doc)


def test_multi_input_corpus_has_three_groups():
    m = MapperConfig.from_document(read_cfg(str(MULTI)))
    assert m.input_count == 3 and len(m.groups) == 3
    stems = ["input_img0_comp_fullface_stn.txt", "input_img0_comp2_stn.txt",
             "input_img0_comp3_stn.txt"]
    for k, g in enumerate(m.groups):
        assert g.index == k
        assert g.image_list.value.endswith(stems[k])
        assert g.image_list.line == 4 + 4 * k
        assert [e.line for e in g.entries] == [4 + 4 * k, 5 + 4 * k, 6 + 4 * k, 7 + 4 * k]
        assert g.image_type_value == 1 and g.norm_type_value == 2
        assert m.norm_type(k) == 2 and m.image_type(k) == 1
        assert g.mean_file_value.endswith("minus128.txt") and not g.mean_file_is_null
        assert g.RGB_order is None and g.data_scale is None and g.shared == frozenset()
        assert g.rgb_order_value == "BGR" and g.data_scale_value == 0.00390625  # defaults
    assert m.is_per_input_consistent()
    assert m.compile_mode == 2 and m.value("compress_mode") == 1 and m.batch_num == 0
    assert m.instruction_name == "inst"  # default: key absent
    assert m.instruction_entry is None
    assert m.missing_required() == ()
    assert m.invalid == () and m.unknown_entries == () and m.duplicates == {}


def test_single_input_corpus():
    m = MapperConfig.from_document(read_cfg(str(ENET)))
    assert m.input_count == 1 and len(m.groups) == 1
    g = m.groups[0]
    assert g.norm_type_value == 5 and g.data_scale_value == 1.0 and g.rgb_order_value == "BGR"
    assert g.shared == frozenset()
    assert m.compile_mode == 1 and m.net_type == 0 and m.is_simulation == 0
    assert m.prototxt_file == "./caffe_model/bn_conv_merged_model.prototxt"
    assert m.instruction_name == "./nnie_model/ENet_cityscapes"
    assert m.value("internal_stride") == 16
    assert m.value("max_roi_frame_cnt") == 300  # default
    assert m.roi_files == ()


def test_mindspore_cfg_misses_model_keys():
    m = MapperConfig.from_document(read_cfg(str(MINDSPORE)))
    assert [s.name for s in m.missing_required()] == ["prototxt_file", "caffemodel_file"]
    assert m.groups[0].image_type_value == 0 and m.groups[0].mean_file_is_null


SHARED = """[image_list] a.txt
[image_type] 1
[norm_type] 3
[mean_file] null
[image_list] b.txt
[image_type] 3
[norm_type] 5
[mean_file] b_mean.txt
[image_list] c.txt
[image_type] 1
[norm_type] 0
[mean_file] null
[RGB_order] RGB
[data_scale] 0.0078125
[data_scale] 0.5
[data_scale] 1
"""


def test_shared_rgb_order_and_per_input_data_scale():
    m = cfg(SHARED)
    assert len(m.groups) == 3
    rgb = m.entry("RGB_order")
    for k, g in enumerate(m.groups):
        assert g.RGB_order is rgb and "RGB_order" in g.shared
        assert "data_scale" not in g.shared
        assert m.rgb_order(k) == "RGB"
    assert [m.data_scale(k) for k in range(3)] == [0.0078125, 0.5, 1.0]
    assert [m.image_type(k) for k in range(3)] == [1, 3, 1]
    assert [m.norm_type(k) for k in range(3)] == [3, 5, 0]
    assert [g.mean_file_is_null for g in m.groups] == [True, False, True]
    assert m.is_per_input_consistent()
    assert m.groups[1].entries[-1].key == "data_scale"  # file order, shared entry included
    assert rgb in m.groups[0].entries


def test_per_input_mismatch_detected():
    text = SHARED.replace("[norm_type] 0\n", "").replace("[data_scale] 0.5\n", "")
    m = cfg(text)
    assert len(m.groups) == 3
    assert m.groups[2].norm_type is None and m.norm_type(2) is None
    mism = {x.key: (x.count, x.expected) for x in m.per_input_mismatches()}
    assert mism == {"norm_type": (2, 3), "data_scale": (2, 3)}
    assert not m.is_per_input_consistent()
    msg = m.per_input_mismatches()[0]
    assert "3 [image_list]" in msg.message and msg.message_zh


def test_more_groups_than_image_lists():
    m = cfg("[image_list] a\n[norm_type] 0\n[norm_type] 0\n")
    assert m.input_count == 1 and len(m.groups) == 2
    assert m.groups[1].image_list is None and m.groups[1].norm_type is not None
    assert [x.key for x in m.per_input_mismatches()] == ["norm_type"]


def test_effective_entry_duplicates_and_alias():
    m = cfg("[compile_mode] 0\n[compile_mode] 1\n[instructions_name] ./a\n[instruction_name] ./b\n")
    assert m.compile_mode == 1 and m.entry("compile_mode").line == 1
    assert set(m.duplicates) == {"compile_mode", "instruction_name"}
    assert [e.key for e in m.duplicates["instruction_name"]] == ["instructions_name",
                                                                 "instruction_name"]
    assert m.instruction_name == "./b"
    m2 = cfg("[instructions_name] ./only\n")
    assert m2.instruction_name == "./only"
    assert m2.entry("instruction_name").key == "instructions_name"
    assert m2.duplicates == {}


def test_invalid_values_and_checks():
    m = cfg("[norm_type] 9\n[data_scale] 0\n[batch_num] 12\n[foo] 1\n[insert_op_conf] x\n")
    assert m.norm_type(0) is None and m.value("batch_num") == 12
    assert m.data_scale(0) is None
    assert [c.entry.key for c in m.invalid] == ["norm_type", "data_scale"]
    assert m.invalid[1].check.message.startswith("data_scale must be a float >")
    assert [c.entry.key for c in m.checks] == ["norm_type", "data_scale", "batch_num"]
    assert m.check("batch_num").ok and m.check("foo") is None
    assert [e.key for e in m.unknown_entries] == ["foo"]
    assert [(e.key, fk.name) for e, fk in m.foreign_entries] == [("insert_op_conf",
                                                                   "insert_op_conf")]
    with pytest.raises(KeyError):
        m.value("foo")


def test_roi_files_and_empty_document():
    m = cfg("[net_type] 1\n[roi_coordinate_file] r1.txt\n[roi_coordinate_file] r2.txt\n")
    assert [e.value for e in m.roi_files] == ["r1.txt", "r2.txt"]
    assert m.net_type == 1 and m.duplicates == {}
    empty = cfg("")
    assert empty.groups == () and empty.input_count == 0
    assert empty.data_scale(0) == 0.00390625 and empty.rgb_order(0) == "BGR"
    assert empty.norm_type(0) is None and empty.mean_file(0) is None
    assert empty.compile_mode == 0 and empty.net_type is None and empty.batch_num == 256
    assert {s.name for s in empty.missing_required()} == {
        "prototxt_file", "caffemodel_file", "image_list", "image_type", "norm_type", "mean_file"}

"""The `.wk` reader on the three real files (every value checked against what the files' own
projects say) and on files from the test writer, damaged the ways real copies are."""

from __future__ import annotations

from pathlib import Path

import pytest

from nnie_lsp.readers.wk.reader import WkError, parse_wk, read_wk
from nnie_lsp.readers.wk.describe import lens_title, render_text, summary, to_json
from nnie_lsp.testing.wk_files import Blob, Node, Segment, WkSpec, flip, lfs_pointer_for, simple_spec, write_wk

DATA = Path(__file__).resolve().parents[2] / "data" / "wk"
ENET = DATA / "Strand2013__NNIE-lite__ENet_cityscapes.wk"
MNIST = DATA / "Strand2013__NNIE-lite__inst_mnist_cycle.wk"
MNET = DATA / "hanson-young__nniefacelib__mnet_mergebn_640L_inst.wk"


def test_enet_is_the_16_bit_build_its_cfg_asks_for():
    m = read_wk(str(ENET))
    assert m.intact and m.crc_ok and m.expected_size == m.file_size == 2309456
    assert m.mapper_version == "1.2.0.5_B010" and m.build_id == "1810161745211922"
    assert m.format_text == "1.1.1.2" and m.run_mode == 0 and m.stride_byte == 16
    assert len(m.segments) == 1 and m.segments[0].net_type == 0
    (data,) = m.inputs
    assert (data.name, data.height, data.width, data.channels, data.image_type) == ("data", 512, 1024, 3, 1)
    (out,) = m.outputs
    assert (out.name, out.height, out.width, out.channels, out.is_vector) == ("deconv6_0_0", 512, 1024, 33, False)
    # the cfg says [compile_mode] 1: every 1- or 2-byte blob is 2-byte
    census = m.census(0)
    assert census.verdict == "16-bit" and census.one == 0 and census.two == 122 and census.four == 88
    assert m.temp_buffer == 89128960 == m.plan_end
    # the board: a 33 × 512 × 1024 S32 output, stride align16(1024 × 4)
    assert out.board.blob_type == "S32" and out.board.stride == 4096 and out.board.size == 4096 * 512 * 33
    assert data.board.blob_type == "U8" and data.board.stride == 1024 and data.board.size == 1024 * 512 * 3
    memory = m.board_memory()
    assert memory.total == 89128960 + 1024 * 512 * 3 + 4096 * 512 * 33


def test_mnet_is_8_bit_with_three_outputs_cut_to_one_name():
    m = read_wk(str(MNET))
    assert m.intact and m.mapper_version == "1.2.1.0_B020" and m.build_id == "19010713251682"
    assert m.bits == "8-bit" and m.census().two == 0
    names = [n.name for n in m.outputs]
    assert names[:6] == ["face_rpn_bbox_pred_stride32", "face_rpn_bbox_pred_stride16", "face_rpn_bbox_pred_stride8",
                         "face_rpn_landmark_pred_stride32", "face_rpn_landmark_pred_stride16",
                         "face_rpn_landmark_pred_stride8"]
    assert names[6:] == ["face_rpn_cls_prob_reshape_strid"] * 3
    assert list(m.duplicate_output_names()) == [b"face_rpn_cls_prob_reshape_strid"]
    assert [(n.height, n.width, n.channels) for n in m.outputs[6:]] == [(20, 20, 4), (40, 40, 4), (80, 80, 4)]
    assert m.temp_buffer == 3686400 == m.plan_end


def test_mnist_vector_output_and_packed_blobs():
    m = read_wk(str(MNIST))
    assert m.intact and m.mapper_version == "1.2.0.1_B030" and m.bits == "8-bit"
    (prob,) = m.outputs
    assert prob.is_vector and (prob.height, prob.width, prob.channels) == (1, 1, 10)
    # a vector output: VEC_S32 of dimension 10, stride align16(40); the plan's own record of it says 10 × 1 × 1
    assert prob.board.blob_type == "VEC_S32" and prob.board.width == 10 and prob.board.stride == 48
    assert (m.plan[-1].width, m.plan[-1].height, m.plan[-1].channels, m.plan[-1].stride) == (10, 1, 1, 48)
    # conv1's 24 × 24 × 20 8-bit output: a row stride of 96 = align16(4 × 24), 24·24·20 bytes
    conv1 = m.plan[1]
    assert conv1.element_size == 1 and conv1.stride == 96 and conv1.packed and conv1.size == 24 * 24 * 20


def test_descriptions_mark_inferred_fields():
    m = read_wk(str(MNET))
    text = render_text(m)
    assert "1.2.1.0_B020 [I]" in text and "NNIE 1.2 [I]" in text and "19010713251682 [I]" in text
    assert "3 outputs share the name 'face_rpn_cls_prob_reshape_strid'" in text
    doc = to_json(m)
    assert doc["mapper_version"] == {"value": "1.2.1.0_B020", "status": "inferred"}
    assert doc["segments"][0]["destinations"][6]["name_may_be_cut"] is True
    assert lens_title(read_wk(str(ENET))) == "built: 16-bit [I], 1 segment, 1 output, needs 85.0 MiB + 67.5 MiB blobs"
    assert summary(m).startswith("a compiled NNIE model (.wk): 8-bit, 1 segment, 1 input, 9 outputs")


# ---------------------------------------------------------------- the writer's files

def _spec(**kw):
    return simple_spec([Node("data", 32, 48, 3)], [Node("out", 4, 6, 8), Node("prob", 1, 1, 10, vector=True)], **kw)


@pytest.mark.parametrize("bits", ["8-bit", "16-bit", "mixed"])
def test_writer_round_trip(bits):
    m = parse_wk(write_wk(_spec(bits=bits)), "x.wk")
    assert m.intact and m.bits == bits
    assert [n.name for n in m.outputs] == ["out", "prob"] and m.outputs[1].is_vector
    assert (m.inputs[0].height, m.inputs[0].width, m.inputs[0].channels) == (32, 48, 3)


def test_two_segments_census_is_not_known_per_segment():
    seg = Segment((Node("data", 8, 8, 3),), (Node("a", 4, 4, 8),))
    later = Segment((Node("a", 4, 4, 8, image_type=0),), (Node("b", 2, 2, 8),))
    m = parse_wk(write_wk(WkSpec(segments=(seg, later), blobs=(Blob(8, 8, 3, 1), Blob(4, 4, 8, 4, output=True)))))
    assert m.intact and m.census(0) is None and m.census().verdict == "8-bit"
    assert m.segments[1].sources[0].image_type == 0 and m.segments[1].sources[0].board.blob_type == "S32"
    # the board allocates the first segment's sources and every destination
    memory = m.board_memory()
    assert memory.sources == 16 * 8 * 3 and memory.destinations == 16 * 4 * 8 + 16 * 2 * 8


def test_long_names_are_cut_at_31_bytes():
    long = "face_rpn_cls_prob_reshape_stride32"
    spec = simple_spec([Node("data", 8, 8, 3)], [Node(long, 2, 2, 4), Node(long[:-2] + "16", 4, 4, 4)])
    m = parse_wk(write_wk(spec))
    assert [n.name for n in m.outputs] == [long[:31]] * 2 and all(n.name_may_be_cut for n in m.outputs)


# ---------------------------------------------------------------- damage

GOOD = write_wk(_spec())


@pytest.mark.parametrize("cut", [len(GOOD) - 1, len(GOOD) - 48, len(GOOD) // 2, 0x200])
def test_truncated_copies_are_damage_with_the_size_equation(cut):
    m = parse_wk(GOOD[:cut])
    kinds = {d.kind for d in m.damage}
    assert "size" in kinds and not m.intact
    size = next(d for d in m.damage if d.kind == "size")
    assert size.offset == cut and "truncated" in size.message and str(len(GOOD)) in size.message


def test_truncated_inside_the_tables_is_an_error_with_the_offset():
    with pytest.raises(WkError) as info:
        parse_wk(GOOD[:0xC0 + 40])
    assert info.value.kind == "truncated" and info.value.offset == 0xC0 + 40
    with pytest.raises(WkError) as info:
        parse_wk(GOOD[:100])
    assert info.value.kind == "truncated" and info.value.offset == 100


@pytest.mark.parametrize("offset", [0x0C + 1, 0x18, 0xC0 + 16 + 20, 0x400])
def test_a_changed_byte_breaks_the_crc(offset):
    m = parse_wk(flip(GOOD, offset))
    assert any(d.kind == "crc" and d.offset == 0 for d in m.damage)


def test_a_changed_tail_byte_breaks_the_plan_not_the_crc():
    end = len(GOOD)
    m = parse_wk(flip(GOOD, end - 48 * 2 + 12 + 2))  # an offset in the temp buffer of an S32 record
    assert m.crc_ok and any(d.kind == "plan" for d in m.damage)


def test_appended_bytes():
    m = parse_wk(GOOD + b"\0" * 10)
    (d,) = m.damage
    assert d.kind == "size" and d.offset == len(GOOD) and "10 bytes after the end" in d.message


def test_lfs_pointer_text_empty_and_foreign_files():
    with pytest.raises(WkError) as info:
        parse_wk(lfs_pointer_for(GOOD), "model.wk")
    assert info.value.kind == "lfs-pointer" and "git lfs pull" in str(info.value) and "model.wk" in str(info.value)
    for data, kind in ((b"", "empty"), (b'name: "net"\nlayer {}\n', "text"), (b"\x89PNG\r\n" + bytes(300), "not-wk")):
        with pytest.raises(WkError) as info:
            parse_wk(data)
        assert info.value.kind == kind


def test_unknown_format_version():
    data = write_wk(WkSpec(segments=_spec().segments, blobs=_spec().blobs, format_version=(1, 1, 1, 3)))
    with pytest.raises(WkError) as info:
        parse_wk(data)
    assert info.value.kind == "version" and info.value.offset == 0x10 and "1.1.1.3" in str(info.value)


def test_segment_and_node_counts_out_of_range():
    bad = bytearray(GOOD)
    bad[0x31] = 9
    with pytest.raises(WkError) as info:
        parse_wk(bytes(bad))
    assert info.value.kind == "structure" and info.value.offset == 0x31
    bad = bytearray(GOOD)
    bad[0xC0 + 2] = 0   # no destination
    with pytest.raises(WkError) as info:
        parse_wk(bytes(bad))
    assert info.value.offset == 0xC0 + 2


def test_length_fields_disagreeing():
    spec = _spec()
    m = parse_wk(write_wk(WkSpec(segments=spec.segments, blobs=spec.blobs, extra={0x04: 7})))
    assert any(d.kind == "length" and d.offset == 4 for d in m.damage)

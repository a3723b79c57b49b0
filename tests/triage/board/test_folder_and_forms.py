"""The board folder: file forms, which node a file is (names, 31-character names, indexes, the SDK
sample's report names), runs in sub-folders, discovery beside the cfg, and the readings' numbers."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from nnie_lsp.readers.dumpio.board import blob_memory, read_board_file, to_words, write_board_file
from nnie_lsp.readers.dumpio.board_forms import board_form
from nnie_lsp.triage.board.folder import match_file, read_board_folders
from nnie_lsp.triage.board.readings import (BoardThresholds, as_tensor, closeness, coverage, hwc_planes, restride,
                                            scale_name)
from nnie_lsp.triage.inputs.beside_cfg import discover
from nnie_lsp.readers.wk.contract import from_nodes


def _contract():
    return from_nodes([("data", (3, 8, 8), 1)],
                      [("prob1", (2, 13, 13)), ("conv4-2", (4, 13, 13)),
                       ("face_rpn_cls_prob_reshape_stride16", (4, 2, 2)),
                       ("face_rpn_cls_prob_reshape_stride32", (4, 1, 1)), ("conv5/relu", (8, 3, 3))])


@pytest.mark.parametrize("stem, node, how", [
    ("prob1", "prob1", "name"), ("PROB1", "prob1", "name"), ("conv5_relu", "conv5/relu", "name"),
    ("prob1_report", "prob1", "name"), ("output1", "conv4-2", "index"), ("out_0", "prob1", "index"),
    ("dst2", "face_rpn_cls_prob_reshape_stride16", "index"), ("1", "conv4-2", "index"),
    ("seg0_output1", "conv4-2", "index"), ("input", "data", "index"), ("src0", "data", "index"),
    ("data", "data", "name"), ("face_rpn_cls_prob_reshape_stride32", "face_rpn_cls_prob_reshape_stride32", "name"),
])
def test_which_node_a_file_is(stem, node, how):
    found, named_by, ambiguous = match_file(stem, _contract())
    assert (found.blob_name if found else None, named_by, ambiguous) == (node, how, ())


def test_a_shared_31_character_name_is_ambiguous():
    found, how, ambiguous = match_file("face_rpn_cls_prob_reshape_strid", _contract())
    assert found is None and how == "cut-name"
    assert [n.blob_name for n in ambiguous] == ["face_rpn_cls_prob_reshape_stride16", "face_rpn_cls_prob_reshape_stride32"]
    assert match_file("nothing_like_it", _contract()) == (None, None, ())


def test_forms_by_extension_and_float32_in_a_bin(tmp_path):
    assert [board_form(n).key for n in ("a.bin", "a.RAW", "a.s32", "a.txt", "a.csv", "a.hex", "a.f32", "a.npy")] == [
        "raw", "raw", "raw", "text", "text", "hex", "f32", "npy"]
    assert board_form("a.json") is None and board_form("a.log") is None
    values = np.linspace(-2, 5, 40)
    (tmp_path / "f.bin").write_bytes(values.astype("<f4").tobytes())
    read = read_board_file(str(tmp_path / "f.bin"), 4)
    assert read.words is None and read.note and np.allclose(read.values, values, atol=1e-6)
    (tmp_path / "w.bin").write_bytes(to_words(values).astype("<i4").tobytes())
    read = read_board_file(str(tmp_path / "w.bin"), 4)
    assert read.note is None and np.allclose(read.values, values, atol=1 / 8192)
    (tmp_path / "odd.bin").write_bytes(b"\0" * 7)
    with pytest.raises(ValueError, match="not a whole number of 4-byte S32 words"):
        read_board_file(str(tmp_path / "odd.bin"), 4)
    assert read_board_file(str(tmp_path / "odd.bin"), 1).count == 7
    (tmp_path / "bad.txt").write_text("1.0\nnot-a-number\n")
    with pytest.raises(ValueError, match="not a number"):
        read_board_file(str(tmp_path / "bad.txt"))
    np.save(tmp_path / "v.npy", values.reshape(5, 8))
    assert np.array_equal(read_board_file(str(tmp_path / "v.npy")).values, values)


def test_runs_in_sub_folders_and_files_in_no_form(tmp_path):
    contract = _contract()
    words = to_words(np.ones((2, 13, 13)))
    for run in ("run1", "run2"):
        (tmp_path / run).mkdir()
        write_board_file(str(tmp_path / run), "prob1", blob_memory(words.reshape(26, 13), 16), 13, 16, "bin")
    (tmp_path / "notes.md").write_text("what I ran")
    folder = read_board_folders([str(tmp_path)], contract)
    assert [r.label for r in folder.runs] == [f"{tmp_path.name}/run1", f"{tmp_path.name}/run2"]
    assert all(f.node.blob_name == "prob1" for r in folder.runs for f in r.files)
    with pytest.raises(ValueError, match="does not exist"):
        read_board_folders([str(tmp_path / "none")], contract)
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "readme.md").write_text("x")
    with pytest.raises(ValueError, match="no board dumps"):
        read_board_folders([str(empty)], contract)


def test_the_sample_report_names_take_the_outputs_in_node_id_order(tmp_path):
    contract = from_nodes([], [("prob1", (2, 3, 3)), ("conv4-2", (4, 3, 3))])
    for node_id, name in ((38, "a"), (12, "b")):
        (tmp_path / f"seg0_layer{node_id}_output0_inst.linear.hex").write_text("00001000\n" * 18)
    run = read_board_folders([str(tmp_path)], contract).first
    by = {f.name: (f.node.blob_name, f.named_by) for f in run.files}
    assert by == {"seg0_layer12_output0_inst.linear.hex": ("prob1", "report"),
                  "seg0_layer38_output0_inst.linear.hex": ("conv4-2", "report")}


def test_board_beside_the_cfg_is_discovered(tmp_path):
    cfg = tmp_path / "net.cfg"
    cfg.write_text("[prototxt_file] ./net.prototxt\n[image_type] 1\n")
    found = discover(str(cfg))
    assert found.get("board") is None and found.tried["board"][0]["why"] == "does not exist"
    (tmp_path / "board" / "run1").mkdir(parents=True)
    (tmp_path / "board" / "run2").mkdir()
    for run in ("run1", "run2"):
        (tmp_path / "board" / run / "prob1.txt").write_text("0.5\n")
    found = discover(str(cfg))
    assert found.path("board") == str(tmp_path / "board")
    assert "2 runs of one input" in found.get("board").rule
    assert json.loads(json.dumps(found.to_json()))["board"]["origin"] == "discovered"


def test_restride_coverage_and_hwc():
    mem = np.arange(2 * 3 * 16, dtype=float)              # 2 channels, 3 rows, stride 16, width 13
    t = as_tensor(mem, 2, 3, 13, 16)
    assert t[1, 2, 0] == (1 * 3 + 2) * 16
    packed = mem.reshape(6, 16)[:, :13].reshape(-1)
    assert np.isnan(restride(packed, 6, 13, 16)[-1]).all()
    assert coverage(packed.size, 6, 13, 13) == 1.0 and 0.5 < coverage(packed.size, 6, 13, 16) < 1.0
    img = np.arange(2 * 3 * 4).reshape(3, 4, 2)            # an H,W,C buffer
    planes = img.reshape(-1).reshape(2, 3, 4)
    assert np.array_equal(hwc_planes(planes), img.transpose(2, 0, 1))


def test_scale_names_and_closeness():
    th = BoardThresholds()
    assert [scale_name(k, th) for k in (4096.0, 4096 * 1.2, 1 / 4096, 1.1, 16.0, None)] == [
        "x4096", "x4096", "/4096", None, "factor", None]
    a = np.arange(20) / 4096.0
    assert closeness(a, a).level(th) == "bit-exact"
    b = a.copy()
    b[3] += 2 / 4096
    assert closeness(a, b).level(th) == "nearly bit-exact" and closeness(a, b).equal_share == 0.95
    assert closeness(a, a[::-1]).level(th) == "differs"
    coarse = np.round(np.linspace(0, 1, 50), 3)           # printed with 3 decimals: words unknown
    assert closeness(coarse, coarse).equal_share is None and closeness(coarse, coarse).level(th) == "close"


def test_an_unreadable_dump_is_t608_not_a_crash(tmp_path):
    from nnie_lsp.triage.board.checks import check_board

    contract = from_nodes([], [("prob1", (2, 3, 3))])
    (tmp_path / "prob1.bin").write_bytes(b"\0" * 6)
    (tmp_path / "other.txt").write_text("1\n2\n3\n")
    folder = read_board_folders([str(tmp_path)], contract)
    report = check_board(folder, {}, {})
    kinds = sorted((i.code, i.kind) for i in report.issues)
    assert kinds == [("T608", "no_node"), ("T608", "nothing"), ("T608", "unreadable")]
    assert os.path.exists(tmp_path / "prob1.bin")

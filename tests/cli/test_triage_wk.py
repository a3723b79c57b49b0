"""``nnie-triage wk``: the table and the JSON of the real `.wk` files, damage and errors as exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from nnie_lsp.cli.triage import main
from nnie_lsp.testing.wk_files import lfs_pointer_for

DATA = Path(__file__).resolve().parents[1] / "data"
WK = DATA / "wk"
MNET = WK / "hanson-young__nniefacelib__mnet_mergebn_640L_inst.wk"
ENET = WK / "Strand2013__NNIE-lite__ENet_cityscapes.wk"


def test_text_table_of_the_real_mnet(capsys):
    assert main(["wk", str(MNET)]) == 0
    out = capsys.readouterr().out
    assert "mapper           1.2.1.0_B020 [I] — NNIE 1.2 [I]" in out
    assert "bits             8-bit [I] (1399 1-byte, 36 4-byte S32 blobs" in out
    assert "data   640×640×3  U8 (1)" in out
    assert "face_rpn_cls_prob_reshape_strid …  80×80×4" in out
    assert "3 outputs share the name 'face_rpn_cls_prob_reshape_strid'" in out


def test_json_of_the_real_enet(capsys):
    assert main(["wk", str(ENET), "--format", "json", "--batch", "2"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema_version"] == 1 and doc["intact"] and doc["bits"]["verdict"] == "16-bit"
    assert doc["mapper_version"] == {"value": "1.2.0.5_B010", "status": "inferred"}
    out = doc["segments"][0]["destinations"][0]
    assert out["board"] == {"blob_type": "S32", "blob_type_code": 0, "n": 1, "c": 33, "h": 512, "w": 1024,
                            "element_size": 4, "stride": 4096, "size": 69206016, "read_as": "S32 / 4096",
                            "status": "inferred"}
    assert doc["memory"]["n"] == 2 and doc["memory"]["destinations"] == 2 * 69206016


def test_damaged_is_exit_1_with_the_damage_first(tmp_path, capsys):
    cut = tmp_path / "cut.wk"
    cut.write_bytes(MNET.read_bytes()[:-100])
    assert main(["wk", str(cut)]) == 1
    out = capsys.readouterr().out
    assert "DAMAGED: truncated: 2117004 bytes" in out and "(at byte 0x204d8c)" in out


def test_not_a_wk_is_exit_2_with_the_offset(tmp_path, capsys):
    pointer = tmp_path / "model.wk"
    pointer.write_bytes(lfs_pointer_for(MNET.read_bytes()))
    assert main(["wk", str(pointer)]) == 2
    err = capsys.readouterr().err
    assert "a Git LFS pointer" in err and "git lfs pull" in err and "(at byte 0x0)" in err
    assert main(["wk", str(tmp_path / "missing.wk")]) == 2


def test_the_cfgs_wk(tmp_path, capsys):
    (tmp_path / "nnie_model").mkdir()
    shutil.copy(ENET, tmp_path / "nnie_model" / "ENet_cityscapes.wk")
    shutil.copy(DATA / "cfg" / "Strand2013__NNIE-lite__Converter-ENet-model_inst.cfg", tmp_path / "net.cfg")
    assert main(["wk", "--cfg", str(tmp_path / "net.cfg")]) == 0
    assert "ENet_cityscapes.wk: compiled NNIE model" in capsys.readouterr().out
    (tmp_path / "nnie_model" / "ENet_cityscapes.wk").unlink()
    assert main(["wk", "--cfg", str(tmp_path / "net.cfg")]) == 2
    assert "no .wk for [instruction_name] ./nnie_model/ENet_cityscapes" in capsys.readouterr().err


def test_console_entry_point():
    run = subprocess.run([sys.executable, "-m", "nnie_lsp.cli.triage", "wk", str(MNET), "--format", "json"],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0 and json.loads(run.stdout)["duplicate_output_names"] == ["face_rpn_cls_prob_reshape_strid"]

"""Issue 17, point 1: verdict → fix → compare on the old dumps (T008 first, no reverting fix) →
``compare --regenerate`` (case 4), on a copy of examples/triage/channel_swap."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from nnie_lsp.cli.triage import main

pytest.importorskip("cv2")
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "triage"


def _copy(tmp_path) -> Path:
    shutil.copytree(EXAMPLE / "channel_swap", tmp_path / "channel_swap")   # copy2: the dump times kept
    shutil.copytree(EXAMPLE / "model", tmp_path / "model")
    shutil.copy2(EXAMPLE / "test1.jpg", tmp_path / "test1.jpg")
    shutil.copy2(EXAMPLE / "nnie.toml", tmp_path / "nnie.toml")   # how MTCNN was trained: the Caffe side's truth
    return tmp_path / "channel_swap"


def _compare(capsys, cfg: Path, *extra) -> dict:
    assert main(["compare", "--cfg", str(cfg), "--format", "json", "--progress", "none", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def _apply(fix: dict) -> None:
    for e in fix["edits"]:
        path = Path(os.path.abspath(e["path"]))   # relative to the working folder, as the JSON says
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        assert e["line"] == e["end_line"]
        line = lines[e["line"] - 1]
        lines[e["line"] - 1] = line[:e["column"] - 1] + e["new_text"] + line[e["end_column"] - 1:]
        path.write_text("".join(lines), encoding="utf-8")


def _bump(cfg: Path) -> None:
    """The cfg's change time after the dumps' (the fix is made after the mapper ran)."""
    t = max(p.stat().st_mtime for p in cfg.parent.rglob("*") if p.is_file()) + 10
    os.utime(cfg, (t, t))


def test_mapper_dumps_older_than_the_fixed_cfg(tmp_path, capsys):
    """The earlier triage stored what it read (its record beside the cfg): the same mapper dumps
    after a cfg fix are known to predate it, by content — T008, every fix withheld, no undo worded."""
    folder = _copy(tmp_path)
    cfg = folder / "sim.cfg"
    (folder / "mapper_quant" / "nnie-triage-dumps.json").unlink()   # as nnie_mapper leaves its dumps: no manifest
    doc = _compare(capsys, cfg)
    assert doc["case"] == 1 and doc["findings"][0]["code"] != "T008"
    assert (folder / ".nnie-triage" / "sim.json").is_file()   # the CLI stores the result beside the cfg
    t102 = next(f for f in doc["findings"] if f["code"] == "T102")
    _apply(t102["fix"])
    assert "[RGB_order] RGB" in cfg.read_text(encoding="utf-8")
    doc = _compare(capsys, cfg)
    first = doc["findings"][0]
    assert first["code"] == "T008" and "RGB_order: BGR → RGB" in first["message"]
    assert "the same files an earlier triage of this cfg read" in first["message"]
    assert all(f["fix"] is None for f in doc["findings"])
    t102 = next(f for f in doc["findings"] if f["code"] == "T102")
    assert "BGR" not in t102["message"] and "no advice from dumps that predate the cfg" in t102["message"]
    assert doc["awaiting_confirmation"][0]["code"] == "T102"
    # mapper dumps: --regenerate refuses
    assert main(["compare", "--cfg", str(cfg), "--regenerate", "--progress", "none"]) == 2
    assert "were not written by nnie-triage: re-run nnie_mapper" in capsys.readouterr().err


def test_file_times_alone_are_an_info_hint(tmp_path, capsys):
    """Without a record of what the dumps were made from, a cfg newer than the mapper's dumps is
    only a hint (T009, info): a copy or a checkout reorders file times; no fix is withheld."""
    folder = _copy(tmp_path)
    cfg = folder / "sim.cfg"
    (folder / "mapper_quant" / "nnie-triage-dumps.json").unlink()
    _bump(cfg)
    doc = _compare(capsys, cfg, "--no-record")
    assert not (folder / ".nnie-triage").exists()
    hint = next(f for f in doc["findings"] if f["code"] == "T009")
    assert hint["severity"] == "info" and "file times only" in hint["message"]
    assert not any(f["code"] == "T008" for f in doc["findings"])
    t102 = next(f for f in doc["findings"] if f["code"] == "T102")
    assert t102["fix"] is not None and "set [RGB_order] RGB" in t102["message"]


def test_emulation_regenerated_after_the_fix_gives_case_4(tmp_path, capsys):
    folder = _copy(tmp_path)
    cfg = folder / "sim.cfg"
    shutil.rmtree(folder / "mapper_quant")
    shutil.rmtree(folder / "output")
    # Caffe side: how the net was trained (the model card: RGB, transposed); the NNIE side: an emulation
    # of the cfg (BGR), fed the images transposed -- kept by --regenerate (the manifest records it)
    assert main(["reference", "--cfg", str(cfg), "--progress", "none"]) == 0
    assert main(["emulate", "--cfg", str(cfg), "--transpose", "--progress", "none"]) == 0
    manifest = json.loads((folder / "mapper_quant_emulated" / "nnie-triage-dumps.json").read_text(encoding="utf-8"))
    assert manifest["inputs_record"]["inputs"][0]["rgb_order"] == "BGR" and len(manifest["cfg_sha256"]) == 64
    assert manifest["options"]["transpose"] is True
    capsys.readouterr()
    doc = _compare(capsys, cfg)
    assert doc["case"] == 1
    t102 = next(f for f in doc["findings"] if f["code"] == "T102")
    _apply(t102["fix"])
    doc = _compare(capsys, cfg)   # the old emulation: the manifest says what changed (no file times)
    first = doc["findings"][0]
    assert first["code"] == "T008" and "(RGB_order: BGR → RGB)" in first["message"]
    assert "BGR" not in next(f for f in doc["findings"] if f["code"] == "T102")["message"]
    assert first["line"] == 7 and first.get("cfg_key") == "RGB_order"
    assert all(f["fix"] is None for f in doc["findings"])
    assert not any("BGR" in json.dumps(f["fix"]) for f in doc["findings"] if f["fix"])
    # the case-1 edits measured on the old dumps would set BGR again: the JSON marks them withheld
    assert doc["preprocessing"]["edits"] == [] and doc["preprocessing"]["edits_withheld"] is True
    assert "BGR" not in doc["reason"] and "T008" in doc["reason"]
    doc = _compare(capsys, cfg, "--regenerate")
    assert doc["case"] == 4
    assert [f["code"] for f in doc["findings"]] == ["T401"]

"""Issue 17: "the earlier finding is confirmed fixed" — only when the dumps were made again after
the fix (nnie_lsp/triage/confirmation.py), on a copy of examples/triage/channel_swap."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from nnie_lsp.cli.triage import main
from nnie_lsp.triage import store

pytest.importorskip("cv2")
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "triage"


@pytest.fixture
def folder(tmp_path, monkeypatch) -> Path:
    for name in ("channel_swap", "model"):
        shutil.copytree(EXAMPLE / name, tmp_path / name)
    shutil.copy2(EXAMPLE / "test1.jpg", tmp_path / "test1.jpg")
    monkeypatch.chdir(tmp_path)   # the JSON's paths are relative to the working folder
    return tmp_path / "channel_swap"


def _compare(capsys, cfg: Path, *extra) -> dict:
    assert main(["compare", "--cfg", str(cfg), "--format", "json", "--progress", "none", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def _store(doc: dict, cfg: Path) -> None:
    """What the editor stores after a run (nnie_lsp/server/triage/runner.py)."""
    inputs = {role: {"path": doc["inputs"][key], "origin": "discovered", "rule": ""}
              for role, key in (("reference", "reference"), ("sim", "sim"))}
    store.save(store.new_record(str(cfg), doc, cfg=str(cfg), prototxt=doc["inputs"]["prototxt"], inputs=inputs))


def _apply(fix: dict) -> None:
    for e in fix["edits"]:
        path = Path(os.path.abspath(e["path"]))
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        line = lines[e["line"] - 1]
        lines[e["line"] - 1] = line[:e["column"] - 1] + e["new_text"] + line[e["end_column"] - 1:]
        path.write_text("".join(lines), encoding="utf-8")


def test_fix_then_old_dumps_then_regenerate_confirms_t102(folder, capsys):
    cfg = folder / "sim.cfg"
    first = _compare(capsys, cfg)
    assert first["case"] == 1 and "confirmed_fixed" not in first   # no earlier result: nothing to say
    _store(first, cfg)
    _apply(next(f for f in first["findings"] if f["code"] == "T102")["fix"])
    # the old dumps: T008, nothing confirmed, T102 awaits dumps made again
    second = _compare(capsys, cfg)
    assert second["findings"][0]["code"] == "T008"
    assert second["confirmed_fixed"] == []
    assert [e["code"] for e in second["awaiting_confirmation"]] == ["T102"]
    _store(second, cfg)
    # made again with the fixed cfg: case 4, and T102 confirmed, with its cfg line
    third = _compare(capsys, cfg, "--regenerate", "--no-record")   # the second's record stays the earlier one
    assert third["case"] == 4 and third["awaiting_confirmation"] == []
    [entry] = third["confirmed_fixed"]
    assert entry["code"] == "T102" and entry["name"] == "rgb-order-mismatch"
    assert entry["title"].startswith("The simulator's channels are Caffe's in another order")
    assert entry["line"] == 7 and entry["cfg_line"] == "[RGB_order] RGB"
    assert entry["path"] == os.path.join("channel_swap", "sim.cfg")
    # the text and markdown reports say it once
    assert main(["compare", "--cfg", str(cfg), "--progress", "none", "--no-record",
                 "--previous", str(folder / ".nnie-triage" / "sim.json")]) == 0
    out = capsys.readouterr().out
    assert out.count("Confirmed fixed: T102 The simulator's channels") == 1 and "sim.cfg:7 [RGB_order] RGB" in out
    assert main(["compare", "--cfg", str(cfg), "--format", "markdown", "--progress", "none"]) == 0
    assert capsys.readouterr().out.count("Confirmed fixed: T102") == 1
    # that run stored its result: the next one follows it, and T102 is not confirmed twice
    assert "Confirmed fixed" not in json.dumps(_compare(capsys, cfg)["confirmed_fixed"])


def test_fix_then_regenerate_directly_confirms(folder, capsys):
    cfg = folder / "sim.cfg"
    first = _compare(capsys, cfg)
    _store(first, cfg)
    _apply(next(f for f in first["findings"] if f["code"] == "T102")["fix"])
    doc = _compare(capsys, cfg, "--regenerate")
    assert doc["case"] == 4 and [e["code"] for e in doc["confirmed_fixed"]] == ["T102"]
    # --previous none: the earlier result is not read
    assert "confirmed_fixed" not in _compare(capsys, cfg, "--previous", "none")


def test_never_confirmed_when_the_dumps_were_not_made_again(folder, capsys):
    """Mapper dumps (no manifest) whose file times do not betray the old cfg: the earlier triage's
    record tells (the same dumps, another cfg: T008), and the fix is not confirmed, it awaits them."""
    cfg = folder / "sim.cfg"
    (folder / "mapper_quant" / "nnie-triage-dumps.json").unlink()
    first = _compare(capsys, cfg)
    _store(first, cfg)
    _apply(next(f for f in first["findings"] if f["code"] == "T102")["fix"])
    old = min(p.stat().st_mtime for p in (folder / "mapper_quant").iterdir()) - 100
    os.utime(cfg, (old, old))   # the cfg looks older than the dumps (a checkout): T008 cannot tell
    doc = _compare(capsys, cfg)
    assert doc["findings"][0]["code"] == "T008" and "earlier triage" in doc["findings"][0]["message"]
    assert doc["confirmed_fixed"] == [] and [e["code"] for e in doc["awaiting_confirmation"]] == ["T102"]


def test_not_confirmed_when_the_case_remains_or_the_fix_was_undone(folder, capsys):
    cfg = folder / "sim.cfg"
    first = _compare(capsys, cfg)
    _store(first, cfg)
    # the fix applied and undone: nothing applied, nothing to confirm even with new dumps
    doc = _compare(capsys, cfg, "--regenerate")
    assert doc["case"] == 1 and doc["confirmed_fixed"] == [] and doc["awaiting_confirmation"] == []
    # another record's cfg: not the earlier result of this one
    other = folder / "other.cfg"
    shutil.copy(cfg, other)
    assert "confirmed_fixed" not in _compare(capsys, other, "--previous", str(folder / ".nnie-triage" / "sim.json"))
    # not a record at all: a clear message
    bad = folder / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    assert main(["compare", "--cfg", str(cfg), "--progress", "none", "--previous", str(bad)]) == 2
    assert "--previous" in capsys.readouterr().err

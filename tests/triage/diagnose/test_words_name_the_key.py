"""What the reports say names what it is about (issue 24, "Also seen"): a bad --threshold names the
threshold and the value; every "Why:" line names the cfg key it edits (a mean-file fix says it
rewrites the file's values); on dumps that predate the cfg (T008) nothing words the undo of the fix
just made and the next step is to make the dumps again.  On copies of examples/triage/channel_swap
(the real MTCNN det1), the NNIE side emulated from the faulty cfg."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from nnie_lsp.cli.triage import main
from nnie_lsp.triage.measure.metrics import Thresholds

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "triage"


def test_a_threshold_that_is_not_a_number_names_itself(capsys):
    with pytest.raises(ValueError, match=r"threshold good=abc: 'abc' is not a number; good takes a number within "
                                         r"\[0, 1\] \(default 0.99\)"):
        Thresholds.from_mapping({"good": "abc"})
    with pytest.raises(ValueError, match=r"threshold mean_tolerance=300: out of range; mean_tolerance takes a number "
                                         r"within \[0, 255\]"):
        Thresholds.from_mapping({"mean_tolerance": "300"})
    folder = EXAMPLE / "channel_swap"
    assert main(["compare", "--reference", str(folder / "output"), "--sim", str(folder / "mapper_quant"),
                 "--threshold", "good=abc", "--progress", "none"]) == 2
    err = capsys.readouterr().err
    assert "error: --threshold good=abc: 'abc' is not a number; good takes a number within [0, 1]" in err, err
    assert "could not convert" not in err


def _project(tmp_path, replace: dict[str, str], mean: str | None = None) -> Path:
    """channel_swap with the cfg's lines changed, the NNIE side emulated from it (the Caffe side:
    output/, made from the model card: RGB, (x - 127.5) × 0.0078125, transposed)."""
    pytest.importorskip("cv2")
    shutil.copytree(EXAMPLE / "channel_swap", tmp_path / "channel_swap")
    shutil.copytree(EXAMPLE / "model", tmp_path / "model")
    shutil.copy(EXAMPLE / "test1.jpg", tmp_path / "test1.jpg")
    shutil.copy(EXAMPLE / "nnie.toml", tmp_path / "nnie.toml")
    cfg = tmp_path / "channel_swap" / "sim.cfg"
    text = cfg.read_text()
    for old, new in {"[RGB_order] BGR": "[RGB_order] RGB", **replace}.items():
        assert old in text
        text = text.replace(old, new)
    cfg.write_text(text)
    if mean is not None:
        (cfg.parent / "mean.txt").write_text(mean)
    shutil.rmtree(cfg.parent / "mapper_quant")
    assert main(["emulate", "--cfg", str(cfg), "--transpose", "-o", str(cfg.parent / "mapper_quant"),
                 "--progress", "none"]) == 0
    return cfg


def _text(capsys, cfg: Path) -> str:
    capsys.readouterr()
    assert main(["compare", "--cfg", str(cfg), "--no-record", "--output", str(cfg.parent / "r.txt"),
                 "--progress", "none"]) == 0
    return (cfg.parent / "r.txt").read_text(encoding="utf-8")


def _json(capsys, cfg: Path) -> dict:
    capsys.readouterr()
    assert main(["compare", "--cfg", str(cfg), "--format", "json", "--progress", "none"]) == 0
    return json.loads(capsys.readouterr().out)


def _apply(fix: dict) -> None:
    """The fix's edits (1-based line/column ranges, possibly over several lines) written."""
    for e in fix["edits"]:
        path = Path(os.path.abspath(e["path"]))
        text = path.read_text(encoding="utf-8")
        starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]

        def offset(line: int, column: int) -> int:
            return (starts[line - 1] if line <= len(starts) else len(text)) + column - 1

        a, b = offset(e["line"], e["column"]), offset(e["end_line"], e["end_column"])
        path.write_text(text[:a] + e["new_text"] + text[b:], encoding="utf-8")


def test_the_why_line_names_the_key(tmp_path, capsys):
    cfg = _project(tmp_path, {"[data_scale] 0.0078125": "[data_scale] 0.00390625"})
    text = _text(capsys, cfg)
    assert "Why: the data layers differ; fix the cfg: [data_scale] 0.0078125" in text, text


def test_the_why_line_of_a_mean_file_fix_says_it_rewrites_the_values(tmp_path, capsys):
    cfg = _project(tmp_path, {}, mean="100\n110\n120\n")
    text = _text(capsys, cfg)
    assert "fix the cfg: [mean_file] ./mean.txt: its values → 127.5 127.5 127.5" in " ".join(text.split()), text


@pytest.mark.parametrize("fault, code, undo", [
    ({"[data_scale] 0.0078125": "[data_scale] 0.00390625"}, "T103", "0.00390625"),
    ({"[RGB_order] RGB": "[RGB_order] BGR"}, "T102", "BGR"),
    # the mean file holds 100, 110, 120; on the old dumps the fit plus the cfg's new 127.5 would say 155
    ({}, "T104", "155"),
])
def test_a_withheld_finding_never_words_the_undo(tmp_path, capsys, monkeypatch, fault, code, undo):
    cfg = _project(tmp_path, {} if code == "T102" else fault, mean="100\n110\n120\n" if code == "T104" else None)
    if code == "T102":   # the cfg says BGR for the RGB-trained net: emulated so, then the fix
        text = cfg.read_text()
        cfg.write_text(text.replace("[RGB_order] RGB", "[RGB_order] BGR"))
        shutil.rmtree(cfg.parent / "mapper_quant")
        assert main(["emulate", "--cfg", str(cfg), "--transpose", "-o", str(cfg.parent / "mapper_quant"),
                     "--progress", "none"]) == 0
    monkeypatch.chdir(tmp_path)   # the JSON's paths are relative to the working folder
    doc = _json(capsys, cfg)
    found = next(f for f in doc["findings"] if f["code"] == code)
    _apply(found["fix"])
    doc = _json(capsys, cfg)   # the old dumps: T008, every fix withheld
    assert doc["findings"][0]["code"] == "T008"
    for f in doc["findings"][1:]:
        assert f["fix"] is None and "set [" not in f["message"] and undo not in f["message"], f["message"]
    assert undo not in doc["reason"] and "fix the cfg" not in doc["reason"]
    if code == "T104":   # what the old dumps show, measured: the simulator's data minus Caffe's
        t104 = next(f for f in doc["findings"] if f["code"] == "T104")
        assert "the simulator's data minus Caffe's is (27.5, 17.5, 7.5) grey levels" in t104["message"]
    assert doc["next_step_text"].startswith("step 1: regenerate the emulation with the current cfg")
    text = _text(capsys, cfg)
    assert "Next: step 1: regenerate the emulation" in text and "fix the preprocessing" not in text

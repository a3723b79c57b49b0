"""One `_hp` planner: compare's T207 and T204 are `nnie-triage hp-plan`'s answer on the same cfg and
NNIE dumps (nnie_lsp/triage/hp_plan/for_compare.py), ranked by measured gain, and the plan, applied
and regenerated, is confirmed fixed.  Nets with known answers: nnie_lsp.testing.hp_synthetic (a
BN-style weight outlier at one convolution, so that layer and no other is the bottleneck)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from nnie_lsp.cli.triage import main
from nnie_lsp.core.diagnostics import Diagnostic
from nnie_lsp.server.triage.annotations import fix_from_json
from nnie_lsp.lint.driver import choose_fixes, write_atomic
from nnie_lsp.testing.hp_synthetic import DeepNetSpec, write_project
from nnie_lsp.core.text import Range, apply_edits, read_text


def _run(capsys, *argv) -> str:
    code = main(list(argv))
    out = capsys.readouterr()
    assert code == 0, out.err
    return out.out


def _compare(capsys, project, *extra) -> dict:
    out = project["root"] / f"report{len(list(project['root'].glob('report*.json')))}.json"
    _run(capsys, "compare", "--cfg", str(project["cfg"]), "--reference", str(project["root"] / "ref"),
         "--sim", str(project["root"] / "sim"), "--format", "json", "--output", str(out), "--progress", "none",
         *extra)
    return json.loads(out.read_text())


def _apply(fix_json: dict, base: str) -> None:
    """The fix applied the way `nnie-lint --fix --unsafe-fixes` applies fixes."""
    fix = fix_from_json(fix_json, base)
    carrier = Diagnostic(code="T207", message=fix.message, path=fix.edits[0].path, range=Range.point(0, 0), fix=fix)
    (chosen,) = choose_fixes([carrier], unsafe=True)
    by_path: dict[str, list] = {}
    for file_edit in chosen.edits:
        by_path.setdefault(os.path.abspath(file_edit.path), []).append(file_edit.edit)
    for path, edits in by_path.items():
        decoded = read_text(path)
        write_atomic(path, apply_edits(decoded.text, edits), decoded)


@pytest.fixture
def project(tmp_path, monkeypatch, capsys):
    pytest.importorskip("cv2")
    monkeypatch.chdir(tmp_path)
    # conv7's outlier is 1000x its other weights: 8 bit flushes them, the end falls to case 2
    paths = write_project(tmp_path / "deep", DeepNetSpec(depth=10, bottlenecks={7: 1000.0}))
    root = paths["root"]
    _run(capsys, "reference", "--cfg", str(paths["cfg"]), "-o", str(root / "ref"), "--progress", "none")
    _run(capsys, "emulate", "--cfg", str(paths["cfg"]), "-o", str(root / "sim"), "--progress", "none")
    return paths


def test_t207_is_hp_plans_plan_ranked_by_measured_gain(project, capsys):
    doc = _compare(capsys, project)
    assert doc["case"] == 2
    plan = doc["hp_plan"]
    assert plan["made"] and plan["layers"] == ["conv7"] and plan["reaches_target"]
    # the same command, the same answer
    argv = plan["command"].split()[1:]
    hp = json.loads(_run(capsys, *argv, "--format", "json"))
    assert hp["plan"]["layers"] == plan["layers"] and hp["plan"]["similarity"] == plan["similarity"]
    assert [r["layer"] for r in hp["ranking"] if r["gain"] > 1e-9][:len(doc["hp_candidates"])] == \
        [c["layer"] for c in doc["hp_candidates"]]
    # ranked by gain, no zero-gain candidate, and the first convolution is no candidate by position
    gains = [c["gain"] for c in doc["hp_candidates"]]
    assert gains == sorted(gains, reverse=True) and min(gains) > 0
    assert doc["hp_candidates"][0]["layer"] == "conv7" and doc["hp_candidates"][0]["in_plan"]
    assert [c["layer"] for c in doc["hp_candidates"] if c["in_plan"]] == ["conv7"]
    (t207,) = [f for f in doc["findings"] if f["code"] == "T207"]
    assert plan["command"] in t207["message"] and '"conv7"' in t207["message"] and t207["cfg_key"] == "compile_mode"
    edits = {(Path(e["path"]).name, e["new_text"]) for e in t207["fix"]["edits"]}
    assert edits == {("deep.prototxt", '"conv7_hp"'), ("deep.cfg", "2")}
    t204 = [f for f in doc["findings"] if f["code"] == "T204"]
    assert t204[0]["layer"] == "conv7" and "in the plan" in t204[0]["message"]


def test_the_plan_applied_and_regenerated_is_confirmed_fixed(project, capsys):
    first = _compare(capsys, project)
    (t207,) = [f for f in first["findings"] if f["code"] == "T207"]
    _apply(t207["fix"], first["inputs"]["working_directory"])
    again = _compare(capsys, project, "--regenerate")
    assert again["case"] == 4, again["reason"]
    assert [e["code"] for e in again.get("confirmed_fixed") or []] == ["T207"]
    assert again["hp_plan"] is None and not [f for f in again["findings"] if f["code"].startswith("T20")]


def test_no_hp_plan_gives_the_command_and_no_change(project, capsys):
    doc = _compare(capsys, project, "--no-hp-plan", "--no-record")
    assert doc["case"] == 2 and not doc["hp_plan"]["made"]
    (t207,) = [f for f in doc["findings"] if f["code"] == "T207"]
    assert t207["fix"] is None and "--no-hp-plan" in t207["message"] and "hp-plan --cfg" in t207["message"]
    assert not [f for f in doc["findings"] if f["code"] == "T204"]
    assert doc["hp_candidates"] and all(c["gain"] is None for c in doc["hp_candidates"])


def test_without_opencv_the_comparison_still_ends_and_t207_says_what_the_plan_needs(tmp_path, capsys, monkeypatch):
    """The comparison needs numpy alone (the universal VSIX's Python); the plan reads the images with
    OpenCV: without it, case 2 still comes, and T207 names the module and the command, no fix."""
    import shutil
    import sys

    example = Path(__file__).resolve().parents[3] / "examples" / "triage"
    for name in ("quant_outlier", "model"):
        shutil.copytree(example / name, tmp_path / name)
    shutil.copy(example / "test1.jpg", tmp_path / "test1.jpg")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "cv2", None)   # `import cv2` raises ImportError
    assert main(["compare", "--cfg", "quant_outlier/sim.cfg", "--format", "json", "--progress", "none",
                 "--no-record"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["case"] == 2
    t207 = next(f for f in doc["findings"] if f["code"] == "T207")
    assert "cv2" in t207["message"] and "hp-plan" in t207["message"] and t207.get("fix") is None

"""The fixes nnie-triage's findings carry are nnie-lint fixes: take `compare --format json` on real
MTCNN dump sets, apply every finding's fix with nnie-lint's own machinery (batch.choose_fixes picks
non-overlapping fixes, fix_writes.apply_fixes writes them by compare-and-swap), then lint the
project again with nnie-lint — and, for the preprocessing fixes, emulate the NNIE side again with the
fixed cfg: the data layer must now match Caffe."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from nnie_lsp.lint.fix_writes import apply_fixes
from nnie_lsp.lint.driver import choose_fixes, lint_files
from nnie_lsp.cli.triage import main
from nnie_lsp.server.triage.annotations import finding_diagnostics
from nnie_lsp.lint import project_for_file
from nnie_lsp.project.settings import LintSettings
from nnie_lsp.core.text import read_text

IMAGE = Path(__file__).resolve().parents[2] / "examples" / "triage" / "test1.jpg"  # MTCNN test1.jpg (MIT)


def _project(scenario_dirs, name: str, dest: Path) -> dict:
    """A copy of a scenario laid out as a mapper project: the cfg with its prototxt and caffemodel."""
    p = scenario_dirs(name)
    root = dest / name
    shutil.copytree(Path(p["cfg"]).parent, root)
    shutil.copy(p["prototxt"], root / Path(p["prototxt"]).name)
    shutil.copy(p["caffemodel"], root / Path(p["caffemodel"]).name)
    out = {k: root / Path(v).relative_to(Path(p["cfg"]).parent) for k, v in p.items()
           if isinstance(v, Path) and k in ("caffe", "nnie", "nnie16", "cfg")}
    out.update(prototxt=root / Path(p["prototxt"]).name, caffemodel=root / Path(p["caffemodel"]).name, root=root)
    for path in root.rglob("*"):   # the scenario cache is read-only; the user's copy is theirs to fix
        if path.is_file():
            path.chmod(path.stat().st_mode | 0o200)
    return out


def _compare(capsys, project: dict, *extra) -> dict:
    argv = ["compare", "--reference", str(project["caffe"]), "--sim", str(project["nnie"]), "--cfg",
            str(project["cfg"]), "--prototxt", str(project["prototxt"]), "--format", "json", *extra]
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def _apply_all(report: dict) -> dict[str, str]:
    """Every finding's fix, chosen the way `nnie-lint --fix --unsafe-fixes` does and written by its
    compare-and-swap writer (nnie_lsp.lint.fix_writes.apply_fixes)."""
    diags = finding_diagnostics(report)
    chosen = choose_fixes(diags, unsafe=True)
    assert chosen, "the report carries no fix"
    outcome = apply_fixes(chosen)
    assert not outcome.not_written, (outcome.changed, outcome.failed, outcome.held)
    return {path: read_text(path).text for path in outcome.written}


def _lint(project: dict):
    return lint_files([str(project["cfg"])], settings=LintSettings()).diagnostics


def _data_cosine(report: dict) -> float:
    return next(r["cosine"] for r in report["layers"] if r["is_data"])


@pytest.mark.parametrize("scenario, key, value", [("channel_swap", "RGB_order", "RGB"),
                                                   ("missing_mean", "norm_type", 5)])
def test_case1_fix_makes_the_data_layer_match(scenario_dirs, capsys, tmp_path, monkeypatch, scenario, key, value):
    monkeypatch.chdir(tmp_path)  # the report's paths are relative to the working directory
    project = _project(scenario_dirs, scenario, tmp_path)
    before = _lint(project)
    report = _compare(capsys, project)
    assert report["case"] == 1 and _data_cosine(report) < report["thresholds"]["data_layer"]
    fixes = [f["fix"] for f in report["findings"] if f["fix"]]
    assert fixes and all(f["applicability"] == "unsafe" for f in fixes)  # preprocessing changes the net
    _apply_all(report)
    # nnie-lint reads the fixed cfg as meant, and finds nothing new
    config = project_for_file(str(project["cfg"]), settings=LintSettings()).config
    assert config.group(0).value(key) == value
    after = _lint(project)
    assert {d.code for d in after} <= {d.code for d in before}, [str(d.message) for d in after]
    if scenario == "missing_mean":
        assert (project["root"] / "channel_mean.txt").read_text() == "127.5\n127.5\n127.5\n"
        assert config.group(0).mean_file_value == "./channel_mean.txt"
    # the NNIE side emulated again with the fixed cfg: the data layer now matches Caffe
    fixed_sim = project["root"] / "nnie_fixed"
    assert main(["emulate", "--prototxt", str(project["prototxt"]), "--caffemodel", str(project["caffemodel"]),
                 "--image", str(IMAGE), "--cfg", str(project["cfg"]), "--transpose", "-o", str(fixed_sim)]) == 0
    capsys.readouterr()
    again = _compare(capsys, {**project, "nnie": fixed_sim})
    assert again["case"] != 1 and _data_cosine(again) >= again["thresholds"]["data_layer"]
    assert not [f for f in again["findings"] if f["code"].startswith("T1")]


def test_case2_hp_plan_renames_and_sets_compile_mode(tmp_path, capsys, monkeypatch):
    """The plan of a case 2 (hp-plan's, tests/triage/hp_plan/test_hp_plan_compare.py) applied with nnie-lint's
    own machinery: only the plan's layers renamed, not rewired, [compile_mode] 2, lint happy."""
    pytest.importorskip("cv2")
    from nnie_lsp.testing.hp_synthetic import DeepNetSpec, write_project

    monkeypatch.chdir(tmp_path)
    paths = write_project(tmp_path / "deep", DeepNetSpec(depth=10, bottlenecks={7: 1000.0}))
    project = {"cfg": paths["cfg"], "prototxt": paths["prototxt"], "caffe": paths["root"] / "ref",
               "nnie": paths["root"] / "sim"}
    for command, out in (("reference", project["caffe"]), ("emulate", project["nnie"])):
        assert main([command, "--cfg", str(paths["cfg"]), "-o", str(out), "--progress", "none"]) == 0
    capsys.readouterr()
    before = _lint(project)
    proto_before = project_for_file(str(project["cfg"]), settings=LintSettings()).graph
    report = _compare(capsys, project, "--no-record")
    assert report["case"] == 2
    (plan,) = [f for f in report["findings"] if f["code"] == "T207"]
    in_plan = [c["layer"] for c in report["hp_candidates"] if c["in_plan"]]
    assert plan["fix"]["applicability"] == "unsafe" and in_plan == report["hp_plan"]["layers"] == ["conv7"]
    _apply_all({**report, "findings": [plan]})   # the plan, as the editor's "apply all" takes it (not each T204)
    project_after = project_for_file(str(project["cfg"]), settings=LintSettings())
    assert project_after.config.compile_mode == 2
    names = [layer.name for layer in project_after.graph.layers]
    assert [n for n in names if n.endswith("_hp")] == ["conv7_hp"]
    # renamed, not rewired: the same layers write the same blobs in the same order
    assert [layer.tops for layer in project_after.graph.layers] == [layer.tops for layer in proto_before.layers]
    assert [layer.name.removesuffix("_hp") for layer in project_after.graph.layers] == \
        [layer.name for layer in proto_before.layers]
    after = _lint(project)
    assert not {"NN201", "NN202", "NN203"} & {d.code for d in after}  # the quantization rules are happy
    assert {d.code for d in after} <= {d.code for d in before}


def test_case2_whose_run_the_emulation_cannot_explain_offers_no_plan(scenario_dirs, capsys, tmp_path, monkeypatch):
    """quant_noise's NNIE side carries noise no quantization makes: hp-plan refuses to plan on it, and
    so does the comparison -- T207 says why and offers no change."""
    monkeypatch.chdir(tmp_path)
    project = _project(scenario_dirs, "quant_noise", tmp_path)
    report = _compare(capsys, project, "--sim-16bit", str(project["nnie16"]), "--no-record")
    assert report["case"] == 2 and not report["hp_plan"]["made"]
    (plan,) = [f for f in report["findings"] if f["code"] == "T207"]
    assert plan["fix"] is None and "disagrees" in plan["message"] and "hp-plan --cfg" in plan["message"]


def test_case3_deinplace_fix_is_safe_and_lint_agrees(scenario_dirs, capsys, tmp_path, monkeypatch):
    """T301 carries nnie-lint's de-inplace fix; after it nnie-lint's NN303 (enabled) is silent there."""
    monkeypatch.chdir(tmp_path)
    project = _project(scenario_dirs, "inplace_split", tmp_path)
    proto = project["prototxt"]
    # the scenario's cfg names det2; no cfg needed here: the prototxt alone
    argv = ["compare", "--reference", str(project["caffe"]), "--sim", str(project["nnie"]), "--prototxt", str(proto),
            "--format", "json"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    (t301,) = [f for f in report["findings"] if f["code"] == "T301"]
    assert t301["fix"]["applicability"] == "safe"
    nn303 = [d for d in lint_files([str(proto)], settings=LintSettings(select=("NN303",))).diagnostics
             if "prelu4" in d.message]
    assert nn303 and nn303[0].fix.edits[0].edit.new_text in {e["new_text"] for e in t301["fix"]["edits"]}
    _apply_all(report)
    again = [d for d in lint_files([str(proto)], settings=LintSettings(select=("NN303",))).diagnostics
             if "prelu4" in d.message]
    assert not again


def test_inplace_split_honours_extra_inplace_pairs_like_lint(scenario_dirs, capsys, tmp_path, monkeypatch):
    """With `extra-inplace-pairs = [["InnerProduct", "PReLU"]]` in the project's pyproject.toml the
    pair is NN301's for nnie-lint, and the triage's T301 names NN301 too (one definition)."""
    monkeypatch.chdir(tmp_path)
    project = _project(scenario_dirs, "inplace_split", tmp_path)
    (project["root"] / "pyproject.toml").write_text(
        '[tool.nnie-lint]\nextra-inplace-pairs = [["InnerProduct", "PReLU"]]\n')
    argv = ["compare", "--reference", str(project["caffe"]), "--sim", str(project["nnie"]), "--prototxt",
            str(project["prototxt"]), "--format", "json"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    (dip,) = report["dips"]
    assert dip["lint_code"] == "NN301" and "NN301" in dip["fix"]["message"]
    from nnie_lsp.project.settings import load_settings
    lint = lint_files([str(project["prototxt"])], settings=load_settings(str(project["prototxt"]))).diagnostics
    assert any(d.code == "NN301" and "prelu4" in d.message for d in lint)

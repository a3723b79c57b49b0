"""`nnie-triage hp-plan` end to end: from the cfg alone, the plan's one Fix applied with nnie-lint's
own machinery and linted again, the report formats, bad input, and the check against real runs."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from nnie_lsp.lint.driver import choose_fixes, lint_files, write_atomic
from nnie_lsp.cli.triage import main
from nnie_lsp.core.diagnostics import Diagnostic
from nnie_lsp.server.triage.annotations import fix_from_json
from nnie_lsp.lint import project_for_file
from nnie_lsp.project.settings import LintSettings
from nnie_lsp.core.text import Range, apply_edits, read_text
from nnie_lsp.testing.hp_synthetic import DeepNetSpec, write_project

QUANTIZATION_RULES = {"NN201", "NN202", "NN203"}


@pytest.fixture
def project(tmp_path, monkeypatch):
    pytest.importorskip("cv2")
    monkeypatch.chdir(tmp_path)  # the report's paths are relative to the working directory
    return write_project(tmp_path / "deep", DeepNetSpec(depth=10, bottlenecks={7: 100.0}))


def _json(capsys, *argv) -> dict:
    assert main(["hp-plan", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


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


def test_plan_from_the_cfg_alone_and_its_fix_lints_clean(project, capsys):
    cfg = str(project["cfg"])
    before = {d.code for d in lint_files([cfg], settings=LintSettings()).diagnostics}
    graph_before = project_for_file(cfg, settings=LintSettings()).graph
    doc = _json(capsys, "--cfg", cfg)
    assert doc["schema_version"] == 2 and doc["plan"]["layers"] == ["conv7"] and doc["plan"]["reaches_target"]
    assert doc["final_outputs"] == ["head"] and doc["mapper_runs"] == {"planning": 0, "to_confirm": 1}
    assert doc["curve"][0]["hp_layers"] == 0 and doc["curve"][1]["added"] == "conv7"
    assert doc["baseline"]["similarity"] < doc["target"] <= doc["curve"][1]["similarity"]
    fix = doc["fix"]
    assert fix["applicability"] == "unsafe"
    edits = {(Path(e["path"]).name, e["new_text"]) for e in fix["edits"]}
    assert edits == {("deep.prototxt", '"conv7_hp"'), ("deep.cfg", "2")}
    _apply(fix, doc["inputs"]["working_directory"])
    after = project_for_file(cfg, settings=LintSettings())
    assert after.config.compile_mode == 2
    renamed = [(a.name, b.name) for a, b in zip(graph_before.layers, after.graph.layers) if a.name != b.name]
    assert renamed == [("conv7", "conv7_hp")]  # exactly the chosen layer
    assert [layer.tops for layer in after.graph.layers] == [layer.tops for layer in graph_before.layers]
    codes = {d.code for d in lint_files([cfg], settings=LintSettings()).diagnostics}
    assert not QUANTIZATION_RULES & codes and codes <= before
    # planned again on the fixed project: conv7 is `_hp` already, the target is met
    again = _json(capsys, "--cfg", cfg)
    assert again["plan"]["stopped"] == "already" and again["fix"] is None and "conv7_hp" not in again["candidates"]


def test_text_report_shows_curve_plan_and_change(project, capsys):
    assert main(["hp-plan", "--cfg", str(project["cfg"]), "--target", "0.995"]) == 0
    out = capsys.readouterr().out
    assert "curve: final similarity against the number of `_hp` layers" in out
    assert "+ conv7" in out and "← target reached" in out
    assert "confirm with 1 run of the plan" in out
    assert '+layer { name: "conv7_hp"' in out and "+[compile_mode] 2" in out


def test_budget_images_and_output_file(project, capsys, tmp_path):
    doc = _json(capsys, "--cfg", str(project["cfg"]), "--budget", "0")
    assert doc["plan"]["layers"] == [] and doc["plan"]["stopped"] == "budget" and doc["fix"] is None
    doc = _json(capsys, "--cfg", str(project["cfg"]), "--images", "all")
    assert len(doc["inputs"]["images"]) == 2 and len(doc["baseline"]["outputs"][0]["per_image"]) == 2
    report = tmp_path / "plan.json"
    assert main(["hp-plan", "--cfg", str(project["cfg"]), "--format", "json", "--output", str(report)]) == 0
    assert json.loads(report.read_text())["plan"]["layers"] == ["conv7"]


@pytest.mark.parametrize("argv, message", [
    (["--cfg", "missing.cfg"], "missing.cfg does not exist"),
    (["--target", "1.5"], "target 1.5"),
    (["--sim-16bit", "somewhere"], "--sim-16bit needs --sim"),
    (["--sim", "no_such_folder"], "no_such_folder does not exist"),
])
def test_bad_input_is_a_message(project, capsys, argv, message):
    if "--cfg" not in argv:
        argv = ["--cfg", str(project["cfg"]), *argv]
    assert main(["hp-plan", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_cfg_without_caffemodel_names_the_line(project, capsys):
    cfg = project["cfg"]
    cfg.write_text(cfg.read_text().replace("[caffemodel_file] ./deep.caffemodel", "[caffemodel_file] ./gone.caffemodel"))
    assert main(["hp-plan", "--cfg", str(cfg)]) == 2
    assert "deep.cfg:2: [caffemodel_file] ./gone.caffemodel not found" in capsys.readouterr().err


# ---------------------------------------------------------------- the emulation against real runs

def _mtcnn(scenario_dirs, name: str, dest: Path) -> dict:
    """A scenario's dumps with a copy of its cfg, prototxt and caffemodel (fixes never touch the
    repository's files)."""
    p = scenario_dirs(name)
    root = dest / name
    shutil.copytree(Path(p["cfg"]).parent, root)
    for key in ("prototxt", "caffemodel"):
        shutil.copy(p[key], root / Path(p[key]).name)
    out = {k: root / Path(v).relative_to(Path(p["cfg"]).parent) for k, v in p.items()
           if isinstance(v, Path) and k in ("nnie", "nnie16", "cfg")}
    return out


def test_the_emulation_agrees_with_a_faithful_run(scenario_dirs, capsys, tmp_path):
    p = _mtcnn(scenario_dirs, "ok", tmp_path)
    doc = _json(capsys, "--cfg", str(p["cfg"]), "--transpose", "--sim", str(p["nnie"]), "--target", "0.999")
    agreement = doc["agreement"]
    assert agreement["verdict"] == "agrees" and not agreement["blocks_plan"]
    assert agreement["final"]["real_8bit"] == pytest.approx(agreement["final"]["emulated_8bit"], abs=1e-6)
    assert {row["layer"] for row in agreement["layers"]} >= {"data", "conv1", "conv4-2", "prob1"}
    assert doc["plan"]["reaches_target"] and doc["plan"]["layers"]


def test_no_plan_when_the_emulation_disagrees(scenario_dirs, capsys, tmp_path):
    """quant_noise's 8-bit run loses far more than quantization explains (noise growing with depth):
    the emulation is no oracle for it, and hp-plan says so instead of planning."""
    p = _mtcnn(scenario_dirs, "quant_noise", tmp_path)
    doc = _json(capsys, "--cfg", str(p["cfg"]), "--transpose", "--sim", str(p["nnie"]))
    agreement = doc["agreement"]
    assert agreement["verdict"] == "disagrees" and agreement["blocks_plan"]
    assert agreement["final"]["real_8bit"] < agreement["final"]["emulated_8bit"] - 0.1
    assert agreement["first_disagreement"] is not None
    assert doc["plan"] is None and doc["fix"] is None and doc["mapper_runs"]["to_confirm"] == 0
    assert main(["hp-plan", "--cfg", str(p["cfg"]), "--transpose", "--sim", str(p["nnie"])]) == 0
    assert "no plan" in capsys.readouterr().out


def test_no_plan_when_the_real_16bit_run_misses_the_target(scenario_dirs, capsys, tmp_path):
    good = _mtcnn(scenario_dirs, "ok", tmp_path)
    noisy = _mtcnn(scenario_dirs, "quant_noise", tmp_path)
    doc = _json(capsys, "--cfg", str(good["cfg"]), "--transpose", "--sim", str(good["nnie"]),
                "--sim-16bit", str(noisy["nnie"]))
    assert doc["agreement"]["verdict"] == "unreachable" and doc["plan"] is None
    assert doc["agreement"]["final"]["real_16bit"] < doc["target"]


# ---------------------------------------------------------------- the whole list, the cost, a run's clips

def _prepared(project):
    from nnie_lsp.reference.caffe_forward import prepare_inputs
    from nnie_lsp.reference.net import load_net
    from nnie_lsp.reference.run_inputs import load_run_inputs

    inputs = load_run_inputs(str(project["cfg"]), count=None)
    net = load_net(inputs.prototxt, inputs.caffemodel)
    return net, [prepare_inputs(net, image.sources, inputs.preprocessing) for image in inputs.images]


def test_the_clips_cover_the_list_and_the_plan_tells_its_cost(project, capsys):
    doc = _json(capsys, "--cfg", str(project["cfg"]))
    assert doc["inputs"]["calibration_images"] == 2 and len(doc["inputs"]["images"]) == 1
    assert any("the clips cover all 2 images of the list" in note for note in doc["notes"])
    plan = doc["plan"]
    assert plan["compile_mode_1"] is False and plan["chosen"] in ("greedy", "prefix")
    conv, first, head = 8 * 24 * 24 * 8 * 9, 8 * 24 * 24 * 3 * 9, 4 * 24 * 24 * 8  # DeepNetSpec: 10 convs
    assert plan["layers"] == ["conv7"]
    assert plan["cost"] == {"share": round(conv / (first + 9 * conv + head), 7), "macs_16bit": conv,
                            "total": first + 9 * conv + head}
    assert doc["curve"][0]["mac_share_16bit"] == 0.0 and doc["learned_clips"] == []
    assert main(["hp-plan", "--cfg", str(project["cfg"])]) == 0
    assert "cost: " in capsys.readouterr().out


def test_a_real_run_with_other_clips_is_learned_from(project, capsys, tmp_path):
    """A "real" 8-bit run whose clips are 1–3 steps off the emulation's (its input dumps show them):
    hp-plan --sim takes its clips before checking and planning."""
    from nnie_lsp.emulation.emulate import EmulationOptions, emulate_images, write_sim_dumps
    from nnie_lsp.emulation.quant import seeded_clip_offsets
    from nnie_lsp.triage.hp_plan.oracle import HpOracle

    net, images = _prepared(project)
    offsets = seeded_clip_offsets(sorted({t for layer in net.layers for t in layer.tops}), seed=2, widths=(8,))
    runs = emulate_images(net, images, EmulationOptions(clip_offsets=offsets, keep_inputs=True))
    sim = tmp_path / "mapper_quant"
    write_sim_dumps(runs[-1], sim)  # the mapper dumps the last image
    planner = HpOracle.build(net, images[-1:], calibration=images[:-1]).clips(())
    expected = {blob: round(16 * np.log2(runs[-1].clips[blob] / planner[(blob, 8)]))
                for (blob, bits) in planner if bits == 8}
    doc = _json(capsys, "--cfg", str(project["cfg"]), "--sim", str(sim))
    learned = {row["blob"]: row["steps"] for row in doc["learned_clips"]}
    assert learned == {blob: steps for blob, steps in expected.items() if steps}
    assert learned and all(row["bits"] == 8 for row in doc["learned_clips"])
    agreement = doc["agreement"]
    assert agreement["verdict"] == "agrees"
    assert agreement["final"]["emulated_8bit"] == pytest.approx(agreement["final"]["real_8bit"], abs=1e-6)
    assert doc["plan"]["reaches_target"]


def test_renames_without_compile_mode_2_run_at_8_bit_and_the_plan_sets_the_mode(project, capsys):
    """The mapper ignores `_hp` names unless [compile_mode] is 2 (nnie_lsp/emulation/precision.py,
    the one rule the emulation and the planner follow): a cfg at 0 with conv7 already renamed is an
    8-bit build, and the plan is that rename with [compile_mode] 2 -- never conv7_hp_hp."""
    prototxt = Path(project["prototxt"])
    prototxt.write_text(prototxt.read_text().replace('name: "conv7"', 'name: "conv7_hp"'))
    doc = _json(capsys, "--cfg", str(project["cfg"]))
    assert doc["baseline"]["similarity"] < doc["target"]            # 8 bit: conv7's mark ignored
    assert doc["plan"]["layers"] == ["conv7_hp"] and doc["plan"]["reaches_target"]
    assert any("[compile_mode] is 0" in n and "conv7_hp" in n for n in doc["notes"])
    edits = {(Path(e["path"]).name, e["new_text"]) for e in doc["fix"]["edits"]}
    assert edits == {("deep.cfg", "2")}
    _apply(doc["fix"], doc["inputs"]["working_directory"])
    again = _json(capsys, "--cfg", str(project["cfg"]))             # now compile_mode 2: the mark counts
    assert again["plan"]["stopped"] == "already" and again["fix"] is None

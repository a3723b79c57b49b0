"""The one triage entry (nnie_lsp/triage/pipeline.py): the inputs looked up once, one image or
several, the same result as `nnie-triage compare`, progress through the one protocol
(nnie_lsp/triage/progress.py), and no numpy for `import nnie_lsp.triage` or any inputs module."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from nnie_lsp.triage import pipeline
from nnie_lsp.triage.progress import NO_PROGRESS, JsonLines, Reporter, open_progress

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "triage"
LIGHT = ["nnie_lsp.triage", "nnie_lsp.triage.pipeline", "nnie_lsp.triage.progress"] + sorted(
    f"nnie_lsp.triage.inputs.{p.stem}" for p in (ROOT / "nnie_lsp" / "triage" / "inputs").glob("*.py")
    if p.stem != "__init__")


@pytest.mark.parametrize("module", LIGHT)
def test_importing_the_triage_package_and_its_inputs_loads_no_numpy(module):
    code = f"import sys, {module}; print('numpy' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False", f"import {module} loads numpy"


@pytest.fixture
def examples(tmp_path: Path) -> Path:
    for name in ("model", "channel_swap", "quant_noise"):
        shutil.copytree(EXAMPLES / name, tmp_path / name)
    return tmp_path


def _without_elapsed(doc: dict) -> dict:
    return {**doc, "elapsed_s": 0}


def test_the_cli_and_the_library_give_the_same_result(examples, capsys, monkeypatch):
    from nnie_lsp.cli.triage import main

    monkeypatch.chdir(examples)
    assert main(["compare", "--cfg", "quant_noise/sim.cfg", "--format", "json", "--progress", "none", "--no-record"]) == 0
    cli = json.loads(capsys.readouterr().out)
    request = pipeline.TriageRequest(cfg="quant_noise/sim.cfg")
    result = pipeline.triage(request)
    doc = result.to_json()
    doc.update(pipeline.follow_up(request, doc, None))   # what the CLI adds: each fix's lines
    assert _without_elapsed(json.loads(json.dumps(doc))) == _without_elapsed(cli)
    assert cli["case"] == 2 and cli["inputs"]["sim_16bit"].endswith("compile_mode1/mapper_quant")


def test_the_inputs_are_looked_up_once(examples, monkeypatch):
    found = pipeline.find_inputs(pipeline.TriageRequest(cfg=str(examples / "channel_swap" / "sim.cfg")))
    assert found.reference == str(examples / "channel_swap" / "output") and found.prototxt.endswith("det1.prototxt")
    assert found.origin("reference")["origin"] == "discovered" and found.origin("dot") is None
    assert pipeline.find_inputs(found) is found

    def no_second_look(*args, **kwargs):
        raise AssertionError("looked up again")
    monkeypatch.setattr(pipeline, "complete_inputs", no_second_look)
    assert pipeline.triage(found).diagnosis.case == 1


def test_every_input_given_reads_nothing_beside_the_cfg(examples, monkeypatch):
    """What the editor's server passes to `nnie-triage compare`: nothing is left to look for."""
    from nnie_lsp.triage.inputs import beside_cfg

    project = examples / "channel_swap"
    given = dict(reference=str(project / "output"), sim=str(project / "mapper_quant"),
                 prototxt=str(examples / "model" / "det1.prototxt"), cfg=str(project / "sim.cfg"))

    def no_lookup(*args, **kwargs):
        raise AssertionError("looked beside the cfg")
    monkeypatch.setattr(beside_cfg, "discover", no_lookup)
    found = pipeline.find_inputs(pipeline.TriageRequest(**given))
    assert (found.reference, found.sim, found.prototxt, found.sim16) == (
        given["reference"], given["sim"], given["prototxt"], None)
    assert found.origin("sim") == {"path": given["sim"], "origin": "given", "rule": None}


def test_find_false_looks_for_no_folder_but_takes_the_cfgs_prototxt(examples):
    cfg = examples / "quant_noise" / "sim.cfg"
    found = pipeline.find_inputs(pipeline.TriageRequest(cfg=str(cfg), reference=str(cfg.parent / "output"),
                                                        sim=str(cfg.parent / "mapper_quant"), find=False))
    assert found.sim16 is None and found.prototxt == str(examples / "model" / "det1.prototxt")
    forced = pipeline.find_inputs(pipeline.TriageRequest(cfg=str(cfg), reference=str(cfg.parent / "output"),
                                                         sim=str(cfg.parent / "mapper_quant"), find=True))
    assert forced.sim16 == str(cfg.parent / "compile_mode1" / "mapper_quant")


def test_the_rules_say_who_wrote_the_dumps(examples, capsys):
    """nnie-triage's own dumps (its manifest in the folder) are never called the mapper's or
    RuyiStudio's, whatever the folder's name; folders without the manifest keep the tool's name."""
    own = pipeline.find_inputs(pipeline.TriageRequest(cfg=str(examples / "channel_swap" / "sim.cfg")),
                               log=sys.stderr)
    assert own.origin("sim")["rule"] == "mapper_quant/ beside the cfg (an emulation written by nnie-triage emulate)"
    assert own.origin("reference")["rule"] == ("output/ beside the cfg (the Caffe reference written by "
                                               "nnie-triage reference)")
    assert "— mapper_quant/ beside the cfg (an emulation written by nnie-triage emulate)\n" in capsys.readouterr().err
    zh = pipeline.find_inputs(pipeline.TriageRequest(cfg=str(examples / "channel_swap" / "sim.cfg"), lang="zh"))
    assert zh.origin("sim")["rule"] == "cfg 旁的 mapper_quant/（nnie-triage emulate 写入的仿真结果）"
    assert zh.origin("reference")["rule"] == "cfg 旁的 output/（nnie-triage reference 写入的 Caffe 参考结果）"
    mapper = pipeline.find_inputs(pipeline.TriageRequest(cfg=str(examples / "quant_noise" / "sim.cfg")))
    assert mapper.origin("sim")["rule"] == "mapper_quant/ beside the cfg (written by nnie_mapper)"
    assert mapper.origin("reference")["rule"] == "output/ beside the cfg (RuyiStudio's Get Caffe Output folder)"


def test_a_manifest_of_another_tool_is_not_nnie_triages(examples):
    from nnie_lsp.triage.inputs.beside_cfg import discover

    project = examples / "channel_swap"
    (project / "mapper_quant" / "nnie-triage-dumps.json").write_text('{"tool": "someone-else"}', encoding="utf-8")
    (project / "output" / "nnie-triage-dumps.json").write_text('{"tool": "nnie-triage"}', encoding="utf-8")
    found = discover(str(project / "sim.cfg"), lang="zh")
    assert found.get("sim").rule == "cfg 旁的 mapper_quant/（由 nnie_mapper 写入）"
    assert found.get("reference").rule == "cfg 旁的 output/（由 nnie-triage 写入）"


def test_the_editor_is_told_who_wrote_the_dumps(examples):
    """The editor's picker shows `found: <rule>` (nnie.discoverTriageInputs), in the server's language."""
    from types import SimpleNamespace

    from nnie_lsp.server.triage.runner import TriageRunner

    runner = TriageRunner.__new__(TriageRunner)
    runner.ls = SimpleNamespace(lang="zh", root=str(examples))
    runner.read = lambda path: Path(path).read_text(encoding="utf-8")
    shown = runner.discovery([{"cfg": str(examples / "channel_swap" / "sim.cfg")}])
    assert shown["sim"]["rule"] == "cfg 旁的 mapper_quant/（nnie-triage emulate 写入的仿真结果）"


def _steps(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def _check_protocol(steps: list[dict]) -> None:
    assert steps, "no progress line"
    percents = [s["percent"] for s in steps]
    for s in steps:
        assert list(s) == ["stage", "done", "total", "percent"]
        assert isinstance(s["stage"], str) and s["stage"]
        assert isinstance(s["done"], int) and isinstance(s["total"], int) and 0 <= s["done"]
        assert isinstance(s["percent"], float) and 0.0 <= s["percent"] <= 100.0
    assert percents == sorted(percents) and percents[-1] == 100.0


def test_progress_of_one_image(examples):
    out = io.StringIO()
    pipeline.triage(pipeline.TriageRequest(cfg=str(examples / "channel_swap" / "sim.cfg")), progress=JsonLines(out))
    steps = _steps(out.getvalue())
    _check_protocol(steps)
    stages = [s["stage"] for s in steps]
    assert stages[:2] == ["inputs", "inputs"] and stages[-1] == "diagnose"
    assert stages.index("align") < stages.index("measure") < stages.index("diagnose")
    measure = [s for s in steps if s["stage"] == "measure"]
    assert [s["done"] for s in measure] == list(range(len(measure))) and measure[0]["total"] == len(measure)


def test_progress_of_several_images(examples, tmp_path):
    """Two images (the same dumps twice, in nnie-triage's own layout): one stage per image."""
    from nnie_lsp.triage.inputs.image_sets import write_manifest

    project = examples / "channel_swap"
    folders = {}
    for side, source in (("ref", project / "output"), ("sim", project / "mapper_quant")):
        root = tmp_path / side
        for k, label in enumerate(("a.png", "b.png")):
            shutil.copytree(source, root / f"image{k}_{label[0]}")
        write_manifest(root, {"command": "reference", "image_list_length": 2, "files": [],
                              "images": [{"index": k, "label": label, "folder": f"image{k}_{label[0]}"}
                                         for k, label in enumerate(("a.png", "b.png"))]})
        folders[side] = str(root)
    out = io.StringIO()
    result = pipeline.triage(pipeline.TriageRequest(reference=folders["ref"], sim=folders["sim"],
                                                    cfg=str(project / "sim.cfg")), progress=JsonLines(out))
    assert result.images["count"] == 2
    steps = _steps(out.getvalue())
    _check_protocol(steps)
    # with a cfg the comparison takes 40 % of what follows the inputs' 2 %, a case-2 plan the rest (a
    # case 1 has none: the last step jumps to the end)
    assert {s["stage"] for s in steps} == {"inputs", "image 1/2", "image 2/2", "diagnose"}
    first, second = ([s["percent"] for s in steps if s["stage"] == f"image {k}/2"] for k in (1, 2))
    assert max(first) == min(second) == 21.6   # each image half of the comparison's share


def test_no_reporter_reports_nothing_and_parts_map_into_their_share():
    assert NO_PROGRESS.silent and NO_PROGRESS.part(10, 20) is NO_PROGRESS
    out = io.StringIO()
    root = JsonLines(out)
    half = root.part(50, 100)
    half.part(0, 50).step("load", 1, 2)          # a quarter of the second half: 62.5 %
    half.step("measure", 0, 10)                  # 50 %: never below what was said before
    half.step("measure", 10, 10, "conv9")        # 100 %; the item is not part of the line
    root.step("report", 0, 0)                    # a stage with nothing to do is done
    lines = out.getvalue().splitlines()
    assert lines == ['{"stage": "load", "done": 1, "total": 2, "percent": 62.5}',
                     '{"stage": "measure", "done": 0, "total": 10, "percent": 62.5}',
                     '{"stage": "measure", "done": 10, "total": 10, "percent": 100.0}',
                     '{"stage": "report", "done": 0, "total": 0, "percent": 100.0}']
    root.close()
    root.step("late", 1, 1)
    assert len(out.getvalue().splitlines()) == 4


def test_auto_is_the_bar_on_a_terminal_only():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert open_progress("auto", io.StringIO()) is NO_PROGRESS
    assert open_progress("none", Terminal()) is NO_PROGRESS
    assert isinstance(open_progress("json", io.StringIO()), JsonLines)
    bar = open_progress("auto", Terminal())
    assert isinstance(bar, Reporter) and not bar.silent and type(bar).__name__ == "TerminalBar"
    bar.step("measure", 1, 3, "conv1")
    bar.step("report", 0, 1)   # the report goes to the terminal next: the bar is gone
    bar.close()
    with pytest.raises(ValueError):
        open_progress("xml")

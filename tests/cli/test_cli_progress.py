"""`--progress auto|json|none` of `nnie-triage compare`, `reference`, `emulate` and `hp-plan`: the
JSON lines on stderr are the contract the editor's server reads (nnie_lsp/docs/triage-schema.md,
"Progress"), and the command's output is the same whatever the progress."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "triage"
KEYS = ["stage", "done", "total", "percent"]


@pytest.fixture(scope="module")
def examples(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("triage")
    for name in ("model", "channel_swap", "quant_noise"):
        shutil.copytree(EXAMPLES / name, dest / name)
    shutil.copy(EXAMPLES / "test1.jpg", dest / "test1.jpg")
    return dest


def triage(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "nnie_lsp.cli.triage", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "110"})


def steps(stderr: str) -> tuple[list[dict], list[str]]:
    """The progress lines and the other lines of stderr."""
    found, other = [], []
    for line in stderr.splitlines():
        (found if line.startswith('{"stage"') else other).append(line)
    return [json.loads(line) for line in found], other


def check(lines: list[dict]) -> list[str]:
    """The contract: exactly the four keys, ints, an overall percent that never decreases and ends
    at 100; the stages in order of first appearance."""
    assert lines
    for line in lines:
        assert list(line) == KEYS and isinstance(line["stage"], str) and line["stage"]
        assert type(line["done"]) is int and type(line["total"]) is int and line["done"] >= 0
        assert type(line["percent"]) is float and 0.0 <= line["percent"] <= 100.0
    percents = [line["percent"] for line in lines]
    assert percents == sorted(percents) and percents[-1] == 100.0
    return list(dict.fromkeys(line["stage"] for line in lines))


def test_compare_progress_json(examples):
    # --no-record: each run alone (a stored result would make the later runs follow the first)
    quiet = triage(examples, "compare", "--cfg", "quant_noise/sim.cfg", "--format", "json", "--progress", "none", "--no-record")
    done = triage(examples, "compare", "--cfg", "quant_noise/sim.cfg", "--format", "json", "--progress", "json", "--no-record")
    default = triage(examples, "compare", "--cfg", "quant_noise/sim.cfg", "--format", "json", "--no-record")
    assert quiet.returncode == done.returncode == default.returncode == 0, done.stderr
    same = [{**json.loads(p.stdout), "elapsed_s": 0} for p in (quiet, done, default)]
    assert same[0] == same[1] == same[2]
    lines, other = steps(done.stderr)
    # case 2 with a cfg: the _hp planner's stages (load the net, check the candidate sets) follow
    assert check(lines) == ["inputs", "align", "measure", "diagnose", "load", "check", "report"]
    assert other == quiet.stderr.splitlines() == default.stderr.splitlines()   # what was found, as before
    assert other[0].startswith("nnie-triage: reference: quant_noise/output")
    assert not steps(default.stderr)[0], "auto: no progress lines when stderr is not a terminal"


def test_a_failing_compare_says_its_error_after_its_progress(examples):
    done = triage(examples, "compare", "--cfg", "quant_noise/sim.cfg", "--threshold", "bogus=1", "--progress", "json")
    assert done.returncode == 2
    lines, other = steps(done.stderr)
    assert [line["stage"] for line in lines] == ["inputs", "inputs"]
    assert other[-1].startswith("nnie-triage compare: error: unknown threshold(s): bogus")


def test_reference_and_emulate_progress_json(examples, tmp_path):
    common = ["--prototxt", "model/det1_48x48.prototxt", "--caffemodel", "model/det1.caffemodel",
              "--image", "test1.jpg", "--cfg", "quant_noise/sim.cfg", "--progress", "json"]
    ref = triage(examples, "reference", *common, "-o", str(tmp_path / "caffe"))
    assert ref.returncode == 0, ref.stderr
    assert check(steps(ref.stderr)[0]) == ["inputs", "load", "forward"]
    assert ref.stdout.startswith("wrote ")
    emu = triage(examples, "emulate", *common, "-o", str(tmp_path / "nnie"))
    assert emu.returncode == 0, emu.stderr
    assert check(steps(emu.stderr)[0]) == ["inputs", "load", "forward", "write"]


def test_hp_plan_progress_json(examples):
    args = ["hp-plan", "--cfg", "quant_noise/sim.cfg", "--transpose", "--target", "0.999", "--format", "json"]
    quiet = triage(examples, *args, "--progress", "none")
    done = triage(examples, *args, "--progress", "json")
    assert quiet.returncode == done.returncode == 0, done.stderr
    assert quiet.stdout == done.stdout
    stages = check(steps(done.stderr)[0])
    assert stages[:3] == ["inputs", "load", "rank"] and stages[-1] == "report"
    assert all(s.startswith("hp layer ") for s in stages[3:-1])


def test_the_help_names_the_stages():
    for command in ("compare", "reference", "emulate", "hp-plan"):
        done = triage(ROOT, command, "--help")
        text = " ".join(done.stdout.split())
        assert done.returncode == 0 and "--progress {auto,json,none}" in text and "Stages:" in text, command
    bad = triage(ROOT, "compare", "--progress", "xml")
    assert bad.returncode == 2 and "invalid choice: 'xml'" in bad.stderr

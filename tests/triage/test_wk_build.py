"""``compare`` states which build (the `.wk` beside the cfg) the NNIE dumps are checked against."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from nnie_lsp.testing.wk_files import Node, simple_spec, write_wk
from nnie_lsp.triage.inputs.build import build_lines, build_of
from nnie_lsp.triage.report.render import render_html, render_markdown, render_text

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "triage"


@pytest.fixture
def project(tmp_path):
    shutil.copytree(EXAMPLES / "channel_swap", tmp_path / "channel_swap")
    shutil.copytree(EXAMPLES / "model", tmp_path / "model")
    return tmp_path / "channel_swap"


def _wk(bits: str) -> bytes:
    return write_wk(simple_spec([Node("data", 20, 20, 3)], [Node("prob1", 5, 5, 2), Node("conv4-2", 5, 5, 4)], bits=bits))


def test_no_wk_beside_the_cfg_says_nothing(project):
    assert build_of(str(project / "sim.cfg"), str(project / "mapper_quant")) is None
    assert build_lines({"build": None}) == []


def test_an_8_bit_build_and_its_8_bit_emulation(project):
    (project / "inst.wk").write_bytes(_wk("8-bit"))
    build = build_of(str(project / "sim.cfg"), str(project / "mapper_quant"))
    assert build["bits"] == "8-bit" and build["sim_matches_build"] is True
    (line,) = build_lines({"build": build})
    assert line.startswith("Build checked against: ") and "inst.wk — 8-bit [I]" in line and "2 output(s)" in line


def test_a_16_bit_build_beside_an_8_bit_emulation_is_said(project):
    (project / "inst.wk").write_bytes(_wk("16-bit"))
    build = build_of(str(project / "sim.cfg"), str(project / "mapper_quant"))
    assert build["sim_matches_build"] is False
    lines = build_lines({"build": build})
    assert "the NNIE dumps are an 8-bit emulation, the .wk a 16-bit build: this comparison does not judge that build" \
        in lines[1]


def test_the_comparison_reports_the_build(project):
    from nnie_lsp.triage.pipeline import TriageRequest, triage

    (project / "inst.wk").write_bytes(_wk("16-bit"))
    doc = triage(TriageRequest(cfg=str(project / "sim.cfg"))).to_json()
    assert doc["build"]["bits"] == "16-bit" and doc["build"]["path"].endswith("inst.wk")
    for text in (render_text(doc), render_markdown(doc), render_html(doc)):
        assert "Build checked against:" in text and "[I]" in text
    assert "does not judge that build" in render_text(doc, width=400)


def test_an_unreadable_wk(project):
    (project / "inst.wk").write_bytes(b"version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 9\n")
    build = build_of(str(project / "sim.cfg"))
    assert build["readable"] is False and "Git LFS pointer" in build["error"]
    assert "cannot be read" in build_lines({"build": build})[0]

"""The one lint entry, nnie_lsp.lint.lint: paths (nnie-lint's command line), one file as an
editor has it (the server), or a Project; the CLI and the server call it and nothing else."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from nnie_lsp.lint import lint
from nnie_lsp.lint.driver import lint_files, lint_project
from nnie_lsp.cli.output import render_json
from nnie_lsp.project.project import DiskProvider, project_for_file
from nnie_lsp.project.settings import LintSettings

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / "examples" / "project"
CFG = PROJECT / "tiny_face_inst.cfg"
PROTOTXT = PROJECT / "model.prototxt"


def test_paths_as_the_command_line_takes_them(capsys):
    from nnie_lsp.cli.lint import main

    run = lint([str(PROJECT)])
    assert sorted(Path(f).name for f in run.files) == ["model.prototxt", "tiny_face_inst.cfg"]
    assert run.diagnostics == lint_files(run.files).diagnostics and not run.internal_errors
    assert main([str(PROJECT), "--format", "json", "--exit-zero"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(render_json(run.diagnostics))


def test_one_file_as_an_editor_has_it():
    text = PROTOTXT.read_text(encoding="utf-8").replace('name: "conv1"', 'name: "conv1x"', 1)
    provider = DiskProvider({str(PROTOTXT): text})
    run = lint(str(PROTOTXT), settings=LintSettings(), provider=provider, kind="prototxt")
    project = project_for_file(str(PROTOTXT), settings=LintSettings(), provider=DiskProvider({str(PROTOTXT): text}),
                               is_cfg=False)
    assert run.project.cfg_path == str(CFG) and run.project.prototxt.text == text
    assert run.diagnostics == lint_project(project, paths=[str(PROTOTXT)]).diagnostics
    assert {d.path for d in run.diagnostics} == {str(PROTOTXT)}


def test_a_project_and_its_findings_in_one_file():
    project = project_for_file(str(CFG), settings=LintSettings())
    everything = lint(project)
    assert {d.path for d in everything.diagnostics} == {str(CFG), str(PROTOTXT)}
    only_cfg = lint(project, only=[str(CFG)])
    assert only_cfg.diagnostics == [d for d in everything.diagnostics if d.path == str(CFG)]


def test_notes_and_fixes(tmp_path):
    import shutil

    shutil.copytree(PROJECT, tmp_path / "project")
    (tmp_path / "project" / "solver.prototxt").write_text('net: "model.prototxt"\nbase_lr: 0.01\nmax_iter: 100\n')
    net = tmp_path / "project" / "model.prototxt"
    notes = []
    run = lint([str(tmp_path / "project" / "solver.prototxt"), str(net)], fix=True, on_note=notes.append)
    assert notes == run.notes and "a Caffe solver file" in notes[0]
    assert [Path(f).name for f in run.files] == ["model.prototxt"]
    assert run.applied and net.read_text(encoding="utf-8") == run.fixed[str(net)][0]   # fixed in memory only
    assert run.provider.decoded[str(net)].encoding
    stdin = lint([], stdin=("piped.prototxt", net.read_bytes()), settings=LintSettings())
    assert stdin.files == [str(Path("piped.prototxt").resolve())]
    assert [d.code for d in stdin.diagnostics] == [d.code for d in lint([str(net)]).diagnostics]


def _names(module: Path) -> set[str]:
    tree = ast.parse(module.read_text(encoding="utf-8"))
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    names |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    names |= {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    return names


def test_the_faces_call_only_the_entries():
    lint_machinery = {"lint_files", "fix_files", "lint_project", "discover_inputs", "lintable_files"}
    faces = [ROOT / "nnie_lsp" / "cli" / "lint.py", *sorted((ROOT / "nnie_lsp" / "server").rglob("*.py"))]
    for module in faces:
        assert not _names(module) & lint_machinery, module
    triage_machinery = {"run_compare", "run_triage", "complete_inputs"}
    for module in (ROOT / "nnie_lsp" / "cli" / "triage.py", ROOT / "nnie_lsp" / "server" / "triage" / "runner.py"):
        assert not _names(module) & triage_machinery, module

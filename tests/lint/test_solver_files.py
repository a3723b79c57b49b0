"""Caffe solver files (``solver.prototxt``, a SolverParameter) are not nets: folder mode skips them,
a solver given by name is said to be one (docs/field-facts.md §16.4), the editor leaves it alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from nnie_lsp.lint.driver import discover_inputs, lint_files, lintable_files
from nnie_lsp.cli.lint import main as lint_main
from nnie_lsp.editor.common import document_kind
from nnie_lsp.readers.prototxt.solver import looks_like_solver, top_level_fields
from nnie_lsp.project.settings import LintSettings

# the shape of BVLC's models/bvlc_reference_caffenet/solver.prototxt
SOLVER = """net: "models/bvlc_reference_caffenet/train_val.prototxt"
test_iter: 1000
test_interval: 1000
base_lr: 0.01
lr_policy: "step"
gamma: 0.1
stepsize: 100000
display: 20
max_iter: 450000
momentum: 0.9
weight_decay: 0.0005
snapshot: 10000
snapshot_prefix: "models/bvlc_reference_caffenet/caffenet_train"
solver_mode: GPU
"""
NET = """name: "CaffeNet"
layer { name: "data" type: "Input" top: "data" input_param { shape { dim: 1 dim: 3 dim: 227 dim: 227 } } }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" convolution_param { num_output: 96 kernel_size: 11 stride: 4 } }
"""


@pytest.mark.parametrize("text", [
    SOLVER,
    # an inline net: its layers are inside net_param { }, not at the top level
    'net_param { name: "x" layer { name: "a" type: "ReLU" bottom: "x" top: "x" } }\nbase_lr: 0.1\nmax_iter: 10\n',
    # comments and strings that mention layers do not count
    '# layer { name: "x" }\ntrain_net: "layer.prototxt"  # layer\nbase_lr: 1e-3\ntype: "Adam"\n',
    "base_lr:0.01\r\nmax_iter:100\r\n",  # no blanks, CRLF
])
def test_solvers_are_recognised(text):
    assert looks_like_solver(text)


@pytest.mark.parametrize("text", [
    NET,
    'name: "n"\ninput: "data"\ninput_dim: 1\ninput_dim: 3\ninput_dim: 8\ninput_dim: 8\n',  # inputs only
    'layers { name: "conv1" type: CONVOLUTION bottom: "data" top: "conv1" }\n',  # V1 net
    "",  # an empty file (a net being written)
    'name: "x"\nbase_lr: 0.01\nlayer { name: "a" type: "ReLU" }\n',  # a net with a stray solver field
    'debug_info: true\n',  # a field both messages have
])
def test_nets_are_not_solvers(text):
    assert not looks_like_solver(text)


def test_top_level_fields_skip_nested_fields_strings_and_comments():
    text = 'net: "a{b"  # c: {\nnet_param { layer { name: "x" } }\nbase_lr: 0.1 max_iter: 3\n'
    assert top_level_fields(text) == ["net", "net_param", "base_lr", "max_iter"]


def _folder(tmp_path: Path) -> Path:
    (tmp_path / "solver.prototxt").write_text(SOLVER, encoding="utf-8")
    (tmp_path / "deploy.prototxt").write_text(NET, encoding="utf-8")
    return tmp_path


def test_folder_mode_skips_solver_files(tmp_path):
    _folder(tmp_path)
    assert [Path(f).name for f in lintable_files([str(tmp_path)])] == ["deploy.prototxt"]
    result = lint_files(lintable_files([str(tmp_path)]), settings=LintSettings())
    assert not [d for d in result.diagnostics if d.code == "NN011"]


def test_a_solver_linted_as_a_net_would_draw_nn011_for_each_field(tmp_path):
    """What the skip saves the user from: every SolverParameter field is unknown to a net."""
    _folder(tmp_path)
    result = lint_files([str(tmp_path / "solver.prototxt")], settings=LintSettings())
    assert sum(d.code == "NN011" for d in result.diagnostics) == 14


def test_solver_given_by_name_is_said_once_and_not_linted(tmp_path, capsys):
    _folder(tmp_path)
    inputs = discover_inputs([str(tmp_path / "solver.prototxt")])
    assert inputs.files == [] and len(inputs.notes) == 1
    code = lint_main([str(tmp_path / "solver.prototxt"), str(tmp_path / "deploy.prototxt")])
    err = capsys.readouterr().err
    assert code == 0
    assert err.count("a Caffe solver file (SolverParameter") == 1 and "not linted" in err
    assert "1 file(s) checked" in err


def test_the_editor_does_not_claim_a_solver_file():
    assert document_kind("/p/solver.prototxt", "prototxt", SOLVER) is None
    assert document_kind("/p/deploy.prototxt", "prototxt", NET) == "prototxt"

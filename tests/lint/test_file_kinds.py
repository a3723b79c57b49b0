"""Issue 18 points 3 and 4: every file told by its content, named or found in a folder; a cfg
stands for its project; finding the cfg that names a prototxt parses no unrelated cfg."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from nnie_lsp.readers import file_kinds
from nnie_lsp.cli.lint import main as lint_main
from nnie_lsp.lint import lint
from nnie_lsp.lint.driver import discover_inputs
from nnie_lsp.project.project import DiskProvider, cfgs_naming

DATA = Path(__file__).resolve().parents[1] / "data"
CORPUS_RUNTIME = "Strand2013__NNIE-lite__Converter-ENet-RUNTIME.txt"

NET = """name: "n"
input: "data"
input_shape { dim: 1 dim: 3 dim: 16 dim: 16 }
layer { name: "conv" type: "Convolution" bottom: "data" top: "conv" convolution_param { num_output: 4 kernel_size: 3 } }
layer { name: "relu" type: "ReLU" bottom: "conv" top: "conv" }
"""
# py-faster-rcnn names its test nets test.pt; the in-place Concat+ReLU pair gives NN301
PT_NET = """name: "VGG_ILSVRC_16_layers"
input: "data"
input_shape { dim: 1 dim: 3 dim: 16 dim: 16 }
layer { name: "a" type: "Convolution" bottom: "data" top: "a" convolution_param { num_output: 4 kernel_size: 1 } }
layer { name: "b" type: "Convolution" bottom: "data" top: "b" convolution_param { num_output: 4 kernel_size: 1 } }
layer { name: "cat" type: "Concat" bottom: "a" bottom: "b" top: "cat" }
layer { name: "cat_relu" type: "ReLU" bottom: "cat" top: "cat" }
"""
CFG = """[prototxt_file] ./net.prototxt
[image_list] ./images.txt
[image_type] 1
[norm_type] 0
"""
RUNTIME = """Name: Vop0
Classify: VOP
Sub_net_type: 0
Input: data [Exist] [bond_1][3][512][1024]
Output: deconv6_0_0 [bond_1][33][512][1024]
Report_flag: -1
Order: 0
Layer_cnt: 106
"""
SOLVER = 'net: "train_val.prototxt"\nbase_lr: 0.01\nmax_iter: 1000\n'


def _write(folder: Path, files: dict[str, str | bytes]) -> None:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("name,text,kind", [
    ("net.prototxt", NET, file_kinds.NET),
    ("test.pt", PT_NET, file_kinds.NET),
    ("weights.pt", b"PK\x03\x04\x00\x00binary", file_kinds.BINARY),
    ("solver.prototxt", SOLVER, file_kinds.SOLVER),
    ("cnn_net_tree.dot", None, file_kinds.NET_TREE),
    ("RUNTIME.txt", RUNTIME, file_kinds.RUNTIME),
    ("conv1_output0_4_8_8_quant.linear.hex", "1a\n0f\nff\n7c\n", file_kinds.DUMP),
    ("conv1_output0_4_8_8_caffe.linear.float", "0.353553\n0.0743254\n-1.5e-05\n0\n", file_kinds.DUMP),
    ("image_ref_list.txt", "./data/images/dog_bike_car.jpg\n./data/images/person.jpg\n", file_kinds.IMAGE_LIST),
    ("run.txt", "Mapper Version 1.1.2.0_B050 (NNIE_1.1) 1812171743151709\nbegin net parsing....\n",
     file_kinds.MAPPER_LOG),
    ("mapper_error.log", "", file_kinds.MAPPER_LOG),
    ("net.cfg", CFG, file_kinds.MAPPER_CFG),
    ("setup.cfg", "[metadata]\nname = demo\n", file_kinds.OTHER_CFG),
    ("NOTES.md", "# Notes\nLegend: input: data\nSee also: layer { list }\nMore words: here\n", file_kinds.UNKNOWN),
])
def test_sniff_by_content(tmp_path, name, text, kind):
    if text is None:
        shutil.copy(DATA / "mapper" / "nnie11_ssd_cnn_net_tree.dot", tmp_path / name)
    else:
        _write(tmp_path, {name: text})
    assert file_kinds.kind_of(str(tmp_path / name)) == kind


def test_named_non_nets_are_said_to_be_what_they_are(tmp_path, capsys):
    """`nnie-lint cnn_net_tree.dot` gave 317 NN010/NN011, RUNTIME.txt 11, a .hex dump 39."""
    shutil.copy(DATA / "mapper" / "nnie11_ssd_cnn_net_tree.dot", tmp_path / "cnn_net_tree.dot")
    _write(tmp_path, {"RUNTIME.txt": RUNTIME, "a_quant.linear.hex": "1a\n0f\nff\n" * 20})
    for name, said in (("cnn_net_tree.dot", "cnn_net_tree.dot is the mapper's graph dump, not a net: nothing to "
                                            "lint on its own; lint its cfg"),
                       ("RUNTIME.txt", "RUNTIME.txt is the mapper's segment list (RUNTIME.txt), not a net"),
                       ("a_quant.linear.hex", "a dump of numbers, not a net")):
        code = lint_main([str(tmp_path / name), "--format", "json"])
        captured = capsys.readouterr()
        assert code == 0 and captured.out.strip() in ("", "[]"), (name, captured.out[:300])
        assert said in captured.err and captured.err.count(str(tmp_path / name)) == 1, captured.err


def test_dot_and_log_named_with_their_cfg_are_its_mapper_output(tmp_path, capsys):
    """A dot named with its cfg is read as that cfg's cnn_net_tree.dot (NN304's inserted nodes), and
    a log as its mapper log; neither is linted as a net."""
    ssd = DATA / "mapper" / "nnie11_ssd_cnn_net_tree.dot"
    shutil.copy(ssd, tmp_path / "tree_saved.dot")
    _write(tmp_path, {"net.cfg": CFG, "net.prototxt": NET, "images.txt": "a.jpg\n", "a.jpg": b"\xff\xd8",
                      "console.txt": "**********************************************************\n"
                                     "ERROR: file: parseLayerType  line: 341\n"
                                     "layer type:[Crop], error: layer type is not supported!\n"})
    code = lint_main([str(tmp_path / "net.cfg"), str(tmp_path / "tree_saved.dot"), str(tmp_path / "console.txt"),
                      "--select", "NN4,NN010,NN011", "--format", "json"])
    captured = capsys.readouterr()
    assert "NN010" not in captured.out and "NN011" not in captured.out
    assert "read as cnn_net_tree.dot for the cfg linted with it" in captured.err
    assert code == 1 and "NN401" in captured.out and "console.txt" in captured.out


def test_folder_mode_finds_nets_by_content(tmp_path):
    _write(tmp_path, {"models/test.pt": PT_NET, "models/weights.pt": b"PK\x03\x04\x00binary",
                      "models/solver.prototxt": SOLVER, "models/notes.pbtxt": "just words here\n",
                      "net.cfg": CFG, "setup.cfg": "[metadata]\nname = x\n"})
    found = sorted(os.path.relpath(f, tmp_path) for f in discover_inputs([str(tmp_path)]).files)
    assert found == ["models/test.pt", "net.cfg"]
    run = lint([str(tmp_path)], overrides={"select": ("NN301",)})
    assert [(d.code, os.path.basename(d.path)) for d in run.diagnostics] == [("NN301", "test.pt")]


def test_a_cfg_stands_for_its_project(tmp_path, capsys):
    """`nnie-lint x.cfg` reports the cfg, its prototxt, image list and the mapper log beside it."""
    _write(tmp_path, {"net.cfg": CFG, "net.prototxt": PT_NET, "images.txt": "a.jpg\nmissing.jpg\n", "a.jpg": b"\xff",
                      "mapper_error.log": "**********************************************************\n"
                                          "ERROR: file: checkBottom  line: 1203\n"
                                          "layer name: [cat_relu]. error: no bottom error!\n"})
    run = lint([str(tmp_path / "net.cfg")], overrides={"select": ("NN",)})
    homes = {os.path.basename(d.path) for d in run.diagnostics}
    codes = {d.code for d in run.diagnostics}
    assert "net.prototxt" in homes and {"NN301", "NN401"} <= codes, [(d.code, d.path) for d in run.diagnostics]
    assert "net.cfg" in homes  # NN006: one of the listed images is missing
    assert set(run.checked) >= {str(tmp_path / "net.cfg"), str(tmp_path / "net.prototxt"), str(tmp_path / "images.txt")}
    # the editor's view of one document stays that document's findings
    doc = lint(str(tmp_path / "net.cfg"), overrides={"select": ("NN",)})
    assert {os.path.basename(d.path) for d in doc.diagnostics} == {"net.cfg"}
    lint_main([str(tmp_path / "net.cfg")])
    assert "1 file(s) checked (and 3 file(s) their cfgs name)" in capsys.readouterr().err


def test_finding_the_cfg_of_a_prototxt_parses_only_cfgs_that_name_it(tmp_path, monkeypatch):
    _write(tmp_path, {"nets/net.prototxt": NET, "a.cfg": CFG.replace("./net.prototxt", "./other.prototxt"),
                      "b.cfg": CFG.replace("./net.prototxt", "./third.prototxt"),
                      "nets/c.cfg": CFG, "nets/images.txt": "a.jpg\n"})
    from nnie_lsp.project import project

    parsed = []
    real = project.cached_cfg
    monkeypatch.setattr(project, "cached_cfg", lambda text, path: parsed.append(os.path.basename(path)) or real(text, path))
    found = cfgs_naming(str(tmp_path / "nets" / "net.prototxt"), DiskProvider())
    assert found == [str(tmp_path / "nets" / "c.cfg")] and parsed == ["c.cfg"]
    # a cfg that holds the name but points elsewhere is parsed and left out
    _write(tmp_path, {"nets/d.cfg": CFG.replace("./net.prototxt", "./old/net.prototxt")})
    parsed.clear()
    assert cfgs_naming(str(tmp_path / "nets" / "net.prototxt"), DiskProvider()) == [str(tmp_path / "nets" / "c.cfg")]
    assert sorted(parsed) == ["c.cfg", "d.cfg"]


def test_corpus_runtime_is_not_linted_as_a_net(capsys):
    from nnie_lsp.testing.shared_files import shared_dir

    path = shared_dir() / "corpus" / "real" / CORPUS_RUNTIME
    if not path.exists():
        pytest.skip("shared corpus not present")
    assert lint_main([str(path), "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() in ("", "[]") and "segment list" in captured.err

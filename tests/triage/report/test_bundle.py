"""Step-6 bundle: excerpt + producers, weights from the caffemodel, data, cfg, mapper version."""
from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from nnie_lsp.cli.triage import main
from nnie_lsp.readers.caffemodel import read_weights
from nnie_lsp.triage.report.bundle import mapper_version, prototxt_excerpt


def test_mapper_version_line():
    log = "Mapper Version 1.1.2.0_B050 (NNIE_1.1) 1812171743151709\nbegin net parsing....\n"
    assert mapper_version(log) == "1.1.2.0_B050 (NNIE_1.1) 1812171743151709"
    assert mapper_version("nothing here") is None


def test_excerpt_has_producers_and_inplace(scenario_dirs):
    text = scenario_dirs("ok")["prototxt"].read_text()
    ex, producers, bottoms = prototxt_excerpt(text, "conv2")
    assert producers == ["pool1"] and bottoms == ["pool1"]
    assert 'name: "conv2"' in ex and 'name: "PReLU2"' in ex and 'name: "conv3"' not in ex


def test_bundle_zip_contents(scenario_dirs, tmp_path, capsys):
    p = scenario_dirs("quant_noise")
    log = tmp_path / "mapper.log"
    log.write_text("Mapper Version 1.2.0.1_B040 (NNIE_1.2) 1904031504157241\n")
    tj = tmp_path / "t.json"
    assert main(["compare", "--reference", str(p["caffe"]), "--sim", str(p["nnie"]), "--prototxt",
                 str(p["prototxt"]), "--format", "json", "--output", str(tj)]) == 0
    out = tmp_path / "conv2.zip"
    assert main(["bundle", "--layer", "conv2", "--reference", str(p["caffe"]), "--sim", str(p["nnie"]),
                 "--prototxt", str(p["prototxt"]), "--caffemodel", str(p["caffemodel"]), "--cfg", str(p["cfg"]),
                 "--mapper-log", str(log), "--triage-json", str(tj), "-o", str(out)]) == 0
    with zipfile.ZipFile(out) as z:
        names = z.namelist()
        readme = z.read("README.md").decode()
        w = np.load(io.BytesIO(z.read(next(n for n in names if n.endswith("blob0_16x10x3x3.npy")))))
        assert json.loads(z.read("triage.json"))["case"] == 2
    assert np.array_equal(w, read_weights(p["caffemodel"])["conv2"][0])
    assert "layer/conv2.excerpt.prototxt" in names and "cfg/sim.cfg" in names and "cfg/mean.txt" in names
    assert any(n.startswith("data/caffe/conv2_output0") for n in names)
    assert any(n.startswith("data/caffe/pool1_output0") for n in names)  # its input
    assert any(n.startswith("data/nnie/conv2_output") for n in names)
    assert any(n.startswith("images/") for n in names)
    assert "1.2.0.1_B040" in readme and "case 2" in readme


def test_bundle_reads_the_cfg_like_the_lint(scenario_dirs, tmp_path, monkeypatch):
    """Mean file and image come from the one preprocessing reading; a missing mean file is a
    warning in the bundle, not a failure."""
    p = scenario_dirs("quant_noise")
    monkeypatch.chdir(tmp_path)
    cfg = tmp_path / "moved.cfg"
    cfg.write_text(p["cfg"].read_text().replace("./mean.txt", "./nope.txt")
                   .replace("./images.txt", str(p["cfg"].parent / "images.txt")))
    out = tmp_path / "b.zip"
    assert main(["bundle", "--layer", "conv2", "--reference", str(p["caffe"]), "--sim", str(p["nnie"]),
                 "--cfg", str(cfg), "-o", str(out)]) == 0
    with zipfile.ZipFile(out) as z:
        names = z.namelist()
        readme = z.read("README.md").decode()
    assert "cfg/moved.cfg" in names and any(n.startswith("images/") for n in names)
    assert not any(n.endswith("mean.txt") for n in names)
    assert "moved.cfg:" in readme and "mean file of input 0 was not found" in readme


EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "triage"


def _example(tmp_path) -> Path:
    """examples/triage/channel_swap as a user has it: the cfg, output/ and mapper_quant/ beside it."""
    shutil.copytree(EXAMPLE / "channel_swap", tmp_path / "channel_swap")
    shutil.copytree(EXAMPLE / "model", tmp_path / "model")
    shutil.copy(EXAMPLE / "test1.jpg", tmp_path / "test1.jpg")
    shutil.copy(EXAMPLE / "nnie.toml", tmp_path / "nnie.toml")
    return tmp_path / "channel_swap" / "sim.cfg"


def test_bundle_with_the_cfg_alone(tmp_path, capsys):
    """--cfg alone: the cfg's prototxt, the caffemodel's weights of the layer, the image, the mean
    file, the dump folders found beside it and a triage result computed."""
    cfg = _example(tmp_path)
    out = tmp_path / "conv2.zip"
    assert main(["bundle", "--cfg", str(cfg), "--layer", "conv2", "-o", str(out)]) == 0
    with zipfile.ZipFile(out) as z:
        names = z.namelist()
        readme = z.read("README.md").decode()
        triage = json.loads(z.read("triage.json"))
        w = np.load(io.BytesIO(z.read("layer/weights/conv2_blob0_16x10x3x3.npy")))
    assert {"model/det1.prototxt", "layer/conv2.excerpt.prototxt", "cfg/sim.cfg", "cfg/mean.txt",
            "images/test1.jpg"} <= set(names)
    assert np.array_equal(w, read_weights(EXAMPLE / "model" / "det1.caffemodel")["conv2"][0])
    assert any(n.startswith("data/caffe/conv2_output0") for n in names)
    assert any(n.startswith("data/nnie/pool1_output0") for n in names)   # its input, NNIE side
    assert triage["case"] == 1 and "case 1" in readme and "det1.caffemodel" in readme
    assert "warning" not in capsys.readouterr().err


@pytest.mark.parametrize("with_prototxt", [True, False])
def test_an_unknown_layer_is_exit_2_with_the_nearest_names(tmp_path, capsys, with_prototxt):
    cfg = _example(tmp_path)
    out = tmp_path / "b.zip"
    folder = cfg.parent
    argv = ["bundle", "--cfg", str(cfg)] if with_prototxt else [
        "bundle", "--reference", str(folder / "output"), "--sim", str(folder / "mapper_quant")]
    assert main([*argv, "--layer", "conv_2", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--layer conv_2: no layer of that name in" in err and "nearest: conv2" in err, err
    assert ("det1.prototxt" in err) == with_prototxt and "Traceback" not in err
    assert not out.exists()


def test_the_bundle_says_which_cfg_file_is_missing(tmp_path, capsys):
    cfg = _example(tmp_path)
    cfg.write_text(cfg.read_text().replace("../model/det1.caffemodel", "../model/gone.caffemodel"))
    out = tmp_path / "b.zip"
    assert main(["bundle", "--cfg", str(cfg), "--layer", "conv2", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "[caffemodel_file] ../model/gone.caffemodel was not found: not in the bundle" in err
    with zipfile.ZipFile(out) as z:
        assert "model/det1.prototxt" in z.namelist() and not any("weights" in n for n in z.namelist())

"""Step-6 bundle: excerpt + producers, weights from the caffemodel, data, cfg, mapper version."""
from __future__ import annotations

import io
import json
import zipfile

import numpy as np

from nnie_lsp.cli.triage import main
from nnie_lsp.reference.net import read_weights
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

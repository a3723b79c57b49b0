"""`nnie-triage reference` and `emulate` from the cfg alone (issue 10): the prototxt, caffemodel,
preprocessing and image list come from the cfg, options override it, the output goes where the
user says (-o/--output, --out kept) or beside the cfg (output/, mapper_quant_emulated/), and
bad cfg values are messages with the cfg position. Net with known answers: the real MTCNN det1 of
examples/triage (RGB, (x - 127.5) * 0.0078125, 20x20 input)."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from nnie_lsp.cli.triage import main
from nnie_lsp.readers.dumpio.scan import scan_dumps

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "triage"
CFG = EXAMPLES / "quant_noise" / "sim.cfg"


def _expected_data(shape=(20, 20), transposed: bool = False) -> np.ndarray:
    """What the cfg says the data layer holds: test1.jpg resized, RGB, (x - 127.5) * 0.0078125; with
    `transposed` as the model card examples/triage/nnie.toml says MTCNN was trained (H and W swapped)."""
    import cv2

    if transposed:
        img = cv2.resize(cv2.imread(str(EXAMPLES / "test1.jpg")), shape, interpolation=cv2.INTER_LINEAR)
        img = np.swapaxes(img, 0, 1)
    else:
        img = cv2.resize(cv2.imread(str(EXAMPLES / "test1.jpg")), shape[::-1], interpolation=cv2.INTER_LINEAR)
    rgb = img[:, :, ::-1].transpose(2, 0, 1).astype(np.float64)
    return (rgb - 127.5) * 0.0078125


def _data(folder: Path) -> np.ndarray:
    return next(t for t in scan_dumps(str(folder)).tensors if t.key == "data").load()


def _project(tmp_path: Path) -> Path:
    """A fresh copy of the quant_noise project: its cfg, mean file, image list, the model and the
    image in the same relative places, and none of the dumps."""
    root = tmp_path / "triage"
    (root / "quant_noise").mkdir(parents=True)
    for name in ("sim.cfg", "mean.txt", "images.txt"):
        shutil.copy(EXAMPLES / "quant_noise" / name, root / "quant_noise" / name)
    shutil.copytree(EXAMPLES / "model", root / "model")
    shutil.copy(EXAMPLES / "test1.jpg", root / "test1.jpg")
    return root / "quant_noise" / "sim.cfg"


def test_reference_from_the_example_cfg_as_a_new_user_types_it(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["reference", "--cfg", str(CFG), "--output", "caffe_out"]) == 0
    out = capsys.readouterr().out
    # the Caffe side takes how MTCNN was trained from the model card beside the example, not the cfg
    assert "wrote 8 Caffe dumps" in out and "caffe_out" in out
    assert "RGB, mean 127.5, scale 0.0078125, transposed (H and W swapped)" in out
    assert "from the model card nnie.toml:" in out
    np.testing.assert_allclose(_data(tmp_path / "caffe_out"), _expected_data(transposed=True), atol=1e-6)
    keys = {t.key for t in scan_dumps(str(tmp_path / "caffe_out")).tensors}
    assert {"data", "conv1", "pool1", "conv2", "conv3", "conv4-1", "conv4-2", "prob1"} == keys
    # -o and --out are the same option; the mapper is fed the images transposed (--transpose)
    assert main(["emulate", "--cfg", str(CFG), "--transpose", "-o", "sim_a"]) == 0
    assert main(["emulate", "--cfg", str(CFG), "--transpose", "--out", "sim_b"]) == 0
    capsys.readouterr()
    a = sorted(p.name for p in (tmp_path / "sim_a").iterdir())
    assert a == sorted(p.name for p in (tmp_path / "sim_b").iterdir()) and len(a) == 9  # 8 dumps + manifest
    assert main(["compare", "--reference", "caffe_out", "--sim", "sim_a", "--cfg", str(CFG), "--format", "json", "--no-record"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["case"] == 4 and doc["images"] is None  # the same net and cfg on both sides: 8-bit noise only


def test_options_override_the_cfg(tmp_path, capsys):
    assert main(["reference", "--cfg", str(CFG), "--rgb-order", "BGR", "--data-scale", "0.00390625",
                 "--no-transpose", "-o", str(tmp_path / "bgr")]) == 0
    out = capsys.readouterr().out
    assert "BGR, mean 127.5, scale 0.00390625" in out and "channel order, scale and transpose from the options" in out
    assert "mean from the model card" in out
    expected = _expected_data()[::-1] / 0.0078125 * 0.00390625  # BGR, half the scale, not transposed
    np.testing.assert_allclose(_data(tmp_path / "bgr"), expected, atol=1e-6)
    det1_48 = EXAMPLES / "model" / "det1_48x48.prototxt"
    assert main(["reference", "--cfg", str(CFG), "--prototxt", str(det1_48), "-o", str(tmp_path / "p48")]) == 0
    np.testing.assert_allclose(_data(tmp_path / "p48"), _expected_data((48, 48), transposed=True), atol=1e-6)


def test_defaults_beside_the_cfg_and_compare_with_the_cfg_alone(tmp_path, monkeypatch, capsys):
    cfg = _project(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert main(["reference", "--cfg", str(cfg)]) == 0
    assert main(["emulate", "--cfg", str(cfg)]) == 0
    out = capsys.readouterr().out
    assert f"to {cfg.parent / 'output'}/" in out and f"to {cfg.parent / 'mapper_quant_emulated'}/" in out
    assert not list(elsewhere.iterdir())
    manifest = json.loads((cfg.parent / "output" / "nnie-triage-dumps.json").read_text())
    assert manifest["command"] == "reference" and manifest["image_list_length"] == 1
    assert manifest["images"] == [{"index": 0, "label": str((tmp_path / "triage" / "test1.jpg").resolve()),
                                   "folder": "."}]
    assert main(["compare", "--cfg", str(cfg), "--format", "json"]) == 0  # finds output/ and the emulation
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert doc["case"] == 4 and doc["inputs"]["reference"].endswith("output")
    assert "mapper_quant_emulated" in doc["inputs"]["sim"]
    # a second run replaces its own files; files nnie-triage did not write are never overwritten
    assert main(["reference", "--cfg", str(cfg)]) == 0
    assert re.search(r"replaced 1[0-9] file\(s\)", capsys.readouterr().out)   # 8 dumps and the in-place values
    user_file = cfg.parent / "output" / "fc9_output0_10_caffe.linear.float"
    user_file.write_text("1\n")
    assert main(["reference", "--cfg", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert "did not write" in err and "fc9_output0_10_caffe.linear.float" in err and "--output" in err
    assert user_file.read_text() == "1\n"
    # no cfg and no -o: nowhere to write
    assert main(["reference", "--prototxt", str(EXAMPLES / "model" / "det1.prototxt"), "--caffemodel",
                 str(EXAMPLES / "model" / "det1.caffemodel"), "--image", str(EXAMPLES / "test1.jpg")]) == 2
    assert "-o/--output" in capsys.readouterr().err


@pytest.mark.parametrize("edit, expected", [
    (("[caffemodel_file] ../model/det1.caffemodel", "[caffemodel_file] ../model/nope.caffemodel"),
     "sim.cfg:2: [caffemodel_file] ../model/nope.caffemodel not found (looked in"),
    (("[prototxt_file] ../model/det1.prototxt\n", ""), "sim.cfg: no [prototxt_file]; give --prototxt"),
    (("[norm_type] 5", "[norm_type] 9"), "sim.cfg:10: [norm_type] 9 is not one of 0-5"),
    (("[mean_file] ./mean.txt", "[mean_file] ./missing_mean.txt"), "sim.cfg:11: [mean_file] ./missing_mean.txt"),
    (("[image_list] ./images.txt", "[image_list] ./no_list.txt"), "sim.cfg:8: [image_list] ./no_list.txt not found"),
])
def test_bad_cfg_values_are_positioned_messages(tmp_path, capsys, edit, expected):
    cfg = _project(tmp_path)
    text = cfg.read_text()
    assert edit[0] in text
    cfg.write_text(text.replace(edit[0], edit[1]))
    for command in ("reference", "emulate"):
        assert main([command, "--cfg", str(cfg), "-o", str(tmp_path / command)]) == 2
        err = capsys.readouterr().err
        assert expected in err and "Traceback" not in err, err


def test_an_image_list_line_that_names_no_file(tmp_path, capsys):
    cfg = _project(tmp_path)
    (cfg.parent / "images.txt").write_text("../test1.jpg\n../missing.jpg\n")
    assert main(["reference", "--cfg", str(cfg), "-o", str(tmp_path / "r")]) == 2
    assert "images.txt:2: image ../missing.jpg not found" in capsys.readouterr().err

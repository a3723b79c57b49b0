"""Bad dumps are named as such (issue 24, build point 5), on the real MTCNN det1 made with the CLI
as a user makes it: a Caffe reference at 12×12 against an NNIE side at 24×24 (T010, not "nothing
aligned"), an all-Inf data dump and a NaN in a middle layer (T003 with the layer, the side and the
count; the verdict "bad dumps", never case 1) — and no numpy warning on the console.

``compare`` runs in a child process: what reaches the console is what a user sees."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from nnie_lsp.cli.triage import main

pytest.importorskip("cv2")
ROOT = Path(__file__).resolve().parents[3]
DET1 = ROOT / "tests" / "data" / "triage" / "mtcnn"
IMAGE = ROOT / "examples" / "triage" / "test1.jpg"
CFG = """[prototxt_file] ./det1.prototxt
[caffemodel_file] ./det1.caffemodel
[net_type] 0
[compile_mode] 0
[RGB_order] RGB
[image_list] ./images.txt
[image_type] 1
[norm_type] 5
[mean_file] ./mean.txt
[data_scale] 0.0078125
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """det1 with its cfg; Caffe and NNIE dumps at 12×12, and an NNIE run at 24×24."""
    root = tmp_path_factory.mktemp("det1")
    for name in ("det1.prototxt", "det1.caffemodel"):
        shutil.copy(DET1 / name, root / name)
    shutil.copy(IMAGE, root / "test1.jpg")
    (root / "images.txt").write_text("./test1.jpg\n")
    (root / "mean.txt").write_text("127.5\n127.5\n127.5\n")
    (root / "det1.cfg").write_text(CFG)
    cfg = str(root / "det1.cfg")
    # the reference in RuyiStudio's text form: the tests damage its values as text
    for argv in (["reference", "--cfg", cfg, "--input-shape", "1,3,12,12", "--dump-format", "text", "-o", str(root / "caffe12")],
                 ["emulate", "--cfg", cfg, "--input-shape", "1,3,12,12", "-o", str(root / "nnie12")],
                 ["emulate", "--cfg", cfg, "--input-shape", "1,3,24,24", "-o", str(root / "nnie24")]):
        assert main([*argv, "--progress", "none"]) == 0, argv
    return root


def _compare(root: Path, reference: Path, sim: Path, fmt: str = "json") -> tuple[dict | str, str]:
    done = subprocess.run([sys.executable, "-m", "nnie_lsp.cli.triage", "compare", "--reference", str(reference),
                           "--sim", str(sim), "--cfg", str(root / "det1.cfg"), "--no-record", "--progress", "none",
                           "--format", fmt], capture_output=True, text=True, timeout=300, cwd=root,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    return (json.loads(done.stdout) if fmt == "json" else done.stdout), done.stderr


def _codes(doc: dict) -> list[str]:
    return [f["code"] for f in doc["findings"]]


def test_a_healthy_pair_is_not_bad_dumps(project):
    doc, _ = _compare(project, project / "caffe12", project / "nnie12")
    assert doc["case"] == 4 and doc["bad_dumps"] is None and "T010" not in _codes(doc)


def test_caffe_at_12x12_against_nnie_at_24x24_names_the_sizes(project):
    doc, _ = _compare(project, project / "caffe12", project / "nnie24")
    assert doc["verdict"] == "bad dumps: the data layers differ in size"
    assert doc["case"] is None and doc["next_step"] == 1 and doc["first_divergence"] == "data"
    t010 = next(f for f in doc["findings"] if f["code"] == "T010")
    assert ("data: NNIE 24×24×3 vs Caffe 12×12×3: the cfg and the reference were made for different input sizes"
            in t010["message"]), t010["message"]
    assert t010["severity"] == "error" and t010["line"] == 2   # the prototxt's `input: "data"`
    assert "(the prototxt declares 48×48×3)" in t010["message"]
    assert "T001" not in _codes(doc) and "nothing aligned" not in json.dumps(doc)
    inputs = doc["bad_dumps"]["inputs"]
    assert doc["bad_dumps"]["kind"] == "input_size" and inputs[0]["nnie_shape"] == [3, 24, 24]
    assert inputs[0]["caffe_values"] == 432 and inputs[0]["nnie_values"] == 1728
    text, _ = _compare(project, project / "caffe12", project / "nnie24", "text")
    assert "Verdict: Bad dumps: the data layers differ in size" in text
    assert "Next: step 1: make the Caffe and the NNIE dumps for one input size" in text


def _copy_with(project: Path, side: str, name: str, change) -> Path:
    folder = project / f"{side}_{name.split('_')[0]}_{change.__name__}"
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(project / side, folder)
    path = next(folder.glob(name))
    values = np.loadtxt(path)
    np.savetxt(path, change(values), fmt="%.9g")
    return folder


def test_an_all_inf_data_dump_is_named_never_case_1(project):
    def all_inf(v):
        return np.full_like(v, np.inf)

    sim = _copy_with(project, "nnie12", "conv1_input0_*_anti_quant.float", all_inf)
    doc, _ = _compare(project, project / "caffe12", sim)
    assert doc["verdict"] == "bad dumps: NaN/Inf values" and doc["case"] is None and doc["next_step"] == 1
    t003 = [f for f in doc["findings"] if f["code"] == "T003"]
    assert len(t003) == 1 and t003[0]["layer"] == "data" and t003[0]["severity"] == "error"
    assert "NNIE 0 NaN / 432 Inf, of 432 values" in t003[0]["message"]
    assert "fixed point" in t003[0]["message"]   # NNIE has no Inf: the dump was damaged
    assert not {"T101", "T106", "T102"} & set(_codes(doc)) and doc["preprocessing"] is None
    assert "data holds NaN/Inf values (NNIE 432 Inf, of 432 values)" in doc["reason"]
    text, _ = _compare(project, project / "caffe12", sim, "text")
    assert "Case 1" not in text and "Verdict: Bad dumps: NaN/Inf values" in text


def test_a_nan_in_a_middle_layer_names_the_layer_and_the_count(project):
    def one_nan(v):
        v = v.copy()
        v[7] = np.nan
        return v

    ref = _copy_with(project, "caffe12", "conv2_output0_*", one_nan)
    doc, _ = _compare(project, ref, project / "nnie12")
    assert doc["verdict"] == "bad dumps: NaN/Inf values" and doc["case"] is None
    assert doc["first_divergence"] == "conv2" and doc["bad_dumps"] == {"kind": "non_finite", "layers": ["conv2"]}
    t003 = next(f for f in doc["findings"] if f["code"] == "T003")
    assert t003["layer"] == "conv2" and "Caffe 1 NaN / 0 Inf" in t003["message"] and "of 144 values" in t003["message"]
    assert "conv2 holds NaN/Inf values (Caffe 1 NaN, of 144 values)" in doc["reason"]
    assert "T401" not in _codes(doc) and "T004" not in _codes(doc)   # no case 4 resting on the rest


def test_several_images_name_the_image_with_bad_dumps(tmp_path):
    """Two images, a NaN in the second image's Caffe conv2: that image is "bad dumps", not an
    inconclusive result; the headline follows the last image (the one the mapper dumps)."""
    for name in ("det1.prototxt", "det1.caffemodel"):
        shutil.copy(DET1 / name, tmp_path / name)
    shutil.copy(IMAGE, tmp_path / "test1.jpg")
    shutil.copy(IMAGE, tmp_path / "test2.jpg")
    (tmp_path / "images.txt").write_text("./test1.jpg\n./test2.jpg\n")
    (tmp_path / "mean.txt").write_text("127.5\n127.5\n127.5\n")
    (tmp_path / "det1.cfg").write_text(CFG)
    cfg = str(tmp_path / "det1.cfg")
    for command, out, form in (("reference", "caffe", ["--dump-format", "text"]), ("emulate", "nnie", [])):
        assert main([command, "--cfg", cfg, "--images", "2", "--input-shape", "1,3,12,12", *form, "-o",
                     str(tmp_path / out), "--progress", "none"]) == 0
    path = next((tmp_path / "caffe" / "image1_test2").glob("conv2_output0_*"))
    values = np.loadtxt(path)
    values[3] = np.nan
    np.savetxt(path, values, fmt="%.9g")
    doc, _ = _compare(tmp_path, tmp_path / "caffe", tmp_path / "nnie")
    assert doc["verdict"].startswith("bad dumps: NaN/Inf values — on 1 of 2 images")
    assert doc["images"]["case_counts"] == {"bad_dumps": 1, "4": 1}
    assert any(s.startswith("bad dumps (NaN/Inf values") for s in doc["images"]["summary"])

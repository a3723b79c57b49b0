"""Triage over several images of the image list (issue 10): reference/emulate --images N write one
folder per image, the emulation calibrates its clips over all of them, and compare reports each
layer's cosine as min and median over the images and decides the case on their distribution --
a case that one image only shows is said to be so. Net with known answers: the real MTCNN det1
(48x48), three images made from test1.jpg, a fault (8-bit-like noise growing with depth, case 2)
injected on one image only."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from nnie_lsp.cli.triage import main

DET1 = Path(__file__).resolve().parent.parent / "data" / "triage" / "mtcnn"
IMAGE = Path(__file__).resolve().parents[2] / "examples" / "triage" / "test1.jpg"
NAMES = ("plain", "mirror", "dark")


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A cfg whose image list holds three different images (test1, mirrored, darker)."""
    import cv2

    root = tmp_path_factory.mktemp("multi")
    img = cv2.imread(str(IMAGE))
    for name, picture in zip(NAMES, (img, img[:, ::-1], (img * 0.6).astype(np.uint8))):
        cv2.imwrite(str(root / f"{name}.png"), picture)
    (root / "images.txt").write_text("".join(f"./{n}.png\n" for n in NAMES))
    (root / "mean.txt").write_text("127.5\n127.5\n127.5\n")
    cfg = root / "net.cfg"
    cfg.write_text(f"[prototxt_file] {DET1 / 'det1.prototxt'}\n[caffemodel_file] {DET1 / 'det1.caffemodel'}\n"
                   "[net_type] 0\n[compile_mode] 0\n[RGB_order] RGB\n[image_list] ./images.txt\n[image_type] 1\n"
                   "[norm_type] 5\n[mean_file] ./mean.txt\n[data_scale] 0.0078125\n")
    assert main(["reference", "--cfg", str(cfg), "--images", "3", "--transpose"]) == 0
    assert main(["emulate", "--cfg", str(cfg), "--images", "3", "--transpose"]) == 0
    return cfg


def _compare(capsys, *args) -> dict:
    assert main(["compare", *args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_one_folder_per_image_and_clips_over_all_of_them(project, capsys):
    from nnie_lsp.reference.caffe_forward import prepare_inputs
    from nnie_lsp.emulation.emulate import emulate, emulate_images
    from nnie_lsp.reference.net import load_net
    from nnie_lsp.reference.run_inputs import Overrides, load_run_inputs

    capsys.readouterr()
    out = project.parent / "output"
    sim = project.parent / "mapper_quant_emulated"
    folders = [f"image{i}_{n}" for i, n in enumerate(NAMES)]
    for side in (out, sim):
        assert sorted(p.name for p in side.iterdir() if p.is_dir()) == folders
        assert all(len([p for p in (side / f).iterdir() if p.is_file()]) == 8 for f in folders)
    manifest = json.loads((sim / "nnie-triage-dumps.json").read_text())
    assert [i["index"] for i in manifest["images"]] == [0, 1, 2] and manifest["calibration_images"] == 3
    # the clips are the list's: conv1's output (read by pool1) is computed the same way in every
    # run, so its list clip is the largest of the single-image clips
    inputs = load_run_inputs(project, count=None, overrides=Overrides(transpose=True))
    net = load_net(inputs.prototxt, inputs.caffemodel)
    prepared = [prepare_inputs(net, img.sources, inputs.preprocessing) for img in inputs.images]
    alone = [emulate(net, p).clips["conv1"] for p in prepared]
    assert manifest["clips"]["conv1"] == pytest.approx(max(alone)) and len(set(alone)) > 1
    # several images side by side compute what one batch of them computes (clips of the batch)
    runs = emulate_images(net, prepared)
    batch = emulate(net, {"data": np.concatenate([p["data"] for p in prepared])})
    for k, run in enumerate(runs):
        for mine, theirs in zip(run.outputs, batch.outputs):
            np.testing.assert_array_equal(mine.value[0], theirs.value[k])


def test_a_fault_on_one_image_only_is_said_to_be_so(project, capsys, tmp_path):
    from nnie_lsp.reference.caffe_forward import prepare_inputs
    from nnie_lsp.emulation.emulate import EmulationOptions, emulate, write_sim_dumps
    from nnie_lsp.reference.net import load_net
    from nnie_lsp.reference.run_inputs import Overrides, load_run_inputs
    from nnie_lsp.triage.pipeline import run_compare

    capsys.readouterr()
    out = project.parent / "output"
    sim = tmp_path / "sim"
    shutil.copytree(project.parent / "mapper_quant_emulated", sim)
    inputs = load_run_inputs(project, count=None, overrides=Overrides(transpose=True))
    net = load_net(inputs.prototxt, inputs.caffemodel)
    faulty = sim / "image1_mirror"
    for f in faulty.iterdir():
        f.unlink()
    noisy = emulate(net, prepare_inputs(net, inputs.images[1].sources, inputs.preprocessing),
                    EmulationOptions(noise=0.05))
    write_sim_dumps(noisy, faulty)

    doc = _compare(capsys, "--reference", str(out), "--sim", str(sim), "--cfg", str(project))
    images = doc["images"]
    assert images["count"] == 3 and [c["case"] for c in images["cases"]] == [4, 2, 4]
    assert doc["case"] == 4 and doc["verdict"].endswith("— on 2 of 3 images")
    assert images["summary"][0] == "case 4 (post-processing) on 2 of 3 images"
    assert images["summary"][1].startswith("case 2 (quantization) on one image only: image 1 (mirror.png")
    assert "on one image only" in doc["reason"] and images["representative"] == 2
    # each layer's distribution: per image the cosine a one-image comparison of that image gives
    single = [run_compare(out / f, sim / f, prototxt=DET1 / "det1.prototxt").to_json()
              for f in ("image0_plain", "image1_mirror", "image2_dark")]
    for row in doc["layers"]:
        per_image = [next(r["cosine"] for r in s["layers"] if r["name"] == row["name"]) for s in single]
        assert row["cosine_images"] == pytest.approx(per_image, abs=1e-12)
        assert row["cosine_min"] == pytest.approx(min(per_image), abs=1e-12)
        assert row["cosine_median"] == pytest.approx(float(np.median(per_image)), abs=1e-12)
        assert row["cosine"] == pytest.approx(per_image[2], abs=1e-12)  # the representative image
    end = next(r for r in doc["layers"] if r["name"] == "prob1")
    assert end["worst_image"] == 1 and end["cosine_min"] < 0.95 <= 0.99 <= end["cosine_median"]
    assert main(["compare", "--reference", str(out), "--sim", str(sim), "--cfg", str(project)]) == 0
    text = " ".join(capsys.readouterr().out.split())  # rich wraps at the terminal width
    assert "on one image only: image 1 (mirror.png" in text and "median" in text

    # --images 2: the last two images; the faulty one is then half of them
    doc2 = _compare(capsys, "--reference", str(out), "--sim", str(sim), "--cfg", str(project), "--images", "2")
    assert doc2["images"]["count"] == 2 and [c["index"] for c in doc2["images"]["cases"]] == [1, 2]
    assert doc2["case"] == 4  # a tie goes to the list's last image, the one the mapper dumps


def test_a_mapper_folder_pairs_with_the_last_image(project, capsys, tmp_path):
    """A real mapper_quant/ holds the list's last image only (no manifest): compared with the
    reference's last image, and said so."""
    capsys.readouterr()
    flat = tmp_path / "mapper_quant"
    shutil.copytree(project.parent / "mapper_quant_emulated" / "image2_dark", flat)
    doc = _compare(capsys, "--reference", str(project.parent / "output"), "--sim", str(flat),
                   "--prototxt", str(DET1 / "det1.prototxt"))
    assert doc["images"] is None and doc["case"] == 4
    assert any("compared with image 2 only" in n for n in doc["alignment_notes"])
    assert doc["inputs"]["reference"].endswith("image2_dark")


def test_a_decoding_image_is_named_so_not_inconclusive():
    """An image whose dumps are read with the wrong scale (T006) is a decoding fault in the
    several-image summary, ordered after the guide's cases and before inconclusive."""
    from types import SimpleNamespace

    from nnie_lsp.triage.measure.images import CASE_NAMES, _headline, _outcome

    decoding = SimpleNamespace(diagnosis=SimpleNamespace(case=None, decoding={"factor": 16.0}))
    inconclusive = SimpleNamespace(diagnosis=SimpleNamespace(case=None, decoding=None))
    healthy = SimpleNamespace(diagnosis=SimpleNamespace(case=4, decoding=None))
    assert [_outcome(r) for r in (decoding, inconclusive, healthy)] == ["decoding", None, 4]
    assert "decoding" in CASE_NAMES["decoding"] and "inconclusive" not in CASE_NAMES["decoding"]
    assert _headline(["decoding", None]) is None  # the last image's outcome wins a tie
    assert _headline(["decoding", "decoding", None, None, 4]) == "decoding"  # else decoding before inconclusive
    assert _headline([None, None, 4, 4, "decoding"]) == 4  # and the guide's case before both

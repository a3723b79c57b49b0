"""The reference net loader: the TEST net (phase rules) and weights of renamed `_hp` layers."""

from pathlib import Path

import numpy as np

from nnie_lsp.reference.net import load_net

DET1_DIR = Path(__file__).resolve().parents[2] / "data" / "triage" / "mtcnn"


def _copy(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "det1.prototxt"
    p.write_text(text, encoding="utf-8")
    return p


def test_hp_renamed_layer_keeps_its_weights(tmp_path):
    text = (DET1_DIR / "det1.prototxt").read_text(encoding="utf-8")
    renamed = text.replace('name: "conv1"', 'name: "conv1_hp"', 1)
    assert renamed != text
    original = {layer.name: layer for layer in load_net(DET1_DIR / "det1.prototxt", DET1_DIR / "det1.caffemodel").layers}
    net = load_net(_copy(tmp_path, renamed), DET1_DIR / "det1.caffemodel")
    by_name = {layer.name: layer for layer in net.layers}
    assert "conv1_hp" in by_name and "conv1" not in by_name
    assert len(by_name["conv1_hp"].blobs) == len(original["conv1"].blobs) > 0
    for mine, theirs in zip(by_name["conv1_hp"].blobs, original["conv1"].blobs):
        assert np.array_equal(mine, theirs)


def test_layers_outside_the_test_net_are_not_loaded(tmp_path):
    text = (DET1_DIR / "det1.prototxt").read_text(encoding="utf-8")
    text += '\nlayer { name: "acc" type: "Accuracy" bottom: "prob1" bottom: "label" top: "acc" include { phase: TRAIN } }\n'
    text += 'layer { name: "loss" type: "SoftmaxWithLoss" bottom: "conv4-1" bottom: "label" top: "loss" exclude { phase: TEST } }\n'
    net = load_net(_copy(tmp_path, text), DET1_DIR / "det1.caffemodel")
    names = [layer.name for layer in net.layers]
    assert "acc" not in names and "loss" not in names and "conv1" in names

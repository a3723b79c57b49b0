"""The draft card from the user's own Caffe dumps (the data blob fitted against the image), and
the draft of a cfg put together from dumps and code (nnie_lsp/card_draft/dumps.py, for_cfg.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from nnie_lsp.card_draft.dumps import draft_from_dumps
from nnie_lsp.card_draft.for_cfg import draft_for_cfg

cv2 = pytest.importorskip("cv2")
EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "triage"
IMAGE = EXAMPLES / "test1.jpg"


def _write_data(folder: Path, data: np.ndarray) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    c, h, w = data.shape
    np.savetxt(folder / f"data_output0_{c}_{h}_{w}_caffe.linear.float", data.reshape(-1), fmt="%.6f")


def _values(draft) -> dict:
    return {v.key: v.value for v in draft.values}


def test_mtcnn_caffe_run_is_recovered(tmp_path):
    """A pycaffe run as MTCNN's demo feeds det1: RGB, (x - 127.5) * 0.0078125, H and W swapped."""
    img = cv2.resize(cv2.imread(str(IMAGE)), (20, 20), interpolation=cv2.INTER_LINEAR)
    data = (np.swapaxes(img, 0, 1)[:, :, ::-1].transpose(2, 0, 1).astype(np.float64) - 127.5) * 0.0078125
    _write_data(tmp_path / "caffe", data)
    draft = draft_from_dumps(tmp_path / "caffe", [str(IMAGE)])
    assert _values(draft) == {"channel_order": "RGB", "mean": 127.5, "scale": 0.0078125, "transpose": True}
    assert all(v.certain for v in draft.values)
    assert "fitted against test1.jpg (R² 1.00000)" in draft.get("mean").source


def test_a_bgr_run_with_another_resize_is_found(tmp_path):
    img = cv2.resize(cv2.imread(str(IMAGE)), (32, 24), interpolation=cv2.INTER_AREA)
    data = img.transpose(2, 0, 1).astype(np.float64) - np.array([104.0, 117.0, 123.0]).reshape(3, 1, 1)
    _write_data(tmp_path / "caffe", data)
    draft = draft_from_dumps(tmp_path / "caffe", [str(IMAGE)])
    assert _values(draft) == {"channel_order": "BGR", "mean": [104.0, 117.0, 123.0], "scale": 1.0, "transpose": False}
    assert draft.get("mean").certain and "area resize" in draft.get("mean").source


def test_another_image_gives_nothing_but_the_reason(tmp_path):
    noise = np.random.default_rng(3).normal(size=(3, 20, 20))
    _write_data(tmp_path / "caffe", noise)
    draft = draft_from_dumps(tmp_path / "caffe", [str(IMAGE)])
    assert all(v.value is None for v in draft.values)
    assert "not a per-channel linear function of the image" in draft.get("channel_order").source


def test_draft_for_a_cfg_prefers_the_users_dumps_and_ignores_ours(tmp_path):
    root = tmp_path / "proj"
    shutil.copytree(EXAMPLES / "model", root / "model")
    shutil.copy(IMAGE, root / "test1.jpg")
    (root / ".git").mkdir()
    shutil.copytree(EXAMPLES / "channel_swap", root / "channel_swap")   # output/ holds OUR manifest: not a truth
    cfg = root / "channel_swap" / "sim.cfg"
    (root / "channel_swap" / "images.txt").write_text("../test1.jpg\n")
    only_ours = draft_for_cfg(str(cfg))
    assert only_ours.draft.empty and not only_ours.edits
    img = cv2.resize(cv2.imread(str(IMAGE)), (20, 20), interpolation=cv2.INTER_LINEAR)
    data = (np.swapaxes(img, 0, 1)[:, :, ::-1].transpose(2, 0, 1).astype(np.float64) - 127.5) * 0.0078125
    _write_data(root / "channel_swap" / "caffe_ruyi", data)
    (root / "demo.py").write_text("import cv2\ndef run(net, p):\n    img = cv2.imread(p)\n"
                                  "    net.setInput(cv2.dnn.blobFromImage(img, 1.0, (20, 20), (104, 117, 123)))\n")
    result = draft_for_cfg(str(cfg))
    assert _values(result.draft) == {"channel_order": "RGB", "mean": 127.5, "scale": 0.0078125, "transpose": True}
    assert any("from the dumps" in n or "but" in n for n in result.draft.notes)   # demo.py says BGR: a note
    assert result.card_path == str(root / "channel_swap" / "nnie.toml") and not result.card_exists
    assert 'prototxt = "../model/det1.prototxt"' in result.text and 'channel_order = "RGB"' in result.text
    (edit,) = result.edits
    assert edit.path == result.card_path and edit.edit.new_text.startswith("# drafted by nnie-lsp from caffe_ruyi")

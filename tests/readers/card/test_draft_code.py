"""The draft card from inference code, read with ast (never run): the shapes users write it in
(written here in those shapes; the real public files are in the closing note's table)."""

from __future__ import annotations

import pytest

from nnie_lsp.card_draft.code import draft_from_code, draft_from_source


def _values(text: str) -> dict:
    draft = draft_from_source(text, "infer.py")
    assert draft is not None
    return {v.key: v.value for v in draft.values}


def _sources(text: str) -> dict:
    return {v.key: v.source for v in draft_from_source(text, "infer.py").values}


RETINA_SHAPE = '''
import cv2, numpy as np, torch
def main(net, path):
    img_raw = cv2.imread(path, cv2.IMREAD_COLOR)
    img = np.float32(img_raw)
    img -= (104, 117, 123)
    img = img.transpose(2, 0, 1)
    img = torch.from_numpy(img).unsqueeze(0)
    loc, conf, landms = net(img)
'''

MTCNN_SHAPE = '''
import cv2, numpy as np
def detect(img, PNet):
    im_data = cv2.resize(img, (12, 12))
    im_data = (im_data - 127.5) * 0.0078125
    im_data = np.swapaxes(im_data, 0, 2)
    im_data = np.array([im_data], dtype=np.float32)
    PNet.blobs['data'].data[...] = im_data
    return PNet.forward()

def main(PNet):
    img = cv2.imread("a.jpg")
    img_matlab = img.copy()
    tmp = img_matlab[:, :, 2].copy()
    img_matlab[:, :, 2] = img_matlab[:, :, 0]
    img_matlab[:, :, 0] = tmp
    print "old python"
    detect(img_matlab, PNet)
'''

BLOB_SHAPE = '''
import cv2
CONFIG = {"size": (320, 240), "mean": (104.0, 117.0, 123.0), "scale": 1.0}
class Detector:
    def __init__(self, proto, model):
        self.net = cv2.dnn.readNetFromCaffe(proto, model)
    def detect(self, frame):
        blob = cv2.dnn.blobFromImage(frame, CONFIG["scale"], CONFIG["size"], CONFIG["mean"], swapRB=False)
        self.net.setInput(blob)
        return self.net.forward()
cap = cv2.VideoCapture(0)
ok, frame = cap.read()
Detector("a.prototxt", "a.caffemodel").detect(frame)
'''

TORCHVISION_SHAPE = '''
from PIL import Image
from torchvision import transforms
preprocess = transforms.Compose([
    transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor(),
    transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
])
def classify(model, path):
    img = Image.open(path).convert("RGB")
    x = preprocess(img).unsqueeze(0)
    return model(x)
'''

YOLO_SHAPE = '''
import cv2, numpy as np
def infer(session, path):
    img = cv2.imread(path)
    img = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)
    img = cv2.resize(img, (416, 416)) / 255.0
    img = img.transpose((2, 0, 1))[None].astype(np.float32)
    return session.run(None, {"images": img})
'''


def test_retinaface_shape():
    assert _values(RETINA_SHAPE) == {"channel_order": "BGR", "mean": [104.0, 117.0, 123.0], "scale": 1.0,
                                     "transpose": False}
    src = _sources(RETINA_SHAPE)
    assert src["channel_order"].startswith("infer.py:4: cv2.imread(path, cv2.IMREAD_COLOR) (OpenCV reads BGR)")
    assert src["mean"] == "infer.py:6: img -= (104, 117, 123)"
    assert src["scale"] == "no scaling before the net (0-255 pixels)"


def test_mtcnn_shape_python2_swap_by_hand_and_transposed():
    assert _values(MTCNN_SHAPE) == {"channel_order": "RGB", "mean": 127.5, "scale": 0.0078125, "transpose": True}
    src = _sources(MTCNN_SHAPE)
    assert "img_matlab[:, :, 2] = img_matlab[:, :, 0]" in src["channel_order"]
    assert "np.swapaxes(im_data, 0, 2) (C×W×H: H and W swapped)" in src["transpose"]


def test_blob_from_image_with_constants_in_a_dict_and_a_video():
    assert _values(BLOB_SHAPE) == {"channel_order": "BGR", "mean": [104.0, 117.0, 123.0], "scale": 1.0,
                                   "transpose": False}


def test_blob_from_image_swap_rb_swaps_before_the_mean():
    text = BLOB_SHAPE.replace("swapRB=False", "swapRB=True")
    assert _values(text)["channel_order"] == "RGB"
    assert _values(text)["mean"] == [104.0, 117.0, 123.0]   # subtracted in the swapped order, as written


def test_torchvision_normalize_after_to_tensor_is_in_pixel_units():
    v = _values(TORCHVISION_SHAPE)
    assert v["channel_order"] == "RGB" and v["transpose"] is False
    assert v["mean"] == pytest.approx([123.675, 116.28, 103.53])
    assert v["scale"] == pytest.approx([1 / (255 * 0.229), 1 / (255 * 0.224), 1 / (255 * 0.225)])


def test_yolo_onnx_shape():
    assert _values(YOLO_SHAPE) == {"channel_order": "RGB", "mean": 0.0, "scale": pytest.approx(1 / 255),
                                   "transpose": False}


def test_mmcv_config():
    text = 'img_norm_cfg = dict(mean=[123.675, 116.28, 103.53], std=[58.395, 57.12, 57.375], to_rgb=True)\n'
    v = _values(text)
    assert v["channel_order"] == "RGB" and v["mean"] == [123.675, 116.28, 103.53]
    assert v["scale"] == pytest.approx([1 / 58.395, 1 / 57.12, 1 / 57.375])


def test_computed_values_are_unknown_never_guessed():
    text = '''
import cv2
def run(net, path):
    img = cv2.imread(path).astype("float32")
    img = (img - img.mean()) / img.std()
    net.setInput(img.transpose(2, 0, 1)[None])
    return net.forward()
'''
    draft = draft_from_source(text, "infer.py")
    values = {v.key: v for v in draft.values}
    assert values["channel_order"].value == "BGR"
    assert values["mean"].value is None and values["mean"].source.startswith("unknown: infer.py:5")
    assert values["scale"].value is None


def test_no_net_fed_gives_no_draft():
    assert draft_from_source("import os\nprint(os.getcwd())\n", "x.py") is None
    assert draft_from_source("def broken(:\n", "x.py") is None


def test_the_file_naming_the_net_comes_first(tmp_path):
    (tmp_path / "a_other.py").write_text(YOLO_SHAPE)
    (tmp_path / "detect.py").write_text("# runs yuface.prototxt\n" + RETINA_SHAPE)
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "lib.py").write_text(TORCHVISION_SHAPE)
    draft = draft_from_code(str(tmp_path), mentions=["yuface"])
    assert draft.files[0].endswith("detect.py") and draft.get("channel_order").value == "BGR"
    assert any("a_other.py gives channel_order RGB" in n for n in draft.notes)
    assert not any(".venv" in f for f in draft.files)

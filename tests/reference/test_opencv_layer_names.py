"""OpenCV's Caffe importer names some layers after their top (a Convolution whose top no layer
reads and differs from its name): the reference still dumps that blob (it was silently missing)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("cv2")

from nnie_lsp.reference.caffe_forward import run_reference  # noqa: E402
from nnie_lsp.reference.preprocess import Preprocessing  # noqa: E402

MTCNN = Path(__file__).resolve().parents[1] / "data" / "triage" / "mtcnn"


def test_a_renamed_output_top_is_dumped(tmp_path):
    text = (MTCNN / "det1.prototxt").read_text(encoding="utf-8")
    renamed = re.sub(r'top: "conv4-2"', 'top: "pnet_face_classification_output_bbox"', text)
    assert renamed != text
    proto = tmp_path / "det1.prototxt"
    proto.write_text(renamed, encoding="utf-8")
    image = (np.arange(3 * 48 * 48) % 251).astype(np.uint8).reshape(3, 48, 48)
    prep = Preprocessing(norm_type=5, data_scale=0.0078125, mean=np.full(3, 127.5, np.float32), rgb_order="RGB")
    run = run_reference(proto, MTCNN / "det1.caffemodel", [image], prep)
    plain = run_reference(MTCNN / "det1.prototxt", MTCNN / "det1.caffemodel", [image], prep)
    assert run.engine == "opencv"
    assert np.array_equal(run.blobs["pnet_face_classification_output_bbox"], plain.blobs["conv4-2"])

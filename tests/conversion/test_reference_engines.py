"""Which engine computes the Caffe reference (nnie_lsp/reference/caffe_forward.py): OpenCV's Caffe
importer, or the numpy forward for a whole net that has a layer OpenCV cannot create (Clip,
Upsample: what onnx2caffe converters write for ReLU6 and Resize); the numpy layers added for them
(Clip, ReLU6, Slice, Upsample's scale fields) agree with OpenCV where OpenCV has the layer."""

from __future__ import annotations

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from nnie_lsp.readers.prototxt import caffe_pb2  # noqa: E402
from nnie_lsp.reference.caffe_forward import (ReferenceError, opencv_forward, reference_engine,  # noqa: E402
                                              run_reference)
from nnie_lsp.reference.net import load_net  # noqa: E402
from nnie_lsp.reference.numpy_forward import UnsupportedLayer, forward  # noqa: E402
from nnie_lsp.reference.preprocess import Preprocessing  # noqa: E402

HEAD = 'name: "n"\ninput: "data"\ninput_shape { dim: 1 dim: 4 dim: 6 dim: 6 }\n'
CONV = ('layer { name: "conv" type: "Convolution" bottom: "data" top: "conv" '
        'convolution_param { num_output: 4 kernel_size: 1 } }\n')


def _net(tmp_path, body: str):
    rng = np.random.default_rng(3)
    msg = caffe_pb2.NetParameter()
    layer = msg.layer.add()
    layer.name, layer.type = "conv", "Convolution"
    for arr in ((rng.standard_normal((4, 4, 1, 1)) * 4).astype(np.float32), rng.standard_normal(4).astype(np.float32)):
        blob = layer.blobs.add()
        blob.shape.dim.extend(arr.shape)
        blob.data.extend(arr.reshape(-1).tolist())
    (tmp_path / "n.prototxt").write_text(HEAD + CONV + body, encoding="utf-8")
    (tmp_path / "n.caffemodel").write_bytes(msg.SerializeToString())
    return tmp_path / "n.prototxt", tmp_path / "n.caffemodel"


def _x():
    return np.random.default_rng(0).standard_normal((1, 4, 6, 6)).astype(np.float32)


def _numpy(proto, model, x):
    return {t: v for _layer, written in forward(load_net(proto, model), {"data": x}) for t, v in written.items()}


@pytest.mark.parametrize("body,tops", [
    ('layer { name: "r6" type: "ReLU6" bottom: "conv" top: "r6" }\n', ["r6"]),
    ('layer { name: "s" type: "Slice" bottom: "conv" top: "a" top: "b" slice_param { axis: 1 slice_point: 1 } }\n',
     ["a", "b"]),
    ('layer { name: "s" type: "Slice" bottom: "conv" top: "a" top: "b" top: "c" '
     'slice_param { axis: -1 slice_point: 2 slice_point: 5 } }\n', ["a", "b", "c"]),
])
def test_numpy_layers_agree_with_opencv(tmp_path, body, tops):
    proto, model = _net(tmp_path, body)
    x = _x()
    ours = _numpy(proto, model, x)
    net = load_net(proto, model, weights=False)
    assert reference_engine(net) == ("opencv", None)
    theirs = opencv_forward(net, {"data": x})
    layer = net.layers[-1].name
    for top, value in zip(tops, theirs[layer]):
        assert ours[top].shape == value.shape and np.allclose(ours[top], value, atol=1e-5), top
    if "ReLU6" in body:
        assert ours["r6"].max() == pytest.approx(6.0) and ours["r6"].min() == 0.0   # it clips both ends


def test_a_net_with_clip_and_upsample_runs_whole_in_numpy(tmp_path):
    body = ('layer { name: "clip" type: "Clip" bottom: "conv" top: "clip" clip_param { min: -1 max: 2 } }\n'
            'layer { name: "up" type: "Upsample" bottom: "clip" top: "up" upsample_param { scale: 2 } }\n'
            'layer { name: "s" type: "Slice" bottom: "up" top: "a" top: "b" slice_param { slice_point: 3 } }\n')
    proto, model = _net(tmp_path, body)
    engine, reason = reference_engine(load_net(proto, model, weights=False))
    assert engine == "numpy" and "Clip/Upsample" in reason and "clip" in reason
    x = _x()
    run = run_reference(proto, model, [x], Preprocessing())
    assert run.engine == "numpy" and run.engine_reason == reason
    conv = run.blobs["conv"]
    assert np.allclose(run.blobs["clip"], np.clip(conv, -1, 2))
    assert run.blobs["up"].shape == (1, 4, 12, 12) and np.array_equal(run.blobs["up"][:, :, ::2, ::2], run.blobs["clip"])
    assert run.blobs["a"].shape == (1, 3, 12, 12) and run.blobs["b"].shape == (1, 1, 12, 12)
    assert set(run.layer_outputs) == {"conv", "clip", "up", "s"}


def test_slice_without_slice_point_cuts_equal_parts(tmp_path):
    # (OpenCV 4.14's importer asserts on this form in forwardAndRetrieve: checked against numpy here)
    proto, model = _net(tmp_path, 'layer { name: "s" type: "Slice" bottom: "conv" top: "a" top: "b" '
                                  'slice_param { axis: 2 } }\n')
    out = _numpy(proto, model, _x())
    assert out["a"].shape == (1, 4, 3, 6) and np.array_equal(np.concatenate([out["a"], out["b"]], 2), out["conv"])


def test_upsample_scale_fields(tmp_path):
    body = 'layer { name: "up" type: "Upsample" bottom: "conv" top: "up" upsample_param { scale_h: 2 scale_w: 3 } }\n'
    proto, model = _net(tmp_path, body)
    assert _numpy(proto, model, _x())["up"].shape == (1, 4, 12, 18)
    proto, model = _net(tmp_path, 'layer { name: "up" type: "Upsample" bottom: "conv" top: "up" }\n')
    assert _numpy(proto, model, _x())["up"].shape == (1, 4, 6, 6)   # scale's default is 1 (the schema)


def test_what_no_engine_runs_is_a_message(tmp_path):
    body = ('layer { name: "clip" type: "Clip" bottom: "conv" top: "clip" clip_param { min: 0 max: 6 } }\n'
            'layer { name: "t" type: "Threshold" bottom: "clip" top: "t" }\n')
    proto, model = _net(tmp_path, body)
    with pytest.raises(ReferenceError, match=r"Can't create layer.*numpy Caffe forward cannot run it either: "
                                             r"layer 't': type Threshold"):
        run_reference(proto, model, [_x()], Preprocessing())
    proto, model = _net(tmp_path, 'layer { name: "clip" type: "Clip" bottom: "conv" top: "clip" clip_param { max: 6 } }\n')
    with pytest.raises(ReferenceError, match=r"layer 'clip': Clip needs clip_param \{ min max \}"):
        run_reference(proto, model, [_x()], Preprocessing())
    proto, model = _net(tmp_path, 'layer { name: "s" type: "Slice" bottom: "conv" top: "a" top: "b" '
                                  'slice_param { slice_point: 9 } }\n'
                                  'layer { name: "up" type: "Upsample" bottom: "a" top: "up" upsample_param { scale: 2 } }\n')
    with pytest.raises(ReferenceError, match=r"layer 's': slice_point \[9\] does not cut axis 1 \(4 values\)"):
        run_reference(proto, model, [_x()], Preprocessing())
    with pytest.raises(UnsupportedLayer):
        forward(load_net(proto, model), {"data": _x()})

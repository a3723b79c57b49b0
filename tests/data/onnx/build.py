"""Writes the ONNX models and caffemodels the NN5xx rule cases use (tests/rules/cases/NN5*.toml
name them with `onnx = "…"` / `caffemodel = "…"`), from nnie_lsp.testing.onnx_models and its
test converter.  tests/conversion/test_data_files.py checks the files are what this writes.

    .venv/bin/python tests/data/onnx/build.py
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def files() -> dict[str, bytes]:
    from nnie_lsp.testing import onnx_models as m
    from nnie_lsp.testing.onnx_models_convert import convert
    from nnie_lsp.testing.onnx_names import exporter_named, inplace_named

    conv, fc = m.tiny_conv(), m.tiny_fc()
    return {
        "tiny_conv.onnx": m.model_bytes(conv),
        "tiny_conv.caffemodel": convert(conv).caffemodel,                       # BatchNorm + Scale
        "tiny_conv_folded.caffemodel": convert(conv, fold_bn=True).caffemodel,  # BN folded into conv1
        "tiny_conv_fold_lost.caffemodel": convert(conv, "bn_fold_lost", fold_bn=True).caffemodel,
        "tiny_conv_weights.caffemodel": convert(conv, "weights").caffemodel,    # conv1 kernels kh <-> kw
        "tiny_fc.onnx": m.model_bytes(fc),
        "tiny_fc.caffemodel": convert(fc).caffemodel,
        "tiny_fc_hwc.caffemodel": _hwc(fc),
        "tiny_focus.onnx": m.model_bytes(m.tiny_focus()),
        # the same nets under the names real files have (nnie_lsp/testing/onnx_names.py)
        "tiny_conv_exporter.onnx": m.model_bytes(exporter_named(conv)),
        "tiny_conv_chain_named.onnx": m.model_bytes(inplace_named(conv)),
        "tiny_fc_exporter.onnx": m.model_bytes(exporter_named(fc, numeric_io=True)),
    }


def _hwc(fc) -> bytes:
    """fc's weights in H, W, C order (the Flatten → InnerProduct fault); the test converter's
    ip_order fault needs a Flatten layer of its own, which the case's prototxt leaves out."""
    import numpy as np

    from nnie_lsp.readers.prototxt import caffe_pb2
    from onnx import numpy_helper

    inits = {i.name: numpy_helper.to_array(i) for i in fc.graph.initializer}
    w = inits["fc.weight"].reshape(4, 2, 3, 3).transpose(0, 2, 3, 1).reshape(4, 18)
    net = caffe_pb2.NetParameter()
    layer = net.layer.add()
    layer.name, layer.type = "fc", "InnerProduct"
    for arr in (w, inits["fc.bias"]):
        blob = layer.blobs.add()
        blob.shape.dim.extend(arr.shape)
        blob.data.extend(np.asarray(arr, np.float32).reshape(-1).tolist())
    return net.SerializeToString()


def main() -> int:
    for name, data in files().items():
        (HERE / name).write_bytes(data)
        print(f"wrote {HERE / name} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parents[2]))
    sys.exit(main())

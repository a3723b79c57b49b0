"""The binary caffemodel (a Caffe ``NetParameter``): its weight blobs by layer name, as numpy arrays.

Read through the guarded reader (regular files only, within the bound for caffemodels:
:mod:`nnie_lsp.core.safe_io`); a file that cannot be read or parsed is a :class:`NetLoadError`
whose message is meant for the user.  The reference (:mod:`nnie_lsp.reference.net`) and the
conversion check read weights here.

May import: core, readers.prototxt.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from nnie_lsp.core import safe_io


class NetLoadError(ValueError):
    """A prototxt or caffemodel could not be read; the message is meant for the user."""


def caffe_pb2():
    from nnie_lsp.readers.prototxt import caffe_pb2 as pb2
    return pb2


def _blob_array(blob) -> np.ndarray:
    data = np.asarray(blob.data, dtype=np.float32)
    if len(blob.shape.dim):
        shape = tuple(int(d) for d in blob.shape.dim)
    else:
        shape = tuple(int(d) for d in (blob.num, blob.channels, blob.height, blob.width))
    if data.size != int(np.prod(shape)):
        if len(blob.double_data):
            data = np.asarray(blob.double_data, dtype=np.float32)
    if data.size != int(np.prod(shape)):
        raise NetLoadError(f"weight blob of {data.size} values does not fit its shape {shape}")
    return data.reshape(shape)


def read_weights(caffemodel: str | Path) -> dict[str, list[np.ndarray]]:
    """layer name -> list of weight arrays from a binary caffemodel."""
    pb2 = caffe_pb2()
    path = Path(caffemodel)
    try:  # regular files only, within the bound for caffemodels (safe_io)
        raw = safe_io.read_bytes(str(path), safe_io.CAFFEMODEL)
    except safe_io.FileReadError as exc:
        raise NetLoadError(f"cannot read caffemodel {exc.problem.message}") from exc
    except OSError as exc:
        raise NetLoadError(f"cannot read caffemodel {path}: {exc.strerror or exc}") from exc
    msg = pb2.NetParameter()
    try:
        msg.ParseFromString(raw)
    except Exception as exc:
        raise NetLoadError(f"{path} is not a binary Caffe NetParameter: {exc}") from exc
    out: dict[str, list[np.ndarray]] = {}
    for layer in list(msg.layer) + list(msg.layers):
        if len(layer.blobs):
            out[layer.name] = [_blob_array(b) for b in layer.blobs]
    return out

"""Load a Caffe net (prototxt + optional caffemodel) into plain Python structures.

The prototxt is read with the project's reader and graph (the same cached parse the lint and the
triage use); weights come from the binary caffemodel (:mod:`nnie_lsp.readers.caffemodel`), matched
to layers by name; BVLC and legacy V1 ``layers`` both work.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from nnie_lsp.core import safe_io
from nnie_lsp.readers.prototxt.layers import base_layer_name
from nnie_lsp.core.text import decode
from nnie_lsp.readers.caffemodel import NetLoadError, caffe_pb2, read_weights


def read_prototxt_text(path: str | Path) -> str:
    """The text of a prototxt, read through the guarded reader (regular files only, within the
    bound for prototxts: :mod:`nnie_lsp.core.safe_io`); NetLoadError with the reason otherwise."""
    try:
        return decode(safe_io.read_bytes(str(path), safe_io.PROTOTXT)).text
    except safe_io.FileReadError as exc:
        raise NetLoadError(f"cannot read prototxt {exc.problem.message}") from exc
    except OSError as exc:
        raise NetLoadError(f"cannot read prototxt {path}: {exc.strerror or exc}") from exc


@dataclass
class LayerDef:
    name: str
    type: str
    bottoms: list[str]
    tops: list[str]
    param: Any  # caffe_pb2.LayerParameter
    blobs: list[np.ndarray] = field(default_factory=list)
    index: int = 0

    @property
    def in_place(self) -> bool:
        return len(self.bottoms) >= 1 and len(self.tops) == 1 and self.tops[0] in self.bottoms


@dataclass
class CaffeNet:
    name: str
    inputs: list[tuple[str, tuple[int, ...]]]
    layers: list[LayerDef]
    prototxt: Path | None = None
    caffemodel: Path | None = None

    def layer(self, name: str) -> LayerDef:
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise KeyError(name)

    def blob_writers(self) -> dict[str, list[str]]:
        """blob name -> layers writing it, in network order (in-place chains have several)."""
        out: dict[str, list[str]] = {}
        for layer in self.layers:
            for top in layer.tops:
                out.setdefault(top, []).append(layer.name)
        return out

    def chains(self) -> list[list[LayerDef]]:
        """Layers grouped into in-place chains: a producing layer followed by the in-place layers
        that rewrite its single top. Every layer is in exactly one chain, network order kept."""
        chains: list[list[LayerDef]] = []
        head_of: dict[str, list[LayerDef]] = {}
        for layer in self.layers:
            if layer.in_place and layer.tops[0] in head_of:
                head_of[layer.tops[0]].append(layer)
                continue
            chain = [layer]
            chains.append(chain)
            for top in layer.tops:
                head_of[top] = chain
        return chains


def layer_type(layer) -> str:
    """A layer's type as the reference reads it: a V2 layer's string, a V1 enum's Caffe name (its
    own table, else the enum title-cased)."""
    t = layer.type
    if isinstance(t, str):
        return t
    # V1 enum
    pb2 = caffe_pb2()
    try:
        name = pb2.V1LayerParameter.LayerType.Name(t)
    except Exception:
        return str(t)
    table = {"CONVOLUTION": "Convolution", "INNER_PRODUCT": "InnerProduct", "POOLING": "Pooling",
             "RELU": "ReLU", "SOFTMAX": "Softmax", "CONCAT": "Concat", "ELTWISE": "Eltwise",
             "DROPOUT": "Dropout", "SIGMOID": "Sigmoid", "TANH": "TanH", "FLATTEN": "Flatten",
             "LRN": "LRN", "DECONVOLUTION": "Deconvolution", "SPLIT": "Split"}
    return table.get(name, name.title())


def load_net(prototxt: str | Path, caffemodel: str | Path | None = None, *, weights: bool = True) -> CaffeNet:
    """The net of ``prototxt`` with the weights of ``caffemodel`` (``weights=False``: the path is
    kept but the weights are not read, for OpenCV, which reads them itself)."""
    ppath = Path(prototxt)
    text = read_prototxt_text(ppath)
    from nnie_lsp.project.project import cached_prototxt

    doc, graph = cached_prototxt(text, str(ppath))
    if doc.syntax_errors:
        raise NetLoadError(f"cannot parse prototxt {ppath}: {doc.syntax_errors[0]}")
    msg = doc.message
    blobs = read_weights(caffemodel) if caffemodel is not None and weights else {}
    layers: list[LayerDef] = []
    # the TEST net, as the mapper converts it (Caffe's include/exclude rules: prototxt/phase.py)
    for graph_layer in graph.layers:
        layer = graph_layer.source.param
        ltype = layer_type(layer)
        if ltype == "Input":
            continue
        # a layer renamed `conv5_hp` / `x_cpu` keeps the weights the caffemodel holds under `conv5`
        layer_blobs = blobs.get(layer.name) or blobs.get(base_layer_name(layer.name), [])
        layers.append(LayerDef(name=layer.name, type=ltype, bottoms=list(layer.bottom),
                               tops=list(layer.top), param=layer,
                               blobs=layer_blobs, index=len(layers)))
    inputs = [(i.name, tuple(int(d) for d in (i.shape or ()))) for i in graph.inputs]
    if not inputs:
        raise NetLoadError(f"{ppath}: no network input (input/input_shape/input_dim or an Input layer)")
    return CaffeNet(name=msg.name, inputs=inputs, layers=layers, prototxt=ppath,
                    caffemodel=Path(caffemodel) if caffemodel is not None else None)

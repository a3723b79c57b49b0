"""The prototxt half of the analysis engine.

- :mod:`.reader` -- ``parse_prototxt(text, path)`` -> :class:`PrototxtDocument` (message, source
  tree with ranges, layers, comments, NN010/NN011/NN012 errors), never raises; built from
  :mod:`.tokenizer`, :mod:`.tree` (the document types), :mod:`.decode` (value decoding),
  :mod:`.parser` and :mod:`.fast_path`;
- :mod:`.graph` -- ``build_graph(doc)`` -> :class:`NetGraph` (inputs, producers/consumers,
  in-place chains, undefined bottoms, duplicate names, shapes);
- :mod:`.shapes` -- N x C x H x W shape inference;
- :mod:`.layers` -- the layer table (NNIE support, limits, docs in English and Chinese);
- :mod:`.schema` -- descriptor helpers for completion and hover;
- :mod:`.format` -- ``format_prototxt(text)`` canonical layout;
- :mod:`.synth` -- ``generate_big_prototxt(n)`` for benchmarks;
- ``caffe_pb2`` -- generated from ``nnie_lsp/grammar/caffe.proto`` by ``scripts/gen_proto.py``.
"""

from .format import format_edits, format_prototxt
from .graph import GraphLayer, InplaceChain, NetGraph, NetInput, UndefinedBottom, build_graph
from .layers import LayerSpec, lookup as lookup_layer
from .reader import parse_prototxt
from .synth import generate_big_prototxt
from .tree import NN010, NN011, NN012, LayerSource, Node, PrototxtDocument, ProtoError

__all__ = [
    "NN010",
    "NN011",
    "NN012",
    "GraphLayer",
    "InplaceChain",
    "LayerSource",
    "LayerSpec",
    "NetGraph",
    "NetInput",
    "Node",
    "ProtoError",
    "PrototxtDocument",
    "UndefinedBottom",
    "build_graph",
    "format_edits",
    "format_prototxt",
    "generate_big_prototxt",
    "lookup_layer",
    "parse_prototxt",
]

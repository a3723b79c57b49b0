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

# The names below are imported from their submodules on first use (PEP 562 ``__getattr__``),
# so importing one submodule does not load every other one (nnie-lint's start-up).
_EXPORTS = {
    "format_edits": (".format", "format_edits"),
    "format_prototxt": (".format", "format_prototxt"),
    "GraphLayer": (".graph", "GraphLayer"),
    "InplaceChain": (".graph", "InplaceChain"),
    "NetGraph": (".graph", "NetGraph"),
    "NetInput": (".graph", "NetInput"),
    "UndefinedBottom": (".graph", "UndefinedBottom"),
    "build_graph": (".graph", "build_graph"),
    "LayerSpec": (".layers", "LayerSpec"),
    "lookup_layer": (".layers", "lookup"),
    "parse_prototxt": (".reader", "parse_prototxt"),
    "generate_big_prototxt": (".synth", "generate_big_prototxt"),
    "NN010": (".tree", "NN010"),
    "NN011": (".tree", "NN011"),
    "NN012": (".tree", "NN012"),
    "LayerSource": (".tree", "LayerSource"),
    "Node": (".tree", "Node"),
    "PrototxtDocument": (".tree", "PrototxtDocument"),
    "ProtoError": (".tree", "ProtoError"),
}


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from nnie_lsp.readers.prototxt import format, graph, layers, reader, tree
    from nnie_lsp.testing import synth_nets as synth  # static: all on first use

    sources = {".format": format, ".graph": graph, ".layers": layers, ".reader": reader, ".synth": synth, ".tree": tree}
    module, attribute = _EXPORTS[name]
    value = getattr(sources[module], attribute)
    globals()[name] = value
    return value


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

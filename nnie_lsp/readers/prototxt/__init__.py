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
- ``caffe_pb2`` -- generated from ``nnie_lsp/grammar/caffe.proto`` by ``scripts/gen_proto.py``.

May import: core.
"""

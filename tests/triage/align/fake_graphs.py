"""Small prototxt graphs from plain data for the alignment tests: a real
:class:`~nnie_lsp.readers.prototxt.graph.NetGraph` (the one graph the passes read) over layers given as
``(name, type, bottoms, tops)``, input names and fixed blob shapes instead of shape inference."""

from __future__ import annotations

from nnie_lsp.readers.prototxt.graph import GraphLayer, NetGraph, NetInput


class FakeGraph(NetGraph):
    def __init__(self, layers, inputs, shapes=None) -> None:
        built = tuple(GraphLayer(i, name, type_, tuple(bottoms), tuple(tops), None, bool(set(bottoms) & set(tops)))
                      for i, (name, type_, bottoms, tops) in enumerate(layers))
        super().__init__(None, tuple(NetInput(name, None, None, "input_shape") for name in inputs), built)
        self._fixed_shapes = dict(shapes or {})

    def blob_shapes(self):
        return dict(self._fixed_shapes)

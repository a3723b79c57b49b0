"""The network graph of a prototxt: inputs, layers, blob producers/consumers, in-place chains.

``build_graph(doc)`` works on whatever the reader could build, so it also answers for files
with errors (layers that failed to parse are simply absent).  Shape inference lives in
:mod:`nnie_lsp.readers.prototxt.shapes`; :meth:`NetGraph.blob_shapes` and :meth:`NetGraph.layer_shapes`
call it (computed once, cached).

The one graph of a net for every face: the lint and the editor ask it about producers,
consumers and in-place writes; the triage (alignment, per-layer rows) also looks layers and blobs
up by dump-name keys (:meth:`NetGraph.find_layer`), orders them (:meth:`NetGraph.blob_order`),
reads the shape of one image (:meth:`NetGraph.item_shape`) and groups layers into the chains the
forward pass runs (:meth:`NetGraph.chain_of`).  What those answers need is computed once per
graph, on first use.
"""

from __future__ import annotations

import math
from functools import cached_property
from typing import Callable, Sequence, TYPE_CHECKING

from nnie_lsp.core.records import NamedTuple
from nnie_lsp.core.text import Range
from nnie_lsp.readers.prototxt.phase import TEST_STATE, NetState, membership
from nnie_lsp.readers.prototxt.reader import LayerSource, Node, PrototxtDocument

if TYPE_CHECKING:
    from nnie_lsp.readers.prototxt.shapes import ShapeInference

__all__ = [
    "NetInput",
    "GraphLayer",
    "InplaceChain",
    "UndefinedBottom",
    "ExcludedLayer",
    "LayerChain",
    "NetGraph",
    "build_graph",
]

Shape = tuple[int, ...]
# progressively looser keys of a name, most specific first (the triage's dump-name variants)
NameKeys = Callable[[str], Sequence[str]]


class NetInput(NamedTuple):
    """A network input blob.

    ``style``: ``"input_shape"`` (top-level ``input`` + ``input_shape``, also used when an
    ``input`` has no shape at all), ``"input_dim"`` (legacy four ``input_dim`` per input) or
    ``"Input layer"`` (a ``type: "Input"`` layer; ``layer`` is its index).  ``range`` is the
    value range of the ``input:`` string, or of the Input layer's ``top``.
    """

    name: str
    shape: Shape | None
    range: Range
    style: str
    layer: int | None = None


class GraphLayer(NamedTuple):
    index: int
    name: str
    type: str
    bottoms: tuple[str, ...]
    tops: tuple[str, ...]
    source: LayerSource
    in_place: bool  # some top is also a bottom

    @property
    def param(self):
        return self.source.param


class InplaceChain(NamedTuple):
    """``producer`` writes ``blob`` (``None``: the blob is a net input or never produced); the
    ``layers`` then modify it in place, in order."""

    blob: str
    producer: GraphLayer | None
    layers: tuple[GraphLayer, ...]


class UndefinedBottom(NamedTuple):
    layer: GraphLayer
    blob: str
    range: Range


class ExcludedLayer(NamedTuple):
    """A layer of the file that is not part of the converted (TEST) net, and why
    (e.g. ``include { phase: TRAIN }``); see :mod:`nnie_lsp.readers.prototxt.phase`."""

    layer: GraphLayer
    reason: str


class LayerChain:
    """How the forward pass leaves ``blob`` (:meth:`NetGraph.chain_of`): ``head`` is the last layer
    that wrote it not in place, ``inplace`` the layers that rewrote it in place after a head, in
    order, ``head_bottoms`` what the head reads (by name: with duplicate layer names, the bottoms of
    the last head so named).  A plain slotted record: a NamedTuple costs ~0.3 ms to define, and
    this module is on every lint's start-up path."""

    __slots__ = ("blob", "head", "inplace", "head_bottoms")

    def __init__(self, blob: str, head: GraphLayer, inplace: tuple[GraphLayer, ...],
                 head_bottoms: tuple[str, ...]) -> None:
        self.blob, self.head, self.inplace, self.head_bottoms = blob, head, inplace, head_bottoms

    def _key(self) -> tuple:
        return (self.blob, self.head, self.inplace, self.head_bottoms)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LayerChain) and self._key() == other._key()

    __hash__ = None  # mutable-looking record; compare by value only

    def __repr__(self) -> str:
        return f"LayerChain(blob={self.blob!r}, head={self.head.name!r}, inplace={[l.name for l in self.inplace]!r})"


class _Chains:
    __slots__ = ("head", "inplace", "head_bottoms", "blob_of_layer", "outputs")

    def __init__(self, head: dict[str, GraphLayer], inplace: dict[str, list[GraphLayer]],
                 head_bottoms: dict[str, tuple[str, ...]], blob_of_layer: dict[str, str],
                 outputs: frozenset[str]) -> None:
        self.head, self.inplace, self.head_bottoms = head, inplace, head_bottoms
        self.blob_of_layer, self.outputs = blob_of_layer, outputs


class NetGraph:
    """The net nnie_mapper converts: ``layers`` are those of the TEST net (Caffe's phase rules);
    layers only in other phases are in ``excluded`` and take no part in any query."""

    def __init__(self, doc: PrototxtDocument, inputs: tuple[NetInput, ...],
                 layers: tuple[GraphLayer, ...], excluded: tuple[ExcludedLayer, ...] = ()) -> None:
        self.doc = doc
        self.inputs = inputs
        self.layers = layers
        self.excluded = excluded
        self.input_names = frozenset(i.name for i in inputs if i.style != "Input layer")
        prod: dict[str, list[GraphLayer]] = {}
        cons: dict[str, list[GraphLayer]] = {}
        for gl in layers:
            for t in gl.tops:
                lst = prod.setdefault(t, [])
                if not lst or lst[-1] is not gl:
                    lst.append(gl)
            for b in gl.bottoms:
                lst = cons.setdefault(b, [])
                if not lst or lst[-1] is not gl:
                    lst.append(gl)
        self._producers = {k: tuple(v) for k, v in prod.items()}
        self._consumers = {k: tuple(v) for k, v in cons.items()}
        self._shapes: "ShapeInference | None" = None
        self._keyed: dict[NameKeys, tuple[dict[str, GraphLayer], dict[str, str]]] = {}

    # -- queries ------------------------------------------------------------------------------

    def layer(self, name: str) -> GraphLayer | None:
        """The first layer with this name."""
        for gl in self.layers:
            if gl.name == name:
                return gl
        return None

    def blobs(self) -> tuple[str, ...]:
        """Every blob name (inputs first, then in order of first appearance)."""
        seen: dict[str, None] = {i.name: None for i in self.inputs}
        for gl in self.layers:
            for b in gl.bottoms:
                seen.setdefault(b, None)
            for t in gl.tops:
                seen.setdefault(t, None)
        return tuple(seen)

    def is_input(self, blob: str) -> bool:
        """A top-level input (``input:``); Input-layer tops are produced by their layer."""
        return blob in self.input_names

    def producers(self, blob: str) -> tuple[GraphLayer, ...]:
        """Layers writing ``blob`` (in-place layers included), in order."""
        return self._producers.get(blob, ())

    def consumers(self, blob: str) -> tuple[GraphLayer, ...]:
        """Layers reading ``blob`` (in-place layers included), in order."""
        return self._consumers.get(blob, ())

    def producer_before(self, layer_index: int, blob: str) -> GraphLayer | None:
        """The latest layer writing ``blob`` before layer ``layer_index``.

        ``None`` if ``blob`` is a net input not rewritten before that layer, or if it is never
        produced before it (see :meth:`is_input` / :meth:`undefined_bottoms` to tell apart).
        """
        found = None
        for gl in self._producers.get(blob, ()):
            if gl.index >= layer_index:
                break
            found = gl
        return found

    def outputs(self) -> tuple[str, ...]:
        """Blobs that are produced but never consumed by a later layer (net outputs)."""
        out = []
        for blob, prods in self._producers.items():
            last = prods[-1]
            if not any(c.index > last.index for c in self._consumers.get(blob, ())):
                out.append(blob)
        return tuple(out)

    def inplace_chains(self) -> tuple[InplaceChain, ...]:
        """For each write of a blob by a non-in-place layer (or a net input), the in-place
        layers that follow on the same blob, in order.  Only chains with at least one in-place
        layer are returned, in the order of their producer."""
        current: dict[str, tuple[GraphLayer | None, list[GraphLayer]]] = {}
        chains: list[tuple[str, GraphLayer | None, list[GraphLayer]]] = []
        for gl in self.layers:
            bottoms = set(gl.bottoms)
            for t in gl.tops:
                if t in bottoms:
                    entry = current.get(t)
                    if entry is None:
                        entry = (None, [])
                        current[t] = entry
                        chains.append((t, None, entry[1]))
                    entry[1].append(gl)
                else:
                    entry = (gl, [])
                    current[t] = entry
                    chains.append((t, gl, entry[1]))
        return tuple(InplaceChain(b, p, tuple(ls)) for b, p, ls in chains if ls)

    def undefined_bottoms(self) -> tuple[UndefinedBottom, ...]:
        """Bottoms read before any layer produced them (and that are not net inputs)."""
        defined = set(self.input_names)
        out = []
        for gl in self.layers:
            for blob, rng in gl.source.bottoms:
                if blob not in defined:
                    out.append(UndefinedBottom(gl, blob, rng))
            defined.update(gl.tops)
        return tuple(out)

    def duplicate_layer_names(self) -> tuple[tuple[str, tuple[GraphLayer, ...]], ...]:
        """``(name, layers)`` for every layer name used more than once, in order."""
        by: dict[str, list[GraphLayer]] = {}
        for gl in self.layers:
            by.setdefault(gl.name, []).append(gl)
        return tuple((n, tuple(ls)) for n, ls in by.items() if len(ls) > 1)

    @cached_property
    def input_blobs(self) -> tuple[str, ...]:
        """Every input blob, in order: top-level ``input:`` fields and Input-layer tops."""
        return tuple(i.name for i in self.inputs)

    # -- by name keys and in network order (the triage's alignment) -----------------------------

    def find_layer(self, name: str, keys: NameKeys) -> GraphLayer | None:
        """The layer ``name`` stands for under a name normalisation: ``keys(name)`` gives
        progressively looser keys, most specific first; the first of them that a layer's name also
        gives wins (the first such layer in order)."""
        layers = self._key_index(keys)[0]
        for key in keys(name):
            if key in layers:
                return layers[key]
        return None

    def find_blob(self, name: str, keys: NameKeys) -> str | None:
        """The blob ``name`` stands for, like :meth:`find_layer` (blobs in the order of
        :meth:`blobs`)."""
        blobs = self._key_index(keys)[1]
        for key in keys(name):
            if key in blobs:
                return blobs[key]
        return None

    def _key_index(self, keys: NameKeys) -> tuple[dict[str, GraphLayer], dict[str, str]]:
        found = self._keyed.get(keys)
        if found is None:
            layers: dict[str, GraphLayer] = {}
            for gl in self.layers:
                for key in keys(gl.name):
                    layers.setdefault(key, gl)
            blobs: dict[str, str] = {}
            for blob in self.blobs():
                for key in keys(blob):
                    blobs.setdefault(key, blob)
            found = self._keyed[keys] = (layers, blobs)
        return found

    @cached_property
    def _position(self) -> dict[str, int]:
        # position in ``layers`` by name (a repeated name: its last layer)
        return {gl.name: i for i, gl in enumerate(self.layers)}

    def layer_order(self, layer: GraphLayer) -> float:
        """Where ``layer`` stands in the net (the position of the last layer with its name); after
        every layer when no layer has its name."""
        return float(self._position.get(layer.name, len(self.layers)))

    def blob_order(self, blob: str) -> float:
        """Where ``blob`` is final: the position of the last layer writing it; -1 for a net input no
        layer writes, infinity for a name the graph does not know."""
        writers = self._producers.get(blob)
        if not writers:
            return -1.0 if blob in self.input_blobs else math.inf
        return float(self._position[writers[-1].name])

    # -- chains as the forward pass runs them (the triage's per-layer rows) ---------------------

    @cached_property
    def _chains(self) -> _Chains:
        """Input layers aside, every layer either heads a chain or rewrites in place the single
        top of one (one top, also a bottom, that a chain already holds): a rewrite of a net input
        heads its own chain."""
        head: dict[str, GraphLayer] = {}
        inplace: dict[str, list[GraphLayer]] = {}
        bottoms: dict[str, tuple[str, ...]] = {}
        blob_of: dict[str, str] = {}
        read: set[str] = set()
        for gl in self.layers:
            if gl.type == "Input":
                continue
            rewrites = len(gl.bottoms) >= 1 and len(gl.tops) == 1 and gl.tops[0] in gl.bottoms
            read.update(b for b in gl.bottoms if not (rewrites and b in gl.tops))
            if rewrites and gl.tops[0] in head:
                inplace.setdefault(gl.tops[0], []).append(gl)
                blob_of[gl.name] = gl.tops[0]
                continue
            bottoms[gl.name] = gl.bottoms
            for top in gl.tops:
                head[top] = gl
                inplace.setdefault(top, [])
                blob_of.setdefault(gl.name, top)
        return _Chains(head, inplace, bottoms, blob_of, frozenset(b for b in head if b not in read))

    def chain_of(self, blob: str | None) -> LayerChain | None:
        """The chain that leaves ``blob`` as the forward pass ends (``None``: no layer but an Input
        layer writes it, e.g. a net input); :meth:`inplace_chains` is the per-write view."""
        chains = self._chains
        head = chains.head.get(blob) if blob is not None else None
        if head is None:
            return None
        return LayerChain(blob, head, tuple(chains.inplace.get(blob, ())), chains.head_bottoms.get(head.name, ()))

    def blob_of_layer(self, name: str) -> str | None:
        """The blob the layer ``name`` writes in its chain: an in-place layer's top (the last such
        layer of the name), else the first top of the first chain head so named."""
        return self._chains.blob_of_layer.get(name)

    def chain_outputs(self) -> frozenset[str]:
        """Blobs a chain head writes that no layer reads (an in-place layer's own top aside): the
        net's outputs as the triage marks them (:meth:`outputs` counts writes in order instead)."""
        return self._chains.outputs

    # -- shapes -------------------------------------------------------------------------------

    def shape_inference(self) -> "ShapeInference":
        if self._shapes is None:
            from nnie_lsp.readers.prototxt.shapes import infer_shapes

            self._shapes = infer_shapes(self)
        return self._shapes

    def blob_shapes(self) -> dict[str, Shape | None]:
        """Final shape (after the last write) of every blob; ``None`` where unknown."""
        return dict(self.shape_inference().blobs)

    def layer_shapes(self) -> dict[int, tuple[Shape | None, ...]]:
        """Per layer index, the shape of each top as that layer writes it."""
        return dict(self.shape_inference().layer_tops)

    @cached_property
    def _known_shapes(self) -> dict[str, Shape | None]:
        try:
            return dict(self.blob_shapes() or {})
        except Exception:  # noqa: BLE001 - a best-effort reading: no shape is known then
            return {}

    def item_shape(self, blob: str | None) -> Shape | None:
        """The shape of ``blob`` for one image: its final shape with a leading batch of 1 dropped
        (``(1, 3, 8, 8)`` → ``(3, 8, 8)``); ``None`` when unknown, also when shape inference
        fails."""
        if blob is None:
            return None
        shape = self._known_shapes.get(blob)
        if not shape:
            return None
        shape = tuple(int(x) for x in shape)
        if len(shape) >= 2 and shape[0] == 1:
            shape = shape[1:]
        return shape


    def image_shape(self, blob: str | None) -> Shape | None:
        """The shape of one image of a 4-D ``blob``: its final (C, H, W) whatever its batch
        (``(8, 3, 5, 5)`` → ``(3, 5, 5)``); other ranks as :meth:`item_shape` gives them."""
        shape = self._known_shapes.get(blob) if blob is not None else None
        if shape and len(shape) == 4:
            return tuple(int(x) for x in shape[1:])
        return self.item_shape(blob)

def _dims(node: Node | None) -> Shape | None:
    if node is None:
        return None
    out = []
    for c in node.children:
        if c.name != "dim":
            continue
        if c.kind == "list":
            out.extend(v for v in c.value if isinstance(v, int))
        elif isinstance(c.value, int):
            out.append(c.value)
    return tuple(out)


def _inputs(doc: PrototxtDocument, layers: tuple[GraphLayer, ...]) -> tuple[NetInput, ...]:
    out: list[NetInput] = []
    input_nodes: list[tuple[str, Range]] = []
    shapes: list[Shape | None] = []
    input_dims: list[int] = []
    for n in doc.nodes:
        if n.name == "input":
            if n.kind == "scalar" and isinstance(n.value, str):
                input_nodes.append((n.value, n.value_range))
            elif n.kind == "list":
                for e in n.children:
                    if isinstance(e.value, str):
                        input_nodes.append((e.value, e.value_range))
        elif n.name == "input_shape":
            if n.kind == "message":
                shapes.append(_dims(n))
            elif n.kind == "list":
                shapes.extend(_dims(e) for e in n.children if e.kind == "message")
        elif n.name == "input_dim":
            if n.kind == "list":
                input_dims.extend(v for v in n.value if isinstance(v, int))
            elif isinstance(n.value, int):
                input_dims.append(n.value)
    style = "input_dim" if input_dims and not shapes else "input_shape"
    for k, (name, rng) in enumerate(input_nodes):
        shape: Shape | None = None
        if style == "input_shape":
            if len(shapes) == 1 and len(input_nodes) > 1:
                shape = None
            elif k < len(shapes):
                shape = shapes[k]
        else:
            chunk = input_dims[4 * k:4 * k + 4]
            shape = tuple(chunk) if len(chunk) == 4 else None
        out.append(NetInput(name, shape, rng, style))
    for gl in layers:
        if gl.type != "Input":
            continue
        p = gl.source.param
        layer_shapes = [tuple(s.dim) for s in p.input_param.shape] if gl.source.is_v1 is False else []
        for k, (top, rng) in enumerate(gl.source.tops):
            if len(layer_shapes) == 1:
                shape = layer_shapes[0]
            elif k < len(layer_shapes):
                shape = layer_shapes[k]
            else:
                shape = None
            out.append(NetInput(top, shape, rng, "Input layer", gl.index))
    return tuple(out)


def build_graph(doc: PrototxtDocument, state: NetState = TEST_STATE) -> NetGraph:
    """The graph of the net for ``state`` (default: the TEST net nnie_mapper converts)."""
    layers = []
    excluded = []
    for ls in doc.layers:
        # names straight from the message (ranges are computed lazily by LayerSource when asked)
        bottoms = tuple(ls.param.bottom)
        tops = tuple(ls.param.top)
        in_place = bool(set(bottoms) & set(tops))
        gl = GraphLayer(ls.index, ls.name, ls.type, bottoms, tops, ls, in_place)
        reason = membership(ls.param, state) if (ls.param.include or ls.param.exclude) else None
        if reason is None:
            layers.append(gl)
        else:
            excluded.append(ExcludedLayer(gl, reason))
    layers_t = tuple(layers)
    return NetGraph(doc, _inputs(doc, layers_t), layers_t, tuple(excluded))

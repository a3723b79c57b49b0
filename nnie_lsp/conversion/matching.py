"""Which ONNX nodes each converted Caffe layer stands for.

Most onnx2caffe converters keep ONNX tensor names as blob names, so a layer whose top is an ONNX
tensor is matched **by tensor name**; the ONNX nodes it stands for are those between the tensors
its bottoms stand for and that tensor (its *region*: a Conv plus a folded BatchNormalization, a
Flatten plus a Gemm, or nodes the converter dropped).  An in-place chain (``conv1`` rewritten by
``prelu1``, ``top: "conv1"``) holds one blob for several values: the blob stands for the chain's
**last** ONNX tensor.  When that tensor is the one named after the blob (a model converted from or
to an in-place Caffe net names the chain's end so), the chain is taken apart from it backwards,
each in-place layer getting the node that computes it (``how`` "chain").  Otherwise (an in-place
layer, a renamed blob, the PyTorch exporter's numbered tensors) a layer is matched **by graph
structure**: the one ONNX consumer of its bottom's tensor that can be what the layer is
(:data:`COUNTERPARTS`; an auxiliary Flatten before a Gemm taken along), the heads after a fork
told apart by their written parameters (outputs, kernel) and then their shapes, with the shapes
compared when both are known; several Caffe layers written for one ONNX node and ONNX nodes a
converter dropped are found as :mod:`.groups` says.  Caffe layers the converter wrote for one ONNX
node (a HardSwish as Power, Clip, Power, Eltwise) form a group with the layer that is matched by
name.  A layer with no single candidate stays unmatched, and is said so; nothing is ever matched
by position.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nnie_lsp.conversion.groups import function_group, past_dropped
from nnie_lsp.conversion.onnx_graph import OnnxGraph, OnnxNode

ACTIVATIONS = ("Relu", "LeakyRelu", "Clip", "PRelu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Elu",
               "Selu", "Softplus", "Mish", "Gelu", "Mul", "Add", "Sub", "Div", "Abs", "Exp", "Neg")

#: Caffe layer type -> ONNX op types it can stand for
COUNTERPARTS: dict[str, tuple[str, ...]] = {
    "Convolution": ("Conv",), "DepthwiseConvolution": ("Conv",),
    "Deconvolution": ("ConvTranspose", "Resize", "Upsample"),
    "InnerProduct": ("Gemm", "MatMul"),
    "Pooling": ("MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"),
    "BatchNorm": ("BatchNormalization",), "Scale": ("BatchNormalization", "Mul", "Add"),
    "Bias": ("Add",), "Eltwise": ("Add", "Mul", "Max", "Sub", "Sum"),
    "Concat": ("Concat",), "Slice": ("Split", "Slice"), "Softmax": ("Softmax",),
    "Flatten": ("Flatten", "Reshape"), "Reshape": ("Reshape", "Flatten", "Squeeze", "Unsqueeze"),
    "Permute": ("Transpose",), "Upsample": ("Resize", "Upsample"), "Interp": ("Resize", "Upsample"),
}
ELEMENTWISE_CAFFE = frozenset({"ReLU", "ReLU6", "Clip", "PReLU", "Sigmoid", "TanH", "Swish", "HardSwish",
                               "Power", "AbsVal", "ELU", "Exp", "BNLL", "Mish", "Scale", "Bias", "Eltwise"})
for _t in ELEMENTWISE_CAFFE:
    COUNTERPARTS.setdefault(_t, ACTIVATIONS)
#: the ONNX op a Caffe element-wise layer is when several nodes that it can stand for read its input
NATURAL = {"ReLU": "Relu", "PReLU": "PRelu", "Sigmoid": "Sigmoid", "TanH": "Tanh", "ELU": "Elu",
           "AbsVal": "Abs", "Exp": "Exp", "Clip": "Clip"}
BINARY = frozenset({"Mul", "Add", "Sub", "Div", "Max", "Sum"})
#: Caffe layers that compute nothing (a converter may add them)
PASS_THROUGH = frozenset({"Split", "Dropout", "Silence"})
#: ONNX nodes that compute nothing for inference
ONNX_NO_OPS = frozenset({"Identity", "Dropout", "Constant", "Cast"})
#: ONNX nodes a converter folds into the layer before them
FOLDABLE = frozenset({"BatchNormalization"})
MAX_REGION = 16


@dataclass
class LayerMatch:
    layer: object                          # GraphLayer
    how: str                               # "name" | "structure" | "chain"
    nodes: list[OnnxNode]                  # the region, in ONNX order
    inputs: list[str | None]               # the ONNX tensor of each bottom (None: unknown)
    outputs: list[str]                     # the ONNX tensor of each top
    group: list[object] = field(default_factory=list)   # Caffe layers before it that it stands with
    shapes_agree: bool | None = None       # structure matches: the top's shape against ONNX's
    partner: object = None                 # the in-place Scale after a BatchNorm (one ONNX node)

    @property
    def confidence(self) -> str:
        if self.how == "name":
            return "tensor name"
        if self.how == "chain":
            return "in-place chain"
        return "graph structure and shapes" if self.shapes_agree else "graph structure"


@dataclass
class Matching:
    matches: list[LayerMatch]
    unmatched: list[tuple[object, str]]    # (GraphLayer, reason)
    blob_tensor: dict[str, str]            # Caffe blob (its last value) -> ONNX tensor

    def of(self, layer_name: str) -> LayerMatch | None:
        return next((m for m in self.matches if m.layer.name == layer_name), None)


def _region(og: OnnxGraph, outs: list[str], stop: set[str]) -> list[OnnxNode] | None:
    """The ONNX nodes between the tensors in ``stop`` and ``outs`` (None: more than MAX_REGION)."""
    seen: dict[int, OnnxNode] = {}
    todo = list(outs)
    while todo:
        t = todo.pop()
        if t in stop or t in og.constants or not t:
            continue
        node = og.node_of(t)
        if node is None or node.index in seen:
            continue
        seen[node.index] = node
        if len(seen) > MAX_REGION:
            return None
        todo.extend(node.inputs)
    return [seen[i] for i in sorted(seen)]


def _absorb_folded(og: OnnxGraph, layer, region: list[OnnxNode], out: str, caffe_blobs: set[str]) -> str:
    """A Conv/Gemm's output read only by a BatchNormalization whose output is no Caffe blob: the
    converter folded the BN into the layer; the layer's top then stands for the BN's output."""
    if layer.type not in ("Convolution", "InnerProduct", "Deconvolution", "DepthwiseConvolution"):
        return out
    while True:
        cons = og.consumers.get(out, [])
        if len(cons) != 1 or og.nodes[cons[0]].op not in FOLDABLE:
            return out
        node = og.nodes[cons[0]]
        if node.outputs[0] in caffe_blobs:
            return out
        region.append(node)
        out = node.outputs[0]


def _shape_of(shapes, blob):
    return tuple(shapes.get(blob) or ()) or None


def match(graph, og: OnnxGraph) -> Matching:
    """Match the layers of ``graph`` (:class:`nnie_lsp.readers.prototxt.graph.NetGraph`) to ``og``."""
    try:
        shapes = graph.blob_shapes()
    except Exception:  # shape inference is best effort
        shapes = {}
    caffe_blobs = set(graph.blobs())
    blob_tensor: dict[str, str] = {}
    for i, inp in enumerate(graph.inputs):
        if og.has_tensor(inp.name):
            blob_tensor[inp.name] = inp.name
        elif len(graph.inputs) == 1 and len(og.inputs) == 1:
            blob_tensor[inp.name] = og.inputs[0]
    rewrites = _rewrites(graph)
    used: set[int] = set()
    matches: list[LayerMatch] = []
    unmatched: list[tuple[object, str]] = []
    pending: dict[str, object] = {}   # blob -> unmatched Caffe layer that wrote it
    ahead: dict[int, LayerMatch] = {}  # in-place layers already matched from their chain's last tensor
    skip: set[int] = set()             # layers of a group matched by what it computes (groups.py)
    for position, layer in enumerate(graph.layers):
        if layer.index in skip:
            continue
        if layer.type == "Input":
            for top in layer.tops:
                if og.has_tensor(top):
                    blob_tensor[top] = top
                elif len(og.inputs) == 1:
                    blob_tensor[top] = og.inputs[0]
            continue
        ins = [blob_tensor.get(b) for b in layer.bottoms]
        if layer.type in PASS_THROUGH and ins and ins[0] is not None:
            for top in layer.tops:
                blob_tensor[top] = ins[0]
            continue
        last = matches[-1] if matches else None
        if (layer.type == "Scale" and last is not None and last.layer.type == "BatchNorm" and last.partner is None
                and layer.bottoms and layer.bottoms[0] in last.layer.tops
                and (layer.in_place or [c.name for c in graph.consumers(layer.bottoms[0])] == [layer.name])):
            last.partner = layer   # Caffe's BatchNorm + Scale is one ONNX BatchNormalization
            if not layer.in_place:  # de-inplaced: the Scale's top holds the node's value, the BatchNorm's none
                blob_tensor[layer.tops[0]] = blob_tensor.pop(layer.bottoms[0], last.outputs[0])
            continue
        m = ahead.pop(layer.index, None)
        if m is not None and m.inputs[0] != (ins[0] if ins else None):
            m = None  # the chain's head was matched elsewhere: match this layer on its own
        if m is None:
            by_name = not layer.in_place and layer.tops and all(og.has_tensor(t) for t in layer.tops)
            if by_name:
                m = _by_name(og, layer, ins, blob_tensor, pending, caffe_blobs, rewrites, ahead, graph)
                if m is None:
                    unmatched.append((layer, "region"))
                    continue
            else:
                m = _structural(og, layer, ins, used, shapes, graph)
                if m is not None and not layer.in_place and any(t in caffe_blobs for t in m.outputs):
                    m = None  # a later layer has that node's output as its top: this one is part of its group
                if m is None:
                    for top in layer.tops:
                        pending[top] = layer
                    unmatched.append((layer, _why_not(og, layer, ins, used)))
                    continue
                if layer.type in ELEMENTWISE_CAFFE and len(m.nodes) == 1:
                    run = function_group(og, graph, position, m.nodes, ins[0], ELEMENTWISE_CAFFE)
                    if run is not None:
                        m = LayerMatch(run[-1], "structure", m.nodes, [ins[0]], m.outputs, run[:-1])
                        skip.update(g.index for g in run)
        used.update(n.index for n in m.nodes)
        matches.append(m)
        for top, t in zip(m.layer.tops, m.outputs):
            blob_tensor[top] = t
            pending.pop(top, None)
    grouped = {id(g) for m in matches for g in m.group}
    unmatched = [(layer, why) for layer, why in unmatched if id(layer) not in grouped]
    return Matching(matches, unmatched, blob_tensor)


def _rewrites(graph) -> dict[int, tuple]:
    """Layer index of a chain's head -> the in-place layers that rewrite its top after it."""
    return {c.producer.index: c.layers for c in graph.inplace_chains()
            if c.producer is not None and len(c.producer.tops) == 1}


def _by_name(og, layer, ins, blob_tensor, pending, caffe_blobs, rewrites, ahead, graph) -> LayerMatch | None:
    """The layer whose top is an ONNX tensor.  When in-place layers rewrite that top later and
    the ONNX tensor of that name is the *last* value of the chain (a model converted from, or to,
    an in-place Caffe net names the chain's end so), the chain is taken apart from that tensor
    backwards: each in-place layer gets the node that computes it (:func:`_peel`, kept in
    ``ahead``), and the head stands for the tensor before them."""
    outs = list(layer.tops)
    chain = rewrites.get(layer.index, ())
    if chain and len(outs) == 1:
        peeled = _peel(og, layer, chain, outs[0])
        if peeled is not None:
            outs[0], parts = peeled
            for member, nodes, x, y in parts:
                ahead[member.index] = LayerMatch(member, "chain", nodes, [x], [y])
        elif _own_tensor(og, layer, outs[0]) is not None:
            outs[0] = _own_tensor(og, layer, outs[0])
    elif len(outs) == 1 and _own_tensor(og, layer, outs[0]) is not None:
        outs[0] = _own_tensor(og, layer, outs[0])
    group = _group(layer, pending)
    stop = set(blob_tensor.values()) | set(og.inputs)
    if any(t is None for t in ins):
        region = _own_nodes(og, layer, outs)   # an input is unknown: only the nodes of this layer's kind
    else:
        region = _region(og, outs, stop)
    if region is None:
        return None
    if len(outs) == 1 and not _bn_follows(graph, layer):
        outs[0] = _absorb_folded(og, layer, region, outs[0], caffe_blobs)
    group_ins = [blob_tensor.get(b) for g in group for b in g.bottoms if b not in pending]
    if any(t is None for t in ins) and region:
        ins = [t if t is not None else _data_input(og, region[0]) for t in ins]
    return LayerMatch(layer, "name", region, ins if not group else ins + group_ins, outs, group)


def _own_tensor(og, layer, tensor: str) -> str | None:
    """When the ONNX tensor of the layer's top's name is computed by element-wise nodes the layer
    cannot be (the name of an in-place chain's end, whose chain the Caffe net no longer has: a
    de-inplaced BatchNorm after it), the tensor of the node before them that the layer can be;
    None when the name is the layer's own tensor (or nothing fits)."""
    wanted = COUNTERPARTS.get(layer.type, ())
    node = og.node_of(tensor)
    if not wanted or node is None or node.op in wanted or node.op in FOLDABLE:
        return None
    t = tensor
    for _ in range(MAX_REGION):
        node = og.node_of(t)
        if node is None or node.op not in ACTIVATIONS + tuple(FOLDABLE):
            return None
        t = _data_input(og, node)
        prev = og.node_of(t) if t else None
        if prev is None:
            return None
        if prev.op in wanted:
            return t
    return None


def _data_input(og, node) -> str | None:
    """The one input of ``node`` that is no constant (None: none or several)."""
    data = [t for t in node.inputs if t and t not in og.constants]
    return data[0] if len(data) == 1 else None


def _peel(og, head, chain, tensor: str):
    """(the head's own output tensor, [(layer, nodes, input tensor, output tensor), …]) when
    ``tensor`` is computed by nodes standing for the in-place ``chain`` (last first) on top of a
    node the ``head`` can be; None otherwise (the tensor is the head's own output)."""
    node = og.node_of(tensor)
    if node is None or node.op in COUNTERPARTS.get(head.type, ()):
        return None
    parts = []
    members = list(chain)
    t = tensor
    while members:
        m = members.pop()
        if m.type == "Scale" and members and members[-1].type == "BatchNorm":
            continue  # the BatchNorm's partner: one ONNX BatchNormalization for both
        node = og.node_of(t)
        if m.type in PASS_THROUGH:  # a Dropout: an ONNX no-op, or nothing (an export for inference)
            if node is not None and node.op in ONNX_NO_OPS and _data_input(og, node):
                t = _data_input(og, node)
            continue
        if node is None or node.op not in COUNTERPARTS.get(m.type, ()):
            return None
        nodes = [node]
        x = _data_input(og, node)
        if node.op == "Mul" and x is None:  # SiLU as x * Sigmoid(x)
            sig = next((og.node_of(i) for i in node.inputs if og.node_of(i) is not None
                        and og.node_of(i).op == "Sigmoid"), None)
            if sig is None or not sig.inputs or sig.inputs[0] not in node.inputs:
                return None
            nodes, x = [sig, node], sig.inputs[0]
        if x is None:
            return None
        parts.append((m, nodes, x, t))
        t = x
    node = og.node_of(t)
    wanted = COUNTERPARTS.get(head.type, ())
    if wanted and (node is None or (node.op not in wanted and node.op not in FOLDABLE)):
        return None
    return t, parts[::-1]


def _own_nodes(og, layer, outs) -> list[OnnxNode]:
    """The producer of the layer's top and the auxiliary nodes directly before it (Flatten before a
    Gemm), for a layer whose input tensor is unknown."""
    node = og.node_of(outs[0]) if outs else None
    if node is None:
        return []
    nodes = [node]
    while True:
        x = _data_input(og, nodes[0])
        prev = og.node_of(x) if x else None
        if prev is None or prev.op not in AUX_BEFORE.get(layer.type, ()) + tuple(FOLDABLE):
            return nodes
        nodes.insert(0, prev)


#: ONNX nodes that may sit between a Caffe layer's input and the node that is the layer
AUX_BEFORE: dict[str, tuple[str, ...]] = {"InnerProduct": ("Flatten", "Reshape")}


def _why_not(og, layer, ins, used) -> str:
    if not all(ins):
        return "no_input"
    wanted = COUNTERPARTS.get(layer.type, ())
    cands = [i for i in og.consumers.get(ins[0], []) if i not in used and og.nodes[i].op in wanted]
    return "ambiguous" if len(cands) > 1 else "no_candidate"


def _group(layer, pending: dict[str, object]) -> list[object]:
    """The unmatched Caffe layers that feed ``layer`` (transitively), in network order."""
    out: dict[int, object] = {}
    todo = [b for b in layer.bottoms if b in pending]
    while todo:
        g = pending[todo.pop()]
        if id(g) in out:
            continue
        out[id(g)] = g
        todo.extend(b for b in g.bottoms if b in pending)
    return sorted(out.values(), key=lambda g: g.index)


def _candidates(og: OnnxGraph, layer, ins, used: set[int]) -> list[list[OnnxNode]]:
    """The unused ONNX node runs reading the layer's input that can be the layer: one node, or an
    auxiliary node (:data:`AUX_BEFORE`) and the node it alone feeds."""
    wanted = COUNTERPARTS.get(layer.type, ())
    aux = AUX_BEFORE.get(layer.type, ())
    out = []
    for i in og.consumers.get(ins[0], []):
        node = og.nodes[i]
        if i in used:
            continue
        run = [node]
        if node.op in aux:
            nxt = og.consumers.get(node.outputs[0], [])
            if len(nxt) != 1 or nxt[0] in used or og.nodes[nxt[0]].op not in wanted:
                continue
            run = [node, og.nodes[nxt[0]]]
        if run[-1].op in wanted and all(t is None or t in run[-1].inputs or t in run[0].inputs for t in ins[1:]):
            out.append(run)
    return out


def _signature_fits(og: OnnxGraph, layer, node: OnnxNode) -> bool | None:
    """Whether the layer's written parameters (outputs, kernel) fit the node's weights (None: not
    comparable).  Tells apart the heads after a fork (conv4-1 with 2 outputs, conv4-2 with 4)."""
    w = og.const(node.inputs[1]) if len(node.inputs) > 1 else None
    if w is None:
        return None
    p = layer.param
    if layer.type in ("Convolution", "DepthwiseConvolution", "Deconvolution") and node.op in ("Conv", "ConvTranspose"):
        cp = p.convolution_param
        n_out = w.shape[0] if node.op == "Conv" else w.shape[1] * int(node.attrs.get("group", 1))
        k = tuple(w.shape[2:])
        kh = cp.kernel_h or (cp.kernel_size[0] if len(cp.kernel_size) else 0)
        kw = cp.kernel_w or (cp.kernel_size[-1] if len(cp.kernel_size) else 0)
        return cp.num_output == n_out and (not kh or (kh, kw) == k)
    if layer.type == "InnerProduct" and node.op == "Gemm" and w.ndim == 2:
        n_out = w.shape[0] if node.attrs.get("transB", 0) else w.shape[1]
        return p.inner_product_param.num_output == n_out
    return None


def _structural(og: OnnxGraph, layer, ins, used: set[int], shapes, graph=None) -> LayerMatch | None:
    if not ins or ins[0] is None:
        return None
    runs = _candidates(og, layer, ins, used)
    natural = [r for r in runs if r[-1].op == NATURAL.get(layer.type)]
    if len(runs) > 1 and len(natural) == 1 and all(r[-1].op in BINARY for r in runs if r is not natural[0]):
        runs = natural   # a Sigmoid of a SiLU (Sigmoid + Eltwise PROD) is the ONNX Sigmoid, not the Mul
    cands = [r[-1] for r in runs]
    if layer.type == "Swish" or len(cands) > 1:
        # SiLU exported as Sigmoid + Mul(x, sigmoid(x)): the Mul is the node that stands for it
        muls = [c for c in cands if c.op == "Mul" and any(
            (p := og.node_of(t)) is not None and p.op == "Sigmoid" and ins[0] in p.inputs for t in c.inputs)]
        if muls:
            sig = og.node_of(next(t for t in muls[0].inputs if t != ins[0]))
            nodes = [sig, muls[0]] if len(muls) == 1 else muls
            if len(muls) == 1:
                return _with_shapes(LayerMatch(layer, "structure", nodes, list(ins), [muls[0].outputs[0]]),
                                    og, shapes)
    if len(runs) > 1:  # a fork: the heads told apart by their parameters, then by their shapes
        fitting = [r for r in runs if _signature_fits(og, layer, r[-1]) is not False]
        if len(fitting) > 1:
            ours = _shape_of(shapes, layer.tops[0]) if layer.tops else None
            same = [r for r in fitting if ours is not None and og.shape(r[-1].outputs[0]) == tuple(ours)]
            fitting = same if same else fitting
        runs = fitting
    if not runs and layer.type not in ELEMENTWISE_CAFFE:
        past = past_dropped(og, ins[0], used, lambda n: n.op in COUNTERPARTS.get(layer.type, ()), ACTIVATIONS)
        runs = [past] if past is not None else []
    if len(runs) != 1:
        return None
    run = list(runs[0])
    outs = list(run[-1].outputs[:len(layer.tops)])
    if len(outs) == 1 and not _bn_follows(graph, layer):
        outs[0] = _absorb_folded(og, layer, run, outs[0], set())
    return _with_shapes(LayerMatch(layer, "structure", run, list(ins), outs), og, shapes)


def _bn_follows(graph, layer) -> bool:
    """A Caffe BatchNorm reads the layer's top (so an ONNX BatchNormalization after it is that layer)."""
    if graph is None or not layer.tops:
        return True
    return any(c.type in ("BatchNorm", "Scale") for c in graph.consumers(layer.tops[0]) if c.index > layer.index)


def _with_shapes(m: LayerMatch, og: OnnxGraph, shapes) -> LayerMatch:
    theirs = og.shape(m.outputs[0]) if m.outputs else None
    ours = _shape_of(shapes, m.layer.tops[0]) if m.layer.tops else None
    if theirs is not None and ours is not None:
        m.shapes_agree = tuple(theirs) == tuple(ours)
    return m

"""Which ONNX nodes each converted Caffe layer stands for.

Most onnx2caffe converters keep ONNX tensor names as blob names, so a layer whose top is an ONNX
tensor is matched **by tensor name**; the ONNX nodes it stands for are those between the tensors
its bottoms stand for and that tensor (its *region*: a Conv plus a folded BatchNormalization, a
Flatten plus a Gemm, or nodes the converter dropped).  Otherwise (an in-place layer, a renamed
blob) it is matched **by graph structure**: the one ONNX consumer of its bottom's tensor that can
be what the layer is (:data:`COUNTERPARTS`), with the shapes compared when both are known.  Caffe
layers the converter wrote for one ONNX node (a HardSwish as Power, Clip, Power, Eltwise) form a
group with the layer that is matched by name.  A layer with no single candidate stays unmatched,
and is said so; nothing is ever matched by position.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .onnx_graph import OnnxGraph, OnnxNode

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
    how: str                               # "name" | "structure"
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
    """Match the layers of ``graph`` (:class:`nnie_lsp.prototxt.graph.NetGraph`) to ``og``."""
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
    used: set[int] = set()
    matches: list[LayerMatch] = []
    unmatched: list[tuple[object, str]] = []
    pending: dict[str, object] = {}   # blob -> unmatched Caffe layer that wrote it
    for layer in graph.layers:
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
        if (layer.type == "Scale" and layer.in_place and last is not None and last.layer.type == "BatchNorm"
                and layer.bottoms[0] in last.layer.tops and last.partner is None):
            last.partner = layer   # Caffe's BatchNorm + Scale is one ONNX BatchNormalization
            continue
        by_name = not layer.in_place and layer.tops and all(og.has_tensor(t) for t in layer.tops)
        if by_name:
            group = _group(layer, pending)
            stop = set(blob_tensor.values()) | set(og.inputs)
            region = _region(og, list(layer.tops), stop)
            if region is None:
                unmatched.append((layer, "region"))
                continue
            outs = list(layer.tops)
            if len(outs) == 1:
                outs[0] = _absorb_folded(og, layer, region, outs[0], caffe_blobs)
            group_ins = [blob_tensor.get(b) for g in group for b in g.bottoms if b not in pending]
            m = LayerMatch(layer, "name", region, ins if not group else ins + group_ins, outs, group)
        else:
            m = _structural(og, layer, ins, used, shapes)
            if m is not None and not layer.in_place and any(t in caffe_blobs for t in m.outputs):
                m = None  # a later layer has that node's output as its top: this one is part of its group
            if m is None:
                for top in layer.tops:
                    pending[top] = layer
                unmatched.append((layer, "no_candidate" if all(ins) else "no_input"))
                continue
        used.update(n.index for n in m.nodes)
        matches.append(m)
        for top, t in zip(layer.tops, m.outputs):
            blob_tensor[top] = t
            pending.pop(top, None)
    grouped = {id(g) for m in matches for g in m.group}
    unmatched = [(layer, why) for layer, why in unmatched if id(layer) not in grouped]
    return Matching(matches, unmatched, blob_tensor)


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


def _structural(og: OnnxGraph, layer, ins, used: set[int], shapes) -> LayerMatch | None:
    if not ins or ins[0] is None:
        return None
    wanted = COUNTERPARTS.get(layer.type, ())
    cands = [og.nodes[i] for i in og.consumers.get(ins[0], [])
             if i not in used and og.nodes[i].op in wanted
             and all(t is None or t in og.nodes[i].inputs for t in ins[1:])]
    if layer.type == "Swish" or len(cands) > 1:
        # SiLU exported as Sigmoid + Mul(x, sigmoid(x)): the Mul is the node that stands for it
        muls = [c for c in cands if c.op == "Mul" and any(
            (p := og.node_of(t)) is not None and p.op == "Sigmoid" and ins[0] in p.inputs for t in c.inputs)]
        if muls:
            sig = og.node_of(next(t for t in muls[0].inputs if t != ins[0]))
            cands = [sig, muls[0]] if len(muls) == 1 else muls
            if len(muls) == 1:
                return _with_shapes(LayerMatch(layer, "structure", cands, list(ins), [muls[0].outputs[0]]),
                                    og, shapes)
    if len(cands) != 1:
        return None
    node = cands[0]
    outs = list(node.outputs[:len(layer.tops)])
    return _with_shapes(LayerMatch(layer, "structure", [node], list(ins), outs), og, shapes)


def _with_shapes(m: LayerMatch, og: OnnxGraph, shapes) -> LayerMatch:
    theirs = og.shape(m.outputs[0]) if m.outputs else None
    ours = _shape_of(shapes, m.layer.tops[0]) if m.layer.tops else None
    if theirs is not None and ours is not None:
        m.shapes_agree = tuple(theirs) == tuple(ours)
    return m

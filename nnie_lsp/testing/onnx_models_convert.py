"""A small ONNX → Caffe converter for tests, faithful or with ONE converter fault injected.

It writes what most onnx2caffe tools write (blob names = ONNX tensor names, layer names = ONNX
node names, one field a line) for the operators of :mod:`nnie_lsp.testing.onnx_models`, and the
caffemodel with the project's protobuf (``nnie_lsp/readers/prototxt/caffe_pb2.py``).  :data:`FAULTS`
lists the faults real converters make; :func:`convert` injects one, at the first node it applies
to (or at the node named ``at``).  Not a product feature: the tool users have is their own
converter; this one exists so that every fault can be made alone on a known layer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from nnie_lsp.conversion.onnx_graph import OnnxGraph, read_onnx

#: fault -> what the converter does wrong (the op it applies to)
FAULTS = {
    "ceil_mode": "MaxPool/AveragePool ceil_mode 0 written without round_mode: FLOOR (Caffe rounds up)",
    "pads_lost": "Conv pads not written (Caffe pads 0)",
    "asym_pads": "Conv asymmetric pads: only the begin pads written",
    "dilation_lost": "Conv dilations not written",
    "upsample_bilinear": "nearest Resize written as a bilinear Deconvolution",
    "upsample_scale": "Resize scale not written (upsample_param without scale: 1)",
    "upsample_fork": "Resize written with a converter fork's upsample_param fields",
    "relu6_to_relu": "Clip(0, 6) written as ReLU",
    "hardswish_lost": "HardSwish dropped",
    "silu_lost": "SiLU's Mul dropped (only the Sigmoid kept)",
    "ip_order": "Gemm after Flatten: weights written in H, W, C order",
    "flatten_axis": "Flatten written with axis 2",
    "bn_eps": "BatchNormalization epsilon not written (Caffe's 1e-5)",
    "bn_fold_lost": "BatchNormalization dropped instead of folded into the Conv",
    "concat_axis": "Concat axis not written (Caffe's 1)",
    "slice_axis": "Split axis not written (Caffe's 1)",
    "softmax_axis": "Softmax axis not written (Caffe's 1)",
    "reshape_target": "Reshape target written in the wrong order",
    "weights": "a Conv's kernels written transposed (kh ↔ kw)",
}

_OPS = {"ceil_mode": ("MaxPool", "AveragePool"), "pads_lost": ("Conv",), "asym_pads": ("Conv",),
        "dilation_lost": ("Conv",), "upsample_bilinear": ("Resize", "Upsample"),
        "upsample_scale": ("Resize", "Upsample"), "upsample_fork": ("Resize", "Upsample"),
        "relu6_to_relu": ("Clip",), "hardswish_lost": ("HardSwish",), "silu_lost": ("Mul",),
        "ip_order": ("Gemm",), "flatten_axis": ("Flatten",), "bn_eps": ("BatchNormalization",),
        "bn_fold_lost": ("BatchNormalization",), "concat_axis": ("Concat",), "slice_axis": ("Split",),
        "softmax_axis": ("Softmax",), "reshape_target": ("Reshape",), "weights": ("Conv",)}


@dataclass
class Conversion:
    prototxt: str
    caffemodel: bytes
    fault: str | None = None
    fault_layer: str | None = None     # the Caffe layer the fault is in
    notes: list[str] = field(default_factory=list)

    def layer_line(self, layer: str) -> int:
        """1-based line of ``name: "<layer>"``."""
        for i, line in enumerate(self.prototxt.splitlines(), 1):
            if line.strip() == f'name: "{layer}"':
                return i
        raise KeyError(layer)

    def layer_lines(self, layer: str) -> range:
        """The 1-based lines of the layer's block."""
        lines = self.prototxt.splitlines()
        start = self.layer_line(layer) - 1  # the `layer {` line
        end = start
        while end < len(lines) and lines[end] != "}":
            end += 1
        return range(start, end + 2)


class _Writer:
    def __init__(self, g: OnnxGraph, fault: str | None, at: str | None, fold_bn: bool, inplace: bool = False):
        from nnie_lsp.readers.prototxt import caffe_pb2
        self.g, self.fault, self.at, self.fold_bn, self.inplace = g, fault, at, fold_bn, inplace
        self.lines: list[str] = []
        self.net = caffe_pb2.NetParameter()
        self.alias: dict[str, str] = {}
        self.fault_layer: str | None = None
        self.skip: set[int] = set()

    def blob(self, t: str) -> str:
        while t in self.alias:
            t = self.alias[t]
        return t

    def hits(self, kind: str, node) -> bool:
        """Whether the fault ``kind`` is injected at ``node`` (first applicable node, once)."""
        if self.fault != kind or self.fault_layer is not None or node.op not in _OPS[kind]:
            return False
        if self.at is not None and node.name != self.at:
            return False
        return True

    def top(self, n) -> str:
        """The top of the layer written for ``n``: its output, or with ``inplace`` its input's blob
        when ``n`` is that tensor's only reader (the in-place form of real Caffe nets)."""
        x, out = n.inputs[0], n.outputs[0]
        g = self.g
        if (self.inplace and len(g.consumers.get(x, [])) == 1 and x not in g.inputs and x not in g.outputs
                and out not in g.outputs):
            self.alias[out] = self.blob(x)
            return self.blob(x)
        return out

    def mark(self, layer: str) -> None:
        self.fault_layer = layer

    def layer(self, name, type_, bottoms, tops, params: list[str] = (), blobs=()) -> None:
        self.lines += ["layer {", f'  name: "{name}"', f'  type: "{type_}"']
        self.lines += [f'  bottom: "{self.blob(b)}"' for b in bottoms]
        self.lines += [f'  top: "{t}"' for t in tops]
        self.lines += ["  " + p for p in params]
        self.lines.append("}")
        if blobs:
            msg = self.net.layer.add()
            msg.name, msg.type = name, type_
            for arr in blobs:
                arr = np.asarray(arr, np.float32)
                blob = msg.blobs.add()
                blob.shape.dim.extend(arr.shape)
                blob.data.extend(arr.reshape(-1).tolist())


def _block(name: str, fields: list[str]) -> list[str]:
    return [f"{name} {{"] + ["  " + f for f in fields] + ["}"]


def _pool_sizes(size, k, pad_b, pad_e, s):
    floor = (size + pad_b + pad_e - k) // s + 1
    ceil = -(-(size + pad_b + pad_e - k) // s) + 1
    return floor, ceil


def _conv(w: _Writer, n) -> None:
    g = w.g
    weight = g.const(n.inputs[1]).copy()
    bias = g.const(n.inputs[2]) if len(n.inputs) > 2 and n.inputs[2] else np.zeros(weight.shape[0], np.float32)
    out = n.outputs[0]
    cons = g.consumers.get(out, [])
    if w.fold_bn and len(cons) == 1 and g.nodes[cons[0]].op == "BatchNormalization":
        bn = g.nodes[cons[0]]
        if w.hits("bn_fold_lost", bn):
            w.mark(n.name)
        else:
            scale, b, mean, var = (g.const(t) for t in bn.inputs[1:5])
            f = scale / np.sqrt(var + bn.attrs.get("epsilon", 1e-5))
            weight = weight * f.reshape(-1, 1, 1, 1)
            bias = (bias - mean) * f + b
        w.skip.add(bn.index)
        w.alias[bn.outputs[0]] = out
    kh, kw = weight.shape[2:]
    pads = n.attrs.get("pads", (0, 0, 0, 0))
    strides = n.attrs.get("strides", (1, 1))
    dil = n.attrs.get("dilations", (1, 1))
    fields = [f"num_output: {weight.shape[0]}", f"kernel_size: {kh}" if kh == kw else f"kernel_h: {kh}"]
    if kh != kw:
        fields.append(f"kernel_w: {kw}")
    fields.append(f"stride: {strides[0]}")
    if w.hits("asym_pads", n) and tuple(pads[:2]) != tuple(pads[2:]):
        w.mark(n.name)
    elif tuple(pads[:2]) != tuple(pads[2:]):
        raise ValueError(f"{n.name}: asymmetric pads {pads} have no Caffe convolution")
    if w.hits("pads_lost", n) and any(pads):
        w.mark(n.name)
    else:
        fields += [f"pad: {pads[0]}"] if pads[0] == pads[1] else [f"pad_h: {pads[0]}", f"pad_w: {pads[1]}"]
    if w.hits("dilation_lost", n) and dil[0] != 1:
        w.mark(n.name)
    elif dil[0] != 1:
        fields.append(f"dilation: {dil[0]}")
    if n.attrs.get("group", 1) != 1:
        fields.append(f"group: {n.attrs['group']}")
    if w.hits("weights", n):
        weight = np.ascontiguousarray(weight.transpose(0, 1, 3, 2))
        w.mark(n.name)
    w.layer(n.name, "Convolution", [n.inputs[0]], [out], _block("convolution_param", fields), [weight, bias])


def _pool(w: _Writer, n) -> None:
    k = n.attrs["kernel_shape"]
    s = n.attrs.get("strides", (1, 1))
    pads = n.attrs.get("pads", (0, 0, 0, 0))
    fields = ["pool: MAX" if n.op == "MaxPool" else "pool: AVE", f"kernel_size: {k[0]}", f"stride: {s[0]}"]
    if any(pads):
        fields.append(f"pad: {pads[0]}")
    shape = w.g.shape(n.inputs[0])
    floor, ceil = _pool_sizes(shape[2], k[0], pads[0], pads[2], s[0])
    if not n.attrs.get("ceil_mode", 0) and floor != ceil:
        if w.hits("ceil_mode", n):
            w.mark(n.name)
        else:
            fields.append("round_mode: FLOOR")
    w.layer(n.name, "Pooling", [n.inputs[0]], [n.outputs[0]], _block("pooling_param", fields))


def _upsample(w: _Writer, n) -> None:
    scales = w.g.const(n.inputs[2] if n.op == "Resize" else n.inputs[1])
    s = int(scales[2])
    shape = w.g.shape(n.inputs[0])
    name, x, out = n.name, n.inputs[0], n.outputs[0]
    if w.hits("upsample_bilinear", n):
        w.mark(name)
        c, k, p = shape[1], 2 * s - s % 2, int(np.ceil((s - 1) / 2))
        f = np.ceil(k / 2)
        center = (2 * f - 1 - f % 2) / (2 * f)
        og = np.ogrid[:k, :k]
        filt = (1 - abs(og[0] / f - center)) * (1 - abs(og[1] / f - center))
        weight = np.tile(filt[None, None], (c, 1, 1, 1)).astype(np.float32)
        fields = [f"num_output: {c}", f"kernel_size: {k}", f"stride: {s}", f"pad: {p}", f"group: {c}",
                  "bias_term: false"]
        w.layer(name, "Deconvolution", [x], [out], _block("convolution_param", fields), [weight])
        return
    if w.hits("upsample_scale", n):
        w.mark(name)
        w.layer(name, "Upsample", [x], [out], _block("upsample_param", []))
        return
    if w.hits("upsample_fork", n):
        w.mark(name)
        w.layer(name, "Upsample", [x], [out], _block("upsample_param", [f"height_scale: {s}", f"width_scale: {s}",
                                                                        "mode: NEAREST"]))
        return
    w.layer(name, "Upsample", [x], [out], _block("upsample_param", [f"scale: {s}"]))


def _hardswish(w: _Writer, n) -> None:
    x, out, name = n.inputs[0], n.outputs[0], n.name
    if w.hits("hardswish_lost", n):
        w.mark(name)
        w.alias[out] = x
        return
    w.layer(f"{name}_shift", "Power", [x], [f"{out}_shift"], _block("power_param", ["shift: 3"]))
    w.layer(f"{name}_clip", "Clip", [f"{out}_shift"], [f"{out}_clip"], _block("clip_param", ["min: 0", "max: 6"]))
    w.layer(f"{name}_scale", "Power", [f"{out}_clip"], [f"{out}_scale"],
            _block("power_param", [f"scale: {1 / 6!r}"]))
    w.layer(name, "Eltwise", [x, f"{out}_scale"], [out], _block("eltwise_param", ["operation: PROD"]))


def _gemm(w: _Writer, n) -> None:
    g = w.g
    weight = g.const(n.inputs[1])
    weight = weight if n.attrs.get("transB", 0) else weight.T
    bias = g.const(n.inputs[2]) if len(n.inputs) > 2 else np.zeros(weight.shape[0], np.float32)
    src = g.node_of(n.inputs[0])
    if src is not None and src.op == "Flatten" and w.hits("ip_order", n):
        c, h, wd = g.shape(src.inputs[0])[1:]
        weight = weight.reshape(-1, c, h, wd).transpose(0, 2, 3, 1).reshape(weight.shape[0], -1)
        w.mark(n.name)
    w.layer(n.name, "InnerProduct", [n.inputs[0]], [n.outputs[0]],
            _block("inner_product_param", [f"num_output: {weight.shape[0]}"]), [weight, bias])


def _axis_layer(w: _Writer, n, caffe_type: str, param: str, fault: str, extra: list[str] = ()) -> None:
    axis = n.attrs.get("axis", 1 if n.op != "Softmax" else -1)
    fields = list(extra)
    if w.hits(fault, n) and axis != 1:
        w.mark(n.name)
    else:
        fields.insert(0, f"axis: {axis}")
    w.layer(n.name, caffe_type, [t for t in n.inputs if t and t not in w.g.constants], list(n.outputs),
            _block(param, fields))


def _other(w: _Writer, n) -> None:
    g, name, x, out = w.g, n.name, n.inputs[0] if n.inputs else "", n.outputs[0]
    if n.op in ("Relu", "PRelu", "Clip", "Sigmoid", "BatchNormalization"):
        out = w.top(n)
    if n.op == "Relu":
        w.layer(name, "ReLU", [x], [out])
    elif n.op == "PRelu":
        w.layer(name, "PReLU", [x], [out], blobs=[g.const(n.inputs[1]).reshape(-1)])
    elif n.op == "Clip":
        lo, hi = g.const(n.inputs[1]), g.const(n.inputs[2])
        if w.hits("relu6_to_relu", n):
            w.mark(name)
            w.layer(name, "ReLU", [x], [out])
        else:
            w.layer(name, "Clip", [x], [out], _block("clip_param", [f"min: {float(lo)!r}", f"max: {float(hi)!r}"]))
    elif n.op == "Sigmoid":
        w.layer(name, "Sigmoid", [x], [out])
    elif n.op == "Mul":
        if w.hits("silu_lost", n) and any((p := g.node_of(t)) is not None and p.op == "Sigmoid" for t in n.inputs):
            w.mark(name)
            w.alias[out] = next(t for t in n.inputs if g.node_of(t) is not None and g.node_of(t).op == "Sigmoid")
            return
        w.layer(name, "Eltwise", list(n.inputs), [out], _block("eltwise_param", ["operation: PROD"]))
    elif n.op == "Add":
        w.layer(name, "Eltwise", list(n.inputs), [out], _block("eltwise_param", ["operation: SUM"]))
    elif n.op == "BatchNormalization":
        scale, b, mean, var = (g.const(t) for t in n.inputs[1:5])
        eps = n.attrs.get("epsilon", 1e-5)
        fields = [] if w.hits("bn_eps", n) and eps != 1e-5 else [f"eps: {eps:.7g}"]
        if not fields:
            w.mark(name)
        w.layer(name, "BatchNorm", [x], [out], _block("batch_norm_param", fields) if fields else [],
                [mean, var, np.ones(1, np.float32)])
        w.layer(f"{name}_scale", "Scale", [out], [out], _block("scale_param", ["bias_term: true"]), [scale, b])
    elif n.op == "Flatten":
        axis = n.attrs.get("axis", 1)
        if w.hits("flatten_axis", n):
            w.mark(name)
            axis = 2
        w.layer(name, "Flatten", [x], [out], _block("flatten_param", [f"axis: {axis}"]) if axis != 1 else [])
    elif n.op == "Reshape":
        dims = [int(d) for d in g.const(n.inputs[1])]
        if w.hits("reshape_target", n):
            w.mark(name)
            dims = [dims[0]] + dims[1:][::-1]
        w.layer(name, "Reshape", [x], [out], _block("reshape_param", _block("shape", [f"dim: {d}" for d in dims])))
    elif n.op == "Transpose":
        w.layer(name, "Permute", [x], [out], _block("permute_param", [f"order: {p}" for p in n.attrs["perm"]]))
    else:
        raise ValueError(f"the test converter has no rule for {n.op}")


def convert(model, fault: str | None = None, *, at: str | None = None, fold_bn: bool = False,
            inplace: bool = False) -> Conversion:
    """The Caffe conversion of ``model`` (an onnx ModelProto), with ``fault`` (:data:`FAULTS`)
    injected at its first applicable node (or the node named ``at``).  ``fold_bn``: a
    BatchNormalization after a Conv is folded into the Conv's weights (else BatchNorm + Scale);
    ``inplace``: activations and BatchNorm write their input's blob when they are its only reader,
    as real Caffe nets do (``top: "conv1"`` for the PReLU of ``conv1``).
    ValueError when the fault applies nowhere in the model."""
    if fault is not None and fault not in FAULTS:
        raise ValueError(f"unknown fault {fault!r} (known: {', '.join(FAULTS)})")
    g = read_onnx("<model>", model.SerializeToString())
    w = _Writer(g, fault, at, fold_bn, inplace)
    inp = g.inputs[0]
    w.lines += [f'name: "{model.graph.name}"', f'input: "{inp}"',
                "input_shape { " + " ".join(f"dim: {d}" for d in g.shape(inp)) + " }"]
    for n in g.nodes:
        if n.index in w.skip or n.op == "Constant":
            continue
        if n.op == "Conv":
            _conv(w, n)
        elif n.op in ("MaxPool", "AveragePool"):
            _pool(w, n)
        elif n.op in ("Resize", "Upsample"):
            _upsample(w, n)
        elif n.op == "HardSwish":
            _hardswish(w, n)
        elif n.op == "Gemm":
            _gemm(w, n)
        elif n.op == "Concat":
            _axis_layer(w, n, "Concat", "concat_param", "concat_axis")
        elif n.op == "Softmax":
            _axis_layer(w, n, "Softmax", "softmax_param", "softmax_axis")
        elif n.op == "Split":
            sizes = [int(s) for s in g.const(n.inputs[1])]
            points = [f"slice_point: {p}" for p in np.cumsum(sizes)[:-1]]
            _axis_layer(w, n, "Slice", "slice_param", "slice_axis", points)
        else:
            _other(w, n)
    if fault is not None and w.fault_layer is None:
        raise ValueError(f"fault {fault!r} applies to no node of {model.graph.name}"
                         + (f" named {at!r}" if at else ""))
    return Conversion("\n".join(w.lines) + "\n", w.net.SerializeToString(), fault, w.fault_layer)

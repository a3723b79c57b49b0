"""ONNX models for the conversion stage (tests, benchmark, demo), built with ``onnx.helper``.

- :func:`pnet` / :func:`rnet` / :func:`onet`: MTCNN det1 / det2 / det3 with the real weights of their caffemodels
  (``corpus/models/mtcnn``; :func:`nnie_lsp.testing.shared_files.corpus_dir`), as a PyTorch port
  would export them (Flatten + Gemm for the InnerProducts, PRelu slopes of shape C×1×1).
- :func:`small_net`: a generated net with the operators converters get wrong (BatchNormalization,
  Clip 0..6, HardSwish, SiLU, nearest Resize, Concat and Split on the height axis, Reshape,
  Softmax on the last axis, a dilated convolution), weights from a seed.
- :func:`chain_net`: the same operators in a line with side outputs, so that every converter fault
  that changes a blob's size (pads, dilation, Resize scale, Concat/Split axis) still leaves a Caffe
  net that runs: the triage of the chain ONNX → Caffe → NNIE can name it (``small_net``'s skip
  Concat makes Caffe itself refuse those conversions).

Their Caffe conversions (faithful, or with one converter fault) come from
:mod:`nnie_lsp.testing.onnx_models_convert`.  Operator facts: docs/field-facts.md §17.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

OPSET = 14       # HardSwish needs 14; Softmax takes one axis since 13
IR_VERSION = 8


def _helper():
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    return onnx, TensorProto, helper, numpy_helper


class _Builder:
    def __init__(self, name: str, input_name: str, input_shape: tuple[int, ...]):
        self.name = name
        self.nodes = []
        self.inits = []
        self.input = (input_name, input_shape)
        self.outputs: list[str] = []

    def init(self, name: str, arr) -> str:
        _, _, _, numpy_helper = _helper()
        self.inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def node(self, op: str, inputs, outputs, name: str, **attrs):
        _, _, helper, _ = _helper()
        self.nodes.append(helper.make_node(op, list(inputs), list(outputs), name=name, **attrs))
        return outputs[0]

    def model(self):
        onnx, TensorProto, helper, _ = _helper()
        name, shape = self.input
        graph = helper.make_graph(
            self.nodes, self.name, [helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape))],
            [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in self.outputs], self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                  producer_name="nnie-lsp-tests")
        model.ir_version = IR_VERSION
        done = onnx.shape_inference.infer_shapes(model).graph
        inferred = {vi.name: vi for vi in list(done.value_info) + list(done.output)}
        for out in model.graph.output:  # the outputs' shapes, as an exporter writes them
            out.CopyFrom(inferred[out.name])
        onnx.checker.check_model(model)
        return model


def _mtcnn_weights(name: str) -> dict[str, list[np.ndarray]]:
    from nnie_lsp.readers.caffemodel import read_weights
    from nnie_lsp.testing.shared_files import corpus_dir

    return read_weights(corpus_dir("models") / "mtcnn" / f"{name}.caffemodel")


def mtcnn_available() -> bool:
    from nnie_lsp.testing.shared_files import corpus_dir
    return (corpus_dir("models") / "mtcnn" / "det2.caffemodel").is_file()


def _conv(b: _Builder, name: str, x: str, w, bias, *, stride=1, pads=(0, 0, 0, 0), dilation=1, group=1,
          out: str | None = None) -> str:
    w = np.asarray(w, np.float32)
    ins = [x, b.init(f"{name}.weight", w)]
    if bias is not None:
        ins.append(b.init(f"{name}.bias", np.asarray(bias, np.float32)))
    return b.node("Conv", ins, [out or name], name, kernel_shape=list(w.shape[2:]), strides=[stride, stride],
                  pads=list(pads), dilations=[dilation, dilation], group=group)


def _prelu(b: _Builder, name: str, x: str, slope, spatial: bool = True) -> str:
    """PyTorch's PReLU export: the slope C×1×1 after a convolution, C after a Gemm."""
    s = np.asarray(slope, np.float32).reshape((-1, 1, 1) if spatial else (-1,))
    return b.node("PRelu", [x, b.init(f"{name}.slope", s)], [name], name)


def _gemm(b: _Builder, name: str, x: str, w, bias) -> str:
    """PyTorch's Linear export: Gemm with transB 1."""
    return b.node("Gemm", [x, b.init(f"{name}.weight", w), b.init(f"{name}.bias", bias)], [name], name, transB=1)


def pnet(size: int = 25, ceil_mode: int = 0):
    """MTCNN det1 (PNet) at ``size``×``size``: PyTorch's default max-pool rounds down (ceil_mode
    0); at 25×25 its pool1 gives 11×11 where Caffe's default rounding gives 12×12."""
    wts = _mtcnn_weights("det1")
    b = _Builder("PNet", "data", (1, 3, size, size))
    x = _conv(b, "conv1", "data", *wts["conv1"])
    x = _prelu(b, "PReLU1", x, wts["PReLU1"][0])
    x = b.node("MaxPool", [x], ["pool1"], "pool1", kernel_shape=[2, 2], strides=[2, 2], ceil_mode=ceil_mode)
    x = _conv(b, "conv2", x, *wts["conv2"])
    x = _prelu(b, "PReLU2", x, wts["PReLU2"][0])
    x = _conv(b, "conv3", x, *wts["conv3"])
    x = _prelu(b, "PReLU3", x, wts["PReLU3"][0])
    c41 = _conv(b, "conv4-1", x, *wts["conv4-1"])
    _conv(b, "conv4-2", x, *wts["conv4-2"])
    b.node("Softmax", [c41], ["prob1"], "prob1", axis=1)
    b.outputs = ["prob1", "conv4-2"]
    return b.model()


def rnet():
    """MTCNN det2 (RNet), 24×24, max-pools with ceil_mode 1 (as the Caffe original rounds), the
    conv3 output flattened (Flatten axis 1) into Gemm conv4 (576 → 128)."""
    wts = _mtcnn_weights("det2")
    b = _Builder("RNet", "data", (1, 3, 24, 24))
    x = _conv(b, "conv1", "data", *wts["conv1"])
    x = _prelu(b, "prelu1", x, wts["prelu1"][0])
    x = b.node("MaxPool", [x], ["pool1"], "pool1", kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)
    x = _conv(b, "conv2", x, *wts["conv2"])
    x = _prelu(b, "prelu2", x, wts["prelu2"][0])
    x = b.node("MaxPool", [x], ["pool2"], "pool2", kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)
    x = _conv(b, "conv3", x, *wts["conv3"])
    x = _prelu(b, "prelu3", x, wts["prelu3"][0])
    x = b.node("Flatten", [x], ["flatten"], "flatten", axis=1)
    gemm = lambda name, x, w, bias: _gemm(b, name, x, w, bias)  # noqa: E731
    x = gemm("conv4", x, *wts["conv4"])
    x = _prelu(b, "prelu4", x, wts["prelu4"][0], spatial=False)
    c51 = gemm("conv5-1", x, *wts["conv5-1"])
    gemm("conv5-2", x, *wts["conv5-2"])
    b.node("Softmax", [c51], ["prob1"], "prob1", axis=1)
    b.outputs = ["prob1", "conv5-2"]
    return b.model()


def onet():
    """MTCNN det3 (ONet), 48×48, ceil_mode 1 max-pools, conv4's output flattened into Gemm conv5
    (1152 → 256), three heads after the fork at conv5 (2, 4 and 10 outputs) and the Softmax."""
    wts = _mtcnn_weights("det3")
    b = _Builder("ONet", "data", (1, 3, 48, 48))
    x = "data"
    for k, pool in ((1, 3), (2, 3), (3, 2), (4, None)):
        x = _conv(b, f"conv{k}", x, *wts[f"conv{k}"])
        x = _prelu(b, f"prelu{k}", x, wts[f"prelu{k}"][0])
        if pool is not None:
            x = b.node("MaxPool", [x], [f"pool{k}"], f"pool{k}", kernel_shape=[pool, pool], strides=[2, 2],
                       ceil_mode=1)
    x = b.node("Flatten", [x], ["flatten"], "flatten", axis=1)
    gemm = lambda name, x, w, bias: _gemm(b, name, x, w, bias)  # noqa: E731
    x = gemm("conv5", x, *wts["conv5"])
    x = _prelu(b, "prelu5", x, wts["prelu5"][0], spatial=False)
    c61 = gemm("conv6-1", x, *wts["conv6-1"])
    gemm("conv6-2", x, *wts["conv6-2"])
    gemm("conv6-3", x, *wts["conv6-3"])
    b.node("Softmax", [c61], ["prob1"], "prob1", axis=1)
    b.outputs = ["prob1", "conv6-2", "conv6-3"]
    return b.model()


def _initializers(rng):
    """Seeded He-scaled weights ``w(*shape)`` and small vectors ``v(n, scale)`` (biases, BN terms)."""

    def w(*shape):
        fan_in = int(np.prod(shape[1:]))
        return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)

    def v(n, scale=0.1):
        return (rng.standard_normal(n) * scale).astype(np.float32)

    return w, v


def small_net(seed: int = 0, *, asymmetric_pads: bool = False, resize_mode: str = "nearest"):
    """The generated net (module doc), input 1×3×16×16.  ``asymmetric_pads``: the stride-2 conv2
    pads (0, 0, 1, 1) as TensorFlow's SAME does; ``resize_mode``: "nearest" or "linear"."""
    rng = np.random.default_rng(seed)
    w, v = _initializers(rng)

    b = _Builder("small", "input", (1, 3, 16, 16))
    x = _conv(b, "conv1", "input", w(8, 3, 3, 3), v(8), pads=(1, 1, 1, 1))
    bn = [b.init(f"bn1.{k}", a) for k, a in (("scale", 1 + v(8)), ("bias", v(8)), ("mean", v(8)),
                                            ("var", (0.5 + rng.random(8)).astype(np.float32)))]
    x = b.node("BatchNormalization", [x, *bn], ["bn1"], "bn1", epsilon=1e-3)
    lo, hi = b.init("relu6.min", np.array(0, np.float32)), b.init("relu6.max", np.array(6, np.float32))
    skip = b.node("Clip", [x, lo, hi], ["relu6"], "relu6")
    pads = (0, 0, 1, 1) if asymmetric_pads else (1, 1, 1, 1)
    x = _conv(b, "conv2", skip, w(16, 8, 3, 3), v(16), stride=2, pads=pads)
    x = b.node("HardSwish", [x], ["hswish"], "hswish")
    x = _conv(b, "conv3", x, w(8, 16, 1, 1), v(8))
    sig = b.node("Sigmoid", [x], ["silu_sig"], "silu_sig")
    x = b.node("Mul", [x, sig], ["silu"], "silu")
    scales = b.init("up.scales", np.array([1, 1, 2, 2], np.float32))
    if resize_mode == "nearest":
        x = b.node("Resize", [x, "", scales], ["up"], "up", mode="nearest",
                   coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    else:
        x = b.node("Resize", [x, "", scales], ["up"], "up", mode="linear",
                   coordinate_transformation_mode="half_pixel")
    x = b.node("Concat", [skip, x], ["cat"], "cat", axis=1)
    x = _conv(b, "conv4", x, w(8, 16, 3, 3), v(8), pads=(2, 2, 2, 2), dilation=2)
    y = b.node("Relu", [x], ["relu4"], "relu4")
    # height branch: Concat and Split on axis 2, summed
    h = b.node("Concat", [y, skip], ["cat_h"], "cat_h", axis=2)
    parts = b.init("split_h.split", np.array([16, 16], np.int64))
    b.node("Split", [h, parts], ["split_h_0", "split_h_1"], "split_h", axis=2)
    b.node("Add", ["split_h_0", "split_h_1"], ["sum_h"], "sum_h")
    # head: 1×1 conv to 4 channels, reshape (N, 4, H·W), softmax over the last axis
    x = _conv(b, "head", "sum_h", w(4, 8, 1, 1), v(4))
    target = b.init("reshape.shape", np.array([0, 4, -1], np.int64))
    x = b.node("Reshape", [x, target], ["reshape"], "reshape")
    b.node("Softmax", [x], ["prob"], "prob", axis=-1)
    b.outputs = ["prob"]
    return b.model()


def chain_net(seed: int = 0, size: int = 20, *, asymmetric_pads: bool = False):
    """Input 1×3×``size``×``size``: Conv "conv1" (pads 1) → BatchNormalization "bn1" (epsilon 1e-3,
    scales 3..6, so that Clip "relu6" (0, 6) clips a good share) → Conv "conv2" (stride 2, pads 1, or
    (0, 0, 1, 1) with ``asymmetric_pads``) → HardSwish "hswish" → Conv "conv3" (dilation 2, pads 2) →
    SiLU ("silu_sig", "silu") → Resize "up" (nearest ×2) → Conv "head" (1×1, 4 channels) → Reshape
    "reshape" [0, 4, -1] → Softmax "prob" (last axis); side outputs of ``up``: Concat "cat_h" (axis
    2, ``up`` twice) and Split "split_w" (axis 3, 4 columns | the rest).  Every blob feeds only
    layers that run at any size, so a conversion that changes a size still runs in Caffe."""
    rng = np.random.default_rng(seed)
    w, v = _initializers(rng)

    b = _Builder("chain", "input", (1, 3, size, size))
    x = _conv(b, "conv1", "input", w(8, 3, 3, 3), v(8), pads=(1, 1, 1, 1))
    bn = [b.init(f"bn1.{k}", a) for k, a in (("scale", (3 + 3 * rng.random(8)).astype(np.float32)),
                                            ("bias", v(8, 1.0)), ("mean", v(8)),
                                            ("var", (0.5 + rng.random(8)).astype(np.float32)))]
    x = b.node("BatchNormalization", [x, *bn], ["bn1"], "bn1", epsilon=1e-3)
    x = b.node("Clip", [x, b.init("relu6.min", np.array(0, np.float32)), b.init("relu6.max", np.array(6, np.float32))],
               ["relu6"], "relu6")
    x = _conv(b, "conv2", x, w(8, 8, 3, 3) * 0.5, v(8), stride=2,
              pads=(0, 0, 1, 1) if asymmetric_pads else (1, 1, 1, 1))
    x = b.node("HardSwish", [x], ["hswish"], "hswish")
    x = _conv(b, "conv3", x, w(8, 8, 3, 3), v(8), pads=(2, 2, 2, 2), dilation=2)
    sig = b.node("Sigmoid", [x], ["silu_sig"], "silu_sig")
    x = b.node("Mul", [x, sig], ["silu"], "silu")
    up = b.node("Resize", [x, "", b.init("up.scales", np.array([1, 1, 2, 2], np.float32))], ["up"], "up",
                mode="nearest", coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    x = _conv(b, "head", up, w(4, 8, 1, 1), v(4))
    x = b.node("Reshape", [x, b.init("reshape.shape", np.array([0, 4, -1], np.int64))], ["reshape"], "reshape")
    b.node("Softmax", [x], ["prob"], "prob", axis=-1)
    b.node("Concat", [up, up], ["cat_h"], "cat_h", axis=2)
    width = 2 * ((size + 2 - 3) // 2 + 1) if not asymmetric_pads else 2 * ((size + 1 - 3) // 2 + 1)
    b.node("Split", [up, b.init("split_w.split", np.array([4, width - 4], np.int64))], ["split_w_0", "split_w_1"],
           "split_w", axis=3)
    b.outputs = ["prob", "cat_h", "split_w_0", "split_w_1"]
    return b.model()


def tiny_conv(seed: int = 1):
    """The rule cases' net (tests/rules/cases/NN5*.toml), input 1×3×9×9: Conv "conv1" (pads 1) →
    BatchNormalization "bn1" (epsilon 1e-3) → Clip "relu6" (0, 6) → MaxPool "pool1" (2, stride 2,
    ceil_mode 0: 9 → 4, Caffe's rounding gives 5) → Resize "up" (nearest ×2) → Softmax "prob"
    (axis 1)."""
    rng = np.random.default_rng(seed)
    b = _Builder("tiny_conv", "data", (1, 3, 9, 9))
    x = _conv(b, "conv1", "data", (rng.standard_normal((4, 3, 3, 3)) * 0.3).astype(np.float32),
              (rng.standard_normal(4) * 0.1).astype(np.float32), pads=(1, 1, 1, 1))
    bn = [b.init(f"bn1.{k}", a.astype(np.float32)) for k, a in (
        ("scale", 1 + rng.standard_normal(4) * 0.1), ("bias", rng.standard_normal(4) * 0.1),
        ("mean", rng.standard_normal(4) * 0.1), ("var", 0.5 + rng.random(4)))]
    x = b.node("BatchNormalization", [x, *bn], ["bn1"], "bn1", epsilon=1e-3)
    x = b.node("Clip", [x, b.init("relu6.min", np.array(0, np.float32)), b.init("relu6.max", np.array(6, np.float32))],
               ["relu6"], "relu6")
    x = b.node("MaxPool", [x], ["pool1"], "pool1", kernel_shape=[2, 2], strides=[2, 2])
    x = b.node("Resize", [x, "", b.init("up.scales", np.array([1, 1, 2, 2], np.float32))], ["up"], "up",
               mode="nearest", coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    b.node("Softmax", [x], ["prob"], "prob", axis=1)
    b.outputs = ["prob"]
    return b.model()


def tiny_fc(seed: int = 2):
    """The rule cases' InnerProduct net, input 1×2×3×3: Flatten "flat" → Gemm "fc" (4 outputs,
    transB 1) → Softmax "prob" (axis 1)."""
    rng = np.random.default_rng(seed)
    b = _Builder("tiny_fc", "data", (1, 2, 3, 3))
    x = b.node("Flatten", ["data"], ["flat"], "flat", axis=1)
    x = b.node("Gemm", [x, b.init("fc.weight", (rng.standard_normal((4, 18)) * 0.3).astype(np.float32)),
                        b.init("fc.bias", (rng.standard_normal(4) * 0.1).astype(np.float32))], ["fc"], "fc", transB=1)
    b.node("Softmax", [x], ["prob"], "prob", axis=1)
    b.outputs = ["prob"]
    return b.model()


def tiny_focus():
    """The rule cases' YOLOv5 Focus, input 1×3×8×8: four chains of strided Slices (steps 2 on H,
    then on W: x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]) →
    Concat "focus" (axis 1, 12 channels) → Conv "conv0" (1×1, 4 outputs, weights 1)."""
    b = _Builder("tiny_focus", "images", (1, 3, 8, 8))

    def strided(name, x, axis, start):
        ins = [x, b.init(f"{name}.starts", np.array([start], np.int64)),
               b.init(f"{name}.ends", np.array([2 ** 31 - 1], np.int64)),
               b.init(f"{name}.axes", np.array([axis], np.int64)), b.init(f"{name}.steps", np.array([2], np.int64))]
        return b.node("Slice", ins, [name], name)

    parts = [strided(f"sw{i}", strided(f"sh{i}", "images", 2, h), 3, w)
             for i, (h, w) in enumerate(((0, 0), (1, 0), (0, 1), (1, 1)))]
    b.node("Concat", parts, ["focus"], "focus", axis=1)
    _conv(b, "conv0", "focus", np.ones((4, 12, 1, 1), np.float32), np.zeros(4, np.float32))
    b.outputs = ["conv0"]
    return b.model()


def save(model, path: str | Path) -> Path:
    import onnx
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(path))
    return path


def model_bytes(model) -> bytes:
    return model.SerializeToString()

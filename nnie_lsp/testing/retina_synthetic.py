"""A generated net of RetinaFace's size (benchmarks, tests): the MobileNet-0.25 RetinaFace face
detector's layer graph at its 640 × 640 input, with deterministic weights.

The graph is RetinaFace's (the MobileNet-0.25 backbone of depthwise and pointwise convolutions with
BatchNorm, Scale and ReLU in place, three outputs at strides 8, 16 and 32, the FPN with ×2
upsampling by Deconvolution and Eltwise sums, an SSH context module per level, and per level the
class, box and landmark heads permuted to H,W,C, reshaped and concatenated, the class scores
through a Softmax); the weights are He-initialised from a seed and the BatchNorm statistics drawn
near the identity, so its numbers are not a face detector's — what the benchmarks need is its size
(about 100 NNIE chains, 25 million activations per image at 640 × 640).  The ×2 upsampling is a
depthwise Deconvolution with a 2 × 2 kernel of ones (nearest neighbour), which OpenCV and the numpy
forward both run.

``python -m nnie_lsp.testing.retina_synthetic FOLDER [SIZE]`` writes the project (net, weights, two
images, image list, cfg) into FOLDER.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: The backbone's depthwise-separable blocks: (output channels, stride), after a 3×3 stride-2 conv to 8.
STAGES = (((16, 1), (32, 2), (32, 1), (64, 2), (64, 1)),                                  # stride 8
          ((128, 2), (128, 1), (128, 1), (128, 1), (128, 1), (128, 1)),                   # stride 16
          ((256, 2), (256, 1)))                                                           # stride 32
FPN_CHANNELS = 64
ANCHORS = 2  # per position and level
#: The activations' negative slope: 0, plain ReLU, as in insightface's mnet25 (the Pytorch port's
#: leaky 0.1 leaves no zeros, which changes how well its dumps compress, not the planner's work).
LEAKY = 0.0


@dataclass(frozen=True)
class RetinaSpec:
    size: int = 640  # input H = W (a multiple of 32)
    seed: int = 0
    images: int = 2
    name: str = "retina_mnet25"
    # pointwise convolution -> ratio: a BN-style weight outlier (as nnie_lsp.testing.hp_synthetic
    # makes one) on an input channel its depthwise producer always outputs as 0 -- float-neutral, an
    # 8-bit bottleneck at that layer
    outliers: tuple[tuple[str, float], ...] = ()


class _Net:
    """Collects the prototxt lines and the weights (layer name -> (type, blobs)) of the net."""

    def __init__(self, spec: RetinaSpec) -> None:
        self.rng = np.random.default_rng(spec.seed)
        self.lines = [f'name: "{spec.name}"', 'input: "data"',
                      f"input_shape {{ dim: 1 dim: 3 dim: {spec.size} dim: {spec.size} }}"]
        self.weights: dict[str, tuple[str, list[np.ndarray]]] = {}

    def layer(self, name: str, kind: str, bottoms, top: str, body: str = "") -> None:
        bottoms = [bottoms] if isinstance(bottoms, str) else list(bottoms)
        text = f'layer {{ name: "{name}" type: "{kind}" ' + " ".join(f'bottom: "{b}"' for b in bottoms)
        self.lines.append(text + f' top: "{top}" {body} }}')

    def conv(self, name: str, bottom: str, c_in: int, c_out: int, kernel: int, stride: int = 1, *,
             group: int = 1, bn: bool = True, relu: bool = True) -> str:
        """Convolution (+ BatchNorm + Scale + ReLU in place); returns its top."""
        pad = kernel // 2
        bias = "" if bn else " bias_term: true"
        self.layer(name, "Convolution", bottom, name,
                   f"convolution_param {{ num_output: {c_out} kernel_size: {kernel} stride: {stride} pad: {pad} "
                   f"group: {group}{' bias_term: false' if bn else bias} }}")
        fan_in = (c_in // group) * kernel * kernel
        w = (self.rng.standard_normal((c_out, c_in // group, kernel, kernel)) * np.sqrt(2.0 / fan_in))
        blobs = [w.astype(np.float32)]
        if not bn:
            blobs.append((self.rng.standard_normal(c_out) * 0.05).astype(np.float32))
        self.weights[name] = ("Convolution", blobs)
        if bn:
            self.layer(f"{name}_bn", "BatchNorm", name, name, "batch_norm_param { use_global_stats: true }")
            mean = (self.rng.standard_normal(c_out) * 0.1).astype(np.float32)
            var = self.rng.uniform(0.5, 1.5, c_out).astype(np.float32)
            self.weights[f"{name}_bn"] = ("BatchNorm", [mean, var, np.ones(1, np.float32)])
            self.layer(f"{name}_scale", "Scale", name, name, "scale_param { bias_term: true }")
            gamma = self.rng.uniform(0.6, 1.4, c_out).astype(np.float32)
            beta = (self.rng.standard_normal(c_out) * 0.1).astype(np.float32)
            self.weights[f"{name}_scale"] = ("Scale", [gamma, beta])
        if relu:
            slope = f"relu_param {{ negative_slope: {LEAKY} }}" if LEAKY else ""
            self.layer(f"{name}_relu", "ReLU", name, name, slope)
        return name

    def upsample(self, name: str, bottom: str, channels: int) -> str:
        """×2 nearest neighbour: a depthwise Deconvolution with a 2×2 kernel of ones."""
        self.layer(name, "Deconvolution", bottom, name,
                   f"convolution_param {{ num_output: {channels} kernel_size: 2 stride: 2 group: {channels} "
                   "bias_term: false }")
        self.weights[name] = ("Deconvolution", [np.ones((channels, 1, 2, 2), np.float32)])
        return name


def _ssh(net: _Net, name: str, bottom: str) -> str:
    half, quarter = FPN_CHANNELS // 2, FPN_CHANNELS // 4
    c3 = net.conv(f"{name}_conv3x3", bottom, FPN_CHANNELS, half, 3, relu=False)
    c5a = net.conv(f"{name}_conv5x5_1", bottom, FPN_CHANNELS, quarter, 3)
    c5 = net.conv(f"{name}_conv5x5_2", c5a, quarter, quarter, 3, relu=False)
    c7a = net.conv(f"{name}_conv7x7_2", c5a, quarter, quarter, 3)
    c7 = net.conv(f"{name}_conv7x7_3", c7a, quarter, quarter, 3, relu=False)
    net.layer(f"{name}_concat", "Concat", [c3, c5, c7], f"{name}_concat", "concat_param { axis: 1 }")
    net.layer(f"{name}_relu", "ReLU", f"{name}_concat", f"{name}_concat")
    return f"{name}_concat"


def prototxt_and_weights(spec: RetinaSpec) -> tuple[str, dict[str, tuple[str, list[np.ndarray]]]]:
    if spec.size % 32:
        raise ValueError(f"size {spec.size}: a multiple of 32")
    net = _Net(spec)
    top, c_in, block = net.conv("conv1", "data", 3, 8, 3, 2), 8, 0
    levels = []
    for stage in STAGES:
        for c_out, stride in stage:
            block += 1
            dw = net.conv(f"conv{block}_dw", top, c_in, c_in, 3, stride, group=c_in)
            top, c_in = net.conv(f"conv{block}_pw", dw, c_in, c_out, 1), c_out
        levels.append((top, c_in))
    lateral = [net.conv(f"fpn_out{k + 1}", t, c, FPN_CHANNELS, 1) for k, (t, c) in enumerate(levels)]
    merged = [None, None, lateral[2]]
    for k in (1, 0):
        up = net.upsample(f"fpn_up{k + 2}", merged[k + 1], FPN_CHANNELS)
        net.layer(f"fpn_sum{k + 1}", "Eltwise", [lateral[k], up], f"fpn_sum{k + 1}")
        merged[k] = net.conv(f"fpn_merge{k + 1}", f"fpn_sum{k + 1}", FPN_CHANNELS, FPN_CHANNELS, 3)
    features = [_ssh(net, f"ssh{k + 1}", m) for k, m in enumerate(merged)]
    outputs = {}
    for head, per_anchor in (("class", 2), ("bbox", 4), ("landmark", 10)):
        flat = []
        for k, feature in enumerate(features):
            conv = net.conv(f"{head}_head{k + 1}", feature, FPN_CHANNELS, ANCHORS * per_anchor, 1, bn=False,
                            relu=False)
            net.layer(f"{conv}_perm", "Permute", conv, f"{conv}_perm", "permute_param { order: 0 order: 2 order: 3 "
                      "order: 1 }")
            net.layer(f"{conv}_reshape", "Reshape", f"{conv}_perm", f"{conv}_reshape",
                      f"reshape_param {{ shape {{ dim: 0 dim: -1 dim: {per_anchor} }} }}")
            flat.append(f"{conv}_reshape")
        net.layer(f"{head}_concat", "Concat", flat, f"{head}_concat", "concat_param { axis: 1 }")
        outputs[head] = f"{head}_concat"
    net.layer("class_softmax", "Softmax", outputs["class"], "class_softmax", "softmax_param { axis: 2 }")
    for layer, ratio in spec.outliers:
        _outlier(net.weights, layer, ratio)
    return "\n".join(net.lines) + "\n", net.weights


def _outlier(weights: dict[str, tuple[str, list[np.ndarray]]], layer: str, ratio: float) -> None:
    """``<k>_pw`` gets one weight ``ratio`` times its others' largest on input channel 0, which its
    producer ``<k>_dw`` always outputs as 0 (zero weights, BatchNorm to 0, Scale bias −1, ReLU)."""
    if not layer.endswith("_pw"):
        raise ValueError(f"{layer}: an outlier goes on a pointwise convolution (conv<k>_pw)")
    producer = layer[:-3] + "_dw"
    weights[producer][1][0][0] = 0.0
    weights[f"{producer}_bn"][1][0][0] = 0.0
    weights[f"{producer}_scale"][1][1][0] = -1.0
    w = weights[layer][1][0]
    w[:, 0] = 0.0
    w[0, 0, 0, 0] = np.float32(ratio * float(np.max(np.abs(w))))


def caffemodel_bytes(name: str, weights: dict[str, tuple[str, list[np.ndarray]]]) -> bytes:
    from nnie_lsp.readers.caffemodel import caffe_pb2

    msg = caffe_pb2().NetParameter()
    msg.name = name
    for layer_name, (kind, blobs) in weights.items():
        layer = msg.layer.add()
        layer.name, layer.type = layer_name, kind
        for arr in blobs:
            blob = layer.blobs.add()
            blob.shape.dim.extend(int(d) for d in arr.shape)
            blob.data.extend(arr.reshape(-1).tolist())
    return msg.SerializeToString()


def images(spec: RetinaSpec) -> list[np.ndarray]:
    """Deterministic 8-bit BGR images (H, W, 3): smooth patterns with texture and a few edges."""
    rng = np.random.default_rng(spec.seed + 1000)
    yy, xx = np.mgrid[0:spec.size, 0:spec.size] / spec.size
    out = []
    for _ in range(spec.images):
        planes = []
        for _channel in range(3):
            fx, fy, phase = rng.uniform(0.5, 6.0), rng.uniform(0.5, 6.0), rng.uniform(0, 2 * np.pi)
            wave = np.sin(2 * np.pi * (fx * xx + fy * yy) + phase) + (xx + yy > rng.uniform(0.5, 1.5))
            planes.append(110 + 70 * wave + rng.normal(0, 10, wave.shape))
        out.append(np.clip(np.stack(planes, axis=-1), 0, 255).astype(np.uint8))
    return out


def write_project(folder: str | Path, spec: RetinaSpec | None = None) -> dict[str, Path]:
    """Write ``<name>.prototxt``, ``<name>.caffemodel``, the images, ``images.txt``, ``mean.txt``
    and ``<name>.cfg`` (compile_mode 0, RetinaFace's BGR mean 104, 117, 123) into ``folder``."""
    from nnie_lsp.testing.hp_synthetic import write_net_project

    spec = spec or RetinaSpec()
    text, weights = prototxt_and_weights(spec)
    return write_net_project(folder, spec.name, text, caffemodel_bytes(spec.name, weights), images(spec),
                             (104, 117, 123), "[norm_type] 2\n[mean_file] ./mean.txt\n")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) not in (1, 2):
        print("usage: python -m nnie_lsp.testing.retina_synthetic FOLDER [SIZE]", file=sys.stderr)
        return 2
    spec = RetinaSpec(size=int(args[1])) if len(args) == 2 else RetinaSpec()
    paths = write_project(args[0], spec)
    print(f"wrote a RetinaFace-sized net at {spec.size}×{spec.size}: {paths['cfg']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

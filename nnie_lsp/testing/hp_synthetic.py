"""Deterministic deep Caffe nets whose 8-bit bottlenecks are known (tests, benchmark, demo).

A plain stack of 3×3 convolutions with in-place ReLUs and a 1×1 head, He-initialised from a seed.
A *bottleneck* at convolution ``k`` reproduces what BN folding often leaves in real nets: one
weight far larger than the others.  The NNIE quantizes a layer's weights with one clip, its
largest magnitude, and 8-bit log codes cover about 8 octaves below it (docs/field-facts.md §11),
so with an outlier ``ratio`` times the other weights' largest, the smaller weights are flushed to
zero at 8 bit and the layer's output is wrong; at 16 bit (`_hp`) they survive.  The outlier sits
on input channel 0, which the layer before always outputs as 0 (zero weights, bias −1, ReLU): in
floating point the outlier changes nothing.

``python -m nnie_lsp.testing.hp_synthetic FOLDER`` writes the demo project (net, weights, images,
image list, mean file, cfg) into FOLDER.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class DeepNetSpec:
    depth: int = 12  # 3×3 convolutions conv1 … conv<depth>, then the 1×1 head
    channels: int = 8
    size: int = 24  # input H = W
    bottlenecks: dict[int, float] = field(default_factory=lambda: {9: 100.0})  # conv index -> ratio
    seed: int = 0
    images: int = 2
    name: str = "deep"

    def layer_names(self) -> list[str]:
        return [f"conv{i}" for i in range(1, self.depth + 1)] + ["head"]


def _weights(spec: DeepNetSpec) -> dict[str, list[np.ndarray]]:
    rng = np.random.default_rng(spec.seed)
    out: dict[str, list[np.ndarray]] = {}
    c_in = 3
    for i in range(1, spec.depth + 1):
        std = np.sqrt(2.0 / (9 * c_in))
        w = (rng.standard_normal((spec.channels, c_in, 3, 3)) * std).astype(np.float32)
        b = (rng.standard_normal(spec.channels) * 0.05).astype(np.float32)
        if i + 1 in spec.bottlenecks:  # the layer before a bottleneck always outputs 0 on channel 0
            w[0] = 0.0
            b[0] = -1.0
        if i in spec.bottlenecks:
            if i == 1:
                raise ValueError("a bottleneck needs a convolution before it (index 2 or more)")
            w[:, 0] = 0.0
            w[0, 0, 1, 1] = np.float32(spec.bottlenecks[i] * float(np.max(np.abs(w))))
        out[f"conv{i}"] = [w, b]
        c_in = spec.channels
    head = (rng.standard_normal((4, c_in, 1, 1)) * np.sqrt(1.0 / c_in)).astype(np.float32)
    out["head"] = [head, np.zeros(4, np.float32)]
    return out


def prototxt_text(spec: DeepNetSpec) -> str:
    lines = [f'name: "{spec.name}"', 'input: "data"',
             f"input_shape {{ dim: 1 dim: 3 dim: {spec.size} dim: {spec.size} }}"]
    bottom = "data"
    for i in range(1, spec.depth + 1):
        lines += [f'layer {{ name: "conv{i}" type: "Convolution" bottom: "{bottom}" top: "conv{i}"',
                  f"  convolution_param {{ num_output: {spec.channels} kernel_size: 3 pad: 1 }} }}",
                  f'layer {{ name: "relu{i}" type: "ReLU" bottom: "conv{i}" top: "conv{i}" }}']
        bottom = f"conv{i}"
    lines += [f'layer {{ name: "head" type: "Convolution" bottom: "{bottom}" top: "head"',
              "  convolution_param { num_output: 4 kernel_size: 1 } }"]
    return "\n".join(lines) + "\n"


def caffemodel_bytes(spec: DeepNetSpec) -> bytes:
    return conv_caffemodel_bytes(spec.name, _weights(spec))


def conv_caffemodel_bytes(net_name: str, weights: dict[str, list[np.ndarray]]) -> bytes:
    """A serialized caffemodel holding ``weights`` (layer name -> its blobs) for Convolution layers."""
    from nnie_lsp.readers.caffemodel import caffe_pb2

    msg = caffe_pb2().NetParameter()
    msg.name = net_name
    for name, blobs in weights.items():
        layer = msg.layer.add()
        layer.name = name
        layer.type = "Convolution"
        for arr in blobs:
            blob = layer.blobs.add()
            blob.shape.dim.extend(int(d) for d in arr.shape)
            blob.data.extend(arr.reshape(-1).tolist())
    return msg.SerializeToString()


def images(spec: DeepNetSpec) -> list[np.ndarray]:
    """Smooth deterministic 8-bit BGR images (H, W, 3): low-frequency patterns with some texture."""
    rng = np.random.default_rng(spec.seed + 1000)
    out = []
    yy, xx = np.mgrid[0:spec.size, 0:spec.size] / spec.size
    for _ in range(spec.images):
        planes = []
        for _channel in range(3):
            fx, fy, phase = rng.uniform(0.5, 3.0), rng.uniform(0.5, 3.0), rng.uniform(0, 2 * np.pi)
            wave = np.sin(2 * np.pi * (fx * xx + fy * yy) + phase)
            planes.append(128 + 90 * wave + rng.normal(0, 12, wave.shape))
        out.append(np.clip(np.stack(planes, axis=-1), 0, 255).astype(np.uint8))
    return out


def write_net_project(folder: str | Path, name: str, prototxt_text_: str, caffemodel_data: bytes, pictures,
                      mean: tuple[int, int, int], preprocessing: str) -> dict[str, Path]:
    """Write ``<name>.prototxt``, ``<name>.caffemodel``, the images, ``images.txt``, ``mean.txt``
    (``mean``, one line a channel) and ``<name>.cfg`` (compile_mode 0, BGR, its ``preprocessing``
    lines after the image list) into ``folder``; returns their paths."""
    import cv2

    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    prototxt = root / f"{name}.prototxt"
    caffemodel = root / f"{name}.caffemodel"
    prototxt.write_text(prototxt_text_, encoding="utf-8")
    caffemodel.write_bytes(caffemodel_data)
    names = []
    for k, image in enumerate(pictures):
        path = root / f"image{k}.png"
        cv2.imwrite(str(path), image)
        names.append(f"./{path.name}")
    (root / "images.txt").write_text("".join(f"{n}\n" for n in names), encoding="utf-8")
    (root / "mean.txt").write_text("".join(f"{v}\n" for v in mean), encoding="utf-8")
    cfg = root / f"{name}.cfg"
    cfg.write_text(f"[prototxt_file] ./{prototxt.name}\n[caffemodel_file] ./{caffemodel.name}\n"
                   "[net_type] 0\n[compile_mode] 0\n[is_simulation] 0\n[instruction_name] ./inst\n"
                   "[RGB_order] BGR\n[image_list] ./images.txt\n[image_type] 1\n" + preprocessing, encoding="utf-8")
    return {"root": root, "prototxt": prototxt, "caffemodel": caffemodel, "cfg": cfg,
            "image_list": root / "images.txt"}


def write_project(folder: str | Path, spec: DeepNetSpec | None = None) -> dict[str, Path]:
    """The deep net's project (:func:`write_net_project`): mean 128, scale 1/128 (norm_type 5)."""
    spec = spec or DeepNetSpec()
    return write_net_project(folder, spec.name, prototxt_text(spec), caffemodel_bytes(spec), images(spec),
                             (128, 128, 128), "[norm_type] 5\n[mean_file] ./mean.txt\n[data_scale] 0.0078125\n")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m nnie_lsp.testing.hp_synthetic FOLDER", file=sys.stderr)
        return 2
    paths = write_project(args[0])
    print(f"wrote a {DeepNetSpec().depth}-convolution net with a known 8-bit bottleneck: {paths['cfg']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Synthetic, realistic NNIE-style prototxt for benchmarks and tests.

``generate_big_prototxt(n_layers)`` writes a darknet2caffe-like network: a top-level
``input`` + ``input_shape``, then Convolution -> BatchNorm -> Scale -> ReLU chains working in
place, inception-like two-branch units joined by Concat, residual Eltwise units and Pooling
(stride 2 while the feature map is large, stride 1 "same" pooling after that).  Every layer has
the usual training leftovers (``param { lr_mult decay_mult }``, fillers), so 2,000 layers give
about 30,000 lines -- the size of the big nets users lint.  The output always parses with
``text_format`` and every bottom is produced before use, whatever ``n_layers`` is.
"""

from __future__ import annotations

from typing import Iterator

__all__ = ["generate_big_prototxt"]


def _conv(name: str, bottom: str, num_output: int, kernel: int, stride: int = 1) -> str:
    pad = kernel // 2
    return (
        "layer {\n"
        f'  name: "{name}"\n'
        '  type: "Convolution"\n'
        f'  bottom: "{bottom}"\n'
        f'  top: "{name}"\n'
        "  param {\n"
        "    lr_mult: 1\n"
        "    decay_mult: 1\n"
        "  }\n"
        "  convolution_param {\n"
        f"    num_output: {num_output}\n"
        f"    kernel_size: {kernel}\n"
        f"    pad: {pad}\n"
        f"    stride: {stride}\n"
        "    bias_term: false\n"
        "    weight_filler {\n"
        '      type: "msra"\n'
        "    }\n"
        "  }\n"
        "}\n"
    )


def _bn(name: str, blob: str) -> str:
    return (
        "layer {\n"
        f'  name: "{name}"\n'
        '  type: "BatchNorm"\n'
        f'  bottom: "{blob}"\n'
        f'  top: "{blob}"\n'
        "  param {\n"
        "    lr_mult: 0\n"
        "  }\n"
        "  param {\n"
        "    lr_mult: 0\n"
        "  }\n"
        "  param {\n"
        "    lr_mult: 0\n"
        "  }\n"
        "  batch_norm_param {\n"
        "    use_global_stats: true\n"
        "    eps: 1e-05\n"
        "  }\n"
        "}\n"
    )


def _scale(name: str, blob: str) -> str:
    return (
        "layer {\n"
        f'  name: "{name}"\n'
        '  type: "Scale"\n'
        f'  bottom: "{blob}"\n'
        f'  top: "{blob}"\n'
        "  param {\n"
        "    lr_mult: 1\n"
        "  }\n"
        "  param {\n"
        "    lr_mult: 1\n"
        "  }\n"
        "  scale_param {\n"
        "    bias_term: true\n"
        "  }\n"
        "}\n"
    )


def _relu(name: str, blob: str) -> str:
    return (
        "layer {\n"
        f'  name: "{name}"\n'
        '  type: "ReLU"\n'
        f'  bottom: "{blob}"\n'
        f'  top: "{blob}"\n'
        "  relu_param {\n"
        "    negative_slope: 0.1\n"
        "  }\n"
        "}\n"
    )


def _pool(name: str, bottom: str, stride: int) -> str:
    kernel = 2 if stride == 2 else 3
    pad = 0 if stride == 2 else 1
    return (
        "layer {\n"
        f'  name: "{name}"\n'
        '  type: "Pooling"\n'
        f'  bottom: "{bottom}"\n'
        f'  top: "{name}"\n'
        "  pooling_param {\n"
        "    pool: MAX\n"
        f"    kernel_size: {kernel}\n"
        f"    stride: {stride}\n"
        f"    pad: {pad}\n"
        "  }\n"
        "}\n"
    )


def _concat(name: str, bottoms: list[str]) -> str:
    bl = "".join(f'  bottom: "{b}"\n' for b in bottoms)
    return (
        "layer {\n"
        f'  name: "{name}"\n'
        '  type: "Concat"\n'
        f"{bl}"
        f'  top: "{name}"\n'
        "  concat_param {\n"
        "    axis: 1\n"
        "  }\n"
        "}\n"
    )


def _eltwise(name: str, a: str, b: str) -> str:
    return (
        "layer {\n"
        f'  name: "{name}"\n'
        '  type: "Eltwise"\n'
        f'  bottom: "{a}"\n'
        f'  bottom: "{b}"\n'
        f'  top: "{name}"\n'
        "  eltwise_param {\n"
        "    operation: SUM\n"
        "  }\n"
        "}\n"
    )


def _layers(input_size: int) -> Iterator[str]:
    """Endless stream of layers; every prefix is a valid net."""
    k = 0
    blob = "data"
    channels = 32
    size = input_size
    unit = 0

    def cbr(src: str, num_output: int, kernel: int, stride: int = 1) -> Iterator[str]:
        nonlocal k
        k += 1
        name = f"conv{k}"
        yield _conv(name, src, num_output, kernel, stride)
        yield _bn(f"{name}_bn", name)
        yield _scale(f"{name}_scale", name)
        yield _relu(f"{name}_relu", name)

    while True:
        unit += 1
        if unit % 12 == 0:
            stride = 2 if size >= 16 else 1
            if stride == 2:
                size = (size + 1) // 2
            k += 1
            name = f"pool{k}"
            yield _pool(name, blob, stride)
            blob = name
        elif unit % 5 == 0:
            # inception-like: two branches joined by Concat
            half = max(8, channels // 2)
            b1 = f"conv{k + 1}"
            yield from cbr(blob, half, 1)
            b2 = f"conv{k + 1}"
            yield from cbr(blob, channels - half if channels > half else half, 3)
            k += 1
            name = f"concat{k}"
            yield _concat(name, [b1, b2])
            blob = name
            channels = half + (channels - half if channels > half else half)
        elif unit % 7 == 0:
            # residual: conv keeps the channel count, Eltwise SUM with the input
            src = blob
            out = f"conv{k + 1}"
            yield from cbr(src, channels, 3)
            k += 1
            name = f"res{k}"
            yield _eltwise(name, src, out)
            blob = name
        else:
            channels = min(512, channels + 16) if unit % 3 == 0 else channels
            out = f"conv{k + 1}"
            yield from cbr(blob, channels, 3)
            blob = out


def generate_big_prototxt(n_layers: int = 2000, input_size: int = 416) -> str:
    """A realistic ``n_layers``-layer network (about 15 lines per layer)."""
    parts = [
        'name: "synthetic_nnie_net"\n',
        'input: "data"\n',
        "input_shape {\n  dim: 1\n  dim: 3\n" f"  dim: {input_size}\n  dim: {input_size}\n}}\n",
    ]
    gen = _layers(input_size)
    for _ in range(max(0, n_layers)):
        parts.append(next(gen))
    return "".join(parts)

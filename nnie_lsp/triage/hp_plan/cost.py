"""What a `_hp` plan costs on the board: the share of the net's multiply-accumulates (MACs) that run
at 16 bit.

A 16-bit layer computes at about half the 8-bit rate (compile_mode 1 takes about twice the run
time, docs/field-facts.md §3.1) [I]; the layers that carry the work are the convolutions,
deconvolutions and fully connected layers, so the plan's cost is told as the share of their MACs
in the `_hp` chains (a chain's in-place layers — ReLU, BN, Scale — and pooling, eltwise, concat
are not counted: no weights, little arithmetic).

MACs per image, from the prototxt's shapes (:func:`nnie_lsp.readers.prototxt.shapes.infer_shapes`):

- Convolution: ``C_out · H_out · W_out · (C_in / group) · k_h · k_w`` (depthwise types: group =
  ``C_in``);
- Deconvolution: ``C_in · H_in · W_in · (C_out / group) · k_h · k_w`` (each input value is
  spread over a kernel of every output channel of its group);
- InnerProduct: ``(values per item at the axis) · num_output``.

A layer whose shapes the inference cannot tell counts 0 and is named in ``unknown``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

MAC_TYPES = ("Convolution", "Deconvolution", "InnerProduct", "DepthwiseConvolution", "ConvolutionDepthwise")
_DEPTHWISE = ("DepthwiseConvolution", "ConvolutionDepthwise")


@dataclass(frozen=True)
class NetMacs:
    """MACs per image of every conv/deconv/fc layer of a net (by layer name)."""

    by_layer: dict[str, int]
    unknown: tuple[str, ...] = ()  # MAC layers whose shapes are not known (counted as 0)

    @property
    def total(self) -> int:
        return sum(self.by_layer.values())


@dataclass(frozen=True)
class MacShare:
    """The MACs of the layers at 16 bit against all of them (the NNIE segment's)."""

    macs_16bit: int
    total: int
    layers_16bit: tuple[str, ...] = field(default=())

    @property
    def share(self) -> float | None:
        return self.macs_16bit / self.total if self.total else None

    def to_dict(self) -> dict:
        share = self.share
        return {"share": round(share, 7) if share is not None else None, "macs_16bit": self.macs_16bit,
                "total": self.total}

    def describe(self) -> str:
        share = self.share
        if share is None:
            return "the net has no convolution or fully connected layer whose size is known"
        return f"{100 * share:.1f} % of the net's multiply-accumulates at 16 bit ({_mega(self.macs_16bit)} of {_mega(self.total)} MMAC per image)"


def _mega(macs: int) -> str:
    return f"{macs / 1e6:.3g}"


def _spatial(p, name: str, default: int, hw: tuple[str, str]) -> tuple[int, int]:
    h_name, w_name = hw
    if p.HasField(h_name) or p.HasField(w_name):
        return (getattr(p, h_name) if p.HasField(h_name) else default,
                getattr(p, w_name) if p.HasField(w_name) else default)
    values = list(getattr(p, name))
    if not values:
        return default, default
    return (values[0], values[0]) if len(values) == 1 else (values[0], values[1])


def layer_macs(layer_type: str, param, bottom: tuple[int, ...] | None, top: tuple[int, ...] | None) -> int | None:
    """MACs per image of one layer from its parameters and shapes (None: not known)."""
    if layer_type not in MAC_TYPES or bottom is None or top is None:
        return None
    if layer_type == "InnerProduct":
        p = param.inner_product_param
        axis = p.axis if p.axis >= 0 else p.axis + len(bottom)
        if not 0 <= axis < len(bottom):
            return None
        return math.prod(bottom[axis:]) * int(p.num_output)
    if len(bottom) != 4 or len(top) != 4:
        return None
    p = param.convolution_param
    kh, kw = _spatial(p, "kernel_size", 0, ("kernel_h", "kernel_w"))
    c_in, c_out = bottom[1], top[1]
    group = c_in if layer_type in _DEPTHWISE else max(int(p.group), 1)
    if kh <= 0 or kw <= 0 or c_in % group or c_out % group:
        return None
    if layer_type == "Deconvolution":
        return c_in * bottom[2] * bottom[3] * (c_out // group) * kh * kw
    return c_out * top[2] * top[3] * (c_in // group) * kh * kw


def net_macs(graph, input_shapes: Mapping[str, tuple[int, ...]] | None = None) -> NetMacs:
    """MACs per image of every conv/deconv/fc layer of a :class:`~nnie_lsp.readers.prototxt.graph.NetGraph`;
    ``input_shapes`` replaces the declared input shapes (the images the run really feeds)."""
    from nnie_lsp.readers.prototxt.shapes import infer_shapes

    shapes = infer_shapes(graph, input_shapes)
    by_layer: dict[str, int] = {}
    unknown: list[str] = []
    for layer in graph.layers:
        if layer.type not in MAC_TYPES:
            continue
        bottom = shapes.blobs.get(layer.bottoms[0]) if layer.bottoms else None
        tops = shapes.layer_tops.get(layer.index, ())
        top = tops[0] if tops else None
        # a blob rewritten in place keeps its shape, so the shapes map (the last writer's) holds
        # the shape this layer reads
        macs = layer_macs(layer.type, layer.param, bottom, top)
        if macs is None:
            unknown.append(layer.name)
            macs = 0
        batch = bottom[0] if bottom and bottom[0] > 0 else 1
        by_layer[layer.name] = macs // batch
    return NetMacs(by_layer, tuple(unknown))


def prototxt_macs(prototxt: str | Path, input_shapes: Mapping[str, tuple[int, ...]] | None = None) -> NetMacs:
    """:func:`net_macs` of a prototxt file (parsed the way the lint parses it)."""
    from nnie_lsp.project.project import cached_prototxt
    from nnie_lsp.reference.net import read_prototxt_text

    text = read_prototxt_text(Path(prototxt))
    graph = cached_prototxt(text, str(prototxt))[1]
    if graph is None:
        raise ValueError(f"cannot read the prototxt {prototxt}")
    return net_macs(graph, input_shapes)


def mac_share(chains: Iterable[tuple[str, Iterable[str]]], macs: NetMacs, hp: Iterable[str]) -> MacShare:
    """The share for the chains (head name, the chain's layer names) of the NNIE segment, the heads
    in ``hp`` (and those named ``*_hp``) at 16 bit."""
    from nnie_lsp.rules.fixes import HP_SUFFIX

    hp = set(hp)
    total = high = 0
    heads: list[str] = []
    for head, layers in chains:
        chain = sum(macs.by_layer.get(name, 0) for name in layers)
        total += chain
        if head in hp or head.endswith(HP_SUFFIX):
            high += chain
            heads.append(head)
    return MacShare(high, total, tuple(heads))

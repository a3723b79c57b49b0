"""NNIE quantization emulation: a "simulated" run produced from a Caffe net in numpy.

What is emulated (docs/field-facts.md §10.1, §11):
- the mapper fuses an in-place chain (conv → in-place ReLU/PReLU/BN/Scale) into one layer and
  reports one output per chain, named by the chain's first layer;
- every value a layer reads from memory is quantized with the 8-bit log quantizer of §11/§16.5
  (clip = the tensor's max |x| over the images run, rounded up to 2^(k/16), like a gfpq clip
  calibrated on those images; :func:`emulate_images` runs several images with shared clips, as
  the mapper calibrates on its whole image list, §5.6); the data layer is exact (image_type 1
  inputs are integers);
- Convolution / Deconvolution / InnerProduct weights are quantized with the same quantizer
  (per layer); biases are kept;
- the 16-bit variant for every layer (``bits`` 16: compile_mode 1) or, with ``hp_names`` (compile_mode
  2), the layers named ``*_hp`` -- the mapper's rule, :mod:`.precision` (``hp_layers`` adds layers by
  name whatever the mode); each run lists the chains it ran at 16 bit (``SimRun.sixteen_bit``);
- optionally, clips that also cover other calibration images (``calibration_max``, the maxima of
  :func:`float_read_maxima`) and clips moved by a few grid steps (``clip_offsets``: another
  calibration, the `_hp` benchmark's mismatch mode);
- dumped outputs are on the 20.12 fixed-point grid.

Fault injection for tests and demos: extra noise that grows with depth, an in-place layer the
mapper split (the reported chain output is the value before the in-place layer), a layer whose
dump is in H,W,C order (a Permute the mapper inserted).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import numpy as np

from nnie_lsp.readers.prototxt.layers import is_cpu_layer_name
from nnie_lsp.readers.prototxt.layers import lookup as lookup_layer

from nnie_lsp.reference.net import CaffeNet, LayerDef
from nnie_lsp.reference.blas import one_blas_thread
from nnie_lsp.reference.numpy_forward import run_layer
from nnie_lsp.emulation.codes import write_input_dumps
from nnie_lsp.emulation.precision import runs_16bit
from nnie_lsp.emulation.quant import LogQuantizer, quantizer_for, to_fixed_20_12

WEIGHT_LAYERS = ("Convolution", "Deconvolution", "InnerProduct", "DepthwiseConvolution")


@dataclass
class EmulationOptions:
    bits: int = 8  # 8 = compile_mode 0 (and 2); 16 = compile_mode 1
    hp_layers: frozenset[str] = frozenset()  # more layers at 16-bit, by name (``emulate --hp``)
    hp_names: bool = False  # layers named ``*_hp`` at 16 bit: compile_mode 2 (the mapper ignores them otherwise)
    quantize_weights: bool = True
    quantize_activations: bool = True
    noise: float = 0.0  # extra relative noise: sigma = noise * depth * rms(output)
    seed: int = 0
    split_inplace: frozenset[str] = frozenset()  # in-place layers the mapper runs separately
    hwc_layers: frozenset[str] = frozenset()  # reported outputs written in H,W,C order
    keep_inputs: bool = False  # record every quantized layer input (SimRun.layer_inputs)
    # (blob, bits) -> octaves: the clip moved by this much (another calibration's clip; the `_hp`
    # benchmark's mismatch mode, quant.seeded_clip_offsets)
    clip_offsets: Mapping[tuple[str, int], float] = field(default_factory=dict)
    # (blob, version) -> a max |x| from calibration images not run here (float_read_maxima):
    # the clips cover it too, as the mapper's clips cover its whole image list (§5.6)
    calibration_max: Mapping[tuple[str, int], float] = field(default_factory=dict)


@dataclass
class SimOutput:
    layer: str  # chain head layer name (the mapper's per-layer name)
    top: str  # blob name
    value: np.ndarray  # (N, ...) values as dumped (20.12 grid)
    layers: list[str]  # all Caffe layers fused into this output
    layout: str = "CHW"
    layer_id: int = 0


@dataclass
class SimInput:
    """A layer input as the NNIE reads it: quantized under ``clip`` (the mapper's
    ``<layer>_input<k>_…_quant.nonlinear.hex`` and its dequantized twin, docs/field-facts.md §10.1)."""

    layer: str  # chain head layer name
    number: int  # which input of the layer (its bottom index)
    blob: str
    value: np.ndarray  # (N, ...) dequantized values (on the grid of `clip`)
    clip: float
    bits: int


@dataclass
class SimRun:
    net: CaffeNet
    inputs: dict[str, np.ndarray]
    outputs: list[SimOutput] = field(default_factory=list)
    options: EmulationOptions = field(default_factory=EmulationOptions)
    clips: dict[str, float] = field(default_factory=dict)  # blob -> clip (shared by the images of one call)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (layer, why) not run on the NNIE
    layer_inputs: list[SimInput] = field(default_factory=list)  # with EmulationOptions.keep_inputs
    sixteen_bit: list[str] = field(default_factory=list)  # chain heads run at 16 bit, network order

    def by_top(self) -> dict[str, np.ndarray]:
        return {o.top: o.value for o in self.outputs}


def _bits_for(layer: LayerDef, opts: EmulationOptions) -> int:
    return 16 if runs_16bit(layer.name, opts.bits, opts.hp_names, opts.hp_layers) else 8


def quantize_weights(layer: LayerDef, blobs: list[np.ndarray], q: LogQuantizer) -> list[np.ndarray]:
    if layer.type not in WEIGHT_LAYERS or not blobs:
        return blobs
    return [q.quantize(blobs[0])] + list(blobs[1:])


@one_blas_thread()
def emulate(net: CaffeNet, inputs: dict[str, np.ndarray], options: EmulationOptions | None = None) -> SimRun:
    """Run the net with NNIE-style quantization; one reported output per in-place chain.

    ``inputs`` maps each network input to an (N, C, H, W) array; with N > 1 the clips are those of
    the whole batch."""
    return emulate_images(net, [inputs], options)[0]


@one_blas_thread()
def emulate_images(net: CaffeNet, images: list[dict[str, np.ndarray]],
                   options: EmulationOptions | None = None) -> list[SimRun]:
    """Emulate several images (one input dict each, in image-list order) the way the mapper
    calibrates: every activation clip is taken over all the images together (the mapper calibrates
    on the whole image list, docs/field-facts.md §5.6, §10.1), then each image is quantized with
    those clips. One :class:`SimRun` per image; they share ``clips``. The images run layer by
    layer side by side, never as one batch, so nets whose Reshape fixes the batch work too."""
    opts = options or EmulationOptions()
    if not images:
        raise ValueError("emulate_images needs at least one image")
    count = len(images)
    rngs = [np.random.default_rng(opts.seed if i == 0 else (opts.seed, i)) for i in range(count)]
    blobs = [{k: np.asarray(v, dtype=np.float32) for k, v in inputs.items()} for inputs in images]
    network_inputs = set(blobs[0])
    quantized: dict[tuple[str, int, int], list[np.ndarray]] = {}  # (blob, version, bits): `_hp` readers differ
    version: dict[str, int] = {k: 0 for k in network_inputs}
    clips: dict[str, float] = {}
    runs = [SimRun(net=net, inputs={k: v.copy() for k, v in b.items()}, options=opts, clips=clips) for b in blobs]
    depth = 0
    layer_id = 0
    off_nnie: set[str] = set()  # blobs written by CPU-side layers (not produced on the NNIE)
    for chain in net.chains():
        head = chain[0]
        why = _cpu_side(head, off_nnie)
        if why:
            # the NNIE segment ends here: PriorBox/DetectionOutput/Proposal/Custom/`_cpu` layers and
            # everything fed by them run on the CPU, as the mapper splits the net into segments
            for layer in chain:
                for run in runs:
                    run.skipped.append((layer.name, why))
                off_nnie.update(layer.tops)
            continue
        depth += 1
        pre_split: list[np.ndarray] | None = None
        bits = _bits_for(head, opts)
        q = quantizer_for(bits)
        if bits == 16:
            for run in runs:
                run.sixteen_bit.append(head.name)
        for layer in chain:
            reads: list[list[np.ndarray]] = []  # per bottom, per image
            for number, b in enumerate(layer.bottoms):
                if b not in blobs[0]:
                    raise ValueError(f"layer {layer.name!r}: bottom {b!r} is never produced")
                xs = [image[b] for image in blobs]
                fused_inside = layer is not head and b == head.tops[0]
                if opts.quantize_activations and not fused_inside and b not in network_inputs:
                    key = (b, version[b], bits)
                    if key not in quantized:
                        clip = q.clip_value(np.concatenate([x.reshape(-1) for x in xs]) if count > 1 else xs[0],
                                            opts.calibration_max.get((b, version[b]), 0.0))
                        clip = q.shifted(clip, opts.clip_offsets.get((b, bits), 0.0))
                        clips[b] = clip
                        quantized[key] = [q.quantize(x, clip) for x in xs]
                    xs = quantized[key]
                    if opts.keep_inputs and layer is head:
                        for run, x in zip(runs, xs):
                            run.layer_inputs.append(SimInput(head.name, number, b, x, clips[b], bits))
                reads.append(xs)
            wb = layer.blobs
            if opts.quantize_weights and wb:
                wb = quantize_weights(layer, wb, q)
            if layer.name in opts.split_inplace and layer is not head:
                pre_split = [image[head.tops[0]] for image in blobs]
            for i, image in enumerate(blobs):
                ys = run_layer(layer, [xs[i] for xs in reads], wb)
                for top, y in zip(layer.tops, ys):
                    image[top] = y.astype(np.float32)
            for top in layer.tops:
                version[top] = version.get(top, -1) + 1
        if opts.noise > 0:
            for image, rng in zip(blobs, rngs):
                for top in head.tops:
                    y = image[top]
                    rms = float(np.sqrt(np.mean(np.square(y, dtype=np.float64)))) if y.size else 0.0
                    image[top] = (y + rng.standard_normal(y.shape) * opts.noise * depth * rms).astype(np.float32)
        for i, (image, run) in enumerate(zip(blobs, runs)):
            for top in head.tops:
                value = image[top] if pre_split is None else pre_split[i]
                layout = "CHW"
                value = to_fixed_20_12(value)
                if head.name in opts.hwc_layers and value.ndim == 4:
                    layout = "HWC"
                run.outputs.append(SimOutput(layer=head.name, top=top, value=value,
                                             layers=[layer.name for layer in chain], layout=layout,
                                             layer_id=layer_id))
        layer_id += 1
    return runs


@one_blas_thread()
def float_read_maxima(net: CaffeNet, images: list[dict[str, np.ndarray]]) -> dict[tuple[str, int], float]:
    """The largest |x| of every value the NNIE quantizes (a blob read by a chain of the NNIE
    segment, keyed by (blob, version) as :func:`emulate_images` counts versions) over ``images``,
    run in floating point one image at a time -- the calibration statistic of the images of a list
    that are not emulated themselves (``EmulationOptions.calibration_max``) [I]: a clip then covers
    them as the mapper's clips cover its whole list (docs/field-facts.md §5.6), at the cost of one
    float run per image instead of one emulation per `_hp` set."""
    out: dict[tuple[str, int], float] = {}
    chains = net.chains()
    for inputs in images:
        blobs = {k: np.asarray(v, dtype=np.float32) for k, v in inputs.items()}
        network_inputs = set(blobs)
        version = {k: 0 for k in network_inputs}
        off_nnie: set[str] = set()
        for chain in chains:
            head = chain[0]
            if _cpu_side(head, off_nnie):
                for layer in chain:
                    off_nnie.update(layer.tops)
                continue
            for layer in chain:
                xs = []
                for b in layer.bottoms:
                    if b not in blobs:
                        raise ValueError(f"layer {layer.name!r}: bottom {b!r} is never produced")
                    x = blobs[b]
                    if not (layer is not head and b == head.tops[0]) and b not in network_inputs and x.size:
                        key = (b, version[b])
                        out[key] = max(out.get(key, 0.0), float(np.max(np.abs(x))))
                    xs.append(x)
                for top, y in zip(layer.tops, run_layer(layer, xs, layer.blobs)):
                    blobs[top] = y.astype(np.float32)
                for top in layer.tops:
                    version[top] = version.get(top, -1) + 1
    return out


def _cpu_side(head: LayerDef, off_nnie: set[str]) -> str | None:
    """Why a chain does not run on the NNIE (None if it does)."""
    if is_cpu_layer_name(head.name):
        return "a `_cpu` layer (user CPU code)"
    spec = lookup_layer(head.type)
    if spec is not None and spec.support == "cpu":
        return f"{head.type} runs on the CPU"
    if spec is not None and spec.support == "unsupported":
        return f"{head.type} is not an NNIE layer (CPU post-processing)"
    fed = [b for b in head.bottoms if b in off_nnie]
    if fed:
        return f"fed by CPU-side blob {fed[0]!r}"
    return None


def write_sim_dumps(run: SimRun, outdir: str | Path, fmt: str = "mapper_quant", seg: int = 0,
                    first_node: int = 3, node_step: int = 2) -> list[Path]:
    """Write the emulated run in a real dump format.

    `mapper_quant`: the files the mapper writes -- ``<layer>_output<id>_<C>_<H>_<W>_quant.linear.hex``
    per reported layer; the net's input as the dequantized input of the layers reading it,
    ``<layer>_input<k>_<C>_<H>_<W>_anti_quant.float`` (the mapper has no data layer); and -- when
    the run kept them (``EmulationOptions.keep_inputs``) -- every quantized layer input as the
    mapper writes it: ``<layer>_input<k>_…_quant.nonlinear.hex`` (the codes)
    with its ``…_anti_quant.float`` twin (:mod:`.codes`); `inst`: ``seg<s>_layer<node>_output0_inst.linear.hex`` with synthetic node ids
    (node ids are not layer names: the triage aligns them by order, shape and values).
    HWC-layout outputs are written in H,W,C element order with C_H_W dims in the name, like a
    mapper-inserted Permute would leave them.
    """
    from nnie_lsp.readers.dumpio import writers as dumps

    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def payload(o_value: np.ndarray, layout: str) -> np.ndarray:
        a = o_value[0] if o_value.ndim >= 2 else o_value
        if layout == "HWC" and a.ndim == 3:
            return np.ascontiguousarray(a.transpose(1, 2, 0)).reshape(a.shape)
        return a

    if fmt == "mapper_quant":
        # the mapper has no layer for the net's input: its data reaches mapper_quant as the
        # dequantized input of each layer reading it (docs/field-facts.md §10.1, §16.1), and a
        # triage finds it there (triage.align.driver); the code file beside it is not written,
        # what the mapper's holds for the image input is not known
        reported = {o.layer for o in run.outputs}
        for chain in run.net.chains():
            head = chain[0]
            if head.name not in reported:
                continue
            for number, blob in enumerate(head.bottoms):
                if blob in run.inputs:
                    written.append(Path(dumps.write_mapper_input(out, head.name, run.inputs[blob][0], number,
                                                                 linear=False)))
        for o in run.outputs:
            written.append(Path(dumps.write_mapper_quant(out, o.layer, payload(o.value, o.layout),
                                                         run.net.layer(o.layer).tops.index(o.top))))
        for layer_input in run.layer_inputs:  # with EmulationOptions.keep_inputs
            written.extend(write_input_dumps(out, layer_input.layer, layer_input.number, layer_input.value[0],
                                             layer_input.clip, layer_input.bits))
    elif fmt == "inst":
        node = first_node
        for o in run.outputs:
            written.append(Path(dumps.write_inst(out, seg, node, payload(o.value, o.layout))))
            node += node_step
    else:
        raise ValueError(f"unknown simulated dump format {fmt!r} (mapper_quant or inst)")
    return written

"""The `_hp` planner's oracle: the NNIE quantization emulation, evaluated for many `_hp` sets.

:func:`nnie_lsp.emulation.emulate.emulate` runs the whole net for one set of 16-bit layers. The
planner asks the same question for hundreds of sets that differ in one layer, so this module runs
the emulation's own steps (the same in-place chains, the same CPU-side cut, the same quantizers,
``run_layer`` for the arithmetic; docs/field-facts.md §10.1, §11) and keeps what a run computed
before the first chain whose precision differs:

- the state at every chain boundary of the last full run is kept (references to the arrays, no
  copies), so evaluating the set with one more `_hp` layer restarts at that layer's chain;
- quantized weights are computed once per layer and bit width;
- a blob read by layers of different precision is quantized once per bit width.

``tests/triage/hp_plan/test_hp_plan_oracle.py`` checks that every evaluation equals ``emulate()`` with the
same ``hp_layers``.

What `_hp` changes in the emulation [I] (docs/field-facts.md §7.4, §11): a chain whose head layer
is `_hp` reads its inputs and uses its weights at 16 bit. A chain whose weights are not quantized
and which reads only network inputs (those are exact) computes the same at 8 and 16 bit, so it is
not a candidate.

Final similarity: the cosine (:func:`~nnie_lsp.triage.measure.metrics.cosine`) of each final output of the
NNIE segment — a top no later NNIE layer reads — against the float run, per image; a set's
``similarity`` is the worst of them over outputs and images.  Several images are emulated the way
``emulate_images`` does it: side by side, with every clip taken over all of them.

Calibration over the whole image list (the mapper's own behaviour, docs/field-facts.md §5.6): the
images scored are emulated for every set; the other images of the list (``calibration``) are run
once in floating point and their largest |x| per quantized read is what every clip also covers
(``EmulationOptions.calibration_max``) — the clips of the mapper, which calibrates on the whole list
and dumps its last image, at the cost of the images scored [I].

What a real run shows can correct the oracle: :meth:`HpOracle.with_clip_offsets` moves the clips
(per blob and bit width) to those a mapper run used (:mod:`.learn`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from nnie_lsp.rules.fixes import HP_SUFFIX
from nnie_lsp.emulation.emulate import WEIGHT_LAYERS, EmulationOptions, emulate, float_read_maxima, quantize_weights
from nnie_lsp.reference.net import CaffeNet, LayerDef
from nnie_lsp.reference.blas import one_blas_thread
from nnie_lsp.reference.numpy_forward import run_layer
from nnie_lsp.emulation.precision import hp_mark_applied
from nnie_lsp.emulation.quant import quantizer_for, to_fixed_20_12
from nnie_lsp.triage.measure.metrics import cosine
from nnie_lsp.triage.hp_plan.cost import MacShare, NetMacs, mac_share, prototxt_macs


@dataclass(frozen=True)
class OutputScore:
    """One final output's cosine against the float run, over the images."""

    top: str
    per_image: tuple[float, ...]

    @property
    def worst(self) -> float:
        return min(self.per_image)

    @property
    def median(self) -> float:
        return float(np.median(self.per_image))

    def to_dict(self) -> dict:
        return {"top": self.top, "min": round(self.worst, 7), "median": round(self.median, 7),
                "per_image": [round(v, 7) for v in self.per_image]}


@dataclass(frozen=True)
class Score:
    """The final similarity of one `_hp` set: per output, and the worst over outputs and images."""

    hp_layers: frozenset[str]
    outputs: tuple[OutputScore, ...]

    @property
    def similarity(self) -> float:
        return min(o.worst for o in self.outputs) if self.outputs else 1.0

    @property
    def mean(self) -> float:
        """The mean over outputs and images: what moves when a layer helps an output that is not
        the worst one (the planner's tie-breaker)."""
        values = [v for o in self.outputs for v in o.per_image]
        return float(np.mean(values)) if values else 1.0

    def to_dict(self) -> dict:
        return {"similarity": round(self.similarity, 7), "mean": round(self.mean, 7),
                "outputs": [o.to_dict() for o in self.outputs]}


@dataclass
class _State:
    """What a run holds at a chain boundary: blob values per image, their versions, quantized reads
    (per image, under the clip of all images together)."""

    blobs: list[dict[str, np.ndarray]]
    version: dict[str, int]
    quantized: dict[tuple[str, int, int], tuple[float, list[np.ndarray]]]  # (blob, version, bits) -> (clip, per image)

    def copy(self) -> "_State":
        return _State([dict(image) for image in self.blobs], dict(self.version), dict(self.quantized))


@dataclass
class _Chain:
    head: LayerDef
    layers: list[LayerDef]
    position: int  # index among the NNIE chains
    quantized_reads: bool  # reads a blob that is quantized (not a network input, not fused)
    weights: bool  # carries weights the emulation quantizes


@dataclass
class HpOracle:
    """Final similarity of any `_hp` set on one net and its images (one input dict per image, each
    input (1, C, H, W)); activation clips are taken over all the images together and over the
    ``calibration_max`` of the list's other images, as the mapper calibrates on the whole image
    list (docs/field-facts.md §5.6), then moved by ``clip_offsets`` (octaves per blob and width)."""

    net: CaffeNet
    images: list[dict[str, np.ndarray]]
    chains: list[_Chain] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    final_tops: list[str] = field(default_factory=list)
    float_blobs: list[dict[str, np.ndarray]] = field(default_factory=list)  # per image, every blob
    calibration_max: dict[tuple[str, int], float] = field(default_factory=dict)  # (blob, version) -> max |x|
    calibration_images: int = 0  # the list's images behind calibration_max
    clip_offsets: dict[tuple[str, int], float] = field(default_factory=dict)  # (blob, bits) -> octaves
    macs: NetMacs | None = None  # MACs per conv/deconv/fc layer (None: the prototxt is not known)
    # which `_hp` names run at 16 bit, by the one rule of nnie_lsp/emulation/precision.py: only in a
    # build that honours the marks (``hp_names``: [compile_mode] 2, the default) and, when the .wk
    # says which marks its build applied (hp_plan/built.py), only those (None: every mark)
    hp_names: bool = True
    applied_hp: frozenset[str] | None = None
    evaluations: int = 0  # sets evaluated (cache hits not counted)
    _weights: dict[tuple[str, int], list[np.ndarray]] = field(default_factory=dict)
    _cache: dict[frozenset[str], Score] = field(default_factory=dict)
    _base_bits: tuple[int, ...] | None = None
    _base_states: list[_State] = field(default_factory=list)
    _family: dict[frozenset, "HpOracle"] = field(default_factory=dict)  # clip offsets -> oracle (shared)

    @classmethod
    @one_blas_thread()
    def build(cls, net: CaffeNet, images: list[dict[str, np.ndarray]], *,
              calibration: list[dict[str, np.ndarray]] | None = None,
              clip_offsets: dict[tuple[str, int], float] | None = None,
              macs: NetMacs | None = None) -> "HpOracle":
        """``images``: the images scored (each emulated for every set); ``calibration``: the image
        list's other images, whose float maxima the clips cover too; ``clip_offsets``: clips moved
        by this many octaves per (blob, bits); ``macs``: the net's MACs (default: from
        ``net.prototxt`` at the images' size, when known)."""
        if not images:
            raise ValueError("the `_hp` oracle needs at least one image")
        images = [{k: np.asarray(v, dtype=np.float32) for k, v in image.items()} for image in images]
        oracle = cls(net=net, images=images, clip_offsets=dict(clip_offsets or {}))
        if calibration:
            oracle.calibration_max = float_read_maxima(net, calibration)
            oracle.calibration_images = len(calibration)
        oracle.macs = macs if macs is not None else _macs_of(net, images[0])
        # the CPU-side cut is the emulation's own (PriorBox, DetectionOutput, `_cpu`, what they feed)
        float_run = emulate(net, images[0], EmulationOptions(quantize_weights=False, quantize_activations=False))
        oracle.skipped = list(float_run.skipped)
        off_nnie = {name for name, _ in float_run.skipped}
        network_inputs = set(images[0])
        read_by_nnie: set[str] = set()
        position = 0
        for chain in net.chains():
            head = chain[0]
            if head.name in off_nnie:
                continue
            reads = False
            for layer in chain:
                for b in layer.bottoms:
                    fused_inside = layer is not head and b == head.tops[0]
                    if not fused_inside:
                        read_by_nnie.add(b)
                        reads = reads or b not in network_inputs
            weights = any(layer.type in WEIGHT_LAYERS and layer.blobs for layer in chain)
            oracle.chains.append(_Chain(head, chain, position, reads, weights))
            position += 1
        oracle.final_tops = [top for c in oracle.chains for top in c.head.tops if top not in read_by_nnie]
        oracle.float_blobs = oracle._run_from(oracle._start_state(), 0, None, []).blobs
        return oracle

    # ------------------------------------------------------------------ candidates

    def candidates(self) -> list[str]:
        """Chain heads, in network order, whose results change at 16 bit (see the module doc);
        layers already named ``*_hp`` are 16-bit already and not offered again."""
        return [c.head.name for c in self.chains if (c.quantized_reads or c.weights)
                and not self._named_hp(c.head.name)]

    def _named_hp(self, name: str) -> bool:
        """A layer its `_hp` name makes 16-bit in the build evaluated (:func:`hp_mark_applied`)."""
        return hp_mark_applied(name, self.hp_names, self.applied_hp)

    def marked_off(self) -> list[str]:
        """Chain heads named ``*_hp`` that this build runs at 8 bit (the cfg's [compile_mode] is not 2,
        or the .wk shows the mark not applied)."""
        return [c.head.name for c in self.chains if c.head.name.endswith(HP_SUFFIX)
                and not self._named_hp(c.head.name) and (c.quantized_reads or c.weights)]

    def position(self, layer: str) -> int:
        for c in self.chains:
            if c.head.name == layer:
                return c.position
        raise KeyError(layer)

    def all_layers(self) -> list[str]:
        """Every chain head of the NNIE segment (all of them `_hp` = compile_mode 1)."""
        return [c.head.name for c in self.chains]

    def chain_layers(self) -> list[tuple[str, list[str]]]:
        """(head, the chain's layer names) for every chain of the NNIE segment, network order."""
        return [(c.head.name, [layer.name for layer in c.layers]) for c in self.chains]

    def mac_share(self, hp_layers) -> MacShare | None:
        """The share of the NNIE segment's MACs at 16 bit with ``hp_layers`` `_hp` (None: unknown)."""
        if self.macs is None:
            return None
        return mac_share(self.chain_layers(), self.macs, hp_layers)

    def with_clip_offsets(self, offsets: dict[tuple[str, int], float]) -> "HpOracle":
        """The same net, images and calibration with these clip offsets (replacing the current
        ones): another oracle with its own caches (one per set of offsets, kept: asking again gives
        the same oracle); the float run and the quantized weights are shared."""
        clean = {key: float(value) for key, value in offsets.items() if value}
        key = frozenset(clean.items())
        if key == frozenset(self.clip_offsets.items()):
            return self
        if not self._family:
            self._family[frozenset(self.clip_offsets.items())] = self
        known = self._family.get(key)
        if known is None:  # one oracle per set of offsets: its cached evaluations are reused
            known = self._family[key] = HpOracle(
                net=self.net, images=self.images, chains=self.chains, skipped=self.skipped,
                final_tops=self.final_tops, float_blobs=self.float_blobs, calibration_max=self.calibration_max,
                calibration_images=self.calibration_images, clip_offsets=clean, macs=self.macs,
                hp_names=self.hp_names, applied_hp=self.applied_hp, _weights=self._weights, _family=self._family)
        return known

    # ------------------------------------------------------------------ evaluation

    @one_blas_thread()
    def score(self, hp_layers) -> Score:
        """The final similarity with `hp_layers` (chain head names) at 16 bit, the rest at 8 bit."""
        hp = frozenset(hp_layers)
        cached = self._cache.get(hp)
        if cached is not None:
            return cached
        end = self._run(hp)
        outputs = []
        for top in self.final_tops:
            per_image = []
            for reference, got in zip(self.float_blobs, end.blobs):
                per_image.append(cosine(reference[top], to_fixed_20_12(got[top])))
            outputs.append(OutputScore(top, tuple(per_image)))
        result = Score(hp, tuple(outputs))
        self._cache[hp] = result
        self.evaluations += 1
        return result

    @one_blas_thread()
    def blobs(self, hp_layers) -> list[dict[str, np.ndarray]]:
        """Every blob per image with `hp_layers` at 16 bit, as dumped (on the 20.12 grid)."""
        end = self._run(frozenset(hp_layers))
        return [{name: to_fixed_20_12(value) for name, value in image.items()} for image in end.blobs]

    @one_blas_thread()
    def clips(self, hp_layers) -> dict[tuple[str, int], float]:
        """The clip of every quantized read with `hp_layers` at 16 bit, by (blob, bits): what a run
        of that set shows in its input dumps (a blob read at two versions: the last)."""
        end = self._run(frozenset(hp_layers))
        return {(blob, bits): clip for (blob, _version, bits), (clip, _xs) in end.quantized.items()}

    def _start_state(self) -> _State:
        return _State([dict(image) for image in self.images], {k: 0 for k in self.images[0]}, {})

    def _run(self, hp: frozenset[str]) -> _State:
        bits = tuple(16 if (c.head.name in hp or self._named_hp(c.head.name)) else 8 for c in self.chains)
        start = 0
        if self._base_bits is not None and self._base_states:
            start = next((i for i, (a, b) in enumerate(zip(bits, self._base_bits)) if a != b), len(bits))
        begin = self._base_states[start].copy() if start else self._start_state()
        states: list[_State] = self._base_states[:start]
        end = self._run_from(begin, start, bits, states)
        self._base_bits, self._base_states = bits, states + [end]
        return end

    def _run_from(self, state: _State, start: int, bits: tuple[int, ...] | None,
                  states: list[_State]) -> _State:
        """Run chains ``start…`` (``bits`` None = the float run); ``states`` gets the state before
        each chain."""
        blobs, version, quantized = state.blobs, state.version, state.quantized
        network_inputs = set(self.images[0])
        for chain in self.chains[start:]:
            if bits is not None:
                states.append(_State([dict(image) for image in blobs], dict(version), dict(quantized)))
            head = chain.head
            width = bits[chain.position] if bits is not None else 0
            for layer in chain.layers:
                reads: list[list[np.ndarray]] = []  # per bottom, per image
                for b in layer.bottoms:
                    if b not in blobs[0]:
                        raise ValueError(f"layer {layer.name!r}: bottom {b!r} is never produced")
                    xs = [image[b] for image in blobs]
                    fused_inside = layer is not head and b == head.tops[0]
                    if width and not fused_inside and b not in network_inputs:
                        key = (b, version[b], width)
                        if key not in quantized:
                            q = quantizer_for(width)
                            clip = q.clip_value(np.concatenate([x.reshape(-1) for x in xs]) if len(xs) > 1 else xs[0],
                                                self.calibration_max.get((b, version[b]), 0.0))
                            clip = q.shifted(clip, self.clip_offsets.get((b, width), 0.0))
                            quantized[key] = (clip, [q.quantize(x, clip) for x in xs])
                        xs = quantized[key][1]
                    reads.append(xs)
                weights = self._layer_weights(layer, width)
                for i, image in enumerate(blobs):
                    ys = run_layer(layer, [xs[i] for xs in reads], weights)
                    for top, y in zip(layer.tops, ys):
                        image[top] = y.astype(np.float32)
                for top in layer.tops:
                    version[top] = version.get(top, -1) + 1
        return _State(blobs, version, quantized)

    def _layer_weights(self, layer: LayerDef, width: int) -> list[np.ndarray]:
        if not width or not layer.blobs:
            return layer.blobs
        key = (layer.name, width)
        if key not in self._weights:
            self._weights[key] = quantize_weights(layer, layer.blobs, quantizer_for(width))
        return self._weights[key]


def _macs_of(net: CaffeNet, image: dict[str, np.ndarray]) -> NetMacs | None:
    """The net's MACs at the size of the images run (None when the prototxt is not known or not
    readable: the plan then reports no cost)."""
    if net.prototxt is None:
        return None
    shapes = {name: (1, *np.shape(value)[1:]) for name, value in image.items()}
    try:
        return prototxt_macs(net.prototxt, shapes)
    except (OSError, ValueError):
        return None

"""Position prefixes on reference dump names: ``layer<N>_<name>_output0_<C>_<H>_<W>_caffe.linear.float``.

A public C++ Caffe-side dump program prefixes each file with a 1-based position
(``docs/field-facts.md §16.1``). What ``N`` counts is not the same for every program, and the name
after the prefix is not always the tensor the file holds. The program seen in the wild walks the
net's blobs and names blob ``i`` after the layer at the same index ``i``: after the first in-place
layer the two lists drift apart (``layer3_relu1`` then holds ``pool1``). So a prefix is only
stripped when the prototxt confirms it. Three numberings are tried, each giving, per position, the
layer name the file should carry and the blob whose values it holds:

* **prototxt order** — ``N`` is the layer's position among the prototxt's layers, the file holds
  the layer's top;
* **Caffe run-time order** — ``N`` counts the layers BVLC Caffe actually runs: an ``input`` layer
  first when the inputs are top-level ``input:`` fields, and a ``<blob>_<layer>_<k>_split`` layer
  after every blob version read by several layers;
* **blob index** — the program above: ``N - 1`` indexes the run-time blobs (inputs, then each new
  top, split copies included) and the run-time layer names alike.

A file agrees with a numbering when the layer at ``N`` carries the file's name and, when the shape
is known, the blob's dims are the file's dims. The numbering most files agree with is used for all
(then the one with more dims checked; then the blob index, the program seen in the wild); files it
does not explain keep their full name (nothing is stripped blindly) and are listed in a note, so
the values pass can still pair them. Without a prototxt nothing is stripped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from nnie_lsp.readers.dumpio.names import normalize_name
from nnie_lsp.readers.dumpio.tensor import DumpTensor
from nnie_lsp.triage.align.common import name_variants

if TYPE_CHECKING:
    from nnie_lsp.readers.prototxt.graph import NetGraph

__all__ = ["Numbering", "PositionReading", "numberings", "read_positions"]


@dataclass(frozen=True)
class Numbering:
    """One reading of ``layer<N>_``: per position N, the layer name written and the blob held."""

    name: str
    slots: dict[int, tuple[str, str]]


@dataclass
class PositionReading:
    """What the prefixes say: the blob of every prefixed tensor the chosen numbering explains
    (by ``id`` of the tensor), the tensors it does not explain, and notes for the report."""

    blob_of: dict[int, str] = field(default_factory=dict)
    unexplained: list[DumpTensor] = field(default_factory=list)
    numbering: str | None = None
    notes: list[str] = field(default_factory=list)


def _field_inputs(graph: NetGraph) -> list[str]:
    """Inputs given as top-level ``input:`` fields (Caffe turns them into one ``input`` layer)."""
    from_layers = {top for lay in graph.layers if lay.type == "Input" for top in lay.tops}
    return [b for b in graph.input_blobs if b not in from_layers]


def _runtime(graph: NetGraph) -> tuple[list[tuple[str, str]], list[str]]:
    """Caffe's run-time net: (layer name, blob it makes visible) per layer, and the blob list
    (``net.blobs()`` order) with split copies mapped to the blob they copy."""
    # (name, bottoms, tops) with the implicit input layer first
    layers: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = []
    field_inputs = _field_inputs(graph)
    if field_inputs:
        layers.append(("input", (), tuple(field_inputs)))
    layers.extend((lay.name, tuple(lay.bottoms), tuple(lay.tops)) for lay in graph.layers)
    # how many layers read each blob version (producer index, top index)
    last_top: dict[str, tuple[int, int]] = {}
    readers: dict[tuple[int, int], int] = {}
    for i, (_name, bottoms, tops) in enumerate(layers):
        for b in bottoms:
            source = last_top.get(b)
            if source is not None:
                readers[source] = readers.get(source, 0) + 1
        for j, t in enumerate(tops):
            last_top[t] = (i, j)
    runtime_layers: list[tuple[str, str]] = []
    blobs: list[str] = []
    seen: set[str] = set()
    for i, (name, bottoms, tops) in enumerate(layers):
        runtime_layers.append((name, tops[0] if tops else ""))
        for t in tops:
            if t not in bottoms and t not in seen:  # in-place tops reuse their blob
                seen.add(t)
                blobs.append(t)
        for j, t in enumerate(tops):
            count = readers.get((i, j), 0)
            if count > 1:
                runtime_layers.append((f"{t}_{name}_{j}_split", t))  # Caffe's SplitLayerName
                blobs.extend([t] * count)  # the split's tops (``<t>_<name>_<j>_split_<k>``) copy t
    return runtime_layers, blobs


def numberings(graph: NetGraph) -> list[Numbering]:
    """The three readings of ``layer<N>_`` for this graph (see the module docstring)."""
    prototxt = {i + 1: (lay.name, lay.tops[0]) for i, lay in enumerate(graph.layers) if lay.tops}
    runtime_layers, blobs = _runtime(graph)
    runtime = {i + 1: slot for i, slot in enumerate(runtime_layers) if slot[1]}
    blob_index = {i + 1: (runtime_layers[i][0], blob) for i, blob in enumerate(blobs[: len(runtime_layers)])}
    # ties go to the earlier one: the blob index is the program seen in the wild; it names files
    # exactly like the run-time order, only the dims tell the two apart
    return [
        Numbering("blob index (the i-th blob named after the i-th layer)", blob_index),
        Numbering("prototxt layer order", prototxt),
        Numbering("Caffe run-time layer order (input and split layers counted)", runtime),
    ]


def _squeezed(dims) -> tuple[int, ...]:
    return tuple(int(d) for d in dims if int(d) != 1)


def _agrees(t: DumpTensor, slot: tuple[str, str] | None, graph: NetGraph) -> str:
    """"match": the layer at N carries the file's name and the blob has the file's dims;
    "unknown": the name agrees, dims cannot be checked; "no": anything else."""
    if slot is None or normalize_name(slot[0]) != t.alt_keys[0]:
        return "no"
    expected = graph.item_shape(slot[1])
    if expected is None or not t.shape:
        return "unknown"
    return "match" if _squeezed(expected) == _squeezed(t.shape) else "no"


def read_positions(tensors: list[DumpTensor], graph: NetGraph | None) -> PositionReading:
    """Check the ``layer<N>_`` prefixes of ``tensors`` against the graph (see the module docstring)."""
    reading = PositionReading()
    prefixed = [t for t in tensors if t.position is not None and t.alt_keys]
    if not prefixed:
        return reading
    if graph is None:
        reading.unexplained = prefixed
        reading.notes.append(
            f"{len(prefixed)} reference file(s) carry a layer<N>_ position prefix; without a prototxt N "
            "cannot be checked, so the prefixes are kept (give --prototxt to use them)")
        return reading
    best: tuple[int, int, Numbering] | None = None
    for number_scheme in numberings(graph):
        verdicts = [_agrees(t, number_scheme.slots.get(t.position), graph) for t in prefixed]
        agreed = sum(v != "no" for v in verdicts)
        verified = sum(v == "match" for v in verdicts)
        if agreed and (best is None or (agreed, verified) > best[:2]):
            best = (agreed, verified, number_scheme)
    if best is None:
        reading.unexplained = prefixed
        reading.notes.append(
            f"{len(prefixed)} reference file(s) carry a layer<N>_ prefix, but no numbering of the prototxt's "
            f"layers puts the named layer at N with the file's dims (e.g. {prefixed[0].label}): prefixes not "
            "stripped; these files can only be paired by values")
        return reading
    _agreed, verified, scheme = best
    reading.numbering = scheme.name
    drifted = []
    for t in prefixed:
        slot = scheme.slots.get(t.position)
        if _agrees(t, slot, graph) != "no":
            reading.blob_of[id(t)] = slot[1]
            named_layer = graph.find_layer(t.alt_keys[0], name_variants)
            if named_layer is not None and slot[1] not in named_layer.tops:
                drifted.append(f"{t.label} → {slot[1]!r}")
        else:
            reading.unexplained.append(t)
    reading.notes.append(
        f"layer<N>_ prefixes read by {scheme.name}: {len(reading.blob_of)} of {len(prefixed)} file(s) agree "
        "(the layer at N has the file's name and the blob's dims)"
        + ("" if verified == len(reading.blob_of) else
           f"; {len(reading.blob_of) - verified} without a known blob shape, agreeing by name only"))
    copies = len(reading.blob_of) - len(set(reading.blob_of.values()))
    if copies:
        reading.notes.append(
            f"{copies} prefixed file(s) hold a blob another file already holds (Caffe's split copies): "
            "one file per blob is compared, the others are listed as unmatched")
    if drifted:
        reading.notes.append(
            f"{len(drifted)} prefixed file(s) hold another blob than their name's layer writes, as the "
            f"numbering says: {', '.join(drifted[:6])}{' …' if len(drifted) > 6 else ''}")
    if reading.unexplained:
        shown = ", ".join(t.label for t in reading.unexplained[:6])
        reading.notes.append(
            f"{len(reading.unexplained)} prefixed file(s) disagree with {scheme.name} (name or dims at N): "
            f"prefix not stripped, left to the values pass: {shown}{' …' if len(reading.unexplained) > 6 else ''}")
    return reading

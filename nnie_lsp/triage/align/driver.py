"""Align reference (Caffe) dumps with simulator dumps, layer by layer, with evidence.

The alignment is a driver over small passes, each with explicit inputs and outputs
(:class:`~nnie_lsp.triage.align.common.PassResult`: the pairs it made, the simulator tensors left
for the next pass, notes). First the reference side is read: ``layer<N>_`` position prefixes are
checked against the prototxt (:mod:`~nnie_lsp.triage.align.positions`) and only stripped where it
confirms them, then one reference tensor per blob
(:class:`~nnie_lsp.triage.align.common.ReferenceTable`). Then:

1. **name** (:class:`~nnie_lsp.triage.align.names.NamePass`) — names through the prototxt graph:
   in-place chains, fused and folded layers, NNIE suffixes, ``/`` → ``_``; a name the prototxt does
   not know, with a reference dump of the same name it does not know either, by that name;
2. **dot** (:class:`~nnie_lsp.triage.align.dot_nodes.DotPass`) — ``cnn_net_tree.dot`` node names and
   numbers, for what the names left (only when a dot is given): the mapper's own nodes too
   (``permute_<k>`` after a Normalize, Reportop ``<top>_report_<seg>_<k>``);
3. **values** (:class:`~nnie_lsp.triage.align.values.ValuePass`) — size, order and value
   correlation against the reference tensors no pass has used yet, for the simulator tensors
   without a name of this net only (instruction-simulator ``seg<s>_layer<node>`` dumps, unknown
   names); a tensor named after a layer or blob of the prototxt whose reference dump is missing is
   listed unmatched, never paired with another layer by its values — without a prototxt, every
   named tensor (all but ``seg<s>_layer<node>``) is.  Same-size groups are matched by
   :mod:`.value_match` (matrix products in bounded blocks, the greedy on a heap): the alignment
   stays near-linear in the number of tensors when they have names.

Then :class:`~nnie_lsp.triage.align.values.LayoutPass` checks every pair's layout (W_H_C names,
(H, W, C) values behind a mapper Permute) and builds the :class:`AlignedPair` records, which the
driver puts in network order. Every pair records how it was matched (``matched_by``), a confidence
and the evidence; unmatched tensors and low-confidence pairs are listed, never dropped silently.
"""

from __future__ import annotations

import math
import os
from dataclasses import replace
from typing import TYPE_CHECKING, Iterator

import numpy as np

from nnie_lsp.readers.dumpio.names import normalize_name
from nnie_lsp.readers.dumpio.tensor import DumpSet, DumpTensor, resolve_layout
from nnie_lsp.triage.align.common import FOLDABLE_TYPES, PERMUTE_TYPES, AlignedPair, Alignment, Draft, ReferenceTable, name_variants
from nnie_lsp.triage.align.dot_nodes import DotPass, node_key
from nnie_lsp.triage.align.names import NamePass
from nnie_lsp.triage.align.positions import read_positions
from nnie_lsp.triage.align.values import LayoutPass, ValuePass

if TYPE_CHECKING:
    from nnie_lsp.readers.mapper.nettree import NetTree
    from nnie_lsp.readers.prototxt.graph import NetGraph
    from nnie_lsp.triage.progress import Reporter

__all__ = [
    "AlignedPair",
    "Alignment",
    "align",
    "load_pair",
    "iter_pairs",
    "PERMUTE_TYPES",
    "FOLDABLE_TYPES",
]


def align(
    ref: DumpSet,
    sim: DumpSet,
    graph: NetGraph | None = None,
    dot: NetTree | None = None,
    *,
    value_check: bool = True,
    progress: Reporter | None = None,
) -> Alignment:
    """Pair reference and simulator output tensors (see the module docstring for the passes).

    ``graph``: the prototxt's :class:`~nnie_lsp.readers.prototxt.graph.NetGraph`; ``dot``: the mapper's
    ``cnn_net_tree.dot`` as :func:`~nnie_lsp.readers.mapper.nettree.read_net_tree` reads it; ``value_check``:
    load tensors to confirm layouts and to resolve same-shape ambiguities (memory: one tensor pair
    at a time, plus 4096-value samples). Returned pairs hold both sides, in network order;
    unmatched tensors are listed."""
    notes: list[str] = []
    sim_out = _simulator_outputs(sim, graph, notes)
    ref_out = [t for t in ref.tensors if t.role == "output"]
    positions = read_positions(ref_out, graph)
    notes.extend(positions.notes)
    refs = ReferenceTable.build(ref_out, graph, positions.blob_of)
    notes.extend(refs.notes)

    names = NamePass(graph, refs).run(sim_out)
    drafts, pending = list(names.drafts), names.pending
    notes.extend(names.notes)
    # several sim tensors on one ref (in-place intermediates) are allowed
    used_ref = {id(d.ref) for d in drafts}
    if dot is not None and pending:
        by_dot = DotPass(dot, graph, refs).run(pending)
        drafts.extend(by_dot.drafts)
        pending = by_dot.pending
        notes.extend(by_dot.notes)
        used_ref.update(id(d.ref) for d in by_dot.drafts)
    free_refs = [t for t in refs.for_blob.values() if id(t) not in used_ref]
    named, pending = _named_apart(pending, graph, lambda t: t.key)
    if pending and free_refs:
        notes.append(f"{len(pending)} simulator tensor(s) without a name of this net (instruction-simulator node "
                     "numbers or unknown names): paired by size and value correlation, each pair says so")
        by_values = ValuePass(graph, refs, value_check).run(pending, free_refs)
        drafts.extend(by_values.drafts)
        notes.extend(by_values.notes)
        used_ref.update(id(d.ref) for d in by_values.drafts)
    # a named tensor is paired by values only with a reference dump whose name means nothing here
    nameless_refs = _named_apart([t for t in free_refs if id(t) not in used_ref], graph,
                                 lambda t: refs.blob_of.get(id(t), t.key))[1]
    if named and nameless_refs:
        by_values = ValuePass(graph, refs, value_check).run(named, nameless_refs)
        drafts.extend(by_values.drafts)
        notes.extend(by_values.notes)
        named = [t for t in named if id(t) not in {id(d.sim) for d in by_values.drafts}]
    if named:
        shown = ", ".join(t.key for t in named[:6]) + (" …" if len(named) > 6 else "")
        if graph is None:
            notes.append(f"{len(named)} named simulator tensor(s) without a reference dump of the same name "
                         f"({shown}): listed unmatched, never paired with another layer by values (no prototxt: "
                         "names are not traced through the net; give --prototxt or --cfg)")
        else:
            notes.append(f"{len(named)} simulator tensor(s) named after a layer or blob of the prototxt that has no "
                         f"reference dump ({shown}): listed unmatched, never paired with another layer by values")
    matched_sims = {id(d.sim) for d in drafts}
    unmatched_sim = [t for t in sim_out if id(t) not in matched_sims]

    drafts = _in_network_order(drafts, graph, dot, notes)
    pairs = LayoutPass(graph, value_check).run(drafts, progress, numbered=True)

    used_after = {id(p.ref) for p in pairs}
    unmatched_ref = list(refs.unmatched)
    unmatched_ref.extend(t for t in refs.for_blob.values() if id(t) not in used_after)
    low = [p for p in pairs if p.confidence < 0.5]
    if low:
        notes.append(f"{len(low)} pair(s) with low confidence (< 0.5): " + ", ".join(p.name for p in low[:6]))
    if unmatched_sim:
        notes.append(f"{len(unmatched_sim)} simulator tensor(s) unmatched")
    if unmatched_ref:
        notes.append(f"{len(unmatched_ref)} reference tensor(s) unmatched")
    return Alignment(pairs=tuple(pairs), unmatched_ref=tuple(unmatched_ref), unmatched_sim=tuple(unmatched_sim), notes=tuple(notes))


def _named_apart(tensors: list[DumpTensor], graph: NetGraph | None, name_of) -> tuple[list[DumpTensor], list[DumpTensor]]:
    """(tensors named after a layer or blob of the prototxt, the rest).  A named simulator tensor
    whose reference dump is missing stays unmatched: pairing it by values with a named reference
    dump would put another layer's values under its name (a NNIE ``conv4-1`` dump on the Caffe
    ``prob1`` of the same size).  Without a prototxt every tensor not numbered by the instruction
    simulator (``seg<s>_layer<node>``) counts as named: nothing tells which names are this net's."""
    named, rest = [], []
    for t in tensors:
        numbered = t.seg is not None or t.node is not None
        if graph is None:
            known = not numbered
        else:
            key = name_of(t)
            known = not numbered and (
                graph.find_layer(key, name_variants) is not None or graph.find_blob(key, name_variants) is not None)
        (named if known else rest).append(t)
    return named, rest


def _simulator_outputs(sim: DumpSet, graph: NetGraph | None, notes: list[str]) -> list[DumpTensor]:
    """The simulator tensors to pair: outputs, with the name reading the graph knows, plus the
    network input taken from the first layer's input dump when no output holds it."""
    sim_out = [t for t in sim.tensors if t.role == "output"]
    if graph is not None:  # ambiguous name splits (conv1_1_64_56_56.bin): take the reading the graph knows
        fixed = []
        for t in sim_out:
            if (t.alt_keys and graph.find_layer(t.key, name_variants) is None
                    and graph.find_blob(t.key, name_variants) is None):
                for alt in t.alt_keys:
                    if graph.find_layer(alt, name_variants) is not None or graph.find_blob(alt, name_variants) is not None:
                        t = replace(t, key=alt, alt_keys=(t.key,) + tuple(a for a in t.alt_keys if a != alt))
                        break
            fixed.append(t)
        sim_out = _data_from_input_dumps(graph, sim, fixed, notes)
    taken = {id(t) for t in sim_out}
    n_in = sum(1 for t in sim.tensors if t.role == "input" and id(t) not in taken)
    if n_in:
        notes.append(f"{n_in} simulator input dump(s) (layer inputs) are not paired; they serve isolated per-layer checks")
    return sim_out


def _data_from_input_dumps(graph: NetGraph, sim: DumpSet, sim_out: list[DumpTensor],
                           notes: list[str]) -> list[DumpTensor]:
    """nnie_mapper has no data layer of its own: the preprocessed network input reaches the dumps
    as the first layer's dequantized *input* (`<layer>_input<id>_C_H_W_anti_quant.linear.float`).
    When no simulator output names a network input, use that dump as the data tensor."""
    out = list(sim_out)
    have = {graph.find_blob(t.key, name_variants) or t.key for t in out}
    for blob in graph.input_blobs:
        if blob in have:
            continue
        for t in sim.tensors:
            if t.role != "input":
                continue
            lay = graph.find_layer(t.key, name_variants)
            if lay is not None and list(lay.bottoms) == [blob]:
                out.append(replace(t, key=normalize_name(blob), role="output"))
                notes.append(f"data blob {blob!r}: taken from the input dump of layer {lay.name!r} "
                             f"({os.path.basename(t.path)}), i.e. the data after the mapper's preprocessing")
                break
    return out


def _in_network_order(drafts: list[Draft], graph: NetGraph | None, dot: NetTree | None,
                      notes: list[str]) -> list[Draft]:
    """The drafts sorted by the prototxt order; without a prototxt by the dot's order, else by the
    reference files' write times (the layout pass then numbers the pairs 0..n-1 in this order)."""
    if graph is None:
        mtimes = {}
        for d in drafts:
            try:
                mtimes[id(d)] = os.path.getmtime(d.ref.path)
            except OSError:
                mtimes[id(d)] = 0.0
        if dot is not None:
            keys = ((node_key(dot.nodes[n]), i) for i, n in enumerate(dot.topo_order()))
            pos = {key: i for key, i in keys if key}
            key = lambda d: (pos.get(d.sim.key, math.inf), mtimes[id(d)], _name(d))  # noqa: E731
            notes.append("network order taken from cnn_net_tree.dot (no prototxt)")
        else:
            key = lambda d: (_order(d), mtimes[id(d)], d.sim.seg or 0, d.sim.node or 0, _name(d))  # noqa: E731
            notes.append("no prototxt: network order approximated by the reference files' write times")
        return sorted(drafts, key=key)
    return sorted(drafts, key=lambda d: (_order(d), _rank_at_blob(d), _name(d)))


def _order(d: Draft) -> int:
    """The order an :class:`AlignedPair` made of `d` starts with (the prototxt's, an int)."""
    return int(d.order) if math.isfinite(d.order) else 10**9


def _name(d: Draft) -> str:
    """The :attr:`AlignedPair.name` of the pair `d` becomes."""
    return getattr(d.layer, "name", None) or d.blob or d.sim.key


def _rank_at_blob(pair: Draft | AlignedPair) -> int:
    """Several dumps on one blob: an in-place chain's earlier member first, then the layer's own
    dump, then the mapper's nodes after it (inserted Permute, Reportop)."""
    if "inplace-intermediate" in pair.flags:
        return 0
    if "mapper-inserted" in pair.flags or "report-node" in pair.flags:
        return 2
    return 1


# --------------------------------------------------------------------------------------------
# loading pairs lazily
# --------------------------------------------------------------------------------------------
def load_pair(pair: AlignedPair) -> tuple[np.ndarray, np.ndarray, str]:
    """Both sides as float64 arrays in the same (C, H, W)-like shape, the sim permuted back when the
    pair's layout is HWC; plus a note about what was assumed."""
    if pair.ref is None or pair.sim is None:
        raise ValueError(f"pair {pair.name!r} lacks a side")
    r = pair.ref.load()
    s_raw = pair.sim.load_raw()
    exp = pair.expected_shape
    notes = []
    if exp is not None and r.size == math.prod(exp):
        r = r.reshape(exp)
    if pair.layout == "HWC" and exp is not None and len(exp) == 3:
        c, h, w = exp
        s = np.asarray(s_raw, dtype=np.float64).reshape(h, w, c).transpose(2, 0, 1).copy()
        notes.append("simulator read as (H, W, C) and transposed")
    else:
        s, note = resolve_layout(pair.sim, tuple(r.shape) if r.ndim else None, arr=np.asarray(s_raw, dtype=np.float64))
        notes.append(note)
    del s_raw
    if s.size == r.size and s.shape != r.shape:
        s = s.reshape(r.shape)
    return r, s, "; ".join(notes)


def iter_pairs(alignment: Alignment, *, progress: Reporter | None = None) -> Iterator[tuple[AlignedPair, np.ndarray, np.ndarray]]:
    """Yield ``(pair, ref_array, sim_array)`` one pair at a time; arrays are dropped before the
    next pair is loaded, so peak memory is bounded by the largest single pair.  ``progress`` is
    told each pair (stage ``measure``)."""
    pairs = alignment.pairs
    for i, p in enumerate(pairs):
        if progress is not None:
            progress.step("measure", i, len(pairs), p.name)
        r, s, _ = load_pair(p)
        yield p, r, s
        del r, s

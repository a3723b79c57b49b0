"""Align reference (Caffe) dumps with simulator dumps, layer by layer, with evidence.

Stages (issue 4, TRIAGE_ANCHORS opportunity 1):

1. **name / graph** — a sim tensor's name is a layer (mapper_quant is per layer) or a blob; through
   the prototxt graph the layer is mapped to the blob it writes. Caffe dumps are per blob, and a blob
   at the end of an in-place chain holds the chain's LAST value: a mapper output of an earlier chain
   member is paired with a note and the ``inplace-intermediate`` flag; chain members without any
   sim dump (BN/Scale/ReLU fused by the mapper) are reported as fused. A conv followed by
   non-in-place BatchNorm/Scale layers that have no sim dump is paired with the post-BN blob.
2. **dot** — ``cnn_net_tree.dot`` names the mapper's nodes: a node unknown to the prototxt that feeds
   a known layer is taken as the producer of that layer's rewritten bottom (e.g. SPP → Pooling +
   Concat); node numbers in the dot are tried as instruction-simulator node ids.
3. **shape / order / values** — the rest (instruction-simulator ``seg<s>_layer<node>`` dumps, odd
   names) is matched by element count, then value correlation on fixed samples (both CHW and
   permuted HWC readings), one-to-one by best score; a pair chosen by position only gets low
   confidence, the ``index-guess`` flag and a note. Never silent.

Layers behind a mapper Permute (Upsample, ROIPooling, PSROIPooling) may hold (H, W, C)-ordered
values: the permuted reading is tried and, when it fits better, recorded in ``layout`` ("HWC").
"""

from __future__ import annotations

import gc
import math
import os
from dataclasses import dataclass, field, replace
from typing import Callable, Iterator

import numpy as np

from .dumps import DumpSet, DumpTensor, resolve_layout
from .names import name_variants, normalize_name

__all__ = [
    "AlignedPair",
    "Alignment",
    "align",
    "load_pair",
    "iter_pairs",
    "PERMUTE_TYPES",
    "FOLDABLE_TYPES",
]

PERMUTE_TYPES = frozenset({"Upsample", "ROIPooling", "PSROIPooling"})
FOLDABLE_TYPES = frozenset({"BatchNorm", "Scale", "BN", "Bias"})
_SAMPLE = 4096


@dataclass(frozen=True)
class AlignedPair:
    layer: str | None
    blob: str | None
    ref: DumpTensor | None
    sim: DumpTensor | None
    matched_by: str  # "name" | "graph" | "dot" | "shape-order" | "values"
    confidence: float
    note: str | None
    order: int
    layout: str = "CHW"  # how the sim values are read: "CHW" (as stored) or "HWC" (permuted back)
    flags: tuple[str, ...] = ()  # inplace-intermediate, fused-chain, folded-bn, permute-layout,
    #                               whc-name, index-guess, batch-item, flattened
    expected_shape: tuple[int, ...] | None = None  # (C,H,W)-like shape both sides are read in
    layer_type: str | None = None
    value_cosine: float | None = None  # quick cosine on samples when a value check ran

    @property
    def name(self) -> str:
        return self.layer or self.blob or (self.sim.key if self.sim else self.ref.key if self.ref else "?")


@dataclass(frozen=True)
class Alignment:
    pairs: tuple[AlignedPair, ...]
    unmatched_ref: tuple[DumpTensor, ...] = ()
    unmatched_sim: tuple[DumpTensor, ...] = ()
    notes: tuple[str, ...] = ()

    def by_layer(self) -> dict[str, AlignedPair]:
        return {p.name: p for p in self.pairs}


# --------------------------------------------------------------------------------------------
# graph view (duck-typed over nnie_lsp.prototxt.graph.NetGraph)
# --------------------------------------------------------------------------------------------
class _GraphView:
    def __init__(self, graph) -> None:
        self.graph = graph
        self.layers = list(getattr(graph, "layers", ()) or ())
        self.layer_by_key: dict[str, object] = {}
        self.blob_by_key: dict[str, str] = {}
        self.writers: dict[str, list] = {}  # blob -> layers writing it, in order
        self.consumers: dict[str, list] = {}
        for lay in self.layers:
            for k in name_variants(lay.name):
                self.layer_by_key.setdefault(k, lay)
            for b in lay.tops:
                self.writers.setdefault(b, []).append(lay)
            for b in lay.bottoms:
                self.consumers.setdefault(b, []).append(lay)
        raw_inputs = list(getattr(graph, "inputs", ()) or ())
        self.inputs = [getattr(b, "name", b) for b in raw_inputs]  # NetInput objects or names
        blobs = list(self.inputs)
        for lay in self.layers:
            blobs.extend(lay.bottoms)
            blobs.extend(lay.tops)
        for b in blobs:
            for k in name_variants(b):
                self.blob_by_key.setdefault(k, b)
        try:
            shapes = graph.blob_shapes() if hasattr(graph, "blob_shapes") else {}
        except Exception:  # noqa: BLE001 - shape inference is best effort
            shapes = {}
        self.shapes: dict[str, tuple[int, ...] | None] = dict(shapes or {})
        self.index = {lay.name: i for i, lay in enumerate(self.layers)}

    def layer(self, key: str):
        for k in name_variants(key):
            if k in self.layer_by_key:
                return self.layer_by_key[k]
        return None

    def blob(self, key: str) -> str | None:
        for k in name_variants(key):
            if k in self.blob_by_key:
                return self.blob_by_key[k]
        return None

    def chain(self, blob: str) -> list:
        """Layers writing ``blob`` (producer first, then in-place members)."""
        return self.writers.get(blob, [])

    def blob_order(self, blob: str) -> float:
        ws = self.writers.get(blob)
        if not ws:
            return -1.0  # network input
        return float(self.index[ws[-1].name])

    def layer_order(self, lay) -> float:
        return float(self.index.get(lay.name, len(self.layers)))

    def expected_chw(self, blob: str | None) -> tuple[int, ...] | None:
        if blob is None:
            return None
        sh = self.shapes.get(blob)
        if not sh:
            return None
        sh = tuple(int(x) for x in sh)
        if len(sh) >= 2 and sh[0] == 1:
            sh = sh[1:]
        return sh


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------
def _data_from_input_dumps(G: "_GraphView", sim: DumpSet, sim_out: list[DumpTensor],
                           notes: list[str]) -> list[DumpTensor]:
    """nnie_mapper has no data layer of its own: the preprocessed network input reaches the dumps
    as the first layer's dequantized *input* (`<layer>_input<id>_C_H_W_anti_quant.linear.float`).
    When no simulator output names a network input, use that dump as the data tensor."""
    out = list(sim_out)
    have = {G.blob(t.key) or t.key for t in out}
    for blob in G.inputs:
        if blob in have:
            continue
        for t in sim.tensors:
            if t.role != "input":
                continue
            lay = G.layer(t.key)
            if lay is not None and list(lay.bottoms) == [blob]:
                out.append(replace(t, key=normalize_name(blob), role="output"))
                notes.append(f"data blob {blob!r}: taken from the input dump of layer {lay.name!r} "
                             f"({os.path.basename(t.path)}), i.e. the data after the mapper's preprocessing")
                break
    return out


def _count(t: DumpTensor) -> int | None:
    """Element count without parsing values when possible."""
    n = t.size_hint()
    if n is not None and t.fmt in ("ruyi-caffe", "mapper-quant", "mapper-input", "npy", "npz", "bin"):
        return n
    try:
        if t.fmt in ("inst", "mapper-quant") and not t.header_skip:
            size = os.path.getsize(t.path)
            with open(t.path, "rb") as f:
                head = f.read(9)
            if len(head) == 9 and head[8:9] == b"\n" and size % 9 == 0:
                return size // 9
            if size < 9 and head.strip():
                return 1
        return int(np.asarray(t.load_raw()).size)
    except (OSError, ValueError):
        return n


def _sample_idx(n: int) -> np.ndarray:
    if n <= _SAMPLE:
        return np.arange(n)
    rng = np.random.default_rng(n)
    return np.sort(rng.choice(n, size=_SAMPLE, replace=False))


def _perm_idx(idx: np.ndarray, chw: tuple[int, ...]) -> np.ndarray:
    """For CHW flat indices, the flat index of the same element in an (H, W, C)-ordered buffer."""
    c, h, w = chw
    ci, rem = np.divmod(idx, h * w)
    hi, wi = np.divmod(rem, w)
    return (hi * w + wi) * c + ci


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    ok = np.isfinite(a) & np.isfinite(b)
    a, b = a[ok], b[ok]
    na, nb = float(np.dot(a, a)), float(np.dot(b, b))
    if na == 0 and nb == 0:
        return 1.0
    if na == 0 or nb == 0:
        return 0.0
    return float(np.dot(a, b) / math.sqrt(na * nb))


def _chw3(shape: tuple[int, ...] | None) -> tuple[int, int, int] | None:
    if not shape:
        return None
    sh = tuple(int(x) for x in shape)
    if len(sh) == 4 and sh[0] == 1:
        sh = sh[1:]
    if len(sh) == 3 and sh[0] > 1 and sh[1] * sh[2] > 1:
        return sh  # type: ignore[return-value]
    return None


def _layout_check(ref_flat: np.ndarray, sim_flat: np.ndarray, chw: tuple[int, int, int] | None) -> tuple[float, float | None]:
    """Cosine as stored and, for 3-D tensors, with the sim read as (H, W, C)."""
    n = ref_flat.size
    idx = _sample_idx(n)
    r = np.asarray(ref_flat[idx], dtype=np.float64)
    direct = _cos(r, np.asarray(sim_flat[idx], dtype=np.float64))
    if chw is None:
        return direct, None
    perm = _cos(r, np.asarray(sim_flat[_perm_idx(idx, chw)], dtype=np.float64))
    return direct, perm


# --------------------------------------------------------------------------------------------
# align
# --------------------------------------------------------------------------------------------
@dataclass
class _Draft:
    sim: DumpTensor
    ref: DumpTensor | None = None
    layer: object = None
    blob: str | None = None
    matched_by: str = "name"
    confidence: float = 0.0
    notes: list = field(default_factory=list)
    flags: list = field(default_factory=list)
    order: float = math.inf
    layout: str = "CHW"
    value_cosine: float | None = None


def align(
    ref: DumpSet,
    sim: DumpSet,
    graph=None,
    dot=None,
    *,
    value_check: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> Alignment:
    """Pair reference and simulator output tensors (see the module docstring for the stages).

    ``graph``: a prototxt NetGraph (layers, inputs, blob_shapes()); ``dot``: a
    :class:`~nnie_lsp.triage.dot.DotGraph`; ``value_check``: load tensors to confirm layouts and to
    resolve same-shape ambiguities (memory: one tensor pair at a time, plus 4096-value samples).
    Returned pairs hold both sides, in network order; unmatched tensors are listed."""
    G = _GraphView(graph) if graph is not None else None
    notes: list[str] = []
    ref_out = [t for t in ref.tensors if t.role == "output"]
    sim_out = [t for t in sim.tensors if t.role == "output"]
    if G is not None:  # ambiguous name splits (conv1_1_64_56_56.bin): take the reading the graph knows
        fixed = []
        for t in sim_out:
            if t.alt_keys and G.layer(t.key) is None and G.blob(t.key) is None:
                for alt in t.alt_keys:
                    if G.layer(alt) is not None or G.blob(alt) is not None:
                        t = replace(t, key=alt, alt_keys=(t.key,) + tuple(a for a in t.alt_keys if a != alt))
                        break
            fixed.append(t)
        sim_out = fixed
    if G is not None:
        sim_out = _data_from_input_dumps(G, sim, sim_out, notes)
    n_in = sum(1 for t in sim.tensors if t.role == "input" and t not in sim_out)
    if n_in:
        notes.append(f"{n_in} simulator input dump(s) (layer inputs) are not paired; they serve isolated per-layer checks")

    # --- reference: one tensor per blob (lowest batch item) -----------------------------------
    unmatched_ref: list[DumpTensor] = []
    by_key: dict[str, list[DumpTensor]] = {}
    for t in ref_out:
        by_key.setdefault(t.key, []).append(t)
    ref_primary: dict[str, DumpTensor] = {}
    extra_items = 0
    for k, ts in by_key.items():
        ts = sorted(ts, key=lambda t: t.index)
        ref_primary[k] = ts[0]
        extra_items += len(ts) - 1
        unmatched_ref.extend(ts[1:])
    if extra_items:
        notes.append(
            f"reference holds several batch items for some blobs; item {min(t.index for t in ref_primary.values())} "
            f"is compared ({extra_items} other item(s) listed as unmatched) — mapper_quant dumps only the last calibration image"
        )
    # blob -> reference tensor
    ref_for_blob: dict[str, DumpTensor] = {}
    ref_blob_of: dict[int, str] = {}
    for k, t in ref_primary.items():
        blob = None
        if G is not None:
            blob = G.blob(t.key)
            if blob is None:
                for alt in t.alt_keys:
                    blob = G.blob(alt)
                    if blob:
                        break
            if blob is None:
                lay = G.layer(t.key)
                if lay is not None and lay.tops:
                    blob = lay.tops[min(t.index, len(lay.tops) - 1)] if len(lay.tops) > 1 else lay.tops[0]
        if blob is None:
            blob = t.key
        if blob in ref_for_blob:
            prev = ref_for_blob[blob]
            # prefer the file named exactly like the blob
            if normalize_name(blob) == t.key and normalize_name(blob) != prev.key:
                unmatched_ref.append(prev)
            else:
                unmatched_ref.append(t)
                continue
        ref_for_blob[blob] = t
        ref_blob_of[id(t)] = blob
    ref_key_index: dict[str, str] = {}
    for blob, t in ref_for_blob.items():
        for v in name_variants(t.key):
            ref_key_index.setdefault(v, blob)

    used_ref: set[int] = set()
    drafts: list[_Draft] = []
    pending: list[DumpTensor] = []

    # --- stage 1: names (through the graph when given) -----------------------------------------
    sim_by_layer: dict[str, list[DumpTensor]] = {}
    if G is not None:
        for t in sim_out:
            lay = G.layer(t.key)
            if lay is not None:
                sim_by_layer.setdefault(lay.name, []).append(t)
    sim_layers_with_dump = set(sim_by_layer)

    for t in sim_out:
        if t.fmt == "inst" and t.seg is not None and t.key.startswith("seg"):
            pending.append(t)
            continue
        d = _Draft(sim=t)
        if G is not None:
            lay = G.layer(t.key)
            if lay is not None and lay.tops:
                outs = sorted(sim_by_layer.get(lay.name, [t]), key=lambda x: x.index)
                pos = outs.index(t) if t in outs else 0
                if len(lay.tops) > 1:
                    blob = lay.tops[min(pos, len(lay.tops) - 1)]
                    if len(outs) > 1:
                        d.notes.append(f"output {t.index} of {len(outs)} taken as top {blob!r} (ids in ascending order)")
                else:
                    blob = lay.tops[0]
                d.layer, d.blob = lay, blob
                d.order = G.layer_order(lay)
                d.matched_by = "name" if normalize_name(blob) == t.key else "graph"
                d.confidence = 1.0 if t.key == normalize_name(lay.name) else 0.95
                chain = G.chain(blob)
                target_blob = blob
                # in-place chain: the Caffe blob holds the LAST member's value
                if len(chain) > 1 and lay in chain:
                    after = chain[chain.index(lay) + 1 :]
                    dumped_after = [m for m in after if m.name in sim_layers_with_dump]
                    if dumped_after:
                        d.flags.append("inplace-intermediate")
                        d.confidence = 0.6
                        d.notes.append(
                            f"in-place chain on blob {blob!r}: the Caffe dump holds the value after {chain[-1].name!r}, "
                            f"this is {lay.name!r}'s own output (the mapper splits in-place layers) — a dip here is expected"
                        )
                    elif after:
                        d.flags.append("fused-chain")
                        d.notes.append(
                            f"in-place layers after it ({', '.join(m.name for m in after)}) have no simulator dump: "
                            f"taken as fused into {lay.name!r} by the mapper"
                        )
                # conv followed by non-in-place BN/Scale without sim dumps -> folded (conv_fold)
                if lay.type in ("Convolution", "Deconvolution", "InnerProduct", "DepthwiseConv", "ConvolutionDepthwise"):
                    cur = target_blob
                    folded = []
                    while True:
                        cons = G.consumers.get(cur, [])
                        nxt = [c for c in cons if c.type in FOLDABLE_TYPES and c.name not in sim_layers_with_dump
                               and c.tops and c.tops[0] != cur]
                        if len(cons) != 1 or len(nxt) != 1:
                            break
                        folded.append(nxt[0])
                        cur = nxt[0].tops[0]
                    if folded and cur in ref_for_blob:
                        target_blob = cur
                        d.blob = cur
                        d.flags.append("folded-bn")
                        d.confidence = min(d.confidence, 0.85)
                        d.matched_by = "graph"
                        d.notes.append(
                            f"{', '.join(f.name for f in folded)} folded into {lay.name!r} by the mapper (conv_fold): "
                            f"compared with the Caffe blob {cur!r}"
                        )
                r = ref_for_blob.get(target_blob)
                if r is not None:
                    d.ref = r
                    drafts.append(d)
                    continue
                d.notes.append(f"no reference dump for blob {target_blob!r}")
            else:
                blob = G.blob(t.key)
                if blob is not None and blob in ref_for_blob:
                    ws = G.chain(blob)
                    d.blob = blob
                    d.layer = ws[-1] if ws else None
                    d.order = G.blob_order(blob)
                    d.ref = ref_for_blob[blob]
                    d.matched_by = "name"
                    d.confidence = 0.95
                    drafts.append(d)
                    continue
        else:
            blob = None
            for v in name_variants(t.key) + tuple(t.alt_keys):
                if v in ref_key_index:
                    blob = ref_key_index[v]
                    break
            if blob is not None:
                d.blob = blob
                d.ref = ref_for_blob[blob]
                d.matched_by = "name"
                d.confidence = 0.9 if t.key == d.ref.key else 0.8
                if t.key != d.ref.key:
                    d.notes.append(f"names match loosely ({t.raw_name!r} ~ {d.ref.raw_name!r})")
                drafts.append(d)
                continue
        pending.append(t)

    # size sanity for name pairs (never pair different sizes)
    kept: list[_Draft] = []
    for d in drafts:
        ns, nr = _count(d.sim), _count(d.ref)
        if ns is not None and nr is not None and ns != nr:
            notes.append(
                f"{d.sim.label} matches {d.ref.label} by name but holds {ns} values vs {nr}: not paired"
            )
            pending.append(d.sim)
            continue
        kept.append(d)
    drafts = kept
    # several sim tensors on one ref (in-place intermediates) are allowed; mark refs used
    for d in drafts:
        used_ref.add(id(d.ref))

    # --- stage 2: dot evidence ------------------------------------------------------------------
    if dot is not None and pending:
        still: list[DumpTensor] = []
        dot_keys = dot.by_key()
        dot_nums = dot.by_number()
        used_dot = []
        for t in pending:
            node = None
            how = ""
            if t.fmt == "inst" and t.node is not None and t.node in dot_nums:
                node = dot_nums[t.node]
                how = f"dot node {node.id!r} carries number {t.node}"
            elif t.key in dot_keys:
                node = dot_keys[t.key]
                how = f"dot node {node.id!r} named {node.name!r}"
            if node is None:
                still.append(t)
                continue
            blob = None
            lay = None
            if G is not None and node.name:
                lay = G.layer(node.name)
                if lay is not None and lay.tops:
                    blob = lay.tops[0]
                elif G.blob(node.name):
                    blob = G.blob(node.name)
            if blob is None and G is not None:
                # a mapper-internal node feeding known layers: it produces their rewritten bottom
                for sid in dot.successors(node.id):
                    sn = dot.nodes.get(sid)
                    sl = G.layer(sn.name) if sn and sn.name else None
                    if sl is None:
                        continue
                    for b in sl.bottoms:
                        ws = G.chain(b)
                        if ws and all(w.name not in dot_keys and normalize_name(w.name) not in dot_keys for w in ws):
                            blob, lay = b, ws[-1]
                            how += f", feeds {sl.name!r} whose bottom {b!r} has no dot node (rewritten)"
                            break
                    if blob:
                        break
            if blob is None and G is None and node.name:
                for v in name_variants(node.name):
                    if v in ref_key_index:
                        blob = ref_key_index[v]
                        break
            r = ref_for_blob.get(blob) if blob else None
            if r is None:
                still.append(t)
                if blob is None and not dot.successors(node.id) and G is not None:
                    notes.append(f"{t.label}: {how}, but it maps to no Caffe blob (mapper-internal node)")
                continue
            ns, nr = _count(t), _count(r)
            if ns is not None and nr is not None and ns != nr:
                still.append(t)
                notes.append(f"{t.label}: {how}, but sizes differ from {r.label} ({ns} vs {nr}); not paired")
                continue
            d = _Draft(sim=t, ref=r, layer=lay, blob=blob, matched_by="dot", confidence=0.8)
            d.order = G.blob_order(blob) if G is not None else math.inf
            d.notes.append(how)
            if node.merged_ops and "Permute" in node.merged_ops:
                d.flags.append("dot-permute")
                d.notes.append("dot says Permute was merged into this node")
            drafts.append(d)
            used_ref.add(id(r))
            used_dot.append(node.id)
        pending = still
        notes.append(f"cnn_net_tree.dot used: {dot.describe()}; {len(used_dot)} pair(s) from it")

    # --- stage 3: shape / order / values ---------------------------------------------------------
    free_refs = [t for t in ref_for_blob.values() if id(t) not in used_ref]
    if pending and free_refs:
        drafts.extend(_match_by_values(pending, free_refs, ref_blob_of, G, value_check, notes, used_ref))
    matched_sims = {id(d.sim) for d in drafts}
    unmatched_sim = [t for t in sim_out if id(t) not in matched_sims]

    # --- layout checks (Permute / W_H_C) and expected shapes -----------------------------------
    total = len(drafts)
    pairs: list[AlignedPair] = []
    for i, d in enumerate(drafts):
        if progress:
            progress(i, total)
        pairs.append(_finish(d, G, value_check))
    if progress:
        progress(total, total)

    # order
    if G is None:
        mt = {}
        for p in pairs:
            try:
                mt[id(p)] = os.path.getmtime(p.ref.path)
            except OSError:
                mt[id(p)] = 0.0
        if dot is not None:
            pos = {dot.nodes[n].key: i for i, n in enumerate(dot.topo_order()) if dot.nodes[n].key}
            key = lambda p: (pos.get(p.sim.key, math.inf), mt[id(p)], p.name)  # noqa: E731
            notes.append("network order taken from cnn_net_tree.dot (no prototxt)")
        else:
            key = lambda p: (p.order, mt[id(p)], p.sim.seg or 0, p.sim.node or 0, p.name)  # noqa: E731
            notes.append("no prototxt: network order approximated by the reference files' write times")
        pairs.sort(key=key)
    else:
        pairs.sort(key=lambda p: (p.order, 0 if "inplace-intermediate" in p.flags else 1, p.name))
    pairs = [replace(p, order=i) for i, p in enumerate(pairs)]

    used_after = {id(p.ref) for p in pairs}
    unmatched_ref.extend(t for t in ref_for_blob.values() if id(t) not in used_after)
    low = [p for p in pairs if p.confidence < 0.5]
    if low:
        notes.append(f"{len(low)} pair(s) with low confidence (< 0.5): " + ", ".join(p.name for p in low[:6]))
    if unmatched_sim:
        notes.append(f"{len(unmatched_sim)} simulator tensor(s) unmatched")
    if unmatched_ref:
        notes.append(f"{len(unmatched_ref)} reference tensor(s) unmatched")
    return Alignment(pairs=tuple(pairs), unmatched_ref=tuple(unmatched_ref), unmatched_sim=tuple(unmatched_sim), notes=tuple(notes))


def _match_by_values(pending, free_refs, ref_blob_of, G, value_check, notes, used_ref) -> list[_Draft]:
    """One-to-one matching of unnamed sim tensors to free reference tensors by size, then values."""
    out: list[_Draft] = []
    rsize = {id(r): _count(r) for r in free_refs}
    groups: dict[int, tuple[list, list]] = {}
    for s in pending:
        n = _count(s)
        if n is None:
            continue
        groups.setdefault(n, ([], []))[0].append(s)
    for r in free_refs:
        n = rsize[id(r)]
        if n in groups:
            groups[n][1].append(r)

    def ref_order(r):
        b = ref_blob_of.get(id(r), r.key)
        return G.blob_order(b) if G is not None else 0.0

    def ref_chw(r):
        b = ref_blob_of.get(id(r), r.key)
        exp = G.expected_chw(b) if G is not None else None
        return _chw3(exp) or _chw3(r.shape)

    order_pairs: list[tuple[float, float]] = []
    for n, (sims, refs) in groups.items():
        if not refs:
            continue
        sims = sorted(sims, key=lambda s: (s.seg or 0, s.node or 0, s.key))
        refs = sorted(refs, key=ref_order)
        if len(sims) == 1 and len(refs) == 1 and not value_check:
            s, r = sims[0], refs[0]
            d = _Draft(sim=s, ref=r, blob=ref_blob_of.get(id(r)), matched_by="shape-order", confidence=0.7)
            d.notes.append(f"only tensor pair holding {n} values")
            out.append(d)
            continue
        if not value_check:
            k = min(len(sims), len(refs))
            for i in range(k):
                s, r = sims[i], refs[i]
                d = _Draft(sim=s, ref=r, blob=ref_blob_of.get(id(r)), matched_by="shape-order", confidence=0.3)
                d.flags.append("index-guess")
                d.notes.append(
                    f"paired by position {i + 1} of {len(sims)} simulator / {len(refs)} reference tensors holding {n} values "
                    "(no value check): low confidence"
                )
                out.append(d)
            continue
        # value fingerprints on a fixed sample (same positions for the whole group)
        idx = _sample_idx(n)
        rs = []
        for r in refs:
            a = np.asarray(r.load_raw()).reshape(-1)
            rs.append(np.asarray(a[idx], dtype=np.float64))
            del a
        ss = []
        for s in sims:
            a = np.asarray(s.load_raw()).reshape(-1)
            direct = np.asarray(a[idx], dtype=np.float64)
            perms = {}
            for r in refs:
                chw = ref_chw(r)
                if chw is not None and chw not in perms:
                    perms[chw] = np.asarray(a[_perm_idx(idx, chw)], dtype=np.float64)
            ss.append((direct, perms))
            del a
        gc.collect()
        score = np.full((len(sims), len(refs)), -2.0)
        lay = np.zeros((len(sims), len(refs)), dtype=bool)
        for i, (direct, perms) in enumerate(ss):
            for j, r in enumerate(refs):
                c = _cos(rs[j], direct)
                chw = ref_chw(r)
                if chw is not None:
                    cp = _cos(rs[j], perms[chw])
                    if cp > c + 0.05:
                        c, lay[i, j] = cp, True
                score[i, j] = c
        # greedy one-to-one by best score; confidence from the margin to the runner-up
        taken_s, taken_r = set(), set()
        cand = sorted(((score[i, j], i, j) for i in range(len(sims)) for j in range(len(refs))), reverse=True)
        for sc, i, j in cand:
            if i in taken_s or j in taken_r:
                continue
            taken_s.add(i)
            taken_r.add(j)
            others = [score[i, jj] for jj in range(len(refs)) if jj != j] + [score[ii, j] for ii in range(len(sims)) if ii != i]
            runner = max(others) if others else -1.0
            s, r = sims[i], refs[j]
            d = _Draft(sim=s, ref=r, blob=ref_blob_of.get(id(r)), value_cosine=float(sc))
            if len(refs) == 1 and len(sims) == 1:
                d.matched_by = "shape-order"
                d.confidence = 0.8 if sc >= 0.9 else (0.6 if sc >= 0.5 else 0.45)
                d.notes.append(f"only tensor pair holding {n} values (sample cosine {sc:.4f})")
            else:
                margin = sc - runner
                d.matched_by = "values"
                d.confidence = float(np.clip(0.5 + 0.45 * margin / 0.1, 0.2, 0.95)) if sc > 0.5 else 0.25
                d.notes.append(
                    f"value correlation: sample cosine {sc:.4f} vs runner-up {runner:.4f} among {len(refs)} reference / "
                    f"{len(sims)} simulator tensors of {n} values"
                )
                if margin < 0.01:
                    d.flags.append("index-guess")
                    d.notes.append("values do not separate the candidates: an order-level guess, low confidence")
                    d.confidence = min(d.confidence, 0.3)
            if lay[i, j]:
                d.layout = "HWC"
            if s.node is not None and G is not None:
                order_pairs.append((float(s.seg or 0) * 1e9 + float(s.node), ref_order(r)))
            out.append(d)
        del rs, ss
    if len(order_pairs) >= 3:
        a = np.array(order_pairs)
        ra = np.argsort(np.argsort(a[:, 0]))
        rb = np.argsort(np.argsort(a[:, 1]))
        rho = float(np.corrcoef(ra, rb)[0, 1]) if np.std(ra) and np.std(rb) else 0.0
        if rho >= 0.9:
            notes.append(f"instruction-simulator node ids follow the network order (rank correlation {rho:.2f})")
            for d in out:
                if d.matched_by == "values" and "index-guess" not in d.flags:
                    d.confidence = min(0.95, d.confidence + 0.05)
        else:
            notes.append(f"instruction-simulator node ids do not follow the network order (rank correlation {rho:.2f}); order not used")
    for d in out:
        used_ref.add(id(d.ref))
        if G is not None and d.blob is not None:
            ws = G.chain(d.blob)
            d.layer = ws[-1] if ws else None
            d.order = G.blob_order(d.blob)
    return out


def _finish(d: _Draft, G, value_check: bool) -> AlignedPair:
    lay = d.layer
    ltype = getattr(lay, "type", None) if lay is not None else None
    exp = G.expected_chw(d.blob) if G is not None else None
    if exp is None and d.ref is not None and d.ref.shape:
        exp = tuple(d.ref.shape)
    # name dims order (mapper_quant C_H_W vs W_H_C)
    if d.sim.fmt == "mapper-quant" and d.sim.shape and exp is not None and len(d.sim.shape) == 3:
        sh = tuple(d.sim.shape)
        if sh != tuple(exp) and tuple(reversed(sh)) == tuple(exp):
            d.flags.append("whc-name")
            d.notes.append(f"name dims {'_'.join(map(str, sh))} read as W_H_C (prototxt/Caffe shape {exp})")
    chw = _chw3(exp)
    suspect = ltype in PERMUTE_TYPES or "dot-permute" in d.flags or (G is None and chw is not None)
    if value_check and chw is not None and d.value_cosine is None and (suspect or d.layout == "HWC"):
        r = np.asarray(d.ref.load_raw()).reshape(-1)
        s = np.asarray(d.sim.load_raw()).reshape(-1)
        if r.size == s.size:
            direct, perm = _layout_check(r, s, chw)
            d.value_cosine = direct
            if perm is not None and perm > direct + 0.05 and perm > 0.5:
                d.layout = "HWC"
                d.value_cosine = perm
        del r, s
    if d.layout == "HWC":
        d.flags.append("permute-layout")
        why = f"mapper Permute before {ltype}" if ltype in PERMUTE_TYPES else (
            "dot shows a merged Permute" if "dot-permute" in d.flags else "unexpected for this layer type")
        d.notes.append(f"simulator values are in (H, W, C) order ({why}); compared after transposing to C, H, W")
    elif ltype in PERMUTE_TYPES and chw is not None:
        d.notes.append(f"{ltype} sits behind a mapper Permute; (C, H, W) order fits the values better than (H, W, C)"
                       if value_check else f"{ltype} sits behind a mapper Permute; layout not checked (value check off)")
    return AlignedPair(
        layer=getattr(lay, "name", None) if lay is not None else None,
        blob=d.blob,
        ref=d.ref,
        sim=d.sim,
        matched_by=d.matched_by,
        confidence=round(float(d.confidence), 3),
        note="; ".join(dict.fromkeys(d.notes)) or None,
        order=int(d.order) if math.isfinite(d.order) else 10**9,
        layout=d.layout,
        flags=tuple(dict.fromkeys(d.flags)),
        expected_shape=tuple(exp) if exp is not None else None,
        layer_type=ltype,
        value_cosine=d.value_cosine,
    )


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
    if exp is not None and r.size == int(np.prod(exp)):
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


def iter_pairs(alignment: Alignment, *, progress: bool | Callable[[int, int, str], None] = False) -> Iterator[tuple[AlignedPair, np.ndarray, np.ndarray]]:
    """Yield ``(pair, ref_array, sim_array)`` one pair at a time; arrays are dropped before the
    next pair is loaded, so peak memory is bounded by the largest single pair."""
    pairs = alignment.pairs
    bar = None
    cb = progress if callable(progress) else None
    if progress is True:
        from .progress import ProgressBar

        bar = ProgressBar(len(pairs), "comparing layers")
    try:
        for i, p in enumerate(pairs):
            if cb:
                cb(i, len(pairs), p.name)
            if bar:
                bar.advance(p.name)
            r, s, _ = load_pair(p)
            yield p, r, s
            del r, s
    finally:
        if bar:
            bar.close()

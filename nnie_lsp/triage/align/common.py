"""What the alignment passes share: the pair records (:class:`AlignedPair`, :class:`Alignment`), a
pass's working record (:class:`Draft`) and result (:class:`PassResult`), the dump-name keys
(:func:`name_variants`, with which the passes look layers and blobs up in the prototxt's
:class:`~nnie_lsp.readers.prototxt.graph.NetGraph`), the reference table (one reference tensor per blob)
and the value-sampling helpers.

The passes themselves: :mod:`.names`, :mod:`.dot_nodes`, :mod:`.values` (and the ``layer<N>_``
prefixes, :mod:`.positions`); the driver that runs them in order: :mod:`.driver`.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from nnie_lsp.core import safe_io
from nnie_lsp.readers.dumpio.forms import form_of
from nnie_lsp.readers.dumpio.names import normalize_name
from nnie_lsp.readers.dumpio.tensor import DumpTensor
from nnie_lsp.readers.prototxt.layers import permute_inserting_types
from nnie_lsp.triage.measure.metrics import cosine
from nnie_lsp.triage.align.keys import name_variants

if TYPE_CHECKING:
    from nnie_lsp.readers.prototxt.graph import NetGraph

__all__ = [
    "AlignedPair",
    "Alignment",
    "Draft",
    "PassResult",
    "ReferenceTable",
    "PERMUTE_TYPES",
    "FOLDABLE_TYPES",
    "name_variants",
    "value_count",
    "sample_positions",
    "hwc_positions",
    "chw_of",
    "sample_cosine",
    "sample_cosines",
]

# layer types the mapper puts a Permute node next to (Upsample, ROIPooling, PSROIPooling, Normalize;
# docs/field-facts.md §16.2): their dumps get a value check of the (H, W, C) reading
PERMUTE_TYPES = frozenset(permute_inserting_types())
FOLDABLE_TYPES = frozenset({"BatchNorm", "Scale", "BN", "Bias"})
SAMPLE_SIZE = 4096


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
    #                               whc-name, index-guess, batch-item, flattened, permute-output,
    #                               mapper-inserted, report-node
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

@dataclass
class Draft:
    """A simulator tensor paired by a pass, before the layout checks turn it into an AlignedPair."""

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


@dataclass
class PassResult:
    """What a pass hands on: the pairs it made, the simulator tensors left for the next pass, and
    notes about the whole alignment (per-pair notes live on the drafts)."""

    drafts: list[Draft] = field(default_factory=list)
    pending: list[DumpTensor] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------------------------
# reference table
# --------------------------------------------------------------------------------------------
@dataclass
class ReferenceTable:
    """The reference side as the passes see it: one tensor per blob (lowest batch item), the blob
    each tensor stands for, and a name-variant index for matching without a graph."""

    for_blob: dict[str, DumpTensor]
    blob_of: dict[int, str]  # id(tensor) -> blob
    key_index: dict[str, str]  # name variant -> blob
    unmatched: list[DumpTensor]  # other batch items, duplicates
    notes: list[str]

    @classmethod
    def build(cls, ref_out: list[DumpTensor], graph: NetGraph | None,
              prefixed_blobs: dict[int, str] | None = None) -> ReferenceTable:
        """``prefixed_blobs``: the blob of each ``layer<N>_``-prefixed tensor (by ``id``) whose
        prefix the graph confirmed (:mod:`.positions`); other prefixed tensors keep their
        full name."""
        unmatched: list[DumpTensor] = []
        notes: list[str] = []
        by_key: dict[str, list[DumpTensor]] = {}
        for t in ref_out:
            by_key.setdefault(t.key, []).append(t)
        primary: dict[str, DumpTensor] = {}
        extra_items = 0
        for k, ts in by_key.items():
            ts = sorted(ts, key=lambda t: t.index)
            primary[k] = ts[0]
            extra_items += len(ts) - 1
            unmatched.extend(ts[1:])
        if extra_items:
            notes.append(
                f"reference holds several batch items for some blobs; item {min(t.index for t in primary.values())} "
                f"is compared ({extra_items} other item(s) listed as unmatched) — mapper_quant dumps only the last calibration image"
            )
        for_blob: dict[str, DumpTensor] = {}
        blob_of: dict[int, str] = {}
        for t in primary.values():
            blob = (prefixed_blobs or {}).get(id(t)) or cls._blob_for(t, graph)
            if blob in for_blob:
                prev = for_blob[blob]
                # prefer the file named exactly like the blob
                if normalize_name(blob) == t.key and normalize_name(blob) != prev.key:
                    unmatched.append(prev)
                else:
                    unmatched.append(t)
                    continue
            for_blob[blob] = t
            blob_of[id(t)] = blob
        key_index: dict[str, str] = {}
        for blob, t in for_blob.items():
            for v in name_variants(t.key):
                key_index.setdefault(v, blob)
        return cls(for_blob=for_blob, blob_of=blob_of, key_index=key_index, unmatched=unmatched, notes=notes)

    @staticmethod
    def _blob_for(t: DumpTensor, graph: NetGraph | None) -> str:
        if graph is None:
            return t.key
        # a ``layer<N>_`` name reaches here when the graph did not confirm N: never stripped
        alternatives = () if t.position is not None else t.alt_keys
        blob = graph.find_blob(t.key, name_variants)
        if blob is None:
            for alt in alternatives:
                blob = graph.find_blob(alt, name_variants)
                if blob:
                    break
        # dumps named by layer
        for key in (t.key, *alternatives):
            if blob is not None:
                break
            lay = graph.find_layer(key, name_variants)
            if lay is not None and lay.tops:
                blob = lay.tops[min(t.index, len(lay.tops) - 1)] if len(lay.tops) > 1 else lay.tops[0]
        return t.key if blob is None else blob


# --------------------------------------------------------------------------------------------
# values on samples
# --------------------------------------------------------------------------------------------
def value_count(t: DumpTensor) -> int | None:
    """Element count without parsing values when possible."""
    n = (math.prod(t.shape) if t.shape else 1) if t.shape is not None else None   # t.size_hint(), cheaper
    form = form_of(t.fmt)
    if n is not None and form.count_from_name:
        return n
    try:
        if form.numbers == "hex" and not t.header_skip:
            size = os.path.getsize(t.path)
            head = safe_io.read_head(t.path, 9, safe_io.DUMP)  # regular files only
            if len(head) == 9 and head[8:9] == b"\n" and size % 9 == 0:
                return size // 9
            if size < 9 and head.strip():
                return 1
        return int(np.asarray(t.load_raw()).size)
    except (OSError, ValueError):
        return n


def sample_positions(n: int) -> np.ndarray:
    """At most SAMPLE_SIZE sorted flat positions, the same for every tensor of ``n`` values."""
    if n <= SAMPLE_SIZE:
        return np.arange(n)
    rng = np.random.default_rng(n)
    return np.sort(rng.choice(n, size=SAMPLE_SIZE, replace=False))


def hwc_positions(idx: np.ndarray, chw: tuple[int, ...]) -> np.ndarray:
    """For CHW flat indices, the flat index of the same element in an (H, W, C)-ordered buffer."""
    c, h, w = chw
    ci, rem = np.divmod(idx, h * w)
    hi, wi = np.divmod(rem, w)
    return (hi * w + wi) * c + ci


def chw_of(shape: tuple[int, ...] | None) -> tuple[int, int, int] | None:
    """The (C, H, W) of a shape that has a real channel and spatial extent (N = 1 dropped)."""
    if not shape:
        return None
    sh = tuple(int(x) for x in shape)
    if len(sh) == 4 and sh[0] == 1:
        sh = sh[1:]
    if len(sh) == 3 and sh[0] > 1 and sh[1] * sh[2] > 1:
        return sh  # type: ignore[return-value]
    return None


def sample_cosine(a: np.ndarray, b: np.ndarray) -> float:
    """:func:`~nnie_lsp.triage.measure.metrics.cosine` of two value samples. A sample with no finite
    element on both sides says nothing about the pairing and scores 1.0, like two all-zero samples
    (the metrics then report the NaN / Inf counts of the pair)."""
    value = cosine(a, b)
    return 1.0 if math.isnan(value) else value


def _unit_rows(m: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row scaled to unit length (by its max |x| first, as :func:`cosine` does, so that no
    magnitude under- or overflows); the rows that are all zero; the rows with a non-finite value."""
    bad = ~np.isfinite(m).all(axis=1)
    work = np.where(bad[:, None], 0.0, m)
    peak = np.max(np.abs(work), axis=1) if work.shape[1] else np.zeros(work.shape[0])
    zero = (peak == 0) & ~bad
    scaled = work / np.where(peak > 0, peak, 1.0)[:, None]
    norm = np.sqrt(np.einsum("ij,ij->i", scaled, scaled))
    return scaled / np.where(norm > 0, norm, 1.0)[:, None], zero, bad


def sample_cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:func:`sample_cosine` of every row of `a` with every row of `b` (same sample positions), as
    one matrix product: ``out[i, j] == sample_cosine(a[i], b[j])`` up to rounding.  Rows holding a
    non-finite value (their pairs keep only the finite elements of both) go through
    :func:`sample_cosine` one pair at a time."""
    a = np.asarray(a, dtype=np.float64).reshape(len(a), -1)
    b = np.asarray(b, dtype=np.float64).reshape(len(b), -1)
    if a.shape[1] == 0:
        return np.ones((len(a), len(b)))
    ua, za, bad_a = _unit_rows(a)
    ub, zb, bad_b = _unit_rows(b)
    out = np.clip(ua @ ub.T, -1.0, 1.0)
    out[za, :] = 0.0
    out[:, zb] = 0.0
    out[np.ix_(za, zb)] = 1.0
    for i in np.flatnonzero(bad_a):
        out[i, :] = [sample_cosine(a[i], row) for row in b]
    for j in np.flatnonzero(bad_b):
        out[:, j] = [sample_cosine(row, b[j]) for row in a]
    return out

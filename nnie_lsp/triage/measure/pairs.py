"""The per-layer rows of an alignment: each aligned pair loaded, measured
(:func:`~nnie_lsp.triage.measure.metrics.compare_arrays`) and placed in the net (its chain's head,
in-place members, producers, data and output ends) -- :func:`build_rows`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Callable

import numpy as np

from nnie_lsp.readers.prototxt.nnie_ends import nnie_ends
from nnie_lsp.triage.measure.metrics import Thresholds, compare_arrays
from nnie_lsp.triage.measure.rows import LayerRow
from nnie_lsp.triage.progress import Reporter

if TYPE_CHECKING:
    from nnie_lsp.readers.prototxt.graph import GraphLayer, NetGraph


def tensor_name(t) -> str:
    if t is None:
        return "?"
    return getattr(t, "raw_name", None) or getattr(t, "key", None) or str(t)


def _expected_shape(ref_arr: np.ndarray) -> tuple[int, ...]:
    shp = tuple(ref_arr.shape)
    while len(shp) > 3 and shp[0] == 1:
        shp = shp[1:]
    return shp


def build_rows(alignment, graph: NetGraph | None, keep_arrays: Callable[[LayerRow], bool] | None = None,
               progress: Reporter | None = None) -> tuple[list[LayerRow], list[str]]:
    rows: list[LayerRow] = []
    warnings: list[str] = []
    pairs = list(alignment.pairs)
    blob_to_row: dict[str, str] = {}
    end_blobs = nnie_ends(graph) if graph is not None else frozenset()
    for i, pair in enumerate(pairs):
        ref_t, sim_t = pair.ref, pair.sim
        blob = getattr(pair, "blob", None)
        layer = getattr(pair, "layer", None)
        name = layer or blob or tensor_name(ref_t)
        if progress is not None:
            progress.step("measure", i, len(pairs), name)
        head_type = None
        inplace: list[tuple[str, str]] = []
        producers: list[str] = []
        is_data = False
        is_output = False
        if graph is not None:
            if blob is None and layer is not None:
                blob = graph.blob_of_layer(layer)
            chain = graph.chain_of(blob)
            if chain is not None:
                name, head_type = chain.head.name, _row_type(chain.head)
                inplace = [(member.name, _row_type(member)) for member in chain.inplace]
                producers = list(chain.head_bottoms)
            is_data = blob in graph.input_blobs
            is_output = blob in end_blobs
        else:
            key = (blob or name or "").lower()
            is_data = key in ("data", "input", "image", "img") or getattr(pair, "matched_by", "") == "data"
        if is_data:
            name = blob or name
        row = LayerRow(name=name, order=int(getattr(pair, "order", i) if getattr(pair, "order", None) is not None else i),
                       metrics=None, blob=blob, matched_by=str(getattr(pair, "matched_by", "")),
                       confidence=float(getattr(pair, "confidence", 0.0) or 0.0), is_data=is_data,
                       is_output=is_output, layer_type=head_type, producers=producers, inplace=inplace,
                       producer_type=head_type, note=getattr(pair, "note", None))
        if ref_t is None or sim_t is None:
            rows.append(row)
            continue
        try:
            from nnie_lsp.triage.align.driver import load_pair

            ref, sim, lnote = load_pair(pair)
            ref = np.asarray(ref, dtype=np.float64)
            sim = np.asarray(sim, dtype=np.float64)
            exp = _expected_shape(ref) if ref.ndim >= 1 else None
            # the values as stored, for a pair read in another layout only (each file read once)
            sim_raw = np.asarray(sim_t.load_raw(), dtype=np.float64).reshape(-1) \
                if (getattr(pair, "layout", "CHW") or "CHW") != "CHW" else None
        except Exception as exc:
            warnings.append(f"{name}: cannot load the pair ({type(exc).__name__}: {exc})")
            rows.append(row)
            continue
        if sim.size != ref.size:
            row.note = ((row.note + "; ") if row.note else "") + f"sizes differ: Caffe {ref.size}, NNIE {sim.size}"
            rows.append(row)
            continue
        refc = ref.reshape(exp) if exp else ref
        simc = sim.reshape(refc.shape)
        row.shape = tuple(int(s) for s in refc.shape)
        row.metrics = compare_arrays(refc, simc)
        if lnote and ("W_H_C" in lnote or "transposed" in lnote):
            row.note = ((row.note + "; ") if row.note else "") + lnote
        row.layout = getattr(pair, "layout", "CHW") or "CHW"
        row.flags = tuple(getattr(pair, "flags", ()) or ())
        if row.layer_type is None:
            row.layer_type = getattr(pair, "layer_type", None)
        if sim_raw is not None and sim_raw.size == refc.size:
            row.stored_cosine = compare_arrays(refc, sim_raw.reshape(refc.shape)).cosine
        if keep_arrays is None or keep_arrays(row):
            # reloaded on demand by the explanations: peak memory stays one tensor pair
            row.loader = _row_loader(pair, exp)
        del ref, sim, refc, simc, sim_raw
        rows.append(row)
        if blob:
            blob_to_row[blob] = row.name
    # producers: blob names -> row names
    for r in rows:
        r.producers = [blob_to_row.get(b, b) for b in r.producers]
    rows.sort(key=lambda r: r.order)
    return rows, warnings


def _row_loader(pair, exp):
    def load():
        from nnie_lsp.triage.align.driver import load_pair
        ref, sim, _ = load_pair(pair)
        ref = np.asarray(ref, dtype=np.float64)
        refc = ref.reshape(exp) if exp else ref
        simc = np.asarray(sim, dtype=np.float64).reshape(refc.shape)
        raw = np.asarray(pair.sim.load_raw(), dtype=np.float64).reshape(-1)
        return refc, simc, raw
    return load


def keep_for_explanations(th: Thresholds) -> Callable[[LayerRow], bool]:
    """Which rows keep a loader of their pair for the explanations: the data and output rows, and
    those whose cosine is below the middle-dip threshold (or not finite)."""
    def keep(r: LayerRow) -> bool:
        m = r.metrics
        if r.is_data or r.is_output:
            return True
        return m is not None and (not math.isfinite(m.cosine) or m.cosine < th.middle_dip)
    return keep


def _row_type(layer: GraphLayer) -> str:
    """A layer's type as the per-layer rows name it: the reference's reading (``reference.net``),
    which title-cases V1 enums outside its own table (``BNLL`` → ``Bnll``) where the graph says
    Caffe's name."""
    from nnie_lsp.reference.net import layer_type

    return layer_type(layer.param)

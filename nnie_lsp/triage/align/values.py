"""Values passes: what names and the dot could not pair is matched by size, order and values, and
every pair's layout is checked on its values.

:class:`ValuePass` — simulator tensors left over (instruction-simulator ``seg<s>_layer<node>``
dumps, odd names) are grouped with the free reference tensors by element count; in each group they
are matched one-to-one by the best value correlation on fixed samples (both CHW and permuted HWC
readings). A pair chosen by position only gets low confidence, the ``index-guess`` flag and a note.
Never silent. When instruction-simulator node ids follow the network order, value pairs gain a
little confidence.

:class:`LayoutPass` — turns every draft into an :class:`~nnie_lsp.triage.align.common.AlignedPair`:
W_H_C mapper names are flagged, and layers behind a mapper Permute (Upsample, ROIPooling,
PSROIPooling, or a dot node with a merged Permute) are checked for (H, W, C)-ordered values,
recorded in ``layout``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from nnie_lsp.readers.dumpio.forms import form_of
from nnie_lsp.readers.dumpio.tensor import DumpTensor
from nnie_lsp.triage.align.common import (
    PERMUTE_TYPES,
    AlignedPair,
    Draft,
    PassResult,
    ReferenceTable,
    chw_of,
    hwc_positions,
    sample_cosine,
    sample_positions,
    value_count,
)
from nnie_lsp.triage.align.value_match import Scores, greedy_matches

if TYPE_CHECKING:
    from nnie_lsp.readers.prototxt.graph import NetGraph
    from nnie_lsp.triage.progress import Reporter

__all__ = ["ValuePass", "LayoutPass"]


class ValuePass:
    """``run(pending, free_refs)`` → one-to-one pairs by size, order and values
    (``matched_by`` "shape-order" or "values")."""

    def __init__(self, graph: NetGraph | None, refs: ReferenceTable, value_check: bool = True) -> None:
        self.graph = graph
        self.refs = refs
        self.value_check = value_check

    def _ref_order(self, r: DumpTensor) -> float:
        blob = self.refs.blob_of.get(id(r), r.key)
        return self.graph.blob_order(blob) if self.graph is not None else 0.0

    def _ref_chw(self, r: DumpTensor, n: int) -> tuple[int, int, int] | None:
        """The (C, H, W) to try an (H, W, C) reading with: the blob's, else the file's dims; only
        when it holds exactly ``n`` values (a name may point at a blob of another size)."""
        blob = self.refs.blob_of.get(id(r), r.key)
        expected = self.graph.item_shape(blob) if self.graph is not None else None
        for chw in (chw_of(expected), chw_of(r.shape)):
            if chw is not None and int(np.prod(chw)) == n:
                return chw
        return None

    def run(self, pending: list[DumpTensor], free_refs: list[DumpTensor]) -> PassResult:
        result = PassResult()
        groups: dict[int, tuple[list, list]] = {}
        for s in pending:
            n = value_count(s)
            if n is None:
                continue
            groups.setdefault(n, ([], []))[0].append(s)
        for r in free_refs:
            n = value_count(r)
            if n in groups:
                groups[n][1].append(r)
        order_pairs: list[tuple[float, float]] = []
        for n, (sims, refs) in groups.items():
            if not refs:
                continue
            sims = sorted(sims, key=lambda s: (s.seg or 0, s.node or 0, s.key))
            refs = sorted(refs, key=self._ref_order)
            if self.value_check:
                result.drafts.extend(self._by_values(n, sims, refs, order_pairs))
            else:
                result.drafts.extend(self._by_position(n, sims, refs))
        self._order_evidence(result, order_pairs)
        graph = self.graph
        for d in result.drafts:
            if graph is not None and d.blob is not None:
                ws = graph.producers(d.blob)
                d.layer = ws[-1] if ws else None
                d.order = graph.blob_order(d.blob)
        matched = {id(d.sim) for d in result.drafts}
        result.pending = [s for s in pending if id(s) not in matched]
        return result

    def _by_position(self, n: int, sims: list, refs: list) -> list[Draft]:
        blob_of = self.refs.blob_of
        if len(sims) == 1 and len(refs) == 1:
            d = Draft(sim=sims[0], ref=refs[0], blob=blob_of.get(id(refs[0])), matched_by="shape-order", confidence=0.7)
            d.notes.append(f"only tensor pair holding {n} values")
            return [d]
        out = []
        for i in range(min(len(sims), len(refs))):
            s, r = sims[i], refs[i]
            d = Draft(sim=s, ref=r, blob=blob_of.get(id(r)), matched_by="shape-order", confidence=0.3)
            d.flags.append("index-guess")
            d.notes.append(
                f"paired by position {i + 1} of {len(sims)} simulator / {len(refs)} reference tensors holding {n} values "
                "(no value check): low confidence"
            )
            out.append(d)
        return out

    def _scores(self, n: int, sims: list, refs: list) -> Scores:
        """The value samples of both sides (each tensor read once), the simulator's also read as
        (H, W, C) for every (C, H, W) the references give (:mod:`.value_match` scores them)."""
        idx = sample_positions(n)
        chws = [self._ref_chw(r, n) for r in refs]
        shapes = list(dict.fromkeys(c for c in chws if c is not None))
        ref_samples = np.empty((len(refs), idx.size))
        for j, r in enumerate(refs):
            ref_samples[j] = np.asarray(r.load_raw()).reshape(-1)[idx]
        direct = np.empty((len(sims), idx.size))
        permuted = {chw: np.empty((len(sims), idx.size)) for chw in shapes}
        positions = {chw: hwc_positions(idx, chw) for chw in shapes}
        for i, s in enumerate(sims):
            values = np.asarray(s.load_raw()).reshape(-1)
            direct[i] = values[idx]
            for chw in shapes:
                permuted[chw][i] = values[positions[chw]]
            del values
        return Scores(direct, permuted, ref_samples, chws)

    def _by_values(self, n: int, sims: list, refs: list, order_pairs: list) -> list[Draft]:
        """Greedy one-to-one by best score (:func:`.value_match.greedy_matches`); confidence from
        the margin to the runner-up."""
        out = []
        for match in greedy_matches(self._scores(n, sims, refs)):
            i, j, sc = match.sim, match.ref, match.score
            runner = match.runner_up if match.runner_up is not None else -1.0
            s, r = sims[i], refs[j]
            d = Draft(sim=s, ref=r, blob=self.refs.blob_of.get(id(r)), value_cosine=float(sc))
            if len(refs) == 1 and len(sims) == 1:
                d.matched_by = "shape-order"
                d.confidence = 0.8 if sc >= 0.9 else (0.6 if sc >= 0.5 else 0.45)
                d.notes.append(f"only tensor pair holding {n} values (sample cosine {sc:.4f})")
            else:
                margin = sc - runner
                d.matched_by = "values"
                d.confidence = min(0.95, max(0.2, 0.5 + 0.45 * margin / 0.1)) if sc > 0.5 else 0.25
                d.notes.append(
                    f"value correlation: sample cosine {sc:.4f} vs runner-up {runner:.4f} among {len(refs)} reference / "
                    f"{len(sims)} simulator tensors of {n} values"
                )
                if margin < 0.01:
                    d.flags.append("index-guess")
                    d.notes.append("values do not separate the candidates: an order-level guess, low confidence")
                    d.confidence = min(d.confidence, 0.3)
            if match.hwc:
                d.layout = "HWC"
            if s.node is not None and self.graph is not None:
                order_pairs.append((float(s.seg or 0) * 1e9 + float(s.node), self._ref_order(r)))
            out.append(d)
        return out

    @staticmethod
    def _order_evidence(result: PassResult, order_pairs: list[tuple[float, float]]) -> None:
        """Do instruction-simulator node ids follow the network order? If so, value pairs gain a little."""
        if len(order_pairs) < 3:
            return
        a = np.array(order_pairs)
        ra = np.argsort(np.argsort(a[:, 0]))
        rb = np.argsort(np.argsort(a[:, 1]))
        rho = float(np.corrcoef(ra, rb)[0, 1]) if np.std(ra) and np.std(rb) else 0.0
        if rho >= 0.9:
            result.notes.append(f"instruction-simulator node ids follow the network order (rank correlation {rho:.2f})")
            for d in result.drafts:
                if d.matched_by == "values" and "index-guess" not in d.flags:
                    d.confidence = min(0.95, d.confidence + 0.05)
        else:
            result.notes.append(f"instruction-simulator node ids do not follow the network order (rank correlation {rho:.2f}); order not used")


# --------------------------------------------------------------------------------------------
# layout
# --------------------------------------------------------------------------------------------
def _layout_check(ref_flat: np.ndarray, sim_flat: np.ndarray, chw: tuple[int, int, int] | None) -> tuple[float, float | None]:
    """Sample cosine as stored and, for 3-D tensors, with the sim read as (H, W, C)."""
    idx = sample_positions(ref_flat.size)
    ref_sample = np.asarray(ref_flat[idx], dtype=np.float64)
    direct = sample_cosine(ref_sample, np.asarray(sim_flat[idx], dtype=np.float64))
    if chw is None:
        return direct, None
    permuted = sample_cosine(ref_sample, np.asarray(sim_flat[hwc_positions(idx, chw)], dtype=np.float64))
    return direct, permuted


class LayoutPass:
    """``run(drafts)`` → AlignedPairs with name-dims and value-layout checks (one pair loaded at a time)."""

    def __init__(self, graph: NetGraph | None, value_check: bool = True) -> None:
        self.graph = graph
        self.value_check = value_check

    def run(self, drafts: list[Draft], progress: Reporter | None = None, *, numbered: bool = False) -> list[AlignedPair]:
        """The pairs of `drafts`; `numbered`: each pair's ``order`` is its place in `drafts`."""
        total = len(drafts)
        pairs = []
        for i, d in enumerate(drafts):
            if progress is not None:
                progress.step("align", i, total)
            pairs.append(self.finish(d, i if numbered else None))
        if progress is not None:
            progress.step("align", total, total)
        return pairs

    def _permute_dims(self, d: Draft, lay, exp: tuple[int, ...] | None) -> None:
        """A Permute's dump is named with its permuted dims (SSD ``…_perm_output0_5_5_2`` for a 2×5×5
        input after a (0,2,3,1) Permute, ``docs/field-facts.md §16.1``): the same dims as the Caffe
        blob, not a W_H_C name. Says which dims the name carries."""
        if not d.sim.shape or exp is None:
            return
        squeeze = lambda dims: tuple(int(x) for x in dims if int(x) != 1)  # noqa: E731
        dims = "_".join(map(str, d.sim.shape))
        bottoms = list(getattr(lay, "bottoms", ()) or ())
        before = self.graph.item_shape(bottoms[0]) if self.graph is not None and bottoms else None
        if squeeze(d.sim.shape) == squeeze(exp):
            d.flags.append("permute-output")
            if before is not None and squeeze(before) != squeeze(exp):
                d.notes.append(f"Permute output: name dims {dims} are the permuted dims of its input "
                               f"{'×'.join(map(str, before))}, as in the Caffe blob")
        elif before is not None and squeeze(d.sim.shape) == squeeze(before):
            d.notes.append(f"Permute output named with its input's dims {dims} (the Caffe blob is "
                           f"{'×'.join(map(str, exp))}); values compared in the order they are stored")

    def finish(self, d: Draft, order: int | None = None) -> AlignedPair:
        lay = d.layer
        ltype = getattr(lay, "type", None) if lay is not None else None
        exp = self.graph.item_shape(d.blob) if self.graph is not None else None
        if exp is None and d.ref is not None and d.ref.shape:
            exp = tuple(d.ref.shape)
        if ltype == "Permute":
            self._permute_dims(d, lay, exp)
        elif form_of(d.sim.fmt).whc_names and d.sim.shape and exp is not None and len(d.sim.shape) == 3:
            # name dims order (mapper_quant C_H_W vs W_H_C)
            sh = tuple(d.sim.shape)
            if sh != tuple(exp) and tuple(reversed(sh)) == tuple(exp):
                d.flags.append("whc-name")
                d.notes.append(f"name dims {'_'.join(map(str, sh))} read as W_H_C (prototxt/Caffe shape {exp})")
        chw = chw_of(exp)
        suspect = (ltype in PERMUTE_TYPES or "dot-permute" in d.flags or "mapper-inserted" in d.flags
                   or (self.graph is None and chw is not None))
        if self.value_check and chw is not None and d.value_cosine is None and (suspect or d.layout == "HWC"):
            try:
                r = np.asarray(d.ref.load_raw()).reshape(-1)
                s = np.asarray(d.sim.load_raw()).reshape(-1)
            except (ValueError, OSError) as exc:  # a bad dump: the comparison reports it on its row
                d.notes.append(f"layout not checked: {exc}")
                r = s = np.zeros(0)
            if r.size == s.size and r.size:
                direct, permuted = _layout_check(r, s, chw)
                d.value_cosine = direct
                if permuted is not None and permuted > direct + 0.05 and permuted > 0.5:
                    d.layout = "HWC"
                    d.value_cosine = permuted
            del r, s
        if d.layout == "HWC":
            d.flags.append("permute-layout")
            if "mapper-inserted" in d.flags:
                why = "a node the mapper inserted"
            elif ltype in PERMUTE_TYPES:
                why = f"the mapper puts a Permute next to {ltype}"
            else:
                why = "dot shows a merged Permute" if "dot-permute" in d.flags else "unexpected for this layer type"
            d.notes.append(f"simulator values are in (H, W, C) order ({why}); compared after transposing to C, H, W")
        elif (ltype in PERMUTE_TYPES or "mapper-inserted" in d.flags) and chw is not None:
            where = "this mapper node" if "mapper-inserted" in d.flags else f"the mapper puts a Permute next to {ltype}"
            d.notes.append(f"{where}: the (C, H, W) reading fits the values better than (H, W, C)"
                           if self.value_check else f"{where}: layout not checked (value check off)")
        return AlignedPair(
            layer=getattr(lay, "name", None) if lay is not None else None,
            blob=d.blob,
            ref=d.ref,
            sim=d.sim,
            matched_by=d.matched_by,
            confidence=round(float(d.confidence), 3),
            note="; ".join(dict.fromkeys(d.notes)) or None,
            order=order if order is not None else (int(d.order) if math.isfinite(d.order) else 10**9),
            layout=d.layout,
            flags=tuple(dict.fromkeys(d.flags)),
            expected_shape=tuple(exp) if exp is not None else None,
            layer_type=ltype,
            value_cosine=d.value_cosine,
        )

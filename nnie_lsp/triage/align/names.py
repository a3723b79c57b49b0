"""Name pass: pair simulator tensors with reference tensors by name, through the prototxt graph.

A sim tensor's name is a layer (mapper_quant is per layer) or a blob; names are compared through
:func:`~nnie_lsp.triage.align.common.name_variants` (``/`` → ``_``, NNIE mark suffixes, mapper
``a:b:`` prefixes, case). Through the graph the layer is mapped to the blob it writes:

* Caffe dumps are per blob, and a blob at the end of an in-place chain holds the chain's LAST value:
  a mapper output of an earlier chain member is paired with a note and the ``inplace-intermediate``
  flag; chain members without any sim dump (BN/Scale/ReLU fused by the mapper) are reported as
  fused (``fused-chain``);
* a conv followed by non-in-place BatchNorm/Scale layers that have no sim dump is paired with the
  post-BN blob (``folded-bn``, the mapper's conv_fold).

Without a graph, names are matched against the reference names directly; with one, a dump whose
name is no layer or blob of the prototxt is matched the same way with a reference dump the graph
does not know either (a note says so). Every look-up is a dictionary look-up: the pass is linear in
the number of tensors. Pairs whose sizes differ
are never made: the sim tensor goes on to the next pass with a note. Unnamed instruction-simulator
dumps (``seg<s>_layer<node>``) are left for the dot and values passes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nnie_lsp.readers.dumpio.forms import form_of
from nnie_lsp.readers.dumpio.names import normalize_name
from nnie_lsp.readers.dumpio.tensor import DumpTensor
from nnie_lsp.triage.align.common import FOLDABLE_TYPES, Draft, PassResult, ReferenceTable, name_variants, value_count

if TYPE_CHECKING:
    from nnie_lsp.readers.prototxt.graph import GraphLayer, NetGraph

__all__ = ["NamePass", "CONV_TYPES"]

CONV_TYPES = ("Convolution", "Deconvolution", "InnerProduct", "DepthwiseConv", "ConvolutionDepthwise")


class NamePass:
    """``run(sims)`` → pairs made by name (``matched_by`` "name" or "graph") and the rest."""

    def __init__(self, graph: NetGraph | None, refs: ReferenceTable) -> None:
        self.graph = graph
        self.refs = refs

    def run(self, sims: list[DumpTensor]) -> PassResult:
        result = PassResult()
        graph = self.graph
        sim_by_layer: dict[str, list[DumpTensor]] = {}
        if graph is not None:
            for t in sims:
                lay = graph.find_layer(t.key, name_variants)
                if lay is not None:
                    sim_by_layer.setdefault(lay.name, []).append(t)
        drafts: list[Draft] = []
        for t in sims:
            if form_of(t.fmt).node_numbers and t.seg is not None and t.key.startswith("seg"):
                result.pending.append(t)
                continue
            if graph is None:
                draft = self._by_reference_name(t)
            else:
                draft = self._through_graph(t, sim_by_layer)
                if draft is None and not self._in_graph(t):
                    draft = self._outside_graph(t)
            if draft is not None:
                drafts.append(draft)
            else:
                result.pending.append(t)
        # size sanity (never pair different sizes)
        for d in drafts:
            ns, nr = value_count(d.sim), value_count(d.ref)
            if ns is not None and nr is not None and ns != nr:
                result.notes.append(
                    f"{d.sim.label} matches {d.ref.label} by name but holds {ns} values vs {nr}: not paired"
                )
                result.pending.append(d.sim)
                continue
            result.drafts.append(d)
        return result

    # ----------------------------------------------------------------------------------------
    def _by_reference_name(self, t: DumpTensor) -> Draft | None:
        refs = self.refs
        blob = None
        for v in name_variants(t.key) + tuple(t.alt_keys):
            if v in refs.key_index:
                blob = refs.key_index[v]
                break
        if blob is None:
            return None
        d = Draft(sim=t, blob=blob, ref=refs.for_blob[blob], matched_by="name")
        d.confidence = 0.9 if t.key == d.ref.key else 0.8
        if t.key != d.ref.key:
            d.notes.append(f"names match loosely ({t.raw_name!r} ~ {d.ref.raw_name!r})")
        return d

    def _in_graph(self, t: DumpTensor) -> bool:
        """Whether the graph knows `t`'s name (or one of its other readings) as a layer or a blob."""
        graph = self.graph
        return any(graph.find_layer(k, name_variants) is not None or graph.find_blob(k, name_variants) is not None
                   for k in (t.key, *t.alt_keys))

    def _outside_graph(self, t: DumpTensor) -> Draft | None:
        """A dump whose name is no layer or blob of the prototxt, with a reference dump of the same
        name that the graph does not know either: paired by that name (one dictionary look-up), said
        so; never by values with a tensor of another name."""
        d = self._by_reference_name(t)
        if d is None or self.graph.find_blob(d.blob, name_variants) is not None:
            return None
        d.confidence = min(d.confidence, 0.8)
        d.notes.append("not a layer or blob of the prototxt: paired with the reference dump of the same name")
        return d

    def _through_graph(self, t: DumpTensor, sim_by_layer: dict[str, list[DumpTensor]]) -> Draft | None:
        graph, refs = self.graph, self.refs
        lay = graph.find_layer(t.key, name_variants)
        if lay is None or not lay.tops:
            blob = graph.find_blob(t.key, name_variants)
            if blob is None or blob not in refs.for_blob:
                return None
            ws = graph.producers(blob)
            return Draft(sim=t, ref=refs.for_blob[blob], blob=blob, layer=ws[-1] if ws else None,
                         order=graph.blob_order(blob), matched_by="name", confidence=0.95)
        d = Draft(sim=t)
        if len(lay.tops) > 1:
            blob, how = self._top_of_output(t, lay, sim_by_layer.get(lay.name, [t]))
            d.notes.append(how)
        else:
            blob = lay.tops[0]  # single-output layer: the output number plays no part
        d.layer, d.blob = lay, blob
        d.order = graph.layer_order(lay)
        d.matched_by = "name" if normalize_name(blob) == t.key else "graph"
        d.confidence = 1.0 if t.key == normalize_name(lay.name) else 0.95
        self._note_inplace_chain(d, lay, blob, sim_by_layer)
        target_blob = self._folded_bn_blob(d, lay, blob, sim_by_layer)
        r = refs.for_blob.get(target_blob)
        if r is not None:
            d.ref = r
            return d
        return None

    def _top_of_output(self, t: DumpTensor, lay, outs: list[DumpTensor]) -> tuple[str, str]:
        """The top a multi-output layer's dump stands for, and why. The mapper numbers a layer's
        outputs 0, 1, … (``docs/field-facts.md §16.1``), but other tools put other numbers there:
        the dims decide when exactly one top has the file's dims, else the rank of the number among
        the layer's dumps."""
        squeeze = lambda dims: tuple(int(x) for x in dims if int(x) != 1)  # noqa: E731
        fitting = []
        if t.shape:
            for top in lay.tops:
                expected = self.graph.item_shape(top)
                if expected is not None and squeeze(expected) in (squeeze(t.shape), squeeze(reversed(t.shape))):
                    fitting.append(top)
        if len(fitting) == 1:
            return fitting[0], f"output {t.index} of {lay.name!r} taken as top {fitting[0]!r}: the only top with its dims"
        ranked = sorted(outs, key=lambda x: x.index)
        rank = ranked.index(t) if t in ranked else 0
        top = lay.tops[min(rank, len(lay.tops) - 1)]
        if fitting and top not in fitting:  # several tops have its dims, the ranked one not
            top = fitting[min(rank, len(fitting) - 1)]
        return top, (f"output {t.index} of {lay.name!r} taken as top {top!r} (number {rank + 1} of the layer's "
                     f"{len(ranked)} dump(s), in the order of the tops)")

    def _note_inplace_chain(self, d: Draft, lay: GraphLayer, blob: str, sim_by_layer: dict) -> None:
        """In-place chain: the Caffe blob holds the LAST member's value."""
        # the writes of the blob in order: a layer listing it as a top twice writes it twice
        chain = [w for w in self.graph.producers(blob) for _ in range(w.tops.count(blob))]
        if len(chain) <= 1 or lay not in chain:
            return
        after = chain[chain.index(lay) + 1 :]
        dumped_after = [m for m in after if m.name in sim_by_layer]
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

    def _folded_bn_blob(self, d: Draft, lay, blob: str, sim_by_layer: dict) -> str:
        """A conv followed by non-in-place BN/Scale layers without sim dumps is compared with the
        blob after them (conv_fold); returns the blob to compare with."""
        if lay.type not in CONV_TYPES:
            return blob
        cur = blob
        folded = []
        while True:
            cons = self.graph.consumers(cur)
            nxt = [c for c in cons if c.type in FOLDABLE_TYPES and c.name not in sim_by_layer
                   and c.tops and c.tops[0] != cur]
            # read once only: by one layer, as one of its bottoms (a Scale of x by x reads it twice)
            if sum(c.bottoms.count(cur) for c in cons) != 1 or len(nxt) != 1:
                break
            folded.append(nxt[0])
            cur = nxt[0].tops[0]
        if not folded or cur not in self.refs.for_blob:
            return blob
        d.blob = cur
        d.flags.append("folded-bn")
        d.confidence = min(d.confidence, 0.85)
        d.matched_by = "graph"
        d.notes.append(
            f"{', '.join(f.name for f in folded)} folded into {lay.name!r} by the mapper (conv_fold): "
            f"compared with the Caffe blob {cur!r}"
        )
        return cur

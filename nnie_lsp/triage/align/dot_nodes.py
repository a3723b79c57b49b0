"""Dot pass: pair what the name pass left using ``cnn_net_tree.dot`` (the mapper's own node names).

The dot is read by the mapper's one reader (:func:`~nnie_lsp.readers.mapper.nettree.read_net_tree`); a
node's name, type and number come from its :attr:`~nnie_lsp.readers.mapper.nettree.TreeNode.reading`
(NNIE labels and other formats alike). A sim tensor is found in the dot by that name
(:meth:`~nnie_lsp.readers.mapper.nettree.NetTree.by_key` with the dump-name key), or, for
instruction-simulator dumps, by the node number the dot carries
(:meth:`~nnie_lsp.readers.mapper.nettree.NetTree.by_number`). The node then leads to a prototxt layer or
blob (``docs/field-facts.md §16.2``):

* a node named like a layer or blob stands for it;
* a ``Reportop`` node ``<top>_report_<segment>_<k>`` reports the blob ``<top>``;
* a node the mapper inserted (``permute_<k>`` of type ``Permute (batch)`` after every Normalize) is
  compared with the output of the layer it follows (flag ``mapper-inserted``; its value layout is
  checked by the layout pass);
* a mapper-internal node unknown to the prototxt that feeds a known layer is taken as the producer
  of that layer's rewritten bottom (e.g. SPP → Pooling + Concat).

Without a prototxt the node (or reported top, or followed layer) name is matched against the
reference names. Pairs get ``matched_by="dot"`` and confidence 0.8; different sizes are never
paired. The mapper's own nodes are told by the type of the node's reading
(:func:`~nnie_lsp.readers.mapper.nettree.report_point_of`, :func:`~nnie_lsp.readers.mapper.nettree.inserted_by_mapper`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from nnie_lsp.readers.dumpio.forms import form_of
from nnie_lsp.readers.dumpio.names import normalize_name
from nnie_lsp.readers.dumpio.tensor import DumpTensor
from nnie_lsp.readers.mapper.nettree import NetTree, TreeNode, inserted_by_mapper, report_point_of
from nnie_lsp.triage.align.common import Draft, PassResult, ReferenceTable, name_variants, value_count

if TYPE_CHECKING:
    from nnie_lsp.readers.prototxt.graph import NetGraph

__all__ = ["DotPass", "node_key"]


def node_key(node: TreeNode) -> str | None:
    """The dump-name key of the name a dot node's reading gives (``None`` without a name)."""
    name = node.reading.name
    return normalize_name(name) if name else None


class DotPass:
    """``run(pending)`` → pairs found through the dot (``matched_by`` "dot") and the rest."""

    def __init__(self, dot: NetTree, graph: NetGraph | None, refs: ReferenceTable) -> None:
        self.dot = dot
        self.graph = graph
        self.refs = refs

    def run(self, pending: list[DumpTensor]) -> PassResult:
        dot, graph = self.dot, self.graph
        result = PassResult()
        dot_keys = dot.by_key(normalize_name)
        dot_numbers = dot.by_number()
        used_nodes = []
        for t in pending:
            node, how = self._node_of(t, dot_keys, dot_numbers)
            if node is None:
                result.pending.append(t)
                continue
            blob, lay, how, flags = self._blob_of(node, how, dot_keys)
            r = self.refs.for_blob.get(blob) if blob else None
            if r is None:
                result.pending.append(t)
                if blob is None and not dot.successors(node.name) and graph is not None:
                    result.notes.append(f"{t.label}: {how}, but it maps to no Caffe blob (mapper-internal node)")
                continue
            ns, nr = value_count(t), value_count(r)
            if ns is not None and nr is not None and ns != nr:
                result.pending.append(t)
                result.notes.append(f"{t.label}: {how}, but sizes differ from {r.label} ({ns} vs {nr}); not paired")
                continue
            d = Draft(sim=t, ref=r, layer=lay, blob=blob, matched_by="dot", confidence=0.8)
            d.order = graph.blob_order(blob) if graph is not None else math.inf
            d.notes.append(how)
            d.flags.extend(flags)
            if node.reading.merged_ops and "Permute" in node.reading.merged_ops:
                d.flags.append("dot-permute")
                d.notes.append("dot says Permute was merged into this node")
            result.drafts.append(d)
            used_nodes.append(node.name)
        result.notes.append(f"cnn_net_tree.dot used: {dot.describe_labels()}; {len(used_nodes)} pair(s) from it")
        return result

    @staticmethod
    def _node_of(t: DumpTensor, dot_keys: dict[str, TreeNode],
                 dot_numbers: dict[int, TreeNode]) -> tuple[TreeNode | None, str]:
        if form_of(t.fmt).node_numbers and t.node is not None and t.node in dot_numbers:
            node = dot_numbers[t.node]
            return node, f"dot node {node.name!r} carries number {t.node}"
        if t.key in dot_keys:
            node = dot_keys[t.key]
            return node, f"dot node {node.name!r} named {node.reading.name!r}"
        return None, ""

    def _blob_of(self, node: TreeNode, how: str,
                 dot_keys: dict[str, TreeNode]) -> tuple[str | None, object, str, tuple[str, ...]]:
        """The Caffe blob a dot node stands for, the layer writing it, the evidence text and flags."""
        graph = self.graph
        blob = None
        lay = None
        name = node.reading.name
        if graph is not None and name:
            lay = graph.find_layer(name, name_variants)
            if lay is not None and lay.tops:
                blob = lay.tops[0]
            elif graph.find_blob(name, name_variants):
                blob = graph.find_blob(name, name_variants)
        if blob is None:
            blob, lay, mapper_how, flags = self._mapper_node(node)
            if blob is not None:
                return blob, lay, how + mapper_how, flags
        if blob is None and graph is not None:
            # a mapper-internal node feeding known layers: it produces their rewritten bottom
            for successor_id in self.dot.successors(node.name):
                successor = self.dot.nodes.get(successor_id)
                successor_name = successor.reading.name if successor else None
                successor_layer = graph.find_layer(successor_name, name_variants) if successor_name else None
                if successor_layer is None:
                    continue
                for b in successor_layer.bottoms:
                    ws = graph.producers(b)
                    if ws and all(w.name not in dot_keys and normalize_name(w.name) not in dot_keys for w in ws):
                        blob, lay = b, ws[-1]
                        how += f", feeds {successor_layer.name!r} whose bottom {b!r} has no dot node (rewritten)"
                        break
                if blob:
                    break
        if blob is None and graph is None and name:
            blob = self._reference_blob(name)
        return blob, lay, how, ()

    def _reference_blob(self, name: str) -> str | None:
        """The blob ``name`` stands for: through the prototxt, else among the reference names."""
        if self.graph is not None:
            return self.graph.find_blob(name, name_variants)
        for v in name_variants(name):
            if v in self.refs.key_index:
                return self.refs.key_index[v]
        return None

    def _mapper_node(self, node: TreeNode) -> tuple[str | None, object, str, tuple[str, ...]]:
        """A node of the mapper's own: a Reportop reports its top; an inserted node (``permute_<k>``,
        ``Permute (batch)``) stands after the layer it follows and is compared with that layer's
        output. Told by the type of the node's reading (any label format)."""
        node_type = node.reading.type
        report = report_point_of(node.name, node_type)
        if report is not None:
            blob = self._reference_blob(report.top)
            if blob is None:
                return None, None, "", ()
            writers = self.graph.producers(blob) if self.graph is not None else []
            return blob, (writers[-1] if writers else None), (
                f", a Reportop node: reports top {report.top!r} (segment {report.segment}, report {report.k})"
            ), ("report-node",)
        if not inserted_by_mapper(node.name, node_type):
            return None, None, "", ()
        followed = self.dot.followed_layer(node.name, reading=True)
        if followed is None:
            return None, None, "", ()
        followed_name = followed.reading.name or followed.name
        lay = self.graph.find_layer(followed_name, name_variants) if self.graph is not None else None
        blob = lay.tops[0] if lay is not None and lay.tops else self._reference_blob(followed_name)
        if blob is None:
            return None, None, "", ()
        return blob, lay, (
            f", inserted by the mapper ({node_type or 'no type'}) after {followed_name!r}: "
            f"compared with its output {blob!r}"
        ), ("mapper-inserted",)

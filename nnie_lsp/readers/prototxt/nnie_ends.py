"""Which blobs of a net are NNIE results: the layers the chip computes and the ends it hands over.

The triage judges these ends (case 2's "bad end"), and a `.wk`'s outputs are them (with the
``_report`` tops): one reading for both (docs/field-facts.md §7.2, §7.3).  Pure graph code: no
numpy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nnie_lsp.readers.prototxt.graph import GraphLayer, NetGraph


def runs_on_nnie(layer: GraphLayer) -> bool:
    """Whether the chip computes `layer`: not a `_cpu` layer, not a CPU segment (Proposal, Custom)
    and not a layer the NNIE nets leave to the CPU (PriorBox, DetectionOutput, Region, Yolo, Python
    …: the layer table's ``cpu`` / ``unsupported``); an unknown type counts as computed."""
    from nnie_lsp.readers.prototxt import layers as layer_table

    if layer_table.is_cpu_layer_name(layer.name):
        return False
    spec = layer_table.lookup(layer.type)
    return spec is None or spec.support not in ("cpu", "unsupported")


def nnie_ends(graph: NetGraph) -> frozenset[str]:
    """The blobs no NNIE layer reads (an in-place layer rewriting the blob aside): the net's
    outputs, and the NNIE results only the CPU reads — SSD's mbox_loc and mbox_conf_flatten, read
    by DetectionOutput alone.  These are the ends the decision tree judges (case 2's "bad end")."""
    out = set(graph.chain_outputs())
    for blob in graph.input_blobs:
        out.discard(blob)
    seen = set()
    for gl in graph.layers:
        for blob in gl.tops:
            if blob in seen or blob in graph.input_blobs:
                continue
            seen.add(blob)
            readers = [c for c in graph.consumers(blob) if blob not in c.tops]
            if not any(runs_on_nnie(c) for c in readers) and runs_on_nnie(gl):
                out.add(blob)
    return frozenset(out)

"""A Crop that crops nothing (NN015's part): bottom 0 already has the size of bottom 1 from the
crop axis on, as RetinaFace's feature pyramid at 640 × 640 (its Crops exist for input sizes where
the upsampled map is one row larger).  nnie_mapper refuses Crop (docs/field-facts.md §16.3), and
rewriting it as Custom or a ``_cpu`` layer would cut the pyramid into CPU segments; deleting it
(its readers read bottom 0) computes the same -- **proved by the shape inference**: the delete is
offered only when both input shapes are known and equal where the Crop would cut, with no offset.
"""

from __future__ import annotations

from nnie_lsp.rules.fixes import delete_layer_edit, rewire_edits


def identity(graph, layer, shapes) -> tuple | None:
    """The shape of bottom 0 when the Crop ``layer`` copies it unchanged; None otherwise (unknown
    shapes, a real crop, an offset)."""
    if layer.type != "Crop" or len(layer.bottoms) != 2 or len(layer.tops) != 1 or layer.in_place:
        return None
    x, ref = shapes.get(layer.bottoms[0]), shapes.get(layer.bottoms[1])
    if x is None or ref is None or len(x) != len(ref) or any(d is None for d in (*x, *ref)):
        return None
    p = layer.param.crop_param
    axis = p.axis if p.axis >= 0 else p.axis + len(x)
    if any(int(o) != 0 for o in p.offset) or tuple(x[axis:]) != tuple(ref[axis:]):
        return None
    return tuple(x)


def delete_edits(doc, graph, crops) -> tuple[list, bool]:
    """(edits, safe): delete each Crop and let its readers read its bottom 0.  Safe unless bottom 0
    is rewritten in place before a reader of the Crop's top reads it (the reader would then see the
    rewritten value), or the Crop's top is a net output (the output's name would change)."""
    edits, safe = [], True
    gone = [layer.source.node.range for layer in crops]
    alias: dict[str, str] = {}  # a deleted Crop's top -> the blob its readers read now
    for layer in crops:
        top, src = layer.tops[0], layer.bottoms[0]
        src = alias.get(src, src)  # a Crop of a deleted Crop reads what that one read
        alias[top] = src
        readers = [c for c in graph.consumers(top) if c.index > layer.index]
        if not readers:
            safe = False
        last = max((c.index for c in readers), default=layer.index)
        if any(w.index > layer.index and w.index < last for w in graph.producers(src)):
            safe = False
        edits.append(delete_layer_edit(doc, layer))
        # the edits inside Crops deleted too are dropped (their blocks go)
        edits.extend(e for e in rewire_edits(doc, graph, layer, top, src)
                     if not any(r.start <= e.range.start and e.range.end <= r.end for r in gone))
    return edits, safe

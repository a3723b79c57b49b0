"""Small helpers rules use to find ranges inside a prototxt's source tree."""

from __future__ import annotations

from ..text import Range


def child(node, *path):
    """First node along a path of field names under `node`, or None."""
    cur = node
    for name in path:
        if cur is None:
            return None
        cur = cur.first(name)
    return cur


def children(node, name):
    return tuple(node.find(name)) if node is not None else ()


def field_range(layer_source, *path) -> Range:
    """Range of the value (or name) of the field at `path` inside a layer; the layer's type if absent."""
    n = child(layer_source.node, *path)
    if n is not None:
        return n.value_range or n.name_range
    return layer_source.type_range or layer_source.name_range


def layer_anchor(layer_source) -> Range:
    return layer_source.name_range or layer_source.type_range

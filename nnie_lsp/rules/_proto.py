"""Small helpers for the prototxt rules: ranges inside a prototxt's source tree, and one finding
per cause (the other places of the same cause as related locations)."""

from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.core.records import NamedTuple
from nnie_lsp.core.text import Range


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


def top_level(doc, name):
    """The top-level fields of a prototxt named ``name`` (``input``, ``input_shape``, ``input_dim``)."""
    return [n for n in doc.nodes if n.name == name]


def layer_anchor(layer_source) -> Range:
    return layer_source.name_range or layer_source.type_range


# -- one finding per cause ---------------------------------------------------------------------

NAME_PARAMS = ("layer", "blob")  # message parameters that name the place, not the cause
MAX_NAMES_IN_MESSAGE = 5


NO_PARAMS: Mapping = MappingProxyType({})


class Place(NamedTuple):
    """One place where a rule found something: the message id and parameters it would report
    there, the layer it is in, and an optional severity override."""

    msg_id: str
    range: Range
    layer: str
    params: Mapping = NO_PARAMS  # read-only: a record's fields are never mutated
    severity: Severity | None = None

    @property
    def cause(self) -> tuple:
        """Places with the same cause have the same message apart from the names of the place."""
        return (self.msg_id, self.severity,
                tuple((k, str(v)) for k, v in sorted(self.params.items()) if k not in NAME_PARAMS))


def names_text(names: list[str]) -> str:
    """``"a", "b", "c"`` (the first few, then ``…``)."""
    shown = ", ".join(f'"{n}"' for n in names[:MAX_NAMES_IN_MESSAGE])
    return shown + (", …" if len(names) > MAX_NAMES_IN_MESSAGE else "")


def line_directives(doc) -> list:
    """The line suppression comments of a prototxt (see :mod:`nnie_lsp.rules.suppress`)."""
    from nnie_lsp.rules.suppress import parse_directives
    if doc is None:
        return []
    return [d for d in parse_directives(doc.path or "<prototxt>", list(doc.comments), doc.line_index.line_text)
            if d.kind == "line"]


def one_per_cause(ctx, doc, places, *, more_msg: str, related_msg: str):
    """One diagnostic per cause, at its first place; the other places become related locations
    (each with its exact range) and the message ends with ``more_msg`` (parameters ``n`` and
    ``layers``).  ``related_msg`` gets the place's ``layer`` and parameters.

    A place that a line suppression comment (``# nnie-lint: disable=CODE``) covers is reported
    on its own, so the comment silences that place only (and counts as used) while the other
    places of the same cause are still reported."""
    path = doc.path
    places = list(places)
    directives = line_directives(doc) if places else []
    groups: dict[tuple, list[Place]] = {}
    for place in places:
        diag = ctx.diag(place.msg_id, path, place.range, severity=place.severity, **place.params)
        if any(d.covers(diag) for d in directives):
            yield diag
            continue
        groups.setdefault(place.cause, []).append(place)
    for group in groups.values():
        first, others = group[0], group[1:]
        related = [ctx.related(related_msg, path, p.range, **{**p.params, "layer": p.layer}) for p in others]
        diag = ctx.diag(first.msg_id, path, first.range, severity=first.severity, related=related,
                        **first.params)
        if others:
            more = ctx.text(more_msg, n=len(others), layers=names_text([p.layer for p in others]))
            diag = diag._replace(message=diag.message + more)
        yield diag

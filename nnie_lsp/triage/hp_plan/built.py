"""Which `_hp` layers the `.wk` beside the cfg actually built at 16 bit.

A layer named ``<name>_hp`` is 16-bit only if the mapper applied the mark (``[compile_mode] 2``);
the `.wk` says what it did (docs/field-facts.md §18): an 8-bit build applied none, a 16-bit build
ran everything at 16 bit, and in a mixed build a layer is 16-bit when every 1- or 2-byte record of
the memory plan with its output's width and height is 2-byte (8-bit when every one is 1-byte;
unknown when both, or none, are there -- the records do not name their layer, so this matching
is inferred [I]).  ``hp-plan`` plans from what was built (:func:`applied_hp`), not from the names.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class BuiltBits:
    wk: str                        # the .wk read
    verdict: str                   # its census: 8-bit, 16-bit, mixed or unknown
    sixteen: frozenset[str]        # `_hp` layers built 16-bit
    eight: frozenset[str]          # `_hp` layers built 8-bit (the mark not applied)
    unknown: frozenset[str]        # `_hp` layers the plan cannot place

    @property
    def applied(self) -> frozenset[str] | None:
        """The `_hp` names the mapper applied, None when some cannot be told."""
        return None if self.unknown else self.sixteen

    def note(self) -> str | None:
        name = os.path.basename(self.wk)
        if not (self.sixteen or self.eight or self.unknown):
            return None
        if self.eight and not self.sixteen and not self.unknown:
            return (f"{name} beside the cfg is an {self.verdict} build: its `_hp` layers "
                    f"({', '.join(sorted(self.eight))}) ran at 8 bit there (the mark was not applied), and the plan "
                    "starts from that")
        parts = []
        if self.sixteen:
            parts.append(f"built at 16 bit: {', '.join(sorted(self.sixteen))}")
        if self.eight:
            parts.append(f"at 8 bit (the mark not applied): {', '.join(sorted(self.eight))}")
        if self.unknown:
            parts.append(f"not known (the `_hp` names taken as applied): {', '.join(sorted(self.unknown))}")
        how = " [I: memory-plan records matched to layers by width and height]" if self.verdict == "mixed" else ""
        return f"{name} beside the cfg ({self.verdict}): `_hp` layers " + "; ".join(parts) + how


def built_bits(cfg: str, graph) -> BuiltBits | None:
    """What the `.wk` beside ``cfg`` says of the prototxt's (``graph``) `_hp` layers; None without
    a readable `.wk` or `_hp` layers."""
    from nnie_lsp.rules.fixes import HP_SUFFIX
    from nnie_lsp.project.project import load_project

    found = load_project(cfg_path=cfg, load_prototxt=True).wk
    hp = [layer for layer in graph.layers if layer.name.endswith(HP_SUFFIX)]
    if found is None or found.model is None or not hp:
        return None
    model = found.model
    verdict = model.bits
    names = frozenset(layer.name for layer in hp)
    if verdict == "8-bit":
        return BuiltBits(found.path, verdict, frozenset(), names, frozenset())
    if verdict == "16-bit":
        return BuiltBits(found.path, verdict, names, frozenset(), frozenset())
    if verdict != "mixed":
        return BuiltBits(found.path, verdict, frozenset(), frozenset(), names)
    shapes = graph.blob_shapes()
    sixteen, eight, unknown = set(), set(), set()
    for layer in hp:
        shape = shapes.get(layer.tops[0]) if layer.tops else None
        if not shape or len(shape) != 4:
            unknown.add(layer.name)
            continue
        sizes = {r.element_size for r in model.plan
                 if r.width == shape[3] and r.height == shape[2] and r.element_size in (1, 2)}
        (sixteen if sizes == {2} else eight if sizes == {1} else unknown).add(layer.name)
    return BuiltBits(found.path, verdict, frozenset(sixteen), frozenset(eight), frozenset(unknown))

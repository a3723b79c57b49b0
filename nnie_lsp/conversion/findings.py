"""What the conversion checks report: engine-neutral findings the NN5xx rules turn into
Diagnostics (:mod:`nnie_lsp.rules.conversion`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class FieldFix:
    """A prototxt edit inside one layer: set ``fields`` (name -> value text) in the layer's
    ``block`` (e.g. ``pooling_param``), creating the block when absent; ``remove`` fields go."""

    block: str
    fields: tuple[tuple[str, str], ...] = ()
    remove: tuple[str, ...] = ()
    replace_block: bool = False    # write the block anew with only ``fields``


@dataclass(frozen=True)
class Finding:
    code: str                      # NN5xx
    msg_id: str                    # the rule's message id
    layer: str | None              # the Caffe layer (None: the file)
    where: tuple = ("type",)       # ("type",), ("name",), ("bottom", i), (block, field…)
    params: dict[str, Any] = field(default_factory=dict)
    fix: FieldFix | None = None
    fix_msg: str | None = None     # the fix's title id
    onnx: str = ""                 # the ONNX node(s) the layer was matched to
    how: str = ""                  # how it was matched (MatchLayer.confidence)

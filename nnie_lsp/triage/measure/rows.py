"""The diagnosis' input: one :class:`LayerRow` per aligned tensor pair, with its metrics, in network
order — and the few questions every case asks of them (where the net starts and ends)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .metrics import Metrics


@dataclass
class LayerRow:
    """One aligned pair with its metrics, in network order."""

    name: str
    order: int
    metrics: Metrics | None
    blob: str | None = None
    matched_by: str = ""
    confidence: float = 0.0
    shape: tuple[int, ...] | None = None
    is_data: bool = False
    is_output: bool = False
    layer_type: str | None = None
    producers: list[str] = field(default_factory=list)
    inplace: list[tuple[str, str]] = field(default_factory=list)  # (layer, type) rewriting the blob
    producer_type: str | None = None  # type of the layer producing the blob (chain head)
    note: str | None = None
    ref: np.ndarray | None = None  # (C,H,W) arrays, when given directly
    sim: np.ndarray | None = None
    sim_raw: np.ndarray | None = None  # flat values as stored (layout checks)
    # reloads (ref, sim, sim_raw) from the dump files on demand: explanations need the arrays of a
    # few rows (data, outputs, dips) without keeping every tensor in memory
    loader: Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray]] | None = field(default=None, repr=False)
    layout: str = "CHW"  # how the aligner read the simulator values ("HWC" = permuted back)
    flags: tuple[str, ...] = ()
    stored_cosine: float | None = None  # cosine of the values as stored, when the layout was changed
    # several images (image_compare.py): this layer's cosine on each image, in the images' order
    cosine_images: tuple[float | None, ...] | None = None

    @property
    def cosine(self) -> float:
        return self.metrics.cosine if self.metrics is not None else float("nan")

    def arrays(self) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
        """(ref, sim, sim_raw): the stored arrays, or freshly loaded ones (not cached)."""
        if self.ref is not None or self.loader is None:
            return self.ref, self.sim, self.sim_raw
        return self.loader()


def finite(x: float | None) -> bool:
    return x is not None and not (isinstance(x, float) and math.isnan(x))


def measured_body(rows: list[LayerRow]) -> list[LayerRow]:
    """The measured rows after the data layers, whose cosine is a number."""
    return [r for r in rows if not r.is_data and r.metrics is not None and finite(r.cosine)]


def ends(rows: list[LayerRow]) -> list[LayerRow]:
    """The net's measured outputs, or the last measured row when no output was dumped."""
    outs = [r for r in rows if r.is_output and not r.is_data and r.metrics is not None]
    if outs:
        return outs
    body = [r for r in rows if not r.is_data and r.metrics is not None]
    return body[-1:]


def start(rows: list[LayerRow]) -> LayerRow | None:
    body = [r for r in rows if not r.is_data and r.metrics is not None]
    return body[0] if body else None

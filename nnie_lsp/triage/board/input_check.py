"""The board's input against the simulator's (or Caffe's) data: the row stride it was written with,
HWC fed as planar CHW, the channel order.

The chip applies the cfg's mean and scale to what the board feeds (docs/field-facts.md §3.3), so
the board's U8 planes are a per-channel linear function of the simulator's data tensor when the
board fed the right image the right way.  Every reading of the input file -- each row stride from
W to the blob's (only those the file covers entirely), as planes or as a packed H,W,C buffer -- is
fitted against the data tensor with the case-1 fit (:func:`~..diagnose.preprocess_fit.fit_preprocessing`:
per-channel scale and offset for every channel permutation); the best fit says how the board wrote
its input.  The reading the file's form implies is kept unless another is clearly better (its
residual below 1/2 of it: ``BETTER``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nnie_lsp.triage.diagnose.preprocess_fit import fit_preprocessing
from nnie_lsp.triage.board.readings import BoardThresholds, as_tensor, coverage, hwc_planes

#: Another reading wins only when its unexplained variance is below this share of the expected one's.
BETTER = 0.5


@dataclass
class InputFinding:
    """How the board's input file reads best."""

    stride: int                 # row stride (values) of the best reading
    expected_stride: int        # the one the file's size implies
    blob_stride: int            # the contract's stride (values)
    layout: str                 # "CHW" or "HWC"
    permutation: list[int]
    transposed: bool
    r2: float
    expected_r2: float
    against: str                # "simulator" or "Caffe"

    @property
    def stride_wrong(self) -> bool:
        return self.stride != self.expected_stride

    @property
    def swapped(self) -> bool:
        return self.permutation != list(range(len(self.permutation)))

    def to_json(self) -> dict:
        return {"stride": self.stride, "expected_stride": self.expected_stride, "blob_stride": self.blob_stride,
                "layout": self.layout, "permutation": self.permutation, "transposed": self.transposed,
                "r2": self.r2, "r2_as_read": self.expected_r2, "against": self.against}


def _fit(truth: np.ndarray, reading: np.ndarray):
    try:
        fit = fit_preprocessing(truth, reading)
    except ValueError:
        return None
    return fit


def check_input(values: np.ndarray, shape: tuple[int, int, int], blob_stride: int, truth: np.ndarray,
                against: str, th: BoardThresholds) -> InputFinding | None:
    """The best reading of an input file of ``values`` for a blob of ``shape`` (C, H, W) with rows
    ``blob_stride`` values apart, against ``truth`` (the data tensor, (C, H, W)); None when the file
    is too short for any reading."""
    c, h, w = shape
    truth = np.asarray(truth, dtype=np.float64).reshape(c, h, w)
    size = int(values.size)
    padded = c * h * blob_stride
    expected = blob_stride if size >= padded and blob_stride > w else w
    strides = [s for s in range(w, blob_stride + 1) if coverage(size, c * h, w, s) >= 1.0]
    if expected not in strides:
        return None
    layouts = ["CHW", "HWC"] if c > 1 else ["CHW"]
    results = []
    for s in strides:
        planes = as_tensor(values, c, h, w, s)
        for layout in layouts:
            reading = hwc_planes(planes) if layout == "HWC" else planes
            fit = _fit(truth, reading)
            if fit is not None:
                results.append((s, layout, fit))
    if not results:
        return None
    base = next(r for r in results if r[0] == expected and r[1] == "CHW")
    best = max(results, key=lambda r: r[2].r2)
    if (1.0 - best[2].r2) > BETTER * (1.0 - base[2].r2):
        best = base
    s, layout, fit = best
    return InputFinding(stride=s, expected_stride=expected, blob_stride=blob_stride, layout=layout,
                        permutation=list(fit.permutation), transposed=bool(fit.transposed), r2=float(fit.r2),
                        expected_r2=float(base[2].r2), against=against)

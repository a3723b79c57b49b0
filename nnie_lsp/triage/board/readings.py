"""The ways one board file can be read, and how close a reading is to what it should hold.

A board file is a sequence of values (:class:`~nnie_lsp.readers.dumpio.board.BoardValues`).  Read as the
memory of a blob of C × H rows of W values whose rows lie ``s`` values apart
(:func:`restride`), it gives a (C, H, W) tensor; ``s`` = W is a file without padding, ``s`` =
stride / element size the blob memory itself.  Rows a short file does not reach are NaN (a file
of C·H·W values read with a wider stride covers only its first rows): :func:`coverage`.

The board's own thresholds are here (:class:`BoardThresholds`, each with its reason); the
cosine is the project's one (:func:`nnie_lsp.triage.measure.metrics.cosine`: non-finite pairs are
left out, so a partial reading is compared on what it covers).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from nnie_lsp.triage.measure.metrics import cosine

QUANT_BASE = 4096
LOG2_QUANT_BASE = 12.0


@dataclass(frozen=True)
class BoardThresholds:
    """The board checks' numbers.

    - ``agree``: a reading of a board file agrees with the simulator's tensor at this cosine (the
      board runs the simulator's instructions: a faithful dump is at 1.0 or within a few LSB);
    - ``agree_caffe``: the same against Caffe when there is no simulator side, or where the
      simulator itself is below it (8-bit loss), the simulator's own cosine less ``caffe_slack``;
    - ``gain``: a re-reading (another stride, another output, HWC) names a mistake only when it
      beats the reading the file's form implies by this much (a shear after the first row takes a
      13 × 13 S32 output from about 1 to about 0; an output taken for another drops as far);
    - ``min_coverage``: a re-reading of a file without padding at a wider stride must still cover
      this share of the tensor (it covers W / stride of it);
    - ``scale_band_log2``: a best scale within this many octaves of 4096 (or 1/4096) is the /4096
      forgotten (or done twice); 8-bit loss moves the scale by less than 0.2 octave;
    - ``scale_min_log2``: another factor this far from 1 (octaves) is still a scale mistake, named
      as the factor;
    - ``input_r2``: the board input is a per-channel linear function (the mean and scale the chip
      applies) of the simulator's data at this R² or better when it is the same image;
    - ``close``: below this cosine the board is not "close" to the simulator;
    - ``near_lsb``: within this many 1/4096 steps of the simulator the board is "nearly bit-exact".
    """

    agree: float = 0.99
    agree_caffe: float = 0.90
    caffe_slack: float = 0.05
    gain: float = 0.2
    min_coverage: float = 0.5
    scale_band_log2: float = 0.5
    scale_min_log2: float = 1.0
    input_r2: float = 0.98
    close: float = 0.9999
    near_lsb: int = 2

    def to_json(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def restride(flat: np.ndarray, rows: int, width: int, stride: int) -> np.ndarray:
    """``flat`` read as ``rows`` rows of ``width`` values starting ``stride`` values apart:
    (rows, width), NaN where the file ends first."""
    idx = np.arange(rows, dtype=np.int64)[:, None] * int(stride) + np.arange(width, dtype=np.int64)[None, :]
    out = np.full(idx.shape, np.nan)
    ok = idx < flat.size
    out[ok] = np.asarray(flat, dtype=np.float64)[idx[ok]]
    return out


def coverage(size: int, rows: int, width: int, stride: int) -> float:
    """The share of a (rows × width) tensor a file of ``size`` values covers at ``stride``."""
    if rows <= 0 or width <= 0:
        return 0.0
    full = max(0, min(rows, (size - width) // stride + 1 if size >= width else 0))
    partial = 0
    if full < rows:
        start = full * stride
        partial = max(0, min(width, size - start))
    return (full * width + partial) / (rows * width)


def padded_count(c: int, h: int, stride_words: int) -> int:
    return c * h * stride_words


@dataclass(frozen=True)
class Reading:
    """One way of reading a file: a row stride (in values), a layout, a channel order."""

    stride: int
    layout: str = "CHW"            # "CHW", or "HWC" (a packed H,W,C buffer copied into the planes)
    cover: float = 1.0
    cosine: float = float("nan")
    node: object | None = None     # the node whose tensor it was compared with

    @property
    def agrees(self) -> bool:
        return math.isfinite(self.cosine)


def as_tensor(values: np.ndarray, c: int, h: int, w: int, stride: int) -> np.ndarray:
    return restride(values, c * h, w, stride).reshape(c, h, w)


def hwc_planes(t: np.ndarray) -> np.ndarray:
    """A (C, H, W) tensor whose planes hold a packed H,W,C buffer, put back in C,H,W order."""
    c, h, w = t.shape
    return np.ascontiguousarray(t.reshape(-1).reshape(h, w, c).transpose(2, 0, 1))


def compare(reading: np.ndarray, truth: np.ndarray) -> float:
    """Cosine of a reading against a tensor of the same size (NaN rows left out)."""
    a = np.asarray(reading, dtype=np.float64).reshape(-1)
    b = np.asarray(truth, dtype=np.float64).reshape(-1)
    if a.size != b.size:
        return float("nan")
    return cosine(a, b)


def best_scale(reading: np.ndarray, truth: np.ndarray) -> float | None:
    """K with reading ≈ K · truth (least squares over the finite pairs), None when undefined."""
    a = np.asarray(reading, dtype=np.float64).reshape(-1)
    b = np.asarray(truth, dtype=np.float64).reshape(-1)
    ok = np.isfinite(a) & np.isfinite(b)
    a, b = a[ok], b[ok]
    den = float(b @ b)
    if not den or not np.isfinite(den):
        return None
    k = float(a @ b) / den
    return k if np.isfinite(k) and k != 0 else None


def scale_name(k: float | None, th: BoardThresholds) -> str | None:
    """``"x4096"`` (the /4096 forgotten), ``"/4096"`` (done twice), ``"factor"`` (another factor
    of at least ``scale_min_log2`` octaves), or None (the scale is right)."""
    if k is None or k <= 0:
        return None
    octaves = math.log2(k)
    if abs(octaves - LOG2_QUANT_BASE) <= th.scale_band_log2:
        return "x4096"
    if abs(octaves + LOG2_QUANT_BASE) <= th.scale_band_log2:
        return "/4096"
    if abs(octaves) >= th.scale_min_log2:
        return "factor"
    return None


def words_of(values: np.ndarray) -> np.ndarray | None:
    """The S32 words behind values on the 1/4096 grid (value × 4096 within 0.05 of an integer for
    every finite value), else None (printed too coarsely to tell)."""
    v = np.asarray(values, dtype=np.float64) * QUANT_BASE
    ok = np.isfinite(v)
    if not ok.any():
        return None
    r = np.rint(v[ok])
    if np.max(np.abs(v[ok] - r)) > 0.05:
        return None
    out = np.full(v.shape, np.nan)
    out[ok] = r
    return out


@dataclass(frozen=True)
class Closeness:
    """The board's tensor against the simulator's: equal words, the largest difference in 1/4096
    steps, the cosine."""

    cosine: float
    max_abs: float
    equal_share: float | None       # share of equal S32 words (None: the words are not known)
    max_lsb: float | None

    @property
    def bit_exact(self) -> bool:
        return self.equal_share == 1.0

    def level(self, th: BoardThresholds) -> str:
        """``bit-exact``, ``nearly bit-exact`` (within ``near_lsb``), ``close`` (cosine ≥
        ``close``), ``similar`` (cosine ≥ ``agree``: what a board shows against the functional
        simulation, nnie_mapper's mapper_quant -- a user reports 0.996 -- rather than against the
        instruction simulator) or ``differs``."""
        if self.bit_exact:
            return "bit-exact"
        if self.max_lsb is not None and self.max_lsb <= th.near_lsb:
            return "nearly bit-exact"
        if math.isfinite(self.cosine) and self.cosine >= th.close:
            return "close"
        if math.isfinite(self.cosine) and self.cosine >= th.agree:
            return "similar"
        return "differs"

    def to_json(self) -> dict:
        def num(x):
            return x if x is not None and math.isfinite(x) else None
        return {"cosine": num(self.cosine), "max_abs_error": num(self.max_abs), "equal_words": num(self.equal_share),
                "max_lsb": num(self.max_lsb)}


def closeness(board: np.ndarray, sim: np.ndarray) -> Closeness:
    a = np.asarray(board, dtype=np.float64).reshape(-1)
    b = np.asarray(sim, dtype=np.float64).reshape(-1)
    ok = np.isfinite(a) & np.isfinite(b)
    diff = np.abs(a[ok] - b[ok])
    wa, wb = words_of(a), words_of(b)
    equal = lsb = None
    if wa is not None and wb is not None:
        both = np.isfinite(wa) & np.isfinite(wb)
        if both.any():
            d = np.abs(wa[both] - wb[both])
            equal = float(np.mean(d == 0))
            lsb = float(d.max())
    return Closeness(cosine(a, b), float(diff.max()) if diff.size else float("nan"), equal, lsb)

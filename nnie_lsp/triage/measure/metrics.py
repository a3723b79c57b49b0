"""Per-pair comparison metrics (float64 accumulation, chunked, defined degenerate cases).

``compare_arrays(ref, sim)`` returns a small frozen :class:`Metrics`: cosine similarity, max / mean
absolute error, relative L2 error, SQNR (dB), value ranges, saturation share, sign agreement and
NaN / Inf counts. Metrics are computed on the elements finite on both sides; non-finite elements
are counted, never crash. Degenerate cases (other converters' comparison tools report NaN on
all-zero tensors; here they are defined): both all-zero → cosine 1.0, one all-zero → 0.0.

:class:`Thresholds` holds every number the diagnosis decides with — the guide's four similarity
thresholds (docs/field-facts.md §12) and the project's own evidence limits — configurable. No other
triage module writes a threshold as a bare number.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace

import numpy as np

__all__ = ["Metrics", "Thresholds", "compare_arrays", "cosine", "FIXED_20_12_MAX"]

FIXED_20_12_MAX = (2**31 - 1) / 4096.0  # largest value a 20.12 S32 word holds
_CHUNK = 1 << 20


@dataclass(frozen=True)
class Metrics:
    size: int
    cosine: float
    max_abs_error: float
    mean_abs_error: float
    rel_l2_error: float
    sqnr_db: float
    ref_range: tuple[float, float]
    sim_range: tuple[float, float]
    saturation_share: float
    sign_agreement: float
    nan_ref: int
    nan_sim: int
    inf_ref: int
    inf_sim: int
    note: str | None = None
    finite: int = 0  # elements finite on both sides (the ones the metrics use)
    lsq_scale: float = float("nan")  # k minimising |ref - k*sim|: 1.0 when scales agree

    def to_dict(self) -> dict:
        """JSON-friendly (inf/nan become strings)."""
        out = {}
        for k, v in asdict(self).items():
            if isinstance(v, tuple):
                v = [_jsonable(x) for x in v]
            else:
                v = _jsonable(v)
            out[k] = v
        return out


def _jsonable(v):
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


@dataclass(frozen=True)
class Thresholds:
    """Every threshold the diagnosis uses; all configurable (``--threshold KEY=VALUE``).

    The guide's similarity thresholds (docs/field-facts.md §12, vendor guidance):

    - ``data_layer``: the first (data) layer should reach ≈ 0.999, else preprocessing (case 1).
    - ``good``: a layer at ≥ 0.99 is "fine" (case 4 needs every layer there).
    - ``decay_end``: a final layer below 0.95 after a good start → quantization (case 2).
    - ``middle_dip``: middle layers below 0.90 with a good end → layer matching (case 3).

    The project's own limits [I] (not from the guide), each with the evidence it rests on
    (``benchmarks/bench_verdicts.py``; docs/field-facts.md §12):

    - ``small_abs_error``: max abs error / reference range at or below this is "small".  No longer a
      decision (8-bit clipping of a long-tailed layer gives 0.1-0.16 on healthy runs);
      kept for ``--threshold`` and :meth:`is_small_error`.
    - ``sign_agreement``: below this share of agreeing signs the pair is flagged (sign flips hide
      behind absolute-value cosines).
    - ``data_rel_l2``: a data tensor whose relative L2 error exceeds this is a preprocessing issue
      even when its cosine is 1 (a pure scale difference, such as 1/255 against 1/256).
    - ``scale_tolerance`` / ``magnitude_rel_l2``: a good cosine whose least-squares scale is off by
      more than ``scale_tolerance``, or whose relative L2 error exceeds ``magnitude_rel_l2``, is
      named in case 4's T401 as the largest scale drift (information, not a decision).
    - ``magnitude_min_size``: layers with fewer elements take no part in magnitude decisions (their
      best scale is the ratio of one or two values: MTCNN det2's 2-value conv5-1 shows 0.857 on a
      healthy 8-bit run).
    - ``drift_band_log2``: a layer with cosine ≥ ``good`` whose best scale k has |log2 k| below this
      is 8-bit loss (clipping a long tail, gain drift: healthy 8-bit runs reach |log2 k| = 0.175,
      yufacedetectnet with norm_type 0); outside it, without a decoding factor, one layer's scale
      differs (a Scale/BatchNorm folded differently: step 4).
    - ``decoding_min_layers`` / ``decoding_min_log2`` / ``decoding_band_log2`` / ``decoding_share``
      / ``decoding_data_log2``: a decoding factor K (the median best scale of the layers with at least
      ``magnitude_min_size`` elements and cosine ≥ ``good``) is called when at least
      ``decoding_min_layers`` such layers exist, |log2 K| ≥ ``decoding_min_log2`` (a factor of 2 or
      more: far outside the 8-bit band), at least ``decoding_share`` of them lie within
      ``decoding_band_log2`` octaves of K (one factor on every layer: decoding runs put 100 % within
      0.18 octave), and the data layer, when compared, lies within ``decoding_data_log2`` octaves
      of K (decoded with the same wrong scale) or of 1 (a float data dump read right).
    - ``decoding_named_log2``: log2 K within this of an integer n names the cause: ±4 fraction bits
      (16 or 8 instead of 12), −12 inst words not divided by 4096, +12 divided twice.
    - ``mean_tolerance``: a per-channel mean difference larger than this (grey levels) is a mean
      to fix (127.5 against 128 is 0.5; the fit's own error on real data is below 0.05).
    - ``fit_scale_tolerance``: case 1's fit (``sim ≈ a·ref + b`` per channel) calls a gain ``a``
      further than this from 1 a real scale difference (a [data_scale] edit), and channel gains
      further apart than this (and 2 % of ``a``) a per-channel normalisation: 1/255 against 1/256 is
      3.9e-3 and must stay above it, while the 1/4096 rounding of a 20.12 dump of 8-bit pixel data
      moves ``a`` by less than 1e-4.
    - ``fit_r2``: the fit is believed only when the simulator's data is a per-channel linear
      function of Caffe's with R² at least this (else T106: another image, resize or crop); the
      rounding of a 20.12 or six-digit dump alone leaves R² above 0.99999.
    - ``sudden_drop``: a cosine drop between neighbouring layers larger than this is more than
      quantization noise usually causes (T206).
    - ``sim16_gain``: a 16-bit run that ends at least ``decay_end`` and gains this much over the
      8-bit run confirms quantization (T202).
    - ``layout_gain``: reading a dump in another layout must raise its cosine by this much to
      explain a dip (T302).
    - ``negative_share``: a rectifying in-place layer (ReLU, PReLU) can explain a dip only when more
      than this share of the simulator's values are negative (else there is nothing it changes).
    - ``hp_min_loss``: a layer must lose at least this much similarity against its inputs to be
      an `_hp` candidate.
    - ``topk_agreement`` / ``box_iou``: with ``--postprocess``, two classifications agree when their
      top-1 is the same and this share of their top-k overlaps; two boxes match at this IoU.
    - ``conversion`` / ``conversion_rel_l2``: with ``--framework`` (the ONNX model the Caffe net was
      converted from, :mod:`.framework`), a Caffe blob whose cosine against its ONNX tensor is
      below ``conversion``, or whose relative L2 error exceeds ``conversion_rel_l2`` (a gain the
      cosine cannot see: a lost Scale), was changed by the conversion.  Both sides are float32
      runs of the same arithmetic: a faithful conversion of the MTCNN nets gives cosines above
      1 − 1e-9 and relative errors below 1e-5 on every blob (tests/triage/diagnose/test_conversion.py), the
      issue's bar is 0.9999; an injected converter fault gives cosine ≤ 0.99 or another size.
    """

    data_layer: float = 0.999
    good: float = 0.99
    decay_end: float = 0.95
    middle_dip: float = 0.90
    small_abs_error: float = 0.05
    sign_agreement: float = 0.95
    data_rel_l2: float = 0.002
    scale_tolerance: float = 0.05
    magnitude_rel_l2: float = 0.2
    sudden_drop: float = 0.3
    sim16_gain: float = 0.03
    layout_gain: float = 0.05
    negative_share: float = 0.01
    hp_min_loss: float = 1e-4
    topk_agreement: float = 0.8
    box_iou: float = 0.5
    magnitude_min_size: float = 16
    drift_band_log2: float = 0.5
    decoding_min_layers: float = 3
    decoding_min_log2: float = 1.0
    decoding_band_log2: float = 0.25
    decoding_share: float = 0.9
    decoding_data_log2: float = 0.1
    decoding_named_log2: float = 0.05
    mean_tolerance: float = 0.25
    fit_scale_tolerance: float = 1.5e-3
    fit_r2: float = 0.995
    conversion: float = 0.9999
    conversion_rel_l2: float = 0.01

    @classmethod
    def from_mapping(cls, mapping: dict | None, *, label: str = "threshold") -> "Thresholds":
        """Build from a dict (pyproject / CLI); unknown keys and values that are not numbers within
        the threshold's range raise ``ValueError`` naming the threshold and the value (`label`:
        how the message names the setting, ``--threshold`` on the command line)."""
        if not mapping:
            return cls()
        names = {f.name for f in fields(cls)}
        bad = sorted(set(mapping) - names)
        if bad:
            raise ValueError(f"unknown threshold(s): {', '.join(bad)} (known: {', '.join(sorted(names))})")
        vals = {}
        for k, v in mapping.items():
            lo, hi = _BOUNDS.get(k, (0.0, 1.0))
            within = f"{k} takes a number within [{lo:g}, {hi:g}] (default {getattr(cls, k):g})"
            try:
                value = float(v)
            except (TypeError, ValueError):
                raise ValueError(f"{label} {k}={v}: {str(v)!r} is not a number; {within}") from None
            if not (lo <= value <= hi):   # NaN too
                raise ValueError(f"{label} {k}={v}: out of range; {within}")
            vals[k] = value
        return replace(cls(), **vals)

    def relative_error(self, m: Metrics) -> float:
        lo, hi = m.ref_range
        span = max(abs(hi - lo), abs(hi), abs(lo)) if math.isfinite(lo) and math.isfinite(hi) else float("nan")
        if not span:
            return 0.0 if m.max_abs_error == 0 else float("inf")
        return m.max_abs_error / span

    def is_small_error(self, m: Metrics) -> bool:
        r = self.relative_error(m)
        return bool(r <= self.small_abs_error)

    @property
    def decay_margin(self) -> float:
        """How much the guide lets a whole net lose from a good start to the end (good − decay_end);
        a single layer losing this much on its own is a quantization hot spot."""
        return self.good - self.decay_end

    def status(self, cosine: float | None, *, is_data: bool = False) -> str:
        """The per-layer verdict editors show: ``ok``, ``low`` (< good), ``poor`` (< decay_end),
        ``bad`` (< middle_dip, or a data layer < data_layer), ``nan``; ``unmeasured`` for None."""
        if cosine is None:
            return "unmeasured"
        if not isinstance(cosine, (int, float)) or math.isnan(cosine):
            return "nan"
        if is_data:
            return "ok" if cosine >= self.data_layer else "bad"
        if cosine >= self.good:
            return "ok"
        if cosine >= self.decay_end:
            return "low"
        if cosine >= self.middle_dip:
            return "poor"
        return "bad"


#: Thresholds that are not shares or cosines: their own ranges (every other one is within [0, 1]).
_BOUNDS = {
    "magnitude_min_size": (1.0, 1e9),
    "decoding_min_layers": (1.0, 1e6),
    "decoding_min_log2": (0.0, 64.0),
    "drift_band_log2": (0.0, 64.0),
    "decoding_band_log2": (0.0, 64.0),
    "decoding_data_log2": (0.0, 64.0),
    "mean_tolerance": (0.0, 255.0),
}


def cosine(a, b) -> float:
    """The one cosine similarity of the project (float64, scale-safe, finite elements only).

    Each side is divided by its own max |x| first, so tiny or huge magnitudes neither underflow
    nor overflow when squared. Both all-zero -> 1.0; one all-zero -> 0.0; no finite pair -> NaN.
    :func:`compare_arrays` computes the same quantity chunked, together with the other metrics."""
    x = np.asarray(a, dtype=np.float64).ravel()
    y = np.asarray(b, dtype=np.float64).ravel()
    if x.size != y.size:
        raise ValueError(f"cannot compare {x.size} values with {y.size} values")
    ok = np.isfinite(x) & np.isfinite(y)
    if not ok.all():
        x, y = x[ok], y[ok]
    if x.size == 0:
        return float("nan")
    mx, my = float(np.max(np.abs(x))), float(np.max(np.abs(y)))
    if mx == 0 and my == 0:
        return 1.0
    if mx == 0 or my == 0:
        return 0.0
    x = x / mx
    y = y / my
    value = float(np.dot(x, y)) / math.sqrt(float(np.dot(x, x)) * float(np.dot(y, y)))
    return max(-1.0, min(1.0, value))


def _ranges(a: np.ndarray) -> tuple[float, float, int, int]:
    nan = int(np.count_nonzero(np.isnan(a)))
    inf = int(np.count_nonzero(np.isinf(a)))
    if nan + inf:
        fin = a[np.isfinite(a)]
        if fin.size == 0:
            return float("nan"), float("nan"), nan, inf
        return float(fin.min()), float(fin.max()), nan, inf
    if a.size == 0:
        return float("nan"), float("nan"), 0, 0
    return float(a.min()), float(a.max()), 0, 0


def compare_arrays(ref, sim, *, saturation: float | None = None) -> Metrics:
    """Compare a reference (Caffe) tensor with a simulator tensor.

    ``saturation``: the simulator's clip magnitude when known (e.g. the layer's quantization clip,
    or :data:`FIXED_20_12_MAX`); the saturation share is then the share of finite simulator values
    at or beyond it. Without it, the share counts elements sitting on the simulator's own extreme
    while the reference goes beyond it (a plateau = clipping).

    Sizes must match; equal sizes with different shapes are compared flattened (with a note)."""
    r = np.asarray(ref)
    s = np.asarray(sim)
    notes: list[str] = []
    if r.size != s.size:
        raise ValueError(
            f"cannot compare tensors of different sizes: reference {tuple(r.shape)} ({r.size} values) vs "
            f"simulator {tuple(s.shape)} ({s.size} values)"
        )
    if r.shape != s.shape:
        notes.append(f"shapes differ (reference {tuple(r.shape)}, simulator {tuple(s.shape)}); compared flattened")
    r = r.reshape(-1)
    s = s.reshape(-1)
    n = int(r.size)
    if n == 0:
        nan = float("nan")
        return Metrics(0, nan, nan, nan, nan, nan, (nan, nan), (nan, nan), 0.0, 1.0, 0, 0, 0, 0, "empty tensors", 0)

    # pass 1: ranges and non-finite counts (chunked: bounded temporaries)
    rmin = smin = math.inf
    rmax = smax = -math.inf
    nan_r = nan_s = inf_r = inf_s = 0
    for a in range(0, n, _CHUNK):
        rc = np.asarray(r[a : a + _CHUNK], dtype=np.float64)
        sc = np.asarray(s[a : a + _CHUNK], dtype=np.float64)
        lo, hi, nn, ni = _ranges(rc)
        nan_r += nn
        inf_r += ni
        if not math.isnan(lo):
            rmin, rmax = min(rmin, lo), max(rmax, hi)
        lo, hi, nn, ni = _ranges(sc)
        nan_s += nn
        inf_s += ni
        if not math.isnan(lo):
            smin, smax = min(smin, lo), max(smax, hi)
    ref_abs_max = max(abs(rmin), abs(rmax)) if math.isfinite(rmin) else 0.0
    sim_abs_max = max(abs(smin), abs(smax)) if math.isfinite(smin) else 0.0
    sign_tol = 1e-3 * ref_abs_max

    # pass 2: sums in float64 (the cosine uses copies scaled by each side's max |x| so that tiny
    # or huge magnitudes neither underflow to subnormals nor overflow when squared)
    r_scale = 1.0 / ref_abs_max if ref_abs_max > 0 and math.isfinite(ref_abs_max) else 1.0
    s_scale = 1.0 / sim_abs_max if sim_abs_max > 0 and math.isfinite(sim_abs_max) else 1.0
    dot_n = rr_n = ss_n = 0.0
    dot = rr = ss = ee = abs_sum = 0.0
    max_abs = 0.0
    fin = sat = sign_n = sign_ok = 0
    any_nonfinite = nan_r + nan_s + inf_r + inf_s > 0
    # the raw sums of values beyond 1e154 overflow to inf (the cosine uses the scaled copies): the
    # rel L2 error, the SQNR and the best scale then read NaN, said by the numbers, not a numpy warning
    with np.errstate(over="ignore", invalid="ignore"):
        for a in range(0, n, _CHUNK):
            rc = np.asarray(r[a : a + _CHUNK], dtype=np.float64)
            sc = np.asarray(s[a : a + _CHUNK], dtype=np.float64)
            if any_nonfinite:
                ok = np.isfinite(rc) & np.isfinite(sc)
                rc, sc = rc[ok], sc[ok]
            if rc.size == 0:
                continue
            fin += int(rc.size)
            d = rc - sc
            rcn, scn = rc * r_scale, sc * s_scale
            dot_n += float(np.dot(rcn, scn))
            rr_n += float(np.dot(rcn, rcn))
            ss_n += float(np.dot(scn, scn))
            dot += float(np.dot(rc, sc))
            rr += float(np.dot(rc, rc))
            ss += float(np.dot(sc, sc))
            ee += float(np.dot(d, d))
            ad = np.abs(d)
            abs_sum += float(ad.sum())
            max_abs = max(max_abs, float(ad.max()))
            asc = np.abs(sc)
            if saturation is not None:
                sat += int(np.count_nonzero(asc >= float(saturation) * (1 - 1e-9)))
            elif sim_abs_max > 0:
                plateau = asc >= sim_abs_max * (1 - 1e-6)
                sat += int(np.count_nonzero(plateau & (np.abs(rc) > sim_abs_max * (1 + 1e-3))))
            big = np.abs(rc) > sign_tol
            sign_n += int(np.count_nonzero(big))
            sign_ok += int(np.count_nonzero(big & (np.sign(rc) == np.sign(sc))))

    nan = float("nan")
    if fin == 0:
        notes.append("no element is finite on both sides; metrics undefined")
        return Metrics(n, nan, nan, nan, nan, nan, (rmin if math.isfinite(rmin) else nan, rmax if math.isfinite(rmax) else nan),
                       (smin if math.isfinite(smin) else nan, smax if math.isfinite(smax) else nan), 0.0, nan,
                       nan_r, nan_s, inf_r, inf_s, "; ".join(notes), 0)
    if any_nonfinite:
        bits = []
        if nan_r or inf_r:
            bits.append(f"reference has {nan_r} NaN / {inf_r} Inf")
        if nan_s or inf_s:
            bits.append(f"simulator has {nan_s} NaN / {inf_s} Inf")
        notes.append(", ".join(bits) + f"; metrics use the {fin} elements finite on both sides")

    rn = math.sqrt(rr)
    if rr_n == 0 and ss_n == 0:
        cosine = 1.0
        notes.append("both all-zero")
    elif rr_n == 0 or ss_n == 0:
        cosine = 0.0
        notes.append("reference is all-zero" if rr_n == 0 else "simulator is all-zero")
    else:
        cosine = max(-1.0, min(1.0, dot_n / math.sqrt(rr_n * ss_n)))
    if rr == 0:
        rel = 0.0 if ee == 0 else math.inf
        sqnr = math.inf if ee == 0 else -math.inf
    else:
        rel = math.sqrt(ee) / rn
        sqnr = math.inf if ee == 0 else 10.0 * math.log10(rr / ee)
    sign = 1.0 if sign_n == 0 else sign_ok / sign_n
    lsq = dot / ss if ss > 0 else (1.0 if rr == 0 else nan)
    fin_or_nan = lambda x: x if math.isfinite(x) else nan  # noqa: E731
    return Metrics(
        size=n,
        cosine=float(cosine),
        max_abs_error=max_abs,
        mean_abs_error=min(abs_sum / fin, max_abs),  # summation rounding never exceeds the max
        rel_l2_error=float(rel),
        sqnr_db=float(sqnr),
        ref_range=(fin_or_nan(rmin), fin_or_nan(rmax)),
        sim_range=(fin_or_nan(smin), fin_or_nan(smax)),
        saturation_share=sat / fin,
        sign_agreement=float(sign),
        nan_ref=nan_r,
        nan_sim=nan_s,
        inf_ref=inf_r,
        inf_sim=inf_s,
        note="; ".join(notes) if notes else None,
        finite=fin,
        lsq_scale=float(lsq),
    )

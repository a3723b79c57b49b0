"""Case 1 of the guide: fit the relation between the Caffe and the simulator data tensors.

Model: ``sim[c] ≈ a_c · ref[p(c)] + b_c`` (optionally with H and W swapped), fitted by least squares
for every channel permutation (all of them for 3 channels, identity/reversal otherwise). With the
mapper's preprocessing ``sim = (x − m_sim)·s_sim`` and Caffe's ``ref = (x − m_ref)·s_ref``:
``a = s_sim / s_ref`` and ``b_c = (m_ref − m_sim)·s_sim``, so the fit tells which cfg values
would reproduce Caffe's input: ``data_scale = s_sim / a`` and ``mean = m_sim + b / s_sim``.
``s_sim`` comes from the cfg when given, else from the value grid of the simulator's data (integer
pixels × scale). The result is turned into cfg edits (exact lines when a cfg is given).

The cfg is read through the one preprocessing reading (:mod:`nnie_lsp.readers.cfg.preprocessing`, loaded
by :func:`nnie_lsp.project.project.load_project` as the lint loads it, or taken from the project the
triage's :class:`~.builder.Sources` read): the edits name the entry of the fitted input by the model's per-input
rule, and an input without a key gets an "add a line" edit, never another input's line.
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from nnie_lsp.readers.cfg.preprocessing import (
    CHANNEL_MEAN,
    CHANNEL_ORDERS,
    DEFAULT_DATA_SCALE,
    DEFAULT_RGB_ORDER,
    NAMED_SCALES,
    InputPreprocessing,
    norm_semantics,
    norm_type_for,
)

from nnie_lsp.triage.measure.metrics import Thresholds, cosine

if TYPE_CHECKING:
    from nnie_lsp.project.project import Project

# the fit's limits (fit_scale_tolerance, fit_r2, mean_tolerance) are in Thresholds

@dataclass
class CfgEdit:
    key: str
    new_value: str
    old_value: str | None = None
    line: int | None = None  # 0-based line in the cfg, None = add a line
    new_line: str = ""
    reason: str = ""
    file_content: str | None = None  # for a new channel-mean file
    file_name: str | None = None

    def to_dict(self) -> dict:
        d = asdict(self)
        d["line_1based"] = None if self.line is None else self.line + 1
        return d

    @property
    def summary(self) -> str:
        """The edit in words, naming its key: ``[data_scale] 0.0078125``; an edit that rewrites
        a mean file's content says so (``[mean_file] ./mean.txt: its values → 104 117 123``), one
        that names a new file what it holds."""
        if self.file_content is None:
            return self.new_line
        values = " ".join(self.file_content.split())
        if self.old_value is not None and self.old_value == self.new_value:
            return f"{self.new_line}: its values → {values}"
        return f"{self.new_line} (a file holding {values})"


@dataclass
class PreprocessFit:
    permutation: list[int]
    transposed: bool
    scale: list[float]
    offset: list[float]
    r2: float
    cosine_before: float
    cosine_after: float
    sim_step: float | None
    ref_step: float | None
    sim_scale: float | None  # s_sim used to turn offsets into grey levels
    needed_scale: float | None
    needed_mean: list[float] | None  # per net input channel, in the net's channel order
    current_mean: list[float] | None
    findings: list[str] = field(default_factory=list)
    edits: list[CfgEdit] = field(default_factory=list)
    consistent: bool = True  # the data relation is explained by cfg keys
    #: the NNIE dumps predate the cfg (T008): ``edits`` were measured on the old cfg's dumps and
    #: are not to be applied (they could undo a fix just made); set by ``tree.diagnose``
    edits_withheld: bool = False

    @property
    def swapped(self) -> bool:
        return self.permutation != list(range(len(self.permutation)))

    @property
    def explained(self) -> bool:
        return bool(self.edits) or self.transposed

    def to_dict(self) -> dict:
        d = asdict(self)
        d["edits"] = [e.to_dict() for e in self.edits]
        return d


def value_step(x: np.ndarray) -> float | None:
    """The grid step of a tensor made of integer pixels × scale (None if there is no grid).
    Tolerates the 1/4096 rounding of 20.12 dumps."""
    v = np.unique(np.round(np.asarray(x, dtype=np.float64).ravel(), 9))
    if v.size < 3:
        return None
    gaps = np.diff(v)
    gaps = gaps[gaps > 1e-7]
    if gaps.size == 0:
        return None
    g0 = float(gaps.min())
    # a 20.12 rounding can shrink a gap by up to 1/4096: look at the cluster around the smallest
    cluster = gaps[gaps <= max(g0 * 1.5, g0 + 1.01 / 4096)]
    step = float(np.median(cluster))
    # a real pixel grid: (v - v0)/step is integral for most values
    k = (v - v[0]) / step
    frac = np.abs(k - np.rint(k))
    if np.mean(frac < 0.25 + 1 / 4096 / step) < 0.9:
        return None
    if (v[-1] - v[0]) / step > 4096:  # not an 8-bit image grid
        return None
    return step


def fit_channels(ref: np.ndarray, sim: np.ndarray, perm: tuple[int, ...]):
    scales, offsets, ss_res, ss_tot = [], [], 0.0, 0.0
    flat = False   # a constant simulator channel against a varying Caffe one: no preprocessing does that
    for c, src in enumerate(perm):
        x = ref[src].ravel().astype(np.float64)
        y = sim[c].ravel().astype(np.float64)
        vx = float(np.var(x))
        if vx <= 1e-20:
            a = 1.0
            b = float(np.mean(y) - np.mean(x))
        else:
            a = float(np.mean((x - x.mean()) * (y - y.mean())) / vx)
            b = float(y.mean() - a * x.mean())
            flat = flat or float(np.var(y)) <= 1e-20
        r = y - (a * x + b)
        ss_res += float(r @ r)
        ss_tot += float(((y - y.mean()) ** 2).sum())
        scales.append(a)
        offsets.append(b)
    r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else (1.0 if ss_res < 1e-12 else 0.0)
    if flat:   # a gain of 0 "fits" a constant channel: not a relation between two images
        r2 = 0.0
    return scales, offsets, r2, ss_res


def scale_ratio_text(sim_scale: float | None, caffe_scale: float | None) -> str | None:
    """``256/255`` for the ratio of two scales that are small fractions (2/255 against 1/128),
    else None: the ratio named from the scales themselves, not from the fitted number (a fitted
    1.00391 is as close to 257/256 as to 256/255)."""
    if not sim_scale or not caffe_scale:
        return None
    from fractions import Fraction

    a = Fraction(sim_scale).limit_denominator(1000)
    b = Fraction(caffe_scale).limit_denominator(1000)
    if not b or abs(float(a) - sim_scale) > 1e-6 * sim_scale or abs(float(b) - caffe_scale) > 1e-6 * caffe_scale:
        return None
    r = a / b
    if r.denominator == 1 and r.numerator == 1:
        return None
    return f"{r.numerator}/{r.denominator}" if r.denominator != 1 else f"{r.numerator}"


def _named_scale(s: float) -> tuple[str, str]:
    for val, name, text in NAMED_SCALES:
        if abs(s - val) <= 2e-4 * max(abs(val), 1e-9) + 1e-9:
            return name, text
    return f"{s:.8g}", f"{s:.10g}"


@dataclass(frozen=True)
class _CfgSide:
    """The cfg of the simulator side: given or not, and its reading of the fitted input."""

    given: bool
    input: InputPreprocessing | None = None  # None: no cfg, or it has no such input

    def entry(self, key: str):
        return self.input.entry(key) if self.input is not None else None


def _cfg_side(cfg: str | Path | Project | None, input_index: int = 0):
    """(the cfg's reading of input ``input_index``, its numeric Preprocessing or None).  `cfg`: the
    cfg's path, or the project the triage read it into (:attr:`.builder.Sources.project`): either
    way the one reading, :func:`nnie_lsp.project.project.load_project` without the prototxt."""
    if cfg is None:
        return _CfgSide(False), None
    from nnie_lsp.project.project import Project, load_project
    from nnie_lsp.reference.preprocess import PreprocessError, Preprocessing

    project = cfg if isinstance(cfg, Project) else load_project(cfg_path=str(cfg), load_prototxt=False)
    if project.cfg is None:
        raise ValueError(f"cfg {cfg} cannot be read")
    cfg_input = project.input_preprocessing(input_index)
    prep = None
    if cfg_input is not None:
        try:
            prep = Preprocessing.from_input(cfg_input)
        except PreprocessError:
            prep = None
    return _CfgSide(True, cfg_input), prep


def _fmt(values) -> str:
    return ", ".join(f"{v:g}" for v in values)


def fit_preprocessing(ref: np.ndarray, sim: np.ndarray, *, cfg_path: str | Path | None = None,
                      input_index: int = 0, sim_prep=None, data_layer: float | None = None,
                      cfg_project: Project | None = None, thresholds: Thresholds | None = None) -> PreprocessFit:
    """Fit the simulator's data tensor against Caffe's and propose cfg edits.

    `ref`, `sim`: (C,H,W) (a leading batch dim of 1 is dropped). `cfg_project`: the cfg already
    read (:attr:`.builder.Sources.project`), else `cfg_path` is read. `sim_prep`: the simulator
    side's Preprocessing (from the cfg) when known. `thresholds`: the mean tolerance and the
    data-layer threshold (default :class:`Thresholds`); `data_layer` overrides the latter.
    """
    ref = np.asarray(ref, dtype=np.float64)
    sim = np.asarray(sim, dtype=np.float64)
    while ref.ndim > 3 and ref.shape[0] == 1:
        ref = ref[0]
    while sim.ndim > 3 and sim.shape[0] == 1:
        sim = sim[0]
    if ref.ndim == 2:
        ref = ref[None]
    if sim.ndim == 2:
        sim = sim[None]
    if ref.size != sim.size:
        raise ValueError(f"data tensors differ in size: {ref.shape} vs {sim.shape}")
    if ref.shape != sim.shape:
        sim = sim.reshape(ref.shape)
    c = ref.shape[0]
    perms: list[tuple[int, ...]] = [tuple(range(c))]
    if c == 3:
        perms += [p for p in itertools.permutations(range(3)) if p != (0, 1, 2)]
    elif c > 1:
        perms.append(tuple(reversed(range(c))))
    candidates = []
    for transposed in ([False, True] if ref.shape[1] == ref.shape[2] else [False]):
        r = np.swapaxes(ref, 1, 2) if transposed else ref
        for p in perms:
            scales, offsets, r2, ss = fit_channels(r, sim, p)
            candidates.append((ss, transposed, p, scales, offsets, r2))
    best = min(candidates, key=lambda t: t[0])
    ident = candidates[0]
    # prefer the identity/no-transpose unless the other candidate is clearly better
    if ident[0] <= best[0] * 1.05 + 1e-12:
        best = ident
    ss, transposed, perm, scales, offsets, r2 = best
    r = np.swapaxes(ref, 1, 2) if transposed else ref
    fitted = np.stack([scales[k] * r[perm[k]] + offsets[k] for k in range(c)])
    cfg_side, cfg_prep = _cfg_side(cfg_project if cfg_project is not None else cfg_path, input_index)
    cur_prep = sim_prep or cfg_prep
    sim_step = value_step(sim)
    ref_step = value_step(ref)
    fit = PreprocessFit(permutation=list(perm), transposed=transposed, scale=scales, offset=offsets,
                        r2=r2, cosine_before=cosine(ref, sim), cosine_after=cosine(fitted, sim),
                        sim_step=sim_step, ref_step=ref_step, sim_scale=None, needed_scale=None,
                        needed_mean=None, current_mean=None)
    th = thresholds or Thresholds()
    _interpret(fit, cur_prep, cfg_side, c, th.data_layer if data_layer is None else data_layer, th)
    return fit


def _edit(cfg: _CfgSide, key: str, new: str, reason: str, **kw) -> CfgEdit:
    """An edit of the fitted input's ``key`` line (an added line when that input has none)."""
    e = cfg.entry(key)
    return CfgEdit(key=key, new_value=new, old_value=e.value if e is not None else None,
                   line=e.line if e is not None else None, new_line=f"[{key}] {new}", reason=reason, **kw)


def _interpret(fit: PreprocessFit, prep, cfg: _CfgSide, channels: int, data_layer: float,
               th: Thresholds) -> None:
    f = fit.findings
    mean_tol = th.mean_tolerance
    if fit.r2 < th.fit_r2:
        fit.consistent = False
        f.append(f"the simulator's data is not a per-channel linear function of Caffe's (R² = {fit.r2:.4f}): "
                 "different image (mapper_quant keeps the LAST image of image_list), a different resize/crop "
                 "or letterbox, or a different input file — run the Caffe side on that image with the same resize")
        return
    # --- channel order
    if fit.transposed:
        f.append("the simulator's data is Caffe's data with H and W swapped: the Caffe side transposes the image "
                 "(MATLAB-trained net such as MTCNN); transpose the calibration images and the board input the same "
                 "way (the mapper cannot transpose)")
    if fit.swapped:
        cur = (prep.rgb_order if prep is not None else None)
        cur_known = cur is not None and cfg.entry("RGB_order") is not None
        if cur is None:
            cur = DEFAULT_RGB_ORDER  # mapper default
        new = next(o for o in CHANNEL_ORDERS if o != cur.upper())
        pairs = [f"{c}↔{p}" for c, p in enumerate(fit.permutation) if c < p]
        desc = ("channels 0 and 2 swapped" if fit.permutation == [2, 1, 0]
                else f"channels permuted ({', '.join(pairs)})")
        reason = (f"simulator data equals Caffe data with {desc} → set [RGB_order] {new}"
                  + ("" if cur_known else f" (the cfg {'has no [RGB_order]: default ' + DEFAULT_RGB_ORDER if cfg.given else 'was not given; assuming RGB_order ' + cur})"))
        f.append(reason)
        fit.edits.append(_edit(cfg, "RGB_order", new, reason))
    # --- scale
    a = float(np.mean(fit.scale))
    spread = float(np.max(fit.scale) - np.min(fit.scale)) if fit.scale else 0.0
    norm_type = prep.norm_type if prep is not None else None
    s_sim = None
    if prep is not None:
        s_sim = prep.data_scale if prep.uses_scale else 1.0
    elif fit.sim_step is not None:
        s_sim = fit.sim_step
    fit.sim_scale = s_sim
    if spread > 0.02 * abs(a) and spread > th.fit_scale_tolerance:
        fit.consistent = False
        f.append(f"per-channel scales differ ({_fmt(round(s, 5) for s in fit.scale)}): Caffe normalizes each channel "
                 "differently (std normalization); one [data_scale] cannot express that — fold 1/std into the first "
                 "convolution's weights")
    scale_wrong = abs(a - 1.0) > th.fit_scale_tolerance
    needed_scale = None
    if scale_wrong and s_sim is not None:
        needed_scale = s_sim / a
        sim_name, _ = _named_scale(s_sim)
        need_name, need_text = _named_scale(needed_scale)
        needed_scale = float(need_text) if need_name != f"{needed_scale:.8g}" else needed_scale
        fit.needed_scale = needed_scale
        named = scale_ratio_text(s_sim, needed_scale)
        default = (" (the mapper default)" if abs(s_sim - DEFAULT_DATA_SCALE) < 1e-12 and cfg.input is not None
                   and cfg.input.uses_scale and cfg.input.data_scale_defaulted else "")
        reason = (f"ratio simulator/Caffe = {a:.5f}{' ≈ ' + named if named else ''} → the simulator scales the data "
                  f"by {sim_name}{default}, Caffe by {need_name}: set [data_scale] {need_text}")
        row_nt = norm_semantics(norm_type) if prep is not None else None
        if row_nt is not None and not row_nt.scales:
            # norm_type 0/1/2 multiply by nothing: [data_scale] alone would be ignored by the mapper
            new_nt = norm_type_for(row_nt.mean_kind, True)
            reason = (f"ratio simulator/Caffe = {a:.5f}{' ≈ ' + named if named else ''} → Caffe scales the data by "
                      f"{need_name}; norm_type {norm_type} does not scale (the mapper reads [data_scale] only for "
                      f"norm_type 3/4/5): set [norm_type] {new_nt} and [data_scale] {need_text}")
            fit.edits.append(_edit(cfg, "norm_type", str(new_nt), reason))
        f.append(reason)
        fit.edits.append(_edit(cfg, "data_scale", need_text, reason))
    elif scale_wrong:
        f.append(f"ratio simulator/Caffe = {a:.5f}: the data scales differ; the simulator's scale is unknown "
                 "(give --cfg): set [data_scale] to Caffe's scale")
    # --- mean: b_c = (m_ref - m_sim) * s_sim  (per simulator channel c, source channel p(c))
    if s_sim:
        delta = [b / s_sim for b in fit.offset]
    elif fit.ref_step:
        delta = [b / a / fit.ref_step for b in fit.offset]
    else:
        delta = None
    need = None
    cur_mean = _current_mean(prep, channels)
    if delta is not None:
        # needed mean per channel of the FIXED data order (= Caffe's order): ref channel p(c) gets
        # m_sim[c] + delta[c]
        need = [0.0] * channels
        for c, src in enumerate(fit.permutation):
            need[src] = (cur_mean[c] if cur_mean else 0.0) + delta[c]
        need = [round(v, 3) for v in need]
        if prep is not None:
            # after the fix the mean lines apply in the new channel order
            changed = max(abs(n - m) for n, m in zip(need, cur_mean or [0.0] * channels)) > mean_tol
        else:
            changed = max(abs(d) for d in delta) > mean_tol
            if changed and fit.swapped and abs(sum(delta)) < mean_tol * channels:
                f.append(f"offsets ({_fmt(round(d, 2) for d in delta)}) grey levels remain after the channel swap: "
                         "that is the same channel means applied in the swapped order; check the mean file order "
                         "after fixing [RGB_order] (give --cfg for an exact edit)")
                changed = False
        if not changed:
            need = None
    if need is not None:
        fit.current_mean = cur_mean
        fit.needed_mean = need
        shown = _fmt(round(v, 2) for v in need)
        no_mean_now = prep is None or not prep.uses_mean or not cur_mean or not any(cur_mean)
        if no_mean_now:
            row = norm_semantics(norm_type)
            if row is None:
                scales = (s_sim is not None and abs(s_sim - 1.0) > 1e-9) or bool(needed_scale)
            else:  # keep what the norm_type does to the scale (a mean-subtracting one: scale too)
                scales = row.scales or row.uses_mean or needed_scale is not None
            new_nt = norm_type_for(CHANNEL_MEAN, scales)
            reason = (f"offset ({_fmt(round(d, 2) for d in delta)})×scale → mean not subtracted: "
                      f"norm_type {norm_type if norm_type is not None else '?'} → {new_nt} with a channel mean file "
                      f"holding {shown} (one value per line, in the net's channel order)")
            f.append(reason)
            content = "".join(f"{v:g}\n" for v in need)
            fit.edits = [e for e in fit.edits if e.key != "norm_type"]  # one norm_type: mean and scale
            fit.edits.append(_edit(cfg, "norm_type", str(new_nt), reason))
            fit.edits.append(_edit(cfg, "mean_file", "./channel_mean.txt",
                                   "channel mean file for norm_type " + str(new_nt),
                                   file_content=content, file_name="channel_mean.txt"))
        else:
            reason = (f"offset ({_fmt(round(d, 2) for d in delta)})×scale → the mean differs: the simulator "
                      f"subtracts ({_fmt(round(v, 2) for v in cur_mean)}), Caffe ({shown}); write {shown} into "
                      f"the mean file")
            f.append(reason)
            mf = prep.mean_file if prep is not None else None  # the resolved file
            mean_entry = cfg.entry("mean_file")
            written = mean_entry.value if mean_entry is not None else mf
            fit.edits.append(_edit(cfg, "mean_file", written or "./channel_mean.txt", reason,
                                   file_content="".join(f"{v:g}\n" for v in need),
                                   file_name=Path(mf).name if mf else "channel_mean.txt"))
    if not fit.edits and not fit.transposed and fit.consistent:
        if fit.cosine_before < data_layer:
            f.append(f"the data tensors are linearly related (R² = {fit.r2:.4f}) but no channel order, scale or mean "
                     "difference explains the gap: check the resize method and the image the mapper used")
            fit.consistent = False


def _current_mean(prep, channels: int) -> list[float] | None:
    if prep is None or not prep.uses_mean or prep.mean is None:
        return [0.0] * channels
    m = np.asarray(prep.mean, dtype=np.float64)
    if m.ndim == 1:
        if m.size == 1:
            return [float(m[0])] * channels
        return [float(v) for v in m[:channels]]
    return [float(v) for v in m.reshape(m.shape[0], -1).mean(axis=1)[:channels]]

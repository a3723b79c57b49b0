"""The guide's decision tree (NNIE_REFERENCE.md §12) with a concrete next action per case.

Guide steps: 2 preprocessing (cfg), 3 quantization (`_hp` / compile_mode), 4 layer matching,
5 post-processing, 6 a support bundle. Case k → next step k+1.

- Case 1: data layer < 0.999 (or a scale difference cosine cannot see) → preprocessing fit.
- Case 2: good start, end < 0.95 → quantization; a 16-bit run confirms or rejects; `_hp`
  candidates ranked by single-layer loss, the first convolution first (the guide's advice).
- Case 3: end fine, middle dips < 0.90 → explained by the graph (in-place split NN301/NN302/NN303,
  Permute insertion NN304) or sent to step 6.
- Case 4: every layer ≥ 0.99 with small error → post-processing (optionally run the user's code).
- Anything else is inconclusive, with the reason.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

import numpy as np

from .metrics import Metrics, Thresholds
from .preprocess_fit import PreprocessFit, fit_preprocessing

DATA_REL_L2 = 0.002  # a data tensor off by more than this (relative L2) is a preprocessing issue
HP_TYPES = ("Convolution", "Deconvolution", "InnerProduct", "DepthwiseConvolution")
ACTIVATIONS = ("ReLU", "PReLU", "ELU", "ReLU6", "Clip")
AFFINE = ("Scale", "BatchNorm", "Bias")
PERMUTE_SOURCES = ("Upsample", "ROIPooling", "PSROIPooling")


@dataclass
class Finding:
    code: str
    message: str
    severity: str = "info"  # error | warning | info
    layer: str | None = None
    cfg_key: str | None = None
    line: int | None = None  # 0-based line in the cfg/prototxt it points at
    file: str | None = None
    fix: str | None = None

    def to_dict(self) -> dict:
        d = {k: v for k, v in asdict(self).items() if v is not None}
        if self.line is not None:
            d["line_1based"] = self.line + 1
        return d


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

    @property
    def cosine(self) -> float:
        return self.metrics.cosine if self.metrics is not None else float("nan")

    def arrays(self) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
        """(ref, sim, sim_raw): the stored arrays, or freshly loaded ones (not cached)."""
        if self.ref is not None or self.loader is None:
            return self.ref, self.sim, self.sim_raw
        return self.loader()


@dataclass
class HpCandidate:
    layer: str
    rank: int
    single_layer_loss: float
    cosine: float
    input_cosine: float
    reason: str
    rename: str
    prototxt_line: int | None = None

    def to_dict(self) -> dict:
        d = asdict(self)
        if self.prototxt_line is not None:
            d["prototxt_line_1based"] = self.prototxt_line + 1
        return d


@dataclass
class Diagnosis:
    case: int | None
    next_step: int
    verdict: str
    reason: str
    first_divergence: str | None
    findings: list[Finding] = field(default_factory=list)
    preprocessing: PreprocessFit | None = None
    hp_candidates: list[HpCandidate] = field(default_factory=list)
    dips: list[dict] = field(default_factory=list)
    sim16: dict | None = None
    postprocess: dict | None = None


def _finite(x: float) -> bool:
    return x is not None and not (isinstance(x, float) and math.isnan(x))


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    m = np.isfinite(a) & np.isfinite(b)
    a, b = a[m], b[m]
    na, nb = float(a @ a), float(b @ b)
    if na == 0 and nb == 0:
        return 1.0
    if na == 0 or nb == 0:
        return 0.0
    return float(a @ b / math.sqrt(na * nb))


def _ends(rows: list[LayerRow]) -> list[LayerRow]:
    outs = [r for r in rows if r.is_output and not r.is_data and r.metrics is not None]
    if outs:
        return outs
    body = [r for r in rows if not r.is_data and r.metrics is not None]
    return body[-1:]


def _start(rows: list[LayerRow]) -> LayerRow | None:
    body = [r for r in rows if not r.is_data and r.metrics is not None]
    return body[0] if body else None


# ---------------------------------------------------------------------------------------- case 1
def _data_suspect(r: LayerRow, th: Thresholds) -> bool:
    m = r.metrics
    if m is None:
        return False
    return (not _finite(m.cosine)) or m.cosine < th.data_layer or (_finite(m.rel_l2_error) and m.rel_l2_error > DATA_REL_L2)


def _case1(data_rows: list[LayerRow], diag: Diagnosis, cfg_path, th: Thresholds) -> None:
    r = data_rows[0]
    m = r.metrics
    diag.findings.append(Finding("T101", f"data layer {r.name}: cosine {m.cosine:.6f}, relative L2 error "
                                 f"{m.rel_l2_error:.4g} (needs ≥ {th.data_layer} and ≈ 0): preprocessing differs",
                                 "error", layer=r.name))
    ref, sim, _ = r.arrays()
    if ref is None or sim is None:
        diag.findings.append(Finding("T106", "the data tensors could not be loaded for a fit", "warning", layer=r.name))
        return
    idx = max(0, [d.name for d in data_rows].index(r.name))
    try:
        fit = fit_preprocessing(ref, sim, cfg_path=cfg_path, input_index=idx)
    except ValueError as exc:
        diag.findings.append(Finding("T106", f"preprocessing fit failed: {exc}", "warning", layer=r.name))
        return
    diag.preprocessing = fit
    codes = {"RGB_order": "T102", "data_scale": "T103", "norm_type": "T104", "mean_file": "T104"}
    for e in fit.edits:
        where = f" (cfg line {e.line + 1}: `{e.key}` is `{e.old_value}`)" if e.line is not None else (
            " (add this line to the cfg)" if cfg_path else "")
        msg = f"{e.reason}{where}" if e.key != "mean_file" or not e.file_content else (
            f"write {e.file_name} with {e.file_content.strip().replace(chr(10), ', ')} and point [mean_file] at it{where}")
        diag.findings.append(Finding(codes.get(e.key, "T104"), msg, "error", layer=r.name, cfg_key=e.key,
                                     line=e.line, file=str(cfg_path) if cfg_path and e.line is not None else None,
                                     fix=e.new_line))
    if fit.transposed:
        diag.findings.append(Finding("T105", fit.findings[0], "error", layer=r.name))
    if not fit.consistent:
        for text in fit.findings:
            if "R²" in text or "per-channel scales" in text or "no channel order" in text:
                diag.findings.append(Finding("T106", text, "warning", layer=r.name))


# ---------------------------------------------------------------------------------------- case 2
def _input_cos(r: LayerRow, by_name: dict[str, LayerRow], rows: list[LayerRow]) -> float:
    vals = [by_name[p].cosine for p in r.producers if p in by_name and by_name[p].metrics is not None]
    vals = [v for v in vals if _finite(v)]
    if vals:
        return min(vals)
    prev = [x for x in rows if x.order < r.order and x.metrics is not None and _finite(x.cosine)]
    return prev[-1].cosine if prev else 1.0


def rank_hp_candidates(rows: list[LayerRow], prototxt_text: str | None = None, limit: int = 8) -> list[HpCandidate]:
    by_name = {r.name: r for r in rows}
    pool = [r for r in rows if not r.is_data and r.metrics is not None and _finite(r.cosine)
            and (r.layer_type is None or r.layer_type in HP_TYPES)]
    scored = []
    for r in pool:
        inc = _input_cos(r, by_name, rows)
        scored.append((max(0.0, inc - r.cosine), inc, r))
    first_conv = next((r for r in pool if r.layer_type in ("Convolution", "DepthwiseConvolution", None)), None)
    ordered = sorted(scored, key=lambda t: -t[0])
    out: list[HpCandidate] = []
    if first_conv is not None:
        loss, inc, _ = next(t for t in scored if t[2] is first_conv)
        out.append(_hp(first_conv, loss, inc, "the guide's advice: a high-precision first convolution "
                       "(8-bit error there reaches every later layer)", prototxt_text))
    for loss, inc, r in ordered:
        if first_conv is not None and r is first_conv:
            continue
        if loss <= 1e-4:
            continue
        out.append(_hp(r, loss, inc, f"drops {loss:.4f} below its inputs' similarity ({inc:.4f} → {r.cosine:.4f})",
                       prototxt_text))
        if len(out) >= limit:
            break
    for i, c in enumerate(out, 1):
        c.rank = i
    return out


def _prototxt_name_line(text: str | None, name: str) -> int | None:
    if not text:
        return None
    import re

    pat = re.compile(r'^\s*name\s*:\s*"' + re.escape(name) + r'"\s*$')
    depth = 0
    for i, line in enumerate(text.splitlines()):
        if depth >= 1 and pat.match(line):
            return i
        depth += line.count("{") - line.count("}")
    return None


def _hp(r: LayerRow, loss: float, inc: float, reason: str, prototxt_text: str | None) -> HpCandidate:
    line = _prototxt_name_line(prototxt_text, r.name)
    rename = f'layer "{r.name}" → name: "{r.name}_hp" (top unchanged: "{r.blob or r.name}")'
    return HpCandidate(layer=r.name, rank=0, single_layer_loss=round(loss, 6), cosine=r.cosine,
                       input_cosine=inc, reason=reason, rename=rename, prototxt_line=line)


def _case2(rows, diag: Diagnosis, rows16, th: Thresholds, prototxt_text, cfg_entries) -> None:
    ends = _ends(rows)
    end = min(ends, key=lambda r: r.cosine)
    diag.findings.append(Finding("T201", f"similarity decays from {_start(rows).cosine:.4f} at the start to "
                                 f"{end.cosine:.4f} at {end.name}: quantization error", "error", layer=end.name))
    body = [r for r in rows if not r.is_data and r.metrics is not None and _finite(r.cosine)]
    drops = [(body[i - 1].cosine - body[i].cosine, body[i]) for i in range(1, len(body))]
    if drops:
        big, at = max(drops, key=lambda t: t[0])
        if big > 0.3:
            diag.findings.append(Finding("T206", f"a sudden drop of {big:.3f} at {at.name}: larger than quantization "
                                         "noise usually causes; confirm with a 16-bit run (--sim-16bit)", "warning",
                                         layer=at.name))
    diag.hp_candidates = rank_hp_candidates(rows, prototxt_text)
    for c in diag.hp_candidates[:5]:
        where = f" (prototxt line {c.prototxt_line + 1})" if c.prototxt_line is not None else ""
        diag.findings.append(Finding("T204", f"_hp candidate #{c.rank}: {c.rename}{where} — {c.reason}", "info",
                                     layer=c.layer, line=c.prototxt_line, fix=f'name: "{c.layer}_hp"'))
    cm = (cfg_entries or {}).get("compile_mode")
    if cm is not None:
        if cm.value != "2":
            diag.findings.append(Finding("T207", f"set [compile_mode] 2 (now {cm.value}) so the `_hp` marks take "
                                         f"effect (cfg line {cm.line + 1})", "info", cfg_key="compile_mode",
                                         line=cm.line, fix="[compile_mode] 2"))
    else:
        diag.findings.append(Finding("T207", "add [compile_mode] 2 to the cfg so the `_hp` marks take effect"
                                     if cfg_entries is not None else
                                     "use [compile_mode] 2 in the cfg so the `_hp` marks take effect",
                                     "info", cfg_key="compile_mode", fix="[compile_mode] 2"))


def _sim16_verdict(rows, rows16, diag: Diagnosis, th: Thresholds) -> bool | None:
    """True = quantization confirmed, False = rejected, None = no 16-bit data."""
    if not rows16:
        return None
    e8 = min(r.cosine for r in _ends(rows))
    ends16 = _ends(rows16)
    if not ends16:
        return None
    e16 = min(r.cosine for r in ends16)
    first16 = next((r.name for r in rows16 if not r.is_data and r.metrics is not None and r.cosine < th.good), None)
    diag.sim16 = {"end_cosine_8bit": e8, "end_cosine_16bit": e16, "first_divergence_16bit": first16,
                  "layers": {r.name: r.cosine for r in rows16 if r.metrics is not None}}
    if e16 >= th.good or (e16 >= th.decay_end and e16 - e8 >= 0.03):
        diag.sim16["verdict"] = "confirmed"
        diag.findings.append(Finding("T202", f"the 16-bit run (compile_mode 1) reaches {e16:.4f} at the end vs "
                                     f"{e8:.4f} at 8 bit: quantization confirmed — mark the candidates below `_hp` "
                                     "with compile_mode 2 (compile_mode 1 costs about 2× speed)", "info"))
        return True
    diag.sim16["verdict"] = "rejected"
    diag.findings.append(Finding("T203", f"the 16-bit run ends at {e16:.4f} (8 bit: {e8:.4f}): more precision does "
                                 f"not help, so this is not quantization; it diverges at {first16 or '?'}", "error",
                                 layer=first16))
    return False


# ---------------------------------------------------------------------------------------- case 3
def _layout_alternatives(r: LayerRow) -> tuple[str, float] | None:
    ref, _, sim_raw = r.arrays()
    if ref is None or sim_raw is None:
        return None
    ref = np.asarray(ref, dtype=np.float64)
    while ref.ndim > 3 and ref.shape[0] == 1:
        ref = ref[0]
    if ref.ndim != 3:
        return None
    c, h, w = ref.shape
    flat = np.asarray(sim_raw, dtype=np.float64).reshape(-1)
    if flat.size != ref.size:
        return None
    best = None
    for label, shape, axes in (("H,W,C", (h, w, c), (2, 0, 1)), ("W,H,C", (w, h, c), (2, 1, 0)),
                               ("C,W,H", (c, w, h), (0, 2, 1))):
        try:
            alt = flat.reshape(shape).transpose(axes)
        except ValueError:
            continue
        cs = _cos(ref, alt)
        if best is None or cs > best[1]:
            best = (label, cs)
    return best


def _inplace_check(r: LayerRow) -> tuple[bool, str]:
    """Is the simulator value the blob BEFORE the in-place layers? (numeric evidence)"""
    if not r.inplace:
        return False, ""
    ref, sim, _ = r.arrays()
    if ref is None or sim is None:
        return False, ""
    ref_arr, sim_arr = ref, sim
    ref = np.asarray(ref, dtype=np.float64).reshape(-1)
    sim = np.asarray(sim, dtype=np.float64).reshape(-1)
    if ref.size != sim.size:
        return False, ""
    types = [t for _, t in r.inplace]
    if all(t in ACTIVATIONS for t in types):
        pos = sim > 0  # the activation is the identity where its input is positive
        if pos.sum() < 4:
            return False, ""
        c = _cos(ref[pos], sim[pos])
        neg_share = float(np.mean(sim < 0))
        ok = c >= 0.99 and neg_share > 0.01
        if not ok:
            return False, ""
        return ok, f"where the simulator's value is positive it matches Caffe's (cosine {c:.4f}) and {neg_share:.0%} of the simulator's values are negative: it is the value before the activation"
    if all(t in AFFINE for t in types):
        refc = np.asarray(ref_arr, dtype=np.float64)
        simc = np.asarray(sim_arr, dtype=np.float64).reshape(refc.shape)
        while refc.ndim > 2 and refc.shape[0] == 1:
            refc, simc = refc[0], simc[0]
        if refc.ndim == 1:
            return False, ""
        res = tot = 0.0
        for k in range(refc.shape[0]):
            x, y = simc[k].ravel(), refc[k].ravel()
            if x.size < 2:
                continue
            A = np.vstack([x, np.ones_like(x)]).T
            coef, *_ = np.linalg.lstsq(A, y, rcond=None)
            res += float(((A @ coef - y) ** 2).sum())
            tot += float(((y - y.mean()) ** 2).sum())
        r2 = 1 - res / tot if tot > 0 else 0.0
        return r2 >= 0.99, f"Caffe's value is a per-channel affine function of the simulator's (R² {r2:.4f}): the simulator's is the value before {'/'.join(types)}"
    return False, ""


def _is_dip(r: LayerRow, th: Thresholds, end_ids: set[int]) -> bool:
    if id(r) in end_ids and r.layout == "CHW":
        return False
    if _finite(r.cosine) and r.cosine < th.middle_dip:
        return True
    return r.layout != "CHW" and r.stored_cosine is not None and r.stored_cosine < th.middle_dip


def _magnitude_off(m: Metrics) -> bool:
    """A good cosine with a wrong magnitude (decoding / fraction bits), not quantization noise."""
    k = m.lsq_scale
    return (_finite(k) and abs(k - 1.0) > 0.05) or (_finite(m.rel_l2_error) and m.rel_l2_error > 0.2)


def _lint_code(r: LayerRow) -> str:
    types = [t for _, t in r.inplace]
    if r.producer_type == "Concat" and any(t in ACTIVATIONS for t in types):
        return "NN301"
    if r.producer_type == "InnerProduct" and any(t in AFFINE for t in types):
        return "NN302"
    return "NN303"


def _case3(rows, diag: Diagnosis, th: Thresholds, bundle_hint: str) -> None:
    ends = {id(r) for r in _ends(rows)}
    dips = [r for r in rows if not r.is_data and r.metrics is not None and _is_dip(r, th, ends)]
    for r in dips:
        entry: dict[str, Any] = {"layer": r.name, "cosine": r.cosine, "explained": False, "explanation": None}
        if r.layout != "CHW" and r.stored_cosine is not None:
            lay = ({"HWC": "H,W,C"}.get(r.layout, r.layout), r.cosine)
            entry["cosine_as_stored"] = r.stored_cosine
        else:
            lay = _layout_alternatives(r)
        if lay is not None and lay[1] >= th.good and (lay[1] - r.cosine > 0.05 or r.layout != "CHW"):
            src = r.layer_type if r.layer_type in PERMUTE_SOURCES else (
                r.producer_type if r.producer_type in PERMUTE_SOURCES else None)
            code = "NN304" if src else "layout"
            why = (f"the mapper inserts a Permute after {src} {r.name} (nnie-lint {code}): its dump is in {lay[0]} "
                   f"order; read that way the cosine is {lay[1]:.4f}" if src else
                   f"the simulator's dump of {r.name} is in {lay[0]} order (a Permute the mapper inserted); read that "
                   f"way the cosine is {lay[1]:.4f}")
            entry.update(explained=True, explanation=why, kind="permute", layout=lay[0], cosine_in_layout=lay[1],
                         lint_code="NN304")
            diag.findings.append(Finding("T302", why + " — not an accuracy problem; compare that layer in this "
                                         "layout", "warning", layer=r.name))
        elif r.inplace:
            code = _lint_code(r)
            ok, evidence = _inplace_check(r)
            chain = ", ".join(f"{n} ({t})" for n, t in r.inplace)
            why = (f"blob {r.blob or r.name} is rewritten in place by {chain} after {r.producer_type or 'its producer'} "
                   f"{r.name}: the mapper splits that in-place layer and reports {r.name}'s output before it, while "
                   f"Caffe's blob holds the value after it")
            if evidence:
                why += f" ({evidence})"
            first_inplace = r.inplace[0][0]
            fix = (f'give layer "{first_inplace}" its own top (e.g. top: "{(r.blob or r.name)}_{first_inplace}") and '
                   f"rewire every later bottom \"{r.blob or r.name}\" to it (nnie-lint {code} fix)")
            entry.update(explained=True, explanation=why, kind="inplace-split", lint_code=code, confirmed=ok, fix=fix)
            diag.findings.append(Finding("T301", f"{why}; fix: {fix}", "warning", layer=r.name, fix=fix))
        else:
            entry["explanation"] = "not explained by the graph"
            diag.findings.append(Finding("T303", f"{r.name} dips to {r.cosine:.4f} while the end is fine, and the "
                                         f"graph does not explain it: step 6 — {bundle_hint.format(layer=r.name)}",
                                         "warning", layer=r.name))
        diag.dips.append(entry)


# ---------------------------------------------------------------------------------------- case 4
def compare_postprocess(ref_result: Any, sim_result: Any, top_k: int = 5, iou_threshold: float = 0.5) -> dict:
    """Compare two post-processing results: classification → top-k agreement; detection (dicts
    with 'boxes' [N,4] and 'scores') → boxes matched by IoU with score deltas; else arrays."""
    if isinstance(ref_result, dict) and "boxes" in ref_result:
        return _compare_detections(ref_result, sim_result or {}, iou_threshold)
    r = np.asarray(ref_result.get("scores") if isinstance(ref_result, dict) else ref_result, dtype=np.float64)
    s = np.asarray(sim_result.get("scores") if isinstance(sim_result, dict) else sim_result, dtype=np.float64)
    if r.ndim == 1 or (r.ndim == 2 and r.shape[0] == 1):
        r1, s1 = r.reshape(-1), s.reshape(-1)
        if r1.size == s1.size and r1.size > 1:
            k = min(top_k, r1.size)
            tr, ts = list(np.argsort(-r1)[:k]), list(np.argsort(-s1)[:k])
            agree = len(set(tr) & set(ts)) / k
            return {"kind": "classification", "k": k, "top1_agree": bool(tr[0] == ts[0]), "topk_overlap": agree,
                    "ref_topk": [int(i) for i in tr], "sim_topk": [int(i) for i in ts],
                    "max_score_delta": float(np.max(np.abs(r1 - s1))),
                    "agree": bool(tr[0] == ts[0] and agree >= 0.8)}
    if r.shape != s.shape:
        return {"kind": "array", "agree": False, "reason": f"shapes differ: {r.shape} vs {s.shape}"}
    c = _cos(r, s)
    mad = float(np.max(np.abs(r - s))) if r.size else 0.0
    return {"kind": "array", "cosine": c, "max_abs_error": mad, "agree": bool(c >= 0.999)}


def _iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    x1 = np.maximum(a[:, None, 0], b[None, :, 0])
    y1 = np.maximum(a[:, None, 1], b[None, :, 1])
    x2 = np.minimum(a[:, None, 2], b[None, :, 2])
    y2 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area = lambda z: np.clip(z[:, 2] - z[:, 0], 0, None) * np.clip(z[:, 3] - z[:, 1], 0, None)  # noqa: E731
    union = area(a)[:, None] + area(b)[None, :] - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def _compare_detections(ref: dict, sim: dict, thr: float) -> dict:
    rb = np.asarray(ref.get("boxes", []), dtype=np.float64).reshape(-1, 4)
    sb = np.asarray(sim.get("boxes", []), dtype=np.float64).reshape(-1, 4)
    rs = np.asarray(ref.get("scores", np.ones(len(rb))), dtype=np.float64).reshape(-1)
    ss = np.asarray(sim.get("scores", np.ones(len(sb))), dtype=np.float64).reshape(-1)
    matches, used = [], set()
    if len(rb) and len(sb):
        iou = _iou(rb, sb)
        for i in np.argsort(-rs):
            j = int(np.argmax(np.where([k in used for k in range(len(sb))], -1, iou[i])))
            if iou[i, j] >= thr and j not in used:
                used.add(j)
                matches.append({"ref": int(i), "sim": j, "iou": float(iou[i, j]), "score_delta": float(ss[j] - rs[i])})
    unmatched_ref = len(rb) - len(matches)
    unmatched_sim = len(sb) - len(matches)
    return {"kind": "detection", "ref_boxes": int(len(rb)), "sim_boxes": int(len(sb)), "matched": len(matches),
            "unmatched_ref": unmatched_ref, "unmatched_sim": unmatched_sim,
            "mean_iou": float(np.mean([m["iou"] for m in matches])) if matches else None,
            "max_score_delta": float(max((abs(m["score_delta"]) for m in matches), default=0.0)),
            "matches": matches, "agree": unmatched_ref == 0 and unmatched_sim == 0}


def _case4(rows, diag: Diagnosis, postprocess: Callable | None) -> None:
    worst = min((r for r in rows if r.metrics is not None), key=lambda r: r.cosine)
    diag.findings.append(Finding("T401", f"every layer is ≥ 0.99 (lowest {worst.cosine:.4f} at {worst.name}) with small "
                                 "absolute error: the NNIE side computes what Caffe computes — check the "
                                 "post-processing (decoding, anchors, thresholds, NMS, output order)", "info"))
    if postprocess is None:
        return
    finals = [r for r in _ends(rows)]
    loaded = {r.blob or r.name: r.arrays() for r in finals}
    ref_out = {k: v[0] for k, v in loaded.items()}
    sim_out = {k: v[1] for k, v in loaded.items()}
    try:
        a = postprocess(ref_out)
        b = postprocess(sim_out)
        res = compare_postprocess(a, b)
    except Exception as exc:  # user code: report, never crash
        diag.postprocess = {"error": f"{type(exc).__name__}: {exc}"}
        diag.findings.append(Finding("T404", f"the post-processing function failed: {type(exc).__name__}: {exc}",
                                     "warning"))
        return
    diag.postprocess = res
    if res.get("agree"):
        diag.findings.append(Finding("T403", f"the post-processing gives the same result on both sides ({_pp_summary(res)}): "
                                     "the difference is in the deployment code, not the network", "info"))
    else:
        diag.findings.append(Finding("T402", f"the post-processing results differ ({_pp_summary(res)}): small "
                                     "output differences flip decisions — check thresholds and score precision",
                                     "warning"))


def _pp_summary(res: dict) -> str:
    k = res.get("kind")
    if k == "classification":
        return f"top-1 {'same' if res['top1_agree'] else 'different'}, top-{res['k']} overlap {res['topk_overlap']:.0%}"
    if k == "detection":
        return (f"{res['matched']} of {res['ref_boxes']} Caffe boxes matched by IoU, {res['unmatched_sim']} extra on "
                f"the NNIE side, max score delta {res['max_score_delta']:.4f}")
    if "cosine" in res:
        return f"arrays: cosine {res['cosine']:.6f}, max abs error {res['max_abs_error']:.4g}"
    return res.get("reason", "")


# ---------------------------------------------------------------------------------------- tree
def diagnose(rows: list[LayerRow], *, thresholds: Thresholds | None = None, rows16: list[LayerRow] | None = None,
             cfg_path=None, cfg_entries: dict | None = None, prototxt_text: str | None = None,
             postprocess: Callable | None = None,
             bundle_hint: str = "nnie-triage bundle --layer {layer} …") -> Diagnosis:
    th = thresholds or Thresholds()
    rows = sorted(rows, key=lambda r: r.order)
    measured = [r for r in rows if r.metrics is not None]
    diag = Diagnosis(case=None, next_step=6, verdict="inconclusive", reason="", first_divergence=None)
    nan_rows = [r for r in measured if (r.metrics.nan_sim or r.metrics.inf_sim or r.metrics.nan_ref or r.metrics.inf_ref)]
    for r in nan_rows:
        m = r.metrics
        diag.findings.append(Finding("T003", f"{r.name}: NaN/Inf values (Caffe {m.nan_ref} NaN / {m.inf_ref} Inf, "
                                     f"NNIE {m.nan_sim} NaN / {m.inf_sim} Inf); metrics use the finite values only",
                                     "warning", layer=r.name))
    if not measured:
        diag.reason = "no tensor pair could be compared (nothing aligned)"
        diag.findings.append(Finding("T001", diag.reason, "error"))
        return diag
    data_rows = [r for r in measured if r.is_data]
    body = [r for r in measured if not r.is_data and _finite(r.cosine)]
    # first divergence (network order)
    if data_rows and any(_data_suspect(r, th) for r in data_rows):
        diag.first_divergence = next(r.name for r in data_rows if _data_suspect(r, th))
    else:
        diag.first_divergence = next((r.name for r in body if r.cosine < th.good), None)
    # ------------------------------------------------------------- case 1
    if data_rows and any(_data_suspect(r, th) for r in data_rows):
        bad = [r for r in data_rows if _data_suspect(r, th)]
        _case1(bad, diag, cfg_path, th)
        diag.case, diag.next_step = 1, 2
        diag.verdict = "preprocessing mismatch (case 1)"
        fit = diag.preprocessing
        if fit is not None and fit.edits:
            diag.reason = "the data layers differ; fix the cfg: " + "; ".join(e.new_line for e in fit.edits)
        elif fit is not None and fit.transposed:
            diag.reason = "the data layers differ by an H/W transpose"
        else:
            diag.reason = "the data layers differ and no cfg change explains it (see findings)"
        return diag
    if not data_rows:
        diag.findings.append(Finding("T002", "no data-layer pair: the preprocessing could not be checked (case 1); "
                                     "include the data blob in both dump sets", "warning"))
    if not body:
        diag.reason = "only the data layer could be compared"
        diag.findings.append(Finding("T001", diag.reason, "error"))
        diag.next_step = 6
        return diag
    start = body[0]
    ends = _ends(rows)
    end_cos = min(r.cosine for r in ends)
    end_row = min(ends, key=lambda r: r.cosine)
    end_ids = {id(r) for r in ends}
    all_good = all(r.cosine >= th.good for r in body)
    layout_dips = [r for r in body if r.layout != "CHW" and _is_dip(r, th, end_ids)]
    # ------------------------------------------------------------- case 4
    if all_good and not layout_dips:
        big = [r for r in body if not th.is_small_error(r.metrics) and _magnitude_off(r.metrics)]
        if not big:
            _case4(rows, diag, postprocess)
            diag.case, diag.next_step = 4, 5
            diag.verdict = "post-processing (case 4)"
            diag.reason = f"every layer ≥ {th.good} with small absolute error"
            return diag
        r = big[0]
        k = r.metrics.lsq_scale
        diag.reason = (f"cosines are all ≥ {th.good} but {r.name}'s absolute error is large "
                       f"({th.relative_error(r.metrics):.3g} of its range, best scale {k:.4g}): a magnitude/decoding "
                       "difference (fixed-point fraction bits, a Scale folded differently), not a case of the guide")
        diag.findings.append(Finding("T001", diag.reason, "warning", layer=r.name))
        diag.next_step = 6
        return diag
    # ------------------------------------------------------------- case 2
    confirmed = None
    if end_cos < th.decay_end and not all_good:
        confirmed = _sim16_verdict(rows, rows16, diag, th)
        if confirmed is False:
            diag.case, diag.next_step = None, 6
            diag.verdict = "inconclusive: not quantization"
            fd = diag.sim16.get("first_divergence_16bit") or diag.first_divergence
            diag.reason = (f"the end falls to {end_cos:.4f} but a 16-bit run does not recover it: look at {fd} "
                           f"(step 6: {bundle_hint.format(layer=fd)})")
            return diag
        if start.cosine < th.good:
            diag.findings.append(Finding("T208", f"the first layer {start.name} is already at {start.cosine:.4f}: "
                                         "8-bit error from the first layer on (the guide: first and last < 0.99 → "
                                         "quantization)", "warning", layer=start.name))
        _case2(rows, diag, rows16, th, prototxt_text, cfg_entries)
        diag.case, diag.next_step = 2, 3
        diag.verdict = "quantization error (case 2)" + (" — confirmed by the 16-bit run" if confirmed else "")
        diag.reason = (f"good start ({start.name} {start.cosine:.4f}), end {end_row.name} at {end_cos:.4f} < "
                       f"{th.decay_end}")
        return diag
    # ------------------------------------------------------------- case 3
    dips = [r for r in body if _is_dip(r, th, end_ids)]
    if dips:
        _case3(rows, diag, th, bundle_hint)
        diag.case, diag.next_step = 3, 4
        explained = sum(1 for d in diag.dips if d["explained"])
        diag.verdict = "layer matching (case 3)"
        diag.reason = (f"end {end_row.name} at {end_cos:.4f} but {len(dips)} middle layer(s) below {th.middle_dip}: "
                       f"{explained} explained by the graph, {len(dips) - explained} for step 6")
        return diag
    # ------------------------------------------------------------- inconclusive
    low = [r for r in body if r.cosine < th.good]
    if end_cos < th.good:
        diag.next_step = 3
        diag.reason = (f"the end reaches {end_cos:.4f} ({end_row.name}): between {th.decay_end} and {th.good}, with no "
                       f"middle dip below {th.middle_dip} — ordinary 8-bit loss, not one of the guide's patterns; if "
                       "the application results are wrong, try the `_hp` candidates or a 16-bit run")
        diag.hp_candidates = rank_hp_candidates(rows, prototxt_text)
        _sim16_verdict(rows, rows16, diag, th)
    else:
        diag.next_step = 5
        diag.reason = (f"the end is fine ({end_cos:.4f}) and no middle layer is below {th.middle_dip}, but "
                       f"{len(low)} layer(s) are below {th.good} (lowest {min(low, key=lambda r: r.cosine).name}): "
                       "neither case 3 nor case 4 of the guide")
    diag.findings.append(Finding("T001", diag.reason, "info"))
    return diag

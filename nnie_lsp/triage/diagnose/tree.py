"""The guide's decision tree (docs/field-facts.md §12): which case a comparison is, its findings
(engine Diagnostics with T-codes) and the next step.

Guide steps: 2 preprocessing (cfg), 3 quantization (`_hp` / compile_mode), 4 layer matching,
5 post-processing, 6 a support bundle. Case k → next step k+1.

- Case 1: data layer < ``data_layer`` (or a scale difference cosine cannot see) → the
  preprocessing fit (:mod:`.preprocess_findings`).
- Case 2: good start, end < ``decay_end`` → quantization; a 16-bit run confirms or rejects; the
  `_hp` plan and candidates (:mod:`.quantization_findings`).
- Case 3: end fine, middle dips < ``middle_dip`` → explained by the graph or sent to step 6
  (:mod:`.layer_matching_findings`).
- Case 4: every layer ≥ ``good`` with small error → post-processing (:mod:`.postprocess`).
- Anything else is inconclusive (T001), with the reason.

Layers that could not be compared are never counted as fine: whatever the case, T004 says how
many there are and the verdict's reason says "every compared layer (n of m)".

Every number comes from :class:`~.metrics.Thresholds`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ...diagnostics import Diagnostic, Severity
from .builder import FindingBuilder, Sources
from .layer_matching import is_dip, layer_matching_findings
from ..measure.metrics import Metrics, Thresholds
from .postprocessing import postprocess_findings
from .preprocessing import data_suspect, diagnose_data_layer
from .preprocess_fit import PreprocessFit
from .quantization import HpCandidate, quantization_findings, rank_hp_candidates, sim16_verdict
from ..measure.rows import LayerRow, ends, finite, measured_body

BUNDLE_HINT = "nnie-triage bundle --layer {layer} …"


@dataclass
class Diagnosis:
    case: int | None
    next_step: int
    verdict: str
    reason: str
    first_divergence: str | None
    findings: list[Diagnostic] = field(default_factory=list)
    preprocessing: PreprocessFit | None = None
    hp_candidates: list[HpCandidate] = field(default_factory=list)
    dips: list[dict] = field(default_factory=list)
    sim16: dict | None = None
    postprocess: dict | None = None


def _magnitude_off(m: Metrics, th: Thresholds) -> bool:
    """A good cosine with a wrong magnitude (decoding / fraction bits), not quantization noise."""
    k = m.lsq_scale
    return (finite(k) and abs(k - 1.0) > th.scale_tolerance) or (finite(m.rel_l2_error)
                                                                 and m.rel_l2_error > th.magnitude_rel_l2)


def _inconclusive(diag: Diagnosis, builder: FindingBuilder, msg_id: str, *, severity: Severity,
                  layer: str | None = None, **params) -> None:
    """T001: `reason` gets the English text, the finding the run's language."""
    diag.reason = builder.english("T001", msg_id, layer=layer or "?", **params)
    builder.add("T001", msg_id, severity=severity, layer=layer, place=builder.sources.layer_place(layer), **params)


def _input_index(row: LayerRow, data_rows: list[LayerRow], sources: Sources) -> int:
    """Which network input a data row is (the cfg's input group): the prototxt's input order."""
    blob = row.blob or row.name
    if sources.graph is not None:
        names = [i.name for i in sources.graph.inputs]
        if blob in names:
            return names.index(blob)
    return next(i for i, r in enumerate(data_rows) if r is row)


def diagnose(rows: list[LayerRow], *, thresholds: Thresholds | None = None, rows16: list[LayerRow] | None = None,
             sources: Sources | None = None, postprocess: Callable | None = None,
             bundle_hint: str = BUNDLE_HINT) -> Diagnosis:
    th = thresholds or Thresholds()
    builder = FindingBuilder(sources)
    ordered = sorted(rows, key=lambda r: r.order)
    diag = _tree(ordered, th, rows16, builder, postprocess, bundle_hint)
    _not_compared(ordered, builder)
    diag.findings = builder.items
    return diag


MAX_NAMED = 5


def uncompared_body(rows: list[LayerRow]) -> list[LayerRow]:
    """The rows after the data layers without a number (one side missing, not loadable, sizes
    differ, non-finite cosine): what :func:`measured_body` leaves out."""
    return [r for r in rows if not r.is_data and (r.metrics is None or not finite(r.cosine))]


def _not_compared(rows: list[LayerRow], builder: FindingBuilder) -> None:
    """T004: the verdict rests on the compared layers only; say how many were not compared."""
    missing = uncompared_body(rows)
    compared = measured_body(rows)
    if not missing or not compared:
        return  # nothing at all compared is T001's own finding
    named = "; ".join(f"{r.name}: {r.note}" if r.note else r.name for r in missing[:MAX_NAMED])
    if len(missing) > MAX_NAMED:
        named += "; …"
    first = missing[0].name
    builder.add("T004", "uncompared", place=builder.sources.layer_place(first), layer=first, count=len(missing),
                total=len(missing) + len(compared), compared=len(compared), layers=named)


def _tree(rows: list[LayerRow], th: Thresholds, rows16: list[LayerRow] | None, builder: FindingBuilder,
          postprocess: Callable | None, bundle_hint: str) -> Diagnosis:
    src = builder.sources
    measured = [r for r in rows if r.metrics is not None]
    diag = Diagnosis(case=None, next_step=6, verdict="inconclusive", reason="", first_divergence=None)
    for r in measured:
        m = r.metrics
        if m.nan_sim or m.inf_sim or m.nan_ref or m.inf_ref:
            builder.add("T003", "non_finite", place=src.node_place(r.name), layer=r.name, nan_ref=m.nan_ref,
                        inf_ref=m.inf_ref, nan_sim=m.nan_sim, inf_sim=m.inf_sim)
    if not measured:
        _inconclusive(diag, builder, "nothing_aligned", severity=Severity.ERROR)
        return diag
    data_rows = [r for r in measured if r.is_data]
    body = measured_body(rows)
    bad_data = [r for r in data_rows if data_suspect(r, th)]
    # first divergence (network order)
    if bad_data:
        diag.first_divergence = bad_data[0].name
    else:
        diag.first_divergence = next((r.name for r in body if r.cosine < th.good), None)
    # ------------------------------------------------------------- case 1
    if bad_data:
        row = bad_data[0]
        fit = diagnose_data_layer(row, _input_index(row, data_rows, src), builder, th)
        diag.preprocessing = fit
        diag.case, diag.next_step = 1, 2
        diag.verdict = "preprocessing mismatch (case 1)"
        if fit is not None and fit.edits:
            diag.reason = "the data layers differ; fix the cfg: " + "; ".join(e.new_line for e in fit.edits)
        elif fit is not None and fit.transposed:
            diag.reason = "the data layers differ by an H/W transpose"
        else:
            diag.reason = "the data layers differ and no cfg change explains it (see findings)"
        return diag
    if not data_rows:
        builder.add("T002", "no_data")
    if not body:
        _inconclusive(diag, builder, "only_data", severity=Severity.ERROR)
        return diag
    first = body[0]
    end_rows = ends(rows)
    end_row = min(end_rows, key=lambda r: r.cosine)
    end_cos = end_row.cosine
    end_ids = {id(r) for r in end_rows}
    all_good = all(r.cosine >= th.good for r in body)
    layout_dips = [r for r in body if r.layout != "CHW" and is_dip(r, th, end_ids)]
    # ------------------------------------------------------------- case 4
    if all_good and not layout_dips:
        big = [r for r in body if not th.is_small_error(r.metrics) and _magnitude_off(r.metrics, th)]
        if not big:
            diag.postprocess = postprocess_findings(rows, th, builder, postprocess)
            diag.case, diag.next_step = 4, 5
            diag.verdict = "post-processing (case 4)"
            uncompared = uncompared_body(rows)
            diag.reason = (f"every layer ≥ {th.good} with small absolute error" if not uncompared else
                           f"every compared layer ({len(body)} of {len(body) + len(uncompared)}) ≥ {th.good} "
                           f"with small absolute error; {len(uncompared)} not compared (T004)")
            return diag
        r = big[0]
        _inconclusive(diag, builder, "magnitude", severity=Severity.WARNING, layer=r.name, good=th.good,
                      relative=f"{th.relative_error(r.metrics):.3g}", scale=f"{r.metrics.lsq_scale:.4g}")
        return diag
    # ------------------------------------------------------------- case 2
    if end_cos < th.decay_end and not all_good:
        confirmed, diag.sim16 = sim16_verdict(rows, rows16, th, builder)
        if confirmed is False:
            diag.verdict = "inconclusive: not quantization"
            where = diag.sim16.get("first_divergence_16bit") or diag.first_divergence
            _inconclusive(diag, builder, "not_quantization", severity=Severity.INFO, layer=where,
                          end=f"{end_cos:.4f}", command=bundle_hint.format(layer=where))
            return diag
        if first.cosine < th.good:
            builder.add("T208", "first_low", place=src.layer_place(first.name), layer=first.name,
                        cosine=f"{first.cosine:.4f}", good=th.good)
        diag.hp_candidates = quantization_findings(rows, th, builder)
        diag.case, diag.next_step = 2, 3
        diag.verdict = "quantization error (case 2)" + (" — confirmed by the 16-bit run" if confirmed else "")
        diag.reason = (f"good start ({first.name} {first.cosine:.4f}), end {end_row.name} at {end_cos:.4f} < "
                       f"{th.decay_end}")
        return diag
    # ------------------------------------------------------------- case 3
    dips = [r for r in body if is_dip(r, th, end_ids)]
    if dips:
        diag.dips = layer_matching_findings(rows, th, builder, bundle_hint)
        diag.case, diag.next_step = 3, 4
        explained = sum(1 for d in diag.dips if d["explained"])
        diag.verdict = "layer matching (case 3)"
        diag.reason = (f"end {end_row.name} at {end_cos:.4f} but {len(dips)} middle layer(s) below {th.middle_dip}: "
                       f"{explained} explained by the graph, {len(dips) - explained} for step 6")
        return diag
    # ------------------------------------------------------------- inconclusive
    if end_cos < th.good:
        diag.next_step = 3
        diag.hp_candidates = rank_hp_candidates(rows, th, builder)
        _confirmed, diag.sim16 = sim16_verdict(rows, rows16, th, builder)
        _inconclusive(diag, builder, "mild_decay", severity=Severity.INFO, layer=end_row.name,
                      end=f"{end_cos:.4f}", decay_end=th.decay_end, good=th.good, middle_dip=th.middle_dip)
    else:
        low = [r for r in body if r.cosine < th.good]
        diag.next_step = 5
        _inconclusive(diag, builder, "neither", severity=Severity.INFO,
                      layer=min(low, key=lambda r: r.cosine).name, end=f"{end_cos:.4f}",
                      middle_dip=th.middle_dip, count=len(low), good=th.good)
    return diag

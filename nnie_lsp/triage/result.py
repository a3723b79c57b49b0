"""One comparison's result and its JSON: :class:`TriageResult` (what the pipeline returns,
:mod:`nnie_lsp.triage.pipeline`) and ``TriageResult.to_json()``, the documented schema
(``SCHEMA_VERSION``, ``docs/triage-schema.md``), which the report module renders as text, markdown
or HTML.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from nnie_lsp.triage.diagnose.builder import finding_json
from nnie_lsp.triage.diagnose.tree import Diagnosis
from nnie_lsp.triage.measure.metrics import Thresholds
from nnie_lsp.triage.measure.rows import LayerRow

if TYPE_CHECKING:
    from nnie_lsp.triage.diagnose.builder import Sources

SCHEMA_VERSION = 2  # docs/triage-schema.md: what changed from 1


@dataclass
class TriageResult:
    diagnosis: Diagnosis
    rows: list[LayerRow]
    rows16: list[LayerRow] | None
    unmatched_ref: list[str]
    unmatched_sim: list[str]
    notes: list[str]
    warnings: list[str]
    inputs: dict[str, Any]
    thresholds: Thresholds
    elapsed_s: float = 0.0
    input_codes: list = field(default_factory=list)  # input_codes.CodeFileReport per code file
    images: dict | None = None  # several images: measure/images.py fills it (and the rows' cosine_images)
    places: dict[str, tuple[str, int, int]] = field(default_factory=dict)  # row name -> (path, line, column) 1-based
    framework: Any = None  # the hop ONNX → Caffe (measure/framework.py FrameworkHop), with --framework
    build: dict | None = None  # the .wk beside the cfg the NNIE dumps are checked against (inputs/build.py)
    reference_source: dict | None = None  # where the Caffe side's preprocessing came from (T100)
    board: dict | None = None  # the board's dumps checked (board/stage.py board_json), with --board
    hp_plan: Any = None  # the `_hp` plan of a case-2 result (hp_plan/for_compare.py ComparePlan)

    # ------------------------------------------------------------------ JSON schema v2
    def to_json(self) -> dict:
        d = self.diagnosis
        first = d.first_divergence
        rows = []
        for r in self.rows:
            m = r.metrics
            row: dict[str, Any] = {
                "name": r.name, "blob": r.blob, "order": r.order, "type": r.layer_type,
                "matched_by": r.matched_by, "confidence": _num(r.confidence),
                "shape": list(r.shape) if r.shape is not None else None,
                "is_data": r.is_data, "is_output": r.is_output,
                "first_divergence": r.name == first,
                "status": self.thresholds.status(r.cosine if m is not None else None, is_data=r.is_data),
                "note": r.note,
            }
            if m is not None:
                md = m.to_dict()
                for k in ("cosine", "max_abs_error", "mean_abs_error", "rel_l2_error", "sqnr_db", "ref_range",
                          "sim_range", "saturation_share", "sign_agreement", "nan_ref", "nan_sim", "inf_ref",
                          "inf_sim", "size", "lsq_scale"):
                    if k in md:
                        row[k] = md[k]
                if m.note:
                    row["metrics_note"] = m.note
            else:
                row["cosine"] = None
                row["max_abs_error"] = None
            if r.cosine_images is not None:  # several images: the distribution of this layer's cosine
                row.update(_spread(r.cosine_images))
            if r.name in self.places:  # the layer's name (or the input's) in the prototxt
                row["path"], row["line"], row["column"] = self.places[r.name]
            rows.append(row)
        doc = {
            "schema_version": SCHEMA_VERSION,
            "tool": "nnie-triage",
            "case": d.case,
            "next_step": d.next_step,
            "next_step_text": d.next_step_text,
            "verdict": d.verdict,
            "reason": d.reason,
            "first_divergence": first,
            "inputs": self.inputs,
            "thresholds": {k: getattr(self.thresholds, k) for k in self.thresholds.__dataclass_fields__},
            "layers": rows,
            "unmatched": {"reference": self.unmatched_ref, "sim": self.unmatched_sim},
            "findings": [finding_json(f) for f in d.findings],
            "preprocessing": _preprocessing_json(d.preprocessing),
            "hp_candidates": [c.to_dict() for c in d.hp_candidates],
            "hp_plan": self.hp_plan.to_json() if self.hp_plan is not None else None,
            "dips": [_clean(x) for x in d.dips],
            "sim16": _clean(d.sim16) if d.sim16 is not None else None,
            "postprocess": _clean(d.postprocess) if d.postprocess is not None else None,
            "decoding": _clean(d.decoding) if d.decoding is not None else None,
            "bad_dumps": _clean(d.bad_dumps) if d.bad_dumps is not None else None,
            "input_codes": [c.to_json() for c in self.input_codes],
            "images": _clean(self.images) if self.images is not None else None,
            "reference_source": _clean(self.reference_source) if self.reference_source is not None else None,
            "alignment_notes": self.notes,
            "warnings": self.warnings,
            "build": self.build,
            "elapsed_s": round(self.elapsed_s, 3),
        }
        if self.framework is not None:  # the second hop's columns (framework_cosine …) and section
            from nnie_lsp.triage.measure.framework import annotate
            annotate(self.framework, doc)
        if self.board is not None:  # the last hop: the board's dumps (docs/triage-schema.md, "The board")
            doc["board"] = _clean(self.board)
        return doc


def _spread(cosines) -> dict:
    """cosine_min / cosine_median / worst_image / cosine_images of one layer over the images."""
    known = [(i, c) for i, c in enumerate(cosines) if c is not None and math.isfinite(c)]
    out: dict[str, Any] = {"cosine_images": [_num(c) if c is not None else None for c in cosines]}
    if known:
        values = [c for _, c in known]
        out["cosine_min"] = min(values)
        out["cosine_median"] = float(np.median(values))
        out["worst_image"] = min(known, key=lambda item: item[1])[0]
    else:
        out["cosine_min"] = out["cosine_median"] = out["worst_image"] = None
    return out


def _num(v):
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _clean(x):
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    if isinstance(x, (np.floating,)):
        x = float(x)
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.bool_,)):
        return bool(x)
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def _preprocessing_json(fit) -> dict | None:
    """The case-1 fit; its cfg edits with 1-based ``line`` like every line in the JSON (None = a
    line to add)."""
    if fit is None:
        return None
    out = _clean(fit.to_dict())
    for edit in out.get("edits", []):
        edit["line"] = edit.pop("line_1based", None)
    return out


def row_places(rows: list[LayerRow], sources: Sources) -> dict[str, tuple[str, int, int]]:
    """Where each row's layer (or network input) is named in the prototxt, 1-based, as the
    findings write places (``path`` relative to the working directory)."""
    from nnie_lsp.core.diagnostic_json import rel

    out: dict[str, tuple[str, int, int]] = {}
    for r in rows:
        place = sources.node_place(r.name)
        if place is not None:
            path, rng = place
            out[r.name] = (rel(path), rng.start.line + 1, rng.start.character + 1)
    return out

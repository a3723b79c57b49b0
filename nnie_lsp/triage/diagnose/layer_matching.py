"""Case 3 (guide step 4): middle layers dip below ``middle_dip`` while the end is fine.

Each dip is explained by the graph or sent to step 6:

- T302: the dump is in another layout (a Permute the mapper inserts after Upsample/ROIPooling/
  PSROIPooling — the layer table's ``mapper_inserts_permute``), read that way the cosine is good;
- T301: the blob is rewritten in place after its producer; the mapper splits the in-place layer and
  reports the value before it.  Which lint rule covers the pair comes from the engine's one
  definition (:func:`nnie_lsp.rules.layer_matching.split_code`, honouring ``extra-inplace-pairs``);
  the fix is nnie-lint's de-inplace fix (safe: the graph computes the same);
- T303: unexplained → a support bundle (step 6).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...fixes import deinplace_edits
from ...diagnostics import FileEdit
from ...output import fix_json
from ...prototxt import layers as layer_table
from ...prototxt.graph import GraphLayer
from ...rules.layer_matching import inplace_heads, split_code
from .builder import FindingBuilder
from ..measure.metrics import Thresholds, cosine
from ..measure.rows import LayerRow, ends, finite

LAYOUTS = (("H,W,C", (2, 0, 1)), ("W,H,C", (2, 1, 0)), ("C,W,H", (0, 2, 1)))  # label, axes back to C,H,W


def is_dip(r: LayerRow, th: Thresholds, end_ids: set[int]) -> bool:
    if id(r) in end_ids and r.layout == "CHW":
        return False
    if finite(r.cosine) and r.cosine < th.middle_dip:
        return True
    return r.layout != "CHW" and r.stored_cosine is not None and r.stored_cosine < th.middle_dip


def layout_alternatives(r: LayerRow) -> tuple[str, float] | None:
    """The best cosine of the simulator's stored values read in another layout, with its label."""
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
    dims = {"C": c, "H": h, "W": w}
    best = None
    for label, axes in LAYOUTS:
        shape = tuple(dims[d] for d in label.split(","))
        alt = flat.reshape(shape).transpose(axes)
        value = cosine(ref, alt)
        if best is None or value > best[1]:
            best = (label, value)
    return best


@dataclass(frozen=True)
class Evidence:
    """Numbers showing the simulator's value is the one BEFORE the in-place layers."""

    confirmed: bool
    msg_id: str = ""
    params: tuple[tuple[str, str], ...] = ()


def inplace_evidence(r: LayerRow, th: Thresholds) -> Evidence:
    if not r.inplace:
        return Evidence(False)
    ref, sim, _ = r.arrays()
    if ref is None or sim is None:
        return Evidence(False)
    ref_flat = np.asarray(ref, dtype=np.float64).reshape(-1)
    sim_flat = np.asarray(sim, dtype=np.float64).reshape(-1)
    if ref_flat.size != sim_flat.size:
        return Evidence(False)
    types = [t for _, t in r.inplace]
    if all(layer_table.is_activation(t) for t in types):
        positive = sim_flat > 0  # a rectifying activation is the identity where its input is positive
        if positive.sum() < 4:
            return Evidence(False)
        agree = cosine(ref_flat[positive], sim_flat[positive])
        negative = float(np.mean(sim_flat < 0))
        if agree >= th.good and negative > th.negative_share:
            return Evidence(True, "evidence_activation", (("cosine", f"{agree:.4f}"), ("negative", f"{negative:.0%}")))
        return Evidence(False)
    if all(_is_normalization(t) for t in types):
        r2 = _affine_r2(np.asarray(ref, dtype=np.float64), np.asarray(sim, dtype=np.float64))
        if r2 is not None and r2 >= th.good:
            return Evidence(True, "evidence_affine", (("r2", f"{r2:.4f}"), ("types", "/".join(types))))
    return Evidence(False)


def _is_normalization(layer_type: str) -> bool:
    spec = layer_table.lookup(layer_type)
    return spec is not None and spec.category == "normalization"


def _affine_r2(ref: np.ndarray, sim: np.ndarray) -> float | None:
    """R² of Caffe's value as a per-channel affine function of the simulator's."""
    sim = sim.reshape(ref.shape)
    while ref.ndim > 2 and ref.shape[0] == 1:
        ref, sim = ref[0], sim[0]
    if ref.ndim == 1:
        return None
    residual = total = 0.0
    for k in range(ref.shape[0]):
        x, y = sim[k].ravel(), ref[k].ravel()
        if x.size < 2:
            continue
        design = np.vstack([x, np.ones_like(x)]).T
        coef, *_ = np.linalg.lstsq(design, y, rcond=None)
        residual += float(((design @ coef - y) ** 2).sum())
        total += float(((y - y.mean()) ** 2).sum())
    return 1 - residual / total if total > 0 else 0.0


def _split(r: LayerRow, builder: FindingBuilder) -> tuple[GraphLayer | None, str, str, str]:
    """(the first in-place layer in the graph, its name, its type, the lint code of the pair)."""
    src = builder.sources
    producer = src.layer(r.name)
    if producer is not None and src.graph is not None:
        for prod, layer in inplace_heads(src.graph):
            if prod is producer:
                return layer, layer.name, layer.type, split_code(src.settings, prod.type, layer.type)
    name, layer_type = r.inplace[0]
    return None, name, layer_type, split_code(src.settings, r.producer_type or "", layer_type)


def layer_matching_findings(rows: list[LayerRow], th: Thresholds, builder: FindingBuilder,
                            bundle_hint: str) -> list[dict[str, Any]]:
    """T301/T302/T303 for every dip; returns the JSON's `dips` entries."""
    end_ids = {id(r) for r in ends(rows)}
    dips = [r for r in rows if not r.is_data and r.metrics is not None and is_dip(r, th, end_ids)]
    entries = []
    for r in dips:
        entry: dict[str, Any] = {"layer": r.name, "cosine": r.cosine, "explained": False, "explanation": None}
        if r.layout != "CHW" and r.stored_cosine is not None:
            layout = ({"HWC": "H,W,C"}.get(r.layout, r.layout), r.cosine)
            entry["cosine_as_stored"] = r.stored_cosine
        else:
            layout = layout_alternatives(r)
        if layout is not None and layout[1] >= th.good and (layout[1] - r.cosine > th.layout_gain or r.layout != "CHW"):
            _permute(r, layout, builder, entry)
        elif r.inplace:
            _inplace_split(r, th, builder, entry)
        else:
            diag = builder.add("T303", "unexplained", place=builder.sources.layer_place(r.name), layer=r.name,
                               cosine=f"{r.cosine:.4f}", command=bundle_hint.format(layer=r.name))
            entry["explanation"] = diag.message
        entries.append(entry)
    return entries


def _permute(r: LayerRow, layout: tuple[str, float], builder: FindingBuilder, entry: dict) -> None:
    source = next((t for t in (r.layer_type, r.producer_type) if t and _inserts_permute(t)), None)
    params = {"layout": layout[0], "cosine": f"{layout[1]:.4f}"}
    place = builder.sources.layer_place(r.name)
    if source:
        diag = builder.add("T302", "permute", place=place, layer=r.name, type=source, **params)
    else:
        diag = builder.add("T302", "layout", place=place, layer=r.name, **params)
    entry.update(explained=True, explanation=diag.message, kind="permute", layout=layout[0],
                 cosine_in_layout=layout[1], lint_code="NN304")


def _inserts_permute(layer_type: str) -> bool:
    spec = layer_table.lookup(layer_type)
    return bool(spec and spec.mapper_inserts_permute)


def _inplace_split(r: LayerRow, th: Thresholds, builder: FindingBuilder, entry: dict) -> None:
    src = builder.sources
    layer, inplace_name, _type, code = _split(r, builder)
    evidence = inplace_evidence(r, th)
    blob = r.blob or r.name
    fix = None
    if layer is not None and src.prototxt is not None and src.graph is not None:
        new_blob, edits = deinplace_edits(src.prototxt, src.graph, layer)
        fix = builder.fix("T301", "fix", [FileEdit(src.prototxt.path, e) for e in edits], safe=True,
                          layer=layer.name, blob=new_blob, lint_code=code)
    evidence_text = builder.text("T301", evidence.msg_id, **dict(evidence.params)) if evidence.confirmed else ""
    chain = ", ".join(f"{n} ({t})" for n, t in r.inplace)
    home = src.layer_place(inplace_name) or src.layer_place(r.name)
    related = builder.related("T301", "dip", src.layer_place(r.name), layer=r.name, cosine=f"{r.cosine:.4f}")
    diag = builder.add("T301", "split", place=home, layer=r.name, fix=fix, related=related, blob=blob, chain=chain,
                       producer_type=r.producer_type or "its producer", evidence=evidence_text, lint_code=code,
                       inplace=inplace_name)
    entry.update(explained=True, explanation=diag.message, kind="inplace-split", lint_code=code,
                 confirmed=evidence.confirmed, fix=fix_json(diag))

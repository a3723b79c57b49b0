"""Case 4 (guide step 5): every layer matches → the post-processing.

With ``--postprocess module:function`` the user's decoding runs on both sides' final outputs
(a dict of output blob name → array) and the results are compared: classification → top-k
agreement; detection (dicts with ``boxes`` [N,4] and ``scores``) → boxes matched by IoU with
score deltas; anything else → array similarity.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .builder import FindingBuilder
from ..measure.metrics import Thresholds, cosine
from ..measure.rows import LayerRow, ends


def compare_postprocess(ref_result: Any, sim_result: Any, *, thresholds: Thresholds | None = None,
                        top_k: int = 5) -> dict:
    """Compare two post-processing results (see the module docstring)."""
    th = thresholds or Thresholds()
    if isinstance(ref_result, dict) and "boxes" in ref_result:
        return _compare_detections(ref_result, sim_result or {}, th.box_iou)
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
                    "agree": bool(tr[0] == ts[0] and agree >= th.topk_agreement)}
    if r.shape != s.shape:
        return {"kind": "array", "agree": False, "reason": f"shapes differ: {r.shape} vs {s.shape}"}
    similarity = cosine(r, s)
    mad = float(np.max(np.abs(r - s))) if r.size else 0.0
    return {"kind": "array", "cosine": similarity, "max_abs_error": mad, "agree": bool(similarity >= th.data_layer)}


def _iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    x1 = np.maximum(a[:, None, 0], b[None, :, 0])
    y1 = np.maximum(a[:, None, 1], b[None, :, 1])
    x2 = np.minimum(a[:, None, 2], b[None, :, 2])
    y2 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)

    def area(z: np.ndarray) -> np.ndarray:
        return np.clip(z[:, 2] - z[:, 0], 0, None) * np.clip(z[:, 3] - z[:, 1], 0, None)

    union = area(a)[:, None] + area(b)[None, :] - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def _compare_detections(ref: dict, sim: dict, min_iou: float) -> dict:
    rb = np.asarray(ref.get("boxes", []), dtype=np.float64).reshape(-1, 4)
    sb = np.asarray(sim.get("boxes", []), dtype=np.float64).reshape(-1, 4)
    rs = np.asarray(ref.get("scores", np.ones(len(rb))), dtype=np.float64).reshape(-1)
    ss = np.asarray(sim.get("scores", np.ones(len(sb))), dtype=np.float64).reshape(-1)
    matches, used = [], set()
    if len(rb) and len(sb):
        iou = _iou(rb, sb)
        for i in np.argsort(-rs):
            j = int(np.argmax(np.where([k in used for k in range(len(sb))], -1, iou[i])))
            if iou[i, j] >= min_iou and j not in used:
                used.add(j)
                matches.append({"ref": int(i), "sim": j, "iou": float(iou[i, j]), "score_delta": float(ss[j] - rs[i])})
    unmatched_ref = len(rb) - len(matches)
    unmatched_sim = len(sb) - len(matches)
    return {"kind": "detection", "ref_boxes": int(len(rb)), "sim_boxes": int(len(sb)), "matched": len(matches),
            "unmatched_ref": unmatched_ref, "unmatched_sim": unmatched_sim,
            "mean_iou": float(np.mean([m["iou"] for m in matches])) if matches else None,
            "max_score_delta": float(max((abs(m["score_delta"]) for m in matches), default=0.0)),
            "matches": matches, "agree": unmatched_ref == 0 and unmatched_sim == 0}


def postprocess_findings(rows: list[LayerRow], th: Thresholds, builder: FindingBuilder,
                         postprocess: Callable | None) -> dict | None:
    """T401, then with a post-processing function T402/T403/T404. Returns the JSON's `postprocess`."""
    worst = min((r for r in rows if r.metrics is not None), key=lambda r: r.cosine)
    builder.add("T401", "postprocess", good=th.good, cosine=f"{worst.cosine:.4f}", worst=worst.name)
    if postprocess is None:
        return None
    loaded = {r.blob or r.name: r.arrays() for r in ends(rows)}
    ref_out = {k: v[0] for k, v in loaded.items()}
    sim_out = {k: v[1] for k, v in loaded.items()}
    try:
        result = compare_postprocess(postprocess(ref_out), postprocess(sim_out), thresholds=th)
    except Exception as exc:  # user code: report, never crash
        error = f"{type(exc).__name__}: {exc}"
        builder.add("T404", "failed", error=error)
        return {"error": error}
    code, msg_id = ("T403", "same") if result.get("agree") else ("T402", "differs")
    builder.add(code, msg_id, summary=_summary(code, result, builder))
    return result


def _summary(code: str, res: dict, builder: FindingBuilder) -> str:
    kind = res.get("kind")
    if kind == "classification":
        same = builder.text(code, "top1_same" if res["top1_agree"] else "top1_different")
        return builder.text(code, "classification", top1=same, k=res["k"], overlap=f"{res['topk_overlap']:.0%}")
    if kind == "detection":
        return builder.text(code, "detection", matched=res["matched"], ref_boxes=res["ref_boxes"],
                            extra=res["unmatched_sim"], delta=f"{res['max_score_delta']:.4f}")
    if "cosine" in res:
        return builder.text(code, "array", cosine=f"{res['cosine']:.6f}", error=f"{res['max_abs_error']:.4g}")
    return builder.text(code, "reason", reason=res.get("reason", ""))

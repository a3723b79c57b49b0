"""Case 4 (guide step 5): every layer matches → the post-processing.

With ``--postprocess module:function`` the user's decoding runs on both sides' final outputs
(a dict of output blob name → array) and the results are compared: classification → top-k
agreement; detection (dicts with ``boxes`` [N,4] and ``scores``) → boxes matched by IoU with
score deltas; anything else → array similarity.  T401-T404 are registered here, beside the code
that emits them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.core.registry import Messages
from nnie_lsp.rules.triage_common import register_finding
from nnie_lsp.triage.diagnose.builder import FindingBuilder
from nnie_lsp.triage.measure.rows import LayerRow, ends

if TYPE_CHECKING:  # numpy: imported where results are compared, not when the T-codes are registered
    import numpy as np

    from nnie_lsp.triage.measure.metrics import Thresholds


def compare_postprocess(ref_result: Any, sim_result: Any, *, thresholds: Thresholds | None = None,
                        top_k: int = 5) -> dict:
    """Compare two post-processing results (see the module docstring)."""
    import numpy as np

    from nnie_lsp.triage.measure.metrics import Thresholds, cosine

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
    import numpy as np

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
    import numpy as np

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


#: How a post-processing comparison is summed up (T402/T403)
POSTPROCESS_SUMMARY: Messages = {
    "classification": ("top-1 {top1}, top-{k} overlap {overlap}", "top-1 {top1}，top-{k} 重合 {overlap}"),
    "top1_same": ("same", "相同"),
    "top1_different": ("different", "不同"),
    "detection": ("{matched} of {ref_boxes} Caffe boxes matched by IoU, {extra} extra on the NNIE side, "
                  "max score delta {delta}",
                  "Caffe 的 {ref_boxes} 个框中有 {matched} 个按 IoU 匹配，NNIE 侧多出 {extra} 个，最大分数差 {delta}"),
    "array": ("arrays: cosine {cosine}, max abs error {error}", "数组：余弦 {cosine}，最大绝对误差 {error}"),
    "reason": ("{reason}", "{reason}"),
}


#: case 4's finding "check the post-processing" (a later stage's verdict, e.g. conversion, drops it)
CHECK_POSTPROCESSING = "T401"

register_finding(
    __name__,
    "T401", "check-postprocessing", Severity.INFO, 5,
    summary=("Every layer matches: check the post-processing (case 4)", "各层都一致：检查后处理（情况 4）"),
    messages={"postprocess": ("every layer is ≥ {good} (lowest {cosine} at {worst}) and every best scale is within "
                              "the 8-bit band: the NNIE side computes what Caffe computes — check the post-processing "
                              "(decoding, anchors, thresholds, NMS, output order)",
                              "每一层都 ≥ {good}（最低为 {worst} 的 {cosine}）且每层的最佳缩放都在 8 比特范围内：NNIE 与 Caffe "
                              "的计算一致——请检查后处理（解码、anchor、阈值、NMS、输出顺序）"),
              "postprocess_drift": ("every layer is ≥ {good} (lowest {cosine} at {worst}) and every best scale is within "
                                    "the 8-bit band (|log2| < {band}); the largest drift is {layer}'s best scale {scale} "
                                    "(max abs error {relative} of its range): 8-bit clipping / gain drift, not a "
                                    "decoding fault — the layer to watch if the results differ. The NNIE side "
                                    "computes what Caffe computes — check the post-processing (decoding, anchors, "
                                    "thresholds, NMS, output order)",
                                    "每一层都 ≥ {good}（最低为 {worst} 的 {cosine}）且每层的最佳缩放都在 8 比特范围内（|log2| < {band}）；"
                                    "偏离最大的是 {layer}，最佳缩放 {scale}（最大绝对误差占其取值范围的 {relative}）：这是 8 比特截断/增益漂移，"
                                    "不是解码错误——若结果不同，应关注该层。NNIE 与 Caffe 的计算一致——请检查后处理（解码、anchor、阈值、NMS、输出顺序）")},
    docs="""
    ## What it finds
    Every layer at ≥ `good` (0.99) and every layer's best scale within the 8-bit band
    (|log2 k| < `drift_band_log2`; layers under `magnitude_min_size` elements do not count).  When
    a layer's best scale is off by more than `scale_tolerance` the message names the largest such
    drift: 8-bit clipping of a long tail moves it by up to about 10-20 % on healthy runs.

    ## Why
    Guide step 5: when the network matches, wrong results on the board come from the
    post-processing code (box decoding, anchors, thresholds, NMS, the order of the outputs).
    `--postprocess module:function` runs your decoding on both sides (T402/T403).

    ## Example
    ```
    T401 every layer is ≥ 0.99 (lowest 0.9967 at conv4-2) and every best scale is within the 8-bit band
    ```

    ## Fix
    None automatic: compare the deployment code's post-processing with the reference.
    """,
    docs_zh="每一层都 ≥ good（0.99）且每层的最佳缩放都在 8 比特范围内（|log2 k| < drift_band_log2）；有层的缩放偏离超过 scale_tolerance 时，消息给出偏离最大的层。指南第 5 步：网络一致时，板端结果错误来自后处理代码（框解码、anchor、阈值、NMS、输出顺序）。"
            "用 --postprocess module:function 可在两侧运行你的解码（T402/T403）。")


register_finding(
    __name__,
    "T402", "postprocess-differs", Severity.WARNING, 5,
    summary=("The post-processing results differ", "后处理结果不同"),
    messages={"differs": ("the post-processing results differ ({summary}): small output differences flip "
                          "decisions — check thresholds and score precision",
                          "后处理结果不同（{summary}）：输出的微小差异改变了判定——请检查阈值和分数精度"),
              **POSTPROCESS_SUMMARY},
    docs="""
    ## What it finds
    With `--postprocess`: your post-processing function gives different results on the Caffe and
    the NNIE outputs (top-1, top-k overlap, IoU-matched boxes or array similarity).

    ## Why
    Guide step 5: outputs that agree at 0.99 can still flip a threshold or an NMS decision; the
    thresholds and the score precision decide whether that matters.

    ## Example
    ```
    T402 the post-processing results differ (3 of 4 Caffe boxes matched by IoU, 0 extra ...)
    ```

    ## Fix
    None automatic.
    """,
    docs_zh="给出 --postprocess 时：你的后处理函数在 Caffe 与 NNIE 输出上给出不同结果（top-1、top-k 重合、按 IoU 匹配的框或数组相似度）。"
            "指南第 5 步：0.99 一致的输出仍可能改变阈值或 NMS 的判定。")


register_finding(
    __name__,
    "T403", "postprocess-agrees", Severity.INFO, 5,
    summary=("The post-processing gives the same result on both sides", "后处理在两侧给出相同结果"),
    messages={"same": ("the post-processing gives the same result on both sides ({summary}): the difference is in "
                       "the deployment code, not the network",
                       "后处理在两侧给出相同结果（{summary}）：差异在部署代码中，而不在网络"),
              **POSTPROCESS_SUMMARY},
    docs="""
    ## What it finds
    With `--postprocess`: your post-processing function gives the same result on both sides.

    ## Why
    Guide step 5: when the network and the reference post-processing agree, a wrong result on the
    board is in the deployment code (its own decoding, input handling or output order).

    ## Example
    ```
    T403 the post-processing gives the same result on both sides (top-1 same, top-5 overlap 100%)
    ```

    ## Fix
    None automatic.
    """,
    docs_zh="给出 --postprocess 时：你的后处理函数在两侧给出相同结果。指南第 5 步：网络与参考后处理一致时，板端的错误在部署代码中（其解码、输入处理或输出顺序）。")


register_finding(
    __name__,
    "T404", "postprocess-failed", Severity.WARNING, 5,
    summary=("The post-processing function raised an error", "后处理函数出错"),
    messages={"failed": ("the post-processing function failed: {error}", "后处理函数运行失败：{error}")},
    docs="""
    ## What it finds
    With `--postprocess`: your function raised an exception on one of the sides.

    ## Why
    Guide step 5 needs the post-processing to run on both sides' outputs (a dict of output blob
    name → array); the error is reported instead of stopping the triage.

    ## Example
    ```
    T404 the post-processing function failed: KeyError: 'prob1'
    ```

    ## Fix
    None automatic: fix the function (the outputs are keyed by blob name).
    """,
    docs_zh="给出 --postprocess 时：你的函数在某一侧抛出异常。第 5 步需要后处理能在两侧的输出（输出 blob 名 → 数组）上运行；错误会被报告而不会中断排查。")


def postprocess_findings(rows: list[LayerRow], th: Thresholds, builder: FindingBuilder,
                         postprocess: Callable | None, *, drift=None) -> dict | None:
    """T401 (naming `drift`, the largest best-scale drift (:func:`.decoding.largest_drift`), when it is
    more than ``scale_tolerance`` / ``magnitude_rel_l2``), then with a post-processing function
    T402/T403/T404. Returns the JSON's `postprocess`."""
    worst = min((r for r in rows if r.metrics is not None), key=lambda r: r.cosine)
    m = drift.row.metrics if drift is not None else None
    if m is not None and (abs(drift.scale - 1.0) > th.scale_tolerance or m.rel_l2_error > th.magnitude_rel_l2):
        builder.add("T401", "postprocess_drift", good=th.good, cosine=f"{worst.cosine:.4f}", worst=worst.name,
                    band=th.drift_band_log2, layer=drift.row.name, scale=f"{drift.scale:.4g}",
                    relative=f"{th.relative_error(m):.3g}")
    else:
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

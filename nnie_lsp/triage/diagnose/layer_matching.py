"""Case 3 (guide step 4): middle layers dip below ``middle_dip`` while the end is fine.

Each dip is explained by the graph or sent to step 6:

- T302: the dump is in another layout (a Permute the mapper inserts after Upsample/ROIPooling/
  PSROIPooling — the layer table's ``mapper_inserts_permute``), read that way the cosine is good;
- T301: the blob is rewritten in place after its producer; the mapper splits the in-place layer and
  reports the value before it.  Which lint rule covers the pair comes from the engine's one
  definition (:func:`nnie_lsp.rules.layer_matching.split_code`, honouring ``extra-inplace-pairs``);
  the fix is nnie-lint's de-inplace fix (safe: the graph computes the same).  The split explains
  the dip only when the numbers confirm it: the in-place layer applied to the simulator's value
  (ReLU with its negative_slope, PReLU with the caffemodel's slopes — fitted per channel when the
  caffemodel is not at hand —, Sigmoid, TanH; Dropout is the identity at test time) recovers the cosine to ``good``, or Caffe's value is
  a per-channel affine function of the simulator's (BatchNorm/Scale).  Otherwise the split is
  listed as possible, and the dip still counts for step 6;
- T303: unexplained → a support bundle (step 6).

Each T-code is registered here, beside the code that emits it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nnie_lsp.rules.fixes import deinplace_edits
from nnie_lsp.core.diagnostic_json import encode_fix
from nnie_lsp.core.diagnostics import FileEdit, Severity
from nnie_lsp.readers.prototxt import layers as layer_table
from nnie_lsp.readers.prototxt.graph import GraphLayer
from nnie_lsp.rules.layer_matching import inplace_heads, split_code
from nnie_lsp.rules.triage_common import register_finding
from nnie_lsp.triage.diagnose.builder import FindingBuilder, Sources
from nnie_lsp.triage.measure.rows import LayerRow, ends, finite

if TYPE_CHECKING:  # numpy: imported where the arrays are read, not when the T-codes are registered
    import numpy as np

    from nnie_lsp.triage.measure.metrics import Thresholds

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
    import numpy as np

    from nnie_lsp.triage.measure.metrics import cosine

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


def inplace_evidence(r: LayerRow, th: Thresholds, sources: Sources | None = None) -> Evidence:
    """Confirmed when applying the in-place layers to the simulator's value recovers Caffe's
    (activations), or Caffe's value is a per-channel affine function of it (normalizations).  An
    unconfirmed result carries ``msg_id`` ``why_*`` saying what was tried."""
    if not r.inplace:
        return Evidence(False)
    ref, sim, _ = r.arrays()
    if ref is None or sim is None:
        return Evidence(False, "why_no_arrays")
    import numpy as np

    ref = np.asarray(ref, dtype=np.float64)
    sim = np.asarray(sim, dtype=np.float64)
    if ref.size != sim.size:
        return Evidence(False, "why_no_arrays")
    sim = sim.reshape(ref.shape)
    types = [t for _, t in r.inplace]
    shown = "/".join(types)
    if all(t in APPLIED for t in types):
        from nnie_lsp.triage.measure.metrics import cosine

        if any(t in RECTIFIERS for t in types) and float(np.mean(sim < 0)) <= th.negative_share:
            return Evidence(False, "why_no_negatives", (("types", shown),))

        value, fitted = sim, False
        for name, layer_type in r.inplace:
            value, was_fitted = _apply(layer_type, name, value, ref, sources, th)
            fitted = fitted or was_fitted
        applied = cosine(ref, value)
        params = (("types", shown), ("cosine", f"{applied:.4f}"), ("before", f"{r.cosine:.4f}"))
        if applied >= th.good and applied > r.cosine:
            return Evidence(True, "evidence_fitted" if fitted else "evidence_applied", params)
        if fitted and applied > r.cosine and not set(types) - {"ReLU", "PReLU", "Dropout"}:
            # slopes unknown (no caffemodel): the layers are the identity where the value is positive,
            # so there the simulator's value must already be Caffe's
            positive = sim > 0
            if int(positive.sum()) >= th.magnitude_min_size:
                agree = cosine(ref[positive], sim[positive])
                if agree >= th.good:
                    return Evidence(True, "evidence_positive", params + (("positive", f"{agree:.4f}"),))
        return Evidence(False, "why_applied", params)
    if all(_is_normalization(t) for t in types):
        r2 = _affine_r2(ref, sim)
        if r2 is not None and r2 >= th.good:
            return Evidence(True, "evidence_affine", (("r2", f"{r2:.4f}"), ("types", shown)))
        return Evidence(False, "why_affine", (("r2", f"{r2 if r2 is not None else float('nan'):.4f}"),
                                              ("types", shown)))
    return Evidence(False, "why_unchecked", (("types", shown),))


#: In-place layer types whose effect :func:`_apply` reproduces on the simulator's value.
APPLIED = frozenset({"ReLU", "PReLU", "Sigmoid", "TanH", "Dropout"})
RECTIFIERS = frozenset({"ReLU", "PReLU"})



def _apply(layer_type: str, name: str, x: np.ndarray, ref: np.ndarray, sources: Sources | None, th: Thresholds):
    """(the layer applied to `x`, whether parameters had to be fitted against `ref`)."""
    import numpy as np

    if layer_type == "Dropout":  # the identity at test time (Caffe scales while training)
        return x, False
    if layer_type == "Sigmoid":
        return 1.0 / (1.0 + np.exp(-np.clip(x, -60, 60))), False
    if layer_type == "TanH":
        return np.tanh(x), False
    if layer_type == "ReLU":
        slope = 0.0
        gl = sources.layer(name) if sources is not None else None
        if gl is not None:
            try:
                slope = float(gl.param.relu_param.negative_slope)
            except (AttributeError, ValueError):
                slope = 0.0
        return np.where(x > 0, x, slope * x), False
    # PReLU: the caffemodel's slopes (one per channel, or one shared), else fitted per channel
    axis = 1 if x.ndim == 4 else 0  # (N,C,H,W) or (C,H,W) / (C,H) / (C,): channels first
    c = x.shape[axis]
    shape = [1] * x.ndim
    shape[axis] = c
    slopes = _prelu_slopes(name, sources)
    fitted = False
    if slopes is None or np.asarray(slopes).size not in (1, c):
        # one slope per channel when each channel has ``magnitude_min_size`` values (the fewest a
        # scale is fitted from), else one shared slope: a slope per value reproduces any value
        neg = x < 0
        other = tuple(i for i in range(x.ndim) if i != axis) if x.size >= th.magnitude_min_size * c else None
        num = np.where(neg, x * ref, 0.0).sum(axis=other)
        den = np.where(neg, x * x, 0.0).sum(axis=other)
        slopes = np.divide(num, den, out=np.zeros(np.shape(num)), where=den > 0)
        fitted = True
    per = np.broadcast_to(np.asarray(slopes, dtype=np.float64).reshape(-1), (c,)).reshape(shape)
    return np.where(x > 0, x, per * x), fitted


def _prelu_slopes(name: str, sources: Sources | None):
    """The PReLU layer's slopes from the caffemodel the cfg names (None when unavailable)."""
    path = _caffemodel(sources)
    if path is None:
        return None
    weights = _WEIGHTS.get(path)
    if weights is None:
        from nnie_lsp.readers.caffemodel import NetLoadError, read_weights

        try:
            weights = read_weights(path)
        except (NetLoadError, OSError):
            weights = {}
        _WEIGHTS.clear()  # one caffemodel at a time: a diagnosis reads one net
        _WEIGHTS[path] = weights
    blobs = weights.get(name)
    return blobs[0] if blobs else None


_WEIGHTS: dict[str, dict] = {}


def _caffemodel(sources: Sources | None) -> str | None:
    project = sources.project if sources is not None else None
    if project is None:
        return None
    for ref in project.refs:
        if ref.entry.key == "caffemodel_file" and ref.resolved:
            return ref.resolved
    return None


def _is_normalization(layer_type: str) -> bool:
    spec = layer_table.lookup(layer_type)
    return spec is not None and spec.category == "normalization"


def _affine_r2(ref: np.ndarray, sim: np.ndarray) -> float | None:
    """R² of Caffe's value as a per-channel affine function of the simulator's."""
    import numpy as np

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


register_finding(
    __name__,
    "T303", "unexplained-dip", Severity.WARNING, 4,
    summary=("A middle-layer dip the graph does not explain: step 6", "图结构无法解释的中间层下降：第 6 步"),
    messages={"unexplained": ("{layer} dips to {cosine} while the end is fine, and the graph does not explain it: "
                              "step 6 — {command}",
                              "{layer} 下降到 {cosine} 而末层正常，且图结构无法解释：第 6 步——{command}")},
    docs="""
    ## What it finds
    In case 3, a middle layer below `middle_dip` (0.90) with a good end, explained neither by an
    in-place split (T301) nor by a layout (T302).

    ## Why
    Guide step 4 lists the structural rewrites the mapper makes; a dip none of them explains is
    for step 6: a support bundle with the layer's dumps, the model and the mapper log.

    ## Example
    ```
    T303 conv5 dips to 0.8120 while the end is fine ...: step 6 — nnie-triage bundle --layer conv5 ...
    ```

    ## Fix
    None automatic: run the `nnie-triage bundle` command in the message.
    """,
    docs_zh="情况 3 中，某中间层低于 middle_dip（0.90）而末层正常，且既不是原位拆分（T301）也不是布局问题（T302）。"
            "指南第 4 步列出的结构改写都无法解释时，转到第 6 步：用消息中的 `nnie-triage bundle` 命令打包提交。")


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
            _inplace_split(r, th, builder, entry, bundle_hint)
        else:
            diag = builder.add("T303", "unexplained", place=builder.sources.layer_place(r.name), layer=r.name,
                               cosine=f"{r.cosine:.4f}", command=bundle_hint.format(layer=r.name))
            entry["explanation"] = diag.message
        entries.append(entry)
    return entries


register_finding(
    __name__,
    "T302", "permute-layout-dip", Severity.WARNING, 4,
    summary=("A dip explained by the dump's layout (a Permute the mapper inserts)",
             "由 dump 布局（mapper 插入的 Permute）造成的相似度下降"),
    messages={"permute": ("the mapper inserts a Permute after {type} {layer} (nnie-lint NN304): its dump is in "
                          "{layout} order; read that way the cosine is {cosine} — not an accuracy problem; compare "
                          "that layer in this layout",
                          "mapper 会在 {type} {layer} 之后插入 Permute（nnie-lint NN304）：其 dump 为 {layout} 顺序；按此读取余弦为 "
                          "{cosine}——不是精度问题；请按该布局比较此层"),
              "layout": ("the simulator's dump of {layer} is in {layout} order (a Permute the mapper inserted); read "
                         "that way the cosine is {cosine} — not an accuracy problem; compare that layer in this layout",
                         "模拟器对 {layer} 的 dump 为 {layout} 顺序（mapper 插入的 Permute）；按此读取余弦为 {cosine}——"
                         "不是精度问题；请按该布局比较此层")},
    docs="""
    ## What it finds
    In case 3, a dip that disappears when the simulator's dump is read in another layout (H,W,C,
    W,H,C or C,W,H).

    ## Why
    Guide step 4: the mapper rewrites Upsample, ROIPooling and PSROIPooling as the layer plus a
    Permute (see `cnn_net_tree.dot`), and dumps their output in that layout.  Compared as C,H,W
    the cosine is meaningless; read in the dump's layout it is the real similarity.

    ## Example
    ```
    T302 the simulator's dump of conv2 is in H,W,C order ...; read that way the cosine is 0.9985
    ```

    ## Fix
    None needed.
    """,
    docs_zh="情况 3 中，按另一种布局（H,W,C、W,H,C 或 C,W,H）读取模拟器 dump 后下降消失。指南第 4 步：mapper 会把 Upsample、ROIPooling、PSROIPooling "
            "改写为该层加 Permute，其输出按该布局 dump。无需修复。")


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


register_finding(
    __name__,
    "T301", "inplace-split-dip", Severity.WARNING, 4,
    summary=("A dip at an in-place layer the mapper splits (explained when the numbers confirm it)",
             "mapper 拆分原位层处的相似度下降（数值证实时即为解释）"),
    messages={"split": ("blob {blob} is rewritten in place by {chain} after {producer_type} {layer}: the mapper "
                        "splits that in-place layer and reports {layer}'s output before it, while Caffe's blob holds "
                        "the value after it{evidence}. nnie-lint {lint_code} fixes this: give layer \"{inplace}\" its "
                        "own top and rewire every later bottom \"{blob}\" to it",
                        "blob {blob} 在 {producer_type} {layer} 之后被 {chain} 原位改写：mapper 会拆分该原位层并报告 {layer} "
                        "在它之前的输出，而 Caffe 的 blob 保存的是它之后的值{evidence}。nnie-lint {lint_code} 可修复："
                        "给层 \"{inplace}\" 一个自己的 top，并把之后所有 bottom \"{blob}\" 改为它"),
              "possible": ("blob {blob} is rewritten in place by {chain} after {producer_type} {layer}: the mapper "
                           "may split that in-place layer and report the value before it, but the numbers do not "
                           "show it{why} — a possible cause, not the explanation. nnie-lint {lint_code}'s "
                           "de-inplace fix (layer \"{inplace}\" its own top) makes the dumps comparable; if the "
                           "dip stays, step 6: {command}",
                           "blob {blob} 在 {producer_type} {layer} 之后被 {chain} 原位改写：mapper 可能拆分该原位层并报告它之前的值，"
                           "但数值并不支持这一点{why}——这只是可能的原因，而不是解释。nnie-lint {lint_code} 的取消原位修复"
                           "（给层 \"{inplace}\" 一个自己的 top）可使两侧 dump 可比；若下降仍在，转第 6 步：{command}"),
              "evidence_applied": (" (applying {types} to the simulator's value gives cosine {cosine} against Caffe's, "
                                   "{before} before: it is the value before {types})",
                                   "（对模拟器的值施加 {types} 后与 Caffe 的余弦为 {cosine}（之前为 {before}）：它是 {types} 之前的值）"),
              "evidence_fitted": (" (applying {types}, with slopes fitted per channel as the caffemodel was not at "
                                  "hand, to the simulator's value gives cosine {cosine} against Caffe's, {before} "
                                  "before: it is the value before {types})",
                                  "（对模拟器的值施加 {types}（未找到 caffemodel，斜率按通道拟合）后与 Caffe 的余弦为 {cosine}"
                                  "（之前为 {before}）：它是 {types} 之前的值）"),
              "evidence_positive": (" (where the simulator's value is positive, where {types} changes nothing, it "
                                    "matches Caffe's (cosine {positive}), and {types} with slopes fitted per channel "
                                    "(the caffemodel was not at hand) raises the cosine from {before} to {cosine}: it "
                                    "is the value before {types})",
                                    "（模拟器值为正处（{types} 不改变这些值）与 Caffe 一致（余弦 {positive}），且按通道拟合斜率的 {types}"
                                    "（未找到 caffemodel）把余弦从 {before} 提高到 {cosine}：它是 {types} 之前的值）"),
              "evidence_affine": (" (Caffe's value is a per-channel affine function of the simulator's (R² {r2}): the "
                                  "simulator's is the value before {types})",
                                  "（Caffe 的值是模拟器值的逐通道仿射函数（R² {r2}）：模拟器的是 {types} 之前的值）"),
              "why_applied": (" (applying {types} to the simulator's value gives cosine {cosine}, {before} before)",
                              "（对模拟器的值施加 {types} 后余弦为 {cosine}，之前为 {before}）"),
              "why_affine": (" (Caffe's value is no per-channel affine function of the simulator's: R² {r2})",
                             "（Caffe 的值不是模拟器值的逐通道仿射函数：R² {r2}）"),
              "why_unchecked": (" (no numeric check for {types})", "（无法对 {types} 做数值检查）"),
              "why_no_negatives": (" (the simulator's value has no negative part for {types} to change)",
                                   "（模拟器的值没有可供 {types} 改变的负值部分）"),
              "why_no_arrays": (" (the dumps could not be loaded to check)", "（无法加载 dump 进行检查）"),
              "fix": ("De-inplace \"{layer}\": write to new blob \"{blob}\" (the nnie-lint {lint_code} fix)",
                      "取消 \"{layer}\" 的原位计算：输出到新 blob \"{blob}\"（nnie-lint {lint_code} 的修复）"),
              "dip": ("\"{layer}\" dips to {cosine} here", "\"{layer}\" 在此下降到 {cosine}")},
    fix="safe",
    docs="""
    ## What it finds
    In case 3, a middle-layer dip at a blob rewritten in place (an activation, Scale or BatchNorm
    with `bottom` = `top`): the mapper reports the producer's output before the in-place layer,
    Caffe's blob holds the value after it — when the numbers confirm it: the in-place layer applied
    to the simulator's value (ReLU with its `negative_slope`, PReLU with the caffemodel's slopes or,
    without the caffemodel, slopes fitted per channel — then the positive part, which the layer
    leaves as it is, must match at ≥ `good` —, Sigmoid, TanH; Dropout is the identity) gives a
    cosine ≥ `good`, or
    Caffe's value is a per-channel affine function of the simulator's (BatchNorm/Scale, R² ≥
    `good`).  Unconfirmed, the split is reported as a possible cause only (the dip is not counted
    as explained) with the same fix and the step-6 command.

    ## Why
    Guide step 4: the mapper splits in-place pairs (concat + relu, fc + scale…), so the per-layer
    comparison pairs different tensors and shows a false dip.  nnie-lint's NN301/NN302/NN303 find
    the same pairs statically (the split honours `extra-inplace-pairs`).

    ## Example
    ```
    layer { name: "conv4" type: "InnerProduct" top: "conv4" }
    layer { name: "prelu4" type: "PReLU" bottom: "conv4" top: "conv4" }   # -> top: "prelu4"
    ```

    ## Fix
    Safe: the nnie-lint de-inplace fix (a new unique top for the in-place layer, later readers
    rewired).  The computed graph is unchanged; only blob names differ.
    """,
    docs_zh="情况 3 中，中间层的相似度下降出现在被原位改写的 blob 上（bottom = top 的激活、Scale 或 BatchNorm）：mapper 报告的是原位层之前生产者的输出，"
            "而 Caffe 的 blob 保存的是原位层之后的值——前提是数值能证实：对模拟器的值施加该原位层（ReLU 及其 negative_slope、PReLU 用 caffemodel 的斜率，"
            "没有 caffemodel 时按通道拟合斜率、Sigmoid、TanH）后余弦 ≥ good，或 Caffe 的值是模拟器值的逐通道仿射函数（BatchNorm/Scale）。"
            "不能证实时只作为可能原因报告（该下降不计为已解释）。指南第 4 步：mapper 会拆分原位层对，逐层对比因此出现假的下降。"
            "修复与 nnie-lint NN301/NN302/NN303 相同：给原位层一个新的 top 并改写之后的引用，计算图不变，是安全修复。")


def _inplace_split(r: LayerRow, th: Thresholds, builder: FindingBuilder, entry: dict, bundle_hint: str) -> None:
    src = builder.sources
    layer, inplace_name, _type, code = _split(r, builder)
    evidence = inplace_evidence(r, th, src)
    blob = r.blob or r.name
    fix = None
    if layer is not None and src.prototxt is not None and src.graph is not None:
        new_blob, edits = deinplace_edits(src.prototxt, src.graph, layer)
        fix = builder.fix("T301", "fix", [FileEdit(src.prototxt.path, e) for e in edits], safe=True,
                          layer=layer.name, blob=new_blob, lint_code=code)
    evidence_text = builder.text("T301", evidence.msg_id, **dict(evidence.params)) if evidence.msg_id else ""
    chain = ", ".join(f"{n} ({t})" for n, t in r.inplace)
    home = src.layer_place(inplace_name) or src.layer_place(r.name)
    related = builder.related("T301", "dip", src.layer_place(r.name), layer=r.name, cosine=f"{r.cosine:.4f}")
    common = dict(place=home, layer=r.name, fix=fix, related=related, blob=blob, chain=chain,
                  producer_type=r.producer_type or "its producer", lint_code=code, inplace=inplace_name)
    if evidence.confirmed:
        diag = builder.add("T301", "split", evidence=evidence_text, **common)
    else:
        diag = builder.add("T301", "possible", why=evidence_text, command=bundle_hint.format(layer=r.name), **common)
    entry.update(explained=evidence.confirmed, explanation=diag.message, kind="inplace-split", lint_code=code,
                 confirmed=evidence.confirmed, possible=not evidence.confirmed, fix=encode_fix(diag.fix))

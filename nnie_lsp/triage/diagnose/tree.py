"""The guide's decision tree (docs/field-facts.md §12): which case a comparison is, its findings
(engine Diagnostics with T-codes) and the next step.

Guide steps: 2 preprocessing (cfg), 3 quantization (`_hp` / compile_mode), 4 layer matching,
5 post-processing, 6 a support bundle. Case k → next step k+1.

- Decoding (before case 1, no case of the guide): one factor on every layer, the data layer
  included or read right → the NNIE dumps are read with the wrong scale (:mod:`.decoding`, T006);
  next step 1: read them again and compare again.
- Case 1: data layer < ``data_layer`` (or a scale difference cosine cannot see) → the
  preprocessing fit (:mod:`.preprocessing`).
- Case 2: good start, end < ``decay_end`` → quantization; a 16-bit run confirms or rejects; the
  `_hp` plan and candidates (:mod:`.quantization`).
- Case 2 also: with a 16-bit run that is ≥ ``good`` at every 8-bit dip below ``middle_dip``
  (quantization before layer matching: the mapper's graph is the same at 16 bit).
- Case 3: end fine, middle dips < ``middle_dip`` → explained by the graph or sent to step 6
  (:mod:`.layer_matching`).
- Case 4: every layer ≥ ``good`` and every best scale within the 8-bit band (``drift_band_log2``;
  layers under ``magnitude_min_size`` elements do not count) → post-processing
  (:mod:`.postprocessing`); a best scale outside the band on its own is one layer's scale
  (a Scale/BatchNorm folded differently: T001, step 4).
- Anything else is inconclusive (T001), with the reason.

Layers that could not be compared are never counted as fine: whatever the case, T004 says how
many there are and the verdict's reason says "every compared layer (n of m)".

Every number comes from :class:`~nnie_lsp.triage.measure.metrics.Thresholds`.

Each T-code is registered (docs, en/zh messages: ``nnie-lint --explain``) beside the code that
emits it: T001, T002, T004, T007 and T208 here, T003 and T010 (dumps that carry no case: NaN/Inf,
input sizes that differ) in :mod:`.bad_dumps`, the others in the module of their case.  Registering loads no
numpy (the language server and ``--explain`` import this module): numpy-heavy names are imported
where they are used.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from nnie_lsp.core.diagnostics import Diagnostic, Severity
from nnie_lsp.rules.triage_common import register_finding
from nnie_lsp.triage.diagnose.bad_dumps import (NON_FINITE_STEP, NON_FINITE_VERDICT, SIZE_STEP, SIZE_VERDICT, has_non_finite,
                        non_finite_findings, size_findings)
from nnie_lsp.triage.diagnose.builder import FindingBuilder, Sources
from nnie_lsp.triage.diagnose.decoding import decoding_factor, decoding_findings, largest_drift, layer_scales
from nnie_lsp.triage.diagnose.layer_matching import is_dip, layer_matching_findings
from nnie_lsp.triage.diagnose.postprocessing import postprocess_findings
from nnie_lsp.triage.diagnose.preprocessing import data_suspect, diagnose_data_layer
from nnie_lsp.triage.diagnose.quantization import (HpCandidate, quantization_findings, rank_hp_candidates, sim16_dips_verdict,
                           sim16_verdict)
from nnie_lsp.triage.measure.rows import LayerRow, ends, finite, measured_body

if TYPE_CHECKING:  # numpy: imported when a diagnosis runs, not when the T-codes are registered
    from nnie_lsp.triage.measure.metrics import Thresholds
    from nnie_lsp.triage.diagnose.preprocess_fit import PreprocessFit

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
    decoding: dict | None = None
    #: the next step in words when the step's number alone would mislead (dumps that predate the
    #: cfg: make them again first, never "fix the cfg" from them)
    next_step_text: str | None = None
    #: dumps that carry no case (:mod:`.bad_dumps`): ``{"kind": "input_size", "inputs": […]}`` or
    #: ``{"kind": "non_finite", "layers": […]}``
    bad_dumps: dict | None = None


#: The verdict of each inconclusive pattern: "inconclusive: <what>" (the report says the name once:
#: "Inconclusive: not quantization").
INCONCLUSIVE = {
    "nothing_aligned": "inconclusive: nothing aligned",
    "only_data": "inconclusive: only the data layer compared",
    "scale_differs": "inconclusive: one layer's scale differs",
    "not_quantization": "inconclusive: not quantization",
    "mild_decay": "inconclusive: mild 8-bit decay",
    "neither": "inconclusive: neither case 3 nor case 4",
}
DECODING_VERDICT = "decoding: the NNIE dumps are read with the wrong scale"


register_finding(
    __name__,
    "T001", "triage-inconclusive", Severity.WARNING, 1,
    summary=("The comparison fits none of the guide's four cases", "对比结果不属于指南的四种情况"),
    messages={
        "nothing_aligned": ("no tensor pair could be compared (nothing aligned)", "没有可比较的张量对（未能对齐任何张量）"),
        "only_data": ("only the data layer could be compared", "只有数据层可以比较"),
        "scale_differs": ("cosines are all ≥ {good} but {layer}'s best scale is {scale} ({octaves} octave(s) from 1, "
                          "outside the 8-bit band of ±{band}; {count} such layer(s)) while the others agree: that "
                          "layer's scale differs — a Scale/BatchNorm the mapper folds differently, or that dump read "
                          "with another scale; compare the layer's parameters (step 4)",
                          "所有余弦都 ≥ {good}，但 {layer} 的最佳缩放为 {scale}（距 1 有 {octaves} 个倍频程，超出 8 比特的 ±{band} 范围；"
                          "共 {count} 个这样的层），而其它层一致：该层的缩放不同——mapper 对 Scale/BatchNorm 的折叠方式不同，"
                          "或该 dump 用了别的缩放读取；请比较该层的参数（第 4 步）"),
        "not_quantization": ("the end falls to {end} but a 16-bit run does not recover it: look at {layer} "
                             "(step 6: {command})",
                             "末层降到 {end}，但 16 比特运行也没有恢复：请检查 {layer}（第 6 步：{command}）"),
        "mild_decay": ("the end reaches {end} ({layer}): between {decay_end} and {good}, with no middle dip below "
                       "{middle_dip} — ordinary 8-bit loss, not one of the guide's patterns; if the application "
                       "results are wrong, try the `_hp` candidates or a 16-bit run",
                       "末层为 {end}（{layer}）：介于 {decay_end} 与 {good} 之间，且中间层没有低于 {middle_dip} 的下降——"
                       "属于普通的 8 比特损失，不符合指南的任何模式；若应用结果有误，可尝试 `_hp` 候选层或 16 比特运行"),
        "neither": ("the end is fine ({end}) and no middle layer is below {middle_dip}, but {count} layer(s) are "
                    "below {good} (lowest {layer}): neither case 3 nor case 4 of the guide",
                    "末层正常（{end}）且没有中间层低于 {middle_dip}，但有 {count} 个层低于 {good}（最低为 {layer}）："
                    "既不是指南的情况 3，也不是情况 4"),
    },
    docs="""
    ## What it finds
    A comparison that does not fit any of the guide's four cases: nothing could be aligned, only the
    data layer could be compared, the cosines are fine but one layer's best scale lies outside the
    8-bit band (`drift_band_log2`) while the others agree, the end is between `decay_end` and `good`
    with no middle dip, or a 16-bit run does not recover the end.  The message says which, with
    the numbers.  (One factor on every layer is a decoding problem: T006.)

    ## Why
    Guide step 1 compares the Caffe run with the NNIE side layer by layer and sorts the result into
    four cases (steps 2-5).  When none applies, the message says what to look at next: the layer's
    parameters (step 4) when only its scale differs, the `_hp` candidates for a mild decay, and
    step 6 — a support bundle (`nnie-triage bundle`) — when a 16-bit run does not help.

    ## Example
    ```
    T001 the end falls to 0.6120 but a 16-bit run does not recover it: look at conv5 (step 6: ...)
    ```

    ## Fix
    None automatic: follow the message (more dumps, a 16-bit run, or a support bundle).
    """,
    docs_zh="对比结果不属于指南的四种情况：没有任何张量能对齐、只能比较数据层、余弦正常但某一层的最佳缩放超出 8 比特范围（drift_band_log2）而其它层一致、"
            "末层介于 decay_end 与 good 之间且没有中间层下降，或 16 比特运行也无法恢复末层精度。消息给出下一步：只有某层缩放不同时检查该层参数（第 4 步），"
            "轻微衰减时尝试 `_hp` 候选层，16 比特也无效时为第 6 步：用 `nnie-triage bundle` 打包提交。（每一层同一个倍数是解码问题：T006。）")


def _bad_dumps(diag: Diagnosis, verdict: str, reason: str, step: str, details: dict) -> None:
    """The dumps cannot carry a case (:mod:`.bad_dumps`): make them again, then compare again."""
    diag.case, diag.next_step, diag.next_step_text = None, 1, step
    diag.verdict, diag.reason, diag.bad_dumps = verdict, reason, details


def _inconclusive(diag: Diagnosis, builder: FindingBuilder, msg_id: str, *, severity: Severity,
                  layer: str | None = None, **params) -> None:
    """T001: `reason` gets the English text, the finding the run's language; the verdict names the
    pattern once ("inconclusive: not quantization")."""
    diag.verdict = INCONCLUSIVE[msg_id]
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
             bundle_hint: str = BUNDLE_HINT, prototxt_problem: tuple[str, dict] | None = None,
             stale: dict | None = None, reference_source: dict | None = None,
             input_sizes: list | None = None) -> Diagnosis:
    """The decision tree over `rows`.  `prototxt_problem`: (T007 message id, its parameters) when
    the prototxt the cfg names could not be used (:func:`prototxt_finding`).  `stale`: the NNIE dumps
    predate the cfg (:func:`.staleness.check`): T008 first, every other fix withheld.
    `reference_source`: where the Caffe side's preprocessing came from (:func:`.reference_source.check`):
    T100 first when it shares the cfg's (after T008, which withholds every fix).  `input_sizes`: the
    network inputs whose dumps differ in size (:func:`.bad_dumps.input_size_mismatches`): T010 and
    the verdict "bad dumps", no case (nothing after them compares)."""
    from nnie_lsp.triage.measure.metrics import Thresholds

    from nnie_lsp.triage.diagnose.staleness import is_predating

    th = thresholds or Thresholds()
    predating = is_predating(stale)
    builder = FindingBuilder(sources, withholding=predating)
    if stale is not None:
        from nnie_lsp.triage.diagnose.staleness import add_finding
        add_finding(builder, stale)
    if reference_source is not None and reference_source.get("message"):   # first after T008 (which withholds fixes)
        from nnie_lsp.triage.diagnose.reference_source import add_finding as reference_finding
        reference_finding(builder, reference_source)
    if prototxt_problem is not None:
        prototxt_finding(builder, *prototxt_problem)
    ordered = sorted(rows, key=lambda r: r.order)
    if input_sizes:
        diag = Diagnosis(case=None, next_step=6, verdict="", reason="", first_divergence=input_sizes[0].blob)
        _bad_dumps(diag, SIZE_VERDICT, size_findings(input_sizes, builder), SIZE_STEP,
                   {"kind": "input_size", "inputs": [s.to_json() for s in input_sizes]})
    else:
        diag = _tree(ordered, th, rows16, builder, postprocess, bundle_hint)
        if diag.bad_dumps is None:   # no verdict rests on bad dumps: nothing to count against
            _not_compared(ordered, builder)
    diag.findings = builder.items
    if predating:
        from nnie_lsp.triage.diagnose.staleness import remake_step, withhold_fixes
        diag.findings = withhold_fixes(builder, diag.findings)
        diag.next_step_text = remake_step(stale)
        if diag.preprocessing is not None and diag.preprocessing.edits:
            # measured on dumps of the old inputs, the edits may be the undo of a fix just made:
            # neither offered nor worded (the JSON says only that they are withheld)
            diag.preprocessing.edits = []
            diag.preprocessing.findings = [f.split(" → ")[0] for f in diag.preprocessing.findings]
            diag.preprocessing.edits_withheld = True
            diag.reason = WITHHELD_REASON
    return diag


#: case 1's reason when the NNIE dumps predate the cfg: the edits measured on them are not offered
WITHHELD_REASON = ("the data layers differ, but the NNIE dumps predate the cfg (T008): make them again "
                   "with the current cfg, then triage again; the cfg edits measured on them are withheld")


register_finding(
    __name__,
    "T004", "layers-not-compared", Severity.WARNING, 1,
    summary=("Some layers of the net could not be compared", "网络中有些层无法比较"),
    messages={"uncompared": ("{count} of the net's {total} layers after the data layer could not be compared "
                             "({layers}): the verdict rests on the other {compared} only",
                             "数据层之后的 {total} 个层中有 {count} 个无法比较（{layers}）：结论只基于其余 {compared} 个层")},
    docs="""
    ## What it finds
    Layers after the data layer that are in the comparison but have no number: only one side was
    dumped, the pair could not be loaded, the sizes differ, or the cosine is not finite.  The
    message counts them and names the first few (each with the reason when one is known).

    ## Why
    Guide step 1 sorts the net by its per-layer cosines.  A verdict such as case 4 ("every layer
    ≥ 0.99") is only as good as the layers that were measured: a layer that was never compared
    cannot be called fine, and the first divergence may be among them.

    ## Example
    ```
    T004 3 of the net's 41 layers after the data layer could not be compared (conv4_3_norm: sizes
    differ: Caffe 92416, NNIE 92160; ...): the verdict rests on the other 38 only
    ```

    ## Fix
    None automatic: dump the missing layers on both sides (RuyiStudio's per-layer dump, or
    `nnie-triage reference` for the Caffe side) or check the names the aligner could not pair.
    """,
    docs_zh="数据层之后有些层出现在对比中却没有数值：只有一侧有 dump、无法加载、尺寸不同或余弦不是有限值。"
            "情况 4 之类的结论（\"每一层都 ≥ 0.99\"）只对测到的层成立：没比较过的层不能算正常，首个偏离层也可能就在其中。")


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


register_finding(
    __name__,
    "T007", "prototxt-unavailable", Severity.WARNING, 1,
    summary=("The prototxt the cfg names is missing or unreadable: the layer order is unknown",
             "cfg 指定的 prototxt 不存在或无法读取：层顺序未知"),
    messages={
        "missing": ("the prototxt the cfg names ({written}) does not exist (looked in {tried}): the layer order, the "
                    "in-place chains and the net's outputs are unknown, so the rows follow {order} and the verdict "
                    "rests on that order; fix [prototxt_file] or give --prototxt",
                    "cfg 指定的 prototxt（{written}）不存在（查找位置：{tried}）：层顺序、原位链和网络输出都未知，"
                    "各行按{order}排列，结论基于这一顺序；请修正 [prototxt_file] 或用 --prototxt 指定"),
        "unreadable": ("the prototxt the cfg names ({written}) cannot be used: {error}; the layer order, the in-place "
                       "chains and the net's outputs are unknown, so the rows follow {order} and the verdict rests "
                       "on that order; fix the prototxt or give --prototxt",
                       "cfg 指定的 prototxt（{written}）无法使用：{error}；层顺序、原位链和网络输出都未知，"
                       "各行按{order}排列，结论基于这一顺序；请修正该 prototxt 或用 --prototxt 指定"),
        "not_named": ("the cfg names no prototxt ([prototxt_file] missing): the layer order, the in-place chains and "
                      "the net's outputs are unknown, so the rows follow {order}; give --prototxt",
                      "cfg 没有指定 prototxt（缺少 [prototxt_file]）：层顺序、原位链和网络输出都未知，各行按{order}排列；"
                      "请用 --prototxt 指定"),
        "order_dot": ("cnn_net_tree.dot's order", "cnn_net_tree.dot 的顺序"),
        "order_files": ("the reference dumps' write times", "参考 dump 的写入时间"),
    },
    docs="""
    ## What it finds
    A comparison run with a cfg whose `[prototxt_file]` is missing, names a file that does not
    exist, or names one that cannot be read or parsed.

    ## Why
    Guide step 1 reads the per-layer similarities in network order: the first divergence, "good
    start, bad end" (case 2) and the middle dips (case 3) all depend on it, and so do the in-place
    chains (NN301-NN303) and the net's outputs.  Without the prototxt the triage orders the layers
    by `cnn_net_tree.dot` or by the reference dumps' write times, which may be wrong; the finding
    says so instead of sorting quietly.

    ## Example
    ```
    [prototxt_file] ./model/det2.prototxt      # no such file
    ```

    ## Fix
    None automatic: correct `[prototxt_file]` (see NN006 from `nnie-lint`) or pass `--prototxt`.
    """,
    docs_zh="对比时给出的 cfg 缺少 [prototxt_file]、指定的文件不存在或无法读取/解析。指南第 1 步按网络顺序阅读逐层相似度：首个分歧层、"
            "\"起点好、末层差\"（情况 2）和中间层下降（情况 3）都依赖层顺序，原位链（NN301–NN303）和网络输出也是。没有 prototxt 时，"
            "排查按 cnn_net_tree.dot 或参考 dump 的写入时间排列各层，可能有误；此发现会明确指出，而不是悄悄排序。请修正 [prototxt_file] 或用 --prototxt 指定。")


def prototxt_finding(builder: FindingBuilder, msg_id: str, params: dict) -> None:
    """T007 on the cfg's ``[prototxt_file]`` (else the cfg): the layer order is unknown.  `params`:
    ``written``, ``tried``/``error`` and ``order`` ("dot" or "files")."""
    src = builder.sources
    params = dict(params)
    order = builder.text("T007", "order_dot" if params.pop("order", "files") == "dot" else "order_files")
    place = src.cfg_place("prototxt_file") or src.cfg_home()
    builder.add("T007", msg_id, place=place, cfg_key="prototxt_file" if src.cfg is not None else None,
                order=order, **params)


register_finding(
    __name__,
    "T002", "no-data-layer-pair", Severity.WARNING, 1,
    summary=("No data-layer pair: the preprocessing was not checked", "没有数据层配对：未能检查预处理"),
    messages={"no_data": ("no data-layer pair: the preprocessing could not be checked (case 1); include the "
                          "data blob in both dump sets",
                          "没有数据层配对：无法检查预处理（情况 1）；请在两侧的 dump 中都包含数据 blob"),
              "unmeasured": ("the data layer {layer} is in both dump sets but could not be compared ({why}): the "
                             "preprocessing was not checked (case 1); make that dump again",
                             "两侧都有数据层 {layer} 的 dump，但无法比较（{why}）：未检查预处理（情况 1）；请重新生成该 dump")},
    docs="""
    ## What it finds
    Dump sets in which the network input (the data blob) has no partner on the other side, or
    whose pair could not be compared (a dump cut short or unreadable: the message says why).

    ## Why
    Guide step 2 starts at the data layer: it must reach ≈ 0.999, else the cfg's preprocessing
    differs from Caffe's (case 1).  Without the data pair that check cannot run, and a
    preprocessing error would later look like quantization error.  Instruction-simulator dumps
    have no data tensor; mapper_quant and RuyiStudio dumps do.

    ## Example
    ```
    inst/ dumps (node ids only) compared with RuyiStudio Caffe dumps
    ```

    ## Fix
    None automatic: dump the data blob on both sides (mapper_quant writes `data_output0_…`).
    """,
    docs_zh="两侧 dump 中的网络输入（数据 blob）没有配对。指南第 2 步从数据层开始：其相似度应达到 ≈0.999，否则说明 cfg 的预处理与 Caffe 不一致（情况 1）。"
            "缺少数据层配对时无法检查，预处理错误会被误认为量化误差。请在两侧都 dump 数据 blob。")


register_finding(
    __name__,
    "T208", "first-layer-low", Severity.WARNING, 3,
    summary=("The first layer is already below `good`", "第一层就已低于 good"),
    messages={"first_low": ("the first layer {layer} is already at {cosine}: 8-bit error from the first layer on "
                            "(the guide: first and last below {good} → quantization)",
                            "第一层 {layer} 已为 {cosine}：从第一层起就有 8 比特误差（指南：首层和末层都低于 {good} → 量化）")},
    docs="""
    ## What it finds
    In case 2, a first layer (after the data layer) already below `good` (0.99).

    ## Why
    Guide step 3: the first layer's error reaches every later layer, which is why the guide
    advises a high-precision first convolution.  A good data layer with a bad first layer is
    quantization of the first layer's weights or activations.

    ## Example
    ```
    T208 the first layer conv1 is already at 0.9712
    ```

    ## Fix
    See T207/T204: `conv1_hp` with `[compile_mode] 2`.
    """,
    docs_zh="情况 2 中，（数据层之后的）第一层就已低于 good（0.99）。第一层的误差会传到之后的每一层，这正是指南建议第一个卷积用高精度的原因。")


def _tree(rows: list[LayerRow], th: Thresholds, rows16: list[LayerRow] | None, builder: FindingBuilder,
          postprocess: Callable | None, bundle_hint: str) -> Diagnosis:
    src = builder.sources
    measured = [r for r in rows if r.metrics is not None]
    diag = Diagnosis(case=None, next_step=6, verdict="inconclusive", reason="", first_divergence=None)
    if not measured:
        _inconclusive(diag, builder, "nothing_aligned", severity=Severity.ERROR)
        return diag
    # ------------------------------------------------------------- NaN/Inf: no case rests on them
    reason = non_finite_findings(measured, builder)
    if reason is not None:
        held = [r.name for r in measured if has_non_finite(r)]
        diag.first_divergence = held[0]
        _bad_dumps(diag, NON_FINITE_VERDICT, reason, NON_FINITE_STEP, {"kind": "non_finite", "layers": held})
        return diag
    data_rows = [r for r in measured if r.is_data]
    body = measured_body(rows)
    bad_data = [r for r in data_rows if data_suspect(r, th)]
    # first divergence (network order)
    if bad_data:
        diag.first_divergence = bad_data[0].name
    else:
        diag.first_divergence = next((r.name for r in body if r.cosine < th.good), None)
    # ------------------------------------------------------------- decoding (before case 1)
    fit = decoding_factor(rows, th, sim_scale=_sim_data_step(data_rows, src))
    if fit is not None:
        diag.decoding = fit.to_dict()
        diag.next_step = 1
        diag.verdict = DECODING_VERDICT
        diag.reason = decoding_findings(fit, builder)
        return diag
    # ------------------------------------------------------------- case 1
    if bad_data:
        row = bad_data[0]
        fit = diagnose_data_layer(row, _input_index(row, data_rows, src), builder, th)
        diag.preprocessing = fit
        diag.case, diag.next_step = 1, 2
        diag.verdict = "preprocessing mismatch (case 1)"
        if fit is not None and fit.edits:
            diag.reason = "the data layers differ; fix the cfg: " + "; ".join(e.summary for e in fit.edits)
        elif fit is not None and fit.transposed:
            diag.reason = "the data layers differ by an H/W transpose"
        else:
            diag.reason = "the data layers differ and no cfg change explains it (see findings)"
        return diag
    if not data_rows:
        unmeasured = next((r for r in rows if r.is_data and r.metrics is None and r.note), None)
        if unmeasured is not None:   # the pair is there, its values are not (a dump cut short, unreadable)
            builder.add("T002", "unmeasured", place=src.node_place(unmeasured.name), layer=unmeasured.name,
                        why=unmeasured.note)
        else:
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
        drift = largest_drift(rows, th)
        if drift is not None and abs(drift.log2) >= th.drift_band_log2:
            outside = [s for s in layer_scales(rows, th) if abs(s.log2) >= th.drift_band_log2]
            diag.next_step = 4
            _inconclusive(diag, builder, "scale_differs", severity=Severity.WARNING, layer=drift.row.name,
                          good=th.good, scale=f"{drift.scale:.4g}", octaves=f"{abs(drift.log2):.2f}",
                          band=th.drift_band_log2, count=len(outside))
            return diag
        diag.postprocess = postprocess_findings(rows, th, builder, postprocess, drift=drift)
        diag.case, diag.next_step = 4, 5
        diag.verdict = "post-processing (case 4)"
        uncompared = uncompared_body(rows)
        within = f"every best scale within the 8-bit band (|log2| < {th.drift_band_log2})"
        diag.reason = (f"every layer ≥ {th.good}, {within}" if not uncompared else
                       f"every compared layer ({len(body)} of {len(body) + len(uncompared)}) ≥ {th.good}, "
                       f"{within}; {len(uncompared)} not compared (T004)")
        return diag
    # ------------------------------------------------------------- case 2
    if end_cos < th.decay_end and not all_good:
        confirmed, diag.sim16 = sim16_verdict(rows, rows16, th, builder)
        if confirmed is False:
            where = diag.sim16.get("first_divergence_16bit") or diag.first_divergence
            _inconclusive(diag, builder, "not_quantization", severity=Severity.INFO, layer=where,
                          end=f"{end_cos:.4f}", command=bundle_hint.format(layer=where))
            return diag
        _case2(diag, rows, th, builder, first, confirmed)
        diag.reason = (f"good start ({first.name} {first.cosine:.4f}), end {end_row.name} at {end_cos:.4f} < "
                       f"{th.decay_end}")
        return diag
    dips = [r for r in body if is_dip(r, th, end_ids)]
    # ------------------------------------------------------------- case 2: the 16-bit run recovers every dip
    if dips and rows16 and not layout_dips:
        sim16 = sim16_dips_verdict(rows, dips, rows16, th, builder)
        if sim16 is not None:
            diag.sim16 = sim16
            _case2(diag, rows, th, builder, first, True, dips=dips)
            low = min(dips, key=lambda r: r.cosine)
            diag.reason = (f"{len(dips)} middle layer(s) below {th.middle_dip} at 8 bit (lowest {low.name} "
                           f"{low.cosine:.4f}), end {end_row.name} at {end_cos:.4f}; the 16-bit run is ≥ {th.good} "
                           f"at every one of them")
            return diag
    # ------------------------------------------------------------- case 3
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


def _case2(diag: Diagnosis, rows: list[LayerRow], th: Thresholds, builder: FindingBuilder, first: LayerRow,
           confirmed: bool | None, *, dips: list[LayerRow] | None = None) -> None:
    """Case 2's findings (T208, T201/T206/T207/T204) and verdict."""
    if first.cosine < th.good:
        builder.add("T208", "first_low", place=builder.sources.layer_place(first.name), layer=first.name,
                    cosine=f"{first.cosine:.4f}", good=th.good)
    diag.hp_candidates = quantization_findings(rows, th, builder, dips=dips, confirmed=confirmed)
    diag.case, diag.next_step = 2, 3
    diag.verdict = "quantization error (case 2)" + (" — confirmed by the 16-bit run" if confirmed else "")


def _sim_data_step(data_rows: list[LayerRow], sources: Sources) -> float | None:
    """The step of the simulator's data grid the cfg implies for the first data row's input: its
    data_scale when the norm_type scales, else 1 (integer pixels); None when unknown (no cfg, an
    unknown norm_type, a feature-map input)."""
    if not data_rows or sources.project is None:
        return None
    prep = sources.project.input_preprocessing(_input_index(data_rows[0], data_rows, sources))
    if prep is None or prep.semantics is None or prep.is_feature_map:
        return None
    if prep.uses_scale:
        return prep.data_scale or None
    return 1.0

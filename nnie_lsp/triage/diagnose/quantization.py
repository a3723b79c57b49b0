"""Case 2 (guide step 3): a good start decaying to a bad end → quantization.

- A 16-bit (compile_mode 1) run confirms it (T202) or rejects it (T203).  It also confirms it
  when the end is fine but middle layers dip below ``middle_dip``: a 16-bit run ≥ ``good`` at every
  dip is quantization, not layer matching (the mapper's graph is the same at 16 bit).
- The `_hp` plan (T207) and its candidates (T204) are ``nnie-triage hp-plan``'s, the one planner
  (:mod:`nnie_lsp.triage.hp_plan.for_compare` runs it on the comparison's cfg and NNIE dumps and
  words its answer with the messages registered here): the candidates ranked by the final
  similarity each wins back 16-bit alone, measured on the emulation; the plan the set the planner
  chose, renamed ``_hp``, with ``[compile_mode] 2``.
- Without a plan (no cfg, or the planner could not run), the JSON's ``hp_candidates`` are what the
  dumps show: the layers by single-layer loss -- how much a layer loses against its own inputs --
  with no rename offered (a loss where 8-bit error shows is not a measured gain).

Layer roles (which types carry weights) come from the layer table.
T201-T207 are registered here, beside the code that emits them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from nnie_lsp.core.diagnostic_json import rel
from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.rules.fixes import HP_SUFFIX
from nnie_lsp.readers.prototxt import layers as layer_table
from nnie_lsp.rules.triage_common import UNSET, register_finding
from nnie_lsp.triage.diagnose.builder import FindingBuilder, Place
from nnie_lsp.triage.measure.rows import LayerRow, ends, finite, measured_body, start

#: A finding whose fix is part of another one's: a single `_hp` candidate (T204) inside the T207
#: plan (the confirmation of applied fixes lists the plan, not each candidate).
FIX_PART_OF = {"T204": "T207"}

if TYPE_CHECKING:  # numpy: imported when a ranking runs, not when the T-codes are registered
    from nnie_lsp.triage.measure.metrics import Thresholds

CANDIDATES_REPORTED = 5  # T204 findings (the JSON's hp_candidates lists up to CANDIDATES_RANKED)
CANDIDATES_RANKED = 8


def carries_weights(layer_type: str | None) -> bool:
    """Convolution-like and fully connected layers: what `_hp` makes 16-bit (unknown type: yes)."""
    if layer_type is None:
        return True
    spec = layer_table.lookup(layer_type)
    return spec is not None and spec.category == "conv"


@dataclass
class HpCandidate:
    """One `_hp` candidate: from the plan (``gain``: the emulated final similarity it wins back 16-bit
    alone; ``in_plan``) or, without a plan, from the dumps (``single_layer_loss`` only)."""

    layer: str
    rank: int
    reason: str  # English, for the report
    rename: str
    gain: float | None = None
    similarity: float | None = None  # the emulated final similarity with this layer alone at 16 bit
    single_layer_loss: float | None = None  # on these dumps (None: the layer has no compared row)
    cosine: float | None = None
    input_cosine: float | None = None
    in_plan: bool = False
    place: Place | None = None

    def to_dict(self) -> dict:
        out = {"rank": self.rank, "layer": self.layer, "gain": _round(self.gain), "similarity": _round(self.similarity),
               "single_layer_loss": self.single_layer_loss, "cosine": self.cosine, "input_cosine": self.input_cosine,
               "reason": self.reason, "rename": self.rename, "in_plan": self.in_plan}
        if self.place is not None:
            path, rng = self.place
            out.update(path=rel(path), line=rng.start.line + 1, column=rng.start.character + 1)
        return out


def _round(value: float | None) -> float | None:
    return round(value, 7) if value is not None else None


def _input_cosine(r: LayerRow, by_name: dict[str, LayerRow], rows: list[LayerRow]) -> float:
    vals = [by_name[p].cosine for p in r.producers if p in by_name and by_name[p].metrics is not None]
    vals = [v for v in vals if finite(v)]
    if vals:
        return min(vals)
    prev = [x for x in rows if x.order < r.order and x.metrics is not None and finite(x.cosine)]
    return prev[-1].cosine if prev else 1.0


def single_layer_losses(rows: list[LayerRow]) -> dict[str, tuple[float, float, LayerRow]]:
    """Each measured weight layer's (single-layer loss, its inputs' cosine, row) on these dumps."""
    by_name = {r.name: r for r in rows}
    out = {}
    for r in measured_body(rows):
        if carries_weights(r.layer_type):
            inc = _input_cosine(r, by_name, rows)
            out[r.name] = (max(0.0, inc - r.cosine), inc, r)
    return out


def rename_text(layer: str, top: str | None) -> str:
    return f'layer "{layer}" → name: "{layer}{HP_SUFFIX}" (top unchanged: "{top or layer}")'


def rank_hp_candidates(rows: list[LayerRow], th: Thresholds | None = None, builder: FindingBuilder | None = None,
                       limit: int = CANDIDATES_RANKED) -> list[HpCandidate]:
    """What the dumps show without a plan: the weight layers by single-layer loss (at least
    ``hp_min_loss``), largest first, none in a plan (the plan is hp-plan's: the module doc)."""
    from nnie_lsp.triage.measure.metrics import Thresholds

    th = th or Thresholds()
    scored = sorted(single_layer_losses(rows).values(), key=lambda t: (-t[0], t[2].order))
    out = []
    for loss, inc, r in scored:
        if loss <= th.hp_min_loss or len(out) >= limit:
            continue
        out.append(HpCandidate(
            layer=r.name, rank=len(out) + 1, single_layer_loss=round(loss, 6), cosine=r.cosine, input_cosine=inc,
            reason=f"drops {loss:.4f} below its inputs' similarity ({inc:.4f} → {r.cosine:.4f}) on these dumps",
            rename=rename_text(r.name, r.blob),
            place=builder.sources.layer_place(r.name) if builder is not None else None))
    return out


register_finding(
    __name__,
    "T202", "sim16-confirms-quantization", Severity.INFO, 3,
    summary=("A 16-bit run recovers the end: quantization confirmed", "16 比特运行恢复了末层：确认是量化误差"),
    messages={"confirmed": ("the 16-bit run (compile_mode 1) reaches {end16} at the end vs {end8} at 8 bit: "
                            "quantization confirmed — mark the candidates below `_hp` with compile_mode 2 "
                            "(compile_mode 1 costs about 2× speed)",
                            "16 比特运行（compile_mode 1）末层达到 {end16}，8 比特为 {end8}：确认是量化误差——"
                            "请用 compile_mode 2 给下列候选层加 `_hp`（compile_mode 1 约慢一倍）"),
              "recovers_dips": ("the 16-bit run (compile_mode 1) is ≥ {good} at every layer that dips below "
                                "{middle_dip} at 8 bit ({count}; lowest at 8 bit {layer} {cosine8} → {cosine16} at "
                                "16 bit): the dips are quantization, not layer matching (the mapper's graph is the "
                                "same at 16 bit) — mark the candidates below `_hp` with compile_mode 2",
                                "16 比特运行（compile_mode 1）在 8 比特下低于 {middle_dip} 的每一层（{count} 个；8 比特最低为 "
                                "{layer} 的 {cosine8}，16 比特为 {cosine16}）都 ≥ {good}：这些下降是量化误差而不是层匹配问题"
                                "（16 比特下 mapper 的图结构相同）——请用 compile_mode 2 给下列候选层加 `_hp`")},
    docs="""
    ## What it finds
    With `--sim-16bit`: the compile_mode 1 run ends at ≥ `good`, or at ≥ `decay_end` and
    `sim16_gain` above the 8-bit run.  Also, when the 8-bit end is fine but middle layers dip below
    `middle_dip`: the 16-bit run is ≥ `good` at every one of those layers (case 2, not case 3).

    ## Why
    Guide step 3: a 16-bit run is the test that tells quantization error from everything else.
    Mode 1 is about 2× slower; mode 2 with `_hp` on the few layers that need it keeps most of the
    8-bit speed.

    ## Example
    ```
    T202 the 16-bit run (compile_mode 1) reaches 1.0000 at the end vs 0.7900 at 8 bit
    ```

    ## Fix
    See T207 (the `_hp` plan).
    """,
    docs_zh="给出 --sim-16bit 时：compile_mode 1 运行的末层达到 good，或达到 decay_end 且比 8 比特高出 sim16_gain；"
            "或 8 比特末层正常但中间层低于 middle_dip，而 16 比特运行在这些层都 ≥ good（情况 2，而不是情况 3）。"
            "指南第 3 步：16 比特运行可区分量化误差与其它问题。compile_mode 1 约慢一倍，compile_mode 2 只给少数层加 `_hp` 可保留大部分速度。")


register_finding(
    __name__,
    "T203", "sim16-rejects-quantization", Severity.ERROR, 3,
    summary=("A 16-bit run does not recover the end: not quantization", "16 比特运行未恢复末层：不是量化误差"),
    messages={"rejected": ("the 16-bit run ends at {end16} (8 bit: {end8}): more precision does not help, so this "
                           "is not quantization; it diverges at {layer}",
                           "16 比特运行的末层为 {end16}（8 比特：{end8}）：提高精度无济于事，因此不是量化误差；分歧始于 {layer}")},
    docs="""
    ## What it finds
    With `--sim-16bit`: the compile_mode 1 run is as bad as the 8-bit one at the end.

    ## Why
    Guide step 3: if 16 bit does not help, `_hp` will not either; the cause is a layer the mapper
    computes differently (steps 4 and 6).  The message names where the 16-bit run diverges first.

    ## Example
    ```
    T203 the 16-bit run ends at 0.6120 (8 bit: 0.6050): ... it diverges at conv5
    ```

    ## Fix
    None automatic: look at that layer; step 6 makes a support bundle.
    """,
    docs_zh="给出 --sim-16bit 时：compile_mode 1 运行的末层与 8 比特一样差。指南第 3 步：16 比特无效时 `_hp` 也无效，原因是 mapper 对某层的计算不同（第 4、6 步）。"
            "消息给出 16 比特运行首次分歧的层。")


def sim16_verdict(rows: list[LayerRow], rows16: list[LayerRow] | None, th: Thresholds,
                  builder: FindingBuilder) -> tuple[bool | None, dict | None]:
    """(True = quantization confirmed, False = rejected, None = no 16-bit data; the JSON's `sim16`)."""
    if not rows16:
        return None, None
    ends16 = ends(rows16)
    if not ends16:
        return None, None
    e8 = min(r.cosine for r in ends(rows))
    e16 = min(r.cosine for r in ends16)
    first16 = next((r.name for r in rows16 if not r.is_data and r.metrics is not None and r.cosine < th.good), None)
    sim16 = {"end_cosine_8bit": e8, "end_cosine_16bit": e16, "first_divergence_16bit": first16,
             "layers": {r.name: r.cosine for r in rows16 if r.metrics is not None}}
    if e16 >= th.good or (e16 >= th.decay_end and e16 - e8 >= th.sim16_gain):
        sim16["verdict"] = "confirmed"
        builder.add("T202", "confirmed", end16=f"{e16:.4f}", end8=f"{e8:.4f}")
        return True, sim16
    sim16["verdict"] = "rejected"
    builder.add("T203", "rejected", place=builder.sources.layer_place(first16), layer=first16,
                end16=f"{e16:.4f}", end8=f"{e8:.4f}")
    return False, sim16


def sim16_dips_verdict(rows: list[LayerRow], dips: list[LayerRow], rows16: list[LayerRow], th: Thresholds,
                       builder: FindingBuilder) -> dict | None:
    """With the 8-bit end fine and `dips` below ``middle_dip``: the JSON's `sim16` (verdict
    ``confirmed``) and T202 when the 16-bit run is ≥ ``good`` at every dip, else None (no finding:
    layer matching decides)."""
    by_name = {r.name: r for r in rows16 if r.metrics is not None and finite(r.cosine)}
    pairs = [(r, by_name.get(r.name)) for r in dips]
    if not pairs or any(r16 is None or r16.cosine < th.good for _r, r16 in pairs):
        return None
    low, low16 = min(pairs, key=lambda p: p[0].cosine)
    ends16 = ends(rows16)
    sim16 = {"end_cosine_8bit": min(r.cosine for r in ends(rows)),
             "end_cosine_16bit": min(r.cosine for r in ends16) if ends16 else None,
             "first_divergence_16bit": next((r.name for r in rows16 if not r.is_data and r.metrics is not None
                                             and r.cosine < th.good), None),
             "layers": {r.name: r.cosine for r in rows16 if r.metrics is not None},
             "dips": {r.name: {"cosine_8bit": r.cosine, "cosine_16bit": r16.cosine} for r, r16 in pairs},
             "verdict": "confirmed"}
    builder.add("T202", "recovers_dips", good=th.good, middle_dip=th.middle_dip, count=len(pairs), layer=low.name,
                cosine8=f"{low.cosine:.4f}", cosine16=f"{low16.cosine:.4f}")
    return sim16


register_finding(
    __name__,
    "T201", "quantization-decay", Severity.ERROR, 3,
    summary=("Similarity decays from a good start to a bad end: quantization (case 2)",
             "相似度从良好的起点衰减到很差的末层：量化误差（情况 2）"),
    messages={"decay": ("similarity decays from {start} at the start to {end} at {layer}: quantization error",
                        "相似度从起点的 {start} 衰减到 {layer} 的 {end}：量化误差"),
              "dips": ("{count} middle layer(s) fall below {middle_dip} at 8 bit (lowest {layer} at {cosine}) while "
                       "the end stays at {end}, and a 16-bit run recovers them: quantization error",
                       "8 比特下有 {count} 个中间层低于 {middle_dip}（最低为 {layer} 的 {cosine}），末层仍为 {end}，"
                       "且 16 比特运行恢复了它们：量化误差")},
    docs="""
    ## What it finds
    A good start (≥ `good`, 0.99) and an end below `decay_end` (0.95); or middle layers below
    `middle_dip` (0.90) that a 16-bit run recovers (≥ `good` at each) while the end is fine.

    ## Why
    Guide step 3: 8-bit error accumulates layer by layer.  A compile_mode 1 (16-bit) run confirms
    it (T202) or rejects it (T203); the deployable fix is compile_mode 2 with `_hp` on a few layers
    (T207, T204).

    ## Example
    ```
    T201 similarity decays from 0.9984 at the start to 0.7900 at conv4-2
    ```

    ## Fix
    See T207 (the `_hp` plan) and T204 (single candidates).
    """,
    docs_zh="起点良好（≥ good，0.99），末层低于 decay_end（0.95）。指南第 3 步：8 比特误差逐层累积。compile_mode 1（16 比特）运行可确认（T202）或否定（T203）；"
            "可部署的方案是 compile_mode 2 并给少数层加 `_hp`（见 T207、T204）。")


register_finding(
    __name__,
    "T204", "hp-candidate", Severity.INFO, 3,
    summary=("A layer worth marking high precision (`_hp`)", "值得标记为高精度（`_hp`）的层"),
    messages={"gain": ("`_hp` candidate #{rank}: {layer} → {layer}_hp (top unchanged: \"{top}\") — 16-bit alone: "
                       "emulated final similarity {baseline} → {similarity} ({gain}){in_plan}",
                       "`_hp` 候选 #{rank}：{layer} → {layer}_hp（top 不变：\"{top}\"）——单独用 16 比特时仿真的最终相似度"
                       " {baseline} → {similarity}（{gain}）{in_plan}"),
              "in_plan": ("; in the plan (T207)", "；已在方案中（T207）"),
              "fix": ("Rename \"{layer}\" to \"{layer}_hp\"", "将 \"{layer}\" 改名为 \"{layer}_hp\"")},
    fix="unsafe",
    docs="""
    ## What it finds
    In case 2 (and a mild 8-bit decay), the layers of `nnie-triage hp-plan`'s ranking: each made
    16-bit alone in the NNIE emulation of the cfg's net and images, ranked by how much final
    similarity it wins back (the emulation checked against these NNIE dumps first); a layer that
    wins nothing alone is not a candidate.

    ## Why
    Guide step 3: with `[compile_mode] 2`, layers whose names end in `_hp` run at 16 bit.  The
    guide adds them one at a time from the first layer, one mapper run each; a measured gain finds
    the layers where 8-bit error costs the final outputs, which no position in the net tells.

    ## Example
    ```
    layer { name: "conv2_2" ... }        # -> name: "conv2_2_hp" (top unchanged)
    ```

    ## Fix
    Unsafe: rename the layer `<name>_hp` (weights are looked up by layer name in other tools, and
    precision changes what the chip computes).  T207 is the set to apply: the planner's answer, with
    `[compile_mode] 2`.
    """,
    docs_zh="情况 2（以及轻微的 8 比特衰减）中 `nnie-triage hp-plan` 的排序：在 cfg 的网络和图片的 NNIE 仿真中逐个把某层单独设为 16 比特，"
            "按它挽回的最终相似度排序（仿真先与这些 NNIE dump 核对）；单独无增益的层不是候选。"
            "[compile_mode] 2 时名称以 `_hp` 结尾的层以 16 比特运行。修复把该层改名为 `<名称>_hp`，是非安全修复；"
            "应采用的整体方案见 T207（规划器的结果，含 [compile_mode] 2）。")


register_finding(
    __name__,
    "T206", "sudden-drop", Severity.WARNING, 3,
    summary=("A sudden similarity drop between neighbouring layers", "相邻层之间相似度骤降"),
    messages={"drop": ("a sudden drop of {drop} at {layer}: larger than quantization noise usually causes; confirm "
                       "with a 16-bit run (--sim-16bit)",
                       "{layer} 处相似度骤降 {drop}：超出量化噪声通常造成的幅度；请用 16 比特运行（--sim-16bit）确认")},
    docs="""
    ## What it finds
    In case 2, a cosine drop between neighbouring layers larger than `sudden_drop` (0.3), unless a
    16-bit run already confirmed quantization (T202).

    ## Why
    Guide step 3: quantization error grows gradually.  A cliff at one layer is more often a layer
    the mapper computes differently (step 4) or an unsupported parameter; a 16-bit run tells.

    ## Example
    ```
    T206 a sudden drop of 0.412 at conv5
    ```

    ## Fix
    None automatic: run `--sim-16bit`, or look at that layer's parameters.
    """,
    docs_zh="情况 2 中，相邻层之间的余弦下降超过 sudden_drop（0.3）。量化误差通常逐渐增长；某一层的断崖式下降更可能是 mapper 对该层的计算不同（第 4 步）"
            "或参数不受支持，可用 16 比特运行确认。")


def quantization_findings(rows: list[LayerRow], th: Thresholds, builder: FindingBuilder, *,
                          dips: list[LayerRow] | None = None, confirmed: bool | None = None) -> list[HpCandidate]:
    """T201 and T206 (unless a 16-bit run `confirmed` it); returns the candidates the dumps show
    (:func:`rank_hp_candidates`) -- the plan (T207, T204) is hp-plan's, added by
    :mod:`nnie_lsp.triage.hp_plan.for_compare`.  `dips`: case 2 found by the 16-bit run recovering
    these middle-layer dips (the end is fine)."""
    src = builder.sources
    end = min(ends(rows), key=lambda r: r.cosine)
    first = start(rows)
    if dips:
        low = min(dips, key=lambda r: r.cosine)
        builder.add("T201", "dips", place=src.layer_place(low.name), layer=low.name, count=len(dips),
                    middle_dip=th.middle_dip, cosine=f"{low.cosine:.4f}", end=f"{end.cosine:.4f}")
    else:
        builder.add("T201", "decay", place=src.layer_place(end.name), layer=end.name,
                    start=f"{first.cosine:.4f}", end=f"{end.cosine:.4f}")
    body = measured_body(rows)
    drops = [(body[i - 1].cosine - body[i].cosine, body[i]) for i in range(1, len(body))]
    if drops and not confirmed:  # a 16-bit run that confirms is the test T206 asks for
        big, at = max(drops, key=lambda t: t[0])
        if big > th.sudden_drop:
            builder.add("T206", "drop", place=src.layer_place(at.name), layer=at.name, drop=f"{big:.3f}")
    return rank_hp_candidates(rows, th, builder)


register_finding(
    __name__,
    "T207", "hp-plan", Severity.INFO, 3,
    summary=("The `_hp` plan: the layers hp-plan marks `_hp`, with [compile_mode] 2",
             "`_hp` 方案：hp-plan 选出的 `_hp` 层，并设置 [compile_mode] 2"),
    messages={"plan": ("the `_hp` plan ({command}): mark {layers} high precision (`_hp`) and set [compile_mode] 2 "
                       "(cfg: {mode}) — emulated final similarity {baseline} → {similarity} (target {target}); "
                       "confirm with one mapper run{next}",
                       "`_hp` 方案（{command}）：将 {layers} 标记为高精度（`_hp`）并设置 [compile_mode] 2（cfg 中为 {mode}）"
                       "——仿真的最终相似度 {baseline} → {similarity}（目标 {target}）；请用一次 mapper 运行确认{next}"),
              "plan_mode_ok": ("the `_hp` plan ({command}): mark {layers} high precision (`_hp`); [compile_mode] is "
                               "already 2 — emulated final similarity {baseline} → {similarity} (target {target}); "
                               "confirm with one mapper run{next}",
                               "`_hp` 方案（{command}）：将 {layers} 标记为高精度（`_hp`）；[compile_mode] 已为 2——"
                               "仿真的最终相似度 {baseline} → {similarity}（目标 {target}）；请用一次 mapper 运行确认{next}"),
              "next": ("; should it fall short, add {layer}", "；若仍不足，再加 {layer}"),
              "compile_mode_1": ("the `_hp` plan ({command}): only every layer at 16 bit reaches the target {target} "
                                 "(emulated {similarity}): set [compile_mode] 1 (cfg: {mode}), about twice the run time",
                                 "`_hp` 方案（{command}）：只有全部层 16 比特才达到目标 {target}（仿真 {similarity}）："
                                 "请设置 [compile_mode] 1（cfg 中为 {mode}），运行时间约为两倍"),
              "unreachable": ("no `_hp` plan reaches the target {target} ({command}): with every layer at 16 bit the "
                              "emulation ends at {ceiling} — more precision alone does not recover the end",
                              "没有 `_hp` 方案能达到目标 {target}（{command}）：全部层 16 比特时仿真的末层为 {ceiling}——"
                              "仅提高精度无法恢复末层"),
              "already": ("no `_hp` plan ({command}): the emulation of the cfg's net reaches {similarity} at 8 bit, the "
                          "target {target}, while these dumps end lower — the loss here is not the emulated "
                          "quantization; compare the layers (guide steps 4 and 6)",
                          "没有 `_hp` 方案（{command}）：cfg 网络的 8 比特仿真已达到 {similarity}（目标 {target}），而这些 dump "
                          "的末层更低——这里的损失不是仿真的量化误差；请比较各层（指南第 4、6 步）"),
              "no_plan": ("no `_hp` plan: {reason}", "没有 `_hp` 方案：{reason}"),
              "fix": ("Mark {layers} `_hp` and set [compile_mode] 2", "将 {layers} 标记为 `_hp` 并设置 [compile_mode] 2"),
              "fix_renames": ("Mark {layers} `_hp`", "将 {layers} 标记为 `_hp`"),
              "fix_mode": ("Set [compile_mode] 2", "设置 [compile_mode] 2"),
              "fix_mode_1": ("Set [compile_mode] 1", "设置 [compile_mode] 1"),
              "rename": ("rename \"{layer}\" to \"{layer}_hp\"", "将 \"{layer}\" 改名为 \"{layer}_hp\""),
              **UNSET},
    fix="unsafe",
    docs="""
    ## What it finds
    In case 2 (and a mild 8-bit decay), the plan of guide step 3 as one change: what
    `nnie-triage hp-plan` answers on the same cfg and NNIE dumps (the message gives the command; the
    JSON's `hp_plan` its numbers) -- the fewest layers whose `_hp` marks bring the emulated final
    similarity to `good`, found by measured gain, renamed `<name>_hp`, with `[compile_mode]` set to
    2.  When only every layer at 16 bit reaches it, `[compile_mode] 1`; when nothing does, or the
    emulation does not show the loss, or the plan cannot be made (no cfg, the emulation disagrees
    with the NNIE run), it says so and offers no change.

    ## Why
    Guide step 3: `_hp` marks only take effect with `[compile_mode] 2`; renaming without it (or
    mode 2 without marks) changes nothing.  Mode 1 (all 16-bit) costs about 2× speed.  One planner
    answers everywhere: the plan the comparison offers is the one `hp-plan` prints.

    ## Example
    ```
    [compile_mode] 0                     # -> [compile_mode] 2
    layer { name: "conv2_2" ... }        # -> name: "conv2_2_hp"
    ```

    ## Fix
    Unsafe: one fix with the renames (prototxt) and `[compile_mode] 2` (cfg).  It changes the
    precision of those layers on the chip and the layer names other tools look weights up by.
    After it, `nnie-triage compare --regenerate` (an emulation) or a mapper run confirms it.
    """,
    docs_zh="情况 2（以及轻微的 8 比特衰减）中，把指南第 3 步作为一个整体修改：即 `nnie-triage hp-plan` 在同一 cfg 与 NNIE dump 上给出的方案"
            "（消息中给出命令，JSON 的 hp_plan 给出数值）——按实测增益找到的、使仿真最终相似度达到 good 的最少 `_hp` 层，改名为 `<名称>_hp`，"
            "并把 [compile_mode] 设为 2；只有全部层 16 比特才达到时为 [compile_mode] 1；无法达到、仿真未显示该损失或无法规划时说明原因且不提供修改。"
            "修复同时修改 prototxt 与 cfg，是非安全修复。")

"""Triage findings about the model after the data layer: T2xx case 2 (guide step 3, quantization),
T3xx case 3 (step 4, layer matching), T4xx case 4 (step 5, post-processing).  Registered when
:mod:`.triage_findings` is imported; see there.
"""

from __future__ import annotations

from ..diagnostics import Severity
from .registry import Messages
from .triage_common import UNSET, register_finding

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

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


# ------------------------------------------------------------------------------ T2xx: case 2
register_finding(
    __name__,
    "T201", "quantization-decay", ERROR, 3,
    summary=("Similarity decays from a good start to a bad end: quantization (case 2)",
             "相似度从良好的起点衰减到很差的末层：量化误差（情况 2）"),
    messages={"decay": ("similarity decays from {start} at the start to {end} at {layer}: quantization error",
                        "相似度从起点的 {start} 衰减到 {layer} 的 {end}：量化误差")},
    docs="""
    ## What it finds
    A good start (≥ `good`, 0.99) and an end below `decay_end` (0.95).

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
    "T202", "sim16-confirms-quantization", INFO, 3,
    summary=("A 16-bit run recovers the end: quantization confirmed", "16 比特运行恢复了末层：确认是量化误差"),
    messages={"confirmed": ("the 16-bit run (compile_mode 1) reaches {end16} at the end vs {end8} at 8 bit: "
                            "quantization confirmed — mark the candidates below `_hp` with compile_mode 2 "
                            "(compile_mode 1 costs about 2× speed)",
                            "16 比特运行（compile_mode 1）末层达到 {end16}，8 比特为 {end8}：确认是量化误差——"
                            "请用 compile_mode 2 给下列候选层加 `_hp`（compile_mode 1 约慢一倍）")},
    docs="""
    ## What it finds
    With `--sim-16bit`: the compile_mode 1 run ends at ≥ `good`, or at ≥ `decay_end` and
    `sim16_gain` above the 8-bit run.

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
    docs_zh="给出 --sim-16bit 时：compile_mode 1 运行的末层达到 good，或达到 decay_end 且比 8 比特高出 sim16_gain。"
            "指南第 3 步：16 比特运行可区分量化误差与其它问题。compile_mode 1 约慢一倍，compile_mode 2 只给少数层加 `_hp` 可保留大部分速度。")

register_finding(
    __name__,
    "T203", "sim16-rejects-quantization", ERROR, 3,
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

register_finding(
    __name__,
    "T204", "hp-candidate", INFO, 3,
    summary=("A layer worth marking high precision (`_hp`)", "值得标记为高精度（`_hp`）的层"),
    messages={"first": ("`_hp` candidate #{rank}: {layer} → {layer}_hp (top unchanged: \"{top}\") — the guide's "
                        "advice: a high-precision first convolution (8-bit error there reaches every later layer)",
                        "`_hp` 候选 #{rank}：{layer} → {layer}_hp（top 不变：\"{top}\"）——指南建议：第一个卷积用高精度"
                        "（那里的 8 比特误差会传到之后的每一层）"),
              "drop": ("`_hp` candidate #{rank}: {layer} → {layer}_hp (top unchanged: \"{top}\") — it drops {loss} "
                       "below its inputs' similarity ({input} → {cosine})",
                       "`_hp` 候选 #{rank}：{layer} → {layer}_hp（top 不变：\"{top}\"）——它比输入的相似度低 {loss}"
                       "（{input} → {cosine}）"),
              "fix": ("Rename \"{layer}\" to \"{layer}_hp\"", "将 \"{layer}\" 改名为 \"{layer}_hp\"")},
    fix="unsafe",
    docs="""
    ## What it finds
    In case 2, the layers ranked for `_hp`: the first convolution first (the guide's advice), then
    the layers that lose the most similarity against their own inputs (single-layer loss).

    ## Why
    Guide step 3: with `[compile_mode] 2`, layers whose names end in `_hp` run at 16 bit.  Add
    them one by one from the first layer; usually the first convolution is enough.  Ranking by
    single-layer loss finds the layers where 8-bit error is born rather than where it shows.

    ## Example
    ```
    layer { name: "conv1" ... }        # -> name: "conv1_hp" (top unchanged)
    ```

    ## Fix
    Unsafe: rename the layer `<name>_hp` (weights are looked up by layer name in other tools, and
    precision changes what the chip computes).  T207 combines the renames with `[compile_mode] 2`.
    """,
    docs_zh="情况 2 中按 `_hp` 排序的候选层：第一个卷积排在最前（指南建议），其后是相对自身输入损失相似度最多的层（单层损失）。"
            "指南第 3 步：[compile_mode] 2 时名称以 `_hp` 结尾的层以 16 比特运行，应从第一层开始逐个添加，通常第一个卷积就够了。"
            "修复把该层改名为 `<名称>_hp`，是非安全修复；T207 把改名与 [compile_mode] 2 合为一个修复。")

register_finding(
    __name__,
    "T206", "sudden-drop", WARNING, 3,
    summary=("A sudden similarity drop between neighbouring layers", "相邻层之间相似度骤降"),
    messages={"drop": ("a sudden drop of {drop} at {layer}: larger than quantization noise usually causes; confirm "
                       "with a 16-bit run (--sim-16bit)",
                       "{layer} 处相似度骤降 {drop}：超出量化噪声通常造成的幅度；请用 16 比特运行（--sim-16bit）确认")},
    docs="""
    ## What it finds
    In case 2, a cosine drop between neighbouring layers larger than `sudden_drop` (0.3).

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

register_finding(
    __name__,
    "T207", "hp-plan", INFO, 3,
    summary=("The `_hp` plan: rename the hot-spot layers and set [compile_mode] 2",
             "`_hp` 方案：重命名热点层并设置 [compile_mode] 2"),
    messages={"plan": ("mark {layers} high precision (`_hp`) and set [compile_mode] 2 (cfg: {mode}) so the marks "
                       "take effect",
                       "将 {layers} 标记为高精度（`_hp`）并设置 [compile_mode] 2（cfg 中为 {mode}），标记才会生效"),
              "plan_no_cfg": ("mark {layers} high precision (`_hp`) and use [compile_mode] 2 in the cfg so the marks "
                              "take effect",
                              "将 {layers} 标记为高精度（`_hp`），并在 cfg 中使用 [compile_mode] 2，标记才会生效"),
              "plan_mode_ok": ("mark {layers} high precision (`_hp`); [compile_mode] is already 2",
                               "将 {layers} 标记为高精度（`_hp`）；[compile_mode] 已为 2"),
              "mode_only": ("set [compile_mode] 2 (cfg: {mode}) so the `_hp` marks take effect",
                            "设置 [compile_mode] 2（cfg 中为 {mode}），`_hp` 标记才会生效"),
              "fix": ("Mark {layers} `_hp` and set [compile_mode] 2", "将 {layers} 标记为 `_hp` 并设置 [compile_mode] 2"),
              "fix_renames": ("Mark {layers} `_hp`", "将 {layers} 标记为 `_hp`"),
              "fix_mode": ("Set [compile_mode] 2", "设置 [compile_mode] 2"),
              "rename": ("rename \"{layer}\" to \"{layer}_hp\"", "将 \"{layer}\" 改名为 \"{layer}_hp\""),
              "cfg": ("[compile_mode] is set here", "[compile_mode] 在此设置"),
              **UNSET},
    fix="unsafe",
    docs="""
    ## What it finds
    In case 2, the plan for guide step 3 as one change: the first convolution plus every layer
    whose own similarity loss exceeds the guide's whole-net margin (`good` − `decay_end`) are
    renamed `<name>_hp`, and `[compile_mode]` is set to 2.

    ## Why
    Guide step 3: `_hp` marks only take effect with `[compile_mode] 2`; renaming without it (or
    mode 2 without marks) changes nothing.  Mode 1 (all 16-bit) costs about 2× speed.

    ## Example
    ```
    [compile_mode] 0                     # -> [compile_mode] 2
    layer { name: "conv1" ... }          # -> name: "conv1_hp"
    ```

    ## Fix
    Unsafe: one fix with the renames (prototxt) and `[compile_mode] 2` (cfg).  It changes the
    precision of those layers on the chip and the layer names other tools look weights up by.
    """,
    docs_zh="情况 2 中，把指南第 3 步作为一个整体修改：第一个卷积以及单层损失超过指南整网余量（good − decay_end）的层改名为 `<名称>_hp`，"
            "并把 [compile_mode] 设为 2。`_hp` 只在 compile_mode 2 时生效。修复同时修改 prototxt 与 cfg，会改变这些层在芯片上的精度，是非安全修复。")

register_finding(
    __name__,
    "T208", "first-layer-low", WARNING, 3,
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


# ------------------------------------------------------------------------------ T3xx: case 3
register_finding(
    __name__,
    "T301", "inplace-split-dip", WARNING, 4,
    summary=("A dip explained by an in-place layer the mapper splits", "由 mapper 拆分原位层造成的相似度下降"),
    messages={"split": ("blob {blob} is rewritten in place by {chain} after {producer_type} {layer}: the mapper "
                        "splits that in-place layer and reports {layer}'s output before it, while Caffe's blob holds "
                        "the value after it{evidence}. nnie-lint {lint_code} fixes this: give layer \"{inplace}\" its "
                        "own top and rewire every later bottom \"{blob}\" to it",
                        "blob {blob} 在 {producer_type} {layer} 之后被 {chain} 原位改写：mapper 会拆分该原位层并报告 {layer} "
                        "在它之前的输出，而 Caffe 的 blob 保存的是它之后的值{evidence}。nnie-lint {lint_code} 可修复："
                        "给层 \"{inplace}\" 一个自己的 top，并把之后所有 bottom \"{blob}\" 改为它"),
              "evidence_activation": (" (where the simulator's value is positive it matches Caffe's (cosine {cosine}) "
                                      "and {negative} of the simulator's values are negative: it is the value before "
                                      "the activation)",
                                      "（模拟器值为正处与 Caffe 一致（余弦 {cosine}），且模拟器有 {negative} 的值为负：它是激活之前的值）"),
              "evidence_affine": (" (Caffe's value is a per-channel affine function of the simulator's (R² {r2}): the "
                                  "simulator's is the value before {types})",
                                  "（Caffe 的值是模拟器值的逐通道仿射函数（R² {r2}）：模拟器的是 {types} 之前的值）"),
              "fix": ("De-inplace \"{layer}\": write to new blob \"{blob}\" (the nnie-lint {lint_code} fix)",
                      "取消 \"{layer}\" 的原位计算：输出到新 blob \"{blob}\"（nnie-lint {lint_code} 的修复）"),
              "dip": ("\"{layer}\" dips to {cosine} here", "\"{layer}\" 在此下降到 {cosine}")},
    fix="safe",
    docs="""
    ## What it finds
    In case 3, a middle-layer dip at a blob rewritten in place (an activation, Scale or BatchNorm
    with `bottom` = `top`): the mapper reports the producer's output before the in-place layer,
    Caffe's blob holds the value after it.  Numeric evidence is checked (the simulator's values
    equal Caffe's where positive, or relate per channel affinely).

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
            "而 Caffe 的 blob 保存的是原位层之后的值。指南第 4 步：mapper 会拆分原位层对，逐层对比因此出现假的下降。"
            "修复与 nnie-lint NN301/NN302/NN303 相同：给原位层一个新的 top 并改写之后的引用，计算图不变，是安全修复。")

register_finding(
    __name__,
    "T302", "permute-layout-dip", WARNING, 4,
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

register_finding(
    __name__,
    "T303", "unexplained-dip", WARNING, 4,
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


# ------------------------------------------------------------------------------ T4xx: case 4
register_finding(
    __name__,
    "T401", "check-postprocessing", INFO, 5,
    summary=("Every layer matches: check the post-processing (case 4)", "各层都一致：检查后处理（情况 4）"),
    messages={"postprocess": ("every layer is ≥ {good} (lowest {cosine} at {worst}) with small absolute error: the "
                              "NNIE side computes what Caffe computes — check the post-processing (decoding, anchors, "
                              "thresholds, NMS, output order)",
                              "每一层都 ≥ {good}（最低为 {worst} 的 {cosine}）且绝对误差小：NNIE 与 Caffe 的计算一致——请检查后处理"
                              "（解码、anchor、阈值、NMS、输出顺序）")},
    docs="""
    ## What it finds
    Every layer at ≥ `good` (0.99) with a small absolute error.

    ## Why
    Guide step 5: when the network matches, wrong results on the board come from the
    post-processing code (box decoding, anchors, thresholds, NMS, the order of the outputs).
    `--postprocess module:function` runs your decoding on both sides (T402/T403).

    ## Example
    ```
    T401 every layer is ≥ 0.99 (lowest 0.9967 at conv4-2) with small absolute error
    ```

    ## Fix
    None automatic: compare the deployment code's post-processing with the reference.
    """,
    docs_zh="每一层都 ≥ good（0.99）且绝对误差小。指南第 5 步：网络一致时，板端结果错误来自后处理代码（框解码、anchor、阈值、NMS、输出顺序）。"
            "用 --postprocess module:function 可在两侧运行你的解码（T402/T403）。")

register_finding(
    __name__,
    "T402", "postprocess-differs", WARNING, 5,
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
    "T403", "postprocess-agrees", INFO, 5,
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
    "T404", "postprocess-failed", WARNING, 5,
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

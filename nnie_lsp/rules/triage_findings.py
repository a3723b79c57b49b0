"""Triage findings (T-codes) in the engine's rule registry: docs, messages (en, zh), ``--explain``.

nnie-triage produces these findings from a comparison of dump sets (:mod:`nnie_lsp.triage.findings`
builds them as engine Diagnostics with Fixes); nnie-lint never does — their check yields nothing,
so linting a project reports no T-code.  The codes follow the guide's workflow (docs/field-facts.md
§12): T0xx the comparison itself (step 1), T1xx case 1 (step 2, preprocessing), T2xx case 2
(step 3, quantization), T3xx case 3 (step 4, layer matching), T4xx case 4 (step 5, post-processing).
"""

from __future__ import annotations

from ..diagnostics import Severity
from .registry import Messages, rule

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

#: "not set" for a cfg key a finding quotes (T102/T103/T104/T207)
_UNSET = {"unset": ("not set, default {default}", "未设置，默认 {default}")}
_DATA = {"data": ("data input \"{blob}\"", "数据输入 \"{blob}\"")}

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


def _finding(code: str, name: str, severity: Severity, step: int, *, summary: tuple[str, str],
             messages: Messages, docs: str, docs_zh: str, fix: str | None = None) -> None:
    """Register one T-code: its docs (the four sections) come from `docs`."""

    def check(project, ctx):
        return ()  # triage findings come from nnie-triage's comparison, never from a lint run

    check.__name__ = f"triage_{code.lower()}"
    check.__doc__ = docs
    rule(code, name, severity, step=step, summary=summary, messages=messages, fix=fix,
         docs_zh=docs_zh)(check)


# ------------------------------------------------------------------------------ T0xx: the comparison
_finding(
    "T001", "triage-inconclusive", WARNING, 1,
    summary=("The comparison fits none of the guide's four cases", "对比结果不属于指南的四种情况"),
    messages={
        "nothing_aligned": ("no tensor pair could be compared (nothing aligned)", "没有可比较的张量对（未能对齐任何张量）"),
        "only_data": ("only the data layer could be compared", "只有数据层可以比较"),
        "magnitude": ("cosines are all ≥ {good} but {layer}'s absolute error is large ({relative} of its range, "
                      "best scale {scale}): a magnitude/decoding difference (fixed-point fraction bits, a Scale "
                      "folded differently), not a case of the guide",
                      "所有余弦都 ≥ {good}，但 {layer} 的绝对误差很大（占其取值范围的 {relative}，最佳缩放 {scale}）："
                      "这是幅值/解码差异（定点小数位、Scale 折叠方式不同），不属于指南中的任何情况"),
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
    data layer could be compared, the cosines are fine but the magnitudes are not, the end is
    between `decay_end` and `good` with no middle dip, or a 16-bit run does not recover the end.
    The message says which, with the numbers.

    ## Why
    Guide step 1 compares the Caffe run with the NNIE side layer by layer and sorts the result into
    four cases (steps 2-5).  When none applies, the next step is 6: report the layer to the vendor
    with a support bundle (`nnie-triage bundle`), or gather better dumps.

    ## Example
    ```
    T001 the end falls to 0.6120 but a 16-bit run does not recover it: look at conv5 (step 6: ...)
    ```

    ## Fix
    None automatic: follow the message (more dumps, a 16-bit run, or a support bundle).
    """,
    docs_zh="对比结果不属于指南的四种情况：没有任何张量能对齐、只能比较数据层、余弦正常但幅值不对、末层介于 decay_end 与 good 之间且没有中间层下降，"
            "或 16 比特运行也无法恢复末层精度。下一步是第 6 步：用 `nnie-triage bundle` 打包该层提交给厂商，或补充更完整的 dump。")

_finding(
    "T002", "no-data-layer-pair", WARNING, 1,
    summary=("No data-layer pair: the preprocessing was not checked", "没有数据层配对：未能检查预处理"),
    messages={"no_data": ("no data-layer pair: the preprocessing could not be checked (case 1); include the "
                          "data blob in both dump sets",
                          "没有数据层配对：无法检查预处理（情况 1）；请在两侧的 dump 中都包含数据 blob")},
    docs="""
    ## What it finds
    Dump sets in which the network input (the data blob) has no partner on the other side.

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

_finding(
    "T003", "non-finite-values", WARNING, 1,
    summary=("NaN or Inf values in a compared tensor", "对比的张量中有 NaN 或 Inf"),
    messages={"non_finite": ("{layer}: NaN/Inf values (Caffe {nan_ref} NaN / {inf_ref} Inf, NNIE {nan_sim} NaN / "
                             "{inf_sim} Inf); metrics use the finite values only",
                             "{layer}：存在 NaN/Inf（Caffe {nan_ref} 个 NaN / {inf_ref} 个 Inf，NNIE {nan_sim} 个 NaN / "
                             "{inf_sim} 个 Inf）；指标只使用有限值计算")},
    docs="""
    ## What it finds
    A tensor pair in which either side holds NaN or Inf values.

    ## Why
    Guide step 1: the similarity metrics are computed on the elements finite on both sides, so a
    layer that overflows (a 20.12 fixed-point saturation, a division by zero in a custom layer)
    could otherwise look fine.  Non-finite values on the Caffe side usually mean a broken model or
    input.

    ## Example
    ```
    T003 conv5: NaN/Inf values (Caffe 0 NaN / 0 Inf, NNIE 0 NaN / 12 Inf)
    ```

    ## Fix
    None automatic: find where the values first become non-finite.
    """,
    docs_zh="某个张量对的任一侧含有 NaN 或 Inf。相似度指标只用两侧都为有限值的元素计算，溢出的层（20.12 定点饱和、自定义层除零）可能因此看起来正常；"
            "Caffe 侧出现非有限值通常说明模型或输入有问题。")


# ------------------------------------------------------------------------------ T1xx: case 1
_finding(
    "T101", "data-layer-differs", ERROR, 2,
    summary=("The data layer differs: preprocessing mismatch (case 1)", "数据层不一致：预处理不匹配（情况 1）"),
    messages={"differs": ("data layer {layer}: cosine {cosine}, relative L2 error {rel_l2} (needs ≥ {threshold} "
                          "and ≈ 0): the preprocessing differs",
                          "数据层 {layer}：余弦 {cosine}，相对 L2 误差 {rel_l2}（应 ≥ {threshold} 且 ≈ 0）：预处理不一致"),
              "cfg": ("the preprocessing of input {index} is set in this cfg", "输入 {index} 的预处理在此 cfg 中设置")},
    docs="""
    ## What it finds
    The data layer's cosine is below `data_layer` (0.999), or its relative L2 error is above
    `data_rel_l2` (a pure scale difference such as 1/255 against 1/256 keeps the cosine at 1).

    ## Why
    Guide step 2: the first layer must match ≈ 0.999; if not, the mapper's preprocessing
    (`[norm_type]`, `[mean_file]`, `[data_scale]`, `[RGB_order]`) differs from Caffe's, and every
    later layer inherits the difference.  The fit that follows (T102-T106) says which key.

    ## Example
    ```
    T101 data layer data: cosine 0.932484, relative L2 error 0.3675 (needs ≥ 0.999 and ≈ 0)
    ```

    ## Fix
    See the T102-T104 findings that come with it (their fixes are unsafe).
    """,
    docs_zh="数据层余弦低于 data_layer（0.999），或相对 L2 误差高于 data_rel_l2（纯缩放差异如 1/255 与 1/256 时余弦仍为 1）。"
            "指南第 2 步：第一层应达到 ≈0.999，否则 mapper 的预处理（norm_type、mean_file、data_scale、RGB_order）与 Caffe 不同，后续各层都会继承这一差异。"
            "随后的 T102–T106 指出具体是哪个配置项。")

_finding(
    "T102", "rgb-order-mismatch", ERROR, 2,
    summary=("The simulator's channels are Caffe's in another order: set [RGB_order]",
             "模拟器的通道顺序与 Caffe 不同：设置 [RGB_order]"),
    messages={"set": ("the simulator's channels are Caffe's channels in the order {permutation}: set [RGB_order] "
                      "{value} (cfg: {old})",
                      "模拟器的通道是 Caffe 通道按 {permutation} 重排的结果：请设置 [RGB_order] {value}（cfg 中为 {old}）"),
              "no_cfg": ("the simulator's channels are Caffe's channels in the order {permutation}: set [RGB_order] "
                         "{value} in the cfg (give --cfg for the exact line)",
                         "模拟器的通道是 Caffe 通道按 {permutation} 重排的结果：请在 cfg 中设置 [RGB_order] {value}"
                         "（用 --cfg 指定 cfg 可得到确切的行）"),
              "fix": ("Set [RGB_order] {value} for input {index}", "为输入 {index} 设置 [RGB_order] {value}"),
              **_UNSET, **_DATA},
    fix="unsafe",
    docs="""
    ## What it finds
    The simulator's data tensor equals Caffe's with the channels permuted (usually 0 and 2
    swapped): the cfg's `[RGB_order]` is not the order the network was trained with.

    ## Why
    Guide step 2: MXNet, Darknet and most PyTorch/ONNX conversions are trained on RGB, Caffe's
    OpenCV pipelines on BGR; nnie_mapper assumes BGR unless `[RGB_order] RGB`.  The fit tries every
    channel permutation of the data tensor and names the one that explains it.

    ## Example
    ```
    [RGB_order] BGR        # the net was trained on RGB -> [RGB_order] RGB
    ```

    ## Fix
    Unsafe: set `[RGB_order]` for that input (inserted when absent).  It changes what the network
    computes on the chip, which is the point — review it against how the net was trained.
    """,
    docs_zh="模拟器的数据张量等于 Caffe 数据张量的通道重排（通常是 0 与 2 互换）：cfg 的 [RGB_order] 与训练时的通道顺序不同。"
            "指南第 2 步：MXNet、Darknet 及多数 PyTorch/ONNX 转换的网络用 RGB 训练，mapper 默认 BGR。修复会设置该输入的 [RGB_order]；"
            "它会改变芯片上的计算结果（这正是目的），因此是非安全修复，请对照训练方式确认。")

_finding(
    "T103", "data-scale-mismatch", ERROR, 2,
    summary=("The data scales differ: set [data_scale]", "数据缩放不同：设置 [data_scale]"),
    messages={"set": ("ratio simulator/Caffe = {ratio}: Caffe scales the data by {caffe_scale}, the simulator by "
                      "{sim_scale}: set [data_scale] {value} (cfg: {old})",
                      "模拟器/Caffe 的比值 = {ratio}：Caffe 的数据缩放为 {caffe_scale}，模拟器为 {sim_scale}："
                      "请设置 [data_scale] {value}（cfg 中为 {old}）"),
              "no_cfg": ("ratio simulator/Caffe = {ratio}: Caffe scales the data by {caffe_scale}, the simulator by "
                         "{sim_scale}: set [data_scale] {value} in the cfg",
                         "模拟器/Caffe 的比值 = {ratio}：Caffe 的数据缩放为 {caffe_scale}，模拟器为 {sim_scale}："
                         "请在 cfg 中设置 [data_scale] {value}"),
              "fix": ("Set [data_scale] {value} for input {index}", "为输入 {index} 设置 [data_scale] {value}"),
              **_UNSET, **_DATA},
    fix="unsafe",
    docs="""
    ## What it finds
    The simulator's data is Caffe's times a constant ratio: the cfg's `[data_scale]` (applied for
    norm_type 3/4/5) is not Caffe's input scale.  The classic case is a ratio of 255/256: the
    mapper's default data_scale is 1/256 (0.00390625) while the net was trained with 1/255.

    ## Why
    Guide step 2.  A pure scale difference leaves the cosine at 1, so the triage also checks the
    relative L2 error of the data layer; every later layer is off by the same ratio before the
    activations and quantization make it worse.

    ## Example
    ```
    [norm_type] 3
    [data_scale] 0.00390625     # Caffe uses 1/255 -> [data_scale] 0.0039215686
    ```

    ## Fix
    Unsafe: set `[data_scale]` for that input to Caffe's scale (inserted when absent); it changes
    what the network computes on the chip.
    """,
    docs_zh="模拟器数据是 Caffe 数据乘以一个常数比值：cfg 的 [data_scale]（norm_type 3/4/5 时生效）与 Caffe 的输入缩放不同。"
            "典型情况是比值 255/256：mapper 默认 data_scale 为 1/256，而网络用 1/255 训练。纯缩放差异时余弦仍为 1，因此还检查数据层的相对 L2 误差。"
            "修复把该输入的 [data_scale] 设为 Caffe 的缩放，会改变芯片上的计算结果，是非安全修复。")

_finding(
    "T104", "mean-mismatch", ERROR, 2,
    summary=("The mean is not subtracted or differs: norm_type and mean file",
             "均值未减或不同：norm_type 与均值文件"),
    messages={"no_mean": ("the mean is not subtracted (norm_type {old_norm} → {new_norm}): Caffe's channel means "
                          "are {means}; use norm_type {new_norm} with a channel mean file holding them (one value per "
                          "line, in the net's channel order)",
                          "没有减均值（norm_type {old_norm} → {new_norm}）：Caffe 的通道均值为 {means}；请使用 norm_type "
                          "{new_norm} 并配置包含这些均值的通道均值文件（每行一个值，按网络的通道顺序）"),
              "mean_differs": ("the mean differs: the simulator subtracts {current}, Caffe {means}: write {means} into "
                               "{file}",
                               "均值不同：模拟器减去 {current}，Caffe 减去 {means}：请把 {means} 写入 {file}"),
              "fix_no_mean": ("Set [norm_type] {new_norm} and write the channel means to {file}",
                              "设置 [norm_type] {new_norm} 并把通道均值写入 {file}"),
              "fix_mean": ("Write the channel means {means} to {file}", "把通道均值 {means} 写入 {file}"),
              "mean_file": ("[mean_file] of input {index}", "输入 {index} 的 [mean_file]"),
              **_UNSET, **_DATA},
    fix="unsafe",
    docs="""
    ## What it finds
    The simulator's data is Caffe's plus a per-channel offset: the mean is not subtracted
    (norm_type 0 or 3) or a different mean is subtracted.  The fit gives the channel means Caffe
    uses, in grey levels.

    ## Why
    Guide step 2: norm_type 2/5 subtract the channel means of a text file (one value per line),
    1/4 a mean image; 0/3 subtract nothing.  A missing mean shifts every pixel and the data
    layer's cosine falls far below 0.999.

    ## Example
    ```
    [norm_type] 3              # -> [norm_type] 5
    [mean_file] null           # -> [mean_file] ./channel_mean.txt (127.5 / 127.5 / 127.5)
    ```

    ## Fix
    Unsafe: set `[norm_type]` and `[mean_file]` for that input and write the channel-mean file
    (created beside the cfg when it does not exist); it changes what the network computes.
    """,
    docs_zh="模拟器数据等于 Caffe 数据加上逐通道偏移：没有减均值（norm_type 0 或 3）或减去的均值不同。拟合给出 Caffe 使用的通道均值（灰度值）。"
            "指南第 2 步：norm_type 2/5 减去文本均值文件中的通道均值（每行一个），1/4 减去均值图像，0/3 不减。修复会设置该输入的 [norm_type] 与 [mean_file]，"
            "并写入通道均值文件（不存在时在 cfg 旁新建），会改变计算结果，是非安全修复。")

_finding(
    "T105", "data-transposed", ERROR, 2,
    summary=("The simulator's data is Caffe's with H and W swapped", "模拟器数据是 Caffe 数据的 H/W 转置"),
    messages={"transposed": ("the simulator's data is Caffe's data with H and W swapped: the Caffe side transposes "
                             "the image (a MATLAB-trained net such as MTCNN); transpose the calibration images and the "
                             "board input the same way (the mapper cannot transpose)",
                             "模拟器数据是 Caffe 数据交换 H 与 W 后的结果：Caffe 侧对图像做了转置（MTCNN 等 MATLAB 训练的网络）；"
                             "请以同样方式转置校准图像和板端输入（mapper 无法转置）")},
    docs="""
    ## What it finds
    The simulator's data tensor equals Caffe's transposed (H and W swapped).

    ## Why
    Guide step 2: MATLAB-trained nets (MTCNN) read images column-major, so their Caffe pipeline
    transposes each image.  No cfg key makes the mapper transpose: the calibration images and the
    board input must be transposed by the application.

    ## Example
    ```
    MTCNN det1: Caffe input = image.transpose(2, 1, 0); the mapper fed the image as it is
    ```

    ## Fix
    None in the cfg: transpose the images given to the mapper and to the board.
    """,
    docs_zh="模拟器数据等于 Caffe 数据的转置（H 与 W 互换）。MATLAB 训练的网络（如 MTCNN）按列读取图像，其 Caffe 流程会转置每张图像；"
            "没有任何 cfg 配置项能让 mapper 转置，必须由应用程序转置校准图像和板端输入。")

_finding(
    "T106", "preprocessing-unexplained", WARNING, 2,
    summary=("The data layers differ and no cfg change explains it", "数据层不同且没有 cfg 修改能解释"),
    messages={"not_linear": ("the simulator's data is not a per-channel linear function of Caffe's (R² = {r2}): a "
                             "different image (mapper_quant keeps the LAST image of image_list), resize/crop or "
                             "letterbox, or a different input file — run the Caffe side on that image with the same "
                             "resize",
                             "模拟器数据不是 Caffe 数据的逐通道线性函数（R² = {r2}）：图像不同（mapper_quant 保留 image_list 的最后一张）、"
                             "缩放/裁剪/letterbox 方式不同或输入文件不同——请用同一张图像和相同的缩放运行 Caffe 侧"),
              "channel_scales": ("per-channel scales differ ({scales}): Caffe normalizes each channel differently "
                                 "(std normalization); one [data_scale] cannot express that — fold 1/std into the "
                                 "first convolution's weights",
                                 "各通道缩放不同（{scales}）：Caffe 对每个通道做了不同的归一化（除以标准差）；一个 [data_scale] "
                                 "无法表达——请把 1/std 折叠进第一个卷积的权重"),
              "unexplained": ("the data tensors are linearly related (R² = {r2}) but no channel order, scale or mean "
                              "difference explains the gap: check the resize method and the image the mapper used",
                              "数据张量呈线性关系（R² = {r2}），但通道顺序、缩放或均值的差异都无法解释：请检查缩放方法和 mapper 使用的图像"),
              "fit_failed": ("the preprocessing fit failed: {error}", "预处理拟合失败：{error}"),
              "no_arrays": ("the data tensors could not be loaded for a fit", "无法加载数据张量进行拟合")},
    docs="""
    ## What it finds
    A data layer that differs from Caffe's in a way no cfg key can express: not a per-channel
    linear relation (another image, resize or crop), per-channel scales (std normalization), or a
    linear relation with no channel-order, scale or mean difference.

    ## Why
    Guide step 2: the mapper's preprocessing is mean subtraction, one scale and a channel order.
    Anything else has to be done before the mapper (in the images) or folded into the first layer.
    mapper_quant dumps the LAST image of `[image_list]`: compare Caffe on that image.

    ## Example
    ```
    Caffe: (x - mean) / std per channel; the cfg can only give one [data_scale]
    ```

    ## Fix
    None automatic: follow the message.
    """,
    docs_zh="数据层与 Caffe 的差异无法用任何 cfg 配置项表达：不是逐通道线性关系（图像、缩放或裁剪不同）、各通道缩放不同（除以标准差），"
            "或虽线性相关却没有通道顺序、缩放或均值差异。mapper 的预处理只有减均值、一个缩放和通道顺序，其它处理必须在图像中完成或折叠进第一层。"
            "mapper_quant 保存的是 image_list 的最后一张图像。")


# ------------------------------------------------------------------------------ T2xx: case 2
_finding(
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

_finding(
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

_finding(
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

_finding(
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

_finding(
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

_finding(
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
              **_UNSET},
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

_finding(
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
_finding(
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

_finding(
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

_finding(
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
_finding(
    "T401", "check-postprocessing", INFO, 5,
    summary=("Every layer matches: check the post-processing (case 4)", "各层都一致：检查后处理（情况 4）"),
    messages={"postprocess": ("every layer is ≥ {good} (lowest {cosine} at {layer}) with small absolute error: the "
                              "NNIE side computes what Caffe computes — check the post-processing (decoding, anchors, "
                              "thresholds, NMS, output order)",
                              "每一层都 ≥ {good}（最低为 {layer} 的 {cosine}）且绝对误差小：NNIE 与 Caffe 的计算一致——请检查后处理"
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

_finding(
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

_finding(
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

_finding(
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

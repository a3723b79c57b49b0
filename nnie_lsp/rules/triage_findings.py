"""Triage findings (T-codes) in the engine's rule registry: docs, messages (en, zh), ``--explain``.

nnie-triage produces these findings from a comparison of dump sets (:mod:`nnie_lsp.triage.diagnose.builder`
builds them as engine Diagnostics with Fixes); nnie-lint never does — their check yields nothing,
so linting a project reports no T-code.  The codes follow the guide's workflow (docs/field-facts.md
§12): T0xx the comparison itself (step 1), T1xx case 1 (step 2, preprocessing) — here —, and
T2xx case 2 (step 3, quantization), T3xx case 3 (step 4, layer matching), T4xx case 4 (step 5,
post-processing) in :mod:`.triage_model_findings`, which importing this module registers too.
"""

from __future__ import annotations

from ..diagnostics import Severity
from . import triage_model_findings  # noqa: F401  (registers T2xx-T4xx)
from .triage_common import DATA_INPUT, UNSET, register_finding

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


# ------------------------------------------------------------------------------ T0xx: the comparison
register_finding(
    __name__,
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

register_finding(
    __name__,
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

register_finding(
    __name__,
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


register_finding(
    __name__,
    "T004", "layers-not-compared", WARNING, 1,
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

# ------------------------------------------------------------------------------ T1xx: case 1
register_finding(
    __name__,
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

register_finding(
    __name__,
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
              **UNSET, **DATA_INPUT},
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

register_finding(
    __name__,
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
              **UNSET, **DATA_INPUT},
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

register_finding(
    __name__,
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
              **UNSET, **DATA_INPUT},
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

register_finding(
    __name__,
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

register_finding(
    __name__,
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

"""Case 1 (guide step 2): the data layer differs → the preprocessing fit (:mod:`.preprocess_fit`)
turned into findings T101-T106 (registered here, beside the code that emits them), its
:class:`~.preprocess_fit.CfgEdit`s into engine Fixes.

Every fix here is unsafe: a preprocessing change changes what the network computes on the chip
(which is the point of it).  Where the edit goes follows the mapper's per-input rule (the k-th
occurrence of a key belongs to input k, docs/field-facts.md §4): :func:`nnie_lsp.rules.fixes.set_input_key`.
"""

from __future__ import annotations

import os
from fractions import Fraction
from typing import TYPE_CHECKING

from nnie_lsp.core.diagnostics import FileEdit, Severity
from nnie_lsp.rules.fixes import channel_mean_text, set_input_key, write_whole_file
from nnie_lsp.rules.triage_common import DATA_INPUT, UNSET, register_finding, withheld
from nnie_lsp.triage.diagnose.builder import FindingBuilder, Place
from nnie_lsp.triage.measure.rows import LayerRow, finite

if TYPE_CHECKING:  # numpy: the fit is imported when it runs, not when the T-codes are registered
    from nnie_lsp.triage.measure.metrics import Thresholds
    from nnie_lsp.triage.diagnose.preprocess_fit import CfgEdit, PreprocessFit

CHANNEL_MEAN_FILE = "channel_mean.txt"  # the file a new channel mean goes to, beside the cfg


def data_suspect(row: LayerRow, th: Thresholds) -> bool:
    """A data layer below ``data_layer``, or off in magnitude (a scale cosine cannot see)."""
    m = row.metrics
    if m is None:
        return False
    return (not finite(m.cosine)) or m.cosine < th.data_layer or (finite(m.rel_l2_error)
                                                                   and m.rel_l2_error > th.data_rel_l2)


def fraction_text(x: float | None, *, max_denominator: int = 1000, tolerance: float = 1e-3) -> str:
    """``0.0039215686`` → ``1/255``; a value no small fraction matches as ``%.6g``."""
    if x is None or not finite(x):
        return "?"
    frac = Fraction(x).limit_denominator(max_denominator)
    if frac.denominator > 1 and abs(float(frac) - x) <= tolerance * abs(x):
        return f"{frac.numerator}/{frac.denominator}"
    return f"{x:.6g}"


def _ratio_text(ratio: float, sim_scale: float | None = None, caffe_scale: float | None = None) -> str:
    """``1.00392 ≈ 256/255``: the fitted ratio, named from the two scales when both are small
    fractions (2/255 against 1/128), else from the number alone."""
    from nnie_lsp.triage.diagnose.preprocess_fit import scale_ratio_text

    named = scale_ratio_text(sim_scale, caffe_scale) or fraction_text(ratio, max_denominator=256, tolerance=4e-4)
    return f"{ratio:.5f}" + (f" ≈ {named}" if "/" in named else "")


def _means(values) -> str:
    return ", ".join(f"{v:g}" for v in values or ())


def _shift(fit: PreprocessFit) -> str:
    """The simulator's data minus Caffe's per channel, in grey levels (what the fit measured: the
    mean Caffe subtracts minus the one the simulator subtracted)."""
    need, cur = fit.needed_mean or (), fit.current_mean or ()
    return _means(round(n - c, 2) for n, c in zip(need, cur))


register_finding(
    __name__,
    "T101", "data-layer-differs", Severity.ERROR, 2,
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
    "T105", "data-transposed", Severity.ERROR, 2,
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
    "T106", "preprocessing-unexplained", Severity.WARNING, 2,
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


def diagnose_data_layer(row: LayerRow, index: int, builder: FindingBuilder, th: Thresholds) -> PreprocessFit | None:
    """T101 for the data row of network input `index`, then the fit's findings. Returns the fit."""
    src = builder.sources
    m = row.metrics
    blob = row.blob or row.name
    place = src.node_place(blob)
    builder.add("T101", "differs", place=place, layer=row.name,
                related=builder.related("T101", "cfg", src.cfg_place("image_list", index), index=index),
                cosine=f"{m.cosine:.6f}", rel_l2=f"{m.rel_l2_error:.4g}", threshold=th.data_layer)
    ref, sim, _ = row.arrays()
    if ref is None or sim is None:
        builder.add("T106", "no_arrays", place=place, layer=row.name)
        return None
    from nnie_lsp.triage.diagnose.preprocess_fit import fit_preprocessing

    try:
        fit = fit_preprocessing(ref, sim, cfg_path=src.cfg_path, cfg_project=src.project, input_index=index,
                                thresholds=th)
    except ValueError as exc:
        builder.add("T106", "fit_failed", place=place, layer=row.name, error=str(exc))
        return None
    _edit_findings(fit, row, index, builder, place)
    if fit.transposed:
        builder.add("T105", "transposed", place=place, layer=row.name)
    if not fit.consistent:
        if fit.r2 < th.fit_r2:
            builder.add("T106", "not_linear", place=place, layer=row.name, r2=f"{fit.r2:.4f}")
        elif any("per-channel" in text for text in fit.findings):
            builder.add("T106", "channel_scales", place=place, layer=row.name,
                        scales=_means(round(s, 5) for s in fit.scale))
        else:
            builder.add("T106", "unexplained", place=place, layer=row.name, r2=f"{fit.r2:.4f}")
    return fit


register_finding(
    __name__,
    "T102", "rgb-order-mismatch", Severity.ERROR, 2,
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
              **withheld("the simulator's channels are Caffe's channels in the order {permutation} on these NNIE dumps",
                         "在这些 NNIE dump 上，模拟器的通道是 Caffe 通道按 {permutation} 重排的结果", "set", "no_cfg"),
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
    "T103", "data-scale-mismatch", Severity.ERROR, 2,
    summary=("The data scales differ: set [data_scale]", "数据缩放不同：设置 [data_scale]"),
    messages={"set": ("ratio simulator/Caffe = {ratio}: Caffe scales the data by {caffe_scale}, the simulator by "
                      "{sim_scale}: set [data_scale] {value} (cfg: {old})",
                      "模拟器/Caffe 的比值 = {ratio}：Caffe 的数据缩放为 {caffe_scale}，模拟器为 {sim_scale}："
                      "请设置 [data_scale] {value}（cfg 中为 {old}）"),
              "no_cfg": ("ratio simulator/Caffe = {ratio}: Caffe scales the data by {caffe_scale}, the simulator by "
                         "{sim_scale}: set [data_scale] {value} in the cfg",
                         "模拟器/Caffe 的比值 = {ratio}：Caffe 的数据缩放为 {caffe_scale}，模拟器为 {sim_scale}："
                         "请在 cfg 中设置 [data_scale] {value}"),
              "set_norm": ("ratio simulator/Caffe = {ratio}: Caffe scales the data by {caffe_scale}; norm_type "
                           "{old_norm} does not scale (the mapper reads [data_scale] only for norm_type 3/4/5): set "
                           "[norm_type] {new_norm} and [data_scale] {value}",
                           "模拟器/Caffe 的比值 = {ratio}：Caffe 的数据缩放为 {caffe_scale}；norm_type {old_norm} 不做缩放"
                           "（mapper 只在 norm_type 3/4/5 时读取 [data_scale]）：请设置 [norm_type] {new_norm} 和 [data_scale] {value}"),
              "fix": ("Set [data_scale] {value} for input {index}", "为输入 {index} 设置 [data_scale] {value}"),
              "fix_norm": ("Set [norm_type] {new_norm} and [data_scale] {value} for input {index}",
                           "为输入 {index} 设置 [norm_type] {new_norm} 和 [data_scale] {value}"),
              **withheld("ratio simulator/Caffe = {ratio} on these NNIE dumps",
                         "在这些 NNIE dump 上，模拟器/Caffe 的比值 = {ratio}", "set", "no_cfg", "set_norm"),
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
    what the network computes on the chip.  Under norm_type 0/1/2 the mapper ignores
    `[data_scale]`: the fix then also sets the norm_type that scales (0 → 3, 1 → 4, 2 → 5).
    """,
    docs_zh="模拟器数据是 Caffe 数据乘以一个常数比值：cfg 的 [data_scale]（norm_type 3/4/5 时生效）与 Caffe 的输入缩放不同。"
            "典型情况是比值 255/256：mapper 默认 data_scale 为 1/256，而网络用 1/255 训练。纯缩放差异时余弦仍为 1，因此还检查数据层的相对 L2 误差。"
            "修复把该输入的 [data_scale] 设为 Caffe 的缩放，会改变芯片上的计算结果，是非安全修复；norm_type 0/1/2 时 mapper 不读取 [data_scale]，"
            "修复同时设置会缩放的 norm_type（0 → 3、1 → 4、2 → 5）。")


def _edit_findings(fit: PreprocessFit, row: LayerRow, index: int, builder: FindingBuilder,
                   data_place: Place | None) -> None:
    edits = {e.key: e for e in fit.edits}
    if "RGB_order" in edits:
        e = edits["RGB_order"]
        _key_finding("T102", e, row, index, builder, data_place, permutation=", ".join(map(str, fit.permutation)))
    if "data_scale" in edits:
        e = edits["data_scale"]
        ratio = sum(fit.scale) / len(fit.scale) if fit.scale else float("nan")
        params = dict(ratio=_ratio_text(ratio, fit.sim_scale, fit.needed_scale),
                      caffe_scale=fraction_text(fit.needed_scale), sim_scale=fraction_text(fit.sim_scale))
        if "norm_type" in edits and "mean_file" not in edits:  # norm_type 0/1/2: it must scale too
            _scale_norm_finding(edits["norm_type"], e, row, index, builder, data_place, **params)
        else:
            _key_finding("T103", e, row, index, builder, data_place, **params)
    if "norm_type" in edits and "mean_file" in edits:
        _no_mean_finding(edits["norm_type"], edits.get("mean_file"), fit, row, index, builder, data_place)
    elif "mean_file" in edits:
        _mean_differs_finding(edits["mean_file"], fit, row, index, builder, data_place)


def _place(builder: FindingBuilder, key: str, index: int, data_place: Place | None) -> Place | None:
    """The key's line for that input; else the input's image_list line; else the cfg; else the data input."""
    src = builder.sources
    return (src.cfg_place(key, index) or src.cfg_place("image_list", index) or src.cfg_home()
            or data_place)


def _old(builder: FindingBuilder, code: str, key: str, index: int) -> str:
    entry = builder.sources.cfg_entry(key, index)
    return entry.value if entry is not None else builder.unset(code, key)


def _cfg_edits(builder: FindingBuilder, index: int, key: str, value: str) -> list[FileEdit] | None:
    """The cfg edits that give input `index` this value; None if the cfg cannot express it."""
    src = builder.sources
    if src.cfg is None or src.config is None or not src.cfg_path:
        return None
    edits = set_input_key(src.cfg, src.config, index, key, value)
    return None if edits is None else [FileEdit(src.cfg_path, e) for e in edits]


def _key_finding(code: str, e: CfgEdit, row: LayerRow, index: int, builder: FindingBuilder,
                 data_place: Place | None, **params) -> None:
    """T102/T103: one key set for one input."""
    has_cfg = builder.sources.cfg is not None
    edits = _cfg_edits(builder, index, e.key, e.new_value) if has_cfg else None
    fix = builder.fix(code, "fix", edits or (), safe=False, value=e.new_value, index=index)
    extra = {"old": _old(builder, code, e.key, index)} if has_cfg else {}
    builder.add(code, "set" if has_cfg else "no_cfg", place=_place(builder, e.key, index, data_place),
                layer=row.name, cfg_key=e.key, fix=fix,
                related=builder.related(code, "data", data_place if has_cfg else None, blob=row.blob or row.name),
                value=e.new_value, **extra, **params)


def _scale_norm_finding(norm: CfgEdit, e: CfgEdit, row: LayerRow, index: int, builder: FindingBuilder,
                        data_place: Place | None, **params) -> None:
    """T103 under a norm_type that does not scale: [norm_type] and [data_scale], one fix."""
    has_cfg = builder.sources.cfg is not None
    edits = None
    if has_cfg:
        norm_edits = _cfg_edits(builder, index, "norm_type", norm.new_value)
        scale_edits = _cfg_edits(builder, index, "data_scale", e.new_value)
        if norm_edits is not None and scale_edits is not None:
            edits = norm_edits + scale_edits
    fix = builder.fix("T103", "fix_norm", edits or (), safe=False, value=e.new_value, index=index,
                      new_norm=norm.new_value)
    old_norm = norm.old_value if norm.old_value is not None else (
        _old(builder, "T103", "norm_type", index) if has_cfg else "?")
    builder.add("T103", "set_norm", place=_place(builder, "norm_type", index, data_place), layer=row.name,
                cfg_key="norm_type", fix=fix,
                related=builder.related("T103", "data", data_place if has_cfg else None, blob=row.blob or row.name),
                value=e.new_value, new_norm=norm.new_value, old_norm=old_norm, **params)


def _mean_path(builder: FindingBuilder, file_name: str) -> str:
    folder = os.path.dirname(builder.sources.cfg_path or "") or "."
    return os.path.join(folder, file_name)


def _read_if_exists(path: str) -> str | None:
    from nnie_lsp.core.text import read_text

    try:
        return read_text(path).text
    except OSError:
        return None


register_finding(
    __name__,
    "T104", "mean-mismatch", Severity.ERROR, 2,
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
              # what the old dumps show, measured (the simulator's data minus Caffe's, in grey levels): the
              # means the fit derives add the cfg's mean of now, which these dumps were not made with
              **withheld("on these NNIE dumps the simulator's data minus Caffe's is ({shift}) grey levels per channel: "
                         "another mean was subtracted",
                         "在这些 NNIE dump 上，模拟器数据减去 Caffe 数据为每通道（{shift}）个灰度级：减去的均值不同",
                         "no_mean", "mean_differs"),
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


def _no_mean_finding(norm: CfgEdit, mean: CfgEdit | None, fit: PreprocessFit, row: LayerRow, index: int,
                     builder: FindingBuilder, data_place: Place | None) -> None:
    """T104: the mean is not subtracted → norm_type, mean_file and the channel-mean file, one fix."""
    file_name = (mean.file_name if mean is not None else None) or CHANNEL_MEAN_FILE
    edits: list[FileEdit] | None = None
    if builder.sources.cfg is not None:
        norm_edits = _cfg_edits(builder, index, "norm_type", norm.new_value)
        mean_edits = _cfg_edits(builder, index, "mean_file", f"./{file_name}")
        if norm_edits is not None and mean_edits is not None:
            path = _mean_path(builder, file_name)
            content = (mean.file_content if mean is not None and mean.file_content
                       else channel_mean_text(fit.needed_mean or ()))
            edits = norm_edits + mean_edits + [write_whole_file(path, _read_if_exists(path), content)]
    old_norm = norm.old_value if norm.old_value is not None else (
        _old(builder, "T104", "norm_type", index) if builder.sources.cfg is not None else "?")
    means = _means(fit.needed_mean)
    fix = builder.fix("T104", "fix_no_mean", edits or (), safe=False, new_norm=norm.new_value, file=file_name)
    related = builder.related("T104", "mean_file", builder.sources.cfg_place("mean_file", index), index=index)
    builder.add("T104", "no_mean", place=_place(builder, "norm_type", index, data_place), layer=row.name,
                cfg_key="norm_type", fix=fix, related=related, old_norm=old_norm, new_norm=norm.new_value,
                means=means, shift=_shift(fit))


def _mean_differs_finding(mean: CfgEdit, fit: PreprocessFit, row: LayerRow, index: int, builder: FindingBuilder,
                          data_place: Place | None) -> None:
    """T104: a different mean is subtracted → rewrite the mean file the cfg names (or write a new one)."""
    content = mean.file_content or channel_mean_text(fit.needed_mean or ())
    existing = _existing_mean_file(builder, index)
    edits: list[FileEdit] | None = None
    if existing is not None:
        file_label = existing
        edits = [write_whole_file(existing, _read_if_exists(existing), content)]
    else:
        file_name = mean.file_name or CHANNEL_MEAN_FILE
        file_label = file_name
        cfg_edits = _cfg_edits(builder, index, "mean_file", f"./{file_name}")
        if cfg_edits is not None:
            path = _mean_path(builder, file_name)
            edits = cfg_edits + [write_whole_file(path, _read_if_exists(path), content)]
    means = _means(fit.needed_mean)
    fix = builder.fix("T104", "fix_mean", edits or (), safe=False, means=means, file=os.path.basename(file_label))
    builder.add("T104", "mean_differs", place=_place(builder, "mean_file", index, data_place), layer=row.name,
                cfg_key="mean_file", fix=fix, current=_means(fit.current_mean), means=means,
                file=os.path.basename(file_label), shift=_shift(fit))


def _existing_mean_file(builder: FindingBuilder, index: int) -> str | None:
    """The channel-mean file input `index` uses today (resolved as lint resolves it), if any."""
    from nnie_lsp.readers.cfg.keys import is_null_path
    from nnie_lsp.readers.cfg.paths import cfg_bases, resolve_path

    entry = builder.sources.cfg_entry("mean_file", index)
    if entry is None or not entry.value or is_null_path(entry.value):
        return None
    found, _tried = resolve_path(entry.value, cfg_bases(builder.sources.cfg_path, os.getcwd()), os.path.exists)
    return found

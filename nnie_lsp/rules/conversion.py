"""NN500–NN503: the ONNX → Caffe conversion, checked before mapping (the check itself:
:mod:`nnie_lsp.conversion`; facts: docs/field-facts.md §17).  NN504–NN507:
:mod:`.conversion_layers`.

The rules run on a prototxt whose project has an ONNX model (``--onnx``, the ``onnx`` setting, or
``<prototxt stem>.onnx`` beside the prototxt); without one they find nothing and load nothing.
"""

from __future__ import annotations

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.rules.conversion_common import MATCH_MESSAGES, emit
from nnie_lsp.core.registry import rule

STEP = 0  # before mapping: the conversion (registry.STEP_GROUPS)


@rule("NN500", "conversion-check-incomplete", Severity.WARNING, step=STEP,
      summary=("The conversion check could not run in full (no ONNX package, an unreadable model, no caffemodel)",
               "转换检查未能完整运行（缺少 onnx 包、模型无法读取或没有 caffemodel）"),
      messages={
          "missing": ("the ONNX model {model} does not exist: the conversion checks (NN5xx) did not run",
                      "ONNX 模型 {model} 不存在：转换检查（NN5xx）没有运行"),
          "no_package": ("the conversion checks (NN5xx) did not run: {text}", "转换检查（NN5xx）没有运行：{text}"),
          "unreadable": ("the ONNX model cannot be read ({error}): the conversion checks (NN5xx) did not run",
                         "ONNX 模型无法读取（{error}）：转换检查（NN5xx）没有运行"),
          "no_caffemodel": ("no caffemodel found (the cfg's [caffemodel_file], or <prototxt name>.caffemodel beside the prototxt): the weights were not compared with the ONNX model {model}",
                            "没有找到 caffemodel（cfg 的 [caffemodel_file]，或 prototxt 旁的同名 .caffemodel）：权重没有与 ONNX 模型 {model} 比较"),
          "lfs_caffemodel": ("the caffemodel {caffemodel} is a Git LFS pointer (its content was not fetched): the "
                             "weights were not compared with the ONNX model {model}; `git lfs pull` fetches it",
                             "caffemodel {caffemodel} 是 Git LFS 指针（内容未下载）：权重没有与 ONNX 模型 {model} 比较；"
                             "`git lfs pull` 可下载"),
          "bad_caffemodel": ("the caffemodel cannot be read ({error}): the weights were not compared with the ONNX model",
                             "caffemodel 无法读取（{error}）：权重没有与 ONNX 模型比较"),
      },
      docs_zh=('prototxt 有可对照的 ONNX 模型（--onnx、[tool.nnie-lint] '
               '中的 onnx，或 prototxt 旁的同名 .onnx），但转换检查未能完整运行：'
               '模型不存在或无法读取、未安装 onnx 包（消息给出在当前 Python '
               '中安装 [onnx] 扩展的命令），或没有找到 caffemodel 而未比较权重（信息级）'
               '。'))
def nn500(project, ctx):
    """
    ## What it finds
    The prototxt has an ONNX model to be checked against (`--onnx`, `onnx = "…"` in
    `[tool.nnie-lint]`, or `<prototxt name>.onnx` beside it) but the check could not run: the
    model does not exist or cannot be read, the `onnx` package is not installed (info: the message
    says how to install the `[onnx]` extra into the Python at hand, and in a pre-commit hook which
    hook id installs it), or no caffemodel was found, so the weights were not compared (info).

    ## Why
    A conversion check that silently did not run looks like a clean conversion.  The guide's
    workflow starts at Caffe; when the Caffe net already differs from the ONNX model it came from,
    every later step (preprocessing, quantization, `_hp` layers) chases the wrong cause.

    ## Example
    ```
    nnie-lint model.prototxt --onnx model.onnx      # with onnx not installed
    ```

    ## Fix
    Install the extra (`pip install "nnie-lsp[onnx]"`), give the right path, or put the
    caffemodel beside the prototxt under the same name.  No automatic fix.
    """
    # what the environment lacks (the extra) is not a fault of the project: info, with how to enable it
    yield from emit(project, ctx, severities={"no_caffemodel": Severity.INFO, "no_package": Severity.INFO,
                                              "lfs_caffemodel": Severity.INFO})


@rule("NN501", "conversion-unmatched", Severity.INFO, step=STEP,
      summary=("A converted layer matches no ONNX node: it was not checked",
               "转换后的层没有匹配到 ONNX 节点：未检查"),
      messages={
          "no_candidate": ("layer \"{layer}\" ({type}) matches no ONNX node: its top is no ONNX tensor and no single ONNX node it can stand for reads its input; it was not checked",
                           "层 \"{layer}\"（{type}）没有匹配到 ONNX 节点：其 top 不是 ONNX 张量，读取其输入的节点中也没有唯一可对应的节点；未检查"),
          "no_input": ("layer \"{layer}\" ({type}): its input corresponds to no ONNX tensor (a layer before it is unmatched); it was not checked",
                       "层 \"{layer}\"（{type}）：其输入没有对应的 ONNX 张量（前面的层未匹配）；未检查"),
          "ambiguous": ("layer \"{layer}\" ({type}) could stand for several ONNX nodes that read its input (its top is no ONNX tensor and its parameters and shape fit more than one): it was not matched, never by position, and not checked",
                        "层 \"{layer}\"（{type}）可对应读取其输入的多个 ONNX 节点（其 top 不是 ONNX 张量，参数与形状符合不止一个）：未匹配（从不按位置匹配），未检查"),
          "region": ("layer \"{layer}\" ({type}): more than 16 ONNX nodes lie between its inputs and its top; it was not checked",
                     "层 \"{layer}\"（{type}）：其输入与 top 之间有超过 16 个 ONNX 节点；未检查"),
          "type": ("layer \"{layer}\" ({type}) stands for ONNX {ops}, which a {type} does not compute; it was not checked{match}",
                   "层 \"{layer}\"（{type}）对应 ONNX {ops}，{type} 不计算它；未检查{match}"),
          **MATCH_MESSAGES,
      },
      docs_zh=('转换后的某层没有匹配到 ONNX 节点：先按张量名匹配（多数 onnx2caffe '
               '工具保留 ONNX 张量名作为 blob 名），再按图结构与形状匹配，从不按位置匹配；'
               '未匹配的层不做检查，这里明确告知。'))
def nn501(project, ctx):
    """
    ## What it finds
    A layer of the converted prototxt that could not be matched to the ONNX model: its top is not
    an ONNX tensor name and no single ONNX node that this layer type can stand for reads its input
    (matching by graph structure found none or several), or it stands for ONNX operators its type
    does not compute.  Layers the converter wrote for one ONNX node (a HardSwish as Power, Clip,
    Power and Eltwise) are matched as a group and not reported.

    ## Why
    Layers are matched by tensor name first (most onnx2caffe converters keep ONNX tensor names
    as blob names), then by graph structure and shapes — never by position, which would compare
    the wrong layers and give false alarms.  An unmatched layer is not checked, and you should
    know that.

    ## Example
    ```
    layer { name: "extra" type: "Power" bottom: "conv1" top: "renamed_blob" }
    ```

    ## Fix
    Keep the ONNX tensor names as blob names when converting.  No automatic fix.
    """
    yield from emit(project, ctx)


@rule("NN502", "conversion-geometry", Severity.ERROR, step=STEP, fix="unsafe",
      summary=("A convolution or pooling differs from its ONNX node in kernel, stride, pads, dilation or group",
               "卷积或池化的 kernel、stride、pad、dilation 或 group 与 ONNX 节点不同"),
      messages={
          "geometry": ("{what} {caffe} in Caffe but {onnx} in ONNX{match}", "Caffe 中 {what} 为 {caffe}，ONNX 中为 {onnx}{match}"),
          "pads": ("pad {ph}×{pw} in Caffe but the ONNX {kind} pads {oh}×{ow}{match}",
                   "Caffe 中 pad 为 {ph}×{pw}，ONNX {kind} 为 {oh}×{ow}{match}"),
          "fix_pads": ("Set the pad to the ONNX model's {oh}×{ow} (changes what Caffe computes)",
                       "把 pad 设为 ONNX 模型的 {oh}×{ow}（会改变 Caffe 的计算结果）"),
          "asym_pads": ("the ONNX {kind} pads asymmetrically (top {top}, left {left}, bottom {bottom}, right {right}); Caffe pads {ph}×{pw} on both sides and cannot pad asymmetrically, so the windows are shifted or the size differs{match}",
                        "ONNX {kind} 的 pad 不对称（上 {top}、左 {left}、下 {bottom}、右 {right}）；Caffe 两侧都填充 {ph}×{pw}，无法不对称填充，窗口会错位或尺寸不同{match}"),
          **MATCH_MESSAGES,
      },
      docs_zh=('卷积或池化的 kernel、stride、dilation、group '
               '或 pad 与转换来源的 ONNX 节点不同，包括 Caffe 无法表达的不对称 '
               'pad（如 [0,0,1,1] 或 SAME_UPPER）。对称 pad '
               '提供不安全修复（改为 ONNX 的值）；不对称 pad 需重新导出。'))
def nn502(project, ctx):
    """
    ## What it finds
    A Convolution or Pooling whose kernel, stride, dilation, group or pads differ from the ONNX
    Conv / MaxPool / AveragePool it was converted from, including ONNX pads that are asymmetric
    (`pads: [0, 0, 1, 1]`, TensorFlow-style SAME, or `auto_pad: SAME_UPPER` with an even kernel),
    which a Caffe layer cannot express: converters keep only the begin pads.

    ## Why
    The Caffe net then computes other windows than the trained model: every later layer differs,
    and the layer-by-layer comparison of the guide (Caffe against NNIE) cannot see it because
    both sides use the same wrong prototxt.

    ## Example
    ```
    layer { name: "conv1" type: "Convolution" bottom: "input" top: "conv1"
      convolution_param { num_output: 8 kernel_size: 3 stride: 1 } }   # ONNX pads [1, 1, 1, 1]
    ```

    ## Fix
    Symmetric pads: an unsafe fix sets `pad` (or `pad_h`/`pad_w`) to the ONNX values — it changes
    what Caffe computes, to what the ONNX model computes.  Asymmetric pads: no fix in the
    prototxt; re-export with symmetric padding, or pad explicitly before the layer.
    """
    yield from emit(project, ctx)


@rule("NN503", "conversion-pool-rounding", Severity.ERROR, step=STEP, fix="unsafe",
      summary=("A pooling rounds its output size differently from its ONNX node (ceil_mode), or averages otherwise",
               "池化的输出尺寸取整方式（ceil_mode）或平均方式与 ONNX 节点不同"),
      messages={
          "floor": ("the ONNX pooling rounds the output size down (ceil_mode 0: {size} → {onnx_out}) but Caffe rounds up ({caffe_out}), and so does the NNIE wk whatever the prototxt says: Caffe and NNIE get an extra row and column. round_mode: FLOOR would fix Caffe only (NN018); make both roundings agree instead: pads or an input size for which (input + pads − kernel) is a multiple of the stride, or export with ceil_mode=True and check the accuracy{match}",
                    "ONNX 池化向下取整（ceil_mode 0：{size} → {onnx_out}），Caffe 向上取整（{caffe_out}），NNIE 的 wk 无论 prototxt 怎么写也总是向上取整：Caffe 与 NNIE 的输出多出一行一列。round_mode: FLOOR 只能修正 Caffe（见 NN018）；应让两种取整结果一致：调整 pad 或输入尺寸，使（输入 + pad − kernel）是 stride 的整数倍，或以 ceil_mode=True 导出并核对精度{match}"),
          "floor_unknown": ("the ONNX pooling rounds the output size down (ceil_mode 0) but Caffe and the NNIE wk round up: the outputs differ unless (input + pads − kernel) is a multiple of the stride. round_mode: FLOOR would fix Caffe only (NN018); make both roundings agree (pads, input size) or export with ceil_mode=True{match}",
                            "ONNX 池化向下取整（ceil_mode 0），Caffe 与 NNIE 的 wk 向上取整：除非（输入 + pad − kernel）是 stride 的整数倍，否则输出不同。round_mode: FLOOR 只能修正 Caffe（见 NN018）；应让两种取整一致（pad、输入尺寸），或以 ceil_mode=True 导出{match}"),
          "ceil": ("the ONNX pooling rounds the output size up (ceil_mode 1: {size} → {onnx_out}) but this layer has round_mode: FLOOR ({caffe_out}){match}",
                   "ONNX 池化向上取整（ceil_mode 1：{size} → {onnx_out}），而该层写了 round_mode: FLOOR（{caffe_out}）{match}"),
          "fix_ceil": ("Delete round_mode (Caffe then rounds up like ONNX and nnie_mapper)",
                       "删除 round_mode（Caffe 随之像 ONNX 与 nnie_mapper 一样向上取整）"),
          "method": ("pool {caffe} in Caffe but ONNX {onnx}{match}", "Caffe 中为 {caffe} 池化，ONNX 为 {onnx}{match}"),
          "avg_pad": ("the ONNX AveragePool leaves the padding out of the average (count_include_pad 0) but Caffe's AVE pooling counts it: the border outputs differ{match}",
                      "ONNX AveragePool 不把填充计入平均（count_include_pad 0），Caffe 的 AVE 池化计入：边缘输出不同{match}"),
          **MATCH_MESSAGES,
      },
      docs_zh=('池化的输出尺寸取整与 ONNX 不同：ONNX/PyTorch 默认向下取整（ceil_mode '
               '0），Caffe 默认向上取整（除非 round_mode: FLOOR）'
               '。只在该输入尺寸下确实不同（或形状未知）时报告，消息给出两边的尺寸；也报告 '
               'count_include_pad 与 MAX/AVE 的差异。nnie_mapper '
               '总是向上取整（NN018），部署 NNIE 应以 ceil_mode=1 '
               '导出。ONNX 向下取整时不再提供写入 `round_mode: FLOOR` '
               '的修复：它只能让 Caffe 与 ONNX 一致，NNIE 的 wk 仍向上取整（会引出 '
               'NN018）；应让两种取整一致（pad、输入尺寸），或以 ceil_mode=True '
               '导出。'))
def nn503(project, ctx):
    """
    ## What it finds
    A Pooling whose output-size rounding differs from the ONNX MaxPool / AveragePool it was
    converted from: ONNX (and PyTorch) round down unless `ceil_mode` is 1; Caffe rounds up
    unless `round_mode: FLOOR` (in the schemas that have it).  Reported when the sizes really
    differ for the net's input (the message gives both), or when the shape is unknown.  Also an
    AveragePool with padding that ONNX leaves out of the average (`count_include_pad` 0) while
    Caffe counts it, and MAX against AVE.

    ## Why
    The most frequent conversion fault in NNIE ports: the Caffe pooling gets one more row and
    column, every later shape and the detection grid shift, and the NNIE result is wrong while the
    guide's Caffe-against-NNIE comparison looks fine.

    ## Example
    ```
    layer { name: "pool1" type: "Pooling" bottom: "conv1" top: "pool1"
      pooling_param { pool: MAX kernel_size: 2 stride: 2 } }   # ONNX MaxPool ceil_mode 0, input 23×23
    ```

    ## Fix
    ONNX rounds up and the layer has `round_mode: FLOOR`: an unsafe fix deletes it (Caffe then
    computes what ONNX and the NNIE wk do).  ONNX rounds down: **no automatic fix**.  Writing
    `round_mode: FLOOR` would make Caffe agree with ONNX, but the NNIE wk always rounds up
    (docs/field-facts.md §7.5, NN018), so the board would still compute the extra row and column
    -- and NN018 would then ask to delete the field again.  What ports is a geometry where both
    roundings give the same size: pads, or an input size for which (input + pads − kernel) is a
    multiple of the stride (MTCNN det1 at 24×24 instead of 25×25), or an export with
    `ceil_mode=True` whose accuracy you check.
    """
    yield from emit(project, ctx)

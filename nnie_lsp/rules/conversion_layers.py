"""NN504–NN507: Upsample/Resize, activations and dropped operators, axes and shapes, weights —
each converted layer against its ONNX node(s) (:mod:`nnie_lsp.conversion`; facts:
docs/field-facts.md §17).  NN500–NN503: :mod:`.conversion`."""

from __future__ import annotations

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.rules.conversion import STEP
from nnie_lsp.rules.conversion_common import MATCH_MESSAGES, emit
from nnie_lsp.core.registry import rule


@rule("NN504", "conversion-resize", Severity.ERROR, step=STEP, fix="unsafe",
      summary=("An Upsample/Interp/Deconvolution differs from its ONNX Resize in mode or scale, or holds a converter fork's fields",
               "Upsample/Interp/Deconvolution 的插值方式或倍数与 ONNX Resize 不同，或含转换工具分支版本的字段"),
      messages={
          "mode": ("{caffe} but ONNX {onnx}: the interpolation differs{match}",
                   "Caffe 为 {caffe}，ONNX 为 {onnx}：插值方式不同{match}"),
          "scale": ("scale {caffe} in Caffe but ONNX {onnx}{match}", "Caffe 中倍数为 {caffe}，ONNX 为 {onnx}{match}"),
          "fix_scale": ("Write the ONNX model's scale (changes what Caffe computes)",
                        "写入 ONNX 模型的倍数（会改变 Caffe 的计算结果）"),
          "fork": ("upsample_param holds {fields}, which the mapper's schema does not have (a converter fork's fields): nnie_mapper rejects the file and the schema's scale stays 1; ONNX {onnx}{match}",
                   "upsample_param 含有 {fields}，mapper 的模式中没有这些字段（来自转换工具的分支版本）：nnie_mapper 会拒绝该文件，且模式中的 scale 仍为 1；ONNX 为 {onnx}{match}"),
          "fix_fork": ("Rewrite upsample_param with the schema's scale from the ONNX model",
                       "按 ONNX 模型用模式中的 scale 重写 upsample_param"),
          **MATCH_MESSAGES,
      },
      docs_zh=('Upsample/Interp/Deconvolution 与 ONNX '
               'Resize 的插值方式（nearest 与 bilinear）或倍数不同（缺少 '
               'scale 时默认为 1），或 upsample_param 中含有转换工具分支版本的字段（height_sca'
               'le、mode），mapper 会拒绝。修复按 ONNX 写入 scale，'
               '为不安全修复。'))
def nn504(project, ctx):
    """
    ## What it finds
    An Upsample, Interp or Deconvolution converted from an ONNX Resize/Upsample whose
    interpolation differs (ONNX `mode: nearest` written as a bilinear Deconvolution or an Interp,
    `linear` written as a nearest Upsample) or whose scale differs (an `upsample_param` without
    `scale`: the schema's default is 1), and an `upsample_param` holding fields of a converter
    fork's caffe.proto (`height_scale`, `width_scale`, `mode`) that the mapper's schema lacks.

    ## Why
    A bilinear upsampling where the model was trained with nearest (or the reverse) blurs or
    blocks every feature map after it; a lost scale changes the map size.  The fork's fields make
    nnie_mapper reject the file (NN011), and dropping them silently leaves scale 1.  NNIE supports
    only 2× nearest Upsample (docs/field-facts.md §7.5).

    ## Example
    ```
    layer { name: "up" type: "Upsample" bottom: "silu" top: "up"
      upsample_param { height_scale: 2 width_scale: 2 mode: NEAREST } }   # ONNX Resize nearest ×2
    ```

    ## Fix
    Unsafe: write `scale: N` from the ONNX model (for the fork's fields: the whole
    `upsample_param` rewritten as `upsample_param { scale: N }`).  A mode mismatch has no prototxt
    fix: convert the Resize to the matching layer.
    """
    yield from emit(project, ctx)


@rule("NN505", "conversion-activation", Severity.ERROR, step=STEP,
      summary=("An activation computes another function than its ONNX node (ReLU6 → ReLU, HardSwish or SiLU lost), or an ONNX operator was dropped",
               "激活函数与 ONNX 节点不同（ReLU6 → ReLU、HardSwish 或 SiLU 丢失），或 ONNX 算子被丢弃"),
      messages={
          "function": ("Caffe {caffe} does not compute ONNX {onnx}: the outputs differ by up to {diff} (at x = {x}){match}",
                       "Caffe {caffe} 与 ONNX {onnx} 的计算不同：输出最多相差 {diff}（在 x = {x} 处）{match}"),
          "dropped": ("ONNX {ops} before layer \"{layer}\" has no Caffe layer: the converter dropped it{match}",
                      "层 \"{layer}\" 之前的 ONNX {ops} 没有对应的 Caffe 层：转换工具把它丢掉了{match}"),
          **MATCH_MESSAGES,
      },
      docs_zh=('逐元素层（或转换工具为一个 ONNX 节点写出的一组层）与 ONNX 的函数不同：'
               '两边在每个通道的 −10 到 10 上实际求值比较，因此 ReLU6 写成 '
               'ReLU、HardSwish 写错、SiLU 只剩 Sigmoid 都能发现；'
               '也报告被丢掉的 ONNX 算子（在读取它们之后结果的层的 bottom '
               '行上）。'))
def nn505(project, ctx):
    """
    ## What it finds
    An element-wise layer (or the layers a converter wrote for one ONNX node) that computes
    another function than the ONNX node(s) it stands for: both sides are evaluated on inputs from
    −10 to 10 per channel, so ReLU6 (`Clip` 0..6) written as ReLU, a LeakyRelu slope lost, a
    HardSwish written wrongly, or a SiLU (`Sigmoid` + `Mul`) kept as its Sigmoid alone are found
    whatever layers the converter used.  Also ONNX operators with no Caffe layer at all (a
    HardSwish or SiLU's `Mul` dropped), on the `bottom:` line of the layer that reads past them.

    ## Why
    An activation that differs only above 6 or below 0 changes a few values per layer, which
    compounds over the net; a dropped one changes all of them.  Comparing Caffe with NNIE (the
    guide's step 1) cannot show it.

    ## Example
    ```
    layer { name: "relu6" type: "ReLU" bottom: "bn1" top: "relu6" }   # ONNX Clip(min 0, max 6)
    ```

    ## Fix
    No automatic fix: which layer types the NNIE supports for the function is the converter's
    choice (ReLU6 is often replaced by ReLU in training for NNIE).  Convert the operator again.
    """
    yield from emit(project, ctx)


@rule("NN506", "conversion-axis", Severity.ERROR, step=STEP, fix="unsafe",
      summary=("A Concat/Slice/Softmax axis, a Flatten, Reshape or Permute result differs from its ONNX node",
               "Concat/Slice/Softmax 的 axis，或 Flatten、Reshape、Permute 的结果与 ONNX 节点不同"),
      messages={
          "axis": ("{type} axis {caffe} in Caffe but ONNX {op} axis {onnx}{match}",
                   "Caffe 中 {type} 的 axis 为 {caffe}，ONNX {op} 为 {onnx}{match}"),
          "fix_axis": ("Set the axis to the ONNX model's (changes what Caffe computes)",
                       "把 axis 设为 ONNX 模型的值（会改变 Caffe 的计算结果）"),
          "softmax_2d": ("ONNX Softmax of opset {opset} (before 13) flattens its {shape} input from axis {axis} and normalises over all the axes after it; Caffe's Softmax normalises one axis{match}",
                         "opset {opset}（13 之前）的 ONNX Softmax 会把 {shape} 的输入从 axis {axis} 起展平，在其后的所有维上归一化；Caffe 的 Softmax 只在一维上归一化{match}"),
          "strided": ("ONNX Slice keeps one element in {step} along axis {axis} ({nodes}) but a Caffe Slice cuts contiguous parts: layer \"{layer}\" computes another function with the same shapes (a YOLOv5 Focus converted as quadrants: NN023){match}",
                      "ONNX Slice 沿第 {axis} 维每隔 {step} 个取一个元素（{nodes}），而 Caffe 的 Slice 切出的是连续的部分：层 \"{layer}\" 在形状相同的情况下计算的是另一个函数（按象限转换的 YOLOv5 Focus：见 NN023）{match}"),
          "slice_points": ("slice_point {caffe} in Caffe but the ONNX Split gives {onnx}{match}",
                           "Caffe 中 slice_point 为 {caffe}，ONNX Split 为 {onnx}{match}"),
          "shape": ("{type} output {caffe} in Caffe but ONNX {op} gives {onnx}{match}",
                    "Caffe 中 {type} 的输出为 {caffe}，ONNX {op} 为 {onnx}{match}"),
          **MATCH_MESSAGES,
      },
      docs_zh=('Concat/Slice/Softmax 的 axis 与 ONNX 不同（负数从末尾计；'
               'Caffe 缺省为 1，opset 13 起 ONNX Softmax '
               '缺省为 −1）、slice_point 与 Split 不同、opset '
               '13 之前的 Softmax（会展平），以及 Flatten、Reshape、'
               'Permute 的输出形状与 ONNX 不同。若该层输入形状已不同（前面的错误）'
               '则不重复报告。ONNX 的 Slice 步长不为 1（如 YOLOv5 '
               'Focus 的隔点采样）而 Caffe 写成连续切分的 Slice 时，'
               '在第一个 Slice 上报告。'))
def nn506(project, ctx):
    """
    ## What it finds
    A Concat, Slice or Softmax whose axis differs from the ONNX node's (negative axes counted from
    the end; a missing Caffe axis is 1, a missing ONNX Softmax axis is −1 from opset 13), slice
    points that differ from the ONNX Split sizes, an ONNX Softmax before opset 13 (which flattens
    from its axis), and a Flatten, Reshape or Permute whose output shape (Caffe's shape
    inference) differs from ONNX's.  Not reported when the layer's input already differs in shape
    (a fault before it, reported there).

    ## Why
    A Softmax over the wrong axis or a Reshape in the wrong order gives outputs of the right size
    and wrong meaning: detection heads decode garbage while every earlier layer matches.

    ## Example
    ```
    layer { name: "prob" type: "Softmax" bottom: "reshape" top: "prob" }   # ONNX Softmax axis -1 on 1×4×256
    ```

    ## Fix
    Unsafe: set the axis to the ONNX model's.  Reshape targets and Flatten: write the shape ONNX
    gives (the message shows both); no automatic fix.
    """
    yield from emit(project, ctx)


@rule("NN507", "conversion-weights", Severity.ERROR, step=STEP, fix="unsafe",
      summary=("Caffemodel weights differ from the ONNX initializers (BN folding, InnerProduct order, eps)",
               "caffemodel 权重与 ONNX 初始值不同（BN 融合、InnerProduct 顺序、eps）"),
      messages={
          "weights": ("the {what} of layer \"{layer}\" differ from ONNX \"{tensor}\": max |difference| {diff} (largest value {largest}){match}",
                      "层 \"{layer}\" 的 {what} 与 ONNX \"{tensor}\" 不同：最大差值 {diff}（最大值 {largest}）{match}"),
          "shape": ("the weights of layer \"{layer}\" are {caffe}, ONNX \"{tensor}\" is {onnx}{match}",
                    "层 \"{layer}\" 的权重形状为 {caffe}，ONNX \"{tensor}\" 为 {onnx}{match}"),
          "fold_lost": ("the weights of layer \"{layer}\" are the ONNX Conv's without BatchNormalization \"{bn}\": the converter dropped the BN instead of folding it (max |difference| {diff}){match}",
                        "层 \"{layer}\" 的权重是未融合 BatchNormalization \"{bn}\" 的 ONNX Conv 权重：转换工具丢掉了 BN 而没有融合（最大差值 {diff}）{match}"),
          "ip_order": ("the InnerProduct weights of layer \"{layer}\" are in H, W, C order (a {c}×{h}×{w} input); Caffe flattens C, H, W: max |difference| {diff}{match}",
                       "层 \"{layer}\" 的 InnerProduct 权重按 H、W、C 顺序排列（输入 {c}×{h}×{w}）；Caffe 按 C、H、W 展平：最大差值 {diff}{match}"),
          "bn_eps": ("BatchNorm eps {caffe} in Caffe but ONNX epsilon {onnx}{match}",
                     "Caffe 中 BatchNorm 的 eps 为 {caffe}，ONNX epsilon 为 {onnx}{match}"),
          "fix_eps": ("Set eps to the ONNX model's {onnx} (changes what Caffe computes)",
                      "把 eps 设为 ONNX 模型的 {onnx}（会改变 Caffe 的计算结果）"),
          **MATCH_MESSAGES,
      },
      docs_zh=('caffemodel 权重与 ONNX 初始值相差超过最大权重的 1e-4，'
               '指出层名与最大差值：卷积（按 ONNX epsilon 融合 BN；BN '
               '被丢掉而非融合时明确说明）、InnerProduct（Flatten 后按 '
               'H、W、C 排列时明确说明）、BatchNorm 均值/方差与其后的 Scale，'
               '以及 eps 与 ONNX epsilon 不同（提供不安全修复）。'))
def nn507(project, ctx):
    """
    ## What it finds
    Caffemodel blobs that differ from the ONNX initializers of the matched node by more than 1e-4
    of the largest weight, naming the layer and the largest difference: Convolution weights (with
    a BatchNormalization the converter folded in applied with the ONNX epsilon; a BN dropped
    instead of folded is said so), InnerProduct weights (Gemm `transB`/`alpha`; weights in H, W, C
    order after a Flatten are said so), BatchNorm mean/variance (Caffe stores them times a scale
    factor) and the Scale after it, and a BatchNorm `eps` that differs from the ONNX `epsilon`.

    ## Why
    Wrong weights give a Caffe net that is self-consistent — Caffe and NNIE agree layer by layer —
    and wrong.  The caffemodel is found as the cfg's `[caffemodel_file]` or beside the prototxt.

    ## Example
    ```
    layer { name: "bn1" type: "BatchNorm" bottom: "conv1" top: "bn1" }   # ONNX epsilon 0.001, Caffe default 1e-5
    ```

    ## Fix
    `eps`: an unsafe fix writes the ONNX epsilon.  Weights: convert again (fold the BN, flatten
    in C, H, W order).  No automatic fix.
    """
    yield from emit(project, ctx)

"""The layer table: one entry per Caffe layer type, with its NNIE support status.

Data, not code: lint rules, hover and completion all read this table (advice for pycaffe
``type: "Python"`` layers is in :mod:`.python_layers`).  Every support claim
carries the status tag and source given in ``docs/field-facts.md`` §7.2-7.5 (sources: §15):

- ``[C]`` confirmed by a public source quoting the vendor guide or by real files,
- ``[C-u]`` confirmed only by user reports,
- ``[I]`` inferred (stated by no source) -- rules should not report these as errors,
- ``[?]`` unknown.

Sources: S3 (Megvii-side toolchain notes: extension list, limits), S5 (TextBoxes++ NNIE notes),
S6 (MindSpore Lite NNIE docs), S7 (MQBench NNIE backend), S8 (OpenHarmony Taurus docs: Proposal /
Custom rules, ceil mode), S13 (HiSilicon's Caffe dump script: the standard layers it accepts),
S15 (YOLOv5 Caffe->wk guide: Permute/Reshape errors), corpus (real NNIE prototxt files),
BVLC (Caffe's own layer definitions).
"""

from __future__ import annotations

from nnie_lsp.core.records import NamedTuple

__all__ = [
    "LayerSpec",
    "LAYERS",
    "lookup",
    "suggest",
    "all_types",
    "is_activation",
    "is_inplace_capable",
    "is_cpu_layer",
    "is_training_only",
    "is_data_layer",
    "is_supported_on_nnie",
    "param_field_for",
    "SUPPORT_VALUES",
]

SUPPORT_VALUES = ("supported", "extension", "cpu", "unsupported")


class LayerSpec(NamedTuple):
    type: str
    support: str  # one of SUPPORT_VALUES
    param_field: str | None  # LayerParameter field holding the parameters, e.g. "convolution_param"
    inplace_capable: bool  # may run with top == bottom
    category: str  # conv, activation, pooling, normalization, elementwise, shape, data, loss, detection, recurrent, other
    doc_en: str
    doc_zh: str
    limits: str = ""  # NNIE limits (English), with their tags
    mapper_inserts_permute: bool = False
    source: str = ""  # tag + sources of the support claim
    training_only: bool = False
    #: the operation is an NNIE layer, but this type *name* is in no published list: the confirmed
    #: spelling of the same operation (NN015 says so, as a hedged warning), else ""
    confirmed_as: str = ""

    @property
    def tag(self) -> str:
        """The status tag of the support claim: "C", "C-u", "I" or "?"."""
        s = self.source
        if s.startswith("[C-u"):
            return "C-u"
        if s.startswith("[C"):
            return "C"
        if s.startswith("[I"):
            return "I"
        return "?"


_S13 = "[C, S13] in the list of standard layers accepted by HiSilicon's Caffe dump script (RuyiStudio)"
_S13_CORPUS = _S13 + "; seen in real NNIE prototxts [C, corpus]"
#: S3's summary of the guide: "most layers" accept feature maps up to this width [C-u, S3]
WIDTH_LIMIT = 4096
#: layers whose output is reported to run wider than :data:`WIDTH_LIMIT`: the Reshape YOLOv5 NNIE
#: ports write in place of the head Permute, (0, 3, 85, 6400) at 640 × 640 [C-u] (field-facts §7.5)
WIDE_OUTPUT_RUNS = frozenset({"Reshape", "Flatten"})
_GENERAL = ("[C-u, S3] most layers: feature-map width <= 4096, integer parameters (kernel, pad, ...) "
            "1-255, no operation may touch the batch dimension (n = 1).")
_INPLACE_NOTE = ("[I] elementwise: each output depends only on the same input element, so Caffe can "
                 "run it in place (top == bottom).")
_NOT_LISTED = ("[I] not in the S13 list of standard layers, not an S3 extension layer and not seen "
               "in NNIE prototxts: probably refused by nnie_mapper (check the HiSVP guide)")
_TRAINING = "[C, S3/S8] training-only layer: NNIE lists training-only layers as non-support layers"


def _spec(type_, support, param, inplace, cat, en, zh, limits="", source="", permute=False,
          training=False, confirmed_as="") -> LayerSpec:
    return LayerSpec(type_, support, param, inplace, cat, en, zh, limits, permute, source, training, confirmed_as)


_TABLE: list[LayerSpec] = [
    # ------------------------------------------------------------------ convolution family
    _spec("Convolution", "supported", "convolution_param", False, "conv",
          "2-D convolution: num_output filters of kernel_size (or kernel_h x kernel_w), with pad, "
          "stride, dilation and group (group = channels gives a depthwise convolution). "
          "Output = floor((in + 2*pad - dilation*(k-1) - 1) / stride) + 1.",
          "二维卷积：num_output 个 kernel_size（或 kernel_h × kernel_w）卷积核，支持 pad、stride、"
          "dilation 和 group（group 等于通道数即为深度可分离卷积）。输出尺寸 = floor((输入 + 2*pad - "
          "dilation*(k-1) - 1) / stride) + 1。",
          "[C-u, S3] group <= 2048; " + _GENERAL + " [C, S7] MQBench advises avoiding depthwise/group "
          "convolution for accuracy.",
          _S13_CORPUS),
    _spec("Deconvolution", "supported", "convolution_param", False, "conv",
          "Transposed convolution (often used as learned or fixed 2x upsampling). "
          "Output = stride*(in-1) + dilation*(k-1) + 1 - 2*pad.",
          "转置卷积（反卷积），常用于可学习或固定的 2 倍上采样。输出尺寸 = stride*(输入-1) + "
          "dilation*(k-1) + 1 - 2*pad。",
          _GENERAL + " [C-u, S14] users replace Upsample with a Deconvolution (ConvTranspose).",
          _S13_CORPUS),
    _spec("DepthwiseConvolution", "extension", "convolution_param", False, "conv",
          "Depthwise convolution as a separate layer type (from MobileNet Caffe forks); same "
          "parameters as Convolution with group = channels.",
          "独立层类型的深度可分离卷积（来自 MobileNet 的 Caffe 分支），参数同 Convolution，group 等于通道数。",
          "[C, S7] MQBench advises avoiding depthwise convolution for accuracy. [?] Whether nnie_mapper "
          "accepts this type name or only Convolution with group is not public; prefer Convolution "
          "with group = channels.",
          "[C-u, S3] 'Depthwise Convolution' is in S3's list of extension layers; the type string is [?]",
          confirmed_as="Convolution"),
    _spec("ConvolutionDepthwise", "extension", "convolution_param", False, "conv",
          "Depthwise convolution type name used by some MobileNet Caffe forks; same parameters as "
          "Convolution.",
          "部分 MobileNet Caffe 分支使用的深度可分离卷积层类型名，参数同 Convolution。",
          "[?] Type name not confirmed for nnie_mapper; prefer Convolution with group = channels.",
          "[C-u, S3] 'Depthwise Convolution' is an S3 extension layer; this type string is [?]",
          confirmed_as="Convolution"),
    _spec("InnerProduct", "supported", "inner_product_param", False, "conv",
          "Fully connected layer: flattens the axes from `axis` (default 1) and outputs num_output "
          "values per item.",
          "全连接层：从 axis（默认 1）起展平输入，每个样本输出 num_output 个值。",
          "[C-u, S3] connection rules exist (guide §3.1.6.1), e.g. InnerProduct may not feed MatMul. "
          "[C] batch_num > 1 in the cfg computes FC for several images together. " + _GENERAL,
          _S13_CORPUS),
    # ------------------------------------------------------------------ pooling
    _spec("Pooling", "supported", "pooling_param", False, "pooling",
          "MAX or AVE pooling with kernel_size (or kernel_h/kernel_w), stride, pad, or "
          "global_pooling. Caffe rounds the output size up (ceil).",
          "MAX 或 AVE 池化：kernel_size（或 kernel_h/kernel_w）、stride、pad，或 global_pooling 全局池化。"
          "Caffe 的输出尺寸向上取整（ceil）。",
          "[C, S8] the wk has no ceil_mode parameter and always acts as ceil_mode = True: delete "
          "ceil_mode and align pads (e.g. maxpool pad 0 for a PyTorch ResNet-18); MQBench agrees "
          "[C, S7]. " + _GENERAL,
          _S13_CORPUS),
    _spec("SPP", "supported", "spp_param", False, "pooling",
          "Spatial pyramid pooling: pools over pyramid_height levels and concatenates the results.",
          "空间金字塔池化：在 pyramid_height 个层级上池化后拼接。",
          "[C, S16] the mapper rewrites SPP into Pooling + Concat (visible in cnn_net_tree.dot): layer "
          "matching for accuracy comparison must follow the rewrite. [C-u, S3] connection rules exist.",
          _S13),
    _spec("ROIPooling", "extension", "roi_pooling_param", False, "pooling",
          "Fast/Faster R-CNN ROI max pooling: pools each ROI (bottom 1, image coordinates scaled by "
          "spatial_scale) of the feature map (bottom 0) to pooled_h x pooled_w.",
          "Fast/Faster R-CNN 的 ROI 最大池化：将特征图（bottom 0）上的每个 ROI（bottom 1，图像坐标乘以 "
          "spatial_scale）池化为 pooled_h × pooled_w。",
          "[C] nets with ROIPooling need net_type 1 and one roi_coordinate_file per ROIPooling/"
          "PSROIPooling layer, in prototxt order; max_roi_frame_cnt bounds the proposals. "
          "[C-u, S3] connection rules exist.",
          "[C, S3/S8/S9] NNIE extension layer (Caffe-framework extension, Faster R-CNN)",
          permute=True),
    _spec("PSROIPooling", "extension", "psroi_pooling_param", False, "pooling",
          "R-FCN position-sensitive ROI average pooling: output_dim channels, group_size x "
          "group_size bins, spatial_scale from image to feature coordinates.",
          "R-FCN 位置敏感 ROI 平均池化：输出 output_dim 个通道，group_size × group_size 个格子，"
          "spatial_scale 为图像到特征图坐标的比例。",
          "[C] needs net_type 1 and one roi_coordinate_file per ROIPooling/PSROIPooling layer. "
          "[C-u, S3] connection rules exist.",
          "[C, S3/S8/S9] NNIE extension layer (Caffe-framework extension, R-FCN)",
          permute=True),
    # ------------------------------------------------------------------ activations
    _spec("ReLU", "supported", "relu_param", True, "activation",
          "Rectified linear unit; with negative_slope it is a leaky ReLU (y = x if x > 0 else "
          "negative_slope * x).",
          "线性整流单元；设置 negative_slope 时为 Leaky ReLU（x > 0 时 y = x，否则 y = negative_slope * x）。",
          "[C, S5] in-place activations share the conv's blob: mark the conv's top with _report, or "
          "make the activation non-in-place to report the pre-activation output.",
          _S13_CORPUS),
    _spec("PReLU", "supported", "prelu_param", True, "activation",
          "Parametric ReLU: a learned negative slope per channel (or one shared slope).",
          "参数化 ReLU：每个通道（或共享）一个可学习的负半轴斜率。",
          "", _S13_CORPUS),
    _spec("Sigmoid", "supported", "sigmoid_param", True, "activation",
          "Logistic sigmoid y = 1 / (1 + exp(-x)). SiLU/Swish is often written as Sigmoid + "
          "Eltwise PROD.",
          "Sigmoid 函数 y = 1 / (1 + exp(-x))。SiLU/Swish 常写作 Sigmoid + Eltwise PROD。",
          "", _S13_CORPUS),
    _spec("TanH", "supported", "tanh_param", True, "activation",
          "Hyperbolic tangent.",
          "双曲正切函数。",
          "[C, S16] (ATC) some in-place pairs such as conv + tanh are not fused and must be split for "
          "comparison.",
          _S13),
    _spec("AbsVal", "supported", None, True, "activation",
          "Absolute value y = |x|.", "绝对值 y = |x|。", "", _S13),
    _spec("BNLL", "supported", None, True, "activation",
          "Binomial normal log likelihood y = log(1 + exp(x)) (softplus).",
          "BNLL（二项正态对数似然）：y = log(1 + exp(x))，即 softplus。", "", _S13),
    _spec("ELU", "supported", "elu_param", True, "activation",
          "Exponential linear unit: y = x if x > 0 else alpha * (exp(x) - 1).",
          "指数线性单元：x > 0 时 y = x，否则 y = alpha * (exp(x) - 1)。", "", _S13),
    _spec("Exp", "supported", "exp_param", True, "activation",
          "y = base ^ (shift + scale * x) (base e by default).",
          "y = base ^ (shift + scale * x)（默认底数为 e）。", "", _S13),
    _spec("Log", "supported", "log_param", True, "activation",
          "y = log_base(shift + scale * x) (natural log by default).",
          "y = log_base(shift + scale * x)（默认自然对数）。", "", _S13),
    _spec("Power", "supported", "power_param", True, "activation",
          "y = (shift + scale * x) ^ power.",
          "幂运算：y = (shift + scale * x) ^ power。",
          "[C-u, S3] power only -3, -2, -1, -1/2, 1/2, 1, 2, 3.",
          _S13),
    _spec("Threshold", "supported", "threshold_param", True, "activation",
          "y = 1 if x > threshold else 0.",
          "x > threshold 时 y = 1，否则 y = 0。", "", _S13),
    _spec("CReLU", "extension", None, False, "activation",
          "Concatenated ReLU: concatenates ReLU(x) and ReLU(-x) along channels (output has twice the "
          "channels) [I: usual definition].",
          "级联 ReLU：沿通道拼接 ReLU(x) 与 ReLU(-x)（输出通道数翻倍）[I：常见定义]。",
          "[C-u, S3] connection rules exist for CReLU. Parameters: [?].",
          "[C-u, S3] in S3's list of NNIE extension layers"),
    _spec("RReLU", "extension", None, True, "activation",
          "Randomized leaky ReLU (random negative slope in training, fixed mean slope in inference) "
          "[I: usual definition].",
          "随机 Leaky ReLU（训练时负斜率随机，推理时取固定平均斜率）[I：常见定义]。",
          "Parameters: [?].",
          "[C-u, S3] in S3's list of NNIE extension layers"),
    _spec("Swish", "unsupported", "swish_param", True, "activation",
          "y = x * sigmoid(beta * x) (BVLC). For NNIE write it as Sigmoid + Eltwise PROD.",
          "y = x * sigmoid(beta * x)（BVLC）。NNIE 上可改写为 Sigmoid + Eltwise PROD。",
          "", _NOT_LISTED + "; the corpus YOLOv5 uses Sigmoid + Eltwise PROD instead [C, corpus]"),
    _spec("Mish", "unsupported", "mish_param", True, "activation",
          "y = x * tanh(softplus(x)) (darknet2caffe extension for YOLOv4).",
          "y = x * tanh(softplus(x))（darknet2caffe 为 YOLOv4 增加的扩展层）。",
          "", _NOT_LISTED),
    _spec("Clip", "unsupported", "clip_param", True, "activation",
          "y = min(max(x, min), max) (BVLC; ReLU6 is Clip(0, 6)).",
          "y = min(max(x, min), max)（BVLC；ReLU6 即 Clip(0, 6)）。", "", _NOT_LISTED),
    # ------------------------------------------------------------------ normalization / scale
    _spec("BatchNorm", "supported", "batch_norm_param", True, "normalization",
          "Batch normalization with stored mean/variance (and a moving-average factor); the affine "
          "part is a separate Scale layer. Use use_global_stats: true for inference.",
          "批归一化，使用存储的均值/方差（及滑动平均系数）；仿射变换由随后的 Scale 层完成。推理时应设置 "
          "use_global_stats: true。",
          "[C-u, S3] the mapper folds BN into the preceding convolution (conv_fold in mapper_param "
          "names). [C-u, S4] a warning `layer[<name>] value[...] is too small` comes from "
          "Inference::convBnParamProcess.",
          _S13_CORPUS),
    _spec("Scale", "supported", "scale_param", True, "normalization",
          "Per-channel multiplication by a learned (or second-bottom) scale, optionally plus a bias "
          "(bias_term). Usually follows BatchNorm.",
          "按通道乘以可学习的（或第二个输入的）缩放系数，可选加偏置（bias_term）。通常紧跟 BatchNorm。",
          "[?] rules for 'InnerProduct + in-place Scale' were not found.",
          _S13_CORPUS),
    _spec("Bias", "supported", "bias_param", True, "normalization",
          "Adds a learned (or second-bottom) bias along `axis`.",
          "沿 axis 加上可学习的（或第二个输入的）偏置。", "", _S13),
    _spec("LRN", "supported", "lrn_param", False, "normalization",
          "Local response normalization across or within channels (AlexNet).",
          "局部响应归一化（跨通道或通道内，AlexNet）。", "", _S13),
    _spec("MVN", "supported", "mvn_param", False, "normalization",
          "Mean-variance normalization per item (optionally across channels).",
          "均值方差归一化（可选跨通道）。", "", _S13),
    _spec("Normalize", "extension", "norm_param", False, "normalization",
          "SSD L2 normalization across channels (across_spatial: false) followed by a learned "
          "per-channel scale (scale_filler, channel_shared). Note the parameter field is norm_param.",
          "SSD 的 L2 归一化：沿通道归一化（across_spatial: false）后乘以按通道的可学习缩放"
          "（scale_filler、channel_shared）。注意参数字段名为 norm_param。",
          "[C, §16.2] the mapper inserts a `Permute (batch)` node (`permute_<k>` in cnn_net_tree.dot) "
          "after every Normalize layer.",
          "[C, S3/S8/S9] NNIE extension layer (Caffe-framework extension, SSD); seen in corpus",
          permute=True),
    # ------------------------------------------------------------------ elementwise / tensor ops
    _spec("Eltwise", "supported", "eltwise_param", False, "elementwise",
          "Elementwise SUM (with optional coeff), PROD or MAX of all bottoms, which must have the same "
          "shape.",
          "对所有输入逐元素求和（可带 coeff 系数）、求积（PROD）或取最大值（MAX）；输入形状必须一致。",
          "[C-u, S14] all inputs must have the same shape, else `error: All inputs must have the same "
          "shape!` (RetinaFace at 640x360).",
          _S13_CORPUS),
    _spec("Concat", "supported", "concat_param", False, "shape",
          "Concatenates the bottoms along `axis` (default 1, channels); other axes must match.",
          "沿 axis（默认 1，即通道）拼接所有输入；其余维度必须一致。",
          "[?] rules for 'Concat + in-place ReLU' were not found.", _S13_CORPUS),
    _spec("Slice", "supported", "slice_param", False, "shape",
          "Splits the bottom along `axis` at slice_point positions (or evenly) into the tops.",
          "沿 axis 按 slice_point（或均分）把输入切分为多个输出。", "", _S13),
    _spec("Split", "supported", None, False, "shape",
          "Copies the bottom to several tops (Caffe inserts it automatically for blobs with several "
          "consumers).",
          "把输入复制为多个输出（Caffe 会为有多个消费者的 blob 自动插入）。", "", _S13),
    _spec("Flatten", "supported", "flatten_param", False, "shape",
          "Flattens axes axis..end_axis into one (default: everything after N).",
          "把 axis 到 end_axis 的维度展平为一维（默认展平 N 之后的所有维度）。",
          "[C-u, S5] SSD practice: the Flatten after Permute runs on the CPU with PriorBox/DetectionOutput.",
          _S13_CORPUS + " (the script spells it 'Flattern')"),
    _spec("Reshape", "supported", "reshape_param", False, "shape",
          "Changes the blob shape without copying: shape dims, 0 = copy the input dim, -1 = infer; "
          "axis/num_axes select the replaced part.",
          "改变 blob 形状（不复制数据）：shape 中 0 表示沿用输入维度，-1 表示自动推断；axis/num_axes "
          "指定被替换的部分。",
          "[C-u, S15] users had to make shapes 4-D with first dim 0, or delete the Reshape; 5-D "
          "Reshape (YOLOv5 heads) is unsupported.",
          _S13_CORPUS),
    _spec("Permute", "extension", "permute_param", False, "shape",
          "Reorders the axes (SSD), e.g. order 0 2 3 1 for NCHW -> NHWC.",
          "重排维度顺序（SSD），如 order 0 2 3 1 表示 NCHW -> NHWC。",
          "[C-u, S15] only (0,1,2,3) -> (0,2,3,1): `error:Permute can only support (0,1,2,3) -> "
          "(0,2,3,1) order!` from parsePermutePara.",
          "[C-u, S3] in S3's list of NNIE extension layers; seen in corpus"),
    _spec("Upsample", "extension", "upsample_param", False, "shape",
          "Nearest-neighbour upsampling by `scale` (darknet2caffe/SegNet extension); SegNet's "
          "upsample_h/upsample_w give an exact output size.",
          "按 scale 最近邻上采样（darknet2caffe/SegNet 扩展层）；SegNet 的 upsample_h/upsample_w 可指定精确输出尺寸。",
          "[C, S7] only 2x nearest is supported (MQBench). [C, S7] NNIE internally turns Upsample into "
          "Upsample + Permute (clip entry <layer>_permute_<k>). [C-u, S14] users often replace it "
          "with a Deconvolution.",
          "[C, S3/S8/S9] NNIE extension layer (SegNet); seen in corpus",
          permute=True),
    _spec("PassThrough", "extension", None, False, "shape",
          "YOLOv2 pass-through (reorg): moves each stride x stride spatial block into channels "
          "(C x H x W -> 4C x H/2 x W/2 for stride 2).",
          "YOLOv2 的 PassThrough（reorg）：把 stride × stride 的空间块移到通道上（stride 为 2 时 "
          "C × H × W -> 4C × H/2 × W/2）。",
          "[?] its parameter message is not public; nnie-lsp reads none for this type.",
          "[C, S3/S8/S9] NNIE extension layer (other-framework layer, YOLOv2)"),
    _spec("Reorg", "extension", "reorg_param", False, "shape",
          "Darknet reorg layer (same operation as PassThrough) with `stride` and `reverse`.",
          "Darknet 的 reorg 层（与 PassThrough 相同的操作），参数 stride 与 reverse。",
          "[I] NNIE names this operation PassThrough; rename the type if the mapper rejects Reorg.",
          "[I] same operation as the PassThrough extension layer [C, S3/S8]; type name Reorg not confirmed",
          confirmed_as="PassThrough"),
    _spec("ShuffleChannel", "unsupported", "shuffle_channel_param", True, "shape",
          "ShuffleNet channel shuffle: reshape C to (group, C/group), transpose, flatten.",
          "ShuffleNet 通道重排：把 C 变形为 (group, C/group) 后转置再展平。",
          "Can be rewritten as Reshape + Permute + Reshape, which hit the Permute/Reshape limits [I].",
          _NOT_LISTED),
    _spec("Crop", "unsupported", "crop_param", False, "shape",
          "Crops bottom 0 to the size of bottom 1 from `axis` on, at `offset` (FCN).",
          "从 axis 开始把 bottom 0 裁剪为 bottom 1 的尺寸，偏移为 offset（FCN）。",
          "[I] a Crop whose inputs already agree (RetinaFace at 640 × 640) crops nothing: delete it.",
          "[C, S20, S21] refused by a real nnie_mapper: `layer type:[Crop], error: layer type is not "
          "supported!` (mapper_error.log, docs/field-facts.md §16.3)"),
    _spec("Interp", "unsupported", "interp_param", False, "shape",
          "PSPNet/DeepLab bilinear resize to height x width or by zoom/shrink factors.",
          "PSPNet/DeepLab 的双线性插值缩放：输出 height × width，或按 zoom/shrink 系数缩放。",
          "[I] Upsample (2x nearest) or a Deconvolution are the NNIE-friendly replacements.",
          _NOT_LISTED),
    _spec("Tile", "unsupported", "tile_param", False, "shape",
          "Repeats the blob `tiles` times along `axis`.", "沿 axis 把 blob 重复 tiles 次。", "",
          _NOT_LISTED),
    _spec("Reduction", "supported", "reduction_param", False, "other",
          "Reduces all axes from `axis` on with SUM, ASUM, SUMSQ or MEAN.",
          "对从 axis 开始的所有维度做 SUM、ASUM、SUMSQ 或 MEAN 归约。", "", _S13),
    _spec("ArgMax", "unsupported", "argmax_param", False, "other",
          "Index (and optionally value) of the top_k maxima.",
          "求前 top_k 个最大值的索引（可选同时输出最大值）。", "", _NOT_LISTED),
    _spec("Softmax", "supported", "softmax_param", False, "other",
          "Softmax along `axis` (default 1, channels).",
          "沿 axis（默认 1，即通道）做 Softmax。",
          "[C-u, S14] Softmax / background-score precision loss reported in YOLOv5 heads "
          "(wllkk/yolov5-nnie#1). [C-u, S5] SSD practice runs the final Softmax on the CPU.",
          _S13_CORPUS),
    _spec("Dropout", "supported", "dropout_param", True, "other",
          "Training-time dropout; identity at inference.",
          "训练时的随机失活；推理时为恒等映射。",
          "[I] an identity at inference: removing it changes nothing.", _S13 + "; seen in corpus"),
    _spec("Parameter", "supported", "parameter_param", False, "other",
          "Outputs a learned parameter blob of the given shape.",
          "输出给定形状的可学习参数 blob。", "", _S13),
    _spec("Input", "supported", "input_param", False, "data",
          "Network input declared as a layer: input_param { shape { dim: 1 dim: C dim: H dim: W } }, "
          "one shape per top.",
          "以层形式声明的网络输入：input_param { shape { dim: 1 dim: C dim: H dim: W } }，每个 top 一个 shape。",
          "[C, S5] n should be 1: the mapper sets N from the image count. [C] one image_list per input, "
          "in prototxt input order.",
          "[C, S5 quoting the guide] one of the two accepted input declarations; seen in corpus"),
    # ------------------------------------------------------------------ recurrent
    _spec("LSTM", "supported", "recurrent_param", False, "recurrent",
          "Long short-term memory over a sequence (T x N x ...), with a sequence-continuation bottom.",
          "长短期记忆网络，按序列（T × N × ...）计算，另有序列连续标志输入。",
          "[C] nets with LSTM/RNN need net_type 2; recurrent_tmax bounds the frames per sentence. "
          "[C-u, S3] connection rules exist.",
          _S13),
    _spec("RNN", "supported", "recurrent_param", False, "recurrent",
          "Simple recurrent layer over a sequence.",
          "简单循环神经网络层，按序列计算。",
          "[C] nets with LSTM/RNN need net_type 2. [C-u, S3] connection rules exist.", _S13),
    # ------------------------------------------------------------------ CPU segments
    _spec("Proposal", "cpu", "proposal_param", False, "detection",
          "Faster R-CNN region proposals from RPN scores and box deltas (anchors from base_size, "
          "ratio, scale, feat_stride; NMS). On NNIE it runs on the CPU as its own segment.",
          "Faster R-CNN 的候选框生成：根据 RPN 分数与回归量（锚框由 base_size、ratio、scale、feat_stride "
          "决定，再做 NMS）。在 NNIE 上作为独立分段在 CPU 上运行。",
          "[C, S8] any number of bottoms, exactly one top; extra Proposal parameters are parsed but "
          "ignored. [C, S5] a top consumed by Proposal is reported; _report on a Proposal top gives no "
          "error and no extra report point.",
          "[C, S8 §4.3.1] the non-support-layer replacement for box outputs; in S13's list"),
    _spec("Custom", "cpu", "custom_param", False, "other",
          "A user CPU layer: the net is split into NNIE and non-NNIE segments around it. Only name, "
          "type, bottom, top and custom_param { shape { dim ... } } (one shape per top, in top order) "
          "are allowed.",
          "用户自定义的 CPU 层：网络在其前后被切分为 NNIE 与非 NNIE 分段。只允许 name、type、bottom、top "
          "和 custom_param { shape { dim ... } }（每个 top 一个 shape，按 top 顺序）。",
          "[C, S8] remove all other parameters; any number of bottoms and tops. [C, S5] _report on a "
          "Custom top is an error. [C, S6] MindSpore: at most 8 NNIE segments per board.",
          "[C, S8 §4.3.1] the non-support-layer replacement for tensor outputs; in S13's list"),
    # ------------------------------------------------------------------ detection post-processing
    _spec("PriorBox", "unsupported", "prior_box_param", False, "detection",
          "SSD prior (anchor) box generator: 2 x (H*W*num_priors*4) output from min_size, max_size, "
          "aspect_ratio, flip, clip, variance, step, offset. Run it on the CPU or rewrite it as Custom.",
          "SSD 先验框（锚框）生成：由 min_size、max_size、aspect_ratio、flip、clip、variance、step、offset "
          "生成 2 × (H*W*num_priors*4) 的输出。应在 CPU 上运行或改写为 Custom 层。",
          "[C-u, S5] SSD/TextBoxes practice: delete PriorBox, Softmax, DetectionOutput (and Flatten "
          "after Permute), keep the net up to the Permute layers, do the rest on the CPU.",
          "[C-u, S5] removed from NNIE nets and run on the CPU"),
    _spec("DetectionOutput", "unsupported", "detection_output_param", False, "detection",
          "SSD box decoding + NMS producing (1, 1, N, 7) detections. Run it on the CPU or rewrite it "
          "as Custom.",
          "SSD 检测框解码与 NMS，输出 (1, 1, N, 7) 的检测结果。应在 CPU 上运行或改写为 Custom 层。",
          "[C-u, S5] removed from NNIE nets and done on the CPU.",
          "[C-u, S5] removed from NNIE nets and run on the CPU"),
    _spec("Region", "unsupported", None, False, "detection",
          "YOLOv2 region layer (box decoding). Run it on the CPU or rewrite it as Custom.",
          "YOLOv2 的 region 层（检测框解码）。应在 CPU 上运行或改写为 Custom 层。",
          "[C, S8 §4.2.4.4] YOLO region/detection layers are removed and done on the CPU.",
          "[C, S8; corpus] removed from NNIE nets and run on the CPU"),
    _spec("Yolo", "unsupported", "yolo_param", False, "detection",
          "YOLOv3 detection layer (sigmoid/softmax decoding per anchor). Run it on the CPU or rewrite "
          "it as Custom.",
          "YOLOv3 检测层（按锚框做 sigmoid/softmax 解码）。应在 CPU 上运行或改写为 Custom 层。",
          "[C, S8 §4.2.4.4] YOLO region/detection layers are removed and done on the CPU; the corpus "
          "YOLOv3 prototxts end at the three head convolutions.",
          "[C, S8; corpus] removed from NNIE nets and run on the CPU"),
    # ------------------------------------------------------------------ data / training only
    *[
        _spec(t, "unsupported", p, False, "data", en, zh, "[C, S5] declare the input with `input` + "
              "`input_shape` or an Input layer instead.", _TRAINING, training=True)
        for t, p, en, zh in (
            ("Data", "data_param", "Reads LevelDB/LMDB training data.", "读取 LevelDB/LMDB 训练数据。"),
            ("ImageData", "image_data_param", "Reads images listed in a text file (training).",
             "读取文本文件中列出的图像（训练用）。"),
            ("AnnotatedData", None, "SSD training data with box annotations.", "带标注框的 SSD 训练数据。"),
            ("HDF5Data", "hdf5_data_param", "Reads HDF5 training data.", "读取 HDF5 训练数据。"),
            ("MemoryData", "memory_data_param", "Reads data from memory (training / pycaffe).",
             "从内存读取数据（训练 / pycaffe）。"),
            ("WindowData", "window_data_param", "R-CNN window data (training).", "R-CNN 窗口数据（训练用）。"),
            ("DummyData", "dummy_data_param", "Constant or random data from fillers (testing).",
             "由 filler 生成的常量或随机数据（测试用）。"),
            ("Python", "python_param", "A layer implemented in Python (pycaffe).", "用 Python 实现的层（pycaffe）。"),
        )
    ],
    *[
        _spec(t, "unsupported", p, False, "loss", en, zh, "[I] delete it from the deploy prototxt.",
              _TRAINING, training=True)
        for t, p, en, zh in (
            ("Accuracy", "accuracy_param", "Classification accuracy (evaluation only).", "分类准确率（仅用于评估）。"),
            ("SoftmaxWithLoss", "softmax_param", "Softmax + multinomial logistic loss (training). Use "
             "Softmax for deployment.", "Softmax + 多项逻辑回归损失（训练用）。部署时改用 Softmax。"),
            ("EuclideanLoss", None, "Sum of squared differences loss.", "欧氏距离（平方差和）损失。"),
            ("HingeLoss", "hinge_loss_param", "Hinge (SVM) loss.", "Hinge（SVM）损失。"),
            ("InfogainLoss", "infogain_loss_param", "Infogain loss.", "Infogain 损失。"),
            ("MultinomialLogisticLoss", None, "Multinomial logistic loss.", "多项逻辑回归损失。"),
            ("SigmoidCrossEntropyLoss", None, "Sigmoid cross-entropy loss.", "Sigmoid 交叉熵损失。"),
            ("ContrastiveLoss", "contrastive_loss_param", "Contrastive (siamese) loss.", "对比损失（孪生网络）。"),
            ("MultiBoxLoss", None, "SSD training loss.", "SSD 训练损失。"),
            ("DetectionEvaluate", None, "SSD mAP evaluation.", "SSD mAP 评估。"),
            ("Silence", None, "Consumes blobs without output (training nets).", "吞掉 blob、无输出（训练网络用）。"),
        )
    ],
    _spec("HDF5Output", "unsupported", "hdf5_output_param", False, "data",
          "Writes blobs to an HDF5 file.", "把 blob 写入 HDF5 文件。", "", _TRAINING, training=True),
    _spec("Embed", "unsupported", "embed_param", False, "other",
          "Embedding lookup of integer indices.", "整数索引的嵌入查找。", "", _NOT_LISTED),
    _spec("Im2col", "unsupported", "convolution_param", False, "other",
          "Rearranges patches into columns.", "把图像块重排为列。", "", _NOT_LISTED),
]

LAYERS: dict[str, LayerSpec] = {s.type: s for s in _TABLE}


_ACTIVATION_TYPES = frozenset(s.type for s in _TABLE if s.category == "activation")


# ---------------------------------------------------------------- name suffixes (field-facts §7.4)

#: on a layer name: run this layer in high precision (16-bit) under `[compile_mode] 2`
HP_SUFFIX = "_hp"
#: on a layer name: a user-implemented CPU layer
CPU_SUFFIX = "_cpu"
#: on a top (blob) name: report this intermediate output
REPORT_SUFFIX = "_report"
#: every suffix the mapper gives a meaning, as dump names may carry them
MARK_SUFFIXES: tuple[str, ...] = (REPORT_SUFFIX, HP_SUFFIX, CPU_SUFFIX)


def is_hp_layer(name: str) -> bool:
    return name.endswith(HP_SUFFIX)


def is_cpu_layer_name(name: str) -> bool:
    return name.endswith(CPU_SUFFIX)


def base_layer_name(name: str) -> str:
    """The layer name without a `_hp` / `_cpu` suffix (the name its weights were trained under)."""
    for suffix in (HP_SUFFIX, CPU_SUFFIX):
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def permute_inserting_types() -> tuple[str, ...]:
    """Layer types after which nnie_mapper inserts a Permute node, in table order."""
    return tuple(s.type for s in _TABLE if s.mapper_inserts_permute)


def all_types() -> tuple[str, ...]:
    return tuple(LAYERS)


def lookup(type_: str) -> LayerSpec | None:
    """The spec of a layer type (case-sensitive, as Caffe and nnie_mapper are)."""
    return LAYERS.get(type_)


def suggest(type_: str) -> str | None:
    """A did-you-mean for an unknown type: a case-insensitive match first, then difflib."""
    if type_ in LAYERS:
        return None
    low = type_.lower()
    for t in LAYERS:
        if t.lower() == low:
            return t
    import difflib  # only for a did-you-mean (start-up)

    m = difflib.get_close_matches(type_, list(LAYERS), n=1, cutoff=0.7)
    return m[0] if m else None


def is_activation(type_: str) -> bool:
    return type_ in _ACTIVATION_TYPES


def is_inplace_capable(type_: str) -> bool:
    s = LAYERS.get(type_)
    return bool(s and s.inplace_capable)


def is_cpu_layer(type_: str) -> bool:
    """Proposal / Custom: NNIE runs them on the CPU, splitting the net into segments."""
    s = LAYERS.get(type_)
    return bool(s and s.support == "cpu")


def is_training_only(type_: str) -> bool:
    s = LAYERS.get(type_)
    return bool(s and s.training_only)


def is_data_layer(type_: str) -> bool:
    s = LAYERS.get(type_)
    return bool(s and s.category == "data" and s.type != "Input")


def is_supported_on_nnie(type_: str) -> bool:
    """Runs on the NNIE (standard or extension layer)."""
    s = LAYERS.get(type_)
    return bool(s and s.support in ("supported", "extension"))


def param_field_for(type_: str) -> str | None:
    s = LAYERS.get(type_)
    return s.param_field if s else None

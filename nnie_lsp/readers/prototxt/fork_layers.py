"""Layer types of Caffe forks that nnie_mapper does not know, and what to do with them on NNIE
(docs/field-facts.md §7.2, §16.4): the companion of the layer table (:mod:`.layers`) for types
that real projects use but BVLC Caffe lacks, so that NN015 gives their real answer rather than
the general Custom / ``_cpu`` advice."""

from __future__ import annotations

from nnie_lsp.core.records import NamedTuple

__all__ = ["ForkLayer", "FORK_LAYERS", "fork_layer"]


class ForkLayer(NamedTuple):
    """``type``: the type as the fork writes it; ``param_field``: its parameter block (a field
    BVLC's caffe.proto lacks, so the mapper's parser rejects it too); ``action``:
    ``"batchnorm"`` (rewrite as BatchNorm + Scale or fold into the convolution) or
    ``"training"`` (training only: delete it from the deploy net)."""

    type: str
    param_field: str
    action: str
    en: str
    zh: str
    source: str


_FORK_LAYERS = (
    ForkLayer(
        "BN", "bn_param", "batchnorm",
        "it is a Caffe fork's batch normalization (SegNet, ENet, PSPNet forks), which nnie_mapper "
        "does not know: rewrite it as BatchNorm + Scale (its scale and shift become the Scale "
        "layer's weights), or fold it into the convolution before it",
        "这是 Caffe 分支（SegNet、ENet、PSPNet 等）自带的批归一化层，nnie_mapper 不认识：请改写为 "
        "BatchNorm + Scale（其 scale 和 shift 成为 Scale 层的权重），或合并到它前面的卷积中",
        "[C, §16.4] TimoSaemann/ENet and SegNet prototxts (`type: \"BN\"`, `bn_param { scale_filler "
        "shift_filler }`); Strand2013/NNIE-lite converts ENet with BN merged into the convolutions "
        "(`bn_conv_merged_model.prototxt`, corpus)"),
    ForkLayer(
        "DenseImageData", "dense_image_data_param", "training",
        "it reads training images and label images (SegNet, ENet forks)",
        "它读取训练图像与标注图像（SegNet、ENet 等分支）",
        "[C, §16.4] TimoSaemann/ENet and SegNet training prototxts"),
    ForkLayer(
        "CtcLoss", "ctc_loss_param", "training",
        "it is the CTC loss of a CRNN text recogniser (a Caffe OCR fork; `loss_weight`, a `label` bottom): "
        "the CTC decoding runs on the CPU after the net",
        "这是 CRNN 文字识别的 CTC 损失（Caffe OCR 分支；带 `loss_weight` 与 `label` bottom）：CTC 解码在网络之后于 CPU 上进行",
        "[C-u] public CRNN training prototxts of Caffe OCR forks"),
    ForkLayer(
        "LabelsequenceAccuracy", "labelsequence_accuracy_param", "training",
        "it measures the label-sequence accuracy of a CRNN text recogniser during training (a Caffe OCR fork)",
        "它在训练时统计 CRNN 文字识别的标签序列准确率（Caffe OCR 分支）",
        "[C-u] public CRNN training prototxts of Caffe OCR forks"),
)
FORK_LAYERS: dict[str, ForkLayer] = {f.type: f for f in _FORK_LAYERS}


def fork_layer(type_: str) -> ForkLayer | None:
    """The entry of a fork's layer type as written (case-sensitive, as the mapper is)."""
    return FORK_LAYERS.get(type_)

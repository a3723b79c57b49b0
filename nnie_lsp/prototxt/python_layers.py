"""What to do on NNIE with known pycaffe ``type: "Python"`` layers (docs/field-facts.md §16.4,
§7.3): the companion of the layer table (:mod:`.layers`) for the one type whose meaning depends on
``python_param { layer: ... }``."""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["PythonLayerAdvice", "PYTHON_LAYERS", "python_layer_advice"]


class PythonLayerAdvice(NamedTuple):
    """What to do on NNIE with a known pycaffe ``type: "Python"`` layer, keyed by its
    ``python_param { layer: ... }`` class name (docs/field-facts.md §16.4, §7.3).

    ``action``: ``"proposal"`` (replace with NNIE's Proposal layer and set ``[net_type] 1``),
    ``"delete"`` (training-only: delete it from the deploy net) or ``"input"`` (a data-feeding
    layer: replace it with an Input declaration)."""

    layer: str
    modules: tuple[str, ...]
    action: str
    en: str
    zh: str
    source: str


_PYTHON_LAYERS = (
    PythonLayerAdvice(
        "ProposalLayer", ("rpn.proposal_layer",), "proposal",
        "it is the RPN proposal step that Faster R-CNN / R-FCN need at inference: replace it with "
        "NNIE's `Proposal` layer (exactly one top) and set `[net_type] 1` in the cfg",
        "这是 Faster R-CNN / R-FCN 推理时需要的 RPN 候选框层：请替换为 NNIE 的 `Proposal` 层"
        "（只有一个 top），并在 cfg 中设置 `[net_type] 1`",
        "[C, §16.4, §7.3] py-faster-rcnn / R-FCN test nets; the HiSVP guide's Proposal replacement"),
    PythonLayerAdvice(
        "AnchorTargetLayer", ("rpn.anchor_target_layer",), "delete",
        "it builds RPN training targets (training only): delete it from the deploy net",
        "它生成 RPN 训练目标（仅训练用）：请从部署网络中删除", "[C, §16.4] py-faster-rcnn train nets"),
    PythonLayerAdvice(
        "ProposalTargetLayer", ("rpn.proposal_target_layer",), "delete",
        "it samples RoI training targets (training only): delete it from the deploy net",
        "它采样 RoI 训练目标（仅训练用）：请从部署网络中删除", "[C, §16.4] py-faster-rcnn train nets"),
    PythonLayerAdvice(
        "RoIDataLayer", ("roi_data_layer.layer",), "input",
        "it feeds training images and boxes: replace it with an input declaration "
        "(`input:` + `input_shape`, or an Input layer)",
        "它为训练提供图片和标注框：请改为输入声明（`input:` + `input_shape`，或 Input 层）",
        "[C, §16.4] py-faster-rcnn train nets"),
    PythonLayerAdvice(
        "SpatialDropout", (), "delete",
        "dropout does nothing at inference: delete it from the deploy net",
        "Dropout 在推理时不起作用：请从部署网络中删除", "[I] dropout is the identity at inference"),
)
PYTHON_LAYERS: dict[str, PythonLayerAdvice] = {a.layer: a for a in _PYTHON_LAYERS}


def python_layer_advice(layer_class: str) -> PythonLayerAdvice | None:
    """Advice for a ``type: "Python"`` layer of class ``layer_class`` (``python_param.layer``)."""
    return PYTHON_LAYERS.get(layer_class.strip())

"""What to do on NNIE with pycaffe ``type: "Python"`` layers (docs/field-facts.md §16.4, §7.3): the
companion of the layer table (:mod:`.layers`) for the one type whose meaning depends on
``python_param { module: ... layer: ... }``.

Keyed by what the file says: the class name as written (``SpatialDropoutLayer``, not a shortened
``SpatialDropout``) and its module.  A class not in the table is judged by its name only when the
name says what it is (``…LossLayer``, ``…DataLayer``, ``…Dropout…``), and the advice then says
that it is read from the name [I]."""

from __future__ import annotations

from nnie_lsp.core.records import NamedTuple

__all__ = ["PythonLayerAdvice", "PYTHON_LAYERS", "python_layer_advice", "TRAINING", "ACTIONS"]

#: ``action`` values.  ``TRAINING`` layers are reported together with the net's other
#: training-only layers (NN015: one finding per net).
PROPOSAL, TRAINING, INPUT, IDENTITY = "proposal", "training", "input", "identity"
ACTIONS = (PROPOSAL, TRAINING, INPUT, IDENTITY)


class PythonLayerAdvice(NamedTuple):
    """What to do on NNIE with a pycaffe ``type: "Python"`` layer.

    ``layer``: the ``python_param.layer`` class name as real files write it; ``modules``: the
    ``python_param.module`` values it is known under (informative: a known class is recognised
    whatever its module).  ``action``: ``"proposal"`` (replace with NNIE's Proposal layer and set
    ``[net_type] 1``), ``"training"`` (training only: delete it from the deploy net),
    ``"input"`` (a data-feeding layer: replace it with an input declaration) or ``"identity"``
    (does nothing at inference: delete it and connect its bottom to its readers).
    ``tag`` is the status of the fact (``"C"`` from real files, ``"I"`` read from the name)."""

    layer: str
    modules: tuple[str, ...]
    action: str
    en: str
    zh: str
    source: str
    tag: str = "C"


_LOSS_EN = "it is a loss (training only): delete it from the deploy net"
_LOSS_ZH = "这是损失层（仅训练用）：请从部署网络中删除"
_DATA_EN = ("it feeds training data: replace it with an input declaration (`input:` + `input_shape`, "
            "or an Input layer)")
_DATA_ZH = "它提供训练数据：请改为输入声明（`input:` + `input_shape`，或 Input 层）"
_DROP_EN = "dropout does nothing at inference: delete it and let its readers read its bottom"
_DROP_ZH = "Dropout 在推理时不起作用：请删除它，并让读取其输出的层改为读取它的输入"

_PYTHON_LAYERS = (
    PythonLayerAdvice(
        "ProposalLayer", ("rpn.proposal_layer",), PROPOSAL,
        "it is the RPN proposal step that Faster R-CNN / R-FCN need at inference: replace it with "
        "NNIE's `Proposal` layer (exactly one top) and set `[net_type] 1` in the cfg",
        "这是 Faster R-CNN / R-FCN 推理时需要的 RPN 候选框层：请替换为 NNIE 的 `Proposal` 层"
        "（只有一个 top），并在 cfg 中设置 `[net_type] 1`",
        "[C, §16.4, §7.3] py-faster-rcnn / R-FCN test nets; the HiSVP guide's Proposal replacement"),
    PythonLayerAdvice(
        "AnchorTargetLayer", ("rpn.anchor_target_layer",), TRAINING,
        "it builds RPN training targets (training only): delete it from the deploy net",
        "它生成 RPN 训练目标（仅训练用）：请从部署网络中删除", "[C, §16.4] py-faster-rcnn train nets"),
    PythonLayerAdvice(
        "ProposalTargetLayer", ("rpn.proposal_target_layer",), TRAINING,
        "it samples RoI training targets (training only): delete it from the deploy net",
        "它采样 RoI 训练目标（仅训练用）：请从部署网络中删除", "[C, §16.4] py-faster-rcnn train nets"),
    PythonLayerAdvice(
        "RoIDataLayer", ("roi_data_layer.layer",), INPUT,
        "it feeds training images and boxes: replace it with an input declaration "
        "(`input:` + `input_shape`, or an Input layer)",
        "它为训练提供图片和标注框：请改为输入声明（`input:` + `input_shape`，或 Input 层）",
        "[C, §16.4] py-faster-rcnn train nets"),
    PythonLayerAdvice(
        "EuclideanLossLayer", ("pyloss",), TRAINING, _LOSS_EN, _LOSS_ZH,
        "[C, §16.4] BVLC caffe examples/pycaffe/layers/pyloss.py (pycaffe regression nets)"),
    PythonLayerAdvice(
        "PascalMultilabelDataLayerSync", ("pascal_multilabel_datalayers",), INPUT, _DATA_EN, _DATA_ZH,
        "[C, §16.4] BVLC caffe examples/pycaffe/layers/pascal_multilabel_datalayers.py"),
    *[PythonLayerAdvice(cls, (module,), INPUT, _DATA_EN, _DATA_ZH,
                        "[C, §16.4] shelhamer/fcn.berkeleyvision.org training nets")
      for cls, module in (("VOCSegDataLayer", "voc_layers"), ("SBDDSegDataLayer", "voc_layers"),
                          ("SIFTFlowSegDataLayer", "siftflow_layers"), ("NYUDSegDataLayer", "nyud_layers"))],
    PythonLayerAdvice(
        "SpatialDropoutLayer", ("spatial_dropout",), IDENTITY, _DROP_EN, _DROP_ZH,
        "[C, §16.4] TimoSaemann/ENet prototxts (module spatial_dropout); dropout is the identity at "
        "inference [I]"),
)
PYTHON_LAYERS: dict[str, PythonLayerAdvice] = {a.layer: a for a in _PYTHON_LAYERS}

# Classes not in the table, judged by what their name says [I] (first match wins).
_BY_NAME = (
    (("loss",), PythonLayerAdvice(
        "", (), TRAINING,
        "its name says it is a loss (training only): delete it from the deploy net",
        "从名称看这是损失层（仅训练用）：请从部署网络中删除", "[I] read from the class or module name", "I")),
    (("accuracy",), PythonLayerAdvice(
        "", (), TRAINING,
        "its name says it measures accuracy (evaluation only): delete it from the deploy net",
        "从名称看它用于计算准确率（仅评估用）：请从部署网络中删除", "[I] read from the class name", "I")),
    (("dropout",), PythonLayerAdvice(
        "", (), IDENTITY,
        "its name says it is a dropout, which does nothing at inference: delete it and let its "
        "readers read its bottom",
        "从名称看这是 Dropout，推理时不起作用：请删除它，并让读取其输出的层改为读取它的输入",
        "[I] read from the class name", "I")),
    (("datalayer", "data_layer"), PythonLayerAdvice(
        "", (), INPUT,
        "its name says it feeds data: replace it with an input declaration (`input:` + "
        "`input_shape`, or an Input layer)",
        "从名称看它用于提供数据：请改为输入声明（`input:` + `input_shape`，或 Input 层）",
        "[I] read from the class or module name", "I")),
)


def python_layer_advice(layer_class: str, module: str = "") -> PythonLayerAdvice | None:
    """Advice for a ``type: "Python"`` layer of class ``layer_class`` (``python_param.layer``)
    from module ``module`` (``python_param.module``): the table's entry for the class as
    written, else what the class name (or, for losses and data layers, the module name) says."""
    cls = layer_class.strip()
    known = PYTHON_LAYERS.get(cls)
    if known is not None:
        return known
    low_cls, low_mod = cls.lower(), module.strip().lower()
    for words, advice in _BY_NAME:
        in_module = advice.action in (TRAINING, INPUT) and words[0] != "accuracy"
        if any(w in low_cls or (in_module and w in low_mod) for w in words):
            return advice._replace(layer=cls, modules=(module,) if module else ())
    return None

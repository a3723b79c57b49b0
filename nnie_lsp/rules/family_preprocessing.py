"""NN113: a cfg whose preprocessing no public training of the net's family matches, said as what it
is -- a family recognised by the shape of the net, and what the public trainings of that family
use (docs/field-facts.md §16.7).  Without a model card this is all lint can say: the cfg can never
be its own reference (the training preprocessing is not in the cfg), so the finding is a hedged
warning and offers no fix; the card, when there is one, settles it.

The one place for these facts: :data:`FAMILIES`.
"""

from __future__ import annotations

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.core.lang import pick
from nnie_lsp.core.records import NamedTuple
from nnie_lsp.core.registry import CFG, rule


class Family(NamedTuple):
    """A model family recognised by its heads: ``heads`` are the output counts of the 1×1
    convolutions every level of it has (each at least ``levels`` times); ``trainings`` the public
    trainings of the family and their preprocessing; ``scaled``: whether any of them scales the
    pixels (data_scale ≠ 1)."""

    name: str
    heads: tuple[int, ...]
    levels: int
    trainings: tuple[str, str]
    scaled: bool
    source: str


FAMILIES = (
    Family("RetinaFace", (4, 8, 20), 3,
           ("Pytorch_Retinaface (biubug6) and its Face-Detector-1MB descendants: BGR minus (104, 117, 123), "
            "unscaled; insightface's RetinaFace mnet (MXNet): RGB, no mean, unscaled",
            "Pytorch_Retinaface（biubug6）及其 Face-Detector-1MB 衍生版本：BGR 减 (104, 117, 123)，不缩放；"
            "insightface 的 RetinaFace mnet（MXNet）：RGB，不减均值，不缩放"),
           False, "[C-u] the families' inference scripts and READMEs (docs/field-facts.md §16.7)"),
)


def family_of(graph) -> Family | None:
    """The family whose heads the net has: 1×1 convolutions of each head's output count at least
    ``levels`` times (RetinaFace: class 2×2, box 2×4, landmark 2×10 outputs at three strides)."""
    counts: dict[int, int] = {}
    for layer in graph.layers:
        if layer.type != "Convolution":
            continue
        cp = layer.param.convolution_param
        k = cp.kernel_h or (cp.kernel_size[0] if len(cp.kernel_size) else 0)
        if k == 1:
            counts[cp.num_output] = counts.get(cp.num_output, 0) + 1
    for fam in FAMILIES:
        if all(counts.get(n, 0) >= fam.levels for n in fam.heads):
            return fam
    return None


@rule("NN113", "preprocessing-unlike-family", Severity.WARNING, step=2, needs=CFG,
      summary=("The cfg's preprocessing matches no public training of the net's family (no model card)",
               "cfg 的预处理与该网络所属模型族的任何公开训练方式都不符（无模型卡）"),
      messages={"scaled": ("the net has the heads of {family} (1×1 convolutions of {heads} outputs at {levels} levels or more), and the public trainings of that family feed unscaled pixels — {trainings} — but the cfg scales them by [data_scale] {scale} (norm_type {norm}{mean}): unless this net was trained otherwise, the chip sees inputs about {factor}× too small; check the training preprocessing (a model card says it for sure)",
                           "该网络具有 {family} 的检测头（{heads} 个输出的 1×1 卷积，至少 {levels} 层），该模型族的公开训练都使用未缩放的像素——{trainings}——但 cfg 以 [data_scale] {scale} 缩放（norm_type {norm}{mean}）：除非此网络另行训练，芯片看到的输入约小 {factor} 倍；请核对训练时的预处理（模型卡可确定）"),
                "no_mean": (", no mean", "，不减均值"),
                "mean": (", with a mean", "，减均值")},
      docs_zh=('网络的结构属于某个已知模型族（RetinaFace：三个步长上 4、8、'
               '20 个输出的 1×1 分类/框/关键点卷积），而 cfg 的预处理与该族的任何公开训练方式都不符：'
               '该族公开训练都使用未缩放的像素（Pytorch_Retinaface：BGR '
               '减 (104, 117, 123)；insightface mnet：RGB、'
               '不减均值），cfg 却以 data_scale 缩放。训练预处理不在 cfg '
               '中，因此这只是强烈提示（警告，无自动修复）；有模型卡时以模型卡为准。'))
def nn113(project, ctx):
    """
    ## What it finds
    A net whose shape is that of a known family (:data:`FAMILIES`: RetinaFace's class, box and
    landmark heads of 4, 8 and 20 outputs at three strides), with a cfg whose preprocessing none
    of that family's public trainings uses: the pixels scaled by `[data_scale]` (norm_type 3/4/5,
    data_scale ≠ 1) where every public training of the family feeds unscaled pixels.

    ## Why
    Step 2 of the guide: the cfg's `[norm_type]`, `[mean_file]`, `[data_scale]` must match the
    training.  The training preprocessing is not in the cfg (docs/field-facts.md §16.7), so lint
    can only compare the cfg with what the family's public trainings do — a strong hint, not a
    proof: the net may have been trained otherwise.  With a model card the card decides.

    ## Example
    ```
    # a RetinaFace (Pytorch_Retinaface: BGR − (104, 117, 123), scale 1)
    [norm_type] 3
    [data_scale] 0.0039062      # 1/256, no mean: the net sees [0, 1) instead of about −123…151
    ```

    ## Fix
    None automatic: which training this net had is not in the files.  For a Pytorch_Retinaface
    net the usual cfg is `[norm_type] 5`, a mean file `104 117 123` and `[data_scale] 1`; for
    insightface's mnet `[norm_type] 0`.
    """
    g = project.graph
    if g is None or project.cfg is None:
        return
    fam = family_of(g)
    if fam is None or fam.scaled:
        return
    for prep in project.preprocessing:
        sem, scale = prep.semantics, prep.data_scale
        if sem is None or not sem.scales or scale is None or abs(scale - 1.0) < 1e-9:
            continue
        entry = prep.group.data_scale or prep.group.norm_type
        if entry is None:
            continue
        yield ctx.diag("scaled", project.cfg.path, entry.value_range, family=fam.name,
                       heads=", ".join(map(str, fam.heads)), levels=fam.levels,
                       trainings=pick(fam.trainings, ctx.lang), scale=f"{scale:g}", norm=prep.norm_type,
                       mean=ctx.text("mean" if prep.uses_mean else "no_mean"), factor=f"{1 / scale:.0f}")

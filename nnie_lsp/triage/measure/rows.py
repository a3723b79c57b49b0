"""The diagnosis' input: one :class:`LayerRow` per aligned tensor pair, with its metrics, in network
order — and the few questions every case asks of them (where the net starts and ends).

T005 is registered here: the editor's note on a prototxt layer whose row's status (``low`` /
``poor`` / ``bad``, :meth:`~nnie_lsp.triage.measure.metrics.Thresholds.status`) says it fell below a
threshold.  Registering loads no numpy (``nnie-lint --explain T005``, the language server)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.rules.triage_common import register_finding

if TYPE_CHECKING:  # annotations only: importing the rows (and registering T005) loads no numpy
    import numpy as np

    from nnie_lsp.triage.measure.metrics import Metrics


@dataclass
class LayerRow:
    """One aligned pair with its metrics, in network order."""

    name: str
    order: int
    metrics: Metrics | None
    blob: str | None = None
    matched_by: str = ""
    confidence: float = 0.0
    shape: tuple[int, ...] | None = None
    is_data: bool = False
    is_output: bool = False
    layer_type: str | None = None
    producers: list[str] = field(default_factory=list)
    inplace: list[tuple[str, str]] = field(default_factory=list)  # (layer, type) rewriting the blob
    producer_type: str | None = None  # type of the layer producing the blob (chain head)
    note: str | None = None
    ref: np.ndarray | None = None  # (C,H,W) arrays, when given directly
    sim: np.ndarray | None = None
    sim_raw: np.ndarray | None = None  # flat values as stored (layout checks)
    # reloads (ref, sim, sim_raw) from the dump files on demand: explanations need the arrays of a
    # few rows (data, outputs, dips) without keeping every tensor in memory
    loader: Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray]] | None = field(default=None, repr=False)
    layout: str = "CHW"  # how the aligner read the simulator values ("HWC" = permuted back)
    flags: tuple[str, ...] = ()
    stored_cosine: float | None = None  # cosine of the values as stored, when the layout was changed
    # several images (image_compare.py): this layer's cosine on each image, in the images' order
    cosine_images: tuple[float | None, ...] | None = None

    @property
    def cosine(self) -> float:
        return self.metrics.cosine if self.metrics is not None else float("nan")

    def arrays(self) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
        """(ref, sim, sim_raw): the stored arrays, or freshly loaded ones (not cached)."""
        if self.ref is not None or self.loader is None:
            return self.ref, self.sim, self.sim_raw
        return self.loader()


register_finding(
    __name__,
    "T005", "layer-similarity-low", Severity.WARNING, 1,
    summary=("A layer's cosine against Caffe is below `good` (the editor's per-layer note)",
             "该层与 Caffe 的余弦相似度低于 good（编辑器中的逐层提示）"),
    messages={"low": ("cosine {cosine} against Caffe is below {threshold} ({status}){hint}",
                      "与 Caffe 的余弦相似度 {cosine} 低于 {threshold}（{status}）{hint}"),
              "first": (": first divergence", "：首个分歧层")},
    docs="""
    ## What it finds
    In the editor, after a triage run: a prototxt layer whose row in the result has the status
    `low` (cosine below `good`, 0.99), `poor` (below `decay_end`, 0.95) or `bad` (below
    `middle_dip`, 0.90; a data layer below `data_layer`, 0.999).  The diagnostic sits on the
    layer's name, says which threshold the cosine fell below and marks the first divergence;
    `bad` layers are shown as errors, `low` and `poor` ones as warnings.  Every matched layer also
    gets an inlay hint `cos 0.9731`.  The status is nnie-triage's (`layers[].status` in its JSON):
    the editor never compares cosines with thresholds itself.

    ## Why
    Guide step 1 compares the Caffe run with the NNIE side layer by layer: where the similarity
    first falls, and how it evolves towards the end, decides which case it is (steps 2-5).  Seeing
    the numbers on the layers themselves shows where to look.

    ## Example
    ```
    layer { name: "conv4-2" ... }   # T005 cosine 0.7900 against Caffe is below 0.9 (bad): first divergence
    ```

    ## Fix
    None on the layer itself: the triage's findings (T1xx-T4xx, on the cfg and the prototxt) say what
    to change; this note says where the similarity is lost.
    """,
    docs_zh="编辑器中运行排查后：结果中状态为 low（余弦低于 good，0.99）、poor（低于 decay_end，0.95）或 bad（低于 middle_dip，0.90；"
            "数据层低于 data_layer，0.999）的 prototxt 层，在层名上显示此诊断，说明余弦低于哪个阈值，并标出首个分歧层；bad 显示为错误，"
            "low 与 poor 显示为警告。状态由 nnie-triage 给出（JSON 中的 `layers[].status`），编辑器本身从不比较阈值。"
            "指南第 1 步逐层对比 Caffe 与 NNIE：相似度在哪里开始下降、末层如何，决定属于哪种情况；具体修改见排查的其它发现（T1xx–T4xx）。")


def finite(x: float | None) -> bool:
    return x is not None and not (isinstance(x, float) and math.isnan(x))


def measured_body(rows: list[LayerRow]) -> list[LayerRow]:
    """The measured rows after the data layers, whose cosine is a number."""
    return [r for r in rows if not r.is_data and r.metrics is not None and finite(r.cosine)]


def ends(rows: list[LayerRow]) -> list[LayerRow]:
    """The net's measured outputs, or the last measured row when no output was dumped."""
    outs = [r for r in rows if r.is_output and not r.is_data and r.metrics is not None]
    if outs:
        return outs
    body = [r for r in rows if not r.is_data and r.metrics is not None]
    return body[-1:]


def start(rows: list[LayerRow]) -> LayerRow | None:
    body = [r for r in rows if not r.is_data and r.metrics is not None]
    return body[0] if body else None

"""Dumps that cannot carry a verdict as they are, named as such before the guide's cases.

- **The data layer's size differs** between the sides (T010): the NNIE dumps were made for one
  input size (the prototxt the mapper compiled, or ``emulate --input-shape``) and the Caffe
  reference for another ("NNIE 24×24×3 vs Caffe 12×12×3").  No layer after it can be compared
  either: every blob of a fully convolutional net changes size with the input.  Found from the
  alignment (:func:`input_size_mismatches`): the network input's dump on each side, by name,
  holding different sizes.
- **NaN or Inf values** in a compared tensor (T003, on each such layer): the verdict names the
  first in network order, the side and how many values, never a case of the guide (an all-Inf
  data dump has cosine NaN, which is not a preprocessing mismatch).  Caffe computes in float32:
  NaN/Inf there are broken weights or input, or an overflow; NNIE computes in fixed point, which
  has neither, so on its side the dump was damaged or converted on the way.

Both set the verdict ``bad dumps: …`` with ``case`` null, ``next_step`` 1 and the next step in
words (docs/triage-schema.md).  T003 and T010 are registered here; importing this module loads no
numpy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.rules.triage_common import register_finding

if TYPE_CHECKING:
    from nnie_lsp.readers.prototxt.graph import NetGraph
    from nnie_lsp.triage.measure.rows import LayerRow
    from nnie_lsp.triage.diagnose.builder import FindingBuilder

#: The verdicts (the report names them once: "Bad dumps: the data layers differ in size").
SIZE_VERDICT = "bad dumps: the data layers differ in size"
NON_FINITE_VERDICT = "bad dumps: NaN/Inf values"
#: The next step of each, in words (``next_step`` is 1: make the dumps again and compare again).
SIZE_STEP = ("step 1: make the Caffe and the NNIE dumps for one input size (nnie-triage reference and emulate "
             "--cfg use the prototxt's; --input-shape sets another on both), then compare again")
NON_FINITE_STEP = ("step 1: make the dumps that hold NaN/Inf again (on the Caffe side check the weights and the "
                   "input of the first layer that holds them), then compare again")


register_finding(
    __name__,
    "T003", "non-finite-values", Severity.WARNING, 1,
    summary=("NaN or Inf values in a compared tensor", "对比的张量中有 NaN 或 Inf"),
    messages={"non_finite": ("{layer}: NaN/Inf values (Caffe {nan_ref} NaN / {inf_ref} Inf, NNIE {nan_sim} NaN / "
                             "{inf_sim} Inf, of {size} values): {side}; no verdict rests on these dumps",
                             "{layer}：存在 NaN/Inf（共 {size} 个值中，Caffe {nan_ref} 个 NaN / {inf_ref} 个 Inf，NNIE "
                             "{nan_sim} 个 NaN / {inf_sim} 个 Inf）：{side}；结论不能基于这些 dump"),
              "caffe": ("Caffe computed them (float32: broken weights or input, or an overflow)",
                        "由 Caffe 算出（float32：权重或输入损坏，或溢出）"),
              "nnie": ("NNIE computes in fixed point, which has no NaN or Inf: the dump was damaged or converted on "
                       "the way", "NNIE 以定点计算，没有 NaN 或 Inf：该 dump 已损坏或在转换中出错"),
              "both": ("both sides hold them: Caffe computed them (float32: broken weights or input, or an "
                       "overflow), and NNIE, which computes in fixed point, holds them only in a damaged dump",
                       "两侧都有：Caffe 算出了它们（float32：权重或输入损坏，或溢出），而以定点计算的 NNIE 只有在 dump 损坏时才会有")},
    docs="""
    ## What it finds
    A tensor pair in which either side holds NaN or Inf values: the message names the layer, the
    side and how many values of how many.  The verdict is then "bad dumps: NaN/Inf values" (no
    case of the guide), naming the first such layer in network order.

    ## Why
    Guide step 1 compares every layer of two healthy runs.  Caffe computes in float32: NaN or Inf
    there mean broken weights, a broken input or an overflow, and every later layer inherits them.
    NNIE computes in fixed point, which has neither: on its side the dump file was damaged or
    converted on the way.  A cosine over the remaining values would look fine, and an all-NaN data
    layer would look like a preprocessing mismatch (case 1): neither is a verdict one can stand
    behind, so none is given.

    ## Example
    ```
    T003 data: NaN/Inf values (Caffe 0 NaN / 0 Inf, NNIE 0 NaN / 432 Inf, of 432 values): NNIE
    computes in fixed point, which has no NaN or Inf: the dump was damaged or converted on the way
    ```

    ## Fix
    None automatic: make the dump again; on the Caffe side, find where the values first become
    non-finite (the weights and the input of that layer).
    """,
    docs_zh="某个张量对的任一侧含有 NaN 或 Inf：消息给出层名、哪一侧、多少个值。此时结论为\"bad dumps: NaN/Inf values\"（不属于指南的任何情况），"
            "并指出网络顺序中第一个这样的层。Caffe 以 float32 计算，出现 NaN/Inf 说明权重或输入损坏或溢出；NNIE 以定点计算，没有 NaN/Inf，"
            "其一侧出现说明 dump 文件损坏或转换出错。请重新生成该 dump。")


register_finding(
    __name__,
    "T010", "input-size-differs", Severity.ERROR, 1,
    summary=("The data layers differ in size: the two sides were made for different input sizes",
             "两侧数据层尺寸不同：两侧按不同的输入尺寸生成"),
    messages={"sizes": ("{blob}: NNIE {sim} vs Caffe {ref}: the cfg and the reference were made for different "
                        "input sizes{declared}; no layer can be compared until both sides are made for one size",
                        "{blob}：NNIE {sim}，Caffe {ref}：cfg 与参考按不同的输入尺寸生成{declared}；"
                        "两侧按同一尺寸重新生成之前，任何层都无法比较"),
              "declared": (" (the prototxt declares {shape})", "（prototxt 声明为 {shape}）"),
              "values": ("{count} values", "{count} 个值")},
    docs="""
    ## What it finds
    The network input's dump on the NNIE side (nnie_mapper's first-layer input dump, or the data
    blob) and on the Caffe side hold different sizes: "NNIE 24×24×3 vs Caffe 12×12×3" (H×W×C).

    ## Why
    Guide step 1 compares the two runs layer by layer on one image, which needs one input size.
    The mapper compiles the input size of the prototxt the cfg names; a reference made from
    another prototxt, or with another `--input-shape`, has other sizes on every layer of a fully
    convolutional net (P-Net), so nothing aligns.  Said as such instead of "nothing aligned".

    ## Example
    ```
    T010 data: NNIE 24×24×3 vs Caffe 12×12×3: the cfg and the reference were made for different
    input sizes (the prototxt declares 24×24×3)
    ```

    ## Fix
    None automatic: make both sides for one size (`nnie-triage reference --cfg …` and `emulate
    --cfg …` use the prototxt's; `--input-shape` on both sets another), then compare again.
    """,
    docs_zh="NNIE 侧网络输入的 dump（mapper 第一层的输入 dump 或数据 blob）与 Caffe 侧尺寸不同，例如\"NNIE 24×24×3，Caffe 12×12×3\"（H×W×C）。"
            "指南第 1 步在同一张图上逐层比较两次运行，需要同一输入尺寸；mapper 按 cfg 指定的 prototxt 的输入尺寸编译，用别的 prototxt 或 "
            "--input-shape 生成的参考在全卷积网络的每一层尺寸都不同，因此没有任何层能对齐。请按同一尺寸重新生成两侧。")


@dataclass(frozen=True)
class InputSize:
    """One network input whose dumps differ in size between the sides."""

    blob: str
    ref_file: str
    sim_file: str
    ref_shape: tuple[int, ...] | None
    sim_shape: tuple[int, ...] | None
    ref_count: int | None
    sim_count: int | None
    declared: tuple[int, ...] | None  # the prototxt's (C, H, W) of one image, when known

    def to_json(self) -> dict:
        return {"blob": self.blob, "caffe_file": self.ref_file, "nnie_file": self.sim_file,
                "caffe_shape": list(self.ref_shape) if self.ref_shape else None,
                "nnie_shape": list(self.sim_shape) if self.sim_shape else None,
                "caffe_values": self.ref_count, "nnie_values": self.sim_count,
                "declared_shape": list(self.declared) if self.declared else None}


def hwc(shape: tuple[int, ...] | None) -> str | None:
    """A (C, H, W) shape as the engineers say image sizes: ``24×24×3`` (H×W×C); other ranks as
    they are; None when unknown."""
    if not shape:
        return None
    dims = [int(d) for d in shape]
    while len(dims) > 3 and dims[0] == 1:
        dims = dims[1:]
    if len(dims) == 3:
        c, h, w = dims
        return f"{h}×{w}×{c}"
    return "×".join(str(d) for d in dims)


def input_size_mismatches(alignment, graph: NetGraph | None) -> list[InputSize]:
    """The network inputs whose dumps the alignment left unmatched on both sides because their
    sizes differ (the name pass never pairs different sizes): one :class:`InputSize` each."""
    from nnie_lsp.readers.dumpio.names import normalize_name
    from nnie_lsp.triage.align.common import name_variants, value_count

    refs = list(getattr(alignment, "unmatched_ref", ()) or ())
    sims = list(getattr(alignment, "unmatched_sim", ()) or ())
    if not refs or not sims:
        return []
    if graph is not None:
        inputs = list(graph.input_blobs)
    else:   # no prototxt: the data blob's usual names
        inputs = sorted({t.key for t in refs if normalize_name(t.key) in ("data", "input", "image", "img")})
    out = []
    for blob in inputs:
        keys = set(name_variants(blob))

        def names(t, keys=keys, blob=blob) -> bool:
            if graph is not None and graph.find_blob(t.key, name_variants) == blob:
                return True
            return bool(keys & set(name_variants(t.key)))

        ref = next((t for t in refs if names(t)), None)
        sim = next((t for t in sims if names(t)), None)
        if ref is None or sim is None:
            continue
        nr, ns = value_count(ref), value_count(sim)
        if nr is None or ns is None or nr == ns:
            continue
        declared = graph.image_shape(blob) if graph is not None else None
        out.append(InputSize(blob=blob, ref_file=ref.label, sim_file=sim.label, ref_shape=ref.shape,
                             sim_shape=sim.shape, ref_count=nr, sim_count=ns,
                             declared=tuple(declared) if declared else None))
    return out


def size_findings(sizes: list[InputSize], builder: FindingBuilder) -> str:
    """T010 on each input (on its ``input:`` in the prototxt); returns the verdict's reason."""
    src = builder.sources
    reasons = []
    for s in sizes:
        sim = hwc(s.sim_shape) or builder.text("T010", "values", count=s.sim_count)
        ref = hwc(s.ref_shape) or builder.text("T010", "values", count=s.ref_count)
        declared = builder.text("T010", "declared", shape=hwc(s.declared)) if hwc(s.declared) else ""
        builder.add("T010", "sizes", place=src.input_place(s.blob), blob=s.blob, sim=sim, ref=ref,
                    declared=declared)
        reasons.append(builder.english("T010", "sizes", blob=s.blob, sim=hwc(s.sim_shape) or f"{s.sim_count} values",
                                       ref=hwc(s.ref_shape) or f"{s.ref_count} values",
                                       declared=f" (the prototxt declares {hwc(s.declared)})" if hwc(s.declared)
                                       else ""))
    return "; ".join(reasons)


def has_non_finite(row: LayerRow) -> bool:
    m = row.metrics
    return m is not None and bool(m.nan_ref or m.inf_ref or m.nan_sim or m.inf_sim)


def non_finite_findings(rows: list[LayerRow], builder: FindingBuilder) -> str | None:
    """T003 on every measured row holding NaN/Inf (errors: they decide the verdict); returns the
    verdict's reason (the first such row in network order), None when every value is finite."""
    bad = [r for r in rows if has_non_finite(r)]
    if not bad:
        return None
    src = builder.sources
    for r in bad:
        m = r.metrics
        side = _side(m)
        builder.add("T003", "non_finite", place=src.node_place(r.name), severity=Severity.ERROR, layer=r.name,
                    nan_ref=m.nan_ref, inf_ref=m.inf_ref, nan_sim=m.nan_sim, inf_sim=m.inf_sim, size=m.size,
                    side=builder.text("T003", side))
    first = bad[0]
    m = first.metrics
    held = []
    if m.nan_ref or m.inf_ref:
        held.append(f"Caffe {_counts(m.nan_ref, m.inf_ref)}")
    if m.nan_sim or m.inf_sim:
        held.append(f"NNIE {_counts(m.nan_sim, m.inf_sim)}")
    others = f"; {len(bad) - 1} more layer(s) hold NaN/Inf (T003)" if len(bad) > 1 else ""
    return (f"{first.name} holds NaN/Inf values ({' and '.join(held)}, of {m.size} values), the first layer in network "
            f"order that does{others}: {builder.english('T003', _side(m))}")


def _side(m) -> str:
    ref, sim = bool(m.nan_ref or m.inf_ref), bool(m.nan_sim or m.inf_sim)
    return "both" if ref and sim else ("caffe" if ref else "nnie")


def _counts(nan: int, inf: int) -> str:
    parts = ([f"{nan} NaN"] if nan else []) + ([f"{inf} Inf"] if inf else [])
    return " and ".join(parts)

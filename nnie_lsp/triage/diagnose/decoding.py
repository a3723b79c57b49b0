"""Magnitudes: a decoding factor on every layer (T006), and the per-layer scale drift 8-bit
quantization leaves (named in case 4, :mod:`.postprocessing`).

Cosine cannot see a scale, so every compared pair also carries its best scale ``k`` (the
least-squares factor with ``ref ≈ k·sim``, :class:`~..measure.metrics.Metrics.lsq_scale`).  Two very
different things move it (docs/field-facts.md §12):

- **8-bit loss**: clipping a long-tailed activation and the log quantizer's gain drift move ``k``
  a little, layer by layer (healthy 8-bit runs: |log2 k| up to 0.175; a 16-bit run stays at 1).
  Inside ``drift_band_log2`` this is case 4's business, not a fault.
- **decoding**: the NNIE numbers are right but read with the wrong scale — a 16.16 dump read as
  20.12 (×16), a decoder dividing by 2^16 (÷16), ``inst`` words taken without the /4096 — and then
  ONE factor K sits on every layer, the data layer included when it went through the same decoder.
  That is no case of the guide, and no cfg edit or support bundle fixes it: the dumps have to be
  read again (guide step 1).

:func:`decoding_factor` applies the rule (every number from
:class:`~..measure.metrics.Thresholds`); when the cfg says what the simulator's data grid must be,
a data tensor sitting on that grid vetoes it (then the NNIE data is what the cfg asks for, and a
common factor is Caffe's preprocessing: case 1).  T006 is registered here, beside the code that
emits it; registering loads no numpy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.rules.triage_common import register_finding
from nnie_lsp.triage.measure.rows import LayerRow, finite, measured_body

if TYPE_CHECKING:
    from nnie_lsp.triage.measure.metrics import Thresholds
    from nnie_lsp.triage.diagnose.builder import FindingBuilder

#: log2 K rounded → what reads the dumps with that factor (K = best scale, ref ≈ K·sim)
CAUSES = {-4: "fraction_bits_16", 4: "fraction_bits_8", -12: "inst_4096", 12: "twice_4096"}


@dataclass(frozen=True)
class LayerScale:
    row: LayerRow
    log2: float  # log2 of the row's best scale

    @property
    def scale(self) -> float:
        return 2.0 ** self.log2


def layer_scales(rows: list[LayerRow], th: Thresholds) -> list[LayerScale]:
    """The layers magnitude decisions rest on: after the data layer, at least ``magnitude_min_size``
    elements, cosine ≥ ``good``, a finite positive best scale."""
    out = []
    for r in measured_body(rows):
        m = r.metrics
        if m.size < th.magnitude_min_size or r.cosine < th.good:
            continue
        k = m.lsq_scale
        if finite(k) and k > 0 and math.isfinite(k):
            out.append(LayerScale(r, math.log2(k)))
    return out


def largest_drift(rows: list[LayerRow], th: Thresholds) -> LayerScale | None:
    """The layer whose best scale is furthest from 1 (of :func:`layer_scales`)."""
    scales = layer_scales(rows, th)
    return max(scales, key=lambda s: abs(s.log2)) if scales else None


def _median(values: list[float]) -> float:
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


@dataclass(frozen=True)
class DecodingFactor:
    """One factor K on every layer: the NNIE dumps are read with the wrong scale."""

    log2: float          # log2 K (K: the median best scale, ref ≈ K·sim)
    layers: int          # layers counted (layer_scales)
    within: int          # of those, within decoding_band_log2 of K
    data_log2: float | None  # the data layer's log2 best scale, when compared
    cause: str           # a CAUSES value, "power_of_two" or "factor"
    bits: int            # round(log2 K)
    # the data layer has K too and its values could be a fixed-point dump read that way, or data
    # a [data_scale] off by K made (a net without biases carries it to every layer): the numbers
    # cannot tell the two apart
    preprocessing_possible: bool = False

    @property
    def factor(self) -> float:
        return 2.0 ** self.log2

    @property
    def data_agrees(self) -> bool:
        """The data layer is read right (a float dump) while the layers are not."""
        return self.data_log2 is not None and abs(self.data_log2 - self.log2) > abs(self.data_log2)

    def to_dict(self) -> dict:
        return {"factor": self.factor, "log2_factor": self.log2, "cause": self.cause, "layers": self.layers,
                "layers_within_band": self.within, "data_log2_factor": self.data_log2,
                "sim_times": 1.0 / self.factor, "preprocessing_possible": self.preprocessing_possible}


def decoding_factor(rows: list[LayerRow], th: Thresholds, *, sim_scale: float | None = None) -> DecodingFactor | None:
    """The decoding rule (module doc; thresholds in :class:`Thresholds`).  `sim_scale`: the step of
    the simulator's data grid the cfg implies (data_scale for a scaling norm_type, else 1), which
    lets a data tensor on that very grid veto the rule."""
    scales = layer_scales(rows, th)
    if len(scales) < th.decoding_min_layers:
        return None
    k = _median([s.log2 for s in scales])
    if abs(k) < th.decoding_min_log2:
        return None
    within = sum(1 for s in scales if abs(s.log2 - k) <= th.decoding_band_log2)
    if within < th.decoding_share * len(scales):
        return None
    data = next((r for r in rows if r.is_data and r.metrics is not None), None)
    data_log2 = None
    if data is not None:
        dk = data.metrics.lsq_scale
        if not (finite(dk) and dk > 0 and math.isfinite(dk)):
            return None
        data_log2 = math.log2(dk)
        if abs(data_log2 - k) > th.decoding_data_log2 and abs(data_log2) > th.decoding_data_log2:
            return None  # the data layer has its own factor: preprocessing, not one decoder
        if abs(data_log2) > th.decoding_data_log2 and _on_cfg_grid(data, sim_scale, th):
            return None  # the NNIE data is what the cfg asks for: the factor is Caffe's preprocessing
    bits = round(k)
    if abs(k - bits) <= th.decoding_named_log2:
        cause = CAUSES.get(bits, "power_of_two")
    else:
        cause = "factor"
    possible = False
    if data_log2 is not None and abs(data_log2) > th.decoding_data_log2:
        # the data layer has K too: a decoder reading every dump, the data's included, or a data
        # scale off by K on a net without biases
        if not _decodable(data, 2.0 ** (bits if cause != "factor" else k)):
            return None  # no fixed-point dump read with K gives these data values: the factor began at the input
        possible = True
    return DecodingFactor(k, len(scales), within, data_log2, cause, bits, possible)


def _decodable(data: LayerRow, factor: float) -> bool:
    """Whether the simulator's data values could be a 20.12 fixed-point dump read with the wrong
    scale (``ref ≈ factor·sim``): ``sim · factor · 4096`` integral for nearly every value."""
    _ref, sim, _raw = data.arrays()
    if sim is None or not sim.size:
        return True  # no values to check: cannot rule it out
    import numpy as np

    words = np.asarray(sim, dtype=np.float64).ravel() * (factor * 4096.0)
    off = np.abs(words - np.rint(words))
    return bool(np.mean(off <= 1e-3 + 1e-6 * np.abs(words)) >= 0.99)


def _on_cfg_grid(data: LayerRow, sim_scale: float | None, th: Thresholds) -> bool:
    """The simulator's data values step by the cfg's own scale (integer pixels × data_scale)."""
    if not sim_scale:
        return False
    _ref, sim, _raw = data.arrays()
    if sim is None:
        return False
    from nnie_lsp.triage.diagnose.preprocess_fit import value_step

    step = value_step(sim)
    return step is not None and step > 0 and abs(math.log2(step / sim_scale)) <= th.decoding_data_log2


register_finding(
    __name__,
    "T006", "decoding-factor", Severity.ERROR, 1,
    summary=("Every layer is off by one factor: the NNIE dumps are read with the wrong scale",
             "每一层都差同一个倍数：NNIE dump 的读取缩放不对"),
    messages={
        "fraction_bits_16": ("every compared layer's values are Caffe's × {times} (best scale {scale} on {within} of "
                             "{layers} layers{data}): the NNIE dumps are read with the wrong fixed-point scale — a "
                             "dump with 16 fraction bits (16.16) read as 20.12; read it again dividing by 2^16 "
                             "(not 4096) and compare again",
                             "所有对比层的数值都是 Caffe 的数值乘以 {times}（{layers} 个层中 {within} 个的最佳缩放为 {scale}{data}）："
                             "NNIE dump 的定点缩放读错了——16 位小数（16.16）的 dump 被当作 20.12 读取；请除以 2^16（而不是 4096）重新读取后再比较"),
        "fraction_bits_8": ("every compared layer's values are Caffe's × {times} (best scale {scale} on {within} of "
                            "{layers} layers{data}): the NNIE dumps are read with the wrong fixed-point scale — "
                            "20.12 words divided by 2^16 instead of 4096 (or a 24.8 dump read as 20.12); read them "
                            "again with 12 fraction bits (value = int32 / 4096) and compare again",
                            "所有对比层的数值都是 Caffe 的数值乘以 {times}（{layers} 个层中 {within} 个的最佳缩放为 {scale}{data}）："
                            "NNIE dump 的定点缩放读错了——20.12 的字被除以了 2^16 而不是 4096（或 24.8 的 dump 被当作 20.12 读取）；"
                            "请按 12 位小数（值 = int32 / 4096）重新读取后再比较"),
        "inst_4096": ("every compared layer's values are Caffe's × {times} (best scale {scale} on {within} of {layers} "
                      "layers{data}): the NNIE words were taken as plain integers — board / instruction-simulator "
                      "dumps are 20.12 fixed point (value = int32 / 4096, SAMPLE_SVP_NNIE_QUANT_BASE); divide by "
                      "4096 and compare again",
                      "所有对比层的数值都是 Caffe 的数值乘以 {times}（{layers} 个层中 {within} 个的最佳缩放为 {scale}{data}）："
                      "NNIE 的字被当作普通整数读取——板端/指令仿真 dump 是 20.12 定点（值 = int32 / 4096，"
                      "SAMPLE_SVP_NNIE_QUANT_BASE）；请除以 4096 后再比较"),
        "twice_4096": ("every compared layer's values are Caffe's × {times} (best scale {scale} on {within} of {layers} "
                       "layers{data}): the 20.12 words were divided by 4096 twice; read them again once "
                       "(value = int32 / 4096) and compare again",
                       "所有对比层的数值都是 Caffe 的数值乘以 {times}（{layers} 个层中 {within} 个的最佳缩放为 {scale}{data}）："
                       "20.12 定点字被除了两次 4096；请只除一次（值 = int32 / 4096）重新读取后再比较"),
        "power_of_two": ("every compared layer's values are Caffe's × {times} (best scale {scale}, 2^{bits}, on "
                         "{within} of {layers} layers{data}): the fixed-point fraction bits the dumps were read "
                         "with differ from the ones they were written with by {abs_bits}; the NNIE mapper and "
                         "board write 20.12 (value = int32 / 4096): read them again and compare again",
                         "所有对比层的数值都是 Caffe 的数值乘以 {times}（{layers} 个层中 {within} 个的最佳缩放为 {scale}，即 2^{bits}{data}）："
                         "读取 dump 所用的定点小数位数与写入时相差 {abs_bits} 位；NNIE mapper 与板端写出的是 20.12（值 = int32 / 4096）："
                         "请重新读取后再比较"),
        "factor": ("every compared layer's values are Caffe's × {times} (best scale {scale} on {within} of {layers} "
                   "layers{data}): one factor on every layer is a decoding difference (how the dumps were read or "
                   "converted), not quantization; check the decoder (20.12 fixed point: value = int32 / 4096) and "
                   "compare again",
                   "所有对比层的数值都是 Caffe 的数值乘以 {times}（{layers} 个层中 {within} 个的最佳缩放为 {scale}{data}）："
                   "每一层同一个倍数是解码差异（dump 的读取或转换方式），不是量化误差；请检查解码（20.12 定点：值 = int32 / 4096）后再比较"),
        "data_same": ("; the data layer too", "；数据层也一样"),
        "data_or_preprocessing": ("; the data layer too, and its values fit a 20.12 dump read that way as well as "
                                  "data whose [data_scale] differs from Caffe's by that factor on a net without "
                                  "biases: these numbers cannot tell the two apart. If the cfg's scale differs from "
                                  "Caffe's by that factor, or the data dump is a float file (…_anti_quant.float), it "
                                  "is preprocessing (case 1), not decoding",
                                  "；数据层也一样，而且其数值既符合以这种方式读取的 20.12 dump，也符合在没有偏置的网络上"
                                  " [data_scale] 与 Caffe 相差同一倍数的数据：仅凭这些数字无法区分两者。若 cfg 的缩放与 Caffe"
                                  " 相差这一倍数，或数据 dump 是浮点文件（…_anti_quant.float），则是预处理问题（情况 1），而不是解码问题"),
        "data_right": ("; the data layer, a float dump, agrees", "；数据层（浮点 dump）一致"),
    },
    docs="""
    ## What it finds
    Every compared layer (at least `decoding_min_layers` with `magnitude_min_size` elements and a
    cosine ≥ `good`) carries the same best scale K, far from 1 (|log2 K| ≥ `decoding_min_log2`,
    `decoding_share` of them within `decoding_band_log2` octaves of K), and the data layer, when
    compared, has K too (it went through the same decoder) or 1 (a float dump read right).  The
    message names the cause when K is a power of two: 2^-4 (values 16× too large) a 16.16 dump read
    as 20.12, 2^4 words divided by 2^16 instead of 4096, 2^-12 board / instruction-simulator words
    taken without the /4096.

    ## Why
    Guide step 1 compares numbers; if the NNIE side's numbers are decoded with the wrong scale,
    every layer looks wrong by the same factor while the cosines stay at 0.99 or more.  This is not
    one of the guide's four cases: no cfg key fixes it (when the cfg says what grid the
    simulator's data must sit on and it does, the factor is Caffe's preprocessing: case 1), and
    no support bundle does.
    The dumps must be read again.  A factor on the data layer alone, or one that the layers do not
    share, is preprocessing (case 1) or a layer's own scale, never this.  Neither is a factor on
    the data layer too whose values no fixed-point dump read with that factor can give (a resized
    image's data): a [data_scale] off by K on a net without biases puts K on every layer, so that
    is case 1.  When the data's values could be either, the message says the numbers cannot tell
    them apart, and what decides.

    ## Example
    ```
    T006 every compared layer's values are Caffe's × 16 (best scale 0.0625 on 7 of 7 layers; the
    data layer too): ... a dump with 16 fraction bits (16.16) read as 20.12
    ```

    ## Fix
    None in the cfg or the prototxt: read the dumps with the right fixed-point scale (20.12:
    int32 / 4096) and run the comparison again.
    """,
    docs_zh="所有对比层（至少 decoding_min_layers 个，每个至少 magnitude_min_size 个元素且余弦 ≥ good）的最佳缩放都是同一个远离 1 的倍数 K，"
            "数据层（若参与比较）也是 K（经过同一个解码）或 1（浮点 dump 读取正确）。K 为 2 的幂时消息给出原因：2^-4 为 16.16 的 dump 被当作 20.12 读取，"
            "2^4 为除以 2^16 而不是 4096，2^-12 为板端/指令仿真的字没有除以 4096。数据层也差 K 而其数值不可能来自以该倍数读取的定点 dump 时"
            "（如缩放后的图像），是预处理问题（情况 1）：没有偏置的网络会把 [data_scale] 的 K 倍差异带到每一层；两者都可能时，消息会说明数字无法区分及如何判断。这不属于指南的四种情况：修改 cfg 或打包提交都无济于事，"
            "必须用正确的定点缩放（20.12：int32 / 4096）重新读取 dump 后再比较。")


def decoding_findings(fit: DecodingFactor, builder: FindingBuilder) -> str:
    """T006; returns the English reason."""
    scale = f"{fit.factor:.4g}"
    times = _ratio(2.0 ** -fit.bits if fit.cause != "factor" else 1.0 / fit.factor)
    data = ""
    if fit.data_log2 is not None:
        data_id = ("data_right" if fit.data_agrees else
                   "data_or_preprocessing" if fit.preprocessing_possible else "data_same")
        data = builder.text("T006", data_id)
        data_en = builder.english("T006", data_id)
    else:
        data_en = ""
    params = dict(scale=scale, times=times, within=fit.within, layers=fit.layers, bits=fit.bits,
                  abs_bits=abs(fit.bits))
    builder.add("T006", fit.cause, data=data, **params)
    return builder.english("T006", fit.cause, data=data_en, layer="?", **params)


def _ratio(x: float) -> str:
    """16 → "16", 0.0625 → "1/16", 4096 → "4096", 0.000244 → "1/4096", 2.7 → "2.7"."""
    if x >= 1:
        return f"{round(x)}" if abs(x - round(x)) <= 0.02 * x else f"{x:.3g}"
    inv = 1.0 / x
    return f"1/{round(inv)}" if abs(inv - round(inv)) <= 0.02 * inv else f"{x:.3g}"

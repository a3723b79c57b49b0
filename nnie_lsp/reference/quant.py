"""NNIE quantizers in numpy (docs/field-facts.md §11).

8-bit mode [C, S7]: sign-magnitude ("true form") codes, 0x80 = -0; a magnitude code m in 1..127
stands for 2**((m + z) / 16) with z = round(16*log2(clip)) - 127, so the largest code (127) is the
layer's clipping value and the smallest non-zero magnitude is clip * 2**(-126/16) (about clip/234).
Magnitude 0 is zero.

16-bit mode (compile_mode 1 and `_hp` layers) [I]: the public material only says it is "16-bit";
we model it as the same logarithmic sign-magnitude code with 15 magnitude bits and a step of
1/2048 in log2 (z = round(2048*log2(clip)) - 32767). It is far finer than 8-bit, which is all the
triage needs (a 16-bit run that confirms or rejects quantization as the cause).

Fixed point 20.12 (dump encoding, §10.1/§10.2): value = int32 / 4096.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

FIXED_POINT_SCALE = 4096.0


@dataclass(frozen=True)
class LogQuantizer:
    """A sign-magnitude logarithmic quantizer with `bits` bits (one of them the sign)."""

    bits: int = 8

    @property
    def steps_per_octave(self) -> int:
        # 8-bit: 16 codes per octave (§11); 16-bit: 2048 [I].
        return 16 if self.bits == 8 else 2048

    @property
    def max_code(self) -> int:
        return (1 << (self.bits - 1)) - 1

    def clip_value(self, data: np.ndarray) -> float:
        """Clipping value for a tensor: max |x| rounded up so that steps*log2(clip) is an integer
        (the gfpq table constraint, §3.4). All-zero data gets 1e-6 like the mapper's warning."""
        amax = float(np.max(np.abs(data))) if data.size else 0.0
        if not np.isfinite(amax) or amax <= 0.0:
            amax = 1e-6
        k = self.steps_per_octave
        return float(2.0 ** (np.ceil(k * np.log2(amax) - 1e-9) / k))

    def z(self, clip: float) -> int:
        k = self.steps_per_octave
        return int(round(k * np.log2(clip))) - self.max_code

    def encode(self, data: np.ndarray, clip: float | None = None) -> tuple[np.ndarray, float]:
        """Return (codes, clip). Codes are sign-magnitude integers: bit (bits-1) is the sign,
        the low bits the magnitude code (0 = zero)."""
        x = np.asarray(data, dtype=np.float64)
        if clip is None:
            clip = self.clip_value(x)
        k = self.steps_per_octave
        z = self.z(clip)
        mag = np.abs(x)
        with np.errstate(divide="ignore", invalid="ignore"):
            m = np.rint(k * np.log2(np.where(mag > 0, mag, 1.0)) - z)
        m = np.where(mag > 0, m, 0)
        m = np.clip(m, 0, self.max_code).astype(np.int64)
        sign = (x < 0).astype(np.int64) << (self.bits - 1)
        return (sign | m).astype(np.uint16 if self.bits > 8 else np.uint8), clip

    def decode(self, codes: np.ndarray, clip: float) -> np.ndarray:
        c = np.asarray(codes).astype(np.int64)
        m = c & self.max_code
        neg = (c >> (self.bits - 1)) & 1
        k = self.steps_per_octave
        z = self.z(clip)
        val = np.where(m > 0, np.exp2((m + z) / k), 0.0)
        return np.where(neg == 1, -val, val)

    def quantize(self, data: np.ndarray, clip: float | None = None) -> np.ndarray:
        """Quantize-dequantize (fake quantization); returns float32 of the input shape."""
        codes, clip = self.encode(data, clip)
        return self.decode(codes, clip).astype(np.float32).reshape(np.shape(data))


QUANT8 = LogQuantizer(8)
QUANT16 = LogQuantizer(16)


def quantizer_for(bits: int) -> LogQuantizer:
    if bits not in (8, 16):
        raise ValueError(f"NNIE quantizers are 8- or 16-bit, not {bits}")
    return QUANT8 if bits == 8 else QUANT16


def to_fixed_20_12(data: np.ndarray) -> np.ndarray:
    """Round to the 20.12 fixed-point grid the mapper/simulator dumps use (saturating int32)."""
    q = np.rint(np.asarray(data, dtype=np.float64) * FIXED_POINT_SCALE)
    q = np.clip(q, np.iinfo(np.int32).min, np.iinfo(np.int32).max)
    return (q / FIXED_POINT_SCALE).astype(np.float32)

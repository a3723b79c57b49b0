"""NNIE quantizers in numpy (docs/field-facts.md §11, §16.5).

8-bit mode [C, S7]: sign-magnitude ("true form") codes; bit 7 is the sign, bits 0-6 the magnitude
code m. The grid is the one measured on a real dequantized dump (§16.5): 128 magnitudes
``clip * 2**((m - 127) / 16)`` for m = 0 … 127 -- so m = 127 is the layer's clipping value and the
smallest non-zero magnitude is ``clip * 2**(-127/16)`` (about clip/245) -- plus zero. Zero is the
"-0" pattern 0x80 (§16.5's reading [I]); the negative side therefore has the 127 levels m = 1 … 127.
In the formula of §11, ``z = round(16*log2(clip)) - 127`` and a level is ``2**((m + z) / 16)``.

Rounding [I]: to the nearest level in log2 (half a step, 1/32 octave, at most); a magnitude below
the smallest level goes to that level when it is nearer to it than to zero, else to zero (for a
negative value the smallest level is m = 1).

16-bit mode (compile_mode 1 and `_hp` layers) [I]: the public material only says it is "16-bit";
we model it as the same logarithmic sign-magnitude code with 15 magnitude bits and a step of
1/2048 in log2 (z = round(2048*log2(clip)) - 32767). It is far finer than 8-bit, which is all the
triage needs (a 16-bit run that confirms or rejects quantization as the cause).

Fixed point 20.12 (dump encoding, §10.1/§10.2): value = int32 / 4096.

Clip offsets [I]: another calibration (the mapper's own statistic, more images) gives clips a few
grid steps away from the emulation's; :func:`seeded_clip_offsets` draws such offsets (per blob and
bit width, in octaves) for the `_hp` benchmark's harder mismatch mode, and
``EmulationOptions.clip_offsets`` applies them.
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
        # 8-bit: 16 codes per octave (§11, §16.5); 16-bit: 2048 [I].
        return 16 if self.bits == 8 else 2048

    @property
    def max_code(self) -> int:
        return (1 << (self.bits - 1)) - 1

    @property
    def sign_bit(self) -> int:
        return 1 << (self.bits - 1)

    @property
    def zero_code(self) -> int:
        """The code of 0: the "-0" pattern (0x80 in 8-bit mode, §16.5)."""
        return self.sign_bit

    def clip_value(self, data: np.ndarray, at_least: float = 0.0) -> float:
        """Clipping value for a tensor: max |x| rounded up so that steps*log2(clip) is an integer
        (the gfpq table constraint, §3.4). All-zero data gets 1e-6 like the mapper's warning.
        ``at_least``: a max |x| seen elsewhere (other calibration images) that the clip covers too."""
        amax = float(np.max(np.abs(data))) if np.size(data) else 0.0
        return self.clip_for_max(max(amax, at_least))

    def clip_for_max(self, amax: float) -> float:
        """The clip of a tensor whose largest magnitude is ``amax`` (see :meth:`clip_value`)."""
        if not np.isfinite(amax) or amax <= 0.0:
            amax = 1e-6
        k = self.steps_per_octave
        return float(2.0 ** (np.ceil(k * np.log2(amax) - 1e-9) / k))

    def shifted(self, clip: float, octaves: float) -> float:
        """``clip`` moved by ``octaves`` (log2 units), kept on this quantizer's clip grid: the clip
        another calibration would have chosen (a step of the 8-bit grid is 1/16 octave)."""
        if not octaves:
            return clip
        k = self.steps_per_octave
        return float(2.0 ** (np.round(k * (np.log2(clip) + octaves)) / k))

    def z(self, clip: float) -> int:
        k = self.steps_per_octave
        return int(round(k * np.log2(clip))) - self.max_code

    def levels(self, clip: float) -> np.ndarray:
        """The magnitudes of codes m = 0 … max_code (ascending)."""
        m = np.arange(self.max_code + 1)
        return np.exp2((m + self.z(clip)) / self.steps_per_octave)

    def encode(self, data: np.ndarray, clip: float | None = None) -> tuple[np.ndarray, float]:
        """Return (codes, clip). Codes are sign-magnitude integers: bit (bits-1) is the sign,
        the low bits the magnitude code; 0 is the -0 pattern (:attr:`zero_code`)."""
        x = np.asarray(data, dtype=np.float64)
        if clip is None:
            clip = self.clip_value(x)
        k = self.steps_per_octave
        z = self.z(clip)
        mag = np.abs(x)
        negative = x < 0
        with np.errstate(divide="ignore", invalid="ignore"):
            m = np.rint(k * np.log2(np.where(mag > 0, mag, 1.0)) - z)
        m = np.minimum(m, self.max_code)
        # below the smallest level: that level when nearer to it than to zero, else zero
        smallest = np.where(negative, 2.0 ** ((1 + z) / k), 2.0 ** (z / k))
        lowest_code = np.where(negative, 1, 0)
        m = np.where(m < lowest_code, np.where(mag * 2 >= smallest, lowest_code, -1), m)
        is_zero = (mag == 0) | (m < 0)
        m = np.where(is_zero, 0, m).astype(np.int64)
        codes = np.where(is_zero, self.zero_code, (negative.astype(np.int64) << (self.bits - 1)) | m)
        return codes.astype(np.uint16 if self.bits > 8 else np.uint8), clip

    def decode(self, codes: np.ndarray, clip: float) -> np.ndarray:
        c = np.asarray(codes).astype(np.int64)
        m = c & self.max_code
        negative = (c >> (self.bits - 1)) & 1
        k = self.steps_per_octave
        z = self.z(clip)
        val = np.exp2((m + z) / k)
        val = np.where(negative == 1, -val, val)
        return np.where(c == self.zero_code, 0.0, val)

    def quantize(self, data: np.ndarray, clip: float | None = None) -> np.ndarray:
        """Quantize-dequantize (fake quantization); returns float32 of the input shape: the values of
        ``decode(encode(data))``, computed without the codes (the level of each magnitude code
        looked up in a table of the grid's magnitudes)."""
        x = np.asarray(data, dtype=np.float64)
        if clip is None:
            clip = self.clip_value(x)
        k, z = self.steps_per_octave, self.z(clip)
        mag = np.abs(x)
        with np.errstate(divide="ignore", invalid="ignore"):
            m = np.rint(k * np.log2(np.where(mag > 0, mag, 1.0)) - z)
        np.minimum(m, self.max_code, out=m)
        np.nan_to_num(m, copy=False, nan=0.0)  # a NaN: code 0, as encode() leaves it
        negative = x < 0
        # below the smallest level (m = 1 for a negative value, 0 else): that level when nearer to it
        # than to zero, else zero -- as encode() decides
        low = m < negative
        if low.any():
            smallest = np.where(negative, 2.0 ** ((1 + z) / k), 2.0 ** (z / k))
            m = np.where(low, np.where(mag * 2 >= smallest, negative.astype(np.float64), -1.0), m)
        zero = (mag == 0) | (m < 0)
        table = np.exp2((np.arange(self.max_code + 1) + z) / k)
        values = table[np.where(zero, 0, m).astype(np.intp)]
        values = np.where(zero, 0.0, np.where(negative, -values, values))
        return values.astype(np.float32).reshape(np.shape(data))


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


def seeded_clip_offsets(blobs, seed: int, steps: tuple[int, int] = (1, 3),
                        widths: tuple[int, ...] = (8, 16)) -> dict[tuple[str, int], float]:
    """A clip offset per (blob, bit width): ±``steps[0]`` … ``steps[1]`` steps of 2^(1/16), in
    octaves (sign and size drawn independently per blob and width). Deterministic: the offsets of a
    blob depend on ``seed``, its name and the width only, not on the other blobs or their order."""
    import zlib

    low, high = steps
    if not 0 <= low <= high:
        raise ValueError(f"steps {steps!r}: 0 <= low <= high")
    out: dict[tuple[str, int], float] = {}
    for blob in blobs:
        for width in widths:
            rng = np.random.default_rng((seed, zlib.crc32(blob.encode("utf-8")), width))
            size = int(rng.integers(low, high + 1))
            sign = 1 if rng.random() < 0.5 else -1
            out[(blob, width)] = sign * size / 16.0
    return out

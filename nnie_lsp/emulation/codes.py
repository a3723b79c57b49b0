"""Quantized input dumps: the mapper's ``<layer>_input<k>_<C>_<H>_<W>_quant.nonlinear.hex`` (8/16-bit
log codes, docs/field-facts.md §10.1, §11) and their dequantized twins ``…_anti_quant.float``.

A code means nothing without the layer's clipping value (§11: a level is ``clip·2^((m-127)/16)``,
§16.5). The clip is known

- from the dequantized twin: every non-zero pair (code m, value v) gives ``clip = |v|·2^((127-m)/16)``
  exactly, whether or not this image reaches the top level; the twin's printing (six significant
  digits, the C++ stream form of §16.5; ``%.6f`` files are read too) only limits how well the check
  agrees (:func:`clip_from_twin`);
- from an emulation of the same net and cfg (:mod:`.emulate` records the clip of every blob it
  quantizes): then the absolute scale is only as right as the emulated clip -- a clip off by n
  steps scales every value by 2^(n/16) -- while the cosine, which ignores a common scale, is exact.

Otherwise a code file cannot be decoded, and the callers say why.

File content [I]: the public description only says "hex, one number per line"; we write ``%02x``
(8-bit) or ``%04x`` (16-bit) and read any hexadecimal token (``0x`` prefix allowed). Codes wider
than 16 bits are refused; a file whose codes all fit in 8 bits is read as 8-bit unless the caller
knows better (a twin on the 16-bit grid, an `_hp` layer).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nnie_lsp.readers.dumpio.writers import cpp_stream_text
from nnie_lsp.emulation.quant import LogQuantizer, quantizer_for

#: The twin of a code file in the real NNIE 1.1 form (docs/field-facts.md §16.1, §16.5): the float32
#: value as a C++ stream writes it, ``%g`` with six significant digits
#: (:func:`nnie_lsp.readers.dumpio.writers.cpp_stream_text`).
TWIN_FORMAT = "%.6g"


class CodeFileError(ValueError):
    """A code file that cannot be read or decoded; the message says why (and where)."""


def input_code_file_name(layer: str, input_number: int, shape) -> str:
    """``<layer>_input<k>_<C>_<H>_<W>_quant.nonlinear.hex`` (§10.1)."""
    from nnie_lsp.readers.dumpio.names import dims_suffix, safe_name

    return f"{safe_name(layer)}_input{int(input_number)}{dims_suffix(shape)}_quant.nonlinear.hex"


def twin_file_name(layer: str, input_number: int, shape) -> str:
    """``<layer>_input<k>_<C>_<H>_<W>_anti_quant.float``: the name real NNIE 1.1 folders use (§16.1)."""
    from nnie_lsp.readers.dumpio.names import dims_suffix, safe_name

    return f"{safe_name(layer)}_input{int(input_number)}{dims_suffix(shape)}_anti_quant.float"


def code_file_twin_names(code_file: str) -> tuple[str, str]:
    """The two names the dequantized twin of ``code_file`` may have (§10.1 ``.linear`` and §16.1)."""
    base = os.path.basename(code_file)
    stem = base[: -len("_quant.nonlinear.hex")] if base.endswith("_quant.nonlinear.hex") else base
    return f"{stem}_anti_quant.linear.float", f"{stem}_anti_quant.float"


# ------------------------------------------------------------------------------- reading / writing
_HEX_DIGITS = np.full(256, 255, dtype=np.uint8)
for _i, _c in enumerate(b"0123456789abcdef"):
    _HEX_DIGITS[_c] = _i
for _i, _c in enumerate(b"ABCDEF"):
    _HEX_DIGITS[_c] = 10 + _i


def _fixed_width(data: bytes) -> np.ndarray | None:
    """Vectorised parse of equal-width lines of hex digits (what our writer and the mapper's
    ``%0Nx`` lines look like); None when the file is not in that shape."""
    first = data.find(b"\n")
    if first <= 0:
        return None
    width = first + 1
    body = data if data.endswith(b"\n") else data + b"\n"
    if len(body) % width:
        return None
    lines = np.frombuffer(body, dtype=np.uint8).reshape(-1, width)
    if np.any(lines[:, -1] != 10):
        return None
    digits = _HEX_DIGITS[lines[:, :-1]]
    if np.any(digits == 255) or width - 1 > 8:
        return None
    out = np.zeros(lines.shape[0], dtype=np.int64)
    for col in range(width - 1):
        out = (out << 4) | digits[:, col]
    return out


def parse_codes(data: bytes, path: str = "<codes>") -> np.ndarray:
    """Codes (int64) from the text of a code file."""
    fast = _fixed_width(data.replace(b"\r\n", b"\n"))
    if fast is not None:
        return fast
    values = []
    for number, line in enumerate(data.decode("ascii", errors="replace").splitlines(), 1):
        for token in line.replace(",", " ").split():
            try:
                values.append(int(token, 16))
            except ValueError:
                raise CodeFileError(f"{path}:{number}: {token[:20]!r} is not a hexadecimal code") from None
    return np.asarray(values, dtype=np.int64)


def read_codes(path: str | Path, bits: int | None = None) -> tuple[np.ndarray, int]:
    """(codes, bits) of a code file; ``bits`` None = 8 when every code fits in 8 bits, else 16."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise CodeFileError(f"cannot read {p}: {exc.strerror or exc}") from exc
    codes = parse_codes(data, str(p))
    if codes.size == 0:
        raise CodeFileError(f"{p}: no codes")
    top = int(codes.max())
    if bits is None:
        bits = 8 if top <= 0xFF else 16
    if top >= (1 << bits):
        raise CodeFileError(f"{p}: code {top:#x} does not fit in {bits} bits; not {bits}-bit log codes")
    return codes, bits


def format_codes(codes: np.ndarray, bits: int) -> bytes:
    width = 2 if bits == 8 else 4
    return "".join(f"{int(c):0{width}x}\n" for c in np.asarray(codes).reshape(-1)).encode("ascii")


# ------------------------------------------------------------------------------- decoding
@dataclass
class TwinCheck:
    """How a code file and its dequantized twin agree under a clip."""

    clip: float
    bits: int
    max_error: float          # largest |decoded - twin|
    max_error_steps: float    # the same in log-grid steps, over values the print resolves well
    agrees: bool


def decode_codes(codes: np.ndarray, clip: float, bits: int = 8) -> np.ndarray:
    """float64 values of sign-magnitude log codes under ``clip`` (§11, §16.5)."""
    if not (clip > 0 and math.isfinite(clip)):
        raise CodeFileError(f"clip {clip!r} is not a positive number")
    return quantizer_for(bits).decode(codes, clip)


def _print_tolerance(values: np.ndarray) -> np.ndarray:
    """Half a unit in the last place of the twin's print -- six significant digits (at most
    5e-6 of the value), or ``%.6f`` (5e-7) in older files -- plus the float32 rounding of the value
    the mapper printed and float noise."""
    return 0.5e-6 + 5.1e-6 * np.abs(values)


def clip_from_twin(codes: np.ndarray, twin: np.ndarray, bits: int = 8) -> TwinCheck:
    """The clip that maps ``codes`` onto their dequantized ``twin`` (same element order), and how
    well they agree. Raises :class:`CodeFileError` when no clip can be read or the two disagree."""
    q = quantizer_for(bits)
    codes = np.asarray(codes, dtype=np.int64).reshape(-1)
    twin = np.asarray(twin, dtype=np.float64).reshape(-1)
    if codes.size != twin.size:
        raise CodeFileError(f"{codes.size} codes but {twin.size} dequantized values")
    nonzero = codes != q.zero_code
    if not np.any(nonzero):
        raise CodeFileError("every code is zero: the data hold no level to read the clip from "
                            "(the mapper sets such a clip to 1e-6, §16.3)")
    m = codes[nonzero] & q.max_code
    mags = np.abs(twin[nonzero])
    if np.any(mags <= 0):
        raise CodeFileError("a non-zero code has a zero dequantized value: codes and twin do not pair up")
    k = q.steps_per_octave
    # each pair gives log2(clip); the largest magnitudes are printed most precisely
    estimates = np.log2(mags) + (q.max_code - m) / k
    best = np.argsort(mags)[-min(64, mags.size):]
    clip = float(2.0 ** (np.round(k * np.median(estimates[best])) / k))
    decoded = q.decode(codes, clip)
    error = np.abs(decoded - twin)
    steps = error / np.maximum(np.abs(decoded), 1e-300) * k / math.log(2)
    resolved = np.abs(decoded) > 1e-3  # either print resolves these to better than 5e-4 relative
    max_steps = float(steps[resolved].max()) if np.any(resolved) else 0.0
    agrees = bool(np.all(error <= _print_tolerance(decoded)))
    return TwinCheck(clip=clip, bits=bits, max_error=float(error.max()), max_error_steps=max_steps,
                     agrees=agrees)


def on_grid(values: np.ndarray, clip: float, bits: int = 8) -> bool:
    """Whether every non-zero magnitude of ``values`` is a level of the grid under ``clip``."""
    q: LogQuantizer = quantizer_for(bits)
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    mags = np.abs(v[v != 0])
    if mags.size == 0:
        return True
    k = q.steps_per_octave
    j = k * np.log2(clip / mags)
    tol = k * _print_tolerance(mags) / mags / math.log(2) + 1e-6
    return bool(np.all((np.abs(j - np.round(j)) <= tol) & (np.round(j) >= 0) & (np.round(j) <= q.max_code)))


# ------------------------------------------------------------------------------- writing
def write_input_dumps(outdir: str | Path, layer: str, input_number: int, value: np.ndarray, clip: float,
                      bits: int = 8) -> tuple[Path, Path]:
    """One quantized layer input as the mapper writes it: the code file and its dequantized twin
    (the float32 values in the C++ stream form of §16.5: six significant digits, one a line).
    ``value`` is (C,H,W) or (N,C,H,W): the names carry C_H_W, the values are NCHW-flattened (a real
    256_10_10 file holds 51,200 values, §16.5). It is quantized under ``clip`` first, so the two
    files always pair up."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    arr = np.asarray(value, dtype=np.float64)
    dims = arr.shape[1:] if arr.ndim == 4 else arr.shape
    codes, _ = quantizer_for(bits).encode(arr, clip)
    code_path = out / input_code_file_name(layer, input_number, dims)
    twin_path = out / twin_file_name(layer, input_number, dims)
    code_path.write_bytes(format_codes(codes, bits))
    twin_path.write_bytes(cpp_stream_text(decode_codes(codes, clip, bits)))
    return code_path, twin_path

"""Dump writers in the exact real formats (``docs/field-facts.md`` §10): RuyiStudio Caffe text,
mapper_quant hex and dequantized inputs, instruction-simulator hex, and the generic ``.npy`` /
``.npz`` / ``.bin`` / text forms. File names come from :mod:`nnie_lsp.readers.dumpio.names`, so every file
written here reads back through :func:`~nnie_lsp.readers.dumpio.scan.scan_dumps` with the same name, shape
and values (fixed point: to the nearest 1/4096; the mapper's dequantized text: to six significant
digits of the float32 value).

The forms, byte for byte:

* RuyiStudio / numpy ``savetxt`` (Caffe side, §10.3): ``%.18e`` of each value, ``\n`` after each;
  or nnie-triage's compact exact form of the same dump (float32 in a ``.npz``, :mod:`.compact`).
* nnie_mapper's dequantized text (``…_anti_quant[.linear].float``, §16.5): what a C++
  ``std::ofstream << float_value << "\n"`` writes -- the float promoted to double and printed as
  ``%g`` with the stream's default precision 6: ``0.353553``, ``0.0743254``, ``0.25``, ``0``,
  ``-0``, ``1.5e-05``, ``1.23457e+06``; glibc spells the non-finite values ``inf``, ``-inf``,
  ``nan`` and ``-nan`` (a NaN with its sign bit set) (:func:`cpp_stream_text`).
* hex words (mapper_quant outputs, simulator and board, §10.2): ``%08x`` of the two's-complement
  int32, lower case, ``\n`` after each.
"""

from __future__ import annotations

import os

import numpy as np

from nnie_lsp.readers.dumpio.names import (
    bin_file_name,
    inst_file_name,
    mapper_input_file_name,
    mapper_quant_file_name,
    npy_file_name,
    ruyi_caffe_file_name,
    safe_name,
    text_file_name,
)
from nnie_lsp.readers.dumpio.readers import FRAC_BITS

__all__ = [
    "write_ruyi_caffe",
    "write_mapper_quant",
    "write_mapper_input",
    "write_inst",
    "write_hex",
    "write_npy",
    "write_npz",
    "write_bin",
    "write_text",
    "cpp_stream_text",
]


def _savetxt_e18(path: str, flat: np.ndarray) -> None:
    # numpy savetxt default: fmt '%.18e', one value per row, '\n'
    np.savetxt(path, np.asarray(flat, dtype=np.float64).reshape(-1), fmt="%.18e")


def cpp_stream_text(values) -> bytes:
    """``values`` as float32, one a line, the way C++'s ``std::ostream << float << "\n"`` writes
    them: the float promoted to double, ``%g`` with precision 6 (``'%.6g' % float(f32)``, which
    CPython rounds as glibc does: correctly, ties to even), ``-0`` for negative zero, and glibc's
    ``inf`` / ``-inf`` / ``nan`` / ``-nan``. Each distinct float32 is formatted once (a dequantized
    8-bit tensor holds at most 256 of them)."""
    flat = np.ascontiguousarray(np.asarray(values, dtype=np.float32).reshape(-1))
    if flat.size == 0:
        return b""
    bits, inverse = np.unique(flat.view(np.uint32), return_inverse=True)  # -0 and 0 kept apart
    texts = [_cpp_float(float(v)) for v in bits.view(np.float32)]
    return ("\n".join(np.asarray(texts, dtype=object)[inverse.reshape(-1)].tolist()) + "\n").encode("ascii")


def _cpp_float(value: float) -> str:
    if value != value:  # NaN: glibc prints the sign bit
        return "-nan" if np.signbit(value) else "nan"
    return "%.6g" % value


def _in_dir(dirpath, file_name: str) -> str:
    os.makedirs(dirpath, exist_ok=True)
    return os.path.join(os.fspath(dirpath), file_name)


def write_ruyi_caffe(dirpath, blob: str, array, n: int = 0, form: str = "text", writer=None) -> str:
    """RuyiStudio ``CNN_convert_bin_and_print_featuremap.py`` naming for one batch item:
    ``array`` is (C,H,W), (C,H), (C,) or a scalar-like 1-D item; values ``%.18e`` one per line
    (``form`` ``text``), or the compact exact form (``form`` ``compact``, :mod:`.compact`: the same
    name ending ``.npz``; ``writer`` a :class:`~.compact.CompactWriter` to compress on its threads)."""
    arr = np.asarray(array)
    shape = arr.shape
    if arr.ndim == 4:
        if shape[0] != 1:
            raise ValueError("write one batch item at a time (pass array[n] and n)")
        shape = shape[1:]
    if arr.ndim == 1 and arr.size == 1:
        shape = ()
    path = _in_dir(dirpath, ruyi_caffe_file_name(blob, n, shape, form))
    if form == "compact":
        from nnie_lsp.readers.dumpio import compact

        values = arr.reshape(shape) if shape else arr.reshape(-1)
        return writer.write(path, values) if writer is not None else compact.write(path, values)
    _savetxt_e18(path, arr)
    return path


def _hex_lines(arr: np.ndarray, frac_bits: int = FRAC_BITS) -> bytes:
    fixed = np.round(np.asarray(arr, dtype=np.float64).reshape(-1) * (1 << frac_bits))
    fixed = np.clip(fixed, -(2**31), 2**31 - 1).astype(np.int64)
    words = (fixed & 0xFFFFFFFF).astype(np.uint32)
    big_endian = words.astype(">u4").view(np.uint8).reshape(-1, 4)
    digits = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
    out = np.empty((big_endian.shape[0], 9), dtype=np.uint8)
    out[:, 0:8:2] = digits[big_endian >> 4]
    out[:, 1:8:2] = digits[big_endian & 15]
    out[:, 8] = 10
    return out.tobytes()


def write_hex(path, array, frac_bits: int = FRAC_BITS) -> str:
    """``%08x`` two's-complement fixed-point words, one per line (round to nearest, saturating)."""
    with open(path, "wb") as f:
        f.write(_hex_lines(array, frac_bits))
    return os.fspath(path)


def _item_shape(arr: np.ndarray, dims_order: str) -> tuple[int, ...]:
    shape = arr.shape[1:] if arr.ndim == 4 and arr.shape[0] == 1 else arr.shape
    return tuple(reversed(shape)) if dims_order == "WHC" else tuple(shape)


def write_mapper_quant(dirpath, layer: str, array, output_number: int = 0, dims_order: str = "CHW") -> str:
    """``<layer>_output<k>_<d>_<d>_<d>_quant.linear.hex`` (20.12 ``%08x``), ``k`` = the layer's
    output number as the mapper writes it (0 for a single-output layer; 0, 1, … for Slice-like
    layers, ``docs/field-facts.md §16.1``). ``array`` is (C,H,W) (or (N,C,H,W) with N=1, or lower
    rank; a Permute's output in its permuted shape); values written flattened in that shape's
    order; with ``dims_order="WHC"`` only the name's dims are reversed."""
    if dims_order not in ("CHW", "WHC"):
        raise ValueError("dims_order must be 'CHW' or 'WHC'")
    arr = np.asarray(array)
    path = _in_dir(dirpath, mapper_quant_file_name(layer, output_number, _item_shape(arr, dims_order)))
    return write_hex(path, arr)


def write_mapper_input(dirpath, layer: str, array, input_id: int = 0, dims_order: str = "CHW", *,
                       linear: bool = True) -> str:
    """``<layer>_input<k>_<d>_<d>_<d>_anti_quant.linear.float`` (dequantized input, in the mapper's
    C++ stream form: the float32 value to six significant digits, :func:`cpp_stream_text`),
    ``k`` = ``input_id``, the layer's input number. ``linear=False`` writes the name real NNIE 1.1
    folders use, ``…_anti_quant.float`` (``docs/field-facts.md §16.1``, §16.5)."""
    arr = np.asarray(array)
    path = _in_dir(dirpath, mapper_input_file_name(layer, input_id, _item_shape(arr, dims_order), linear=linear))
    with open(path, "wb") as f:
        f.write(cpp_stream_text(arr))
    return path


def write_inst(dirpath, seg: int, node: int, array, k: int = 0) -> str:
    """``seg<s>_layer<node>_output<k>_inst.linear.hex`` (``%08x``, value × 4096, NCHW flatten)."""
    return write_hex(_in_dir(dirpath, inst_file_name(seg, node, k)), array)


def write_npy(dirpath, name: str, array) -> str:
    path = _in_dir(dirpath, npy_file_name(name))
    np.save(path, np.asarray(array))
    return path


def write_npz(path, arrays: dict) -> str:
    """One array per (blob) name; ``/`` kept inside the archive is replaced by ``_``."""
    path = os.fspath(path)
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    np.savez(path, **{safe_name(k): np.asarray(v) for k, v in arrays.items()})
    return path


def write_bin(dirpath, name: str, array, dtype: str = "float32") -> str:
    """Raw little-endian values with the shape in the name: ``<name>_<d>_<d>..._.bin``."""
    arr = np.asarray(array)
    path = _in_dir(dirpath, bin_file_name(name, arr.shape))
    np.ascontiguousarray(arr, dtype=np.dtype(dtype).newbyteorder("<")).tofile(path)
    return path


def write_text(dirpath, name: str, array, sep: str = "\n", fmt: str = "%.9g", with_shape: bool = True) -> str:
    """Plain text floats (``sep`` newline, space or comma) named ``<name>[_<dims>].txt``."""
    arr = np.asarray(array, dtype=np.float64)
    path = _in_dir(dirpath, text_file_name(name, arr.shape if with_shape else ()))
    body = sep.join(fmt % v for v in arr.reshape(-1))
    with open(path, "w") as f:
        f.write(body + "\n")
    return path

"""The tensors of a dump folder: :class:`DumpTensor` (one tensor, read lazily), :class:`DumpSet`
(what a folder scan found) and :func:`resolve_layout` (the (C, H, W) view of a dump whose name may
carry C_H_W or W_H_C dims, ``docs/field-facts.md`` §10.1).

Nothing is read until :meth:`DumpTensor.load` / :meth:`DumpTensor.load_raw`; binary files are
memory-mapped.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np

from nnie_lsp.readers.dumpio.forms import form_of
from nnie_lsp.readers.dumpio.readers import read_hex_words, read_text_floats

__all__ = ["DumpTensor", "DumpSet", "resolve_layout"]


@dataclass(frozen=True)
class DumpTensor:
    """One tensor found in a dump folder; nothing is read until :meth:`load`."""

    key: str
    raw_name: str
    path: str
    fmt: str
    shape: tuple[int, ...] | None = None
    dims_order: str | None = None
    role: str = "output"
    index: int = 0  # batch item (Caffe side), the layer's output / input number (mapper)
    seg: int | None = None
    node: int | None = None
    member: str | None = None  # array name inside an .npz
    alt_keys: tuple[str, ...] = ()  # other plausible keys when the name split was ambiguous
    file_dtype: str | None = None  # raw .bin element type ("float32", "uint8", ...)
    header_skip: bool = False  # text with a leading non-numeric header line
    position: int | None = None  # N of a ``layer<N>_`` name prefix (checked by the alignment)
    storage: str = "text"  # a Caffe dump's encoding: "text" (RuyiStudio) or "compact" (:mod:`.compact`)

    @property
    def label(self) -> str:
        """Short human name: file name (and npz member)."""
        base = os.path.basename(self.path)
        return f"{base}:{self.member}" if self.member else base

    def load_raw(self) -> np.ndarray:
        """Flat values as stored, without a float64 copy when the file is binary (memory-mapped)."""
        if self.storage == "compact":
            from nnie_lsp.readers.dumpio.compact import read as read_compact

            return read_compact(self.path)
        try:
            numbers = form_of(self.fmt).numbers
        except KeyError:
            raise ValueError(f"unknown dump format {self.fmt!r} for {self.path}") from None
        return _READERS[numbers](self)

    def size_hint(self) -> int | None:
        """Element count when it can be known without parsing the values."""
        if self.shape is not None:
            return math.prod(self.shape) if self.shape else 1
        return None

    def load(self) -> np.ndarray:
        """float64 values; reshaped to ``shape`` (as written) when the size matches, else flat.

        The data order of every NNIE / Caffe dump is NCHW flatten, so for a ``W_H_C`` mapper name
        use :func:`resolve_layout` to get the (C, H, W) view."""
        raw = self.load_raw()
        arr = np.asarray(raw, dtype=np.float64)
        if form_of(self.fmt).layout == "as stored" and self.shape is not None and arr.size == math.prod(self.shape):
            return arr.reshape(self.shape)
        shape = self.shape
        if shape and self.dims_order == "WHC" and len(shape) == 3:
            shape = tuple(reversed(shape))
        if shape is not None and arr.size == (math.prod(shape) if shape else 1) and shape:
            return arr.reshape(shape)
        return arr.reshape(-1)


def _read_text(t: DumpTensor) -> np.ndarray:
    return read_text_floats(t.path, skip_header=t.header_skip)


def _read_hex(t: DumpTensor) -> np.ndarray:
    if t.header_skip:  # MindSpore decimal text under a .hex name
        return read_text_floats(t.path, skip_header=True)
    return read_hex_words(t.path)


def _read_npy(t: DumpTensor) -> np.ndarray:
    return np.load(t.path, mmap_mode="r", allow_pickle=False).reshape(-1)


def _read_npz(t: DumpTensor) -> np.ndarray:
    with np.load(t.path, allow_pickle=False) as z:
        return np.asarray(z[t.member]).reshape(-1)


def _read_bin(t: DumpTensor) -> np.ndarray:
    dtype = np.dtype(t.file_dtype or "float32")
    if os.path.getsize(t.path) == 0:
        return np.zeros(0, dtype)
    return np.memmap(t.path, dtype=dtype, mode="r")


#: The reader of each number format (``DumpForm.numbers``, :data:`~nnie_lsp.readers.dumpio.forms.NUMBERS`).
_READERS = {"text": _read_text, "hex": _read_hex, "npy": _read_npy, "npz": _read_npz, "bin": _read_bin}


@dataclass(frozen=True)
class DumpSet:
    """Every tensor a scan found under ``root``, with what it could not read (``warnings``) and the
    dump family: "ruyi-caffe", "mapper_quant", "inst-sim", "generic", "mixed" or "empty"."""

    root: str
    tensors: tuple[DumpTensor, ...]
    warnings: tuple[str, ...] = ()
    kind: str = "generic"

    def outputs(self) -> tuple[DumpTensor, ...]:
        return tuple(t for t in self.tensors if t.role == "output")

    def inputs(self) -> tuple[DumpTensor, ...]:
        return tuple(t for t in self.tensors if t.role == "input")

    def by_key(self) -> dict[str, list[DumpTensor]]:
        out: dict[str, list[DumpTensor]] = {}
        for t in self.tensors:
            out.setdefault(t.key, []).append(t)
        return out

    def __len__(self) -> int:
        return len(self.tensors)


# --------------------------------------------------------------------------------------------
# layout
# --------------------------------------------------------------------------------------------
def resolve_layout(t: DumpTensor, expected_chw: tuple[int, ...] | None, arr: np.ndarray | None = None) -> tuple[np.ndarray, str]:
    """Load ``t`` (or use ``arr``) and return it as (C, H, W) given the expected shape, with a note
    saying which reading of the name's trailing dims was assumed.

    mapper_quant names may carry ``C_H_W`` or ``W_H_C``; the values are NCHW-flattened either way
    (``docs/field-facts.md`` §10.1), so only the reading of the name changes."""
    data = np.asarray(t.load() if arr is None else arr, dtype=np.float64)
    flat = data.reshape(-1)
    shape = tuple(t.shape) if t.shape else None
    if expected_chw is not None:
        exp = tuple(int(x) for x in expected_chw)
        while len(exp) > 1 and exp[0] == 1 and len(exp) > 3:
            exp = exp[1:]
        n_exp = math.prod(exp) if exp else 1
        if flat.size != n_exp:
            return data, (
                f"size {flat.size} does not match the expected shape {exp} ({n_exp} values); kept as written {shape}"
            )
        if shape is None:
            return flat.reshape(exp), f"no shape in the name; reshaped to the expected {exp}"
        sh = tuple(shape[1:]) if len(shape) == 4 and shape[0] == 1 else tuple(shape)
        dims_txt = "_".join(map(str, shape))
        squeeze = lambda s: tuple(x for x in s if x != 1)  # noqa: E731
        if sh == exp:
            extra = " (W_H_C would read the same: symmetric dims)" if tuple(reversed(sh)) == exp and len(sh) == 3 and sh[0] != sh[2] else ""
            if len(sh) == 3 and sh[0] == sh[2]:
                extra = " (C == W: the name cannot tell C_H_W from W_H_C; C_H_W assumed)"
            return flat.reshape(exp), f"name dims {dims_txt} read as C_H_W, matching the expected shape{extra}"
        if tuple(reversed(sh)) == exp:
            return flat.reshape(exp), (
                f"name dims {dims_txt} read as W_H_C (reverse of the expected C_H_W {exp}); values kept in NCHW order"
            )
        if squeeze(sh) == squeeze(exp):
            return flat.reshape(exp), f"name dims {dims_txt} equal the expected {exp} up to unit dims"
        return flat.reshape(exp), f"name dims {dims_txt} are neither C_H_W nor W_H_C of the expected {exp}; reshaped by size only"
    # no expectation: keep the name's order (C_H_W per the public table)
    if shape is not None and flat.size == math.prod(shape):
        order = t.dims_order or ("C_H_W" if len(shape) == 3 else None)
        return flat.reshape(shape), (
            f"no expected shape; name dims read as {order} (the only public table's order)" if form_of(t.fmt).whc_names
            else "as written"
        )
    return flat, "no shape known; flat"


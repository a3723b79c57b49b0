"""Folder scan: every tensor in a dump folder (and its direct sub-folders such as ``mapper_quant/``,
``output/``, ``ms/``), or in a single ``.npz`` / dump file, as a :class:`~nnie_lsp.readers.dumpio.tensor.DumpSet`.

Names are parsed by :mod:`nnie_lsp.readers.dumpio.names`; only what a name cannot tell is looked up in the
file: ``.npy`` / ``.npz`` array headers, a ``.bin`` file's size (element type and which reading of
the name's trailing numbers is the shape), the first line of ``.hex`` files (hex words or
MindSpore decimal text with a header). Values are loaded lazily. What cannot be read is reported
in :attr:`DumpSet.warnings`, never raised (a missing path raises ``FileNotFoundError``).
"""

from __future__ import annotations

import os
import zipfile
from typing import Iterable

import numpy as np

from nnie_lsp.readers.dumpio.forms import SKIP, TEXT_HEX, form_of
from nnie_lsp.readers.dumpio.names import DumpName, is_ignored_file, normalize_name, parse_dump_name
from nnie_lsp.readers.dumpio.readers import looks_like_hex_words, read_mindspore_header_shape
from nnie_lsp.readers.dumpio.tensor import DumpSet, DumpTensor

__all__ = ["scan_dumps"]

_BIN_DTYPES = ("float32", "uint8", "float64", "int32", "float16")


def _named_tensor(path: str, parsed: DumpName, _warnings: list[str]) -> list[DumpTensor]:
    """A form whose name tells everything the scan needs."""
    return [DumpTensor(key=parsed.key, raw_name=parsed.name, path=path, fmt=parsed.fmt, shape=parsed.shape,
                       dims_order=parsed.dims_order, role=parsed.role, index=parsed.index,
                       alt_keys=tuple(normalize_name(alt) for alt in parsed.alt_names),
                       position=parsed.position, storage=parsed.storage)]


def _npy_tensor(path: str, parsed: DumpName, warnings: list[str]) -> list[DumpTensor]:
    try:
        arr = np.load(path, mmap_mode="r", allow_pickle=False)
    except Exception as exc:  # noqa: BLE001 - report and continue
        warnings.append(f"{os.path.basename(path)}: unreadable .npy ({exc})")
        return []
    return [DumpTensor(key=parsed.key, raw_name=parsed.name, path=path, fmt="npy",
                       shape=tuple(int(x) for x in arr.shape), dims_order=None)]


def _npz_tensors(path: str, _parsed: DumpName, warnings: list[str]) -> list[DumpTensor]:
    try:
        with zipfile.ZipFile(path) as zf:
            members = [n[:-4] for n in zf.namelist() if n.endswith(".npy")]
        with np.load(path, allow_pickle=False) as archive:
            shapes = {}
            for member in members:
                shapes[member] = tuple(int(x) for x in archive[member].shape) if member in archive.files else None
    except Exception as exc:  # noqa: BLE001
        warnings.append(f"{os.path.basename(path)}: unreadable .npz ({exc})")
        return []
    return [
        DumpTensor(key=normalize_name(member), raw_name=member, path=path, fmt="npz", shape=shapes.get(member),
                   member=member)
        for member in members
    ]


def _bin_tensor(path: str, parsed: DumpName, warnings: list[str]) -> list[DumpTensor]:
    size = os.path.getsize(path)
    readings = parsed.readings
    chosen = None
    for name, dims in readings:
        if not dims:
            continue
        count = int(np.prod(dims))
        for dtype in _BIN_DTYPES:
            if count * np.dtype(dtype).itemsize == size:
                chosen = (name, dims, dtype)
                break
        if chosen:
            # a leading 1 may be N or the end of the name (conv1_1): keep the name when the
            # shorter split fits too; the other reading stays in alt_keys
            if len(dims) > 1 and dims[0] == 1:
                chosen = ("_".join([name, "1"]), dims[1:], dtype)
            break
    if chosen is None:
        base = os.path.basename(path)
        if size % 4 == 0:
            warnings.append(f"{base}: no shape in the name matches the file size; read as flat float32")
            chosen = (parsed.name, (), "float32")
        else:
            warnings.append(f"{base}: size {size} is not a whole number of float32 values and no shape in the "
                            "name fits; skipped")
            return []
    name, dims, dtype = chosen
    alts = tuple(normalize_name(other) for other, _dims in readings if other != name)
    return [DumpTensor(key=normalize_name(name), raw_name=name, path=path, fmt="bin", shape=dims or None,
                       dims_order="CHW" if len(dims) == 3 else None, alt_keys=alts, file_dtype=dtype)]


def _text_tensor(path: str, parsed: DumpName, _warnings: list[str]) -> list[DumpTensor]:
    if parsed.seg is not None:  # MindSpore fseg<s>(<idx>,<node>)_<name>.txt
        return [DumpTensor(key=parsed.key, raw_name=parsed.name, path=path, fmt="text", seg=parsed.seg,
                           node=parsed.node, header_skip=True)]
    (name, dims), *others = parsed.readings
    fmt = "text"
    if parsed.fmt == TEXT_HEX and looks_like_hex_words(path):
        fmt = "mapper-quant"
    return [DumpTensor(key=normalize_name(name), raw_name=name, path=path, fmt=fmt, shape=dims or None,
                       dims_order=None, alt_keys=tuple(normalize_name(other) for other, _dims in others))]


def _inst_tensor(path: str, parsed: DumpName, _warnings: list[str]) -> list[DumpTensor]:
    header = not looks_like_hex_words(path)  # MindSpore decimal text with a header line
    shape = read_mindspore_header_shape(path) if header else None
    return [DumpTensor(key=parsed.key, raw_name=parsed.name, path=path, fmt="inst", shape=shape,
                       dims_order="CHW" if shape else None, role=parsed.role, index=parsed.index, seg=parsed.seg,
                       node=parsed.node, header_skip=header)]


#: How the scan makes a form's tensors, by what it reads in the file (``DumpForm.looks_in``).
_LOOK_IN = {"nothing": _named_tensor, "inst": _inst_tensor, "npy": _npy_tensor, "npz": _npz_tensors,
            "bin": _bin_tensor, "text": _text_tensor}


def _tensors_in_file(path: str, warnings: list[str], skipped: list[str]) -> list[DumpTensor]:
    base = os.path.basename(path)
    parsed = parse_dump_name(base)
    if parsed is None:
        if not is_ignored_file(base):
            skipped.append(base)
        return []
    if parsed.fmt == SKIP:
        skipped.append(f"{base} ({parsed.skip_reason})")
        return []
    return _LOOK_IN[form_of(parsed.fmt).looks_in](path, parsed, warnings)


def _kind_of(tensors: Iterable[DumpTensor]) -> str:
    kinds = {form_of(fmt).family for fmt in {t.fmt for t in tensors}}
    if not kinds:
        return "empty"
    if len(kinds) == 1:
        return kinds.pop()
    return "mixed"


def _files_under(path: str) -> list[str]:
    files: list[str] = []
    if os.path.isdir(path):
        for entry in sorted(os.scandir(path), key=lambda e: e.name):
            if entry.is_file():
                files.append(entry.path)
            elif entry.is_dir() and not entry.name.startswith("."):
                for sub in sorted(os.scandir(entry.path), key=lambda e: e.name):
                    if sub.is_file():
                        files.append(sub.path)
    elif os.path.isfile(path):
        files.append(path)
    else:
        raise FileNotFoundError(f"dump path not found: {path}")
    return files


def scan_dumps(path) -> DumpSet:
    """Find every tensor in a dump folder (and its direct sub-folders), or in a single ``.npz`` /
    dump file. Reads names only (and array headers for ``.npy``/``.npz``); values are loaded
    lazily."""
    path = os.fspath(path)
    warnings: list[str] = []
    skipped: list[str] = []
    tensors: list[DumpTensor] = []
    for file_path in _files_under(path):
        tensors.extend(_tensors_in_file(file_path, warnings, skipped))
    # duplicates (same tensor in two sub-folders)
    seen: dict[tuple, DumpTensor] = {}
    unique: list[DumpTensor] = []
    for t in tensors:
        identity = (t.key, t.role, t.index, t.fmt, t.seg, t.node, t.member)
        if identity in seen:
            where = os.path.relpath(t.path, path) if os.path.isdir(path) else t.path
            warnings.append(f"duplicate dump for {t.raw_name!r}: {where} ignored, kept {os.path.basename(seen[identity].path)}")
            continue
        seen[identity] = t
        unique.append(t)
    if skipped:
        shown = ", ".join(skipped[:8]) + (f" and {len(skipped) - 8} more" if len(skipped) > 8 else "")
        warnings.append(f"{len(skipped)} file(s) not read as tensors: {shown}")
    if not unique:
        warnings.append(f"no dump tensors found in {path}")
    return DumpSet(root=path, tensors=tuple(unique), warnings=tuple(warnings), kind=_kind_of(unique))

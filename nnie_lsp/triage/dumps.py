"""Readers and writers for every dump format the triage sees (NNIE_REFERENCE §10).

* RuyiStudio Caffe side: ``<blob>_output<n>[_<C>[_<H>[_<W>]]]_caffe.linear.float`` — numpy
  ``savetxt`` defaults, ``%.18e`` one value per line, ``n`` = batch item.
* nnie_mapper ``mapper_quant/``: ``<layer>_output<id>_<d>_<d>_<d>_quant.linear.hex`` (``%08x``
  two's-complement 20.12 fixed point) and ``<layer>_input<id>_<d>_<d>_<d>_anti_quant.linear.float``;
  trailing dims C_H_W or W_H_C (decided by :func:`resolve_layout`).
* Instruction simulator / board: ``seg<s>_layer<node>_output<k>_inst.linear.hex`` (``%08x``, /4096,
  NCHW); MindSpore Lite variants ``seg<s>_layer<node>_input(<name>)_inst.linear.hex`` (decimal text,
  optional header) and ``fseg<s>(<idx>,<node>)_<name>.txt``.
* Generic: ``.npy``, ``.npz`` (one array per name), raw ``.bin`` with the shape in the name
  (float32; U8 when the file size says so), text floats (newline / space / comma separated).

Text and hex readers are vectorised (see ``benchmarks/bench_triage.py`` for ratios against
``numpy.loadtxt`` and an ``int(x, 16)`` loop); binary files are memory-mapped; nothing is read until
:meth:`DumpTensor.load` is called.
"""

from __future__ import annotations

import os
import re
import warnings
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Iterable

import numpy as np

from .names import normalize_name

__all__ = [
    "DumpTensor",
    "DumpSet",
    "scan_dumps",
    "parse_dump_name",
    "read_text_floats",
    "read_hex_words",
    "resolve_layout",
    "write_ruyi_caffe",
    "write_mapper_quant",
    "write_mapper_input",
    "write_inst",
    "write_npy",
    "write_npz",
    "write_bin",
    "write_text",
    "QUANT_BASE",
]

QUANT_BASE = 4096  # SAMPLE_SVP_NNIE_QUANT_BASE: 20.12 fixed point
FORMATS = ("ruyi-caffe", "mapper-quant", "mapper-input", "inst", "npy", "npz", "bin", "text")


# --------------------------------------------------------------------------------------------
# data model
# --------------------------------------------------------------------------------------------
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
    index: int = 0
    seg: int | None = None
    node: int | None = None
    member: str | None = None  # array name inside an .npz
    alt_keys: tuple[str, ...] = ()  # other plausible keys when the name split was ambiguous
    file_dtype: str | None = None  # raw .bin element type ("float32", "uint8", ...)
    header_skip: bool = False  # text with a leading non-numeric header line

    @property
    def label(self) -> str:
        """Short human name: file name (and npz member)."""
        base = os.path.basename(self.path)
        return f"{base}:{self.member}" if self.member else base

    def load_raw(self) -> np.ndarray:
        """Flat values as stored, without a float64 copy when the file is binary (memory-mapped)."""
        fmt = self.fmt
        if fmt in ("mapper-quant", "inst") and not self.header_skip:
            return read_hex_words(self.path)
        if fmt in ("ruyi-caffe", "mapper-input", "text"):
            return read_text_floats(self.path, skip_header=self.header_skip)
        if fmt == "inst":  # MindSpore decimal text under a .hex name
            return read_text_floats(self.path, skip_header=True)
        if fmt == "npy":
            return np.load(self.path, mmap_mode="r", allow_pickle=False).reshape(-1)
        if fmt == "npz":
            with np.load(self.path, allow_pickle=False) as z:
                return np.asarray(z[self.member]).reshape(-1)
        if fmt == "bin":
            dtype = np.dtype(self.file_dtype or "float32")
            if os.path.getsize(self.path) == 0:
                return np.zeros(0, dtype)
            return np.memmap(self.path, dtype=dtype, mode="r")
        raise ValueError(f"unknown dump format {fmt!r} for {self.path}")

    def size_hint(self) -> int | None:
        """Element count when it can be known without parsing the values."""
        if self.shape is not None:
            return int(np.prod(self.shape)) if self.shape else 1
        return None

    def load(self) -> np.ndarray:
        """float64 values; reshaped to ``shape`` (as written) when the size matches, else flat.

        The data order of every NNIE / Caffe dump is NCHW flatten, so for a ``W_H_C`` mapper name
        use :func:`resolve_layout` to get the (C, H, W) view."""
        raw = self.load_raw()
        arr = np.asarray(raw, dtype=np.float64)
        if self.fmt in ("npy", "npz") and self.shape is not None and arr.size == int(np.prod(self.shape)):
            return arr.reshape(self.shape)
        shape = self.shape
        if shape and self.dims_order == "WHC" and len(shape) == 3:
            shape = tuple(reversed(shape))
        if shape is not None and arr.size == (int(np.prod(shape)) if shape else 1) and shape:
            return arr.reshape(shape)
        return arr.reshape(-1)


@dataclass(frozen=True)
class DumpSet:
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
# fast text floats
# --------------------------------------------------------------------------------------------
_U = np.uint64
_M8, _M16, _M32 = _U(0x00FF00FF00FF00FF), _U(0x0000FFFF0000FFFF), _U(0xFFFFFFFF)
_ZEROS = _U(0x3030303030303030)
_HIGH = _U(0xF0F0F0F0F0F0F0F0)
_SIX = _U(0x0606060606060606)
_BLOCK = 1 << 19


def _swar8(w: np.ndarray) -> tuple[np.ndarray, bool]:
    """8 ASCII digits packed little-endian in a uint64 → their integer value; validity flag."""
    ok = bool(np.all((w & _HIGH) == _ZEROS) and np.all(((w + _SIX) & _HIGH) == _ZEROS))
    x = w - _ZEROS
    x = (x * _U(10) + (x >> _U(8))) & _M8
    x = (x * _U(100) + (x >> _U(16))) & _M16
    x = (x * _U(10000) + (x >> _U(32))) & _M32
    return x, ok


def _fixed_e_block(buf: np.ndarray, frac: int) -> np.ndarray | None:
    """Parse a block of ``%.{frac}e`` lines (each ending in ``\\n``); None if the block is not
    exactly in that format (caller falls back to the general parser)."""
    nl = np.flatnonzero(buf == 10)
    n = nl.size
    if n == 0:
        return np.zeros(0)
    st = np.empty(n, np.int64)
    st[0] = 0
    st[1:] = nl[:-1] + 1
    neg = buf[st] == 45
    s2 = st + neg
    ep = s2 + frac + 2
    elen = nl - ep - 2
    if elen.min() < 2 or elen.max() > 3:
        return None
    if not (np.all(buf[s2 + 1] == 46) and np.all(buf[ep] == 101)):
        return None
    esign = buf[ep + 1]
    if not np.all((esign == 43) | (esign == 45)):
        return None
    d0 = buf[s2].astype(np.int64) - 48
    if d0.min() < 0 or d0.max() > 9:
        return None
    words = np.ndarray(shape=(buf.size - 7,), dtype="<u8", buffer=buf, strides=(1,))
    a, ok1 = _swar8(words[s2 + 2])
    b, ok2 = _swar8(words[s2 + 10])
    if not (ok1 and ok2):
        return None
    e1 = buf[ep + 2].astype(np.int64) - 48
    e2 = buf[ep + 3].astype(np.int64) - 48
    e = e1 * 10 + e2
    m3 = elen == 3
    if m3.any():
        e3 = buf[np.minimum(ep + 4, buf.size - 1)].astype(np.int64) - 48
        e = np.where(m3, e * 10 + e3, e)
        if np.any(m3 & ((e3 < 0) | (e3 > 9))):
            return None
    if e1.min() < 0 or e1.max() > 9 or e2.min() < 0 or e2.max() > 9:
        return None
    e = np.where(esign == 45, -e, e)
    mant = d0.astype(np.float64) * 1e16 + a.astype(np.float64) * 1e8 + b.astype(np.float64)
    p = e - 16
    # scale by table lookups (np.power is the slowest step): multiply by 10^p for p >= 0, divide
    # by 10^-p for p < 0 (dividing by an exact power keeps the result correctly rounded)
    idx = np.clip(p, -_P10_SPAN, _P10_SPAN) + _P10_SPAN
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        v = mant * _P10_MUL[idx] / _P10_DIV[idx]
        big = p < -308  # subnormal range: divide in two steps
        if big.any():
            v = np.where(big, mant / 1e300 / 10.0 ** np.minimum(-p - 300, 308), v)
    return np.where(neg, -v, v)


_P10_SPAN = 330
_P10_EXP = np.arange(-_P10_SPAN, _P10_SPAN + 1)
with np.errstate(over="ignore"):
    _P10_MUL = np.where(_P10_EXP >= 0, 10.0 ** np.minimum(np.maximum(_P10_EXP, 0), 308), 1.0)
    _P10_DIV = np.where(_P10_EXP < 0, 10.0 ** np.minimum(np.maximum(-_P10_EXP, 0), 308), 1.0)
_P10_MUL[_P10_EXP > 308] = np.inf


def _block_bounds(data: bytes, block: int) -> list[tuple[int, int]]:
    out = []
    a, n = 0, len(data)
    while a < n:
        b = min(n, a + block)
        if b < n:
            j = data.find(b"\n", b)
            b = n if j < 0 else j + 1
        out.append((a, b))
        a = b
    return out


def _parse_fixed_e(data: bytes) -> np.ndarray | None:
    """Fast path for numpy ``savetxt`` default output (``%.18e`` one per line)."""
    first_nl = data.find(b"\n")
    line = data[: first_nl if first_nl >= 0 else len(data)]
    body = line[1:] if line[:1] == b"-" else line
    epos = body.find(b"e")
    if epos < 18 or body[1:2] != b".":
        return None
    frac = epos - 2
    if frac < 16:
        return None
    buf = np.frombuffer(data, dtype=np.uint8)
    bounds = _block_bounds(data, _BLOCK)
    work = lambda ab: _fixed_e_block(buf[ab[0] : ab[1]], frac)  # noqa: E731
    if len(bounds) > 2 and (os.cpu_count() or 1) > 1:
        with ThreadPoolExecutor(min(4, os.cpu_count() or 1)) as ex:
            parts = list(ex.map(work, bounds))
    else:
        parts = [work(ab) for ab in bounds]
    if any(p is None for p in parts):
        return None
    return np.concatenate(parts) if parts else np.zeros(0)


_SEP_TABLE = bytes.maketrans(b",;\t\r", b"    ")


def _parse_general(data: bytes, path: str) -> np.ndarray:
    text = data.translate(_SEP_TABLE)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            out = np.fromstring(text, dtype=np.float64, sep=" ")  # C tokenizer, whitespace separated
        except (DeprecationWarning, ValueError):
            out = None
    if out is not None and (out.size or not text.strip()):
        return out
    tokens = text.split()
    if not tokens:
        return np.zeros(0)
    vals = []
    for i, tok in enumerate(tokens):
        try:
            vals.append(float(tok))
        except ValueError:
            raise ValueError(f"{path}: token {i + 1} is not a number: {tok[:40]!r}") from None
    return np.array(vals, dtype=np.float64)


def read_text_floats(path, *, skip_header: bool = False) -> np.ndarray:
    """All numbers of a text file (newline, space, comma, tab or semicolon separated) as float64.

    ``%.18e`` one-per-line files (RuyiStudio / numpy ``savetxt``) take a vectorised fixed-width
    path; anything else goes through a bytes-level tokeniser. ``skip_header`` drops a first line
    that does not start with a number (MindSpore ``<name> 4 1 H W C`` headers)."""
    with open(path, "rb") as f:
        data = f.read()
    return parse_text_floats(data, path=str(path), skip_header=skip_header)


def parse_text_floats(data: bytes, *, path: str = "<bytes>", skip_header: bool = False) -> np.ndarray:
    first = data.find(b"\n")
    head = data[: first if first >= 0 else len(data)].strip()
    if head and not re.match(rb"^[-+.0-9]|^(nan|inf)", head, re.IGNORECASE):
        if not skip_header and not re.match(rb"^[A-Za-z_]", head):
            raise ValueError(f"{path}: not a text float file (starts with {head[:40]!r})")
        data = data[first + 1 :] if first >= 0 else b""
    if b"\r" in data:
        data = data.replace(b"\r", b"")
    if data[:1] in (b"\n", b" ", b"\t"):
        data = data.lstrip()
    if data and not data.endswith(b"\n"):
        data += b"\n"
    if not data[:4096].strip() and not data.strip():
        return np.zeros(0)
    fast = _parse_fixed_e(data)
    if fast is not None:
        return fast
    return _parse_general(data, path)


# --------------------------------------------------------------------------------------------
# hex words
# --------------------------------------------------------------------------------------------
_HEXLUT = np.full(256, 255, dtype=np.uint8)
for _i, _c in enumerate(b"0123456789abcdef"):
    _HEXLUT[_c] = _i
for _i, _c in enumerate(b"ABCDEF"):
    _HEXLUT[_c] = 10 + _i


def parse_hex_words(data: bytes, *, frac_bits: int = 12, path: str = "<bytes>") -> np.ndarray:
    if b"\r" in data:
        data = data.replace(b"\r", b"")
    if data[:1].isspace() or (data[-1:].isspace() and data[-1:] != b"\n") or data.endswith(b"\n\n"):
        data = data.strip() + b"\n"
    elif data and not data.endswith(b"\n"):
        data += b"\n"
    if not data.strip(b"\n"):
        return np.zeros(0)
    scale = float(2**frac_bits)
    if len(data) % 9 == 0:
        m = np.frombuffer(data, dtype=np.uint8).reshape(-1, 9)
        if np.all(m[:, 8] == 10):
            nib = _HEXLUT[m[:, :8]]
            if not np.any(nib == 255):
                packed = (nib[:, 0::2] << 4) | nib[:, 1::2]
                ints = np.ascontiguousarray(packed).view(">i4").reshape(-1)
                return ints.astype(np.float64) / scale
    # general path: tokens of any width, optional 0x / sign
    out = np.empty(0)
    toks = data.translate(_SEP_TABLE).split()
    vals = np.empty(len(toks), dtype=np.int64)
    for i, tok in enumerate(toks):
        try:
            v = int(tok, 16)
        except ValueError:
            raise ValueError(f"{path}: word {i + 1} is not hexadecimal: {tok[:40]!r}") from None
        if 0x80000000 <= v <= 0xFFFFFFFF:
            v -= 1 << 32
        vals[i] = v
    out = vals.astype(np.float64) / scale
    return out


def read_hex_words(path, frac_bits: int = 12) -> np.ndarray:
    """``%08x`` two's-complement int32 words, one per line → float64 value = int32 / 2**frac_bits
    (20.12 fixed point by default). Fixed-width files take a vectorised path."""
    with open(path, "rb") as f:
        data = f.read()
    return parse_hex_words(data, frac_bits=frac_bits, path=str(path))


def _looks_hex_words(path: str) -> bool:
    """True when the first line is one bare hex word (``%08x``); MindSpore's ``_inst.linear.hex``
    inputs hold decimal text with a header instead."""
    with open(path, "rb") as f:
        head = f.read(256)
    first = head.split(b"\n", 1)[0].strip()
    return bool(re.fullmatch(rb"(0[xX])?[0-9a-fA-F]{1,8}", first))


# --------------------------------------------------------------------------------------------
# file names
# --------------------------------------------------------------------------------------------
_RUYI_RE = re.compile(r"^(?P<name>.+?)_output(?P<n>\d+)(?P<dims>(?:_\d+)*)_caffe\.linear\.float$")
_MQ_OUT_RE = re.compile(r"^(?P<name>.+)_output(?P<n>\d+)(?P<dims>(?:_\d+)*)_quant\.linear\.hex$")
_MQ_IN_RE = re.compile(r"^(?P<name>.+)_input(?P<n>\d+)(?P<dims>(?:_\d+)*)_anti_quant\.linear\.float$")
_MQ_IN_NL_RE = re.compile(r"^(?P<name>.+)_input(?P<n>\d+)(?P<dims>(?:_\d+)*)_quant\.nonlinear\.hex$")
_INST_RE = re.compile(r"^seg(?P<seg>\d+)_layer(?P<node>\d+)_output(?P<n>\d+)_inst\.linear\.hex$")
_INST_IN_RE = re.compile(r"^seg(?P<seg>\d+)_layer(?P<node>\d+)_input(?:\((?P<name>.*)\)|(?P<n>\d+))_inst\.linear\.hex$")
_MS_OUT_RE = re.compile(r"^f?seg(?P<seg>\d+)\((?P<idx>\d+),(?P<node>\d+)\)_(?P<name>.+)\.txt$")
_PARAM_RE = re.compile(r"(_weight\.hex|_bias\.hex|_weight-anti\.float|_weight\.float|_bias\.float)$")
_SHAPE_X_RE = re.compile(r"^(?P<name>.+?)[_\-\[\(]?(?P<dims>\d+(?:x\d+)+)[\]\)]?$")
_TEXT_EXT = (".txt", ".float", ".csv", ".dat", ".linear", ".tsv")


def _dims(s: str) -> tuple[int, ...]:
    return tuple(int(x) for x in s.split("_") if x)


def _ruyi_split(stem: str) -> tuple[str, int, tuple[int, ...]] | None:
    """``<blob>_output<n>_<dims>`` with the LAST ``_output<n>`` followed only by digit groups."""
    m = re.match(r"^(?P<name>.+)_output(?P<n>\d+)(?P<dims>(?:_\d+)*)$", stem)
    if not m:
        return None
    return m.group("name"), int(m.group("n")), _dims(m.group("dims"))


def _shape_suffix_candidates(stem: str, max_dims: int = 4) -> list[tuple[str, tuple[int, ...]]]:
    """``conv1_1_64_56_56`` → [(name, dims)...] for every split of trailing ``_<int>`` groups into a
    name and up to ``max_dims`` dims, longest dims first; plus ``NxCxHxW`` forms."""
    m = _SHAPE_X_RE.match(stem)
    if m and m.group("name"):
        return [(m.group("name").rstrip("_-[("), tuple(int(x) for x in m.group("dims").split("x")))]
    parts = stem.split("_")
    k = 0
    while k < len(parts) - 1 and parts[len(parts) - 1 - k].isdigit():
        k += 1
    out = []
    for nd in range(min(k, max_dims), 0, -1):
        name = "_".join(parts[: len(parts) - nd])
        dims = tuple(int(x) for x in parts[len(parts) - nd :])
        if name:
            out.append((name, dims))
    out.append((stem, ()))
    return out


def parse_dump_name(filename: str) -> dict | None:
    """Classify a dump file name. Returns a dict with fmt, name, role, index, shape, seg, node,
    dims_order, or ``{"skip": reason}`` for known non-tensor files, or None when unknown."""
    base = os.path.basename(filename)
    m = _RUYI_RE.match(base)
    if m:
        split = _ruyi_split(base[: -len("_caffe.linear.float")])
        assert split is not None
        name, n, dims = split
        return dict(fmt="ruyi-caffe", name=name, role="output", index=n, shape=dims or None, dims_order="CHW" if len(dims) == 3 else None)
    m = _MQ_OUT_RE.match(base)
    if m:
        dims = _dims(m.group("dims"))
        return dict(fmt="mapper-quant", name=m.group("name"), role="output", index=int(m.group("n")), shape=dims or None, dims_order=None)
    m = _MQ_IN_RE.match(base)
    if m:
        dims = _dims(m.group("dims"))
        return dict(fmt="mapper-input", name=m.group("name"), role="input", index=int(m.group("n")), shape=dims or None, dims_order=None)
    if _MQ_IN_NL_RE.match(base):
        return {"skip": "quantized 8/16-bit log codes (quant.nonlinear.hex) need the layer clip to decode; the anti_quant.linear.float twin is used instead"}
    m = _INST_RE.match(base)
    if m:
        seg, node = int(m.group("seg")), int(m.group("node"))
        return dict(fmt="inst", name=f"seg{seg}_layer{node}", role="output", index=int(m.group("n")), shape=None, dims_order=None, seg=seg, node=node)
    m = _INST_IN_RE.match(base)
    if m:
        seg, node = int(m.group("seg")), int(m.group("node"))
        nm = m.group("name")
        return dict(fmt="inst", name=nm if nm else f"seg{seg}_layer{node}", role="input", index=int(m.group("n") or 0), shape=None, dims_order=None, seg=seg, node=node)
    m = _MS_OUT_RE.match(base)
    if m:
        return dict(fmt="text", name=m.group("name"), role="output", index=0, shape=None, dims_order=None, seg=int(m.group("seg")), node=int(m.group("node")))
    if _PARAM_RE.search(base):
        return {"skip": "mapper_param weights/bias (not an activation)"}
    low = base.lower()
    if low.endswith(".npy"):
        return dict(fmt="npy", name=base[:-4], role="output", index=0, shape=None, dims_order=None)
    if low.endswith(".npz"):
        return dict(fmt="npz", name=base[:-4], role="output", index=0, shape=None, dims_order=None)
    if low.endswith(".bin"):
        return dict(fmt="bin", name=base[:-4], role="output", index=0, shape=None, dims_order=None)
    for ext in _TEXT_EXT:
        if low.endswith(ext):
            stem = base[: -len(ext)]
            return dict(fmt="text", name=stem, role="output", index=0, shape=None, dims_order=None)
    if low.endswith(".hex"):
        return dict(fmt="text-hex", name=base[:-4], role="output", index=0, shape=None, dims_order=None)
    return None


# --------------------------------------------------------------------------------------------
# scanning
# --------------------------------------------------------------------------------------------
_IGNORE_FILES = re.compile(
    r"^(cnn_net_tree.*\.dot|RUNTIME\.txt|instruction\.txt|dout_nne_para\.txt|ibd_para\.txt|netmem_info\.data|"
    r"mapper_.*\.log|.*\.wk|.*\.cfg|.*\.prototxt|.*\.caffemodel|.*\.json|.*\.md|.*\.html?|.*\.ini|.*\.py|.*\.zip|"
    r"README.*|.*\.log|.*\.jpe?g|.*\.png|.*\.bmp)$",
    re.IGNORECASE,
)


def _generic_tensor(path: str, info: dict, warnings: list[str]) -> list[DumpTensor]:
    fmt, name = info["fmt"], info["name"]
    if fmt == "npy":
        try:
            arr = np.load(path, mmap_mode="r", allow_pickle=False)
        except Exception as exc:  # noqa: BLE001 - report and continue
            warnings.append(f"{os.path.basename(path)}: unreadable .npy ({exc})")
            return []
        return [DumpTensor(key=normalize_name(name), raw_name=name, path=path, fmt="npy", shape=tuple(int(x) for x in arr.shape), dims_order=None)]
    if fmt == "npz":
        try:
            with zipfile.ZipFile(path) as zf:
                members = [n[:-4] for n in zf.namelist() if n.endswith(".npy")]
            with np.load(path, allow_pickle=False) as z:
                shapes = {}
                for mname in members:
                    shapes[mname] = tuple(int(x) for x in z[mname].shape) if mname in z.files else None
        except Exception as exc:  # noqa: BLE001
            warnings.append(f"{os.path.basename(path)}: unreadable .npz ({exc})")
            return []
        return [
            DumpTensor(key=normalize_name(mname), raw_name=mname, path=path, fmt="npz", shape=shapes.get(mname), member=mname)
            for mname in members
        ]
    if fmt == "bin":
        size = os.path.getsize(path)
        cands = _shape_suffix_candidates(name)
        chosen = None
        for cname, dims in cands:
            if not dims:
                continue
            count = int(np.prod(dims))
            for dt in ("float32", "uint8", "float64", "int32", "float16"):
                if count * np.dtype(dt).itemsize == size:
                    chosen = (cname, dims, dt)
                    break
            if chosen:
                # a leading 1 may be N or the end of the name (conv1_1): keep the name when the
                # shorter split fits too; the other reading stays in alt_keys
                if len(dims) > 1 and dims[0] == 1:
                    shorter = "_".join([cname, "1"])
                    chosen = (shorter, dims[1:], dt)
                break
        if chosen is None:
            if size % 4 == 0:
                warnings.append(f"{os.path.basename(path)}: no shape in the name matches the file size; read as flat float32")
                chosen = (name, (), "float32")
            else:
                warnings.append(f"{os.path.basename(path)}: size {size} is not a whole number of float32 values and no shape in the name fits; skipped")
                return []
        cname, dims, dt = chosen
        alts = tuple(normalize_name(c) for c, d in cands if c != cname)
        return [DumpTensor(key=normalize_name(cname), raw_name=cname, path=path, fmt="bin", shape=dims or None, dims_order="CHW" if len(dims) == 3 else None, alt_keys=alts, file_dtype=dt)]
    if fmt in ("text", "text-hex"):
        if info.get("seg") is not None:
            return [DumpTensor(key=normalize_name(name), raw_name=name, path=path, fmt="text", seg=info["seg"], node=info["node"], header_skip=True)]
        cands = _shape_suffix_candidates(name, max_dims=4)
        cname, dims = cands[0]
        alts = tuple(normalize_name(c) for c, d in cands[1:])
        f = "text"
        if fmt == "text-hex":
            f = "mapper-quant" if _looks_hex_words(path) else "text"
        return [DumpTensor(key=normalize_name(cname), raw_name=cname, path=path, fmt=f, shape=dims or None, dims_order=None, alt_keys=alts)]
    return []


def _tensor_from_file(path: str, warnings: list[str], skipped: list[str]) -> list[DumpTensor]:
    base = os.path.basename(path)
    info = parse_dump_name(base)
    if info is None:
        if not _IGNORE_FILES.match(base):
            skipped.append(base)
        return []
    if "skip" in info:
        skipped.append(f"{base} ({info['skip']})")
        return []
    fmt = info["fmt"]
    if fmt in ("ruyi-caffe", "mapper-quant", "mapper-input"):
        return [
            DumpTensor(
                key=normalize_name(info["name"]),
                raw_name=info["name"],
                path=path,
                fmt=fmt,
                shape=info["shape"],
                dims_order=info["dims_order"],
                role=info["role"],
                index=info["index"],
            )
        ]
    if fmt == "inst":
        header = False
        if not _looks_hex_words(path):
            header = True  # MindSpore decimal text with a header line
        shape = None
        if header:
            with open(path, "rb") as f:
                first = f.readline().split()
            if len(first) >= 6 and not re.match(rb"^[-+.0-9]", first[0]) and all(x.isdigit() for x in first[-4:]):
                _n, h, w, c = (int(x) for x in first[-4:])
                shape = (c, h, w)
        return [
            DumpTensor(
                key=normalize_name(info["name"]),
                raw_name=info["name"],
                path=path,
                fmt="inst",
                shape=shape,
                dims_order="CHW" if shape else None,
                role=info["role"],
                index=info["index"],
                seg=info["seg"],
                node=info["node"],
                header_skip=header,
            )
        ]
    return _generic_tensor(path, info, warnings)


def _kind_of(tensors: Iterable[DumpTensor]) -> str:
    fmts = {t.fmt for t in tensors}
    kinds = set()
    for f in fmts:
        if f == "ruyi-caffe":
            kinds.add("ruyi-caffe")
        elif f in ("mapper-quant", "mapper-input"):
            kinds.add("mapper_quant")
        elif f == "inst":
            kinds.add("inst-sim")
        else:
            kinds.add("generic")
    if not kinds:
        return "empty"
    if len(kinds) == 1:
        return kinds.pop()
    return "mixed"


def scan_dumps(path: str) -> DumpSet:
    """Find every tensor in a dump folder (and its direct sub-folders such as ``mapper_quant/``,
    ``output/``, ``ms/``), or in a single ``.npz`` / dump file. Reads names only (and array headers
    for ``.npy``/``.npz``); values are loaded lazily."""
    path = os.fspath(path)
    warnings: list[str] = []
    skipped: list[str] = []
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
    tensors: list[DumpTensor] = []
    for fp in files:
        tensors.extend(_tensor_from_file(fp, warnings, skipped))
    # duplicates (same tensor in two sub-folders)
    seen: dict[tuple, DumpTensor] = {}
    unique: list[DumpTensor] = []
    for t in tensors:
        k = (t.key, t.role, t.index, t.fmt, t.seg, t.node, t.member)
        if k in seen:
            warnings.append(f"duplicate dump for {t.raw_name!r}: {os.path.relpath(t.path, path) if os.path.isdir(path) else t.path} ignored, kept {os.path.basename(seen[k].path)}")
            continue
        seen[k] = t
        unique.append(t)
    if skipped:
        shown = ", ".join(skipped[:8]) + (f" and {len(skipped) - 8} more" if len(skipped) > 8 else "")
        warnings.append(f"{len(skipped)} file(s) not read as tensors: {shown}")
    if not unique:
        warnings.append(f"no dump tensors found in {path}")
    return DumpSet(root=path, tensors=tuple(unique), warnings=tuple(warnings), kind=_kind_of(unique))


# --------------------------------------------------------------------------------------------
# layout
# --------------------------------------------------------------------------------------------
def resolve_layout(t: DumpTensor, expected_chw: tuple[int, ...] | None, arr: np.ndarray | None = None) -> tuple[np.ndarray, str]:
    """Load ``t`` (or use ``arr``) and return it as (C, H, W) given the expected shape, with a note
    saying which reading of the name's trailing dims was assumed.

    mapper_quant names may carry ``C_H_W`` or ``W_H_C``; the values are NCHW-flattened either way
    (NNIE_REFERENCE §10.1), so only the reading of the name changes."""
    data = np.asarray(t.load() if arr is None else arr, dtype=np.float64)
    flat = data.reshape(-1)
    shape = tuple(t.shape) if t.shape else None
    if expected_chw is not None:
        exp = tuple(int(x) for x in expected_chw)
        while len(exp) > 1 and exp[0] == 1 and len(exp) > 3:
            exp = exp[1:]
        n_exp = int(np.prod(exp)) if exp else 1
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
    if shape is not None and flat.size == int(np.prod(shape)):
        order = t.dims_order or ("C_H_W" if len(shape) == 3 else None)
        return flat.reshape(shape), (
            f"no expected shape; name dims read as {order} (the only public table's order)" if t.fmt == "mapper-quant" else "as written"
        )
    return flat, "no shape known; flat"


# --------------------------------------------------------------------------------------------
# writers (exact real formats)
# --------------------------------------------------------------------------------------------
def _safe(name: str) -> str:
    return name.replace("/", "_")


def _dims_str(shape: tuple[int, ...]) -> str:
    return "".join(f"_{int(d)}" for d in shape)


def _savetxt_e18(path: str, flat: np.ndarray) -> None:
    # numpy savetxt default: fmt '%.18e', one value per row, '\n'
    np.savetxt(path, np.asarray(flat, dtype=np.float64).reshape(-1), fmt="%.18e")


def write_ruyi_caffe(dirpath, blob: str, array, n: int = 0) -> str:
    """RuyiStudio ``CNN_convert_bin_and_print_featuremap.py`` naming for one batch item:
    ``array`` is (C,H,W), (C,H), (C,) or a scalar-like 1-D item; values ``%.18e`` one per line."""
    arr = np.asarray(array)
    shape = arr.shape
    if arr.ndim == 4:
        if shape[0] != 1:
            raise ValueError("write one batch item at a time (pass array[n] and n)")
        shape = shape[1:]
    dims = _dims_str(shape) if len(shape) >= 1 else ""
    if arr.ndim == 1 and arr.size == 1:
        dims = ""
    os.makedirs(dirpath, exist_ok=True)
    path = os.path.join(os.fspath(dirpath), f"{_safe(blob)}_output{n}{dims}_caffe.linear.float")
    _savetxt_e18(path, arr)
    return path


def _hex_lines(arr: np.ndarray, frac_bits: int = 12) -> bytes:
    fixed = np.round(np.asarray(arr, dtype=np.float64).reshape(-1) * (1 << frac_bits))
    fixed = np.clip(fixed, -(2**31), 2**31 - 1).astype(np.int64)
    words = (fixed & 0xFFFFFFFF).astype(np.uint32)
    be = words.astype(">u4").view(np.uint8).reshape(-1, 4)
    digits = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
    out = np.empty((be.shape[0], 9), dtype=np.uint8)
    out[:, 0:8:2] = digits[be >> 4]
    out[:, 1:8:2] = digits[be & 15]
    out[:, 8] = 10
    return out.tobytes()


def write_hex(path, array, frac_bits: int = 12) -> str:
    """``%08x`` two's-complement fixed-point words, one per line (round to nearest, saturating)."""
    with open(path, "wb") as f:
        f.write(_hex_lines(array, frac_bits))
    return os.fspath(path)


def write_mapper_quant(dirpath, layer: str, array, layer_id: int = 0, dims_order: str = "CHW") -> str:
    """``<layer>_output<id>_<d>_<d>_<d>_quant.linear.hex`` (20.12 ``%08x``). ``array`` is (C,H,W)
    (or (N,C,H,W) with N=1, or lower rank); values written NCHW-flattened; with
    ``dims_order="WHC"`` only the name's dims are reversed."""
    arr = np.asarray(array)
    shape = arr.shape[1:] if arr.ndim == 4 and arr.shape[0] == 1 else arr.shape
    if dims_order == "WHC":
        shape = tuple(reversed(shape))
    elif dims_order != "CHW":
        raise ValueError("dims_order must be 'CHW' or 'WHC'")
    os.makedirs(dirpath, exist_ok=True)
    path = os.path.join(os.fspath(dirpath), f"{_safe(layer)}_output{layer_id}{_dims_str(shape)}_quant.linear.hex")
    return write_hex(path, arr)


def write_mapper_input(dirpath, layer: str, array, input_id: int = 0, dims_order: str = "CHW") -> str:
    """``<layer>_input<id>_<d>_<d>_<d>_anti_quant.linear.float`` (dequantized input, ``%.18e``)."""
    arr = np.asarray(array)
    shape = arr.shape[1:] if arr.ndim == 4 and arr.shape[0] == 1 else arr.shape
    if dims_order == "WHC":
        shape = tuple(reversed(shape))
    os.makedirs(dirpath, exist_ok=True)
    path = os.path.join(os.fspath(dirpath), f"{_safe(layer)}_input{input_id}{_dims_str(shape)}_anti_quant.linear.float")
    _savetxt_e18(path, arr)
    return path


def write_inst(dirpath, seg: int, node: int, array, k: int = 0) -> str:
    """``seg<s>_layer<node>_output<k>_inst.linear.hex`` (``%08x``, value × 4096, NCHW flatten)."""
    os.makedirs(dirpath, exist_ok=True)
    path = os.path.join(os.fspath(dirpath), f"seg{int(seg)}_layer{int(node)}_output{int(k)}_inst.linear.hex")
    return write_hex(path, array)


def write_npy(dirpath, name: str, array) -> str:
    os.makedirs(dirpath, exist_ok=True)
    path = os.path.join(os.fspath(dirpath), f"{_safe(name)}.npy")
    np.save(path, np.asarray(array))
    return path


def write_npz(path, arrays: dict) -> str:
    """One array per (blob) name; ``/`` kept inside the archive is replaced by ``_``."""
    path = os.fspath(path)
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    np.savez(path, **{_safe(k): np.asarray(v) for k, v in arrays.items()})
    return path


def write_bin(dirpath, name: str, array, dtype: str = "float32") -> str:
    """Raw little-endian values with the shape in the name: ``<name>_<d>_<d>..._.bin``."""
    arr = np.asarray(array)
    os.makedirs(dirpath, exist_ok=True)
    path = os.path.join(os.fspath(dirpath), f"{_safe(name)}{_dims_str(arr.shape)}.bin")
    np.ascontiguousarray(arr, dtype=np.dtype(dtype).newbyteorder("<")).tofile(path)
    return path


def write_text(dirpath, name: str, array, sep: str = "\n", fmt: str = "%.9g", with_shape: bool = True) -> str:
    """Plain text floats (``sep`` newline, space or comma) named ``<name>[_<dims>].txt``."""
    arr = np.asarray(array, dtype=np.float64)
    os.makedirs(dirpath, exist_ok=True)
    dims = _dims_str(arr.shape) if with_shape and arr.ndim > 0 else ""
    path = os.path.join(os.fspath(dirpath), f"{_safe(name)}{dims}.txt")
    body = sep.join(fmt % v for v in arr.reshape(-1))
    with open(path, "w") as f:
        f.write(body + "\n")
    return path

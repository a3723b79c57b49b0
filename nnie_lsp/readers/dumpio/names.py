"""Dump file-name grammar: every naming form a dump folder holds, parsed once into a :class:`DumpName`.

Forms (``docs/field-facts.md`` §10 and §16.1):

* RuyiStudio Caffe side: ``<blob>_output<n>[_<C>[_<H>[_<W>]]]_caffe.linear.float`` (``n`` = batch
  item, ``/`` in blob names written as ``_``), and nnie-triage's compact exact form of it, the same
  name ending ``.npz`` (:mod:`.compact`); a public C++ dump program writes
  ``layer<i>_<layer>_output0_<C>_<H>_<W>_caffe.linear.float`` (1-based position prefix): the number
  goes to :attr:`DumpName.position` and the name without the prefix is kept as an alternative; only
  the alignment, holding the prototxt, can tell whether the number and the name agree.
* nnie_mapper ``mapper_quant/``: ``<layer>_output<k>_<d>_<d>_<d>_quant.linear.hex`` and
  ``<layer>_input<k>_<d>_<d>_<d>_anti_quant.linear.float`` (real NNIE 1.1 folders write
  ``…_anti_quant.float``, without ``.linear``). ``k`` is the layer's output (input) number, 0 for a
  single-output layer (``conv6_2_output0_256_10_10_…``), not a layer id; trailing dims C_H_W (W_H_C
  in some reports), and a Permute's output carries its permuted dims (SSD ``…_perm_output0_5_5_2``
  for a 2×5×5 blob after a (0,2,3,1) Permute). Not tensors the triage can read:
  ``…_quant.nonlinear.hex`` (8/16-bit log codes) and mapper_param weights/bias.
* Instruction simulator / board: ``seg<s>_layer<node>_output<k>_inst.linear.hex``; MindSpore Lite
  ``seg<s>_layer<node>_input(<name>)_inst.linear.hex`` and ``fseg<s>(<idx>,<node>)_<name>.txt``.
* Generic: ``.npy``, ``.npz``, raw ``.bin`` and text (``.txt .float .csv .dat .linear .tsv``) with
  the shape in the name (``_<d>`` groups or ``NxCxHxW``), ``.hex`` of unknown origin.

The ``*_file_name`` functions build the same forms for the writers, so reading and writing share this
one grammar. :func:`normalize_name` gives the key names are matched by.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from nnie_lsp.readers.dumpio.forms import FORMS, SKIP, TEXT_HEX

__all__ = [
    "DumpName",
    "FORMATS",
    "parse_dump_name",
    "is_ignored_file",
    "normalize_name",
    "safe_name",
    "dims_suffix",
    "ruyi_caffe_file_name",
    "CAFFE_DUMP_FORMS",
    "DEFAULT_CAFFE_DUMP_FORM",
    "is_caffe_dump_name",
    "mapper_quant_file_name",
    "mapper_input_file_name",
    "inst_file_name",
    "npy_file_name",
    "bin_file_name",
    "text_file_name",
]

# tensor formats a DumpTensor can have (:mod:`.forms`); parse_dump_name may also answer "text-hex" (a
# .hex file whose first line decides between mapper-quant words and text) or "skip" (a known
# non-tensor file)
FORMATS = tuple(form.key for form in FORMS)

ShapeReading = tuple[str, tuple[int, ...]]


@dataclass(frozen=True)
class DumpName:
    """What a dump file's name says, before anything is read."""

    fmt: str
    name: str  # tensor name as written (blob, layer, ``seg<s>_layer<node>``, npz stem, ...)
    role: str = "output"  # "output" or "input" (a layer's input dump)
    index: int = 0  # batch item (Caffe side), output / input number (mapper, simulator)
    shape: tuple[int, ...] | None = None  # dims written in the name
    dims_order: str | None = None  # "CHW" when the form fixes the order
    seg: int | None = None
    node: int | None = None
    readings: tuple[ShapeReading, ...] = ()  # generic names: (name, dims) splits, most dims first
    alt_names: tuple[str, ...] = ()  # other plausible tensor names (position prefix dropped)
    position: int | None = None  # N of a ``layer<N>_`` prefix (Caffe side), not yet checked
    skip_reason: str | None = None  # set when fmt == "skip"
    storage: str = "text"  # how the values are stored: "text", or "compact" (a Caffe dump's .npz, :mod:`.compact`)

    @property
    def key(self) -> str:
        return normalize_name(self.name)


# --------------------------------------------------------------------------------------------
# name keys
# --------------------------------------------------------------------------------------------
#: the suffixes the mapper gives a meaning on layer and blob names (``docs/field-facts.md`` §7.4; the
#: prototxt reader's ``MARK_SUFFIXES``, which the tests hold equal to these)
NAME_MARKS = ("_report", "_hp", "_cpu")
_SUFFIX_RE = re.compile("(?:" + "|".join(NAME_MARKS) + ")+$")


def normalize_name(name: str) -> str:
    """Key used for matching dump names with prototxt layers and blobs: ``/`` → ``_`` (the Caffe
    dump script's rewrite), surrounding blanks dropped, NNIE mark suffixes (``_report``, ``_hp``,
    ``_cpu``, also stacked like ``_hp_report``) stripped; ``:`` kept (``comp2:NET:conv1``)."""
    key = name.strip().replace("/", "_").replace("\\", "_")
    stripped = _SUFFIX_RE.sub("", key)
    return stripped if stripped else key


def safe_name(name: str) -> str:
    """A tensor name as dump writers put it in a file name (``/`` → ``_``)."""
    return name.replace("/", "_")


def dims_suffix(shape) -> str:
    """``(3, 4, 4)`` → ``_3_4_4``."""
    return "".join(f"_{int(d)}" for d in shape)


# --------------------------------------------------------------------------------------------
# building names (writers)
# --------------------------------------------------------------------------------------------
#: The forms of a Caffe-side dump (``reference --dump-format``): the compact exact one (the default,
#: :mod:`.compact`) and RuyiStudio's ``%.18e`` text; the file-name ending of each.
CAFFE_DUMP_FORMS = {"compact": "_caffe.linear.npz", "text": "_caffe.linear.float"}
DEFAULT_CAFFE_DUMP_FORM = "compact"


def ruyi_caffe_file_name(blob: str, item: int, shape, form: str = "text") -> str:
    """RuyiStudio's name of a blob's dump (``form`` ``text``), or the compact form's (``.npz``)."""
    return f"{safe_name(blob)}_output{int(item)}{dims_suffix(shape)}{CAFFE_DUMP_FORMS[form]}"


def is_caffe_dump_name(filename: str) -> bool:
    """A Caffe-side dump by its name, in either form."""
    return filename.endswith(tuple(CAFFE_DUMP_FORMS.values()))


def mapper_quant_file_name(layer: str, output_number: int, shape) -> str:
    """``output_number``: which output of the layer (0 for a single-output layer), as the mapper
    numbers them."""
    return f"{safe_name(layer)}_output{int(output_number)}{dims_suffix(shape)}_quant.linear.hex"


def mapper_input_file_name(layer: str, input_number: int, shape, *, linear: bool = True) -> str:
    """The documented ``…_anti_quant.linear.float`` form, or with ``linear=False`` the form real
    NNIE 1.1 folders hold (``…_anti_quant.float``)."""
    ext = "_anti_quant.linear.float" if linear else "_anti_quant.float"
    return f"{safe_name(layer)}_input{int(input_number)}{dims_suffix(shape)}{ext}"


def inst_file_name(seg: int, node: int, output: int = 0) -> str:
    return f"seg{int(seg)}_layer{int(node)}_output{int(output)}_inst.linear.hex"


def npy_file_name(name: str) -> str:
    return f"{safe_name(name)}.npy"


def bin_file_name(name: str, shape) -> str:
    return f"{safe_name(name)}{dims_suffix(shape)}.bin"


def text_file_name(name: str, shape) -> str:
    return f"{safe_name(name)}{dims_suffix(shape)}.txt"


# --------------------------------------------------------------------------------------------
# parsing names
# --------------------------------------------------------------------------------------------
_DIMS = r"(?P<dims>(?:_\d+)*)"
# greedy names: the LAST ``_output<n>`` / ``_input<n>`` followed only by digit groups splits the name
_RUYI_RE = re.compile(rf"^(?P<name>.+)_output(?P<n>\d+){_DIMS}_caffe\.linear\.(?P<ext>float|npz)$")
_MQ_OUT_RE = re.compile(rf"^(?P<name>.+)_output(?P<n>\d+){_DIMS}_quant\.linear\.hex$")
_MQ_IN_RE = re.compile(rf"^(?P<name>.+)_input(?P<n>\d+){_DIMS}_anti_quant(?:\.linear)?\.float$")
_MQ_IN_NL_RE = re.compile(rf"^(?P<name>.+)_input(?P<n>\d+){_DIMS}_quant\.nonlinear\.hex$")
_INST_RE = re.compile(r"^seg(?P<seg>\d+)_layer(?P<node>\d+)_output(?P<n>\d+)_inst\.linear\.hex$")
_INST_IN_RE = re.compile(r"^seg(?P<seg>\d+)_layer(?P<node>\d+)_input(?:\((?P<name>.*)\)|(?P<n>\d+))_inst\.linear\.hex$")
_MS_OUT_RE = re.compile(r"^f?seg(?P<seg>\d+)\((?P<idx>\d+),(?P<node>\d+)\)_(?P<name>.+)\.txt$")
_PARAM_RE = re.compile(r"(_weight\.hex|_bias\.hex|_weight-anti\.float|_weight\.float|_bias\.float)$")
_POSITION_PREFIX_RE = re.compile(r"^layer(?P<position>\d+)_(?P<rest>.+)$")
_SHAPE_X_RE = re.compile(r"^(?P<name>.+?)[_\-\[\(]?(?P<dims>\d+(?:x\d+)+)[\]\)]?$")
_TEXT_EXT = (".txt", ".float", ".csv", ".dat", ".linear", ".tsv")
_NONLINEAR_SKIP = ("quantized 8/16-bit log codes (quant.nonlinear.hex) need the layer clip to decode; "
                   "the anti_quant.linear.float twin is used instead")
_PARAM_SKIP = "mapper_param weights/bias (not an activation)"

# files that belong in a mapper / dump folder but hold no tensor: not even reported as skipped
_IGNORE_FILES = re.compile(
    r"^(cnn_net_tree.*\.dot|RUNTIME\.txt|instruction\.txt|dout_nne_para\.txt|ibd_para\.txt|netmem_info\.data|"
    r"mapper_.*\.log|.*\.wk|.*\.cfg|.*\.prototxt|.*\.caffemodel|.*\.json|.*\.md|.*\.html?|.*\.ini|.*\.py|.*\.zip|"
    r"README.*|.*\.log|.*\.jpe?g|.*\.png|.*\.bmp)$",
    re.IGNORECASE,
)


def is_ignored_file(filename: str) -> bool:
    """True for files a dump folder usually holds besides tensors (dot, logs, cfg, model, images)."""
    return bool(_IGNORE_FILES.match(os.path.basename(filename)))


def _position(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:  # more digits than Python converts
        return None


def _dims(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split("_") if x)


def shape_readings(stem: str, max_dims: int = 4) -> tuple[ShapeReading, ...]:
    """``conv1_1_64_56_56`` → every split of the trailing ``_<int>`` groups into a name and up to
    ``max_dims`` dims, most dims first, then the whole stem without dims; an ``NxCxHxW`` form gives
    its one reading."""
    m = _SHAPE_X_RE.match(stem)
    if m and m.group("name"):
        return ((m.group("name").rstrip("_-[("), tuple(int(x) for x in m.group("dims").split("x"))),)
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
    return tuple(out)


def _named_tensor_form(base: str) -> DumpName | None:
    m = _RUYI_RE.match(base)
    if m:
        dims = _dims(m.group("dims"))
        prefixed = _POSITION_PREFIX_RE.match(m.group("name"))
        return DumpName(fmt="ruyi-caffe", name=m.group("name"), index=int(m.group("n")), shape=dims or None,
                        dims_order="CHW" if len(dims) == 3 else None,
                        storage="compact" if m.group("ext") == "npz" else "text",
                        alt_names=(prefixed.group("rest"),) if prefixed else (),
                        position=_position(prefixed.group("position")) if prefixed else None)
    m = _MQ_OUT_RE.match(base)
    if m:
        dims = _dims(m.group("dims"))
        return DumpName(fmt="mapper-quant", name=m.group("name"), index=int(m.group("n")), shape=dims or None)
    m = _MQ_IN_RE.match(base)
    if m:
        dims = _dims(m.group("dims"))
        return DumpName(fmt="mapper-input", name=m.group("name"), role="input", index=int(m.group("n")),
                        shape=dims or None)
    if _MQ_IN_NL_RE.match(base):
        return DumpName(fmt=SKIP, name=base, skip_reason=_NONLINEAR_SKIP)
    m = _INST_RE.match(base)
    if m:
        seg, node = int(m.group("seg")), int(m.group("node"))
        return DumpName(fmt="inst", name=f"seg{seg}_layer{node}", index=int(m.group("n")), seg=seg, node=node)
    m = _INST_IN_RE.match(base)
    if m:
        seg, node = int(m.group("seg")), int(m.group("node"))
        return DumpName(fmt="inst", name=m.group("name") or f"seg{seg}_layer{node}", role="input",
                        index=int(m.group("n") or 0), seg=seg, node=node)
    m = _MS_OUT_RE.match(base)
    if m:
        return DumpName(fmt="text", name=m.group("name"), seg=int(m.group("seg")), node=int(m.group("node")))
    if _PARAM_RE.search(base):
        return DumpName(fmt=SKIP, name=base, skip_reason=_PARAM_SKIP)
    return None


def parse_dump_name(filename: str) -> DumpName | None:
    """Classify a dump file by its name (any directory part is ignored). Known non-tensor files
    give ``fmt == "skip"`` with the reason; None when the name is no dump form at all."""
    base = os.path.basename(filename)
    named = _named_tensor_form(base)
    if named is not None:
        return named
    low = base.lower()
    if low.endswith(".npy"):
        return DumpName(fmt="npy", name=base[:-4])
    if low.endswith(".npz"):
        return DumpName(fmt="npz", name=base[:-4])
    if low.endswith(".bin"):
        return DumpName(fmt="bin", name=base[:-4], readings=shape_readings(base[:-4]))
    for ext in _TEXT_EXT:
        if low.endswith(ext):
            stem = base[: -len(ext)]
            return DumpName(fmt="text", name=stem, readings=shape_readings(stem))
    if low.endswith(".hex"):
        return DumpName(fmt=TEXT_HEX, name=base[:-4], readings=shape_readings(base[:-4]))
    return None

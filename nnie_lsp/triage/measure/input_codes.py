"""8-bit (and 16-bit) quantized input dumps in a simulator folder: ``<layer>_input<k>_<C>_<H>_<W>_
quant.nonlinear.hex`` (docs/field-facts.md §10.1, §11, §16.5).

For each code file:

- with its dequantized twin (``…_anti_quant[.linear].float``) beside it: the clip is read off the
  pairs (:func:`nnie_lsp.emulation.codes.clip_from_twin`) and the two are checked against each
  other; the twin itself is the tensor the comparison reads, so nothing is added;
- without a twin, when the clip is known from an emulation of the same net (the manifest of an
  ``nnie-triage emulate`` folder records the clip of every blob it quantized): the codes are
  decoded and take the twin's place (a :class:`DecodedInputTensor`). Its cosine is exact; its
  absolute scale is as right as the emulated clip;
- otherwise it is not decoded, and the report says why.

:func:`decode_input_codes` returns the dump set with the decoded tensors added and one
:class:`CodeFileReport` per code file (JSON ``input_codes``, docs/triage-schema.md).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace

import numpy as np

from nnie_lsp.readers.dumpio.names import normalize_name
from nnie_lsp.readers.dumpio.readers import parse_text_floats
from nnie_lsp.readers.dumpio.tensor import DumpSet, DumpTensor

# the §10.1 name of a code file (dumpio's grammar knows it too, as a file it does not read)
_CODE_FILE_RE = re.compile(r"^(?P<layer>.+)_input(?P<n>\d+)(?P<dims>(?:_\d+)*)_quant\.nonlinear\.hex$")
#: How many values of a code file and its twin are checked against each other (their first ones).
CHECK_VALUES = 65536


@dataclass(frozen=True)
class DecodedInputTensor(DumpTensor):
    """A code file read as the dequantized layer input it encodes, under a known clip."""

    clip: float = 1.0
    bits: int = 8

    def load_raw(self) -> np.ndarray:
        from nnie_lsp.emulation.codes import decode_codes, read_codes

        codes, _bits = read_codes(self.path, self.bits)
        return decode_codes(codes, self.clip, self.bits)


@dataclass
class CodeFileReport:
    file: str
    layer: str
    input: int
    bits: int | None
    clip: float | None
    clip_source: str | None  # "dequantized twin" | "emulation"
    decoded: bool  # the codes themselves are read as the layer's input (no twin)
    twin_agrees: bool | None = None
    max_error: float | None = None
    reason: str | None = None  # why not decoded, or what to know about the values

    def to_json(self) -> dict:
        return {"file": self.file, "layer": self.layer, "input": self.input, "bits": self.bits,
                "clip": self.clip, "clip_source": self.clip_source, "decoded": self.decoded,
                "twin_agrees": self.twin_agrees, "max_error": self.max_error, "reason": self.reason}


def _code_files(root: str) -> list[str]:
    """Code files in ``root`` and its direct sub-folders (where :func:`scan_dumps` looks)."""
    out: list[str] = []
    if not os.path.isdir(root):
        return out
    folders = [root] + sorted(e.path for e in os.scandir(root) if e.is_dir() and not e.name.startswith("."))
    for folder in folders:
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            if entry.is_file() and _CODE_FILE_RE.match(entry.name):
                out.append(entry.path)
    return out


def _head_bytes(path: str, lines: int) -> bytes:
    with open(path, "rb") as f:
        data = f.read(lines * 32)
    cut = data.rfind(b"\n")
    out = data[: cut + 1] if cut >= 0 else data
    return b"\n".join(out.split(b"\n")[:lines]) + b"\n"


def _with_twin(path: str, twin: str, layer: str, number: int) -> CodeFileReport:
    from nnie_lsp.emulation.codes import CodeFileError, clip_from_twin, parse_codes

    name = os.path.basename(path)
    try:
        codes = parse_codes(_head_bytes(path, CHECK_VALUES), path)
        bits = 8 if codes.size and int(codes.max()) <= 0xFF else 16
        values = parse_text_floats(_head_bytes(twin, CHECK_VALUES), path=twin)
        size = min(codes.size, values.size)
        check = clip_from_twin(codes[:size], values[:size], bits)
    except (CodeFileError, ValueError, OSError) as exc:
        return CodeFileReport(name, layer, number, None, None, None, False,
                              reason=f"not checked against its twin {os.path.basename(twin)}: {exc}")
    reason = None if check.agrees else (
        f"the codes decoded under clip {check.clip:g} differ from the twin by up to {check.max_error:.3g} "
        "(more than its print rounding): the code file is not the §16.5 grid the decoder assumes")
    return CodeFileReport(name, layer, number, bits, check.clip, "dequantized twin", False,
                          twin_agrees=check.agrees, max_error=check.max_error, reason=reason)


def decode_input_codes(dumps: DumpSet, clips: dict[str, float] | None = None, graph=None,
                       clips_origin: str = "an emulation") -> tuple[DumpSet, list[CodeFileReport]]:
    """The dump set with the code files that have no twin but a known clip added as tensors, and
    a report per code file. ``clips``: blob -> clip (an emulation's); ``graph``: the prototxt's
    :class:`~nnie_lsp.readers.prototxt.graph.NetGraph`, which says which blob a layer's input k is."""
    from nnie_lsp.emulation.codes import CodeFileError, read_codes

    reports: list[CodeFileReport] = []
    added: list[DumpTensor] = []
    for path in _code_files(dumps.root):
        name = os.path.basename(path)
        m = _CODE_FILE_RE.match(name)
        layer, number = m.group("layer"), int(m.group("n"))
        dims = tuple(int(d) for d in m.group("dims").split("_") if d)
        folder = os.path.dirname(path)
        twin = next((os.path.join(folder, t) for t in _twin_names(name) if os.path.isfile(os.path.join(folder, t))),
                    None)
        if twin is not None:
            reports.append(_with_twin(path, twin, layer, number))
            continue
        blobs, why = _input_blobs(graph, layer, number)
        known = {clips.get(b) for b in blobs} if clips else {None}
        blob = blobs[0] if len(blobs) == 1 else None
        clip = next(iter(known)) if len(known) == 1 else None
        if clip is None:
            if why is None and len(blobs) > 1 and len(known) > 1:
                why = (f"no dequantized twin beside it, and the inputs of {layer!r} have different clips "
                       f"({', '.join(blobs)}); which one is input{number} is not known (§10.1)")
            reports.append(CodeFileReport(name, layer, number, None, None, None, False, reason=why or (
                "no dequantized twin beside it and no clip known for "
                f"{' / '.join(repr(b) for b in blobs)}: give --clips with an `nnie-triage emulate` folder of "
                "the same cfg, or keep the mapper's …_anti_quant.float files")))
            continue
        blob = blob or " / ".join(blobs)
        try:
            _codes, bits = read_codes(path)
        except CodeFileError as exc:
            reports.append(CodeFileReport(name, layer, number, None, clip, None, False, reason=str(exc)))
            continue
        added.append(DecodedInputTensor(key=normalize_name(layer), raw_name=layer, path=path, fmt="mapper-input",
                                        shape=dims or None, role="input", index=number, clip=clip, bits=bits))
        reports.append(CodeFileReport(name, layer, number, bits, clip, "emulation", True, reason=(
            f"decoded with the clip {clips_origin} calibrated for blob {blob!r}: the cosine is exact, the "
            "absolute scale as right as that clip (each step it is off scales every value by 2^(1/16))")))
    if added:
        dumps = replace(dumps, tensors=tuple(dumps.tensors) + tuple(added))
    return dumps, reports


def _twin_names(code_file: str) -> tuple[str, str]:
    from nnie_lsp.emulation.codes import code_file_twin_names

    return code_file_twin_names(code_file)


def _input_blobs(graph, layer: str, number: int) -> tuple[list[str], str | None]:
    """The blob(s) a layer's input ``number`` may read -- every bottom of a layer with several, as
    their input numbers need not follow the bottom order (§10.1) -- or ([], why not)."""
    if graph is None:
        return [], "no dequantized twin beside it, and without the prototxt the blob it reads is not known"
    found = graph.layer(layer) or graph.layer(normalize_name(layer))
    if found is None:
        return [], f"no dequantized twin beside it, and the prototxt has no layer {layer!r}"
    bottoms = list(found.bottoms)
    if number >= len(bottoms):
        return [], f"no dequantized twin beside it, and layer {layer!r} has no input {number}"
    return bottoms, None

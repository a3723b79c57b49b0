"""Fault injection for the verdict benchmark (``benchmarks/bench_verdicts.py``).

Everything here changes *inputs* of the triage — a cfg, a prototxt, a caffemodel copy, or dump
files through :mod:`nnie_lsp.readers.dumpio` — never the triage itself, so the benchmark measures what
``nnie-triage compare`` says about faults whose right answer is known.  The fault set is the
benchmark's own (other nets, layers, magnitudes and seeds than ``tests/triage/cases``), so that it
stays an honest measure of rules calibrated on the unit tests.

- :func:`write_cfg`: a mapper cfg (and its channel-mean file) from a :class:`Prep`;
- dump folders: :func:`scale_hex_dumps` (every hex word's value × a factor: a dump written with
  another number of fraction bits), :func:`hex_dumps_to_npy` (a user's own decoder with the wrong
  fraction bits, or inst words taken without the /4096, saved as ``.npy``), :func:`rewrite_hwc` (one
  layer's dump in H,W,C element order: a Permute the mapper inserted), :func:`replace_layer_dump`
  (one layer's dump taken from another run: an in-place layer the mapper split),
  :func:`nudge_channel` (scores near a decision threshold moved across it);
- prototxt: :func:`de_inplace` (an in-place layer given its own top), :func:`with_input_shape`;
- caffemodel copies: :func:`channel_tail` (one output channel × K and its consumer's input × 1/K:
  the float net is unchanged; K ≫ 1 gives the activation a long tail and the producer one weight
  channel far above the others, K ≪ 1 the consumer — what BN folding often leaves);
- generated nets: :func:`write_branchy_net` (Concat followed by an in-place ReLU);
- post-processing functions for ``--postprocess``: :func:`write_postprocess_module`.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np

from nnie_lsp.readers.dumpio.names import parse_dump_name
from nnie_lsp.readers.dumpio.readers import read_hex_words
from nnie_lsp.readers.dumpio.writers import write_hex

MANIFEST = "nnie-triage-dumps.json"


# ----------------------------------------------------------------------------- cfg

@dataclass(frozen=True)
class Prep:
    """A cfg's preprocessing: ``mean`` in the net's channel order (after RGB_order)."""

    rgb_order: str = "BGR"
    norm_type: int = 0
    mean: tuple[float, ...] | None = None
    data_scale: float | None = None

    def describe(self) -> str:
        parts = [f"RGB_order {self.rgb_order}", f"norm_type {self.norm_type}"]
        if self.mean is not None and self.norm_type in (2, 5):
            parts.append("mean " + ",".join(f"{v:g}" for v in self.mean))
        if self.data_scale is not None and self.norm_type in (3, 4, 5):
            parts.append(f"data_scale {self.data_scale:.10g}")
        return ", ".join(parts)


def write_cfg(path: str | Path, *, prototxt: str | Path, caffemodel: str | Path, prep: Prep,
              compile_mode: int = 0, image_list: str = "./images.txt") -> Path:
    """Write a mapper cfg (``[compile_mode]`` as given) and, for norm_type 2/5, its mean file
    ``<cfg stem>_mean.txt`` beside it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    mean_line = "null"
    if prep.norm_type in (2, 5):
        if prep.mean is None:
            raise ValueError(f"norm_type {prep.norm_type} needs a mean")
        mean_file = path.with_name(f"{path.stem}_mean.txt")
        mean_file.write_text("".join(f"{v:g}\n" for v in prep.mean), encoding="utf-8")
        mean_line = f"./{mean_file.name}"
    lines = [f"[prototxt_file] {prototxt}", f"[caffemodel_file] {caffemodel}", "[net_type] 0",
             f"[compile_mode] {compile_mode}", "[is_simulation] 0", "[instruction_name] ./inst",
             f"[RGB_order] {prep.rgb_order}", f"[image_list] {image_list}", "[image_type] 1",
             f"[norm_type] {prep.norm_type}", f"[mean_file] {mean_line}"]
    if prep.data_scale is not None and prep.norm_type in (3, 4, 5):
        lines.append(f"[data_scale] {prep.data_scale:.10g}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- dump folders

def _dump_files(folder: Path) -> Iterable[Path]:
    for root, _dirs, files in os.walk(folder):
        for name in sorted(files):
            yield Path(root) / name


def _target(src: Path, dst: Path, path: Path) -> Path:
    out = dst / path.relative_to(src)
    out.parent.mkdir(parents=True, exist_ok=True)
    return out


def copy_dumps(src: str | Path, dst: str | Path) -> Path:
    """A copy of a dump folder without nnie-triage's manifest (a folder other tools wrote)."""
    src, dst = Path(src), Path(dst)
    for path in _dump_files(src):
        if path.name != MANIFEST:
            shutil.copyfile(path, _target(src, dst, path))
    return dst


def _is_output_hex(name: str) -> bool:
    parsed = parse_dump_name(name)
    return parsed is not None and parsed.fmt in ("mapper-quant", "inst") and parsed.role != "input"


def scale_hex_dumps(src: str | Path, dst: str | Path, factor: float) -> dict:
    """Copy ``src`` to ``dst`` with every output hex word's value × ``factor``, re-encoded as 20.12
    ``%08x`` (what the triage then reads): × 16 is a dump written in 16.16 fixed point read as
    20.12.  Returns ``{files, saturated}`` (values beyond the int32 range are clipped, as a real
    word would be: then the fault is no longer one factor, and the caller should say so)."""
    src, dst = Path(src), Path(dst)
    files = saturated = 0
    limit = (2**31 - 1) / 4096.0
    for path in _dump_files(src):
        if path.name == MANIFEST:
            continue
        out = _target(src, dst, path)
        if _is_output_hex(path.name):
            values = read_hex_words(path) * factor
            saturated += int(np.count_nonzero(np.abs(values) > limit))
            write_hex(out, values)
            files += 1
        else:
            shutil.copyfile(path, out)
    return {"files": files, "saturated": saturated}


def hex_dumps_to_npy(src: str | Path, dst: str | Path, factor: float) -> dict:
    """``.npy`` files a user's own decoder would write from a dump folder, with every value ×
    ``factor`` (÷ 16: mapper words divided by 2^16 instead of 2^12; × 4096: inst words taken as
    plain integers, which no 20.12 word could hold again).  A mapper_quant output is named by its
    layer (``<layer>.npy``; ``<layer>_output<k>.npy`` for k > 0) and holds the shape its name
    gives; an inst output keeps its stem (``seg0_layer3_output0_inst.npy``) and stays flat, as the
    words carry no shape.  Returns ``{files}``."""
    src, dst = Path(src), Path(dst)
    files = 0
    for path in _dump_files(src):
        parsed = parse_dump_name(path.name)
        if parsed is None or parsed.fmt not in ("mapper-quant", "inst") or parsed.role == "input":
            continue
        values = read_hex_words(path) * factor
        if parsed.fmt == "inst":
            name = path.name[: -len(".linear.hex")]
        else:
            if parsed.shape and int(np.prod(parsed.shape)) == values.size:
                values = values.reshape(parsed.shape)
            name = parsed.name if not parsed.index else f"{parsed.name}_output{parsed.index}"
        out = _target(src, dst, path).with_name(f"{name}.npy")
        np.save(out, values.astype(np.float32))
        files += 1
    return {"files": files}


def _layer_file(folder: Path, layer: str) -> Path:
    for path in _dump_files(folder):
        parsed = parse_dump_name(path.name)
        if parsed is not None and parsed.fmt == "mapper-quant" and parsed.role != "input" and parsed.name == layer:
            return path
    raise FileNotFoundError(f"no mapper_quant dump of layer {layer!r} in {folder}")


def rewrite_hwc(src: str | Path, dst: str | Path, layer: str) -> Path:
    """Copy ``src`` with ``layer``'s dump written in H,W,C element order (its name keeps the C_H_W
    dims), as a Permute the mapper inserted after it leaves it."""
    src, dst = Path(src), Path(dst)
    copy_dumps(src, dst)
    path = _layer_file(dst, layer)
    parsed = parse_dump_name(path.name)
    if not parsed.shape or len(parsed.shape) != 3:
        raise ValueError(f"{path.name}: not a C,H,W dump")
    values = read_hex_words(path).reshape(parsed.shape)
    write_hex(path, np.ascontiguousarray(values.transpose(1, 2, 0)).reshape(-1))
    return path


def replace_layer_dump(base: str | Path, other: str | Path, dst: str | Path, layer: str) -> Path:
    """Copy ``base`` with ``layer``'s dump taken from ``other`` (another run of the net)."""
    base, other, dst = Path(base), Path(other), Path(dst)
    copy_dumps(base, dst)
    mine = _layer_file(dst, layer)
    theirs = _layer_file(other, layer)
    mine.unlink()
    shutil.copyfile(theirs, mine.with_name(theirs.name))
    return mine.with_name(theirs.name)


def nudge_channel(src: str | Path, dst: str | Path, layer: str, channel: int, threshold: float,
                  width: float) -> dict:
    """Copy ``src`` with the values of ``layer``'s ``channel`` that lie within ``width`` of
    ``threshold`` mirrored across it (a score that passed the threshold on one side fails on the
    other).  Returns ``{moved, size}``."""
    src, dst = Path(src), Path(dst)
    copy_dumps(src, dst)
    path = _layer_file(dst, layer)
    parsed = parse_dump_name(path.name)
    values = read_hex_words(path).reshape(parsed.shape)
    plane = values[channel]
    near = np.abs(plane - threshold) < width
    plane[near] = 2 * threshold - plane[near]
    write_hex(path, values.reshape(-1))
    return {"moved": int(np.count_nonzero(near)), "size": int(plane.size)}


# ----------------------------------------------------------------------------- prototxt

def _layer_blocks(text: str) -> list[tuple[int, int]]:
    """(start, end) of every top-level ``layer { … }`` / ``layers { … }`` block."""
    out = []
    for m in re.finditer(r"(?m)^\s*layers?\s*\{", text):
        depth, i = 0, m.end() - 1
        in_str = None
        while i < len(text):
            c = text[i]
            if in_str:
                if c == in_str:
                    in_str = None
            elif c in "\"'":
                in_str = c
            elif c == "#":
                i = text.find("\n", i)
                if i < 0:
                    break
            elif c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    out.append((m.start(), i + 1))
                    break
            i += 1
    return out


def _field(block: str, key: str) -> list[str]:
    return re.findall(rf'\b{key}\s*:\s*"([^"]*)"', block)


def de_inplace(text: str, layer: str, new_top: str | None = None) -> str:
    """``layer`` (an in-place layer) writes its own top ``new_top`` (default: the layer's name);
    the layers after it read that top instead of the shared blob."""
    new_top = new_top or layer
    blocks = _layer_blocks(text)
    out, last, blob, found = [], 0, None, False
    for start, end in blocks:
        block = text[start:end]
        names = _field(block, "name")
        if not found and names and names[0] == layer:
            tops, bottoms = _field(block, "top"), _field(block, "bottom")
            if not tops or tops[0] not in bottoms:
                raise ValueError(f"layer {layer!r} is not in place")
            blob = tops[0]
            block = re.sub(rf'(\btop\s*:\s*)"{re.escape(blob)}"', rf'\1"{new_top}"', block)
            found = True
        elif found:
            block = re.sub(rf'(\bbottom\s*:\s*)"{re.escape(blob)}"', rf'\1"{new_top}"', block)
        out.append(text[last:start])
        out.append(block)
        last = end
    if not found:
        raise ValueError(f"no layer {layer!r}")
    out.append(text[last:])
    return "".join(out)


def with_input_shape(text: str, shape: tuple[int, int, int, int]) -> str:
    """The prototxt with its (single) input's legacy ``input_dim`` ×4 or ``input_shape`` dims set."""
    dims = iter(shape)
    if re.search(r"\binput_dim\s*:", text):
        return re.sub(r"(\binput_dim\s*:\s*)\d+", lambda m: f"{m.group(1)}{next(dims)}", text, count=4)
    m = re.search(r"input_shape\s*\{[^}]*\}", text)
    if not m:
        raise ValueError("no input_dim / input_shape in the prototxt")
    body = re.sub(r"(\bdim\s*:\s*)\d+", lambda d: f"{d.group(1)}{next(dims)}", m.group(0))
    return text[:m.start()] + body + text[m.end():]


# ----------------------------------------------------------------------------- caffemodel copies

def _load_model(path: str | Path):
    from nnie_lsp.readers.caffemodel import caffe_pb2

    msg = caffe_pb2().NetParameter()
    msg.ParseFromString(Path(path).read_bytes())
    return msg


def _blob_array(blob) -> np.ndarray:
    shape = tuple(int(d) for d in blob.shape.dim) or tuple(
        int(d) for d in (blob.num, blob.channels, blob.height, blob.width) if d)
    return np.asarray(blob.data, dtype=np.float32).reshape(shape)


def _set_blob(blob, arr: np.ndarray) -> None:
    del blob.data[:]
    blob.data.extend(np.asarray(arr, dtype=np.float32).reshape(-1).tolist())


def _layers_by_name(msg) -> dict:
    return {layer.name: layer for layer in (list(msg.layer) or list(msg.layers))}


def channel_tail(src: str | Path, dst: str | Path, layer: str, consumer: str, channel: int,
                 factor: float) -> dict:
    """A copy of the caffemodel where ``layer``'s output ``channel`` is × ``factor`` (its weights
    and bias) and ``consumer`` (a Convolution reading it, through positively homogeneous layers:
    ReLU, PReLU, max pooling) reads that channel × 1/``factor``: the float net computes the same,
    but the activation between them has one channel ``factor`` times above the others — the long
    tail that makes one 8-bit clip too coarse for the rest."""
    msg = _load_model(src)
    layers = _layers_by_name(msg)
    producer, reader = layers[layer], layers[consumer]
    w = _blob_array(producer.blobs[0]).copy()
    w[channel] *= factor
    _set_blob(producer.blobs[0], w)
    if len(producer.blobs) > 1:
        b = _blob_array(producer.blobs[1]).copy().reshape(-1)
        b[channel] *= factor
        _set_blob(producer.blobs[1], b.reshape(_blob_array(producer.blobs[1]).shape))
    r = _blob_array(reader.blobs[0]).copy()
    if r.ndim != 4:
        raise ValueError(f"{consumer}: a Convolution consumer is needed, got weights of shape {r.shape}")
    r[:, channel] /= factor
    _set_blob(reader.blobs[0], r)
    Path(dst).write_bytes(msg.SerializeToString())
    return {"layer": layer, "consumer": consumer, "channel": channel, "factor": factor}


# ----------------------------------------------------------------------------- a generated net

def branchy_prototxt(*, size: int = 32, split: bool = False, name: str = "branchy") -> str:
    """conv1+relu → pool1 → (conv2a 1×1 | conv2b 3×3) → Concat ``cat2`` → in-place ReLU
    ``cat2_relu`` → conv3+relu → pool3 → conv4+relu → 1×1 ``head``.  ``split=True``: the ReLU after
    the Concat writes its own top (the de-inplaced net)."""
    cat_top = "cat2_relu" if split else "cat2"
    return "\n".join([
        f'name: "{name}"', 'input: "data"', f"input_shape {{ dim: 1 dim: 3 dim: {size} dim: {size} }}",
        'layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"',
        "  convolution_param { num_output: 16 kernel_size: 3 pad: 1 } }",
        'layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }',
        'layer { name: "pool1" type: "Pooling" bottom: "conv1" top: "pool1"',
        "  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }",
        'layer { name: "conv2a" type: "Convolution" bottom: "pool1" top: "conv2a"',
        "  convolution_param { num_output: 8 kernel_size: 1 } }",
        'layer { name: "conv2b" type: "Convolution" bottom: "pool1" top: "conv2b"',
        "  convolution_param { num_output: 8 kernel_size: 3 pad: 1 } }",
        'layer { name: "cat2" type: "Concat" bottom: "conv2a" bottom: "conv2b" top: "cat2" }',
        f'layer {{ name: "cat2_relu" type: "ReLU" bottom: "cat2" top: "{cat_top}" }}',
        f'layer {{ name: "conv3" type: "Convolution" bottom: "{cat_top}" top: "conv3"',
        "  convolution_param { num_output: 24 kernel_size: 3 pad: 1 } }",
        'layer { name: "relu3" type: "ReLU" bottom: "conv3" top: "conv3" }',
        'layer { name: "pool3" type: "Pooling" bottom: "conv3" top: "pool3"',
        "  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }",
        'layer { name: "conv4" type: "Convolution" bottom: "pool3" top: "conv4"',
        "  convolution_param { num_output: 24 kernel_size: 3 pad: 1 } }",
        'layer { name: "relu4" type: "ReLU" bottom: "conv4" top: "conv4" }',
        'layer { name: "head" type: "Convolution" bottom: "conv4" top: "head"',
        "  convolution_param { num_output: 6 kernel_size: 1 } }",
    ]) + "\n"


def _branchy_weights(seed: int) -> dict[str, list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    shapes = {"conv1": (16, 3, 3, 3), "conv2a": (8, 16, 1, 1), "conv2b": (8, 16, 3, 3),
              "conv3": (24, 16, 3, 3), "conv4": (24, 24, 3, 3), "head": (6, 24, 1, 1)}
    out = {}
    for name, shape in shapes.items():
        fan_in = shape[1] * shape[2] * shape[3]
        w = (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)
        b = (rng.standard_normal(shape[0]) * 0.1).astype(np.float32)
        out[name] = [w, b]
    return out


def write_branchy_net(folder: str | Path, *, seed: int = 21, size: int = 32) -> dict[str, Path]:
    """``branchy.prototxt`` (Concat + in-place ReLU), ``branchy_split.prototxt`` (the same net with
    that ReLU de-inplaced) and ``branchy.caffemodel`` (He-initialised from ``seed``).  The net is
    meant to be fed ``x / 255`` (norm_type 3, data_scale 1/255)."""
    from nnie_lsp.testing.hp_synthetic import conv_caffemodel_bytes

    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    proto = root / "branchy.prototxt"
    proto.write_text(branchy_prototxt(size=size), encoding="utf-8")
    split = root / "branchy_split.prototxt"
    split.write_text(branchy_prototxt(size=size, split=True), encoding="utf-8")
    model = root / "branchy.caffemodel"
    model.write_bytes(conv_caffemodel_bytes("branchy", _branchy_weights(seed)))
    return {"prototxt": proto, "split_prototxt": split, "caffemodel": model}


# ----------------------------------------------------------------------------- post-processing

#: Post-processing functions for ``--postprocess <file>:<function>``, written as their own file by
#: :func:`write_postprocess_module`.
POSTPROCESS_SOURCE = '''"""Post-processing for the verdict benchmark (written by nnie_lsp.testing.faults)."""
import numpy as np


def decode_face_score(outputs):
    """MTCNN R-Net / O-Net: the face / non-face probabilities (prob1) as a classification."""
    return {"scores": np.asarray(outputs["prob1"], dtype=np.float64).reshape(-1)}


def decode_concat(outputs):
    """Every final output, flattened and concatenated in name order (compared as arrays)."""
    parts = [np.asarray(outputs[k], dtype=np.float64).reshape(-1) for k in sorted(outputs)]
    return np.concatenate(parts) if parts else np.zeros(0)
'''


def write_postprocess_module(folder: str | Path) -> Path:
    """Write :data:`POSTPROCESS_SOURCE` as ``bench_postprocess.py`` in ``folder``."""
    path = Path(folder) / "bench_postprocess.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(POSTPROCESS_SOURCE, encoding="utf-8")
    return path

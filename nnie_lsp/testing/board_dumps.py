"""Board dump folders for tests, cases and benchmarks: what a board program writes
(``board_code/nnie_board_dump.c``'s forms, :func:`nnie_lsp.readers.dumpio.board.write_board_file`), faithful
or with ONE board-code mistake (docs/field-facts.md §20) injected:

- output faults: ``stride`` (the output's rows read W values apart and written -- printed, or as
  S32 words without padding: the first C·H·W words of the padded memory), ``x4096`` (the words printed without /4096), ``twice`` (divided
  twice), ``swap`` (two outputs' files exchanged), ``collision`` (outputs whose names agree in 31
  characters: every one of them gets the first one's values, as ``strncmp`` finds the first) and
  ``collision_file`` (the files named by the shared 31-character name: one file, the last
  written), ``truncated`` (the file ends early: W + 1 words short of C·H·W);
- input faults (the chip then computes on another input: :func:`chip_input` gives the planes the
  chip reads, which the caller runs the emulation on): ``hwc`` (a packed H,W,C buffer copied into
  the planes), ``rgb`` (channels 0 and 2 exchanged), ``input_stride`` (rows copied W bytes apart);
- run faults: ``stale`` (a second run whose output rows come partly from another input: a cache not
  invalidated) and ``thread`` (a second run with words another thread wrote).

Padding after each row holds seeded garbage words, as real blob memory holds whatever was there.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

import numpy as np

from nnie_lsp.readers.dumpio.board import blob_memory, to_words, write_board_file
from nnie_lsp.readers.wk import layout

INPUT_FAULTS = ("hwc", "rgb", "input_stride")
OUTPUT_FAULTS = ("stride", "x4096", "twice", "swap", "collision", "collision_file", "truncated")
RUN_FAULTS = ("stale", "thread")


@dataclass(frozen=True)
class Blob:
    """One node as the board holds it: its name (the file's), the name the `.wk` keeps, the shape
    (C, H, W) and the element size."""

    name: str
    shape: tuple[int, int, int]
    element_size: int = 4

    @property
    def stride(self) -> int:
        """Elements per row in memory (align16(W × element size) / element size)."""
        return layout.align16(self.shape[2] * self.element_size) // self.element_size

    @property
    def cut(self) -> str:
        return self.name.encode("utf-8")[: layout.NAME_KEPT].decode("utf-8", "ignore")


@dataclass
class BoardRunSpec:
    outputs: list[tuple[Blob, np.ndarray]]            # (blob, values (C, H, W) on the 20.12 grid)
    input: tuple[Blob, np.ndarray] | None = None      # (blob, U8 planes (C, H, W) as the board fed them)
    input_memory: np.ndarray | None = None            # the input blob's memory, when not the planes'
    form: str = "bin"
    fault: str | None = None
    fault_nodes: tuple[str, ...] = ()
    seed: int = 0
    files: list[str] = field(default_factory=list)


def _garbage(rng: np.random.Generator, rows: int, pad: int, like: np.ndarray) -> np.ndarray:
    big = int(max(1, np.max(np.abs(like)))) if like.size else 1
    return rng.integers(-big, big + 1, size=(rows, pad)).astype(like.dtype) if pad else np.zeros((rows, 0), like.dtype)


def memory_of(blob: Blob, words: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    c, h, w = blob.shape
    rows = np.asarray(words).reshape(c * h, w)
    return blob_memory(rows, blob.stride, _garbage(rng, c * h, blob.stride - w, rows))


def chip_input(planes: np.ndarray, fault: str | None, blob: Blob, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(the input blob's memory as the board code fills it, the planes the chip reads from it):
    :func:`nnie_lsp.triage.board.input_mistakes.as_fed` (the one definition of each input
    mistake), the memory beyond what the board wrote holding zeros (the SDK sample clears the
    blobs' memory when it allocates them)."""
    from nnie_lsp.triage.board.input_mistakes import as_fed

    return as_fed(planes, fault if fault in INPUT_FAULTS else None, blob.stride)


def write_run(folder: str, spec: BoardRunSpec) -> list[str]:
    """Write one run of ``spec`` into ``folder``; the paths written."""
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(spec.seed)
    files: list[str] = []
    outputs = list(spec.outputs)
    targets = set(spec.fault_nodes)
    if spec.fault == "swap":   # the file named a holds b's blob (its shape and values), and the other way
        (a, va), (b, vb) = [(x, v) for x, v in outputs if x.name in targets][:2]
        outputs = [(replace(b, name=a.name), vb) if x is a else (replace(a, name=b.name), va) if x is b else (x, v)
                   for x, v in outputs]
    if spec.fault == "collision":   # every output of the shared name gets the first one's blob
        first_blob, first = [(x, v) for x, v in outputs if x.name in targets][0]
        outputs = [(replace(first_blob, name=x.name), first) if x.name in targets else (x, v) for x, v in outputs]
    for k, (blob, values) in enumerate(outputs):
        words = to_words(values)
        memory = memory_of(blob, words, rng)
        name, form, width, stride = blob.name, spec.form, blob.shape[2], blob.stride
        if spec.fault == "collision_file" and blob.name in targets:
            name = blob.cut
        if blob.name in targets and spec.fault not in ("swap", "collision", "collision_file"):
            if spec.fault == "stride":
                # the board code read C·H·W words from the start of the padded memory: the values it printed
                c, h, w = blob.shape
                memory, width, stride = memory[: c * h * w].copy(), w, w     # .bin: those words, unpadded
            elif spec.fault == "truncated":   # the program stopped writing early: fewer words than the blob
                c, h, w = blob.shape
                memory, width, stride = memory[: c * h * w - w - 1].copy(), 1, 1
            elif spec.fault in ("x4096", "twice"):
                path = os.path.join(folder, f"{name}.txt")
                flat = memory.reshape(-1, stride)[:, :width].reshape(-1).astype(np.float64)
                factor = 1.0 if spec.fault == "x4096" else 1.0 / (layout.QUANT_BASE * layout.QUANT_BASE)
                with open(path, "w", encoding="ascii") as fh:
                    fh.write("".join(f"{x * factor:.9g}\n" for x in flat))
                files.append(path)
                continue
        files.append(write_board_file(folder, name, memory, width, stride, form))
    if spec.input is not None:
        blob, planes = spec.input
        memory = spec.input_memory if spec.input_memory is not None else memory_of(blob, planes.astype(np.uint8), rng)
        files.append(write_board_file(folder, blob.name, memory, blob.shape[2], blob.stride, "bin"))
    spec.files = files
    return files


def second_run(spec: BoardRunSpec, fault: str, other: list[np.ndarray] | None = None, seed: int = 1) -> BoardRunSpec:
    """A second run of one input: the same (faithful), or with ``stale`` rows (the first third of
    each output's rows from ``other``, another input's outputs) or ``thread`` words (a tenth of the
    words overwritten with values far above the range)."""
    rng = np.random.default_rng(seed)
    outputs = []
    for k, (blob, values) in enumerate(spec.outputs):
        v = np.array(values, dtype=np.float64, copy=True)
        if fault == "stale":
            src = np.asarray(other[k], dtype=np.float64) if other is not None else v[::-1].copy()
            rows = v.reshape(-1, v.shape[-1])
            cut = max(1, rows.shape[0] // 3)
            rows[:cut] = src.reshape(rows.shape)[:cut]
            v = rows.reshape(v.shape)
        elif fault == "thread":
            flat = v.reshape(-1)
            hit = rng.random(flat.size) < 0.1
            hit[int(rng.integers(flat.size))] = True          # at least one word of every output
            flat[hit] = rng.integers(1 << 20, 1 << 24, size=int(hit.sum())) / layout.QUANT_BASE
            v = flat.reshape(v.shape)
        outputs.append((blob, v))
    return BoardRunSpec(outputs=outputs, input=spec.input, input_memory=spec.input_memory, form=spec.form,
                        seed=spec.seed + 17)


def planes_of(value: np.ndarray) -> np.ndarray:
    """U8 planes standing for a normalized input in about ±1 (what a board feeds for it)."""
    return np.clip(np.rint((np.asarray(value, dtype=np.float64) + 1.0) * 127.5), 0, 255).astype(np.uint8)


def write_board_folder(folder: str, outputs: list[tuple[str, np.ndarray]], *, input: tuple[str, np.ndarray] | None = None,
                       fault: str | None = None, nodes: tuple[str, ...] = (), form: str = "bin", seed: int = 0,
                       other: list[np.ndarray] | None = None) -> list[str]:
    """A board folder for ``outputs`` ((name, values (C, H, W))) and, optionally, the U8 ``input``
    planes, with ``fault`` (module doc) on ``nodes``.  A run fault writes two runs (``run1/``,
    ``run2/``); an input fault changes only the input file (the caller computes the outputs the
    chip gives on :func:`chip_input`'s planes)."""
    blobs = [(Blob(name, tuple(v.shape[-3:]) if v.ndim >= 3 else (1, 1, int(v.size))), np.asarray(v).reshape(
        (1, 1, -1) if v.ndim < 3 else v.shape[-3:])) for name, v in outputs]
    spec_input = memory = None
    if input is not None:
        name, planes = input
        blob = Blob(name, tuple(planes.shape), 1)
        memory, seen = chip_input(planes, fault if fault in INPUT_FAULTS else None, blob, seed)
        spec_input = (blob, seen)
    spec = BoardRunSpec(outputs=blobs, input=spec_input, input_memory=memory, form=form,
                        fault=fault if fault in OUTPUT_FAULTS else None, fault_nodes=tuple(nodes), seed=seed)
    if fault in RUN_FAULTS:
        return write_run(os.path.join(folder, "run1"), spec) + write_run(
            os.path.join(folder, "run2"), second_run(spec, fault, other, seed + 1))
    return write_run(folder, spec)


def board_from_cfg(cfg: str, out: str, *, fault: str | None = None, nodes: tuple[str, ...] = (), form: str = "bin",
                   transpose: bool = False, with_input: bool = True, seed: int = 0,
                   outputs: tuple[str, ...] | None = None) -> dict:
    """A board folder for the cfg's net on the LAST image of its list (the one the mapper dumps),
    as a board program writes it, with ONE fault: the outputs are the NNIE emulation's (the chip's
    values; ``nnie-triage emulate`` runs the same emulation), on the planes the chip reads -- for an
    input fault those of :func:`chip_input`, the clips calibrated over the image and them (the
    `.wk`'s clips come from the image list).  ``outputs``: the blobs to dump (default: the net's
    outputs, :func:`nnie_lsp.readers.prototxt.nnie_ends.nnie_ends`, in order).  Returns what was written."""
    from nnie_lsp.emulation.emulate import EmulationOptions, emulate_images
    from nnie_lsp.project.project import cached_prototxt
    from nnie_lsp.readers.prototxt.nnie_ends import nnie_ends
    from nnie_lsp.reference.caffe_forward import prepare_inputs
    from nnie_lsp.reference.net import load_net, read_prototxt_text
    from nnie_lsp.reference.preprocess import load_image
    from nnie_lsp.reference.run_inputs import Overrides, load_run_inputs

    inputs = load_run_inputs(cfg, count=1, overrides=Overrides(transpose=transpose))
    net = load_net(inputs.prototxt, inputs.caffemodel)
    graph = cached_prototxt(read_prototxt_text(inputs.prototxt), str(inputs.prototxt))[1]
    image = inputs.images[-1].sources[0]
    name = graph.input_blobs[0]
    shape = graph.item_shape(name)
    prep = inputs.preprocessing[0]
    planes = load_image(image, shape, prep).astype(np.uint8)
    blob = Blob(name, tuple(shape), 1)
    memory, seen = chip_input(planes, fault if fault in INPUT_FAULTS else None, blob, seed)
    healthy = prepare_inputs(net, [image], inputs.preprocessing)
    images = [healthy] + ([prepare_inputs(net, [seen.astype(np.float32)], inputs.preprocessing)]
                          if fault in INPUT_FAULTS else [])
    runs = emulate_images(net, images, EmulationOptions())
    values = runs[-1].by_top()
    ends = nnie_ends(graph)
    order = list(outputs) if outputs else [t for layer in graph.layers for t in layer.tops if t in ends]
    order = list(dict.fromkeys(order))
    outs = [(b, np.asarray(values[b], dtype=np.float64)[0]) for b in order]
    other = None
    if fault == "stale":   # the rows a stale cache still holds: the outputs of another image (flipped)
        flipped = prepare_inputs(net, [planes[:, :, ::-1].astype(np.float32).copy()], inputs.preprocessing)
        other_run = emulate_images(net, [healthy, flipped], EmulationOptions())[-1].by_top()
        other = [np.asarray(other_run[b], dtype=np.float64)[0] for b in order]
    files = write_board_folder(out, outs, input=(name, planes) if with_input else None, fault=fault, nodes=nodes,
                               form=form, seed=seed, other=other)
    return {"files": files, "outputs": order, "input": name, "fault": fault, "nodes": list(nodes), "form": form}

"""Dump sets for the data-driven triage cases (``tests/triage/cases/*.toml``).

A case names its dump set by a *recipe* (a TOML table); :func:`build_dumps` writes it into the case
folder, next to the case's own files (``net.cfg``, ``net.prototxt``, mean files, …), as
``caffe/`` (RuyiStudio Caffe text), ``nnie/`` (the NNIE side) and, when asked, ``nnie16/`` (a 16-bit
run).  Three kinds:

``kind = "model"`` — a REAL Caffe net run twice, as in :mod:`nnie_lsp.testing.scenarios`: the
Caffe side is OpenCV's forward of the model's prototxt (``reference_net = "case"``: of the case's
``net.prototxt``, e.g. once a fix de-inplaced it) with the net's true preprocessing (``reference``:
default the model's own, or a table ``{norm_type, data_scale, mean = [..], rgb_order, transpose}``);
the NNIE side is the numpy NNIE emulation of the case's ``net.prototxt`` (``_hp`` names honoured)
with the model's weights, fed with **the preprocessing the case's cfg says** (read as the lint reads
it) — so a wrong cfg line is the injected fault, the triage must point back at it, and the same
recipe built again on the fixed files shows whether the fix worked.  Keys: ``model`` (``det1``:
tests/data/triage/mtcnn; ``det2``: the shared corpus, :class:`RecipeUnavailable` without it;
``deep``: :mod:`.hp_synthetic`'s net with an 8-bit bottleneck at conv9), ``emulation``
(:class:`~nnie_lsp.emulation.emulate.EmulationOptions` fields, lists for the layer sets), ``sim16``
(options of a second run, e.g. ``{bits = 16}``), ``format`` (``mapper_quant`` | ``inst``),
``transpose`` (the NNIE side's H/W swap; default: the reference's — a cfg cannot say it).  The
image is examples/triage/test1.jpg, listed in ``images.txt`` unless the case writes that file.

``kind = "tensors"`` — no net run: every blob of the case's prototxt (``input:`` and ``top:`` names
in order, or ``blobs = [..]``) gets seeded values of ``shape`` (``shapes.<blob>`` overrides;
``values.<blob>`` gives them explicitly), written on both sides; ``nnie.<blob>`` /
``caffe.<blob>`` / ``nnie16.<blob>`` / ``onnx.<blob>`` list the faults to inject (an ``onnx`` table
also writes the framework side ``onnx/``, as ``reference --onnx`` names it; a ``board`` table the
board's dumps ``board/`` from the NNIE side's values, :func:`_board`), ``;``-separated, applied in order:

    noise S        add Gaussian noise, sigma = S × rms(value) (seeded by the blob's name)
    scale K[,K…]   multiply (one factor per channel)   offset V[,V…]   add (one value per channel)
    channels I,J…  reorder the channels         transpose       swap the last two axes
    values V,V…    replace the values           hwc             write in H,W,C element order
    nan N / inf N  N non-finite values (Caffe text side only)   missing   write no dump
    truncate N     the file keeps its first N values (a dump cut short)
    crop H,W       keep the top-left H×W of every channel (a dump made for another input size)

The input blobs hold image-like data (smooth patterns, ±1); the others N(0, 1).  With an
``nnie16`` table a 16-bit run is written too (blobs it does not name: exact copies).

``kind = "folder"`` — a folder of the repository (``folder = "examples/triage"``) copied as is.

Dump sets are cached per process by the recipe and the case files it reads (for ``model``: the
preprocessing the cfg gives and the prototxt): cases sharing a recipe pay for it once.
"""

from __future__ import annotations

import json
import re
import shutil
import zlib
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np

CHECKOUT = Path(__file__).resolve().parents[2]
IMAGE = CHECKOUT / "examples" / "triage" / "test1.jpg"  # MTCNN test1.jpg (MIT)
DET1_DIR = CHECKOUT / "tests" / "data" / "triage" / "mtcnn"

__all__ = ["RecipeUnavailable", "RecipeError", "build_dumps", "prototxt_blobs", "model_prototxt"]


class RecipeUnavailable(Exception):
    """The recipe needs material this checkout does not have (the shared corpus): skip the case."""


class RecipeError(ValueError):
    """A recipe the builder cannot read: the case file is wrong."""


def _shared_models() -> Path:
    from nnie_lsp.testing.shared_files import corpus_dir

    return corpus_dir("models")


MODELS = ("det1", "det2", "deep")


def model_files(model: str) -> tuple[Path, Path]:
    """(prototxt, caffemodel) of a model recipe's net: ``det1`` (tests/data/triage/mtcnn), ``det2``
    (the shared corpus; :class:`RecipeUnavailable` without it), ``deep`` (the 12-convolution net of
    :mod:`.hp_synthetic` whose conv9 loses its small weights at 8 bit, written once per process)."""
    if model == "det1":
        return DET1_DIR / "det1.prototxt", DET1_DIR / "det1.caffemodel"
    if model == "det2":
        folder = _shared_models() / "mtcnn"
        if not (folder / "det2.caffemodel").is_file():
            raise RecipeUnavailable(f"model 'det2' needs the shared corpus ({folder})")
        return folder / "det2.prototxt", folder / "det2.caffemodel"
    if model == "deep":
        from nnie_lsp.testing.hp_synthetic import DeepNetSpec, write_project

        folder = _CACHE.base() / "model-deep"
        if not (folder / "deep.caffemodel").is_file():
            write_project(folder, DeepNetSpec())
        return folder / "deep.prototxt", folder / "deep.caffemodel"
    raise RecipeError(f"unknown model {model!r} (one of {', '.join(MODELS)})")


def model_prototxt(recipe: dict) -> Path:
    """The prototxt of a ``model`` recipe (the case folder gets a copy as ``net.prototxt``)."""
    return model_files(recipe.get("model", "det1"))[0]


# ----------------------------------------------------------------------------- cache

class _Cache:
    """Built dump sets by recipe key, in one temporary folder per process (removed at exit)."""

    def __init__(self) -> None:
        self.root: Path | None = None
        self.built: dict[str, Path] = {}
        self.references: dict[str, Path] = {}  # Caffe sides of model recipes

    def base(self) -> Path:
        if self.root is None:
            import atexit
            import tempfile

            self.root = Path(tempfile.mkdtemp(prefix="nnie-triage-cases-"))
            atexit.register(shutil.rmtree, self.root, True)
        return self.root

    def folder(self, key: str) -> Path:
        return self.base() / f"set{len(self.built)}"


_CACHE = _Cache()
SIDES = ("caffe", "nnie", "nnie16", "onnx", "board")


def build_dumps(recipe: dict, case_dir: str | Path, *, cache: bool = True) -> list[str]:
    """Write the recipe's dump folders into ``case_dir`` (its cfg/prototxt/files already there).
    Returns the side folders written (``caffe``, ``nnie``, maybe ``nnie16``)."""
    case_dir = Path(case_dir)
    kind = recipe.get("kind", "model")
    if kind == "folder":
        if set(recipe) != {"kind", "folder"}:
            raise RecipeError(f"a folder recipe has the keys kind and folder, got {sorted(recipe)}")
        src = CHECKOUT / recipe["folder"]
        if not src.is_dir():
            raise RecipeError(f"recipe folder {recipe['folder']} does not exist")
        shutil.copytree(src, case_dir, dirs_exist_ok=True)
        return []
    if kind == "model":
        if not (case_dir / "images.txt").exists():
            (case_dir / "images.txt").write_text(f"{IMAGE}\n", encoding="utf-8")
        weights = case_dir / "net.caffemodel"
        if not weights.exists():   # the project as its cfg names it: the `_hp` planner reads the weights
            shutil.copy(model_files(recipe.get("model", "det1"))[1], weights)
        key_extra: Any = _model_key(recipe, case_dir)
        make = _model_dumps
    elif kind == "tensors":
        key_extra = (case_dir / "net.prototxt").read_text(encoding="utf-8") if "blobs" not in recipe else None
        make = _tensor_dumps
    else:
        raise RecipeError(f"unknown recipe kind {kind!r} (model, tensors or folder)")
    key = json.dumps([recipe, key_extra], sort_keys=True, default=str)
    if cache and key in _CACHE.built:
        src = _CACHE.built[key]
    else:
        src = _CACHE.folder(key) if cache else case_dir / ".dumps"
        make(recipe, case_dir, src)
        if cache:
            _CACHE.built[key] = src
    written = []
    for side in SIDES:
        if (src / side).is_dir():
            # shutil.copy, not copy2: the dumps are made now, after the case's cfg (a cached set keeps
            # no older file times, which T008 would read as "made with an older cfg")
            shutil.copytree(src / side, case_dir / side, copy_function=shutil.copy)
            written.append(side)
    if not cache:
        shutil.rmtree(src)
    return written


# ----------------------------------------------------------------------------- model recipes

def _preprocessing(spec: Any, model: str):
    """The Caffe side's (true) preprocessing: the model's own, or the recipe's table."""
    from nnie_lsp.reference.preprocess import Preprocessing
    from nnie_lsp.testing.scenarios import MTCNN_PREP

    if spec is None:
        if model == "deep":  # hp_synthetic's cfg: BGR, (x - 128) x 0.0078125
            return Preprocessing(norm_type=5, data_scale=0.0078125, mean=np.full(3, 128.0, np.float32),
                                 rgb_order="BGR")
        return MTCNN_PREP
    if not isinstance(spec, dict):
        raise RecipeError(f"reference preprocessing: a table, got {spec!r}")
    kw = dict(spec)
    if "mean" in kw:
        kw["mean"] = np.asarray(kw["mean"], np.float32)
    try:
        return Preprocessing(**kw)
    except TypeError as exc:
        raise RecipeError(f"reference preprocessing: {exc}") from None


def _options(spec: dict | None, compile_mode: int | None = None):
    """The recipe's emulation options; the precision follows the case's cfg as the mapper does
    (``[compile_mode]``: :mod:`nnie_lsp.emulation.precision`) unless the recipe gives ``bits``."""
    from nnie_lsp.emulation.emulate import EmulationOptions
    from nnie_lsp.emulation.precision import precision_for

    spec = dict(spec or {})
    precision = precision_for(compile_mode, spec.get("bits"))
    spec.setdefault("bits", precision.bits)
    spec.setdefault("hp_names", precision.hp_names)
    names = {f.name for f in fields(EmulationOptions)}
    bad = sorted(set(spec) - names)
    if bad:
        raise RecipeError(f"unknown emulation option(s) {bad} (known: {sorted(names)})")
    for k, v in spec.items():
        if isinstance(v, list):
            spec[k] = frozenset(v)
    return EmulationOptions(**spec)


def _sim_prep(recipe: dict, case_dir: Path):
    """The NNIE side's preprocessing: what the case's cfg says (+ the H/W swap a cfg cannot say)."""
    from nnie_lsp.reference.preprocess import preprocessing_from_cfg

    ref = _preprocessing(recipe.get("reference"), recipe.get("model", "det1"))
    prep = preprocessing_from_cfg(case_dir / "net.cfg")
    return prep.with_(transpose=bool(recipe.get("transpose", ref.transpose)), images=[], notes=[])


def _model_key(recipe: dict, case_dir: Path) -> list:
    p = _sim_prep(recipe, case_dir)
    mean = None if p.mean is None else [round(float(v), 6) for v in np.asarray(p.mean).reshape(-1)]
    return [p.norm_type, p.data_scale, mean, p.rgb_order, p.image_type, p.transpose, _compile_mode(case_dir),
            (case_dir / "net.prototxt").read_text(encoding="utf-8")]


def _compile_mode(case_dir: Path) -> int | None:
    from nnie_lsp.project.project import load_project

    cfg = case_dir / "net.cfg"
    if not cfg.is_file():
        return None
    project = load_project(cfg_path=str(cfg), load_prototxt=False)
    return project.config.compile_mode if project.config is not None else None


MODEL_KEYS = {"kind", "model", "reference", "reference_net", "emulation", "sim16", "format", "transpose"}


def _model_dumps(recipe: dict, case_dir: Path, out: Path) -> None:
    """Caffe side: OpenCV on the model's prototxt (``reference_net = "case"``: the case's, e.g. a
    de-inplaced net) with the true preprocessing; NNIE side: the emulation of the case's
    ``net.prototxt`` with the model's weights, the cfg's preprocessing and its precision (``_hp`` names
    honoured under ``[compile_mode] 2``, as the mapper does)."""
    from nnie_lsp.emulation.emulate import emulate, write_sim_dumps
    from nnie_lsp.reference.caffe_forward import prepare_inputs, run_reference, write_reference_dumps
    from nnie_lsp.reference.net import load_net

    unknown = set(recipe) - MODEL_KEYS
    if unknown:
        raise RecipeError(f"unknown model recipe key(s): {sorted(unknown)} (known: {sorted(MODEL_KEYS)})")
    model = recipe.get("model", "det1")
    proto, weights = model_files(model)
    case_proto = case_dir / "net.prototxt"
    ref_proto = {"model": proto, "case": case_proto}.get(recipe.get("reference_net", "model"))
    if ref_proto is None:
        raise RecipeError("reference_net: 'model' or 'case'")
    fmt = recipe.get("format", "mapper_quant")
    # the Caffe side depends on the net and the true preprocessing only: shared by every case of a
    # model (writing %.18e text is most of a build's time)
    ref_key = json.dumps([model, recipe.get("reference"), ref_proto.read_text(encoding="utf-8")], sort_keys=True)
    if ref_key not in _CACHE.references:
        folder = _CACHE.base() / f"caffe{len(_CACHE.references)}"
        ref = run_reference(ref_proto, weights, [IMAGE], _preprocessing(recipe.get("reference"), model))
        write_reference_dumps(ref, folder)
        _CACHE.references[ref_key] = folder
    shutil.copytree(_CACHE.references[ref_key], out / "caffe")
    net = load_net(case_proto, weights)
    inputs = prepare_inputs(net, [IMAGE], [_sim_prep(recipe, case_dir)])
    write_sim_dumps(emulate(net, inputs, _options(recipe.get("emulation"), _compile_mode(case_dir))), out / "nnie",
                    fmt=fmt)
    if "sim16" in recipe:
        write_sim_dumps(emulate(net, inputs, _options(recipe["sim16"])), out / "nnie16", fmt=fmt)


# ----------------------------------------------------------------------------- tensor recipes

_NAME = r'"([^"]+)"'


def prototxt_blobs(text: str) -> tuple[list[str], list[str]]:
    """(every blob in network order — inputs, then each new top —, the input blobs) of a simple
    prototxt written one statement per field (the cases' own nets)."""
    text = re.sub(r"#[^\n]*", "", text)
    inputs = re.findall(r"\binput\s*:\s*" + _NAME, text)
    inputs += re.findall(r'type\s*:\s*"Input"[^}]*?top\s*:\s*' + _NAME, text)
    blobs = list(dict.fromkeys(inputs + re.findall(r"\btop\s*:\s*" + _NAME, text)))
    return blobs, inputs


def _seed(seed: int, blob: str, salt: str) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(f"{salt}:{blob}".encode())])


def _image_like(shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Smooth per-channel patterns in about ±1 with a little texture (a normalized image)."""
    if len(shape) < 2:
        return rng.uniform(-1.0, 1.0, shape)
    c, h, w = (1,) * (3 - len(shape)) + tuple(shape[-3:])
    yy, xx = np.mgrid[0:h, 0:w] / max(h, w)
    planes = []
    for _ in range(c):
        fx, fy, phase = rng.uniform(0.5, 2.0), rng.uniform(0.5, 2.0), rng.uniform(0, 2 * np.pi)
        planes.append(0.7 * np.sin(2 * np.pi * (fx * xx + fy * yy) + phase) + rng.normal(0, 0.1, (h, w)))
    return np.stack(planes).reshape(shape)


def _numbers(text: str) -> list[float]:
    try:
        return [float(v) for v in text.replace(" ", "").split(",") if v]
    except ValueError:
        raise RecipeError(f"expected numbers separated by commas, got {text!r}") from None


def apply_faults(value: np.ndarray, faults: str, rng: np.random.Generator) -> tuple[np.ndarray | None, bool, int | None]:
    """The value with ``faults`` applied (see the module docstring); None for ``missing``.
    Returns (value, written in H,W,C element order, values the file is cut to)."""
    v = np.array(value, dtype=np.float64)
    hwc = False
    cut = None
    for fault in (f.strip() for f in faults.split(";")):
        if not fault:
            continue
        op, _, arg = fault.partition(" ")
        arg = arg.strip()
        if op == "missing":
            return None, False, None
        if op == "noise":
            rms = float(np.sqrt(np.mean(v ** 2))) or 1.0
            v = v + rng.normal(0.0, float(arg) * rms, v.shape)
        elif op == "scale":
            k = np.asarray(_numbers(arg))
            v = v * (k.reshape((-1,) + (1,) * (v.ndim - 1)) if k.size > 1 else k[0])
        elif op == "offset":
            off = np.asarray(_numbers(arg))
            v = v + (off.reshape((-1,) + (1,) * (v.ndim - 1)) if off.size > 1 else off[0])
        elif op == "channels":
            v = v[[int(i) for i in _numbers(arg)]]
        elif op == "transpose":
            v = np.swapaxes(v, -1, -2).copy()
        elif op == "values":
            new = np.asarray(_numbers(arg))
            if new.size != v.size:
                raise RecipeError(f"values: {new.size} numbers for a blob of {v.size}")
            v = new.reshape(v.shape)
        elif op in ("nan", "inf"):  # NaN at evenly spread places, Inf one place after each
            flat = v.reshape(-1)
            n = int(arg or 1)
            at = np.linspace(0, flat.size - 2, n + 2, dtype=int)[1:-1] + (op == "inf")
            flat[at] = np.nan if op == "nan" else np.inf
        elif op == "truncate":
            cut = int(arg)
        elif op == "crop":
            h, w = (int(x) for x in _numbers(arg))
            v = v[..., :h, :w].copy()
        elif op == "hwc":
            hwc = True
        else:
            raise RecipeError(f"unknown fault {op!r}")
    return v, hwc, cut


def _tensor_dumps(recipe: dict, case_dir: Path, out: Path) -> None:
    from nnie_lsp.readers.dumpio.writers import write_mapper_quant, write_ruyi_caffe

    unknown = set(recipe) - {"kind", "blobs", "inputs", "shape", "shapes", "values", "seed", "caffe", "nnie",
                             "nnie16", "onnx", "board"}
    if unknown:
        raise RecipeError(f"unknown tensors recipe key(s): {sorted(unknown)}")
    if "blobs" in recipe:
        blobs, inputs = list(recipe["blobs"]), list(recipe.get("inputs", recipe["blobs"][:1]))
    else:
        blobs, inputs = prototxt_blobs((case_dir / "net.prototxt").read_text(encoding="utf-8"))
    seed = int(recipe.get("seed", 0))
    default_shape = tuple(recipe.get("shape", (4, 6, 6)))
    sides = [s for s in ("nnie", "nnie16") if s == "nnie" or s in recipe]
    nnie_values: dict[str, np.ndarray] = {}
    for table in ("caffe", "nnie", "nnie16", "onnx", "shapes", "values"):
        stray = set(recipe.get(table, {})) - set(blobs)
        if stray:
            raise RecipeError(f"{table}: no blob {sorted(stray)} in the net (blobs: {blobs})")
    for blob in blobs:
        if blob in recipe.get("values", {}):
            value = np.asarray(recipe["values"][blob], dtype=np.float64)
            value = value.reshape(tuple(recipe.get("shapes", {}).get(blob, value.shape)))
        else:
            shape = tuple(recipe.get("shapes", {}).get(blob, default_shape))
            rng = _seed(seed, blob, "value")
            value = _image_like(shape, rng) if blob in inputs else rng.standard_normal(shape)
        ref, _, cut = apply_faults(value, recipe.get("caffe", {}).get(blob, ""), _seed(seed, blob, "caffe"))
        if ref is not None:
            _truncate(write_ruyi_caffe(out / "caffe", blob, ref), cut)
        if "onnx" in recipe:   # the framework side (`reference --onnx`): Caffe-named, RuyiStudio form
            fw, _, cut = apply_faults(value, recipe["onnx"].get(blob, ""), _seed(seed, blob, "onnx"))
            if fw is not None:
                _truncate(write_ruyi_caffe(out / "onnx", blob, fw), cut)
        for side in sides:
            sim, hwc, cut = apply_faults(value, recipe.get(side, {}).get(blob, ""), _seed(seed, blob, side))
            if sim is None:
                continue
            if not np.all(np.isfinite(sim)):
                raise RecipeError(f"{side}.{blob}: hex dumps cannot hold NaN/Inf (inject them on the caffe side)")
            if hwc and sim.ndim == 3:
                sim = np.ascontiguousarray(sim.transpose(1, 2, 0)).reshape(sim.shape)
            _truncate(write_mapper_quant(out / side, blob, sim), cut)
            if side == "nnie":
                nnie_values[blob] = sim
    if "board" in recipe:
        _board(recipe["board"], nnie_values, inputs, out / "board")


BOARD_KEYS = {"outputs", "input", "fault", "nodes", "form", "seed", "noise"}


def _board(spec: dict, values: dict, inputs: list[str], out: Path) -> None:
    """The board side ``board/`` (:mod:`.board_dumps`) from the NNIE side's values: ``outputs``
    (blobs), ``input`` (true: the first input's U8 planes too), ``fault`` on ``nodes``, ``form``."""
    from nnie_lsp.testing.board_dumps import planes_of, write_board_folder

    unknown = set(spec) - BOARD_KEYS
    if unknown:
        raise RecipeError(f"unknown board key(s) {sorted(unknown)} (known: {sorted(BOARD_KEYS)})")
    missing = [b for b in spec.get("outputs", []) if b not in values]
    if missing or not spec.get("outputs"):
        raise RecipeError(f"board.outputs: blobs of the NNIE side, got {spec.get('outputs')} (missing {missing})")
    inp = (inputs[0], planes_of(values[inputs[0]])) if spec.get("input") and inputs else None
    outputs = [(b, values[b]) for b in spec["outputs"]]
    if spec.get("noise"):   # a board that does not compute what the simulator computes
        outputs = [(b, v + _seed(0, b, "board").normal(0.0, float(spec["noise"]), v.shape)) for b, v in outputs]
    write_board_folder(str(out), outputs, input=inp, fault=spec.get("fault"),
                       nodes=tuple(spec.get("nodes", ())), form=spec.get("form", "bin"), seed=int(spec.get("seed", 0)))


def _truncate(path: str, values: int | None) -> None:
    """Keep the first ``values`` lines of a one-value-per-line dump (a dump cut short)."""
    if values is not None:
        p = Path(path)
        p.write_bytes(b"".join(p.read_bytes().splitlines(keepends=True)[:values]))

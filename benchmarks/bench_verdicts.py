"""Verdict benchmark: does `nnie-triage compare` name the right case on runs whose answer is known?

    .venv/bin/python benchmarks/bench_verdicts.py                 # every model: ~75 s of CPU, 40-140 s wall on 2 cores
    .venv/bin/python benchmarks/bench_verdicts.py --quick         # one model, a few faults
    .venv/bin/python benchmarks/bench_verdicts.py --models det2,branchy --json verdicts.json

Every model runs as a user runs it, through the CLI only (``nnie_lsp.cli.triage.main`` in
process): a cfg with the model's REAL preprocessing and an image list of its test images, then
``nnie-triage reference`` (the Caffe side, OpenCV), ``nnie-triage emulate`` (the NNIE side) and
``nnie-triage compare --format json``.  Faults are injected into the cfg, a prototxt or
caffemodel copy, or the dump files (``nnie_lsp.testing.faults``, through ``nnie_lsp.readers.dumpio``) —
never into the triage.  Rows of the confusion table are the injected truth:

- healthy-8bit / healthy-16bit: the same cfg on both sides (``compile_mode`` 0, and 1 with
  ``emulate --bits 16``).  Right: case 4 (every layer agrees: the post-processing is next).  A
  healthy run told "inconclusive" or "make a bundle" is a false alarm.
- preprocessing: the cfg differs from what the net was trained with (RGB_order, data_scale 1/255
  vs 1/256, a missing or wrong mean, an H/W transpose the cfg cannot express).  Right: case 1 with
  the finding about that key (``preprocessing.edits`` / a finding's ``cfg_key``, or the fit's
  ``transposed``).
- decoding: the NNIE numbers are right but read with the wrong number of fraction bits (× 16: a
  16.16 dump read as 20.12; ÷ 16: a user's decoder dividing by 2^16 and saving ``.npy``) on every
  layer, or ``inst`` words taken without the /4096.  Right: NOT case 1, NOT step 6, and a finding
  that names the decoding (fraction bits / fixed point / 4096): T006, next step 1, the column
  "decoding" (no case of the guide).
- quantization: a caffemodel copy with one output channel of a layer × K and its consumer's input
  channel × 1/K (ReLU/PReLU/max pooling between them are homogeneous, so the float net computes
  the same): K ≫ 1 gives the activation a long tail and the producer one weight channel far above
  the others, K ≪ 1 does it to the consumer (what BN folding leaves); on the generated deep net a
  BN-style weight outlier on an always-zero input channel (float-neutral too).  Right: case 2 with
  the producer or the consumer in the `_hp` plan.  These runs also give the compile_mode 1 run
  (``--sim-16bit``), as the guide's step 3 does, and record what that run shows on its own.
- layer-matching: the mapper split an in-place layer (Concat + ReLU, PReLU after InnerProduct:
  the dump holds the value before it), or a Normalize/conv output dumped in H,W,C order (a
  Permute).  Right: case 3 with that layer's dip explained.
- post-processing: a clean run with ``--postprocess`` (MTCNN P-Net box decoding, face scores,
  plain arrays), once with P-Net scores near the threshold moved across it.  Right: case 4 with the
  post-processing compared.
- conversion (the stage before Caffe; model ``conversion``): the MTCNN nets as a PyTorch
  port exports them to ONNX (``nnie_lsp.testing.onnx_models``, real weights; O-Net built here) and
  the generated chain net (Clip, HardSwish, SiLU, Resize, Concat/Split, Reshape, Softmax: its Caffe
  reference runs in the numpy forward, OpenCV having no Clip/Upsample), converted to Caffe with ONE converter fault (``nnie_lsp.testing.onnx_models_convert``), run as a
  user runs it (``reference``, ``reference --onnx``, ``emulate``, ``compare --framework``).  Right:
  the verdict "conversion" at the faulty layer (T501 there).  Their faithful conversions are
  healthy-8bit runs with ``--framework``: right is case 4 (a "conversion" verdict is a false alarm).
- board (the stage after the simulator; model ``board``, ``benchmarks/board_runs.py``):
  board dumps of det1 at 36×36, det2, det3 and yufacedetectnet made from their emulation (the chip's
  values), each with ONE board-code mistake (a stride on a 13-wide output, ×4096, /4096 twice,
  HWC fed as CHW, RGB/BGR, the input's rows without the stride, two outputs swapped, a 31-character
  name collision, a non-repeatable pair of runs).  Right: the verdict "board: …" whose first
  mistake is that one (its T-code and kind).  Their faithful boards (every form: the blob memory
  .bin, .txt, .hex, with and without the input) are the row board-faithful: right is case 4 with
  T607 saying the board is bit-exact with the simulator (a "board" verdict is a false alarm).

The fault set is the benchmark's own: other nets, layers, magnitudes and seeds than
``tests/triage/cases`` and ``nnie_lsp.testing.scenarios`` (nothing is imported from them).

- cfg-only loop (``verdicts_cfg_only.py``): the Caffe reference AND the emulation both made
  from the faulty cfg, as the product's own loop makes them, without a model card (right: the T100
  caveat, a mistake the comparison cannot show is said) and with one (right: case 1 with the wrong key,
  its fix applied, the NNIE side made again: case 4 and "Confirmed fixed"; a transpose, which no cfg
  key expresses, is fixed by feeding the images transposed).

Columns: case 1-4, decoding (no case: the dumps are read with the wrong scale, T006, next step 1), board
(the stage board: a board-code mistake or a board that differs from the simulator, next step 7),
inconclusive (no case, next step 2-5), make-a-bundle (next step 6, whatever the case), other (the
command failed).  Goal: every fault named right, no healthy run told
inconclusive or make a bundle.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import re
import shutil
import sys
import tempfile
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve()
CHECKOUT = HERE.parents[1]
sys.path.insert(0, str(CHECKOUT))
sys.path.insert(0, str(HERE.parent))   # benchmarks/board_runs.py

from nnie_lsp.testing import faults  # noqa: E402
from nnie_lsp.testing.faults import Prep  # noqa: E402
from nnie_lsp.testing.shared_files import corpus_dir  # noqa: E402

sys.path.insert(0, str(HERE.parent))
import verdicts_cfg_only  # noqa: E402  (the "cfg-only loop" row)

TRUTHS = ("healthy-8bit", "healthy-16bit", "preprocessing", "decoding", "quantization", "layer-matching",
          "post-processing", "conversion", "board", "board-faithful", "cfg-only loop")
COLUMNS = ("case 1", "case 2", "case 3", "case 4", "decoding", "conversion", "board", "inconclusive", "bundle", "other")
HEALTHY = ("healthy-8bit", "healthy-16bit", "board-faithful")
PNET_POST = CHECKOUT / "examples" / "triage" / "postprocess_pnet.py"
REPO_IMAGE = CHECKOUT / "examples" / "triage" / "test1.jpg"  # MTCNN test1.jpg (MIT), in the repository

MTCNN_PREP = Prep(rgb_order="RGB", norm_type=5, mean=(127.5, 127.5, 127.5), data_scale=0.0078125)
SSD_PREP = Prep(rgb_order="BGR", norm_type=2, mean=(104.0, 117.0, 123.0))
SSD_PREP_ISSUE = Prep(rgb_order="BGR", norm_type=0)  # the cfg of a user report (SSD, BGR, norm_type 0)
DEEP_PREP = Prep(rgb_order="BGR", norm_type=5, mean=(128.0, 128.0, 128.0), data_scale=0.0078125)
BRANCHY_PREP = Prep(rgb_order="BGR", norm_type=3, data_scale=1 / 255)

DECODING_WORDS = re.compile(r"decod|fraction[- ]bit|fixed[- ]point|4096|20\.12", re.IGNORECASE)


# ----------------------------------------------------------------------------- the CLI, in process

def triage_cli(args: list[str]) -> tuple[int, str]:
    """``nnie-triage ARGS`` in this process; (exit status, what it wrote to stdout and stderr)."""
    from nnie_lsp.cli.triage import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            code = main(args)
        except SystemExit as exc:  # never expected: main() returns its status
            code = int(exc.code or 0) if isinstance(exc.code, int) else 2
    return code, out.getvalue()


class CliFailed(RuntimeError):
    pass


# ----------------------------------------------------------------------------- expectations

@dataclass
class Expect:
    """What the right answer is, and how to check a report against it."""

    text: str
    check: Callable[[dict], tuple[bool, str]]


def expect_healthy() -> Expect:
    def check(doc: dict) -> tuple[bool, str]:
        if doc.get("next_step") == 6:
            return False, "false alarm: make a bundle"
        if doc.get("case") is None:
            return False, "false alarm: inconclusive"
        return doc.get("case") == 4, "" if doc.get("case") == 4 else f"case {doc.get('case')} on a healthy run"
    return Expect("case 4", check)


def _cfg_keys(doc: dict) -> set[str]:
    keys = {f.get("cfg_key") for f in doc.get("findings") or [] if f.get("cfg_key")}
    keys |= {e.get("key") for e in (doc.get("preprocessing") or {}).get("edits") or []}
    return keys


def expect_preprocessing(keys: tuple[str, ...] = (), transposed: bool = False) -> Expect:
    want = "H/W transpose" if transposed else "/".join(keys)

    def check(doc: dict) -> tuple[bool, str]:
        if doc.get("case") != 1:
            return False, f"not case 1"
        if transposed:
            ok = bool((doc.get("preprocessing") or {}).get("transposed"))
            return ok, "" if ok else "case 1 without the transpose"
        found = _cfg_keys(doc)
        ok = bool(found & set(keys))
        return ok, "" if ok else f"case 1 but the fix names {sorted(found) or 'nothing'}"
    return Expect(f"case 1: {want}", check)


def expect_decoding() -> Expect:
    def check(doc: dict) -> tuple[bool, str]:
        if doc.get("case") == 1:
            return False, "told preprocessing"
        if doc.get("next_step") == 6:
            return False, "told make a bundle"
        texts = [doc.get("verdict") or "", doc.get("reason") or ""]
        texts += [f.get("message") or "" for f in doc.get("findings") or []]
        ok = any(DECODING_WORDS.search(t) for t in texts)
        return ok, "" if ok else "no decoding finding"
    return Expect("decoding finding (not case 1, not step 6)", check)


def hp_layer_names(doc: dict) -> list[tuple[str, bool]]:
    return [(re.sub(r"_hp$", "", str(c.get("layer"))), bool(c.get("in_plan")))
            for c in doc.get("hp_candidates") or []]


def expect_quantization(layers: tuple[str, ...]) -> Expect:
    def check(doc: dict) -> tuple[bool, str]:
        if doc.get("case") != 2:
            return False, "not case 2"
        cands = hp_layer_names(doc)
        plan = [name for name, in_plan in cands if in_plan]
        names = [name for name, _ in cands]
        hit = [n for n in layers if n in plan]
        if hit:
            return True, f"{hit[0]} in the plan ({len(plan)} layer(s))"
        hit = [n for n in layers if n in names]
        if hit:
            return False, f"{hit[0]} only a candidate (rank {names.index(hit[0]) + 1}), plan {plan}"
        return False, f"{'/'.join(layers)} not among the candidates {names[:6]}"
    return Expect(f"case 2: {'/'.join(layers)} in the _hp plan", check)


def expect_layer_matching(layer: str) -> Expect:
    def check(doc: dict) -> tuple[bool, str]:
        if doc.get("case") != 3:
            return False, "not case 3"
        for dip in doc.get("dips") or []:
            if dip.get("layer") == layer:
                ok = bool(dip.get("explained"))
                return ok, f"{dip.get('kind') or '-'}" if ok else f"dip at {layer} not explained"
        return False, f"no dip at {layer} ({[d.get('layer') for d in doc.get('dips') or []]})"
    return Expect(f"case 3: dip at {layer} explained", check)


def expect_postprocessing() -> Expect:
    def check(doc: dict) -> tuple[bool, str]:
        if doc.get("case") != 4:
            return False, "not case 4"
        post = doc.get("postprocess")
        if not post or "error" in post:
            return False, f"post-processing not compared ({(post or {}).get('error', 'none')})"
        codes = [f["code"] for f in doc.get("findings") or [] if f.get("code", "").startswith("T40")]
        return True, f"{'/'.join(codes)}, agree={post.get('agree')}"
    return Expect("case 4 with the post-processing compared", check)


# ----------------------------------------------------------------------------- one model's runs

@dataclass
class Model:
    key: str
    title: str
    prototxt: Path
    caffemodel: Path
    images: list[Path]
    prep: Prep
    transpose: bool = False
    notes: list[str] = field(default_factory=list)


def column_of(doc: dict | None) -> str:
    if doc is None:
        return "other"
    if doc.get("next_step") == 6:
        return "bundle"
    if str(doc.get("verdict") or "").startswith("conversion"):
        return "conversion"
    if str(doc.get("verdict") or "").startswith("board:"):
        return "board"
    case = doc.get("case")
    if case in (1, 2, 3, 4):
        return f"case {case}"
    if doc.get("decoding"):
        return "decoding"
    return "inconclusive"


def _num(v) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        return float("nan")


def magnitude_profile(doc: dict) -> dict:
    """What the layers' magnitudes say: the least-squares scales (sim → ref) of the compared
    layers after the data layer, the data layer's, and the numbers of the layer the reason names
    (or the lowest cosine)."""
    rows = [r for r in doc.get("layers") or [] if r.get("cosine") is not None and not r.get("is_data")]
    data = [r for r in doc.get("layers") or [] if r.get("is_data")]
    scales = sorted(_num(r.get("lsq_scale")) for r in rows if math.isfinite(_num(r.get("lsq_scale"))))
    off = [k for k in scales if abs(k - 1) > 0.05]
    out = {"layers": len(rows), "lsq_median": scales[len(scales) // 2] if scales else None,
           "lsq_min": scales[0] if scales else None, "lsq_max": scales[-1] if scales else None,
           "lsq_off_share": len(off) / len(scales) if scales else None,
           "data_lsq": _num(data[0].get("lsq_scale")) if data else None}
    named = None
    reason = doc.get("reason") or ""
    for r in rows:
        if re.search(rf"\b{re.escape(r['name'])}\b", reason):
            named = r
            break
    if named is None and rows:
        named = min(rows, key=lambda r: _num(r.get("cosine")))
    if named is not None:
        lo, hi = (_num(v) for v in named.get("ref_range") or (float("nan"), float("nan")))
        span = max(abs(hi - lo), abs(hi), abs(lo)) if math.isfinite(lo) and math.isfinite(hi) else float("nan")
        out["layer"] = {"name": named["name"], "cosine": _num(named.get("cosine")),
                        "lsq_scale": _num(named.get("lsq_scale")), "rel_l2": _num(named.get("rel_l2_error")),
                        "max_abs_error": _num(named.get("max_abs_error")),
                        "relative_error": _num(named.get("max_abs_error")) / span if span else float("nan"),
                        "saturation_share": _num(named.get("saturation_share")),
                        "ref_range": named.get("ref_range"), "sim_range": named.get("sim_range")}
    return out


def _sim16(doc: dict) -> dict | None:
    s16 = doc.get("sim16")
    if not s16:
        return None
    return {k: s16.get(k) for k in ("verdict", "end_cosine_8bit", "end_cosine_16bit", "first_divergence_16bit")}


def layer_numbers(doc: dict) -> list[dict]:
    keep = ("name", "is_data", "cosine", "lsq_scale", "rel_l2_error", "max_abs_error", "ref_range", "sim_range",
            "saturation_share", "size")
    return [{k: r.get(k) for k in keep} for r in doc.get("layers") or []]


class Runner:
    """Runs one model's reference / emulate / compare commands in its own folder."""

    def __init__(self, model: Model, root: Path, quick: bool):
        self.m = model
        self.root = root
        self.quick = quick
        self.records: list[dict] = []
        self.cache: dict[str, Path] = {}
        self.commands = 0
        root.mkdir(parents=True, exist_ok=True)
        (root / "images.txt").write_text("".join(f"{p}\n" for p in model.images), encoding="utf-8")

    # -- commands
    def _run(self, args: list[str]) -> str:
        self.commands += 1
        code, text = triage_cli(args)
        if code != 0:
            raise CliFailed(f"nnie-triage {' '.join(args[:1])} exited {code}: {text.strip()[-400:]}")
        return text

    def cfg(self, name: str, prep: Prep | None = None, *, compile_mode: int = 0, prototxt: Path | None = None,
            caffemodel: Path | None = None) -> Path:
        return faults.write_cfg(self.root / f"{name}.cfg", prototxt=prototxt or self.m.prototxt,
                                caffemodel=caffemodel or self.m.caffemodel, prep=prep or self.m.prep,
                                compile_mode=compile_mode)

    def reference(self, cfg: Path, key: str = "ref", extra: tuple[str, ...] = ()) -> Path:
        if key not in self.cache:
            out = self.root / key
            self._run(["reference", "--cfg", str(cfg), "-o", str(out), "--progress", "none", *extra]
                      + (["--transpose"] if self.m.transpose else []))
            self.cache[key] = out
        return self.cache[key]

    def emulate(self, cfg: Path, key: str, *, bits: int = 8, fmt: str = "mapper_quant",
                transpose: bool | None = None, extra: tuple[str, ...] = ()) -> Path:
        if key not in self.cache:
            out = self.root / key
            transpose = self.m.transpose if transpose is None else transpose
            self._run(["emulate", "--cfg", str(cfg), "-o", str(out), "--progress", "none", "--bits", str(bits),
                       "--format", fmt, *extra] + (["--transpose"] if transpose else []))
            self.cache[key] = out
        return self.cache[key]

    def compare(self, ref: Path, sim: Path, cfg: Path, *, sim16: Path | None = None,
                postprocess: str | None = None) -> dict:
        out = self.root / f"report{self.commands}.json"
        args = ["compare", "--reference", str(ref), "--sim", str(sim), "--cfg", str(cfg), "--format", "json",
                "--output", str(out), "--progress", "none"]
        if sim16 is not None:
            args += ["--sim-16bit", str(sim16)]
        if postprocess:
            args += ["--postprocess", postprocess]
        self._run(args)
        return json.loads(out.read_text(encoding="utf-8"))

    # -- one benchmark run
    def case(self, truth: str, fault: str, expect: Expect, build: Callable[[], dict], *, quick: bool = False) -> None:
        if self.quick and not quick:
            return
        started = time.perf_counter()
        rec = {"model": self.m.key, "truth": truth, "fault": fault, "expected": expect.text}
        try:
            doc = build()
        except Exception as exc:  # a failed command is a result ("other"), never the end of the benchmark
            rec.update(column="other", right=False, note=f"{type(exc).__name__}: {exc}"[:300],
                       trace=traceback.format_exc(limit=3))
            doc = None
        if doc is not None:
            right, note = expect.check(doc)
            rec.update(column=column_of(doc), right=bool(right), note=note, case=doc.get("case"),
                       next_step=doc.get("next_step"), verdict=doc.get("verdict"), reason=doc.get("reason"),
                       first_divergence=doc.get("first_divergence"),
                       codes=[f.get("code") for f in doc.get("findings") or []],
                       profile=magnitude_profile(doc), layer_numbers=layer_numbers(doc),
                       hp_candidates=hp_layer_names(doc)[:8], sim16=_sim16(doc),
                       dips=[{k: d.get(k) for k in ("layer", "cosine", "explained", "kind", "lint_code", "confirmed",
                                                    "explanation")}
                             for d in doc.get("dips") or []],
                       extra=doc.get("_bench") or {})
        rec["seconds"] = round(time.perf_counter() - started, 2)
        self.records.append(rec)


# ----------------------------------------------------------------------------- the fault sets

def standard_runs(r: Runner, *, prep_faults: list[tuple[str, Prep | None, Expect]], quant: list[tuple],
                  matching: list[tuple], post: list[tuple], inst: bool = True, healthy16: bool = True,
                  other_healthy: list[tuple[str, Prep]] = ()) -> None:
    """The runs every model gets: healthy 8/16-bit, the preprocessing faults given, the three
    decoding faults, the quantization / layer-matching / post-processing faults given.
    ``other_healthy``: more healthy runs, each with another cfg on BOTH sides (a cfg that does not
    match training is still a healthy NNIE run: both sides compute the same thing)."""
    cfg = r.cfg("net")
    ref = lambda: r.reference(cfg)  # noqa: E731
    sim8 = lambda: r.emulate(cfg, "sim8")  # noqa: E731

    r.case("healthy-8bit", "same cfg, 8-bit", expect_healthy(), lambda: r.compare(ref(), sim8(), cfg), quick=True)
    if healthy16:
        cfg16 = r.cfg("net_cm1", compile_mode=1)
        r.case("healthy-16bit", "same cfg, compile_mode 1", expect_healthy(),
               lambda: r.compare(ref(), r.emulate(cfg16, "sim16", bits=16), cfg16), quick=True)
    r.case("healthy-8bit", "same cfg, 8-bit, every image of the list (--images all)", expect_healthy(),
           lambda: r.compare(r.reference(cfg, "ref_all", ("--images", "all")),
                             r.emulate(cfg, "sim8_all", extra=("--images", "all")), cfg))
    for i, (label, prep) in enumerate(other_healthy):
        def build(i=i, prep=prep):
            c = r.cfg(f"other{i}", prep)
            return r.compare(r.reference(c, f"ref_other{i}"), r.emulate(c, f"sim_other{i}"), c)
        r.case("healthy-8bit", label, expect_healthy(), build, quick=True)
    if inst:
        r.case("healthy-8bit", "same cfg, 8-bit, inst dumps", expect_healthy(),
               lambda: r.compare(ref(), r.emulate(cfg, "inst8", fmt="inst"), cfg))

    for i, (label, prep, expect) in enumerate(prep_faults):
        def build(i=i, prep=prep, label=label):
            if prep is None:  # the H/W transpose: same cfg, the NNIE side not transposed
                return r.compare(ref(), r.emulate(cfg, "sim_notranspose", transpose=False), cfg)
            c = r.cfg(f"prep{i}", prep)
            return r.compare(ref(), r.emulate(c, f"sim_prep{i}"), c)
        r.case("preprocessing", label, expect, build, quick=i == 0)

    def times16():
        info = faults.scale_hex_dumps(sim8(), r.root / "dec_x16", 16.0)
        if info["saturated"]:
            r.m.notes.append(f"x16: {info['saturated']} values saturated")
        return r.compare(ref(), r.root / "dec_x16", cfg)

    def div16():
        faults.hex_dumps_to_npy(sim8(), r.root / "dec_div16", 1 / 16)
        return r.compare(ref(), r.root / "dec_div16", cfg)

    def inst4096():
        faults.hex_dumps_to_npy(r.emulate(cfg, "inst8", fmt="inst"), r.root / "dec_inst", 4096.0)
        return r.compare(ref(), r.root / "dec_inst", cfg)

    r.case("decoding", "x16 on every layer (16.16 dump read as 20.12)", expect_decoding(), times16, quick=True)
    r.case("decoding", "/16 on every layer (own decoder /2^16, .npy)", expect_decoding(), div16)
    if inst:
        r.case("decoding", "inst words taken without /4096 (own decoder, .npy)", expect_decoding(), inst4096)

    for label, make, layers, quick in quant:
        def build(make=make, label=label):
            model = r.root / f"q_{re.sub(r'[^a-z0-9]+', '_', label.lower()).strip('_')}.caffemodel"
            info = make(model)
            c = r.cfg(model.stem, caffemodel=model)
            c16 = r.cfg(f"{model.stem}_cm1", caffemodel=model, compile_mode=1)
            ref_q = r.reference(c, key=f"ref_{model.stem}")
            sim16 = r.emulate(c16, f"sim16_{model.stem}", bits=16)
            doc = r.compare(ref_q, r.emulate(c, f"sim_{model.stem}"), c, sim16=sim16)
            alone = r.compare(ref_q, sim16, c16)  # what the 16-bit run shows on its own
            body = [x for x in alone.get("layers") or [] if not x.get("is_data") and x.get("cosine") is not None]
            worst = min(body, key=lambda x: _num(x["cosine"])) if body else None
            doc["_bench"] = {"fault": info, "sim16_alone": {
                "verdict": alone.get("verdict"), "case": alone.get("case"),
                "min_cosine": _num(worst["cosine"]) if worst else None, "at": worst["name"] if worst else None}}
            return doc
        r.case("quantization", label, expect_quantization(layers), build, quick=quick)

    for label, build, layer, quick in matching:
        r.case("layer-matching", label, expect_layer_matching(layer), lambda build=build: build(ref(), sim8(), cfg),
               quick=quick)

    for label, build, quick in post:
        r.case("post-processing", label, expect_postprocessing(), lambda build=build: build(ref(), sim8(), cfg),
               quick=quick)


def tail(model: Model, layer: str, consumer: str, channel: int, factor: float):
    return lambda dst: faults.channel_tail(model.caffemodel, dst, layer, consumer, channel, factor)


def hwc(r: Runner, layer: str):
    def build(ref: Path, sim: Path, cfg: Path) -> dict:
        out = r.root / f"hwc_{layer}"
        faults.rewrite_hwc(sim, out, layer)
        return r.compare(ref, out, cfg)
    return build


def split(r: Runner, layer: str, head: str, prototxt_split: Path | None = None):
    """The mapper ran in-place ``layer`` apart: ``head``'s dump holds the value before it (taken
    from an emulation of the de-inplaced net), everything else is the healthy run."""
    def build(ref: Path, sim: Path, cfg: Path) -> dict:
        proto = prototxt_split
        if proto is None:
            proto = r.root / f"split_{layer}.prototxt"
            proto.write_text(faults.de_inplace(r.m.prototxt.read_text(encoding="utf-8"), layer), encoding="utf-8")
        c = r.cfg(f"split_{layer}", prototxt=proto)
        pre = r.emulate(c, f"sim_split_{layer}")
        out = r.root / f"split_{layer}_dumps"
        faults.replace_layer_dump(sim, pre, out, head)
        return r.compare(ref, out, cfg)
    return build


def post_module(r: Runner) -> Path:
    """The post-processing functions as a file in the model's folder (``--postprocess FILE:fn``),
    as a user writes them.  (Both bugs that once made this the only form that worked — the
    ``module:function`` form's UnboundLocalError and a file holding a dataclass — are fixed and
    tested in ``tests/triage/diagnose/test_verdict_words_and_postprocess.py``.)"""
    return faults.write_postprocess_module(r.root)


def post(r: Runner, function: str, nudge: tuple | None = None):
    def build(ref: Path, sim: Path, cfg: Path) -> dict:
        if nudge is not None:
            out = r.root / "post_nudged"
            info = faults.nudge_channel(sim, out, *nudge)
            r.m.notes.append(f"post-processing: {info['moved']} of {info['size']} scores moved across the threshold")
            sim = out
        return r.compare(ref, sim, cfg, postprocess=function)
    return build


# ----------------------------------------------------------------------------- models

def mtcnn_model(stage: str, root: Path) -> Model | None:
    folder = corpus_dir("models") / "mtcnn"
    if not (folder / f"{stage}.caffemodel").is_file():
        return None
    proto = folder / f"{stage}.prototxt"
    notes = []
    if stage == "det1":  # P-Net is fully convolutional: deployed at a fixed size, here 64×64
        root.mkdir(parents=True, exist_ok=True)
        text = faults.with_input_shape(proto.read_text(encoding="utf-8"), (1, 3, 64, 64))
        proto = root / "det1_64x64.prototxt"
        proto.write_text(text, encoding="utf-8")
        notes.append("det1 run at 64x64 (input_dim changed only)")
    return Model(stage, f"MTCNN {stage}", proto, folder / f"{stage}.caffemodel",
                 [folder / "test1.jpg", folder / "test2.jpg"], MTCNN_PREP, transpose=True, notes=notes)


#: a user-reported det2 run: a BGR cfg on both sides (reproduces its "conv5-1 … 0.0861 of its range,
#: best scale 0.8568"); healthy all the same
MTCNN_BGR_HEALTHY = [("same cfg on both sides, BGR (a user-reported det2 run)", Prep("BGR", 5, (127.5,) * 3, 0.0078125))]


def mtcnn_prep_faults() -> list:
    return [
        ("RGB_order BGR (net trained RGB)", Prep("BGR", 5, (127.5,) * 3, 0.0078125),
         expect_preprocessing(("RGB_order",))),
        ("data_scale 1/127.5 (0.0078431) instead of 1/128", Prep("RGB", 5, (127.5,) * 3, 2 / 255),
         expect_preprocessing(("data_scale",))),
        ("mean missing (norm_type 3)", Prep("RGB", 3, None, 0.0078125),
         expect_preprocessing(("norm_type", "mean_file"))),
        ("H/W not transposed on the NNIE side", None, expect_preprocessing(transposed=True)),
    ]


def run_det1(root: Path, quick: bool) -> tuple[Model | None, list[dict]]:
    m = mtcnn_model("det1", root)
    if m is None:
        return None, []
    r = Runner(m, root, quick)
    standard_runs(
        r, prep_faults=mtcnn_prep_faults(), other_healthy=MTCNN_BGR_HEALTHY,
        quant=[("conv2 channel 5 x1/300, conv3 reads it x300 (BN-folding-like weight range)",
                tail(m, "conv2", "conv3", 5, 1 / 300), ("conv2", "conv3"), False)],
        matching=[("conv3 dumped H,W,C (Permute)", hwc(r, "conv3"), "conv3", False)],
        post=[("P-Net boxes (postprocess_pnet.py)", post(r, f"{PNET_POST}:decode"), False),
              ("P-Net boxes, scores within 0.04 of 0.6 moved across",
               post(r, f"{PNET_POST}:decode", ("prob1", 1, 0.6, 0.04)), False)])
    verdicts_cfg_only.loop_runs(r, verdicts_cfg_only.mtcnn_faults(MTCNN_PREP), MTCNN_PREP, Expect)
    return m, r.records


def run_det2(root: Path, quick: bool) -> tuple[Model | None, list[dict]]:
    m = mtcnn_model("det2", root)
    if m is None:
        return None, []
    r = Runner(m, root, quick)
    standard_runs(
        r, prep_faults=mtcnn_prep_faults(), other_healthy=MTCNN_BGR_HEALTHY,
        quant=[("conv1 channel 9 x200, conv2 reads it /200 (activation tail)",
                tail(m, "conv1", "conv2", 9, 200.0), ("conv1", "conv2"), True)],
        matching=[("in-place prelu3 split from conv3", split(r, "prelu3", "conv3"), "conv3", True)],
        post=[("face score (classification)", post(r, f"{post_module(r)}:decode_face_score"), True)])
    return m, r.records


def run_det3(root: Path, quick: bool) -> tuple[Model | None, list[dict]]:
    m = mtcnn_model("det3", root)
    if m is None:
        return None, []
    r = Runner(m, root, quick)
    standard_runs(
        r, prep_faults=mtcnn_prep_faults(), other_healthy=MTCNN_BGR_HEALTHY,
        quant=[("conv2 channel 7 x128, conv3 reads it /128 (activation tail)",
                tail(m, "conv2", "conv3", 7, 128.0), ("conv2", "conv3"), False)],
        matching=[("in-place prelu5 split from InnerProduct conv5", split(r, "prelu5", "conv5"), "conv5", False)],
        post=[("face score (classification)", post(r, f"{post_module(r)}:decode_face_score"), False)],
        inst=False)
    return m, r.records


def ssd_model(key: str, prep: Prep, root: Path) -> Model | None:
    folder = corpus_dir("models") / "yufacedetectnet-v1"
    mtcnn = corpus_dir("models") / "mtcnn"
    if not (folder / "yufacedetectnet-open-v1.caffemodel").is_file():
        return None
    title = "yufacedetectnet" + (" (norm_type 0, a user-reported cfg)" if prep.norm_type == 0 else "")
    return Model(key, title, folder / "yufacedetectnet-open-v1.prototxt", folder / "yufacedetectnet-open-v1.caffemodel",
                 [mtcnn / "test2.jpg", mtcnn / "test1.jpg"], prep)


def run_yuface(root: Path, quick: bool) -> tuple[Model | None, list[dict]]:
    m = ssd_model("yuface", SSD_PREP, root)
    if m is None:
        return None, []
    r = Runner(m, root, quick)
    standard_runs(
        r, prep_faults=[
            ("RGB_order RGB (net trained BGR)", Prep("RGB", 2, (104.0, 117.0, 123.0)),
             expect_preprocessing(("RGB_order",))),
            ("mean missing (norm_type 0)", SSD_PREP_ISSUE, expect_preprocessing(("norm_type", "mean_file"))),
            ("means in R,G,B order (123,117,104)", Prep("BGR", 2, (123.0, 117.0, 104.0)),
             expect_preprocessing(("norm_type", "mean_file"))),
        ],
        quant=[("conv3_2 channel 11 x1/300, conv3_3 reads it x300 (weight range)",
                tail(m, "conv3_2", "conv3_3", 11, 1 / 300), ("conv3_2", "conv3_3"), False),
               ("conv2_1 channel 3 x100, conv2_2 reads it /100 (activation tail)",
                tail(m, "conv2_1", "conv2_2", 3, 100.0), ("conv2_1", "conv2_2"), False)],
        matching=[("conv4_3_norm (Normalize) dumped H,W,C", hwc(r, "conv4_3_norm"), "conv4_3_norm", False)],
        post=[("final outputs as arrays", post(r, f"{post_module(r)}:decode_concat"), False)])
    verdicts_cfg_only.loop_runs(r, verdicts_cfg_only.yuface_faults(SSD_PREP), SSD_PREP, Expect)
    return m, r.records


def run_yuface_issue(root: Path, quick: bool) -> tuple[Model | None, list[dict]]:
    """The cfg of a user report (BGR, norm_type 0): healthy runs, a power-of-two data scale (a
    preprocessing fault that looks like a decoding factor on this bias-free net) and the ×16
    decoding fault."""
    m = ssd_model("yuface-nt0", SSD_PREP_ISSUE, root)
    if m is None:
        return None, []
    r = Runner(m, root, quick)
    cfg = r.cfg("net")
    ref = lambda: r.reference(cfg)  # noqa: E731
    sim8 = lambda: r.emulate(cfg, "sim8")  # noqa: E731
    r.case("healthy-8bit", "same cfg, 8-bit", expect_healthy(), lambda: r.compare(ref(), sim8(), cfg))
    r.case("healthy-8bit", "same cfg, 8-bit, every image of the list (--images all)", expect_healthy(),
           lambda: r.compare(r.reference(cfg, "ref_all", ("--images", "all")),
                             r.emulate(cfg, "sim8_all", extra=("--images", "all")), cfg))
    cfg16 = r.cfg("net_cm1", compile_mode=1)
    r.case("healthy-16bit", "same cfg, compile_mode 1", expect_healthy(),
           lambda: r.compare(ref(), r.emulate(cfg16, "sim16", bits=16), cfg16))

    def half_scale():  # a power-of-two data scale on a bias-free trunk: what a decoding rule must not take
        c = r.cfg("prep_half", Prep("BGR", 3, None, 0.5))
        return r.compare(ref(), r.emulate(c, "sim_prep_half"), c)
    r.case("preprocessing", "data_scale 0.5 (norm_type 3) on a bias-free net trained unscaled",
           expect_preprocessing(("data_scale", "norm_type")), half_scale)

    def times16():
        faults.scale_hex_dumps(sim8(), r.root / "dec_x16", 16.0)
        return r.compare(ref(), r.root / "dec_x16", cfg)
    r.case("decoding", "x16 on every layer (16.16 dump read as 20.12)", expect_decoding(), times16)
    return m, r.records


def run_deep(root: Path, quick: bool) -> tuple[Model | None, list[dict]]:
    from nnie_lsp.testing.hp_synthetic import DeepNetSpec, write_project

    spec = DeepNetSpec(depth=10, channels=8, size=32, bottlenecks={}, seed=11, images=2, name="deep10")
    paths = write_project(root / "project", spec)
    images = sorted((root / "project").glob("image*.png"))
    m = Model("deep", "deep10 (generated)", paths["prototxt"], paths["caffemodel"], images, DEEP_PREP,
              notes=["hp_synthetic DeepNetSpec(depth=10, channels=8, size=32, seed=11), no bottleneck"])
    r = Runner(m, root, quick)

    def bottleneck(dst: Path) -> dict:
        faulty = DeepNetSpec(depth=10, channels=8, size=32, bottlenecks={4: 400.0}, seed=11, images=2, name="deep10")
        from nnie_lsp.testing.hp_synthetic import caffemodel_bytes
        dst.write_bytes(caffemodel_bytes(faulty))
        return {"layer": "conv4", "ratio": 400.0}

    standard_runs(
        r, prep_faults=[
            ("RGB_order RGB (net trained BGR)", Prep("RGB", 5, (128.0,) * 3, 0.0078125),
             expect_preprocessing(("RGB_order",))),
            ("mean 127.5 instead of 128", Prep("BGR", 5, (127.5,) * 3, 0.0078125),
             expect_preprocessing(("norm_type", "mean_file"))),
            ("data_scale 1/256 (default) instead of 1/128", Prep("BGR", 5, (128.0,) * 3, 1 / 256),
             expect_preprocessing(("data_scale",))),
        ],
        quant=[("conv4 BN-style weight outlier x400 (zero input channel)", bottleneck, ("conv4",), False)],
        matching=[("conv6 dumped H,W,C (Permute)", hwc(r, "conv6"), "conv6", False)],
        post=[("final output as array", post(r, f"{post_module(r)}:decode_concat"), False)])
    return m, r.records


def run_branchy(root: Path, quick: bool) -> tuple[Model | None, list[dict]]:
    paths = faults.write_branchy_net(root / "net", seed=21, size=32)
    mtcnn = corpus_dir("models") / "mtcnn"
    images = [mtcnn / "test2.jpg", mtcnn / "test1.jpg"] if (mtcnn / "test1.jpg").is_file() else [REPO_IMAGE]
    m = Model("branchy", "branchy (generated: Concat + in-place ReLU)", paths["prototxt"], paths["caffemodel"],
              images, BRANCHY_PREP, notes=["generated, seed 21, trained as x/255 (norm_type 3)"])
    r = Runner(m, root, quick)
    standard_runs(
        r, prep_faults=[
            ("data_scale 1/256 (default) instead of 1/255", Prep("BGR", 3, None, 1 / 256),
             expect_preprocessing(("data_scale",))),
            ("RGB_order RGB (net trained BGR)", Prep("RGB", 3, None, 1 / 255), expect_preprocessing(("RGB_order",))),
            ("a mean the net was not trained with (norm_type 5, 128)", Prep("BGR", 5, (128.0,) * 3, 1 / 255),
             expect_preprocessing(("norm_type", "mean_file"))),
        ],
        quant=[("conv3 channel 2 x200, conv4 reads it /200 (activation tail)",
                tail(m, "conv3", "conv4", 2, 200.0), ("conv3", "conv4"), False)],
        matching=[("Concat + in-place ReLU split (cat2_relu)", split(r, "cat2_relu", "cat2", paths["split_prototxt"]),
                   "cat2", True)],
        post=[("final output as array", post(r, f"{post_module(r)}:decode_concat"), False)])
    return m, r.records


def expect_conversion(layer: str) -> Expect:
    def check(doc: dict) -> tuple[bool, str]:
        # the verdict's layer (a Reshape in another order keeps the values: the first VALUE difference
        # is the layer reading it, the verdict and T501 name the Reshape)
        first = (doc.get("framework") or {}).get("first_difference")
        t501 = [f.get("layer") for f in doc.get("findings") or [] if f.get("code") == "T501"]
        ok = (column_of(doc) == "conversion" and str(doc.get("verdict")).endswith(f"from {layer} on")
              and t501 == [layer])
        return ok, "" if ok else f"conversion expected at {layer}: verdict {doc.get('verdict')!r}, first {first}"
    return Expect(f"conversion at {layer} (T501)", check)


def onet():
    """MTCNN det3 (O-Net) as a PyTorch port exports it (48×48, ceil_mode 1 pools, Flatten + Gemm
    conv5: 1152 → 256), real weights; built with the test builders' helpers."""
    from nnie_lsp.testing import onnx_models as m

    wts = m._mtcnn_weights("det3")
    b = m._Builder("ONet", "data", (1, 3, 48, 48))
    x = "data"
    for i, (k, s) in enumerate(((3, 2), (3, 2), (2, 2)), 1):
        x = m._prelu(b, f"prelu{i}", m._conv(b, f"conv{i}", x, *wts[f"conv{i}"]), wts[f"prelu{i}"][0])
        x = b.node("MaxPool", [x], [f"pool{i}"], f"pool{i}", kernel_shape=[k, k], strides=[s, s], ceil_mode=1)
    x = m._prelu(b, "prelu4", m._conv(b, "conv4", x, *wts["conv4"]), wts["prelu4"][0])
    x = b.node("Flatten", [x], ["flatten"], "flatten", axis=1)

    def gemm(name, x):
        w, bias = wts[name]
        return b.node("Gemm", [x, b.init(f"{name}.weight", w), b.init(f"{name}.bias", bias)], [name], name, transB=1)

    x = m._prelu(b, "prelu5", gemm("conv5", x), wts["prelu5"][0], spatial=False)
    c61 = gemm("conv6-1", x)
    gemm("conv6-2", x)
    gemm("conv6-3", x)
    b.node("Softmax", [c61], ["prob1"], "prob1", axis=1)
    b.outputs = ["prob1", "conv6-2", "conv6-3"]
    return b.model()


def run_conversion(root: Path, quick: bool) -> tuple[Model | None, list[dict]]:
    """The conversion row and its faithful (healthy) runs: other sizes, layers, nets and image than
    tests/triage/diagnose/test_conversion*.py (det1 25×25 ceil_mode and conv1 weights, det2 ip_order and conv1
    weights, chain_net seed 0 20×20 with conv1 weights; test1.jpg): here det1 47×47, det3, chain_net
    seed 7 28×28 (conv3 weights), test2.jpg.  bn_eps is not a run: 1e-5 for 1e-3 is below the
    conversion bar (docs/conversion.md); the static check names it."""
    try:
        import onnx  # noqa: F401
        import onnxruntime  # noqa: F401
    except ImportError:
        return None, []
    from nnie_lsp.testing import onnx_models as m
    from nnie_lsp.testing.conversion_chain import MTCNN_PREP, run_chain, write_project
    from nnie_lsp.testing.onnx_models_convert import convert

    folder = corpus_dir("models") / "mtcnn"
    if not (folder / "det3.caffemodel").is_file():
        return None, []
    image = folder / "test2.jpg"
    model = Model("conversion", "MTCNN det1 47x47 / det2 / det3 and the chain net 28x28 as ONNX, converted to Caffe",
                  folder / "det1.prototxt", folder / "det1.caffemodel", [image], MTCNN_PREP, transpose=True,
                  notes=["ONNX exports built from the real weights (chain net: seed 7); one converter fault per run"])
    r = Runner(model, root, quick)
    nets = {"det1": lambda: m.pnet(size=47), "det2": m.rnet, "det3": onet,
            # the generated chain net (Clip, HardSwish, SiLU, Resize, Concat/Split, Reshape): its Caffe
            # reference runs in the numpy forward (OpenCV has no Clip/Upsample); tests use seed 0, 20×20
            "chain": lambda: m.chain_net(seed=7, size=28), "chain_asym": lambda: m.chain_net(seed=7, size=28,
                                                                                              asymmetric_pads=True)}
    # (net, fault, convert() options, the layer triage must name when it is not the fault's layer:
    # a dropped operator is named at the layer reading past it)
    runs = [("det1", "ceil_mode", {}, None), ("det1", "weights", {"at": "conv2"}, None),
            ("det1", "weights", {"at": "conv3"}, None), ("det2", "weights", {"at": "conv2"}, None),
            ("det2", "weights", {"at": "conv3"}, None), ("det3", "ip_order", {}, None),
            ("det3", "weights", {"at": "conv1"}, None), ("det3", "weights", {"at": "conv4"}, None),
            ("chain", "pads_lost", {}, None), ("chain_asym", "asym_pads", {}, None),
            ("chain", "dilation_lost", {}, None), ("chain", "upsample_bilinear", {}, None),
            ("chain", "upsample_scale", {}, None), ("chain", "upsample_fork", {}, None),
            ("chain", "relu6_to_relu", {}, None), ("chain", "hardswish_lost", {}, "conv3"),
            ("chain", "silu_lost", {}, "up"), ("chain", "bn_fold_lost", {"fold_bn": True}, None),
            ("chain", "concat_axis", {}, None), ("chain", "slice_axis", {}, None),
            ("chain", "softmax_axis", {}, None), ("chain", "reshape_target", {}, None),
            ("chain", "weights", {"at": "conv3"}, None)]

    def chain(key: str, fault: str | None, options: dict):
        net = nets[key]()
        conv = convert(net, fault, **options)
        project = write_project(root / f"{key}_{fault}_{options.get('at')}", net, conv, [image],
                                transpose=not key.startswith("chain"))
        return conv, lambda: run_chain(project)

    for key, fault, options, layer in runs:
        conv, build = chain(key, fault, options)
        r.case("conversion", f"{key}: {fault} at {conv.fault_layer} ({FAULT_TEXT[fault]})",
               expect_conversion(layer or conv.fault_layer), build, quick=fault in ("ceil_mode", "relu6_to_relu"))
    for key in ("det1", "det2", "det3", "chain"):
        _conv, build = chain(key, None, {})
        r.case("healthy-8bit", f"{key}: faithful conversion, compare --framework", expect_healthy(), build,
               quick=key == "det1")
    return model, r.records


FAULT_TEXT = {"ceil_mode": "pooling rounds up in Caffe, down in ONNX", "weights": "kernels transposed",
              "ip_order": "InnerProduct weights after Flatten in H, W, C order",
              "pads_lost": "pads not written", "asym_pads": "only the begin pads written",
              "dilation_lost": "dilation not written", "upsample_bilinear": "nearest Resize as a bilinear Deconvolution",
              "upsample_scale": "Upsample without its scale", "upsample_fork": "a fork's Upsample fields",
              "relu6_to_relu": "ReLU6 (Clip 0..6) as ReLU", "hardswish_lost": "HardSwish dropped",
              "silu_lost": "SiLU's Mul dropped", "bn_fold_lost": "BatchNorm dropped instead of folded",
              "concat_axis": "Concat axis 2 written as 1", "slice_axis": "Split axis 3 written as 1",
              "softmax_axis": "Softmax last axis written as 1", "reshape_target": "Reshape target in another order"}


def run_board(root: Path, quick: bool) -> tuple[Model | None, list[dict]]:
    """The board row (benchmarks/board_runs.py): board dumps of det1 at 36×36, det2, det3 and
    yufacedetectnet, faithful or with one board-code mistake, through ``compare --board``."""
    from board_runs import run_board as runs

    def det1(folder: Path) -> Model | None:
        base = mtcnn_model("det1", folder)
        if base is None:
            return None
        src = corpus_dir("models") / "mtcnn" / "det1.prototxt"
        proto = folder / "det1_36x36.prototxt"
        proto.write_text(faults.with_input_shape(src.read_text(encoding="utf-8"), (1, 3, 36, 36)), encoding="utf-8")
        return Model("det1", "MTCNN det1 36x36", proto, base.caffemodel, base.images, MTCNN_PREP, transpose=True,
                     notes=["det1 at 36x36: two 13x13 outputs (input_dim changed only)"])

    factories = {"det1": det1, "det2": lambda f: mtcnn_model("det2", f), "det3": lambda f: mtcnn_model("det3", f),
                 "yuface": lambda f: ssd_model("yuface", SSD_PREP, f)}
    models, records = runs(root, quick, runner_cls=Runner, model_fns=factories, expect_cls=Expect)
    if not models:
        return None, []
    group = Model("board", "board dumps of " + ", ".join(m.title for m in models), models[0].prototxt,
                  models[0].caffemodel, models[0].images, models[0].prep, notes=[n for m in models for n in m.notes])
    return group, records


MODELS: dict[str, Callable[[Path, bool], tuple[Model | None, list[dict]]]] = {
    "det1": run_det1, "det2": run_det2, "det3": run_det3, "yuface": run_yuface, "yuface-nt0": run_yuface_issue,
    "deep": run_deep, "branchy": run_branchy, "conversion": lambda root, quick: run_conversion(root, quick),
    "board": run_board,
}
# the longest first, so that two workers end together
ORDER = ("yuface", "det1", "det2", "det3", "branchy", "conversion", "board", "deep", "yuface-nt0")


def run_model(key: str, root: str, quick: bool) -> dict:
    started = time.perf_counter()
    folder = Path(root) / key
    try:
        model, records = MODELS[key](folder, quick)
    except Exception as exc:
        return {"key": key, "skipped": f"{type(exc).__name__}: {exc}", "records": [], "seconds": 0.0,
                "trace": traceback.format_exc()}
    if model is None:
        return {"key": key, "skipped": f"the shared corpus ({corpus_dir('models')}) has no files for {key}",
                "records": [], "seconds": 0.0}
    return {"key": key, "title": model.title, "notes": model.notes, "records": records,
            "seconds": round(time.perf_counter() - started, 1)}


# ----------------------------------------------------------------------------- report

def confusion(records: list[dict]) -> dict[str, dict[str, int]]:
    table = {t: {c: 0 for c in COLUMNS} for t in TRUTHS}
    for rec in records:
        table[rec["truth"]][rec["column"]] += 1
    return table


def print_table(records: list[dict]) -> None:
    table = confusion(records)
    width = max(len(t) for t in TRUTHS)
    head = f"{'truth':<{width}} | " + " | ".join(f"{c:>12}" for c in COLUMNS) + " |  right / runs"
    print(head)
    print("-" * len(head))
    for truth in TRUTHS:
        runs = [r for r in records if r["truth"] == truth]
        if not runs:
            continue
        right = sum(r["right"] for r in runs)
        print(f"{truth:<{width}} | " + " | ".join(f"{table[truth][c]:>12}" for c in COLUMNS)
              + f" | {right:>5} / {len(runs)}")


def _short(text: str | None, n: int) -> str:
    text = (text or "").replace("\n", " ")
    return text if len(text) <= n else text[: n - 1] + "…"


def print_runs(records: list[dict], wide: bool) -> None:
    print()
    print("per run: model | truth | fault | verdict (column) | next step | first divergence | right | reason")
    for rec in records:
        mark = "ok " if rec["right"] else "BAD"
        verdict = rec.get("verdict") or rec.get("note", "")
        print(f"{mark} {rec['model']:<10} {rec['truth']:<15} {_short(rec['fault'], 58):<58} "
              f"-> {rec['column']:<12} step {rec.get('next_step', '-')!s:<2} "
              f"first {rec.get('first_divergence') or '-'}")
        print(f"      verdict: {_short(verdict, 200)}")
        print(f"      reason:  {_short(rec.get('reason'), 400 if wide else 200)}")
        if rec.get("note"):
            print(f"      check:   {rec['note']}  (expected {rec['expected']})")
        alone = (rec.get("extra") or {}).get("sim16_alone")
        if alone and not rec["right"]:
            print(f"      16-bit run alone: {alone['verdict']}, lowest cosine {_f(alone['min_cosine'])} "
                  f"at {alone['at']}")
        for dip in rec.get("dips") or [] if not rec["right"] else []:
            print(f"      dip:     {dip['layer']} {_f(dip['cosine'])}: "
                  f"{'explained' if dip['explained'] else 'unexplained'} {dip.get('kind') or ''} "
                  f"{dip.get('lint_code') or ''} {_short(dip.get('explanation'), 160)}")
        if rec.get("sim16") and not rec["right"]:
            s16 = rec["sim16"]
            print(f"      16-bit:  {s16.get('verdict')}, end 8-bit {_f(s16.get('end_cosine_8bit'))} -> 16-bit "
                  f"{_f(s16.get('end_cosine_16bit'))}, first divergence at 16 bit {s16.get('first_divergence_16bit')}")
        prof = rec.get("profile") or {}
        layer = prof.get("layer")
        if layer and not rec["right"]:
            print(f"      numbers: {layer['name']}: cosine {layer['cosine']:.4f}, best scale {layer['lsq_scale']:.4g}, "
                  f"max abs err / range {layer['relative_error']:.3g}, rel L2 {layer['rel_l2']:.3g}, "
                  f"saturated {layer['saturation_share']:.3g}, ref {_rng(layer['ref_range'])} "
                  f"sim {_rng(layer['sim_range'])}; "
                  f"layers' best scales: median {_f(prof.get('lsq_median'))}, "
                  f"min {_f(prof.get('lsq_min'))}, max {_f(prof.get('lsq_max'))}, "
                  f"{_f(prof.get('lsq_off_share'), '.0%')} off by > 5 %; data {_f(prof.get('data_lsq'))}")


def _f(v, fmt: str = ".4g") -> str:
    return "-" if v is None or (isinstance(v, float) and not math.isfinite(v)) else format(v, fmt)


def _rng(r) -> str:
    if not r:
        return "-"
    return "[" + ", ".join(_f(_num(v), ".4g") for v in r) + "]"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one model (det2, else branchy), a few faults")
    ap.add_argument("--models", help=f"comma-separated, from: {', '.join(ORDER)} (default: all)")
    ap.add_argument("--json", metavar="OUT", help="write every run's record (with per-layer numbers) here")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="models run in parallel")
    ap.add_argument("--keep", metavar="DIR", help="work in DIR and keep the dumps (default: a temporary folder)")
    ap.add_argument("--wide", action="store_true", help="longer reasons in the per-run list")
    args = ap.parse_args(argv)

    if args.models:
        keys = [k.strip() for k in args.models.split(",") if k.strip()]
        unknown = [k for k in keys if k not in MODELS]
        if unknown:
            ap.error(f"unknown model(s) {unknown}; known: {', '.join(ORDER)}")
    elif args.quick:
        has_corpus = (corpus_dir("models") / "mtcnn" / "det2.caffemodel").is_file()
        keys = ["det2" if has_corpus else "branchy"]
    else:
        keys = list(ORDER)
    if not (corpus_dir("models")).is_dir():
        print(f"note: the shared corpus ({corpus_dir('models')}) is absent: only the generated nets run",
              file=sys.stderr)

    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-verdicts-"))
    root.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    try:
        if args.jobs > 1 and len(keys) > 1:
            with ProcessPoolExecutor(max_workers=args.jobs) as pool:
                futures = [pool.submit(run_model, k, str(root), args.quick) for k in keys]
                results = [f.result() for f in futures]
        else:
            results = [run_model(k, str(root), args.quick) for k in keys]
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    elapsed = time.perf_counter() - started

    records = [rec for res in results for rec in res["records"]]
    print(f"bench_verdicts: {len(records)} runs on {sum(1 for r in results if r['records'])} model(s), "
          f"{elapsed:.0f} s wall ({args.jobs} job(s))")
    for res in results:
        if res.get("skipped"):
            print(f"  skipped {res['key']}: {res['skipped']}")
        else:
            notes = f" — {'; '.join(res['notes'])}" if res.get("notes") else ""
            print(f"  {res['key']:<10} {res['title']}: {len(res['records'])} runs, {res['seconds']} s{notes}")
    print()
    print_table(records)
    print_runs(records, args.wide)

    faults_runs = [r for r in records if r["truth"] not in HEALTHY]
    healthy_runs = [r for r in records if r["truth"] in HEALTHY]
    named = sum(r["right"] for r in faults_runs)
    alarms = sum(r["column"] in ("inconclusive", "bundle", "decoding", "conversion", "board") for r in healthy_runs)
    healthy_right = sum(r["right"] for r in healthy_runs)
    goal = named == len(faults_runs) and alarms == 0
    print()
    print(f"goal: every fault named right, no healthy run told inconclusive or make a bundle — "
          f"faults named right {named}/{len(faults_runs)}, healthy runs told inconclusive/bundle "
          f"{alarms}/{len(healthy_runs)} (case 4: {healthy_right}/{len(healthy_runs)}): "
          f"{'MET' if goal else 'NOT MET'}")
    if args.json:
        doc = {"elapsed_s": round(elapsed, 1), "jobs": args.jobs, "quick": args.quick,
               "models": [{k: v for k, v in res.items() if k != "records"} for res in results],
               "confusion": confusion(records), "goal_met": goal,
               "faults_named": [named, len(faults_runs)], "healthy_alarms": [alarms, len(healthy_runs)],
               "runs": records}
        Path(args.json).write_text(json.dumps(doc, indent=1, default=str), encoding="utf-8")
        print(f"records: {args.json}")
    for res in results:
        if res.get("trace"):
            print(f"\n{res['key']} failed:\n{res['trace']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

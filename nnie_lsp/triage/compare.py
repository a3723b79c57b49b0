"""One image's comparison: load the two dump sets, align them, measure every pair, diagnose.

Callers go through :func:`nnie_lsp.triage.pipeline.triage` (inputs found once, one image or
several); ``run_compare(reference, sim, ...) -> TriageResult`` is its per-image step; ``TriageResult.to_json()`` is the documented
schema (``SCHEMA_VERSION``), which the report module renders as text, markdown or HTML.
"""

from __future__ import annotations

import importlib
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from nnie_lsp.readers.dumpio import scan as dumps_mod
from nnie_lsp.readers.prototxt.nnie_ends import nnie_ends
from nnie_lsp.triage.diagnose.bad_dumps import input_size_mismatches
from nnie_lsp.triage.diagnose.tree import Diagnosis, diagnose
from nnie_lsp.triage.diagnose.builder import Sources, finding_json
from nnie_lsp.triage.measure.input_codes import decode_input_codes
from nnie_lsp.triage.measure.metrics import Thresholds, compare_arrays
from nnie_lsp.triage.measure.rows import LayerRow
from nnie_lsp.triage.progress import NO_PROGRESS, Reporter
from nnie_lsp.readers.prototxt.nnie_ends import nnie_ends, runs_on_nnie  # noqa: F401  (the ends the rows judge)

#: Progress within one image's share (percent): alignment up to here, then the per-pair metrics ...
ALIGNED_AT = 25.0
#: ... up to here; the rest is the 16-bit run and the diagnosis.
MEASURED_AT = 90.0

if TYPE_CHECKING:
    from nnie_lsp.readers.mapper.nettree import NetTree
    from nnie_lsp.readers.prototxt.graph import GraphLayer, NetGraph

SCHEMA_VERSION = 2  # docs/triage-schema.md: what changed from 1


class TriageInputError(ValueError):
    """Bad user input (missing folder, unreadable file, bad option): exit code 2, no traceback."""


def load_graph(prototxt: str | Path) -> NetGraph:
    """The prototxt's graph (the cached parse the lint and the reference share), once the
    reference's loader accepts the file: readable, parsed without syntax errors, with an input;
    :class:`TriageInputError` otherwise."""
    from nnie_lsp.readers.caffemodel import NetLoadError
    from nnie_lsp.reference.net import load_net

    p = Path(prototxt)
    if not p.is_file():
        raise TriageInputError(f"prototxt {p} does not exist")
    try:
        load_net(p)
    except NetLoadError as exc:
        raise TriageInputError(str(exc)) from exc
    from nnie_lsp.project.project import cached_prototxt
    from nnie_lsp.reference.net import read_prototxt_text

    text = read_prototxt_text(p)  # load_net read it just before: a read error was raised there
    return cached_prototxt(text, str(p))[1]  # the parse load_net just made (content-hash cache)


def _row_type(layer: GraphLayer) -> str:
    """A layer's type as the per-layer rows name it: the reference's reading (``reference.net``),
    which title-cases V1 enums outside its own table (``BNLL`` → ``Bnll``) where the graph says
    Caffe's name."""
    from nnie_lsp.reference.net import _layer_type

    return _layer_type(layer.param)


@dataclass
class TriageResult:
    diagnosis: Diagnosis
    rows: list[LayerRow]
    rows16: list[LayerRow] | None
    unmatched_ref: list[str]
    unmatched_sim: list[str]
    notes: list[str]
    warnings: list[str]
    inputs: dict[str, Any]
    thresholds: Thresholds
    elapsed_s: float = 0.0
    input_codes: list = field(default_factory=list)  # input_codes.CodeFileReport per code file
    images: dict | None = None  # several images: image_compare.py fills it (and the rows' cosine_images)
    places: dict[str, tuple[str, int, int]] = field(default_factory=dict)  # row name -> (path, line, column) 1-based
    framework: Any = None  # the hop ONNX → Caffe (measure/framework.py FrameworkHop), with --framework
    build: dict | None = None  # the .wk beside the cfg the NNIE dumps are checked against (inputs/build.py)
    reference_source: dict | None = None  # where the Caffe side's preprocessing came from (T100)
    board: dict | None = None  # the board's dumps checked (board/stage.py board_json), with --board
    hp_plan: Any = None  # the `_hp` plan of a case-2 result (hp_plan/for_compare.py ComparePlan)

    # ------------------------------------------------------------------ JSON schema v2
    def to_json(self) -> dict:
        d = self.diagnosis
        first = d.first_divergence
        rows = []
        for r in self.rows:
            m = r.metrics
            row: dict[str, Any] = {
                "name": r.name, "blob": r.blob, "order": r.order, "type": r.layer_type,
                "matched_by": r.matched_by, "confidence": _num(r.confidence),
                "shape": list(r.shape) if r.shape is not None else None,
                "is_data": r.is_data, "is_output": r.is_output,
                "first_divergence": r.name == first,
                "status": self.thresholds.status(r.cosine if m is not None else None, is_data=r.is_data),
                "note": r.note,
            }
            if m is not None:
                md = m.to_dict()
                for k in ("cosine", "max_abs_error", "mean_abs_error", "rel_l2_error", "sqnr_db", "ref_range",
                          "sim_range", "saturation_share", "sign_agreement", "nan_ref", "nan_sim", "inf_ref",
                          "inf_sim", "size", "lsq_scale"):
                    if k in md:
                        row[k] = md[k]
                if m.note:
                    row["metrics_note"] = m.note
            else:
                row["cosine"] = None
                row["max_abs_error"] = None
            if r.cosine_images is not None:  # several images: the distribution of this layer's cosine
                row.update(_spread(r.cosine_images))
            if r.name in self.places:  # the layer's name (or the input's) in the prototxt
                row["path"], row["line"], row["column"] = self.places[r.name]
            rows.append(row)
        doc = {
            "schema_version": SCHEMA_VERSION,
            "tool": "nnie-triage",
            "case": d.case,
            "next_step": d.next_step,
            "next_step_text": d.next_step_text,
            "verdict": d.verdict,
            "reason": d.reason,
            "first_divergence": first,
            "inputs": self.inputs,
            "thresholds": {k: getattr(self.thresholds, k) for k in self.thresholds.__dataclass_fields__},
            "layers": rows,
            "unmatched": {"reference": self.unmatched_ref, "sim": self.unmatched_sim},
            "findings": [finding_json(f) for f in d.findings],
            "preprocessing": _preprocessing_json(d.preprocessing),
            "hp_candidates": [c.to_dict() for c in d.hp_candidates],
            "hp_plan": self.hp_plan.to_json() if self.hp_plan is not None else None,
            "dips": [_clean(x) for x in d.dips],
            "sim16": _clean(d.sim16) if d.sim16 is not None else None,
            "postprocess": _clean(d.postprocess) if d.postprocess is not None else None,
            "decoding": _clean(d.decoding) if d.decoding is not None else None,
            "bad_dumps": _clean(d.bad_dumps) if d.bad_dumps is not None else None,
            "input_codes": [c.to_json() for c in self.input_codes],
            "images": _clean(self.images) if self.images is not None else None,
            "reference_source": _clean(self.reference_source) if self.reference_source is not None else None,
            "alignment_notes": self.notes,
            "warnings": self.warnings,
            "build": self.build,
            "elapsed_s": round(self.elapsed_s, 3),
        }
        if self.framework is not None:  # the second hop's columns (framework_cosine …) and section
            from nnie_lsp.triage.measure.framework import annotate
            annotate(self.framework, doc)
        if self.board is not None:  # the last hop: the board's dumps (docs/triage-schema.md, "The board")
            doc["board"] = _clean(self.board)
        return doc


def _spread(cosines) -> dict:
    """cosine_min / cosine_median / worst_image / cosine_images of one layer over the images."""
    known = [(i, c) for i, c in enumerate(cosines) if c is not None and math.isfinite(c)]
    out: dict[str, Any] = {"cosine_images": [_num(c) if c is not None else None for c in cosines]}
    if known:
        values = [c for _, c in known]
        out["cosine_min"] = min(values)
        out["cosine_median"] = float(np.median(values))
        out["worst_image"] = min(known, key=lambda item: item[1])[0]
    else:
        out["cosine_min"] = out["cosine_median"] = out["worst_image"] = None
    return out


def _num(v):
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _clean(x):
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    if isinstance(x, (np.floating,)):
        x = float(x)
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.bool_,)):
        return bool(x)
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def _preprocessing_json(fit) -> dict | None:
    """The case-1 fit; its cfg edits with 1-based ``line`` like every line in the JSON (None = a
    line to add)."""
    if fit is None:
        return None
    out = _clean(fit.to_dict())
    for edit in out.get("edits", []):
        edit["line"] = edit.pop("line_1based", None)
    return out


# ---------------------------------------------------------------------------------- building rows
def _tensor_name(t) -> str:
    if t is None:
        return "?"
    return getattr(t, "raw_name", None) or getattr(t, "key", None) or str(t)


def _expected_shape(ref_arr: np.ndarray) -> tuple[int, ...]:
    shp = tuple(ref_arr.shape)
    while len(shp) > 3 and shp[0] == 1:
        shp = shp[1:]
    return shp


def build_rows(alignment, graph: NetGraph | None, keep_arrays: Callable[[LayerRow], bool] | None = None,
               progress: Reporter | None = None) -> tuple[list[LayerRow], list[str]]:
    rows: list[LayerRow] = []
    warnings: list[str] = []
    pairs = list(alignment.pairs)
    blob_to_row: dict[str, str] = {}
    end_blobs = nnie_ends(graph) if graph is not None else frozenset()
    for i, pair in enumerate(pairs):
        ref_t, sim_t = pair.ref, pair.sim
        blob = getattr(pair, "blob", None)
        layer = getattr(pair, "layer", None)
        name = layer or blob or _tensor_name(ref_t)
        if progress is not None:
            progress.step("measure", i, len(pairs), name)
        head_type = None
        inplace: list[tuple[str, str]] = []
        producers: list[str] = []
        is_data = False
        is_output = False
        if graph is not None:
            if blob is None and layer is not None:
                blob = graph.blob_of_layer(layer)
            chain = graph.chain_of(blob)
            if chain is not None:
                name, head_type = chain.head.name, _row_type(chain.head)
                inplace = [(member.name, _row_type(member)) for member in chain.inplace]
                producers = list(chain.head_bottoms)
            is_data = blob in graph.input_blobs
            is_output = blob in end_blobs
        else:
            key = (blob or name or "").lower()
            is_data = key in ("data", "input", "image", "img") or getattr(pair, "matched_by", "") == "data"
        if is_data:
            name = blob or name
        row = LayerRow(name=name, order=int(getattr(pair, "order", i) if getattr(pair, "order", None) is not None else i),
                       metrics=None, blob=blob, matched_by=str(getattr(pair, "matched_by", "")),
                       confidence=float(getattr(pair, "confidence", 0.0) or 0.0), is_data=is_data,
                       is_output=is_output, layer_type=head_type, producers=producers, inplace=inplace,
                       producer_type=head_type, note=getattr(pair, "note", None))
        if ref_t is None or sim_t is None:
            rows.append(row)
            continue
        try:
            from nnie_lsp.triage.align.driver import load_pair

            ref, sim, lnote = load_pair(pair)
            ref = np.asarray(ref, dtype=np.float64)
            sim = np.asarray(sim, dtype=np.float64)
            exp = _expected_shape(ref) if ref.ndim >= 1 else None
            # the values as stored, for a pair read in another layout only (each file read once)
            sim_raw = np.asarray(sim_t.load_raw(), dtype=np.float64).reshape(-1) \
                if (getattr(pair, "layout", "CHW") or "CHW") != "CHW" else None
        except Exception as exc:
            warnings.append(f"{name}: cannot load the pair ({type(exc).__name__}: {exc})")
            rows.append(row)
            continue
        if sim.size != ref.size:
            row.note = ((row.note + "; ") if row.note else "") + f"sizes differ: Caffe {ref.size}, NNIE {sim.size}"
            rows.append(row)
            continue
        refc = ref.reshape(exp) if exp else ref
        simc = sim.reshape(refc.shape)
        row.shape = tuple(int(s) for s in refc.shape)
        row.metrics = compare_arrays(refc, simc)
        if lnote and ("W_H_C" in lnote or "transposed" in lnote):
            row.note = ((row.note + "; ") if row.note else "") + lnote
        row.layout = getattr(pair, "layout", "CHW") or "CHW"
        row.flags = tuple(getattr(pair, "flags", ()) or ())
        if row.layer_type is None:
            row.layer_type = getattr(pair, "layer_type", None)
        if sim_raw is not None and sim_raw.size == refc.size:
            row.stored_cosine = compare_arrays(refc, sim_raw.reshape(refc.shape)).cosine
        if keep_arrays is None or keep_arrays(row):
            # reloaded on demand by the explanations: peak memory stays one tensor pair
            row.loader = _row_loader(pair, exp)
        del ref, sim, refc, simc, sim_raw
        rows.append(row)
        if blob:
            blob_to_row[blob] = row.name
    # producers: blob names -> row names
    for r in rows:
        r.producers = [blob_to_row.get(b, b) for b in r.producers]
    rows.sort(key=lambda r: r.order)
    return rows, warnings


def _row_loader(pair, exp):
    def load():
        from nnie_lsp.triage.align.driver import load_pair
        ref, sim, _ = load_pair(pair)
        ref = np.asarray(ref, dtype=np.float64)
        refc = ref.reshape(exp) if exp else ref
        simc = np.asarray(sim, dtype=np.float64).reshape(refc.shape)
        raw = np.asarray(pair.sim.load_raw(), dtype=np.float64).reshape(-1)
        return refc, simc, raw
    return load


def _keep(th: Thresholds) -> Callable[[LayerRow], bool]:
    def keep(r: LayerRow) -> bool:
        m = r.metrics
        if r.is_data or r.is_output:
            return True
        return m is not None and (not math.isfinite(m.cosine) or m.cosine < th.middle_dip)
    return keep


def load_postprocess(spec: str) -> Callable:
    """`module:function`; the module may also be a path to a .py file.  A file is registered in
    ``sys.modules`` (under a private name) before it runs, as an import would be, so that what
    needs its module at definition time (a ``@dataclass``, pickling) works."""
    import importlib.util
    import sys

    if ":" not in spec:
        raise TriageInputError(f"--postprocess needs module:function, got {spec!r}")
    mod_name, func_name = spec.rsplit(":", 1)
    try:
        if mod_name.endswith(".py") or os.sep in mod_name or "/" in mod_name:
            p = Path(mod_name)
            if not p.is_file():
                raise TriageInputError(f"--postprocess: {p} does not exist")
            name = f"_nnie_triage_postprocess_{re.sub(r'[^0-9A-Za-z_]', '_', p.stem)}"
            specm = importlib.util.spec_from_file_location(name, p)
            if specm is None or specm.loader is None:
                raise TriageInputError(f"--postprocess: {p} cannot be loaded as a Python module")
            module = importlib.util.module_from_spec(specm)
            sys.modules[name] = module
            try:
                specm.loader.exec_module(module)
            except BaseException:
                sys.modules.pop(name, None)
                raise
        else:
            module = importlib.import_module(mod_name)
    except TriageInputError:
        raise
    except Exception as exc:
        raise TriageInputError(f"--postprocess: cannot import {mod_name}: {type(exc).__name__}: {exc}") from exc
    fn = getattr(module, func_name, None)
    if not callable(fn):
        raise TriageInputError(f"--postprocess: {mod_name} has no function {func_name}")
    return fn


def _scan(path: str | Path, what: str):
    p = Path(path)
    if not p.exists():
        raise TriageInputError(f"{what} {p} does not exist")
    ds = dumps_mod.scan_dumps(str(p))
    if not len(ds):
        raise TriageInputError(f"{what} {p}: no dump files found ({'; '.join(ds.warnings) or 'empty'})")
    return ds


def _align(ref_set, sim_set, graph: NetGraph | None, dot: NetTree | None):
    align_mod = importlib.import_module("nnie_lsp.triage.align.driver")

    kwargs = {}
    if graph is not None:
        kwargs["graph"] = graph
    if dot is not None:
        kwargs["dot"] = dot
    return align_mod.align(ref_set, sim_set, **kwargs)


def run_compare(reference: str | Path, sim: str | Path, *, sim16: str | Path | None = None,
                cfg: str | Path | None = None, prototxt: str | Path | None = None, dot: str | Path | None = None,
                thresholds: Thresholds | None = None, postprocess: str | Callable | None = None,
                progress: Reporter | None = None, lang: str = "en",
                clips: dict[str, float] | None = None, clips_origin: str | None = None,
                stale: dict | None = None, reference_source: dict | None = None) -> TriageResult:
    """Compare two dump sets (one image) and diagnose; `lang` ("en" or "zh") is the findings'
    language. ``clips`` (blob -> clip, from an emulation of the same cfg) decode 8-bit input dumps
    that have no dequantized twin; by default those of the simulator folder's own manifest (an
    ``nnie-triage emulate`` folder), :mod:`.input_codes`."""
    import time

    t0 = time.perf_counter()
    progress = progress or NO_PROGRESS
    aligned, measured = progress.part(0, ALIGNED_AT), progress.part(ALIGNED_AT, MEASURED_AT)
    aligned.step("align", 0, 1)
    th = thresholds or Thresholds()
    if cfg is not None and not Path(cfg).is_file():
        raise TriageInputError(f"cfg {cfg} does not exist")
    graph, prototxt_problem = _graph_or_problem(prototxt, cfg, dot)
    sources = _sources(cfg, graph, lang)
    dot_graph = None
    if dot is not None:
        dp = Path(dot)
        if not dp.is_file():
            raise TriageInputError(f"dot file {dp} does not exist")
        from nnie_lsp.readers.mapper.nettree import parse_net_tree
        from nnie_lsp.core.text import read_text

        dot_graph = parse_net_tree(read_text(str(dp)).text, path=str(dp))  # bound: the kind its name suggests
    pp = load_postprocess(postprocess) if isinstance(postprocess, str) else postprocess
    ref_set = _scan(reference, "reference dump folder")
    sim_set = _scan(sim, "simulator dump folder")
    if clips is None:
        from nnie_lsp.triage.inputs.image_sets import DumpFolder

        clips, clips_origin = DumpFolder.read(sim).clips(), f"the emulation in {sim}"
    sim_set, code_reports = decode_input_codes(sim_set, clips, graph,
                                               clips_origin or "an emulation")
    al = _align(ref_set, sim_set, graph, dot_graph)
    if al.pairs:
        aligned.step("align", 1, 1)
    input_sizes = input_size_mismatches(al, graph)
    rows, warns = build_rows(al, graph, _keep(th), None if progress.silent else measured)
    rows16 = None
    notes = [str(n) for n in getattr(al, "notes", [])]
    if sim16 is not None:
        s16 = _scan(sim16, "16-bit simulator dump folder")
        al16 = _align(ref_set, s16, graph, dot_graph)
        rows16, w16 = build_rows(al16, graph, lambda r: r.is_data or r.is_output)
        warns += [f"16-bit: {w}" for w in w16]
    warnings = list(ref_set.warnings) + _code_files_read(list(sim_set.warnings), code_reports) + warns
    diag = diagnose(rows, thresholds=th, rows16=rows16, sources=sources, postprocess=pp,
                    bundle_hint=_bundle_hint(reference, sim, cfg, prototxt if graph is not None else None),
                    prototxt_problem=prototxt_problem, stale=stale, reference_source=reference_source,
                    input_sizes=input_sizes)
    progress.step("diagnose", 1, 1)
    inputs = {"reference": str(reference), "sim": str(sim), "sim_16bit": str(sim16) if sim16 else None,
              "cfg": str(cfg) if cfg else None, "prototxt": str(prototxt) if prototxt else None,
              "dot": str(dot) if dot else None,
              "postprocess": postprocess if isinstance(postprocess, str) else None,
              "reference_kind": ref_set.kind, "sim_kind": sim_set.kind,
              "working_directory": os.getcwd()}
    return TriageResult(diagnosis=diag, rows=rows, rows16=rows16,
                        unmatched_ref=[_tensor_name(t) for t in getattr(al, "unmatched_ref", [])],
                        unmatched_sim=[_tensor_name(t) for t in getattr(al, "unmatched_sim", [])],
                        notes=notes, warnings=warnings, inputs=inputs, thresholds=th,
                        elapsed_s=time.perf_counter() - t0, input_codes=code_reports,
                        places=_row_places(rows, sources), reference_source=reference_source)


def _row_places(rows: list[LayerRow], sources: Sources) -> dict[str, tuple[str, int, int]]:
    """Where each row's layer (or network input) is named in the prototxt, 1-based, as the
    findings write places (``path`` relative to the working directory)."""
    from nnie_lsp.core.diagnostic_json import rel

    out: dict[str, tuple[str, int, int]] = {}
    for r in rows:
        place = sources.node_place(r.name)
        if place is not None:
            path, rng = place
            out[r.name] = (rel(path), rng.start.line + 1, rng.start.character + 1)
    return out


def _graph_or_problem(prototxt: str | Path | None, cfg: str | Path | None,
                      dot: str | Path | None) -> tuple[NetGraph | None, tuple[str, dict] | None]:
    """(the prototxt's graph, None), or (None, the T007 message id and parameters) when the
    prototxt the cfg names is missing or cannot be used: the comparison goes on without the layer
    order and says so.  A prototxt given on its own (not the cfg's) that cannot be read is a usage
    error (:class:`TriageInputError`), as before."""
    order = "dot" if dot is not None else "files"
    if prototxt:
        try:
            return load_graph(prototxt), None
        except TriageInputError as exc:
            origin = _cfg_prototxt(cfg)
            if origin is None or not origin.resolved or not _same_path(origin.resolved, prototxt):
                raise
            return None, ("unreadable", {"written": origin.written, "error": str(exc), "order": order})
    if cfg is None:
        return None, None
    origin = _cfg_prototxt(cfg, missing_key=True)
    if origin is None:
        return None, None
    if origin == "not_named" or origin.is_null:
        return None, ("not_named", {"order": order})
    if not origin.resolved:
        tried = ", ".join(origin.candidates[:3]) + (" …" if len(origin.candidates) > 3 else "")
        return None, ("missing", {"written": origin.written, "tried": tried or "—", "order": order})
    return None, None  # named and there, but not asked for (a library call without `prototxt`)


def _cfg_prototxt(cfg: str | Path | None, *, missing_key: bool = False):
    """The cfg's ``[prototxt_file]`` as the lint resolves it (a :class:`~nnie_lsp.project.cfg_files.RefFile`),
    ``"not_named"`` when the cfg has no such key (with `missing_key`), None when unknown."""
    if cfg is None:
        return None
    from nnie_lsp.triage.diagnose.builder import read_cfg_project

    try:
        project = read_cfg_project(cfg)
    except OSError:
        return None
    if project.prototxt_origin is None:
        return "not_named" if missing_key and project.cfg is not None else None
    return project.prototxt_origin


def _same_path(a: str | Path, b: str | Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def _code_files_read(warnings: list[str], code_reports: list) -> list[str]:
    """The scan's "not read as tensors" warning goes when it lists only the code files that
    ``input_codes`` reports on (decoded, checked against their twins, or why not)."""
    if not code_reports:
        return warnings
    names = {c.file for c in code_reports}
    out = []
    for w in warnings:
        m = re.match(r"^(\d+) file\(s\) not read as tensors: (.*)$", w)
        shown = re.findall(r"([^\s,()]+\.hex) \(", m.group(2)) if m else []
        if m and int(m.group(1)) == len(names) and shown and set(shown) <= names:
            continue
        out.append(w)
    return out


def _sources(cfg: str | Path | None, graph: NetGraph | None, lang: str) -> Sources:
    from nnie_lsp.project.settings import SettingsError

    try:
        return Sources.read(cfg_path=cfg, prototxt=graph.doc if graph else None, graph=graph, lang=lang)
    except SettingsError as exc:
        raise TriageInputError(str(exc)) from exc
    except OSError as exc:
        raise TriageInputError(f"cannot read cfg {cfg}: {exc.strerror or exc}") from exc


def _bundle_hint(reference, sim, cfg, prototxt) -> str:
    """The step-6 command for this comparison: with a cfg, the bundle takes its prototxt and
    caffemodel from it (nnie_lsp/cli/triage_bundle.py)."""
    parts = ["nnie-triage bundle --layer {layer}", f"--reference {reference}", f"--sim {sim}"]
    if prototxt:
        parts.append(f"--prototxt {prototxt}")
    parts.append(f"--cfg {cfg}" if cfg else "--caffemodel MODEL")
    parts.append("-o {layer}_bundle.zip")
    return " ".join(parts)

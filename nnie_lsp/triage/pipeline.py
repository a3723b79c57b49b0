"""The one triage entry: inputs → align → measure → diagnose → result.

``nnie-triage compare``, the editor's server and library users all start here::

    from nnie_lsp.triage.pipeline import TriageRequest, triage

    result = triage(TriageRequest(cfg="net_inst.cfg"))   # the dumps found beside the cfg
    result = triage(TriageRequest(reference="output", sim="mapper_quant", prototxt="net.prototxt"))
    result.to_json()                                     # nnie_lsp/docs/triage-schema.md

1. **inputs** -- :func:`find_inputs` completes the request from what lies beside its cfg
   (:mod:`.inputs.beside_cfg`), once: a request it returns carries ``found`` and is never looked up
   again.  The editor's server calls it itself (with the editor's unsaved texts), passes every
   input to ``nnie-triage compare`` explicitly, and the command then finds nothing more to look for.
2. **one image or several** -- the dump folders are paired image by image (:mod:`.inputs.image_sets`);
   each pair is aligned, measured and diagnosed by :func:`run_compare`;
3. several images are combined into one result (:func:`.measure.images.combine`);
4. **the `_hp` plan** of a case-2 result (and a mild 8-bit decay): ``hp-plan``'s answer on the same cfg
   and NNIE dumps becomes T207 and T204 (:mod:`.hp_plan.for_compare`).

Progress (``progress``, a :class:`~.progress.Reporter`): stages ``inputs``, ``align``, ``measure``,
``diagnose`` for one image; ``image K/N`` for each of several; then, for a plan, hp-plan's ``load``,
``check``, ``rank`` and ``hp layer K``.  Importing this module loads no
numpy (:func:`triage` loads the numerical stack when it runs).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping, TextIO

from nnie_lsp.triage.inputs.beside_cfg import CompareInputs, TextReader, complete_inputs
from nnie_lsp.triage.inputs.load import TriageInputError, load_graph, load_postprocess, read_sources, scan_folder
from nnie_lsp.triage.progress import NO_PROGRESS, Reporter

if TYPE_CHECKING:
    from nnie_lsp.readers.mapper.nettree import NetTree
    from nnie_lsp.readers.prototxt.graph import NetGraph
    from nnie_lsp.triage.measure.metrics import Thresholds
    from nnie_lsp.triage.result import TriageResult

#: Share of the run (percent) the input lookup takes in the progress.
INPUTS_SHARE = 2.0
#: With a cfg: the share the comparison takes, the `_hp` plan of a case-2 result the rest (it can take
#: minutes on a large net, the comparison seconds).
COMPARED_AT = 40.0
#: Progress within one image's share (percent): alignment up to here, then the per-pair metrics ...
ALIGNED_AT = 25.0
#: ... up to here; the rest is the 16-bit run and the diagnosis.
MEASURED_AT = 90.0


@dataclass(frozen=True)
class TriageRequest:
    """What to compare.  Dump folders not given are found beside ``cfg`` (:func:`find_inputs`)."""

    reference: str | None = None        # the Caffe side (RuyiStudio's output/, …)
    sim: str | None = None              # the NNIE side (mapper_quant/, inst dumps, an emulation, …)
    sim16: str | None = None            # a compile_mode 1 run (confirms or rejects quantization)
    cfg: str | None = None              # the mapper cfg: findings' home, preprocessing, lookup folder
    prototxt: str | None = None         # default: the one the cfg names
    dot: str | None = None              # the mapper's cnn_net_tree.dot
    images: int | None = None           # the last N images the dump folders hold (None: all)
    clips: str | None = None            # an emulated folder whose clips decode 8-bit input dumps
    postprocess: str | Callable | None = None   # "module:function" or the function (case 4)
    thresholds: Thresholds | None = None
    lang: str = "en"                    # the findings' language ("en" | "zh")
    framework: str | None = None        # the ONNX side (`reference --onnx`): the hop ONNX → Caffe (conversion)
    board: tuple[str, ...] | None = None  # the board's dump folders (`compare --board`): the stage board
    wk: str | None = None               # the .wk the board runs (default: the cfg's [instruction_name].wk)
    plan: bool = True                   # plan `_hp` in case 2 (hp_plan/for_compare.py; compare --no-hp-plan)
    find: bool | None = None            # look beside the cfg: None when reference or sim is missing,
                                        # True for every input not given, False for none
    found: CompareInputs | None = field(default=None, compare=False, repr=False)  # set by find_inputs
    # the earlier result of this cfg (:func:`earlier_result`): what it read tells whether the mapper's
    # own dumps predate a change of the inputs (:mod:`.diagnose.staleness`)
    earlier: object = field(default=None, compare=False, repr=False)

    def origin(self, role: str) -> dict | None:
        """How the input of `role` (``reference``, ``sim``, ``sim16``, ``dot``) came to be used:
        ``{"path", "origin": "given" | "discovered", "rule"}`` (None: no such input)."""
        return self.found.origin(role) if self.found is not None else None


def find_inputs(request: TriageRequest, *, reader: TextReader | None = None, log: TextIO | None = None,
                progress: Reporter | None = None) -> TriageRequest:
    """The request with its inputs completed from beside its cfg (once: a found request is
    returned as it is).  `reader` reads a file's text (the editor's unsaved buffers); `log` is told
    each input found.  Raises :class:`~.inputs.beside_cfg.DiscoveryError` (a ValueError) when the
    reference or the simulator side is neither given nor found."""
    if request.found is not None:
        return request
    progress = progress or NO_PROGRESS
    progress.step("inputs", 0, 1)
    found = complete_inputs(request.cfg, reference=request.reference, sim=request.sim, sim16=request.sim16,
                            dot=request.dot, prototxt=request.prototxt, framework=request.framework,
                            board=request.board, force=request.find, reader=reader, log=log, lang=request.lang)
    progress.step("inputs", 1, 1)
    return replace(request, reference=found.reference, sim=found.sim, sim16=found.sim16, dot=found.dot,
                   prototxt=found.prototxt, framework=found.framework, board=found.board, found=found)


def triage(request: TriageRequest, *, progress: Reporter | None = None, reader: TextReader | None = None,
           log: TextIO | None = None) -> TriageResult:
    """Compare, measure and diagnose (module doc): one image, or each of several and the result
    over all of them.  Bad input raises :class:`~.TriageInputError` or another ValueError
    with a message for the user."""
    progress = progress or NO_PROGRESS
    if request.found is None:
        request = find_inputs(request, reader=reader, log=log, progress=progress.part(0, INPUTS_SHARE))
        progress = progress.part(INPUTS_SHARE, 100)
    from nnie_lsp.triage.inputs.image_sets import DumpFolder, ImageSetError, pair_images
    from nnie_lsp.triage.measure.images import combine, sixteen_bit_by_image

    if request.board and request.sim is None:   # the board against Caffe alone
        from nnie_lsp.triage.board.stage import board_only_result
        return board_only_result(request)
    reference, sim = request.reference, request.sim
    for path, what in ((reference, "reference dump folder"), (sim, "simulator dump folder")):
        if not Path(path).exists():
            raise TriageInputError(f"{what} {path} does not exist")
    ref_folder, sim_folder = DumpFolder.read(reference), DumpFolder.read(sim)
    clips, origin = _clips(request.clips, sim_folder, TriageInputError)
    try:
        pairs, notes = pair_images(ref_folder, sim_folder, request.images)
    except ImageSetError as exc:
        raise TriageInputError(str(exc)) from exc
    sixteen = sixteen_bit_by_image(request.sim16, pairs)
    from nnie_lsp.triage.diagnose.staleness import check as dumps_predate_cfg, record_now
    stale = dumps_predate_cfg(request.cfg, sim, sim_folder.manifest, request.earlier)
    origin_of_reference = _reference_source(request)
    results = []
    # with a cfg, a case-2 result is planned (hp_plan/for_compare.py): the comparison takes the first
    # share of the progress, the plan the rest (without a plan the bar jumps to the end)
    compared_at = COMPARED_AT if request.cfg is not None else 100.0
    for k, pair in enumerate(pairs):
        steps = progress.part(compared_at * k / len(pairs), compared_at * (k + 1) / len(pairs)).renamed(
            f"image {k + 1}/{len(pairs)}" if len(pairs) > 1 else None)
        results.append(run_compare(
            pair.reference, pair.sim, sim16=sixteen.get(k), cfg=request.cfg, prototxt=request.prototxt,
            dot=request.dot, thresholds=request.thresholds, postprocess=request.postprocess, lang=request.lang,
            clips=clips, clips_origin=origin, stale=stale, progress=steps, reference_source=origin_of_reference))
    if len(results) == 1:
        result = results[0]
        result.notes = notes + result.notes
    else:
        result = combine(pairs, results, notes, reference, sim)
    result.reference_source = origin_of_reference
    if request.framework is not None:
        _conversion_stage(request, pairs, result)
    from nnie_lsp.triage.inputs.build import build_of
    result.build = build_of(request.cfg, request.sim)
    if request.board:
        from nnie_lsp.triage.board.stage import board_stage
        board_stage(request, pairs, result)
    from nnie_lsp.triage.hp_plan.for_compare import plan_stage
    planning = progress.part(compared_at, 100)
    result.hp_plan = plan_stage(request, result, stale=stale, progress=planning, make=request.plan)
    if compared_at < 100:
        planning.step("diagnose", 1, 1)   # the plan's share done (no plan: the bar jumps to the end)
    if request.cfg is not None and Path(request.cfg).is_file():
        # what the run read, by content: the next triage of the mapper's own dumps compares it (T008)
        result.inputs["inputs_record"] = record_now(request.cfg, None)
    if request.found is not None and request.found.discovery.skipped:
        # found near the cfg but another net's: not used, and said so (what stderr said too)
        result.inputs["skipped"] = [dict(s) for s in request.found.discovery.skipped]
    from nnie_lsp.triage.store import folder_stamp
    # the dump folders as the run read them: a later --previous of this output tells new dumps
    result.inputs["stamps"] = {"reference": folder_stamp(str(reference)), "sim": folder_stamp(str(sim))}
    return result


def run_compare(reference: str | Path, sim: str | Path, *, sim16: str | Path | None = None,
                cfg: str | Path | None = None, prototxt: str | Path | None = None, dot: str | Path | None = None,
                thresholds: Thresholds | None = None, postprocess: str | Callable | None = None,
                progress: Reporter | None = None, lang: str = "en",
                clips: dict[str, float] | None = None, clips_origin: str | None = None,
                stale: dict | None = None, reference_source: dict | None = None) -> TriageResult:
    """Compare two dump sets (one image) and diagnose; `lang` ("en" or "zh") is the findings'
    language. ``clips`` (blob -> clip, from an emulation of the same cfg) decode 8-bit input dumps
    that have no dequantized twin; by default those of the simulator folder's own manifest (an
    ``nnie-triage emulate`` folder), :mod:`.measure.input_codes`."""
    import time

    from nnie_lsp.triage.align.driver import align
    from nnie_lsp.triage.diagnose.bad_dumps import input_size_mismatches
    from nnie_lsp.triage.diagnose.tree import diagnose
    from nnie_lsp.triage.measure.input_codes import decode_input_codes
    from nnie_lsp.triage.measure.metrics import Thresholds
    from nnie_lsp.triage.measure.pairs import build_rows, keep_for_explanations, tensor_name
    from nnie_lsp.triage.result import TriageResult, row_places

    t0 = time.perf_counter()
    progress = progress or NO_PROGRESS
    aligned, measured = progress.part(0, ALIGNED_AT), progress.part(ALIGNED_AT, MEASURED_AT)
    aligned.step("align", 0, 1)
    th = thresholds or Thresholds()
    if cfg is not None and not Path(cfg).is_file():
        raise TriageInputError(f"cfg {cfg} does not exist")
    graph, prototxt_problem = _graph_or_problem(prototxt, cfg, dot)
    sources = read_sources(cfg, graph, lang)
    dot_graph = None
    if dot is not None:
        dp = Path(dot)
        if not dp.is_file():
            raise TriageInputError(f"dot file {dp} does not exist")
        from nnie_lsp.readers.mapper.nettree import parse_net_tree
        from nnie_lsp.core.text import read_text

        dot_graph = parse_net_tree(read_text(str(dp)).text, path=str(dp))  # bound: the kind its name suggests
    pp = load_postprocess(postprocess) if isinstance(postprocess, str) else postprocess
    ref_set = scan_folder(reference, "reference dump folder")
    sim_set = scan_folder(sim, "simulator dump folder")
    if clips is None:
        from nnie_lsp.triage.inputs.image_sets import DumpFolder

        clips, clips_origin = DumpFolder.read(sim).clips(), f"the emulation in {sim}"
    sim_set, code_reports = decode_input_codes(sim_set, clips, graph,
                                               clips_origin or "an emulation")
    al = align(ref_set, sim_set, graph, dot_graph)
    if al.pairs:
        aligned.step("align", 1, 1)
    input_sizes = input_size_mismatches(al, graph)
    rows, warns = build_rows(al, graph, keep_for_explanations(th), None if progress.silent else measured)
    rows16 = None
    notes = [str(n) for n in getattr(al, "notes", [])]
    if sim16 is not None:
        s16 = scan_folder(sim16, "16-bit simulator dump folder")
        al16 = align(ref_set, s16, graph, dot_graph)
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
                        unmatched_ref=[tensor_name(t) for t in getattr(al, "unmatched_ref", [])],
                        unmatched_sim=[tensor_name(t) for t in getattr(al, "unmatched_sim", [])],
                        notes=notes, warnings=warnings, inputs=inputs, thresholds=th,
                        elapsed_s=time.perf_counter() - t0, input_codes=code_reports,
                        places=row_places(rows, sources), reference_source=reference_source)


def _graph_or_problem(prototxt: str | Path | None, cfg: str | Path | None,
                      dot: str | Path | None) -> tuple[NetGraph | None, tuple[str, dict] | None]:
    """(the prototxt's graph, None), or (None, the T007 message id and parameters) when the
    prototxt the cfg names is missing or cannot be used: the comparison goes on without the layer
    order and says so.  A prototxt given on its own (not the cfg's) that cannot be read is a usage
    error (:class:`TriageInputError`)."""
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


def _bundle_hint(reference, sim, cfg, prototxt) -> str:
    """The step-6 command for this comparison: with a cfg, the bundle takes its prototxt and
    caffemodel from it (nnie_lsp/cli/triage_bundle.py)."""
    parts = ["nnie-triage bundle --layer {layer}", f"--reference {reference}", f"--sim {sim}"]
    if prototxt:
        parts.append(f"--prototxt {prototxt}")
    parts.append(f"--cfg {cfg}" if cfg else "--caffemodel MODEL")
    parts.append("-o {layer}_bundle.zip")
    return " ".join(parts)


def _reference_source(request: TriageRequest) -> dict:
    """Where the reference's preprocessing came from (:mod:`.diagnose.reference_source`, T100),
    judged against the cfg's model card as it is now."""
    from nnie_lsp.triage.diagnose.reference_source import check

    card = None
    if request.cfg is not None and Path(request.cfg).is_file():
        from nnie_lsp.triage.diagnose.builder import read_cfg_project

        try:
            card = read_cfg_project(request.cfg).card
        except OSError:
            card = None
    return check(request.reference, card)


def _conversion_stage(request: TriageRequest, pairs, result) -> None:
    """The hop ONNX → Caffe of ``request.framework`` (:mod:`.measure.framework`), on every image
    pair, and the verdict that names the stage (:mod:`.diagnose.conversion`)."""
    from nnie_lsp.triage.diagnose.conversion import apply
    from nnie_lsp.triage.inputs.image_sets import DumpFolder
    from nnie_lsp.triage.measure.framework import measure, worst
    from nnie_lsp.triage.measure.metrics import Thresholds

    if not Path(request.framework).is_dir():
        raise TriageInputError(f"framework dump folder {request.framework} does not exist")
    th = request.thresholds or Thresholds()
    graph = None
    if request.prototxt:
        try:
            graph = load_graph(request.prototxt)
        except TriageInputError:
            graph = None   # the comparison already says so (T007)
    folder = DumpFolder.read(request.framework)
    by_index = {img.index: img for img in folder.images}
    hops = []
    for pair in pairs:
        img = by_index.get(pair.index) or (folder.images[0] if len(folder.images) == 1 else None)
        if img is not None:
            hops.append(measure(img.path, pair.reference, graph, th))
    hop = worst(hops)
    if hop is None:
        raise TriageInputError(f"framework dump folder {request.framework}: no image in common with the "
                                       f"reference dumps")
    if not hop.compared():
        raise TriageInputError(f"framework dump folder {request.framework}: no dump is named by a blob of "
                                       "the Caffe reference (write it with `nnie-triage reference --onnx`)")
    result.framework = hop
    apply(result.diagnosis, hop, read_sources(request.cfg, graph, request.lang), th)


NOT_OURS = ("the NNIE dumps in {sim} were not written by nnie-triage: re-run nnie_mapper with the current cfg "
            "(--regenerate re-emulates only a folder `nnie-triage emulate` wrote)")


def regenerate(request: TriageRequest, *, progress: Reporter | None = None):
    """Re-emulate the request's NNIE side with its cfg as it is now, into the same folder (nnie-triage
    wrote it: its manifest says so, so overwriting is allowed), with the options its manifest
    records (:mod:`.inputs.run_options`: transpose, images, a ``--bits`` override, ``--hp``, format,
    input dumps, preprocessing overrides; without a ``--bits`` override the precision is the cfg's
    [compile_mode] now).  The reference is made again too when nnie-triage wrote it and its net
    (prototxt, weights) or images changed since (a de-inplace fix renames blobs): with the very
    preprocessing it was made with, never the cfg's (the reference is the truth the NNIE side is
    judged against).  A folder nnie-triage did not write raises ValueError (:data:`NOT_OURS`).
    Returns the emulation's :class:`~.inputs.dump_runs.RunReport` (its notes say what was made again)."""
    from nnie_lsp.triage.inputs.image_sets import read_manifest

    if request.cfg is None:
        raise ValueError("--regenerate needs --cfg (the emulation is made again with it)")
    if request.sim is None or not Path(request.sim).is_dir():
        raise ValueError(f"--regenerate: no NNIE dump folder {request.sim or ''}".strip())
    manifest = read_manifest(request.sim)
    if manifest is None or manifest.get("command") != "emulate":
        raise ValueError(NOT_OURS.format(sim=request.sim))
    from nnie_lsp.triage.inputs.dump_runs import write_emulation_run
    from nnie_lsp.triage.inputs.run_options import RunOptions, emulation_settings

    progress = progress or NO_PROGRESS
    options = RunOptions.from_manifest(manifest, request.sim, request.cfg)
    notes = list(options.notes)
    remade = _regenerate_reference(request, progress.part(0, 30))
    if remade is not None:
        notes.append(remade)
    inputs = options.load_inputs()
    emulation, precision = emulation_settings(options, inputs.compile_mode)
    report = write_emulation_run(inputs, request.sim, emulation, options.format, options.input_shape,
                                 progress=progress.part(30 if remade else 0, 100).renamed("regenerate"),
                                 run_options=options, precision=precision)
    report.notes[:0] = notes
    return report


def _regenerate_reference(request: TriageRequest, progress: Reporter) -> str | None:
    """Make the reference again when nnie-triage wrote it and its net or images changed since (what
    :func:`regenerate` says); the note to show, or None when it was left as it is."""
    from nnie_lsp.triage.inputs.image_sets import read_manifest
    from nnie_lsp.triage.inputs.run_options import RunOptions
    from nnie_lsp.triage.inputs.run_record import run_record

    ref = request.reference
    manifest = read_manifest(ref) if ref and Path(ref).is_dir() else None
    if manifest is None or manifest.get("command") != "reference" or not isinstance(manifest.get("inputs_record"), dict):
        return None
    old = manifest["inputs_record"]
    options = RunOptions.from_manifest(manifest, ref, request.cfg)
    frozen = _frozen_preprocessing(manifest, options)
    now = run_record(request.cfg, prototxt=options.prototxt, caffemodel=options.caffemodel,
                     images=list(options.image), overrides=frozen.overrides)
    changed = [what for what in ("prototxt", "caffemodel", "images")
               if (old.get(what) or {}).get("sha256") != (now.get(what) or {}).get("sha256")]
    if not changed:
        return None
    from nnie_lsp.triage.inputs.dump_runs import write_reference_run

    inputs = frozen.load_inputs()
    report = write_reference_run(inputs, ref, frozen.input_shape, progress=progress.renamed("regenerate"),
                                 run_options=options)
    return (f"made the reference in {ref}/ again ({', '.join(changed)} changed since) with the preprocessing it was "
            f"made with ({inputs.describe_preprocessing}), {len(report.files)} dumps")


def _frozen_preprocessing(manifest: Mapping, options):
    """The options with the reference's own preprocessing values as overrides (the numbers its
    manifest records), so that a cfg fixed since does not move the truth."""
    values = manifest.get("preprocessing_values")
    if not isinstance(values, list) or len(values) != 1 or not isinstance(values[0], Mapping):
        return options   # several inputs (or an older manifest): as it was run
    v = values[0]
    mean = v.get("mean")
    return options.with_(norm_type=v.get("norm_type"), data_scale=v.get("data_scale"), rgb_order=v.get("rgb_order"),
                         mean=(",".join(repr(float(x)) for x in mean) if isinstance(mean, list) and mean
                               else v.get("mean_file") or options.mean))


def earlier_result(request: TriageRequest, previous: str | None = "auto"):
    """The earlier result for the request's cfg (:mod:`.confirmation`): `previous` is a stored
    record's path, ``"auto"`` (the one the editor stores beside the cfg, when there is one) or None.
    A record of another cfg is None; a file that is not a record raises ValueError."""
    from nnie_lsp.triage.confirmation import read_previous
    from nnie_lsp.triage.store import store_paths

    if previous is None or request.cfg is None:
        return None
    if previous == "auto":
        previous = store_paths(os.path.abspath(request.cfg)).json
        if not Path(previous).is_file():
            return None
    return read_previous(previous, request.cfg)


#: The input roles a stored record names (the editor's record has the same).
RECORD_ROLES = ("reference", "sim", "sim16", "dot", "framework")


def save_record(request: TriageRequest, doc: dict, *, html: bool = True) -> str | None:
    """Write the result beside the cfg, as the editor does (``.nnie-triage/<cfg stem>.json`` with
    the text and HTML reports, :mod:`.store`): the record ``--previous auto`` and the editor read.
    Returns the record's path (None without a cfg)."""
    from nnie_lsp.triage import store
    from nnie_lsp.triage.report import render

    if request.cfg is None:
        return None
    inputs = {role: request.origin(role) for role in RECORD_ROLES}
    record = store.new_record(request.cfg, doc, cfg=request.cfg, prototxt=request.prototxt, inputs=inputs)
    text = render.render_text(doc)
    paths = store.save(record, text=text, html=render.render_html(doc) if html else None)
    return paths.json


def follow_up(request: TriageRequest, doc: Mapping, earlier) -> dict:
    """What the result adds when it follows `earlier` (:func:`earlier_result`): the fixes it
    confirms (``confirmed_fixed``) and those still awaiting dumps made again
    (``awaiting_confirmation``); ``{}`` without an earlier result."""
    from nnie_lsp.triage.confirmation import assess, fix_lines

    fix_lines(doc)   # a later --previous of this very output finds its fixes applied
    return assess(earlier, doc, sim=request.sim, lang=request.lang)


def _clips(clips_from: str | None, sim_folder, input_error: type[ValueError]) -> tuple[dict | None, str | None]:
    """The clips that decode 8-bit input dumps without a twin: those of ``--clips``, else those of
    the simulator folder when nnie-triage wrote it (else :func:`run_compare` reads each
    image's folder)."""
    from nnie_lsp.triage.inputs.image_sets import DumpFolder

    if clips_from is not None:
        clip_folder = Path(clips_from)
        clip_folder = clip_folder.parent if clip_folder.is_file() else clip_folder
        clips = DumpFolder.read(clip_folder).clips()
        if not clips:
            raise input_error(f"--clips {clips_from}: no clips recorded there (give a folder "
                              "written by `nnie-triage emulate`)")
        return clips, f"the emulation in {clip_folder}"
    if sim_folder.several or sim_folder.manifest is not None:
        return sim_folder.clips(), f"the emulation in {sim_folder.root}"
    return None, None


def thresholds_from(items: Mapping[str, str] | None, *, label: str = "threshold") -> Thresholds:
    """Thresholds with the overrides `items` (name -> value; unknown names, values that are not
    numbers and values outside the threshold's range — [0, 1] for shares and cosines — raise
    ValueError naming the threshold and the value; `label` names the setting in that message)."""
    from nnie_lsp.triage.measure.metrics import Thresholds

    return Thresholds.from_mapping(dict(items) if items else None, label=label)

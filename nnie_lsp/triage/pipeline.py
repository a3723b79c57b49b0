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
   each pair is aligned, measured and diagnosed by :func:`.compare.run_compare`;
3. several images are combined into one result (:func:`.measure.images.combine`).

Progress (``progress``, a :class:`~.progress.Reporter`): stages ``inputs``, ``align``, ``measure``,
``diagnose`` for one image; ``image K/N`` for each of several.  Importing this module loads no
numpy (:func:`triage` loads the numerical stack when it runs).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping, TextIO

from .inputs.beside_cfg import CompareInputs, TextReader, complete_inputs
from .progress import NO_PROGRESS, Reporter

if TYPE_CHECKING:
    from .compare import TriageResult
    from .measure.metrics import Thresholds

#: Share of the run (percent) the input lookup takes in the progress.
INPUTS_SHARE = 2.0


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
    find: bool | None = None            # look beside the cfg: None when reference or sim is missing,
                                        # True for every input not given, False for none
    found: CompareInputs | None = field(default=None, compare=False, repr=False)  # set by find_inputs

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
    over all of them.  Bad input raises :class:`~.compare.TriageInputError` or another ValueError
    with a message for the user."""
    progress = progress or NO_PROGRESS
    if request.found is None:
        request = find_inputs(request, reader=reader, log=log, progress=progress.part(0, INPUTS_SHARE))
        progress = progress.part(INPUTS_SHARE, 100)
    from . import compare                      # the numerical stack from here on
    from .inputs.image_sets import DumpFolder, ImageSetError, pair_images
    from .measure.images import combine, sixteen_bit_by_image

    if request.board and request.sim is None:   # the board against Caffe alone
        from .board.stage import board_only_result
        return board_only_result(request)
    reference, sim = request.reference, request.sim
    for path, what in ((reference, "reference dump folder"), (sim, "simulator dump folder")):
        if not Path(path).exists():
            raise compare.TriageInputError(f"{what} {path} does not exist")
    ref_folder, sim_folder = DumpFolder.read(reference), DumpFolder.read(sim)
    clips, origin = _clips(request.clips, sim_folder, compare.TriageInputError)
    try:
        pairs, notes = pair_images(ref_folder, sim_folder, request.images)
    except ImageSetError as exc:
        raise compare.TriageInputError(str(exc)) from exc
    sixteen = sixteen_bit_by_image(request.sim16, pairs)
    from .diagnose.staleness import check as dumps_predate_cfg
    stale = dumps_predate_cfg(request.cfg, sim, sim_folder.manifest)
    origin_of_reference = _reference_source(request)
    results = []
    for k, pair in enumerate(pairs):
        steps = progress.part(100.0 * k / len(pairs), 100.0 * (k + 1) / len(pairs)).renamed(
            f"image {k + 1}/{len(pairs)}" if len(pairs) > 1 else None)
        results.append(compare.run_compare(
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
    from .inputs.build import build_of
    result.build = build_of(request.cfg, request.sim)
    if request.board:
        from .board.stage import board_stage
        board_stage(request, pairs, result)
    return result


def _reference_source(request: TriageRequest) -> dict:
    """Where the reference's preprocessing came from (:mod:`.diagnose.reference_source`, T100),
    judged against the cfg's model card as it is now."""
    from .diagnose.reference_source import check

    card = None
    if request.cfg is not None and Path(request.cfg).is_file():
        from .diagnose.builder import read_cfg_project

        try:
            card = read_cfg_project(request.cfg).card
        except OSError:
            card = None
    return check(request.reference, card)


def _conversion_stage(request: TriageRequest, pairs, result) -> None:
    """The hop ONNX → Caffe of ``request.framework`` (:mod:`.measure.framework`), on every image
    pair, and the verdict that names the stage (:mod:`.diagnose.conversion`)."""
    from . import compare
    from .diagnose.conversion import apply
    from .inputs.image_sets import DumpFolder
    from .measure.framework import measure, worst
    from .measure.metrics import Thresholds

    if not Path(request.framework).is_dir():
        raise compare.TriageInputError(f"framework dump folder {request.framework} does not exist")
    th = request.thresholds or Thresholds()
    graph = None
    if request.prototxt:
        try:
            graph = compare.load_graph(request.prototxt)
        except compare.TriageInputError:
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
        raise compare.TriageInputError(f"framework dump folder {request.framework}: no image in common with the "
                                       f"reference dumps")
    if not hop.compared():
        raise compare.TriageInputError(f"framework dump folder {request.framework}: no dump is named by a blob of "
                                       "the Caffe reference (write it with `nnie-triage reference --onnx`)")
    result.framework = hop
    apply(result.diagnosis, hop, compare._sources(request.cfg, graph, request.lang), th)


NOT_OURS = ("the NNIE dumps in {sim} were not written by nnie-triage: re-run nnie_mapper with the current cfg "
            "(--regenerate re-emulates only a folder `nnie-triage emulate` wrote)")


def regenerate(request: TriageRequest, *, progress: Reporter | None = None):
    """Re-emulate the request's NNIE side with its cfg as it is now, into the same folder (nnie-triage
    wrote it: its manifest says so, so overwriting is allowed), with the options the manifest
    records (format, bits, ``_hp`` layers, input dumps, number of images).  A folder nnie-triage did
    not write raises ValueError (:data:`NOT_OURS`).  Returns the :class:`~.inputs.dump_runs.RunReport`."""
    from .inputs.image_sets import read_manifest

    if request.cfg is None:
        raise ValueError("--regenerate needs --cfg (the emulation is made again with it)")
    if request.sim is None or not Path(request.sim).is_dir():
        raise ValueError(f"--regenerate: no NNIE dump folder {request.sim or ''}".strip())
    manifest = read_manifest(request.sim)
    if manifest is None or manifest.get("command") != "emulate":
        raise ValueError(NOT_OURS.format(sim=request.sim))
    from nnie_lsp.emulation.emulate import EmulationOptions
    from nnie_lsp.reference.run_inputs import load_run_inputs
    from .inputs.dump_runs import write_emulation_run

    from nnie_lsp.reference.run_inputs import Overrides

    images = manifest.get("images") or [None]
    # the images fed transposed (`emulate --transpose`) are fed so again
    inputs = load_run_inputs(request.cfg, count=len(images), overrides=Overrides(transpose=bool(manifest.get("transpose"))))
    options = EmulationOptions(bits=int(manifest.get("bits") or 8), hp_layers=frozenset(manifest.get("hp_layers") or ()),
                               keep_inputs=bool(manifest.get("input_dumps")))
    return write_emulation_run(inputs, request.sim, options, manifest.get("format") or "mapper_quant",
                               progress=(progress or NO_PROGRESS).renamed("regenerate"))


def earlier_result(request: TriageRequest, previous: str | None = "auto"):
    """The earlier result for the request's cfg (:mod:`.confirmation`): `previous` is a stored
    record's path, ``"auto"`` (the one the editor stores beside the cfg, when there is one) or None.
    A record of another cfg is None; a file that is not a record raises ValueError."""
    from .confirmation import read_previous
    from .store import store_paths

    if previous is None or request.cfg is None:
        return None
    if previous == "auto":
        previous = store_paths(os.path.abspath(request.cfg)).json
        if not Path(previous).is_file():
            return None
    return read_previous(previous, request.cfg)


def follow_up(request: TriageRequest, doc: Mapping, earlier) -> dict:
    """What the result adds when it follows `earlier` (:func:`earlier_result`): the fixes it
    confirms (``confirmed_fixed``) and those still awaiting dumps made again
    (``awaiting_confirmation``); ``{}`` without an earlier result."""
    from .confirmation import assess

    return assess(earlier, doc, sim=request.sim, lang=request.lang)


def _clips(clips_from: str | None, sim_folder, input_error: type[ValueError]) -> tuple[dict | None, str | None]:
    """The clips that decode 8-bit input dumps without a twin: those of ``--clips``, else those of
    the simulator folder when nnie-triage wrote it (else :func:`.compare.run_compare` reads each
    image's folder)."""
    from .inputs.image_sets import DumpFolder

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


def thresholds_from(items: Mapping[str, str] | None) -> Thresholds:
    """Thresholds with the overrides `items` (name -> value; unknown names and values outside the
    threshold's range — [0, 1] for shares and cosines — raise ValueError)."""
    from .measure.metrics import Thresholds

    return Thresholds.from_mapping(dict(items) if items else None)

"""Write the dumps of a reference (Caffe through OpenCV, or the numpy forward for nets OpenCV cannot
load: :func:`nnie_lsp.reference.caffe_forward.reference_engine`), of the ONNX model (``reference
--onnx``) or of an emulated NNIE run, one image or several, in the folder layout of
:mod:`.image_sets` with its manifest.

``nnie-triage reference`` and ``emulate`` call these with what :func:`nnie_lsp.reference.run_inputs.
load_run_inputs` took from the cfg. An emulation of several images calibrates its clips over all of
them (:func:`nnie_lsp.emulation.emulate.emulate_images`); the mapper calibrates on its whole image
list (docs/field-facts.md §5.6), so running fewer images than the list holds is said in the notes.

Progress (a :class:`nnie_lsp.triage.progress.Reporter`): ``load`` (the net), then ``forward`` with
done/total counting images (a reference run writes each image's dumps as it goes); an emulation
runs every image in one ``forward`` step (its clips are calibrated over all of them), then
``write`` image by image.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from nnie_lsp.triage.progress import NO_PROGRESS, Reporter
from nnie_lsp.triage.inputs.image_sets import image_folder_name, prepare_output, write_manifest

#: Shares of a run in the progress (percent): the net loaded, the images run, their dumps written.
LOADED_AT, FORWARD_SHARE = 10.0, 0.8


@dataclass
class RunReport:
    """What was written where."""

    folder: Path
    files: list[Path]
    image_folders: list[Path]  # one per image (the folder itself for one image)
    notes: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # emulation: CPU-side layers
    sixteen_bit: list[str] = field(default_factory=list)  # emulation: the layers run at 16 bit

    @property
    def per_image(self) -> int:
        return len(self.files) // max(1, len(self.image_folders))


def _folders(out: Path, inputs) -> list[Path]:
    if len(inputs.images) == 1:
        return [out]
    return [out / image_folder_name(img.index, img.labels[0]) for img in inputs.images]


def _manifest(command: str, inputs, folders: list[Path], out: Path, files: list[Path], run_options=None,
              **extra) -> dict:
    from nnie_lsp.triage.diagnose.staleness import cfg_digest
    from nnie_lsp.triage.inputs.run_record import run_record

    given = [str(p) for img in inputs.images for p in img.sources if isinstance(p, (str, Path))] \
        if inputs.list_length is None else []
    return {
        "command": command,
        "cfg": str(inputs.cfg.resolve()) if inputs.cfg else None,
        "cfg_sha256": cfg_digest(inputs.cfg),
        # what the dumps were made from, by content: a later triage says what changed since (T008)
        "inputs_record": run_record(str(inputs.cfg) if inputs.cfg else None, prototxt=str(inputs.prototxt),
                                    caffemodel=str(inputs.caffemodel), images=given,
                                    overrides=run_options.overrides if run_options is not None else None),
        # the options that shaped the run: --regenerate makes it again the same way
        **({"options": run_options.to_json(out)} if run_options is not None else {}),
        "prototxt": str(inputs.prototxt),
        "caffemodel": str(inputs.caffemodel),
        "preprocessing": inputs.describe_preprocessing,
        "image_list_length": inputs.list_length,
        "images": [{"index": img.index if inputs.list_length is not None else None, "label": img.label,
                    "folder": str(folder.relative_to(out)) if folder != out else "."}
                   for img, folder in zip(inputs.images, folders)],
        "files": [str(f) for f in files],
        **extra,
    }


def write_reference_run(inputs, out: str | Path, input_shape: tuple[int, ...] | None = None, *,
                        progress: Reporter | None = None, run_options=None, form: str | None = None) -> RunReport:
    """Every blob of every image through OpenCV (or the numpy forward: the manifest's ``engine`` and
    a note say which), written as RuyiStudio's "Get Caffe Output" names them (docs/field-facts.md
    §10.3) in the dump form ``form`` (default: the options' ``dump_format``, else the compact exact
    form, :mod:`nnie_lsp.readers.dumpio.compact`; ``text``: RuyiStudio's ``%.18e``); the values in-place
    chains overwrite, by layer, in :data:`~nnie_lsp.reference.inplace_values.INPLACE_DIR` (for the
    ONNX → Caffe hop).  The previous run's dumps are replaced only once the net has loaded and run
    on the first image: a run that fails there leaves them as they were."""
    from nnie_lsp.readers.dumpio.compact import CompactWriter
    from nnie_lsp.reference.caffe_forward import load_reference_net, run_reference, write_reference_dumps
    from nnie_lsp.reference.inplace_values import write_inplace_dumps

    progress = progress or NO_PROGRESS
    out = Path(out)
    form = dump_form(form, run_options)
    loading = progress.part(0, LOADED_AT)
    loading.step("load", 0, 1)
    net = load_reference_net(inputs.prototxt, inputs.caffemodel)
    loading.step("load", 1, 1)
    folders = _folders(out, inputs)
    files: list[Path] = []
    overwritten: list[Path] = []
    running = progress.part(LOADED_AT, 100)
    engines: dict[str, str | None] = {}
    notes: list[str] = []
    with CompactWriter() as writer:
        for k, (img, folder) in enumerate(zip(inputs.images, folders)):
            running.step("forward", k, len(folders))
            run = run_reference(inputs.prototxt, inputs.caffemodel, img.sources, inputs.preprocessing, input_shape,
                                net=net)
            if k == 0:   # the net runs: the previous dumps can go
                notes = list(inputs.notes) + _replaced(out, inputs, prepare_output)
            engines.setdefault(run.engine, run.engine_reason)
            files += write_reference_dumps(run, folder, form, writer)
            overwritten += write_inplace_dumps(run.layer_outputs, net.layers, folder, form, writer)
    running.step("forward", len(folders), len(folders))
    engine = "numpy" if "numpy" in engines else "opencv"
    if engine == "numpy":  # which engine computed the reference is said, never silent
        notes.append(engines["numpy"])
    write_manifest(out, _manifest("reference", inputs, folders, out, files + overwritten, run_options,
                                  format="ruyi-caffe", dump_format=form, engine=engine,
                                  preprocessing_values=[_prep_values(p) for p in inputs.preprocessing],
                                  **inputs.manifest_record()))
    return RunReport(out, files, folders, notes)


def dump_form(form: str | None, run_options=None) -> str:
    """The Caffe dump form of a reference run: ``form`` when given, else the options', else the
    default (:data:`nnie_lsp.readers.dumpio.names.DEFAULT_CAFFE_DUMP_FORM`); an unknown one is a ValueError."""
    from nnie_lsp.readers.dumpio.names import CAFFE_DUMP_FORMS, DEFAULT_CAFFE_DUMP_FORM

    chosen = form or getattr(run_options, "dump_format", None) or DEFAULT_CAFFE_DUMP_FORM
    if chosen not in CAFFE_DUMP_FORMS:
        raise ValueError(f"dump format {chosen!r}: one of {', '.join(CAFFE_DUMP_FORMS)}")
    return chosen


def _replaced(out: Path, inputs, prepare) -> list[str]:
    """`prepare`'s notes; when it replaces a reference made with another preprocessing, its note is
    one line naming both (a reference never replaces dumps of another preprocessing silently)."""
    from nnie_lsp.triage.inputs.image_sets import read_manifest

    previous = read_manifest(out) if out.is_dir() else None
    notes = prepare(out)
    if not previous or previous.get("command") != "reference" or not notes:
        return notes
    before = _said(previous.get("preprocessing"), previous.get("preprocessing_source"), previous.get("card"))
    now = _said(inputs.describe_preprocessing, inputs.sources[0] if inputs.sources else None,
                inputs.manifest_record().get("card"))
    if before == now:
        return notes
    replaced = next((n for n in notes if n.startswith("replaced ")), None)
    count = replaced.split(" ", 2)[1] if replaced else "the"
    line = (f"replaced {count} dump(s) of the previous reference in {out}, made with another preprocessing: "
            f"before {before}; now {now}")
    return [line if n is replaced else n for n in notes]


def _said(described, sources, card) -> str:
    """``RGB_order RGB … (channel order from the cfg under test; …)`` for the replacement note."""
    from nnie_lsp.reference.training import describe_sources

    text = str(described or "?")
    if isinstance(sources, dict) and sources:
        where = None
        if isinstance(card, dict) and card.get("path"):
            where = f"{Path(str(card['path'])).name}:{card.get('line')}"
        text += f" ({describe_sources(sources, where)})"
    elif sources is None:
        text += " (its sources not recorded)"
    return text


def write_emulation_run(inputs, out: str | Path, options, fmt: str = "mapper_quant",
                        input_shape: tuple[int, ...] | None = None, *, progress: Reporter | None = None,
                        run_options=None, precision=None) -> RunReport:
    """The NNIE emulation of every image (clips calibrated over all of them), written in a real
    dump format; the manifest records the clips (they decode 8-bit input dumps, :mod:`.input_codes`),
    the precision and where it came from (`precision`, :mod:`nnie_lsp.emulation.precision`), the
    layers run at 16 bit and the options (`run_options`)."""
    from nnie_lsp.reference.caffe_forward import prepare_inputs
    from nnie_lsp.emulation.emulate import emulate_images, write_sim_dumps
    from nnie_lsp.readers.caffemodel import NetLoadError
    from nnie_lsp.reference.net import load_net

    progress = progress or NO_PROGRESS
    out = Path(out)
    notes = list(inputs.notes) + prepare_output(out)
    loading = progress.part(0, LOADED_AT)
    loading.step("load", 0, 1)
    try:
        net = load_net(inputs.prototxt, inputs.caffemodel)
    except NetLoadError as exc:
        raise ValueError(str(exc)) from exc
    prepared = [prepare_inputs(net, img.sources, inputs.preprocessing, input_shape) for img in inputs.images]
    loading.step("load", 1, 1)
    emulated_at = LOADED_AT + (100 - LOADED_AT) * FORWARD_SHARE
    running = progress.part(LOADED_AT, emulated_at)
    running.step("forward", 0, len(prepared))
    runs = emulate_images(net, prepared, options)
    running.step("forward", len(runs), len(runs))
    writing = progress.part(emulated_at, 100)
    if inputs.list_length is not None and len(runs) < inputs.list_length:
        notes.append(f"clips calibrated on the {len(runs)} image(s) run; the mapper calibrates on all "
                     f"{inputs.list_length} of the image list")
    folders = _folders(out, inputs)
    files: list[Path] = []
    for k, (run, folder) in enumerate(zip(runs, folders)):
        files += write_sim_dumps(run, folder, fmt=fmt)
        writing.step("write", k + 1, len(folders))
    clips = {blob: round(clip, 9) for blob, clip in runs[0].clips.items()}
    sixteen = list(runs[0].sixteen_bit)
    if precision is not None:
        notes.insert(0, f"precision: {precision.describe()}" + (
            f"; at 16 bit: {_names(sixteen)}" if sixteen and precision.bits != 16 else ""))
    write_manifest(out, _manifest("emulate", inputs, folders, out, files, run_options, format=fmt,
                                  bits=options.bits, precision=precision.to_json() if precision is not None else None,
                                  sixteen_bit_layers=sixteen, hp_layers=sorted(options.hp_layers), clips=clips,
                                  calibration_images=len(runs), input_dumps=bool(options.keep_inputs)))
    return RunReport(out, files, folders, notes, skipped=list(runs[0].skipped), sixteen_bit=sixteen)


def write_onnx_reference_run(inputs, onnx_path: str | Path, out: str | Path,
                             input_shape: tuple[int, ...] | None = None, *, progress: Reporter | None = None,
                             run_options=None) -> RunReport:
    """Every image of ``inputs`` (:class:`nnie_lsp.reference.run_inputs.RunInputs`) through the
    ONNX model, in the dump form of ``run_options`` (the compact one by default), named by the
    Caffe blobs (:mod:`nnie_lsp.reference.onnx_dumps`: what is written, the manifest's fields)."""
    from nnie_lsp.readers.dumpio.compact import CompactWriter
    from nnie_lsp.reference.caffe_forward import load_reference_net, prepare_inputs
    from nnie_lsp.reference.inplace_values import INPLACE_DIR
    from nnie_lsp.reference.onnx_dumps import ONNX_ONLY_DIR, write_onnx_dumps
    from nnie_lsp.reference.onnx_run import load_onnx_reference, run_onnx

    progress = progress or NO_PROGRESS
    out = Path(out)
    notes = list(inputs.notes) + prepare_output(out)
    loading = progress.part(0, 10)
    loading.step("load", 0, 1)
    net = load_reference_net(inputs.prototxt, inputs.caffemodel)
    ref = load_onnx_reference(onnx_path, inputs.prototxt)
    loading.step("load", 1, 1)
    folders = _folders(out, inputs)
    files: list[Path] = []
    aside: list[Path] = []
    form = dump_form(None, run_options)
    running = progress.part(10, 100)
    with CompactWriter() as writer:
        for k, (img, folder) in enumerate(zip(inputs.images, folders)):
            running.step("forward", k, len(folders))
            every: dict = {}
            blobs = run_onnx(ref, prepare_inputs(net, img.sources, inputs.preprocessing, input_shape), every)
            files += write_onnx_dumps(blobs, folder, form, writer)
            aside += write_onnx_dumps({layer: every[t] for layer, t in ref.overwritten.items() if t in every},
                                      Path(folder) / INPLACE_DIR, form, writer)
            aside += write_onnx_dumps({t: every[t] for t in ref.onnx_only if t in every},
                                      Path(folder) / ONNX_ONLY_DIR, form, writer)
    running.step("forward", len(folders), len(folders))
    if ref.unmatched_layers:
        shown = ", ".join(name for name, _ in ref.unmatched_layers[:5]) + (" …" if len(ref.unmatched_layers) > 5 else "")
        notes.append(f"{len(ref.unmatched_layers)} Caffe layer(s) match no ONNX node ({shown}): their blobs have "
                     "no framework dump (nnie-lint --onnx says why)")
    path = Path(onnx_path)
    write_manifest(out, _manifest("reference", inputs, folders, out, files + aside, run_options, format="ruyi-caffe",
                                  dump_format=form, framework="onnx",
                                  onnx=str(path.resolve()), onnx_sha256=_sha256(path),
                                  blob_tensor=dict(ref.blob_tensor),
                                  matched_by=ref.how, unmatched_layers=[n for n, _ in ref.unmatched_layers],
                                  onnx_only_tensors=ref.onnx_only, overwritten=dict(ref.overwritten),
                                  not_comparable=dict(ref.not_comparable)))
    return RunReport(out, files, folders, notes)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _names(names: list[str], shown: int = 6) -> str:
    return ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")


def _prep_values(prep) -> dict:
    """The numbers a reference run applied to an input (the manifest says what the truth was)."""
    import numpy as np

    mean = np.asarray(prep.mean).reshape(-1).tolist() if prep.mean is not None and np.asarray(prep.mean).ndim == 1 \
        else None
    return {"norm_type": prep.norm_type, "rgb_order": prep.rgb_order, "data_scale": prep.data_scale,
            "mean": mean, "mean_file": prep.mean_file, "transpose": bool(prep.transpose)}

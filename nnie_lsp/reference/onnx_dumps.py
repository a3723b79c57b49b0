"""``nnie-triage reference --onnx``: the framework dumps of the chain ONNX → Caffe → NNIE.

The ONNX model runs on the image(s) and the preprocessing the cfg gives the Caffe reference (the
same input array: :func:`nnie_lsp.reference.caffe_forward.prepare_inputs`), every intermediate
tensor exposed (:mod:`.onnx_run`).  What is written (docs/triage-schema.md, "Framework dumps"):

- one file per Caffe blob that an ONNX tensor stands for, **named by the Caffe blob** in RuyiStudio's
  Caffe form ``<blob>_output<n>_<C>_<H>_<W>_caffe.linear.npz`` (the compact exact form,
  :mod:`nnie_lsp.readers.dumpio.compact`; ``--dump-format text``: ``….float``, ``%.18e`` one value a line;
  the dims are ONNX's), so that every dump reader takes them and ``compare --framework`` pairs them
  with the Caffe reference by name;
- the ONNX tensor of every Caffe layer output an in-place layer overwrites (the convolution's
  output under ``top: "conv1"`` before its PReLU), named by the **layer**, in ``.inplace/`` --
  the Caffe reference writes the same values there (:mod:`.inplace_values`);
- every other ONNX tensor (a Flatten inside an InnerProduct) under its ONNX name in
  ``.onnx_only/``: no Caffe value stands for it, and the manifest says why (``not_comparable``);
- the manifest ``nnie-triage-dumps.json`` (``command: "reference"``, ``framework: "onnx"``): the
  ONNX model (path and SHA-256), ``blob_tensor`` (Caffe blob → the ONNX tensor it stands for), how each blob's layer
  was matched, the Caffe layers left unmatched, the ONNX-only tensors, ``overwritten`` (Caffe
  layer → ONNX tensor of its overwritten output) and ``not_comparable`` (why), besides what every
  reference manifest holds (cfg, prototxt, preprocessing, images).

Several images: one sub-folder per image, as the Caffe reference does (:mod:`nnie_lsp.triage.
inputs.image_sets`).  The default folder beside the cfg is ``output_onnx/``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from nnie_lsp.triage.inputs.folder_names import ONNX_OUTPUT_DIR

from nnie_lsp.reference.inplace_values import INPLACE_DIR

#: the sub-folder holding the ONNX tensors no Caffe value stands for, under their ONNX names
ONNX_ONLY_DIR = ".onnx_only"

#: The default output folder beside the cfg (the Caffe reference's is ``output/``); discovery finds
#: it there for ``compare --cfg`` (:mod:`nnie_lsp.triage.inputs.beside_cfg`).
FRAMEWORK_OUTPUT_DIR = ONNX_OUTPUT_DIR


def write_onnx_dumps(blobs: dict[str, np.ndarray], outdir: str | Path, form: str = "text",
                     writer=None) -> list[Path]:
    """Each blob's tensor, batch item by batch item, in RuyiStudio's Caffe naming, in the dump form
    ``form`` (:func:`nnie_lsp.readers.dumpio.writers.write_ruyi_caffe`)."""
    from nnie_lsp.readers.dumpio.writers import write_ruyi_caffe

    out = Path(outdir)
    written: list[Path] = []
    if not blobs:
        return written
    out.mkdir(parents=True, exist_ok=True)
    for blob, arr in blobs.items():
        a = np.asarray(arr, dtype=np.float32)
        if a.ndim == 0:
            a = a.reshape(1, 1)
        for n in range(a.shape[0]):
            written.append(Path(write_ruyi_caffe(out, blob, a[n], n=n, form=form, writer=writer)))
    return written


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def write_onnx_reference_run(inputs, onnx_path: str | Path, out: str | Path,
                             input_shape: tuple[int, ...] | None = None, *, progress=None, run_options=None):
    """Every image of ``inputs`` (:class:`nnie_lsp.reference.run_inputs.RunInputs`) through the
    ONNX model, in the dump form of ``run_options`` (the compact one by default); returns the
    :class:`~nnie_lsp.triage.inputs.dump_runs.RunReport`."""
    from nnie_lsp.readers.dumpio.compact import CompactWriter
    from nnie_lsp.triage.inputs.dump_runs import RunReport, _folders, _manifest, dump_form
    from nnie_lsp.triage.inputs.image_sets import prepare_output, write_manifest
    from nnie_lsp.triage.progress import NO_PROGRESS
    from nnie_lsp.reference.caffe_forward import load_reference_net, prepare_inputs
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

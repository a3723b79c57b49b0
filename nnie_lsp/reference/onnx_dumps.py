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
inputs.image_sets`).  The default folder beside the cfg is ``output_onnx/``.  The run itself (every
image through the model, the folder and its manifest) is
:func:`nnie_lsp.triage.inputs.dump_runs.write_onnx_reference_run`, beside the Caffe reference's and
the emulation's; this module writes the dumps.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

#: the sub-folder holding the ONNX tensors no Caffe value stands for, under their ONNX names
ONNX_ONLY_DIR = ".onnx_only"


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

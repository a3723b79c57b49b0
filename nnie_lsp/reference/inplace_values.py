"""The values an in-place chain overwrites: in ``conv1 → prelu1`` (``top: "conv1"`` both) the
blob ``conv1`` ends as the PReLU's output, and RuyiStudio's "Get Caffe Output" (one file per
blob, docs/field-facts.md §10.3) keeps only that.  The convolution's own output is still a value
the reference computes (OpenCV returns every layer's output, fusion off) and the ONNX model has
a tensor for it, so both sides write these values too -- **named by the layer**, in the
sub-folder :data:`INPLACE_DIR` of each dump folder, where the Caffe → NNIE alignment does not
look (the dump scanner skips dot-folders) and the ONNX → Caffe hop does
(:mod:`nnie_lsp.triage.measure.framework`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

#: the sub-folder of a dump folder holding the overwritten values, one file per layer
INPLACE_DIR = ".inplace"


def overwritten(layers) -> list[tuple[object, str, object]]:
    """(layer, blob, the layer that rewrites it) for every layer whose output a later layer
    rewrites in place, in net order; ``layers`` have ``name``, ``bottoms`` and ``tops``."""
    last: dict[str, object] = {}      # blob -> the layer whose output it holds now
    out = []
    for layer in layers:
        tops, bottoms = list(layer.tops), set(layer.bottoms)
        for t in tops:
            if t in bottoms and t in last:
                out.append((last[t], t, layer))
            last[t] = layer
    return out


def write_inplace_dumps(layer_outputs: dict[str, list[np.ndarray]], layers, folder: str | Path,
                        form: str = "text", writer=None) -> list[Path]:
    """The Caffe reference's overwritten values (``layer_outputs``: layer name -> its outputs) in
    ``folder``/:data:`INPLACE_DIR`, as RuyiStudio names a blob's file, under the layer's name, in the
    dump form ``form`` (:func:`nnie_lsp.readers.dumpio.writers.write_ruyi_caffe`)."""
    from nnie_lsp.readers.dumpio.writers import write_ruyi_caffe

    written = []
    for layer, blob, _ in overwritten(layers):
        outs = layer_outputs.get(layer.name)
        if not outs:
            continue
        arr = np.asarray(outs[list(layer.tops).index(blob)] if blob in layer.tops else outs[0])
        sub = Path(folder) / INPLACE_DIR
        sub.mkdir(parents=True, exist_ok=True)
        for n in range(arr.shape[0] if arr.ndim >= 1 else 1):
            written.append(Path(write_ruyi_caffe(sub, layer.name, arr[n] if arr.ndim >= 1 else arr, n=n,
                                                 form=form, writer=writer)))
    return written

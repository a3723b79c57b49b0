"""Caffe reference forward through OpenCV's Caffe importer (no Caffe install needed).

Follows rules measured on OpenCV's Caffe importer: a fresh ``Net`` per run,
``enableFusion(False)`` (fusion rewrites per-layer outputs), ``DNN_BACKEND_OPENCV``, every layer
requested in ONE ``forwardAndRetrieve(list)``; outputs are addressed by layer name and a Caffe blob's value is the
output of the LAST layer writing it (in-place chains); the data blob is our own preprocessed input.

Writes RuyiStudio "Get Caffe Output" dumps (docs/field-facts.md §10.3):
``<blob>_output<n>_<C>_<H>_<W>_caffe.linear.float`` for every blob, the data blob included.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .net import CaffeNet, NetLoadError, load_net
from .preprocess import Preprocessing, PreprocessError, load_image, normalize


class ReferenceError(ValueError):
    """Bad input for a reference run; the message is for the user."""


@dataclass
class ReferenceRun:
    net: CaffeNet
    inputs: dict[str, np.ndarray]  # input blob -> (N,C,H,W) normalized data
    blobs: dict[str, np.ndarray]  # every blob, network order, value = last writer's output
    layer_outputs: dict[str, list[np.ndarray]]  # layer name -> its outputs (pre in-place rewrites)
    preprocessing: list[Preprocessing] = field(default_factory=list)
    images: list[str] = field(default_factory=list)

    def blob_order(self) -> list[str]:
        return list(self.blobs)


def _input_shapes(net: CaffeNet, override: tuple[int, ...] | None) -> list[tuple[str, tuple[int, ...]]]:
    shapes = []
    for i, (name, shape) in enumerate(net.inputs):
        if override is not None and i == 0:
            shape = tuple(override)
        if len(shape) == 3:
            shape = (1,) + tuple(shape)
        if len(shape) != 4:
            raise ReferenceError(f"input {name!r}: need a 4-D shape (N,C,H,W), the prototxt gives {shape}")
        shapes.append((name, tuple(int(s) for s in shape)))
    return shapes


def prepare_inputs(net: CaffeNet, images: list[str | Path | np.ndarray], preps: list[Preprocessing],
                   input_shape: tuple[int, ...] | None = None) -> dict[str, np.ndarray]:
    shapes = _input_shapes(net, input_shape)
    if len(images) != len(shapes):
        raise ReferenceError(f"the net has {len(shapes)} input(s) ({', '.join(n for n, _ in shapes)}) "
                             f"but {len(images)} image(s) were given")
    out: dict[str, np.ndarray] = {}
    for k, ((name, shape), image) in enumerate(zip(shapes, images)):
        prep = preps[k] if k < len(preps) else preps[-1]
        try:
            if isinstance(image, np.ndarray):
                raw = image.astype(np.float32).reshape(shape[1:])
            else:
                raw = load_image(image, shape[1:], prep)
            out[name] = normalize(raw, prep)[None]
        except PreprocessError as exc:
            raise ReferenceError(str(exc)) from exc
    return out


def opencv_forward(net: CaffeNet, inputs: dict[str, np.ndarray]) -> dict[str, list[np.ndarray]]:
    """Every layer's outputs from OpenCV (fresh Net, fusion off)."""
    try:
        import cv2
    except ImportError as exc:  # pragma: no cover
        raise ReferenceError("the reference forward needs opencv-python-headless>=4,<5 "
                             "(pip install 'nnie-lsp[reference]')") from exc
    if net.prototxt is None or net.caffemodel is None:
        raise ReferenceError("a reference forward needs both a prototxt and a caffemodel")
    try:
        text = _opencv_prototxt(net.prototxt)
        if text is None:
            cvnet = cv2.dnn.readNetFromCaffe(str(net.prototxt), str(net.caffemodel))
        else:  # round_mode spelled as OpenCV's schema spells it (same field, another name)
            cvnet = cv2.dnn.readNetFromCaffe(np.frombuffer(text.encode("utf-8"), np.uint8),
                                             np.fromfile(str(net.caffemodel), np.uint8))
    except cv2.error as exc:
        msg = str(exc).strip().splitlines()[-1] if str(exc).strip() else repr(exc)
        raise ReferenceError(f"OpenCV cannot load the net: {msg}") from exc
    cvnet.enableFusion(False)
    cvnet.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    cvnet.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
    if len(inputs) == 1:
        cvnet.setInput(next(iter(inputs.values())))
    else:
        for name, arr in inputs.items():
            cvnet.setInput(arr, name)
    names = [layer.name for layer in net.layers]
    cv_names = set(cvnet.getLayerNames())
    wanted = [n for n in names if n in cv_names]
    try:
        outs = cvnet.forwardAndRetrieve(wanted)
    except cv2.error as exc:
        msg = str(exc).strip().splitlines()[-1] if str(exc).strip() else repr(exc)
        raise ReferenceError(f"OpenCV forward failed: {msg}") from exc
    # every array OpenCV returns here owns its data (a fresh Net per run; in-place layers already
    # get outputs of their own with fusion off, which the tests check), so no copy is needed
    return {n: [np.asarray(o, dtype=np.float32) for o in outs_n] for n, outs_n in zip(wanted, outs)}


_ROUND_MODE = re.compile(r"\bround_mode\s*:\s*(FLOOR|CEIL|1|0)\b")


def _opencv_prototxt(prototxt: str | Path) -> str | None:
    """The prototxt as OpenCV's Caffe schema reads it, or None when it reads the file as it is.
    NNIE's (and newer Caffe forks') ``pooling_param { round_mode: FLOOR }`` is field 13 of
    ``PoolingParameter``; OpenCV's schema calls field 13 ``ceil_mode`` (a bool, default true) and
    refuses the text name ``round_mode`` (docs/field-facts.md §17.2)."""
    from .net import NetLoadError, read_prototxt_text

    try:
        text = read_prototxt_text(prototxt)
    except NetLoadError:
        return None  # OpenCV says what is wrong with the file
    if "round_mode" not in text:
        return None
    return _ROUND_MODE.sub(lambda m: "ceil_mode: " + ("false" if m.group(1) in ("FLOOR", "1") else "true"), text)


def run_reference(prototxt: str | Path, caffemodel: str | Path, images: list[str | Path | np.ndarray],
                  preps: list[Preprocessing] | Preprocessing,
                  input_shape: tuple[int, ...] | None = None, *, net: CaffeNet | None = None) -> ReferenceRun:
    """One image (one source per network input) through OpenCV. ``net``: the net already loaded
    (:func:`load_reference_net`) when several images are run."""
    if isinstance(preps, Preprocessing):
        preps = [preps]
    if net is None:
        net = load_reference_net(prototxt, caffemodel)
    inputs = prepare_inputs(net, images, preps, input_shape)
    layer_outputs = opencv_forward(net, inputs)
    blobs: dict[str, np.ndarray] = dict(inputs)
    for layer in net.layers:
        outs = layer_outputs.get(layer.name)
        if outs is None:
            continue
        for top, arr in zip(layer.tops, outs):
            if top in blobs and top not in layer.bottoms and top not in inputs:
                # a blob written twice without being in place: Caffe keeps the last
                pass
            blobs[top] = arr
    return ReferenceRun(net=net, inputs=inputs, blobs=blobs, layer_outputs=layer_outputs,
                        preprocessing=list(preps),
                        images=[str(i) for i in images if not isinstance(i, np.ndarray)])


def load_reference_net(prototxt: str | Path, caffemodel: str | Path) -> CaffeNet:
    """The net's layers and inputs for a reference run; OpenCV reads the weights itself."""
    if not Path(caffemodel).is_file():
        raise ReferenceError(f"caffemodel {caffemodel} does not exist")
    try:
        return load_net(prototxt, caffemodel, weights=False)
    except NetLoadError as exc:
        raise ReferenceError(str(exc)) from exc


def write_reference_dumps(run: ReferenceRun, outdir: str | Path) -> list[Path]:
    """RuyiStudio-format Caffe dumps for every blob (data included), batch item 0."""
    from nnie_lsp.dumpio.writers import write_ruyi_caffe

    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for blob, arr in run.blobs.items():
        a = np.asarray(arr)
        for n in range(a.shape[0] if a.ndim >= 1 else 1):
            written.append(Path(write_ruyi_caffe(out, blob, a[n] if a.ndim >= 1 else a, n=n)))
    return written

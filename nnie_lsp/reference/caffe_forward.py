"""Caffe reference forward through OpenCV's Caffe importer (no Caffe install needed), or through the
project's numpy forward for the nets OpenCV cannot load.

Engine (:func:`reference_engine`): OpenCV's importer, unless the net has a layer type OpenCV's
Caffe importer cannot create (:data:`OPENCV_LACKS`, measured on OpenCV 4.x: Clip, Upsample, Bias,
Threshold -- the first two are what onnx2caffe converters write for ReLU6 and Resize) or OpenCV
refuses a layer at load time; then the WHOLE net runs in :mod:`.numpy_forward` (checked against
OpenCV on the real nets in the tests), never a mix: OpenCV cannot be resumed from values computed
elsewhere, and one engine per run keeps every blob's value computed one way.  The run says which
engine ran and why (:attr:`ReferenceRun.engine`, ``engine_reason``).

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

from nnie_lsp.readers.caffemodel import NetLoadError

from nnie_lsp.reference.net import CaffeNet, load_net
from nnie_lsp.reference.preprocess import Preprocessing, PreprocessError, load_image, normalize


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
    engine: str = "opencv"  # "opencv" | "numpy" (:func:`reference_engine`)
    engine_reason: str | None = None  # why the numpy forward ran

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


#: Layer types OpenCV's Caffe importer cannot create ("Can't create layer ... of type"), measured on
#: opencv-python-headless 4.x (ReLU6, Slice, Power, HardSwish, Swish, Mish, Permute load there).
OPENCV_LACKS = frozenset({"Clip", "Upsample", "Bias", "Threshold"})


def numpy_runs(net: CaffeNet) -> str | None:
    """Why the net cannot run in the numpy forward (its first unsupported layer), or None."""
    from nnie_lsp.reference.numpy_forward import SUPPORTED

    for layer in net.layers:
        if layer.type not in SUPPORTED:
            return f"layer {layer.name!r}: type {layer.type} is not supported by the numpy forward"
    return None


def reference_engine(net: CaffeNet) -> tuple[str, str | None]:
    """("opencv", None), or ("numpy", why) when the net has a layer OpenCV's importer lacks and the
    numpy forward runs every layer of it."""
    lacking = [layer for layer in net.layers if layer.type in OPENCV_LACKS]
    if lacking and numpy_runs(net) is None:
        types = sorted({layer.type for layer in lacking})
        return "numpy", (f"OpenCV's Caffe importer has no {'/'.join(types)} layer "
                         f"(first: {lacking[0].name}); the whole net ran in nnie-lsp's numpy Caffe forward")
    return "opencv", None


class _OpencvRefuses(ReferenceError):
    """OpenCV cannot create one of the net's layers (its message says which)."""


def numpy_reference_forward(net: CaffeNet, inputs: dict[str, np.ndarray]) -> dict[str, list[np.ndarray]]:
    """Every layer's outputs from the numpy forward (weights read from the caffemodel once)."""
    from nnie_lsp.readers.caffemodel import read_weights
    from nnie_lsp.reference.numpy_forward import UnsupportedLayer, forward

    if net.caffemodel is None:
        raise ReferenceError("a reference forward needs both a prototxt and a caffemodel")
    if not any(layer.blobs for layer in net.layers):
        try:
            weights = read_weights(net.caffemodel)
        except NetLoadError as exc:
            raise ReferenceError(str(exc)) from exc
        from nnie_lsp.readers.prototxt.layers import base_layer_name
        for layer in net.layers:
            layer.blobs = weights.get(layer.name) or weights.get(base_layer_name(layer.name), [])
    try:
        ran = forward(net, inputs)
    except UnsupportedLayer as exc:
        raise ReferenceError(str(exc)) from exc
    except (ValueError, IndexError) as exc:
        raise ReferenceError(f"the numpy Caffe forward failed: {exc}") from exc
    return {layer.name: [written[t] for t in layer.tops] for layer, written in ran}


def opencv_forward(net: CaffeNet, inputs: dict[str, np.ndarray]) -> dict[str, list[np.ndarray]]:
    """Every layer's outputs from OpenCV (fresh Net, fusion off)."""
    try:
        import cv2
    except ImportError as exc:  # pragma: no cover
        raise ReferenceError("the reference forward needs opencv-python-headless>=4,<5 "
                             "(pip install 'nnie-lsp[reference]')") from exc
    if net.prototxt is None or net.caffemodel is None:
        raise ReferenceError("a reference forward needs both a prototxt and a caffemodel")
    marked = _marked_layers(net)
    try:
        text = _opencv_prototxt(net.prototxt, marked)
        if text is None:
            cvnet = cv2.dnn.readNetFromCaffe(str(net.prototxt), str(net.caffemodel))
        else:  # round_mode spelled as OpenCV's schema spells it (same field, another name)
            cvnet = cv2.dnn.readNetFromCaffe(np.frombuffer(text.encode("utf-8"), np.uint8),
                                             np.fromfile(str(net.caffemodel), np.uint8))
    except cv2.error as exc:
        msg = str(exc).strip().splitlines()[-1] if str(exc).strip() else repr(exc)
        if "Can't create layer" in str(exc):
            raise _OpencvRefuses(f"OpenCV cannot load the net: {msg}") from exc
        raise ReferenceError(f"OpenCV cannot load the net: {msg}") from exc
    cvnet.enableFusion(False)
    cvnet.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    cvnet.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
    if len(inputs) == 1:
        cvnet.setInput(next(iter(inputs.values())))
    else:
        for name, arr in inputs.items():
            cvnet.setInput(arr, name)
    cv_names = set(cvnet.getLayerNames())
    ours = {layer.name for layer in net.layers}
    # OpenCV's importer names some layers after their top (measured on OpenCV 4.x: a Convolution
    # whose top no layer reads and differs from its name): such a layer is asked for by its top
    by_cv: dict[str, str] = {}
    for layer in net.layers:
        if marked.get(layer.name) in cv_names:   # loaded under the name its weights have
            by_cv[marked[layer.name]] = layer.name
        elif layer.name in cv_names:
            by_cv[layer.name] = layer.name
        elif len(layer.tops) == 1 and layer.tops[0] in cv_names and layer.tops[0] not in ours:
            by_cv[layer.tops[0]] = layer.name
    wanted = list(by_cv)
    try:
        outs = cvnet.forwardAndRetrieve(wanted)
    except cv2.error as exc:
        msg = str(exc).strip().splitlines()[-1] if str(exc).strip() else repr(exc)
        if "Can't create layer" in str(exc):  # OpenCV creates layers lazily, at the first forward
            raise _OpencvRefuses(f"OpenCV forward failed: {msg}") from exc
        raise ReferenceError(f"OpenCV forward failed: {msg}") from exc
    # every array OpenCV returns here owns its data (a fresh Net per run; in-place layers already
    # get outputs of their own with fusion off, which the tests check), so no copy is needed
    return {by_cv[n]: [np.asarray(o, dtype=np.float32) for o in outs_n] for n, outs_n in zip(wanted, outs)}


_ROUND_MODE = re.compile(r"\bround_mode\s*:\s*(FLOOR|CEIL|1|0)\b")


def _marked_layers(net: CaffeNet) -> dict[str, str]:
    """Layers whose name carries a mapper mark (``conv5_hp``, ``x_cpu``) -> the name without it,
    when no other layer has that name: the caffemodel holds their weights under it (the mark is the
    mapper's, docs/field-facts.md §7.4 [I]; :func:`~nnie_lsp.reference.net.load_net` reads them so),
    and OpenCV finds weights by layer name, so it loads them under that name."""
    from nnie_lsp.readers.prototxt.layers import base_layer_name

    names = {layer.name for layer in net.layers}
    out = {}
    for layer in net.layers:
        base = base_layer_name(layer.name)
        if base != layer.name and base not in names:
            out[layer.name] = base
    return out


def _opencv_prototxt(prototxt: str | Path, marked: dict[str, str] | None = None) -> str | None:
    """The prototxt as OpenCV's Caffe schema reads it, or None when it reads the file as it is.
    NNIE's (and newer Caffe forks') ``pooling_param { round_mode: FLOOR }`` is field 13 of
    ``PoolingParameter``; OpenCV's schema calls field 13 ``ceil_mode`` (a bool, default true) and
    refuses the text name ``round_mode`` (docs/field-facts.md §17.2).  ``marked`` layers
    (:func:`_marked_layers`) are named without their mark, so that OpenCV finds their weights."""
    from nnie_lsp.readers.caffemodel import NetLoadError
    from nnie_lsp.reference.net import read_prototxt_text

    try:
        text = read_prototxt_text(prototxt)
    except NetLoadError:
        return None  # OpenCV says what is wrong with the file
    if "round_mode" not in text and not marked:
        return None
    for name, base in (marked or {}).items():
        text = re.sub(rf'(\bname\s*:\s*)(["\']){re.escape(name)}\2', lambda m: f"{m.group(1)}{m.group(2)}{base}{m.group(2)}",
                      text)
    return _ROUND_MODE.sub(lambda m: "ceil_mode: " + ("false" if m.group(1) in ("FLOOR", "1") else "true"), text)


def run_reference(prototxt: str | Path, caffemodel: str | Path, images: list[str | Path | np.ndarray],
                  preps: list[Preprocessing] | Preprocessing,
                  input_shape: tuple[int, ...] | None = None, *, net: CaffeNet | None = None) -> ReferenceRun:
    """One image (one source per network input) through OpenCV. ``net``: the net already loaded
    (:func:`load_reference_net`) when several images are run.  The engine: :func:`reference_engine`,
    and the numpy forward too when OpenCV refuses a layer not in :data:`OPENCV_LACKS`."""
    if isinstance(preps, Preprocessing):
        preps = [preps]
    if net is None:
        net = load_reference_net(prototxt, caffemodel)
    inputs = prepare_inputs(net, images, preps, input_shape)
    engine, reason = reference_engine(net)
    if engine == "opencv":
        try:
            layer_outputs = opencv_forward(net, inputs)
        except _OpencvRefuses as exc:
            if numpy_runs(net) is not None:
                raise ReferenceError(f"{exc}; the numpy Caffe forward cannot run it either: {numpy_runs(net)}") from exc
            engine, reason = "numpy", f"{exc}; the whole net ran in nnie-lsp's numpy Caffe forward"
    if engine == "numpy":
        layer_outputs = numpy_reference_forward(net, inputs)
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
                        images=[str(i) for i in images if not isinstance(i, np.ndarray)],
                        engine=engine, engine_reason=reason)


def load_reference_net(prototxt: str | Path, caffemodel: str | Path) -> CaffeNet:
    """The net's layers and inputs for a reference run; OpenCV reads the weights itself (the numpy
    forward reads them at its first run, :func:`numpy_reference_forward`)."""
    if not Path(caffemodel).is_file():
        raise ReferenceError(f"caffemodel {caffemodel} does not exist")
    try:
        return load_net(prototxt, caffemodel, weights=False)
    except NetLoadError as exc:
        raise ReferenceError(str(exc)) from exc


def write_reference_dumps(run: ReferenceRun, outdir: str | Path, form: str = "text", writer=None) -> list[Path]:
    """Caffe dumps for every blob (data included), every batch item, named as RuyiStudio names
    them: in its ``%.18e`` text (``form`` ``text``) or the compact exact form (``compact``,
    :mod:`nnie_lsp.readers.dumpio.compact`; ``writer`` compresses them on its threads)."""
    from nnie_lsp.readers.dumpio.writers import write_ruyi_caffe

    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for blob, arr in run.blobs.items():
        a = np.asarray(arr)
        for n in range(a.shape[0] if a.ndim >= 1 else 1):
            written.append(Path(write_ruyi_caffe(out, blob, a[n] if a.ndim >= 1 else a, n=n, form=form,
                                                 writer=writer)))
    return written

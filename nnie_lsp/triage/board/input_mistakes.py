"""What each input mistake does to the planes the chip reads, and the mistake seen from the
outputs alone.

:func:`as_fed` is the one definition of the board-code input mistakes (docs/field-facts.md §20):
``hwc`` (a packed H,W,C buffer -- an OpenCV ``Mat`` -- copied into the planar blob), ``rgb``
(channels 0 and 2 exchanged), ``input_stride`` (rows copied W bytes apart into rows the chip reads
``stride`` bytes apart).

:func:`infer_from_outputs`: when the board dumped no input and no reading of any output agrees
with the simulator, the net is emulated (the NNIE emulation ``nnie-triage emulate`` runs) on the
cfg's last image fed each wrong way; the mistake whose outputs the board's reproduce is named,
inferred -- the finding asks for the input's dump to confirm it.  The emulation must first
reproduce the simulator on the image fed right (else nothing is said: the board may have run
another image); the H/W transpose a MATLAB-trained net needs is tried both ways, the one that
reproduces the simulator kept.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from nnie_lsp.triage.board.readings import compare

if TYPE_CHECKING:
    from nnie_lsp.triage.board.checks import BoardReport

MISTAKES = ("hwc", "rgb", "input_stride")
#: The emulation on the image fed right must reproduce the simulator (else the board's image or the
#: net is not the one emulated) at least this well, worst output.
BASELINE = 0.98
#: A mistake is inferred when its emulated outputs reproduce the board's at least this well (worst
#: output) and by ``MARGIN`` better than the emulation fed right does: the board's outputs already
#: disagree with the simulator below 0.99 with no reading to explain them, so a wrong way of feeding
#: that explains them to 0.95 and beyond is evidence, said as inferred (MTCNN's P-Net, robust to a
#: channel swap, gives 0.92 fed right against 1.0 fed swapped).
REPRODUCES = 0.95
MARGIN = 0.05


def as_fed(planes: np.ndarray, mistake: str | None, stride: int, filler: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(the input blob's memory as the board code fills it, the planes the chip reads from it) for
    the right U8 ``planes`` (C, H, W) and a blob whose rows are ``stride`` bytes apart; ``filler``:
    what the memory holds beyond what the board wrote (zeros by default)."""
    p = np.asarray(planes).astype(np.uint8)
    c, h, w = p.shape
    if mistake == "hwc":
        p = np.ascontiguousarray(p.transpose(1, 2, 0)).reshape(c, h, w)
    elif mistake == "rgb":
        p = p[::-1].copy()
    size = c * h * stride
    if mistake == "input_stride":
        flat = p.reshape(-1)
        rest = np.zeros(size - flat.size, np.uint8) if filler is None else np.resize(filler.astype(np.uint8), size - flat.size)
        mem = np.concatenate([flat, rest])
        return mem, mem.reshape(c * h, stride)[:, :w].reshape(c, h, w)
    mem = np.zeros((c * h, stride), np.uint8) if filler is None else np.resize(filler.astype(np.uint8), (c * h, stride))
    mem[:, :w] = p.reshape(c * h, w)
    return mem.reshape(-1), p


def _worst(outputs: dict[str, np.ndarray], against: dict[str, np.ndarray]) -> float:
    values = []
    for blob, want in against.items():
        got = outputs.get(blob)
        if got is None or got.size != want.size:
            return float("nan")
        values.append(compare(got.reshape(-1), want.reshape(-1)))
    return min(values) if values else float("nan")


def infer_from_outputs(report: BoardReport, cfg: str, *, node, truths: dict) -> tuple[str, dict] | None:
    """(mistake, parameters) when the board's outputs are what the chip computes on the cfg's last
    image fed one of the wrong ways (module doc), else None.  ``node``: the input's contract node."""
    from nnie_lsp.emulation.emulate import EmulationOptions, emulate_images
    from nnie_lsp.reference.caffe_forward import prepare_inputs
    from nnie_lsp.reference.net import load_net
    from nnie_lsp.reference.preprocess import load_image
    from nnie_lsp.reference.run_inputs import Overrides, load_run_inputs

    board = {c.named.blob_name: c.as_read for c in report.outputs
             if c.named is not None and c.as_read is not None}
    truth = {blob: truths[blob].tensor for blob in board if truths.get(blob) is not None
             and truths[blob].tensor is not None}
    if not board or len(truth) != len(board):
        return None
    b = node.blob
    shape = (b.channels, b.height, b.width)
    best_base = None
    for transpose in (False, True) if b.height == b.width else (False,):
        if best_base is not None and best_base[0] >= BASELINE:
            break                      # fed right as the cfg says, the emulation is the simulator
        inputs = load_run_inputs(cfg, count=1, overrides=Overrides(transpose=transpose))
        net = load_net(inputs.prototxt, inputs.caffemodel)
        image = inputs.images[-1].sources[0]
        planes = load_image(image, shape, inputs.preprocessing[0]).astype(np.uint8)
        healthy = prepare_inputs(net, [image], inputs.preprocessing)
        run = emulate_images(net, [healthy], EmulationOptions())[0].by_top()
        outs = {k: np.asarray(v, dtype=np.float64)[0] for k, v in run.items() if k in board}
        score = _worst(outs, truth)
        if math.isfinite(score) and (best_base is None or score > best_base[0]):
            best_base = (score, transpose, net, inputs, planes, healthy, outs)
    if best_base is None or best_base[0] < BASELINE:
        return None
    base_score, transpose, net, inputs, planes, healthy, base_outs = best_base
    fed_right = _worst(board, base_outs)
    found = []
    for mistake in MISTAKES:
        if mistake == "rgb" and b.channels != 3 or mistake == "hwc" and b.channels < 2:
            continue
        if mistake == "input_stride" and node.stride_words == b.width:
            continue
        _mem, seen = as_fed(planes, mistake, node.stride_words)
        wrong = prepare_inputs(net, [seen.astype(np.float32)], inputs.preprocessing)
        run = emulate_images(net, [healthy, wrong], EmulationOptions())[-1].by_top()
        outs = {k: np.asarray(v, dtype=np.float64)[0] for k, v in run.items() if k in board}
        score = _worst(board, outs)
        if math.isfinite(score) and score >= REPRODUCES and (not math.isfinite(fed_right) or score >= fed_right + MARGIN):
            found.append((score, mistake))
    if not found:
        return None
    score, mistake = max(found)
    return mistake, {"cosine": f"{score:.4f}", "cosine_right": f"{fed_right:.4f}" if math.isfinite(fed_right) else "—",
                     "baseline": f"{base_score:.4f}", "transposed": transpose}

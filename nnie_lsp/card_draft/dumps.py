"""A draft model card from the user's own Caffe dumps: the case-1 fit between the image and the Caffe
data blob (docs/field-facts.md §19).

The user's Caffe run (RuyiStudio's "Get Caffe Output", a pycaffe script) fed the net the training
preprocessing; its data blob dump holds it: ``data[c] = scale_c · (image[p(c)] − mean_c)``.  The
image the dump was made from is read as OpenCV reads it (B, G, R), resized to the blob's size (and
once more with H and W swapped), and the same least-squares fit the triage uses for case 1
(per channel, every permutation: :mod:`nnie_lsp.triage.diagnose.preprocess_fit`) gives the order
(identity: BGR; reversed: RGB), the scale, the mean and the transpose.  A fit that does not
explain the blob (R² below the triage's ``fit_r2``: another image, a crop, a letterbox) gives
nothing but the reason; a resize of another kind leaves the fit close but not exact, and the
values say so (rounded to the scales and means users write).
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

from nnie_lsp.card_draft import Draft, DraftValue

#: a fitted value this close to a written one is that one (1/255, 127.5, 0.0078125 …)
SNAP_SCALE, SNAP_MEAN = 2e-3, 0.05


def _snap_scale(v: float) -> float:
    from nnie_lsp.readers.cfg.preprocessing import NAMED_SCALES

    for number, _name, _written in NAMED_SCALES:
        if abs(v - number) <= SNAP_SCALE * number:
            return number
    return float(f"{v:.6g}")


def _snap_mean(v: float) -> float:
    for target in (round(v), round(v * 2) / 2):
        if abs(v - target) <= SNAP_MEAN:
            return float(target)
    return round(v, 3)


def data_dump(folder: str | Path, blob: str = "data"):
    """The data blob's tensor in a dump folder (by its name), else None."""
    from nnie_lsp.readers.dumpio.scan import scan_dumps

    tensors = scan_dumps(str(folder)).tensors
    return next((t for t in tensors if t.key == blob), None) or next((t for t in tensors if t.key == "data"), None)


def draft_from_dumps(folder: str | Path, images: list[str], blob: str = "data") -> Draft | None:
    """The draft one Caffe data dump gives against the image it was made from (the last of
    `images` that fits: the mapper and RuyiStudio dump the list's last image); None when the folder
    holds no data blob."""
    import numpy as np

    tensor = data_dump(folder, blob)
    if tensor is None:
        return None
    data = np.asarray(tensor.load(), dtype=np.float64)
    while data.ndim > 3 and data.shape[0] == 1:
        data = data[0]
    if data.ndim != 3 or data.shape[0] not in (1, 3):
        return None
    name = os.path.basename(getattr(tensor, "path", "") or str(tensor.key))
    best = None
    for image in reversed(images[-3:]):
        for fit in _fits(data, image):
            if best is None or fit["r2"] > best["r2"]:
                best = fit
    if best is None:
        return Draft((), (str(folder),), (f"{name}: no image of the list could be read",))
    return _draft(best, name, str(folder))


def _fits(data, image: str):
    import cv2
    import numpy as np

    from nnie_lsp.triage.diagnose.preprocess_fit import fit_channels

    c, h, w = data.shape
    raw = cv2.imread(image, cv2.IMREAD_GRAYSCALE if c == 1 else cv2.IMREAD_COLOR)
    if raw is None:
        return
    resizes = (("bilinear", cv2.INTER_LINEAR), ("area", cv2.INTER_AREA), ("bicubic", cv2.INTER_CUBIC),
               ("nearest", cv2.INTER_NEAREST))
    for transposed, (resize, flag) in itertools.product((False, True), resizes):
        img = cv2.resize(raw, (h, w) if transposed else (w, h), interpolation=flag)
        if transposed:
            img = np.swapaxes(img, 0, 1)
        chw = img.reshape(h, w, c).transpose(2, 0, 1).astype(np.float64)
        perms = list(itertools.permutations(range(3))) if c == 3 else [(0,)]
        for perm in perms:
            # data[k] ≈ a_k · image[perm[k]] + b_k
            scales, offsets, r2, _ss = fit_channels(chw, data, perm)
            yield {"perm": perm, "scales": scales, "offsets": offsets, "r2": r2, "transposed": transposed,
                   "image": image, "resize": resize}


def _draft(fit: dict, name: str, folder: str) -> Draft:
    from nnie_lsp.triage.measure.metrics import Thresholds

    where = f"{name} fitted against {os.path.basename(fit['image'])} (R² {fit['r2']:.5f}" + (
        f", {fit['resize']} resize)" if fit.get("resize") not in (None, "bilinear") else ")")
    if fit["r2"] < Thresholds().fit_r2:
        why = (f"unknown: {where}: the data blob is not a per-channel linear function of the image (another "
               "image, a crop or a letterbox)")
        return Draft(tuple(DraftValue(k, None, why) for k in ("channel_order", "mean", "scale", "transpose")),
                     (folder,))
    perm = tuple(fit["perm"])
    order = {(0, 1, 2): "BGR", (2, 1, 0): "RGB", (0,): "GRAY"}.get(perm)
    scales = [_snap_scale(a) for a in fit["scales"]]
    means = [_snap_mean(-b / a) if a else 0.0 for a, b in zip(fit["scales"], fit["offsets"])]
    scale = scales[0] if all(abs(s - scales[0]) <= SNAP_SCALE * abs(scales[0]) for s in scales) else scales
    mean = means[0] if all(abs(m - means[0]) <= SNAP_MEAN for m in means) else means
    exact = fit["r2"] >= 0.99999
    note = "" if exact else " — close, not exact: the resize or rounding differs"
    values = (
        DraftValue("channel_order", order, f"{where}: channels {perm} of the B, G, R image{note}"
                   if order else f"unknown: {where}: channels in the order {perm}", certain=exact),
        DraftValue("mean", mean, where + note, certain=exact),
        DraftValue("scale", scale, where + note, certain=exact),
        DraftValue("transpose", bool(fit["transposed"]), where + (" (H and W swapped)" if fit["transposed"] else ""),
                   certain=exact),
    )
    return Draft(values, (folder,))

"""Input preprocessing the way nnie_mapper applies it, in numbers (docs/field-facts.md §3.3, §5).

Order: channel order (RGB_order) → subtract the mean → × data_scale; which norm_type subtracts
what and which scales is the one table in :mod:`nnie_lsp.readers.cfg.preprocessing` -- this module only
computes.  Mean first, then scale (§5.4).  Channel-mean text files hold one float per line per
channel; the lines are applied in the order of the network's input channels (after RGB_order) --
the public material does not say more [?], and the ambiguity is reported by the triage fit instead.

A cfg is never interpreted here: :meth:`Preprocessing.from_input` turns the cfg's
:class:`~nnie_lsp.readers.cfg.preprocessing.InputPreprocessing` (the lint's reading, same values and same
resolved files) into numbers, and :func:`preprocessing_from_cfg` reads a cfg file that way.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from nnie_lsp.readers.cfg.preprocessing import (
    DEFAULT_DATA_SCALE,
    DEFAULT_RGB_ORDER,
    MEAN_IMAGE,
    InputPreprocessing,
    image_type_semantics,
    mean_file_kind,
    norm_semantics,
    parse_channel_means,
)


class PreprocessError(ValueError):
    pass


@dataclass
class Preprocessing:
    norm_type: int = 0
    data_scale: float = DEFAULT_DATA_SCALE
    mean: np.ndarray | None = None  # (C,) channel means or (C,H,W) mean image
    mean_file: str | None = None
    rgb_order: str = DEFAULT_RGB_ORDER
    image_type: int = 1
    transpose: bool = False  # MATLAB-trained nets (MTCNN): W and H swapped before the net
    images: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    channel_scale: np.ndarray | None = None  # a scale per channel (the training side only: 1/std)
    training_form: bool = False  # the training preprocessing (reference.training): said as order, mean, scale

    @property
    def uses_mean(self) -> bool:
        row = norm_semantics(self.norm_type)
        return row is not None and row.uses_mean

    @property
    def uses_scale(self) -> bool:
        row = norm_semantics(self.norm_type)
        return row is not None and row.scales

    @classmethod
    def from_input(cls, prep: InputPreprocessing, *, load_mean: bool = True) -> "Preprocessing":
        """The numbers of one cfg input (see :mod:`nnie_lsp.readers.cfg.preprocessing`).  Raises
        :class:`PreprocessError` with the cfg line when a value the forward needs is missing or
        invalid, or the mean file cannot be read; never guesses another input's value."""
        if prep.semantics is None:
            entry = prep.entry("norm_type")
            what = (f"[norm_type] {entry.value} is not one of 0-5" if entry is not None
                    else f"input {prep.index} has no [norm_type]")
            raise PreprocessError(f"{prep.where('norm_type')}: {what}")
        out = cls(norm_type=prep.norm_type)
        if prep.data_scale is not None:
            out.data_scale = prep.data_scale
            if prep.uses_scale and prep.data_scale_defaulted:
                out.notes.append(f"no [data_scale] for input {prep.index}: the default {DEFAULT_DATA_SCALE:g}")
        elif prep.uses_scale:
            raise PreprocessError(f"{prep.where('data_scale')}: [data_scale] "
                                  f"{prep.entry('data_scale').value} is not a valid scale")
        if prep.image_type is None:
            out.notes.append(f"input {prep.index}: no valid [image_type]; read as an image")
        else:
            out.image_type = prep.image_type
        if prep.rgb_order is not None:
            out.rgb_order = prep.rgb_order
        elif not prep.is_feature_map:  # the channel order matters for images only
            raise PreprocessError(f"{prep.where('RGB_order')}: [RGB_order] "
                                  f"{prep.entry('RGB_order').value} is not RGB or BGR")
        if prep.uses_mean:
            out.mean_file = _mean_path(prep)
            if load_mean:
                out.mean = read_mean_file(out.mean_file, prep.norm_type)
        return out

    def describe(self) -> str:
        if self.training_form:
            return self._describe_training()
        parts = [f"norm_type {self.norm_type}", f"RGB_order {self.rgb_order}"]
        if self.uses_mean and self.mean is not None:
            m = np.asarray(self.mean)
            parts.append("mean " + (", ".join(f"{v:g}" for v in m.reshape(-1)) if m.ndim == 1 else f"image {m.shape}"))
        if self.uses_scale:
            parts.append(f"data_scale {self.data_scale:g}")
        if self.transpose:
            parts.append("transposed (MATLAB)")
        return ", ".join(parts)

    def _describe_training(self) -> str:
        """``BGR, mean 104, 117, 123, scale 1`` (the training preprocessing's own terms)."""
        m = np.asarray(self.mean) if self.mean is not None else np.zeros(1)
        parts = [self.rgb_order]
        if m.ndim == 1:
            parts.append("mean " + ", ".join(f"{v:g}" for v in m.reshape(-1)))
        else:
            parts.append(f"mean image {m.shape}")
        if self.channel_scale is not None:
            parts.append("scale " + ", ".join(f"{v:g}" for v in np.asarray(self.channel_scale).reshape(-1)))
        else:
            parts.append(f"scale {self.data_scale:g}")
        if self.transpose:
            parts.append("transposed (H and W swapped)")
        return ", ".join(parts)

    def with_(self, **kw) -> "Preprocessing":
        return replace(self, **kw)


def _mean_path(prep: InputPreprocessing) -> str:
    """The resolved mean file of an input whose norm_type subtracts a mean (else a clear error)."""
    mean = prep.mean_file
    where = prep.where("mean_file")
    if mean is None or mean.is_null:
        what = "no [mean_file]" if mean is None else f"[mean_file] `{mean.written}`"
        raise PreprocessError(f"{where}: norm_type {prep.norm_type} subtracts a mean but input "
                              f"{prep.index} has {what}")
    if mean.foreign:
        raise PreprocessError(f"{where}: [mean_file] {mean.written} is a Windows path; it cannot "
                              "be read on this system")
    if mean.resolved is None:
        looked = ", ".join(mean.candidates[:3])
        raise PreprocessError(f"{where}: [mean_file] {mean.written} not found (looked in {looked})")
    return mean.resolved


def read_mean_file(path: str | Path, norm_type: int) -> np.ndarray:
    """A mean image (C,H,W) from a .binaryproto, or channel means (C,) from a text file: a mean
    image when the norm_type wants one or the file is a .binaryproto."""
    p = Path(path)
    row = norm_semantics(norm_type)
    if (row is not None and row.mean_kind == MEAN_IMAGE) or mean_file_kind(str(p)) == MEAN_IMAGE:
        from nnie_lsp.readers.caffemodel import caffe_pb2

        pb2 = caffe_pb2()
        blob = pb2.BlobProto()
        try:
            blob.ParseFromString(p.read_bytes())
        except OSError as exc:
            raise PreprocessError(f"cannot read mean file {p}: {exc.strerror or exc}") from exc
        except Exception as exc:
            raise PreprocessError(f"mean file {p} is not a BlobProto (.binaryproto): {exc}") from exc
        data = np.asarray(blob.data, dtype=np.float32)
        if len(blob.shape.dim):
            shape = tuple(int(d) for d in blob.shape.dim)
        else:
            shape = (blob.num or 1, blob.channels, blob.height, blob.width)
        if data.size != int(np.prod(shape)):
            raise PreprocessError(f"mean file {p}: {data.size} values for shape {shape}")
        return data.reshape(shape)[0] if len(shape) == 4 else data.reshape(shape)
    try:
        text = p.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise PreprocessError(f"cannot read mean file {p}: {exc.strerror or exc}") from exc
    means = parse_channel_means(text)
    if means.values is None:
        raise PreprocessError(f"mean file {p}: {means.error}")
    if not means.values:
        raise PreprocessError(f"mean file {p} holds no values")
    return np.asarray(means.values, dtype=np.float32)


def load_image(path: str | Path, shape_chw: tuple[int, int, int], prep: Preprocessing) -> np.ndarray:
    """Image file → float32 (C,H,W) in the network's channel order, not yet normalized."""
    import cv2

    c, h, w = shape_chw
    p = Path(path)
    kind = image_type_semantics(prep.image_type)
    if (kind is not None and not kind.is_image) or p.suffix.lower() in (".txt", ".float", ".npy"):
        if p.suffix.lower() == ".npy":
            arr = np.load(p, allow_pickle=False).astype(np.float32)  # data only: never unpickle a file
        else:
            line = p.read_text().splitlines()[0] if p.exists() else ""
            arr = np.asarray([float(t) for t in line.replace(",", " ").split()], dtype=np.float32)
        if arr.size != c * h * w:
            raise PreprocessError(f"{p}: {arr.size} values, the input needs {c}x{h}x{w}={c*h*w}")
        return arr.reshape(c, h, w)
    flag = cv2.IMREAD_GRAYSCALE if c == 1 else cv2.IMREAD_COLOR
    img = cv2.imread(str(p), flag)
    if img is None:
        raise PreprocessError(f"cannot read image {p} (missing or not an image)")
    if prep.transpose:
        img = cv2.resize(img, (h, w), interpolation=cv2.INTER_LINEAR)
        img = np.swapaxes(img, 0, 1)
    else:
        img = cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR)
    if c == 1:
        return img.reshape(1, h, w).astype(np.float32)
    if c != 3:
        raise PreprocessError(f"input has {c} channels; only 1- or 3-channel images can be read")
    if prep.rgb_order.upper() == "RGB":  # the image is read B,G,R
        img = img[:, :, ::-1]
    return np.ascontiguousarray(img.transpose(2, 0, 1)).astype(np.float32)


def normalize(raw_chw: np.ndarray, prep: Preprocessing) -> np.ndarray:
    """Apply mean then scale (mapper order) to a (C,H,W) tensor."""
    x = raw_chw.astype(np.float64)
    if prep.uses_mean:
        if prep.mean is None:
            raise PreprocessError(f"norm_type {prep.norm_type} needs a mean file")
        m = np.asarray(prep.mean, dtype=np.float64)
        if m.ndim == 1:
            if m.size == 1:
                m = np.repeat(m, x.shape[0])
            if m.size != x.shape[0]:
                raise PreprocessError(f"mean file has {m.size} values for {x.shape[0]} channels")
            x = x - m.reshape(-1, 1, 1)
        else:
            if m.shape != x.shape:
                raise PreprocessError(f"mean image {m.shape} does not match the input {x.shape}")
            x = x - m
    if prep.uses_scale:
        x = x * prep.data_scale
    if prep.channel_scale is not None:
        cs = np.asarray(prep.channel_scale, dtype=np.float64).reshape(-1)
        if cs.size not in (1, x.shape[0]):
            raise PreprocessError(f"{cs.size} scales for {x.shape[0]} channels")
        x = x * (cs.reshape(-1, 1, 1) if cs.size > 1 else cs[0])
    return x.astype(np.float32)


def preprocessing_from_cfg(cfg_path: str | Path, input_index: int = 0) -> Preprocessing:
    """The preprocessing of input ``input_index`` of a mapper cfg, read exactly as the lint reads
    it (:func:`nnie_lsp.project.project.load_project`: same per-input values, same resolved mean file and
    image list), with the calibration images of its image_list in ``images``."""
    from nnie_lsp.project.project import load_project

    path = Path(cfg_path)
    if not path.is_file():
        raise PreprocessError(f"cfg file {path} does not exist")
    project = load_project(cfg_path=str(path), load_prototxt=False)
    if project.cfg is None:
        raise PreprocessError(f"cfg file {path} cannot be read")
    prep = project.input_preprocessing(input_index)
    if prep is None:
        raise PreprocessError(f"{path}: the cfg describes {len(project.preprocessing)} input(s); "
                              f"there is no input {input_index}")
    out = Preprocessing.from_input(prep)
    out.images = project.calibration_images(prep)
    if prep.image_list is not None and not prep.image_list.exists and not prep.image_list.is_null:
        out.notes.append(f"image_list {prep.image_list.written} not found")
    return out

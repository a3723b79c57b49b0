"""Input preprocessing the way nnie_mapper applies it (NNIE_REFERENCE.md §3.3, §5).

Order: channel order (RGB_order) → subtract mean (norm_type 1/2/4/5) → × data_scale (3/4/5).
Mean first, then scale (§5.4). Channel-mean text files hold one float per line per channel; the
lines are applied in the order of the network's input channels (after RGB_order) — the public
material does not say more [?], and the ambiguity is reported by the triage fit instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

DEFAULT_DATA_SCALE = 0.00390625  # 1/256, §3.1 / §5.5


class PreprocessError(ValueError):
    pass


@dataclass
class Preprocessing:
    norm_type: int = 0
    data_scale: float = DEFAULT_DATA_SCALE
    mean: np.ndarray | None = None  # (C,) channel means or (C,H,W) mean image
    mean_file: str | None = None
    rgb_order: str = "BGR"
    image_type: int = 1
    transpose: bool = False  # MATLAB-trained nets (MTCNN): W and H swapped before the net
    images: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def uses_mean(self) -> bool:
        return self.norm_type in (1, 2, 4, 5)

    @property
    def uses_scale(self) -> bool:
        return self.norm_type in (3, 4, 5)

    def describe(self) -> str:
        parts = [f"norm_type {self.norm_type}", f"RGB_order {self.rgb_order}"]
        if self.uses_mean and self.mean is not None:
            m = np.asarray(self.mean)
            parts.append("mean " + (", ".join(f"{v:g}" for v in m.reshape(-1)) if m.ndim == 1 else f"image {m.shape}"))
        if self.uses_scale:
            parts.append(f"data_scale {self.data_scale:g}")
        if self.transpose:
            parts.append("transposed (MATLAB)")
        return ", ".join(parts)

    def with_(self, **kw) -> "Preprocessing":
        return replace(self, **kw)


def read_mean_file(path: str | Path, norm_type: int) -> np.ndarray:
    p = Path(path)
    if norm_type in (1, 4) or p.suffix.lower() == ".binaryproto":
        from .net import caffe_pb2

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
    vals = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            vals.extend(float(t) for t in line.replace(",", " ").split())
        except ValueError as exc:
            raise PreprocessError(f"mean file {p}: {line!r} is not a number") from exc
    if not vals:
        raise PreprocessError(f"mean file {p} holds no values")
    return np.asarray(vals, dtype=np.float32)


def load_image(path: str | Path, shape_chw: tuple[int, int, int], prep: Preprocessing) -> np.ndarray:
    """Image file → float32 (C,H,W) in the network's channel order, not yet normalized."""
    import cv2

    c, h, w = shape_chw
    p = Path(path)
    if prep.image_type == 0 or p.suffix.lower() in (".txt", ".float", ".npy"):
        if p.suffix.lower() == ".npy":
            arr = np.load(p).astype(np.float32)
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
    if prep.rgb_order.upper() == "RGB":
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
    return x.astype(np.float32)


def _resolve(value: str, cfg_dir: Path | None) -> Path:
    p = Path(value)
    if p.is_absolute() or p.exists() or cfg_dir is None:
        return p
    alt = cfg_dir / p
    return alt if alt.exists() else p


def from_cfg(cfg_path: str | Path, input_index: int = 0) -> Preprocessing:
    """Preprocessing of input `input_index` from a mapper cfg. Per-input keys associate by
    position (§4): the k-th image_list/image_type/norm_type/mean_file belongs to input k.
    Relative paths: the working directory first (how the mapper resolves them), then the cfg's
    folder."""
    from nnie_lsp.cfg.reader import read_cfg

    path = Path(cfg_path)
    if not path.is_file():
        raise PreprocessError(f"cfg file {path} does not exist")
    doc = read_cfg(path)
    values: dict[str, list[str]] = {}
    for entry in doc.entries:
        values.setdefault(entry.key, []).append(entry.value)

    def pick(key: str, default: str | None = None) -> str | None:
        vals = values.get(key)
        if not vals:
            return default
        return vals[input_index] if input_index < len(vals) else vals[-1]

    prep = Preprocessing()
    try:
        prep.norm_type = int(pick("norm_type", "0") or 0)
        prep.image_type = int(pick("image_type", "1") or 1)
        ds = pick("data_scale")
        prep.data_scale = float(ds) if ds not in (None, "") else DEFAULT_DATA_SCALE
    except ValueError as exc:
        raise PreprocessError(f"{path}: bad numeric value: {exc}") from exc
    prep.rgb_order = (pick("RGB_order", "BGR") or "BGR").upper()
    cfg_dir = path.resolve().parent
    mean_file = pick("mean_file")
    if prep.uses_mean and mean_file and mean_file.lower() not in ("null", "none", "ignore"):
        mp = _resolve(mean_file, cfg_dir)
        prep.mean_file = str(mp)
        prep.mean = read_mean_file(mp, prep.norm_type)
    image_list = pick("image_list")
    if image_list:
        lp = _resolve(image_list, cfg_dir)
        if lp.is_file():
            for line in lp.read_text(encoding="utf-8", errors="replace").splitlines():
                line = line.strip()
                if line:
                    prep.images.append(str(_resolve(line, lp.resolve().parent)))
        else:
            prep.notes.append(f"image_list {image_list} not found")
    return prep

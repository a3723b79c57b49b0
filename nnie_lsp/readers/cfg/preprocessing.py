"""What a cfg's preprocessing means, per network input: the ONE interpretation.

Every face reads the preprocessing from here -- the lint rules (through
:attr:`nnie_lsp.project.project.Project.preprocessing`), the reference forward and the emulation (through
:meth:`nnie_lsp.reference.preprocess.Preprocessing.from_input`), the triage's preprocessing fit and
the support bundle.  Nothing else interprets norm_type, data_scale, mean_file or RGB_order.

Facts as data (docs/field-facts.md §3.1-§3.3, §5.3-§5.5)
--------------------------------------------------------
- :data:`NORM_TYPES`: for each norm_type 0-5 what it subtracts (no mean, a mean image from a
  ``.binaryproto``, or channel means from a text file) and whether it multiplies by data_scale.
  The mapper subtracts the mean first, then scales.
- :data:`IMAGE_TYPES`: image_type 0 is a float feature map (image_list holds float text; only
  norm_type 0; RGB_order is ignored), 1/3/5 are images (U8, YUV420SP, YUV422SP).
- The default data_scale and RGB_order are the key table's defaults (:mod:`.keys`): 1/256 and BGR.
- "No mean file" values are the key table's one set (:data:`.keys.NULL_PATH_VALUES`).

Per input
---------
:class:`InputPreprocessing` is built once per input group of a :class:`~.model.MapperConfig`
(the k-th occurrence of a per-input key belongs to input k; ``RGB_order``/``data_scale`` written
once apply to every input).  Where the model has no value (the key is missing for that input or
its value is invalid) the object says ``None``; it never borrows another input's value.  Keys
that may be omitted (data_scale, RGB_order) take the key table's default and say so
(``data_scale_defaulted`` / ``rgb_order_defaulted``).

Paths (mean_file, image_list) are resolved in the order documented in :mod:`.paths`: the cfg's
folder, then the working directory, then the folders above the cfg.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Literal, Mapping

from nnie_lsp.readers.cfg.keys import KEYS, is_null_path
from nnie_lsp.readers.cfg.model import InputGroup, MapperConfig
from nnie_lsp.readers.cfg.paths import Exists, ResolvedPath, resolve_written
from nnie_lsp.core.records import FrozenRecord

MeanKind = Literal["none", "mean-image", "channel-mean"]
NO_MEAN: MeanKind = "none"
MEAN_IMAGE: MeanKind = "mean-image"      # a Caffe BlobProto (.binaryproto), C×H×W
CHANNEL_MEAN: MeanKind = "channel-mean"  # text, one float per line per channel
MEAN_IMAGE_SUFFIX = ".binaryproto"

DEFAULT_DATA_SCALE: float = KEYS["data_scale"].default_value()   # 1/256, not 1/255
DEFAULT_DATA_SCALE_TEXT: str = KEYS["data_scale"].default or ""  # as written in a cfg
DEFAULT_RGB_ORDER: str = KEYS["RGB_order"].default_value()       # BGR
CHANNEL_ORDERS: tuple[str, ...] = KEYS["RGB_order"].choices

#: Input scales seen in practice, (value, name, as written in a cfg): most nets are trained with
#: x/255 and users write 0.0039215686 for it, while the mapper's default is 1/256
#: (docs/field-facts.md §5.5 [C-u]); the others are common normalisations ([-1, 1], caffe's 0.017).
TRAINING_SCALE_1_255 = (1 / 255, "1/255", "0.0039215686")
NAMED_SCALES: tuple[tuple[float, str, str], ...] = (
    TRAINING_SCALE_1_255,
    (DEFAULT_DATA_SCALE, "1/256", DEFAULT_DATA_SCALE_TEXT),
    (1 / 128, "1/128", "0.0078125"),
    (1 / 127.5, "1/127.5", "0.0078431373"),
    (1.0, "1", "1"),
    (0.017, "0.017", "0.017"),
)


# ---------------------------------------------------------------- norm_type / image_type tables


class NormType(FrozenRecord):
    """One row of the norm_type table."""

    value: int
    mean_kind: MeanKind  # what is subtracted first
    scales: bool         # then multiplied by data_scale

    @property
    def uses_mean(self) -> bool:
        return self.mean_kind != NO_MEAN


NORM_TYPES: Mapping[int, NormType] = MappingProxyType({
    0: NormType(0, NO_MEAN, scales=False),
    1: NormType(1, MEAN_IMAGE, scales=False),
    2: NormType(2, CHANNEL_MEAN, scales=False),
    3: NormType(3, NO_MEAN, scales=True),
    4: NormType(4, MEAN_IMAGE, scales=True),
    5: NormType(5, CHANNEL_MEAN, scales=True),
})


def norm_semantics(norm_type: int | None) -> NormType | None:
    """The table row of a norm_type (None for None or a value outside the table)."""
    return None if norm_type is None else NORM_TYPES.get(norm_type)


def norm_type_for(mean_kind: MeanKind, scales: bool) -> int | None:
    """The norm_type that subtracts ``mean_kind`` and does (not) scale -- the inverse of the table."""
    for row in NORM_TYPES.values():
        if row.mean_kind == mean_kind and row.scales == scales:
            return row.value
    return None


class ImageType(FrozenRecord):
    """One row of the image_type table."""

    value: int
    blob: str                    # run-time blob type on the board
    is_image: bool               # image_list names image files and RGB_order applies
    norm_types: tuple[int, ...]  # the norm_types the mapper applies to this input


_ALL_NORMS = tuple(NORM_TYPES)

IMAGE_TYPES: Mapping[int, ImageType] = MappingProxyType({
    0: ImageType(0, "S32 feature map / vector (float text)", is_image=False, norm_types=(0,)),
    1: ImageType(1, "U8 image", is_image=True, norm_types=_ALL_NORMS),
    3: ImageType(3, "YUV420SP image", is_image=True, norm_types=_ALL_NORMS),
    5: ImageType(5, "YUV422SP image", is_image=True, norm_types=_ALL_NORMS),
})


def image_type_semantics(image_type: int | None) -> ImageType | None:
    return None if image_type is None else IMAGE_TYPES.get(image_type)


# ---------------------------------------------------------------- mean files


def mean_file_kind(written: str) -> MeanKind:
    """What a mean_file value names, by its form: a placeholder names no mean, a ``.binaryproto``
    a mean image, anything else a channel-mean text file."""
    if is_null_path(written):
        return NO_MEAN
    path = written.strip().strip('"').strip("'").lower()
    return MEAN_IMAGE if path.endswith(MEAN_IMAGE_SUFFIX) else CHANNEL_MEAN


class ChannelMeans(FrozenRecord):
    """A channel-mean text file read: the values, or the first bad line."""

    values: tuple[float, ...] | None
    error: str | None = None
    error_line: int | None = None  # 0-based


def parse_channel_means(text: str) -> ChannelMeans:
    """One float per line per channel (spaces or commas between several on a line also work);
    blank lines are skipped."""
    values: list[float] = []
    for number, raw in enumerate(text.splitlines()):
        line = raw.strip()
        if not line:
            continue
        try:
            values.extend(float(x) for x in line.replace(",", " ").split())
        except ValueError:
            return ChannelMeans(None, f"line {number + 1} is not a number: {line[:40]!r}", number)
    return ChannelMeans(tuple(values))


# ---------------------------------------------------------------- per input


class InputPreprocessing(FrozenRecord):
    """The preprocessing of network input ``index`` as the cfg states it."""

    index: int
    group: InputGroup                 # the cfg entries of this input (ranges, fixes)
    cfg_path: str | None
    norm_type: int | None             # None: missing for this input or invalid
    semantics: NormType | None        # the norm_type's table row
    image_type: int | None            # None: missing or invalid
    image_type_semantics: ImageType | None
    data_scale: float | None          # effective value; None: written but invalid
    data_scale_defaulted: bool        # no [data_scale] for this input: the default applies
    rgb_order: str | None             # effective value; None: written but invalid
    rgb_order_defaulted: bool
    mean_file: ResolvedPath | None    # None: no [mean_file] for this input
    image_list: ResolvedPath | None   # None: no [image_list] for this input

    @property
    def uses_mean(self) -> bool:
        return self.semantics is not None and self.semantics.uses_mean

    @property
    def uses_scale(self) -> bool:
        return self.semantics is not None and self.semantics.scales

    @property
    def expected_mean_kind(self) -> MeanKind | None:
        """What the norm_type wants in [mean_file] (None when the norm_type is unknown)."""
        return self.semantics.mean_kind if self.semantics is not None else None

    @property
    def mean_file_kind(self) -> MeanKind | None:
        """What [mean_file] names by its form (None when this input has no [mean_file])."""
        return mean_file_kind(self.mean_file.written) if self.mean_file is not None else None

    @property
    def has_mean_file(self) -> bool:
        """[mean_file] names a file (not absent, empty or a placeholder such as ``null``)."""
        return self.mean_file is not None and not self.mean_file.is_null

    @property
    def is_feature_map(self) -> bool:
        """image_type says float feature-map input (known, and not an image)."""
        return self.image_type_semantics is not None and not self.image_type_semantics.is_image

    def entry(self, key: str):
        """The cfg entry of a per-input key for this input (shared entries included), or None."""
        return self.group.entry(key)

    def where(self, key: str) -> str:
        """``cfg:line`` of this input's ``key`` (or the cfg alone) for messages."""
        e = self.group.entry(key)
        place = self.cfg_path or "cfg"
        return f"{place}:{e.line + 1}" if e is not None else place

    def describe(self) -> str:
        parts = [f"input {self.index}", f"norm_type {self.norm_type if self.norm_type is not None else '?'}"]
        if self.uses_mean and self.mean_file is not None:
            parts.append(f"mean_file {self.mean_file.resolved or self.mean_file.written}")
        if self.uses_scale:
            parts.append(f"data_scale {self.data_scale:g}" + (" (default)" if self.data_scale_defaulted else "")
                         if self.data_scale is not None else "data_scale ?")
        parts.append(f"RGB_order {self.rgb_order or '?'}")
        return ", ".join(parts)


def _resolved(entry, bases: list[str], exists: Exists) -> ResolvedPath | None:
    return resolve_written(entry.value, bases, exists) if entry is not None else None


def input_preprocessing(config: MapperConfig, *, cfg_path: str | None, bases: list[str],
                        exists: Exists) -> tuple[InputPreprocessing, ...]:
    """One :class:`InputPreprocessing` per input group of ``config``.  ``bases`` and ``exists``
    come from :func:`.paths.cfg_bases` and the caller's file access (disk or editor buffers)."""
    out = []
    for group in config.groups:
        norm = group.norm_type_value
        itype = group.image_type_value
        out.append(InputPreprocessing(
            index=group.index, group=group, cfg_path=cfg_path,
            norm_type=norm, semantics=norm_semantics(norm),
            image_type=itype, image_type_semantics=image_type_semantics(itype),
            data_scale=group.data_scale_value, data_scale_defaulted=group.data_scale is None,
            rgb_order=group.rgb_order_value, rgb_order_defaulted=group.RGB_order is None,
            mean_file=_resolved(group.mean_file, bases, exists),
            image_list=_resolved(group.image_list, bases, exists),
        ))
    return tuple(out)

"""What a reference or emulation run works on, taken from the cfg: the prototxt, the caffemodel,
each input's preprocessing and the images of its image_list -- options only override.

The cfg is read once, the lint's way (:func:`nnie_lsp.project.load_project`: the same path
resolution, the same per-input preprocessing, docs/field-facts.md §3, §4, §5); every problem is a
:class:`RunInputError` whose message starts with the cfg position (``net.cfg:3: [caffemodel_file]
…``) or the image-list line it is about.

Images: line n of every input's image_list forms image n of the run (the mapper pairs them, §4).
``count`` images are run, the LAST ones of the list, so the last image run is always the one the
mapper dumps (it dumps only the last image of the list, §10.1).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .preprocess import Preprocessing, PreprocessError, read_mean_file


class RunInputError(ValueError):
    """The cfg or the options do not give what a run needs; the message is for the user."""


@dataclass
class ImageRun:
    """One image of the run: its position in the image list and one source per network input (a
    path, or the values of a feature-map line)."""

    index: int  # 0-based line of the image list (among its non-empty lines)
    sources: list[str | np.ndarray]
    labels: list[str]  # what to call each source in messages and manifests

    @property
    def label(self) -> str:
        return " + ".join(self.labels)


@dataclass
class RunInputs:
    prototxt: Path
    caffemodel: Path
    preprocessing: list[Preprocessing]  # one per cfg input (the net's inputs, in order)
    images: list[ImageRun]  # the images to run, in list order (the last = the one the mapper dumps)
    list_length: int | None = None  # images in the cfg's image list (None: images given directly)
    cfg: Path | None = None
    notes: list[str] = field(default_factory=list)
    compile_mode: int | None = None  # the cfg's [compile_mode] (None: no cfg, or not set)

    @property
    def describe_preprocessing(self) -> str:
        if len(self.preprocessing) == 1:
            return self.preprocessing[0].describe()
        return "; ".join(f"input {k}: {p.describe()}" for k, p in enumerate(self.preprocessing))


@dataclass
class Overrides:
    """Command-line values that replace the cfg's (for every input)."""

    norm_type: int | None = None
    mean: str | None = None  # "v,v,v" or a mean file
    data_scale: float | None = None
    rgb_order: str | None = None
    transpose: bool = False  # MATLAB-trained nets (MTCNN): not a cfg key


def load_run_inputs(cfg: str | Path | None = None, *, prototxt: str | Path | None = None,
                    caffemodel: str | Path | None = None, images: list[str] | None = None,
                    count: int | None = 1, overrides: Overrides | None = None) -> RunInputs:
    """The run's inputs from the cfg (``cfg``), with options overriding it.

    ``images``: one image per network input, given directly (the image list is then not read);
    ``count``: how many images of the list to run, the last ones (None = all of them)."""
    overrides = overrides or Overrides()
    if count is not None and count < 1:
        raise RunInputError(f"--images {count}: run at least one image")
    if cfg is None:
        return _without_cfg(prototxt, caffemodel, images, overrides)
    from nnie_lsp.project import load_project

    cfg_path = Path(cfg)
    if not cfg_path.is_file():
        raise RunInputError(f"cfg file {cfg_path} does not exist")
    project = load_project(cfg_path=str(cfg_path), load_prototxt=False)
    if project.cfg is None:
        raise RunInputError(f"cfg file {cfg_path} cannot be read")
    proto = Path(prototxt) if prototxt else _cfg_file(project, "prototxt_file", "--prototxt")
    model = Path(caffemodel) if caffemodel else _cfg_file(project, "caffemodel_file", "--caffemodel")
    for path, option in ((proto, "--prototxt"), (model, "--caffemodel")):
        if not path.is_file():
            raise RunInputError(f"{option} {path} does not exist")
    if not project.preprocessing:
        raise RunInputError(f"{cfg_path}: the cfg describes no network input (no [norm_type] or "
                            "[image_list])")
    preps = []
    for prep_in in project.preprocessing:
        try:
            prep = Preprocessing.from_input(prep_in)
        except PreprocessError as exc:
            raise RunInputError(str(exc)) from exc
        cfg_mean = prep_in.mean_file.resolved if prep_in.mean_file is not None else None
        preps.append(_apply(prep, overrides, cfg_mean))
    out = RunInputs(prototxt=proto, caffemodel=model, preprocessing=preps, images=[], cfg=cfg_path,
                    compile_mode=project.config.compile_mode if project.config is not None else None)
    if images:
        out.images = [ImageRun(index=0, sources=list(images), labels=[str(i) for i in images])]
        return out
    lists = [_list_lines(project, prep_in) for prep_in in project.preprocessing]
    lengths = {len(lines) for lines in lists}
    if len(lengths) > 1:
        sizes = ", ".join(f"input {k}: {len(lines)}" for k, lines in enumerate(lists))
        raise RunInputError(f"{cfg_path}: the image lists hold different numbers of lines ({sizes}); "
                            "the mapper pairs line n of every list")
    length = lengths.pop()
    chosen = range(length) if count is None else range(max(0, length - count), length)
    if count is not None and count > length:
        out.notes.append(f"--images {count}: the image list holds {length}; running all of them")
    out.list_length = length
    out.images = [ImageRun(index=n, sources=[lines[n][0] for lines in lists],
                           labels=[lines[n][1] for lines in lists]) for n in chosen]
    return out


def _without_cfg(prototxt, caffemodel, images, overrides: Overrides) -> RunInputs:
    missing = [name for name, value in (("--prototxt", prototxt), ("--caffemodel", caffemodel)) if not value]
    if missing:
        raise RunInputError(f"give --cfg (it names the prototxt, caffemodel, preprocessing and image "
                            f"list) or {' and '.join(missing)}")
    if not images:
        raise RunInputError("no input image: give --image or a --cfg whose image_list names one")
    prep = _apply(Preprocessing(), overrides)
    return RunInputs(prototxt=Path(prototxt), caffemodel=Path(caffemodel), preprocessing=[prep],
                     images=[ImageRun(index=0, sources=list(images), labels=[str(i) for i in images])])


def _cfg_file(project, key: str, option: str) -> Path:
    cfg = project.cfg_path
    ref = next((r for r in project.refs if r.entry.key == key), None)
    if ref is None:
        raise RunInputError(f"{cfg}: no [{key}]; give {option}")
    where = f"{cfg}:{ref.entry.line + 1}"
    if ref.is_null:
        raise RunInputError(f"{where}: [{key}] names no file; give {option}")
    if ref.foreign:
        raise RunInputError(f"{where}: [{key}] {ref.written} is a Windows path; it cannot be read on "
                            f"this system (give {option})")
    if ref.resolved is None:
        looked = ", ".join(ref.candidates[:3]) + (" …" if len(ref.candidates) > 3 else "")
        raise RunInputError(f"{where}: [{key}] {ref.written} not found (looked in {looked})")
    return Path(ref.resolved)


def _list_lines(project, prep_in) -> list[tuple[str | np.ndarray, str]]:
    """(source, label) per line of an input's image list, or a positioned error."""
    entry = prep_in.entry("image_list")
    where = prep_in.where("image_list")
    if entry is None:
        raise RunInputError(f"{where}: input {prep_in.index} has no [image_list]; give --image")
    resolved = prep_in.image_list
    if resolved is None or resolved.is_null:
        raise RunInputError(f"{where}: [image_list] names no file; give --image")
    if resolved.resolved is None:
        looked = ", ".join(resolved.candidates[:3])
        raise RunInputError(f"{where}: [image_list] {resolved.written} not found (looked in {looked})")
    facts = project.image_list_for(entry)
    lines = list(facts.lines) if facts is not None else []
    if not lines:
        raise RunInputError(f"{where}: [image_list] {resolved.written} holds no image")
    list_path = resolved.resolved
    out: list[tuple[str | np.ndarray, str]] = []
    if prep_in.is_feature_map:  # image_type 0: each line holds one C*H*W tensor (§5.2)
        for line in lines:
            try:
                values = np.asarray([float(t) for t in line.text.replace(",", " ").split()], dtype=np.float32)
            except ValueError:
                raise RunInputError(f"{list_path}:{line.line + 1}: a feature-map line holds something "
                                    "other than numbers") from None
            out.append((values, f"{Path(list_path).name}:{line.line + 1}"))
        return out
    for line in lines:
        if line.resolved is None or not Path(line.resolved).is_file():
            raise RunInputError(f"{list_path}:{line.line + 1}: image {line.text} not found")
        out.append((line.resolved, line.resolved))
    return out


def _apply(prep: Preprocessing, overrides: Overrides, cfg_mean: str | None = None) -> Preprocessing:
    if overrides.norm_type is not None:
        prep.norm_type = overrides.norm_type
    if overrides.data_scale is not None:
        prep.data_scale = overrides.data_scale
    if overrides.rgb_order:
        prep.rgb_order = overrides.rgb_order
    if overrides.mean:
        if Path(overrides.mean).is_file():
            try:
                prep.mean = read_mean_file(overrides.mean, prep.norm_type)
            except PreprocessError as exc:
                raise RunInputError(str(exc)) from exc
            prep.mean_file = overrides.mean
        else:
            try:
                prep.mean = np.asarray([float(v) for v in overrides.mean.split(",")], dtype=np.float32)
            except ValueError:
                raise RunInputError(f"--mean {overrides.mean!r} is neither a file nor comma-separated "
                                    "numbers") from None
    elif prep.uses_mean and prep.mean is None and cfg_mean:  # --norm-type asks for the cfg's mean file
        try:
            prep.mean = read_mean_file(cfg_mean, prep.norm_type)
        except PreprocessError as exc:
            raise RunInputError(str(exc)) from exc
        prep.mean_file = cfg_mean
    elif prep.uses_mean and prep.mean is None:
        raise RunInputError(f"norm_type {prep.norm_type} subtracts a mean: give --mean")
    prep.transpose = bool(overrides.transpose)
    return prep

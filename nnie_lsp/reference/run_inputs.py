"""What a reference or emulation run works on, taken from the cfg: the prototxt, the caffemodel,
each input's preprocessing and the images of its image_list -- options only override.

The cfg is read once, the lint's way (:func:`nnie_lsp.project.project.load_project`: the same path
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

from nnie_lsp.reference.preprocess import Preprocessing, PreprocessError, read_mean_file


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
    # the Caffe side (side="reference"): per input, where each value came from (reference/training.py),
    # and the model card used (a CardLookup, None without one)
    sources: list[dict] = field(default_factory=list)
    card: object | None = None
    compile_mode: int | None = None  # the cfg's [compile_mode] (None: no cfg, or not set)

    @property
    def describe_preprocessing(self) -> str:
        if len(self.preprocessing) == 1:
            return self.preprocessing[0].describe()
        return "; ".join(f"input {k}: {p.describe()}" for k, p in enumerate(self.preprocessing))

    @property
    def card_where(self) -> str | None:
        """``nnie.toml:3`` of the card entry used, else None."""
        card = self.card
        if card is None or getattr(card, "model", None) is None:
            return None
        return card.model.where()

    @property
    def describe_sources(self) -> str:
        """Where the Caffe side's values came from (empty for the NNIE side)."""
        from nnie_lsp.reference.training import describe_sources

        if not self.sources:
            return ""
        return describe_sources(self.sources[0], self.card_where)

    @property
    def from_cfg(self) -> list[str]:
        """The values the Caffe side took from the cfg under test (any input)."""
        from nnie_lsp.reference.training import from_cfg

        out: list[str] = []
        for src in self.sources:
            out += [k for k in from_cfg(src) if k not in out]
        return out

    def manifest_record(self) -> dict:
        """What a reference run's manifest records of where its preprocessing came from."""
        if not self.sources:
            return {}
        card = self.card
        rec: dict = {"preprocessing_source": self.sources[0] if len(self.sources) == 1 else self.sources,
                     "preprocessing_from_cfg": self.from_cfg}
        if card is not None and getattr(card, "model", None) is not None:
            rec["card"] = {"path": str(card.card_path), "line": card.model.header_range.start.line + 1,
                           "digest": card.digest(), "declares": card.model.describe()}
        return rec


@dataclass
class Overrides:
    """Command-line values that replace the cfg's (for every input)."""

    norm_type: int | None = None
    mean: str | None = None  # "v,v,v" or a mean file
    data_scale: float | None = None
    rgb_order: str | None = None
    transpose: bool | None = None  # MATLAB-trained nets (MTCNN): not a cfg key; None = not given


def load_run_inputs(cfg: str | Path | None = None, *, prototxt: str | Path | None = None,
                    caffemodel: str | Path | None = None, images: list[str] | None = None,
                    count: int | None = 1, overrides: Overrides | None = None, side: str = "nnie") -> RunInputs:
    """The run's inputs from the cfg (``cfg``), with options overriding it.

    ``images``: one image per network input, given directly (the image list is then not read);
    ``count``: how many images of the list to run, the last ones (None = all of them).
    ``side``: ``"nnie"`` (the emulation, the planner: what the cfg says) or ``"reference"`` (the Caffe
    side: the training preprocessing -- options, else the model card, else the cfg, each value's
    source recorded: :mod:`.training`)."""
    overrides = overrides or Overrides()
    if count is not None and count < 1:
        raise RunInputError(f"--images {count}: run at least one image")
    out = _load(cfg, prototxt, caffemodel, images, count, overrides)
    if side == "reference":
        _training_side(out, overrides, explicit_prototxt=prototxt is not None)
    return out


def _training_side(out: RunInputs, overrides: Overrides, *, explicit_prototxt: bool) -> None:
    """The Caffe side's preprocessing in `out` (module :mod:`.training`)."""
    from nnie_lsp.reference.training import CardError, apply_card, card_for, check_card

    card = card_for(out.cfg, out.prototxt)
    try:
        check_card(card)
    except CardError as exc:
        raise RunInputError(str(exc)) from exc
    model = card.model if card is not None else None
    if card is not None and model is None:
        out.notes.append(f"the model card {card.card_path} has no [[model]] for {out.prototxt}: the Caffe side "
                         "takes the cfg's preprocessing")
    flags = {"channel_order": bool(overrides.rgb_order), "mean": bool(overrides.mean) or overrides.norm_type is not None,
             "scale": overrides.data_scale is not None or overrides.norm_type is not None}
    from nnie_lsp.readers.cfg.preprocessing import image_type_semantics

    preps, sources = [], []
    for prep in out.preprocessing:
        kind = image_type_semantics(prep.image_type)
        if kind is not None and not kind.is_image:   # a feature-map input: no image preprocessing
            preps.append(prep)
            sources.append({})
            continue
        try:
            p, src = apply_card(prep, model, flags, overrides.transpose)
        except CardError as exc:
            raise RunInputError(str(exc)) from exc
        preps.append(p)
        sources.append(src)
    out.preprocessing, out.sources, out.card = preps, sources, card


def _load(cfg, prototxt, caffemodel, images, count, overrides: Overrides) -> RunInputs:
    if cfg is None:
        return _without_cfg(prototxt, caffemodel, images, overrides)
    from nnie_lsp.project.project import load_project

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

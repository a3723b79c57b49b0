"""Case 1 (guide step 2): the data layer differs → the preprocessing fit (:mod:`.preprocess_fit`)
turned into findings T101-T106, its :class:`~.preprocess_fit.CfgEdit`s into engine Fixes.

Every fix here is unsafe: a preprocessing change changes what the network computes on the chip
(which is the point of it).  Where the edit goes follows the mapper's per-input rule (the k-th
occurrence of a key belongs to input k, docs/field-facts.md §4): :func:`nnie_lsp.fixes.set_input_key`.
"""

from __future__ import annotations

import os
from fractions import Fraction

from ...diagnostics import FileEdit
from ...fixes import channel_mean_text, set_input_key, write_whole_file
from .builder import FindingBuilder, Place
from ..measure.metrics import Thresholds
from .preprocess_fit import R2_GOOD, CfgEdit, PreprocessFit, fit_preprocessing
from ..measure.rows import LayerRow, finite

CHANNEL_MEAN_FILE = "channel_mean.txt"  # the file a new channel mean goes to, beside the cfg


def data_suspect(row: LayerRow, th: Thresholds) -> bool:
    """A data layer below ``data_layer``, or off in magnitude (a scale cosine cannot see)."""
    m = row.metrics
    if m is None:
        return False
    return (not finite(m.cosine)) or m.cosine < th.data_layer or (finite(m.rel_l2_error)
                                                                   and m.rel_l2_error > th.data_rel_l2)


def fraction_text(x: float | None, *, max_denominator: int = 1000, tolerance: float = 1e-3) -> str:
    """``0.0039215686`` → ``1/255``; a value no small fraction matches as ``%.6g``."""
    if x is None or not finite(x):
        return "?"
    frac = Fraction(x).limit_denominator(max_denominator)
    if frac.denominator > 1 and abs(float(frac) - x) <= tolerance * abs(x):
        return f"{frac.numerator}/{frac.denominator}"
    return f"{x:.6g}"


def _ratio_text(ratio: float) -> str:
    named = fraction_text(ratio, max_denominator=256, tolerance=4e-4)
    return f"{ratio:.5f}" + (f" ≈ {named}" if "/" in named else "")


def _means(values) -> str:
    return ", ".join(f"{v:g}" for v in values or ())


def diagnose_data_layer(row: LayerRow, index: int, builder: FindingBuilder, th: Thresholds) -> PreprocessFit | None:
    """T101 for the data row of network input `index`, then the fit's findings. Returns the fit."""
    src = builder.sources
    m = row.metrics
    blob = row.blob or row.name
    place = src.node_place(blob)
    builder.add("T101", "differs", place=place, layer=row.name,
                related=builder.related("T101", "cfg", src.cfg_place("image_list", index), index=index),
                cosine=f"{m.cosine:.6f}", rel_l2=f"{m.rel_l2_error:.4g}", threshold=th.data_layer)
    ref, sim, _ = row.arrays()
    if ref is None or sim is None:
        builder.add("T106", "no_arrays", place=place, layer=row.name)
        return None
    try:
        fit = fit_preprocessing(ref, sim, cfg_path=src.cfg_path, input_index=index, data_layer=th.data_layer)
    except ValueError as exc:
        builder.add("T106", "fit_failed", place=place, layer=row.name, error=str(exc))
        return None
    _edit_findings(fit, row, index, builder, place)
    if fit.transposed:
        builder.add("T105", "transposed", place=place, layer=row.name)
    if not fit.consistent:
        if fit.r2 < R2_GOOD:
            builder.add("T106", "not_linear", place=place, layer=row.name, r2=f"{fit.r2:.4f}")
        elif any("per-channel" in text for text in fit.findings):
            builder.add("T106", "channel_scales", place=place, layer=row.name,
                        scales=_means(round(s, 5) for s in fit.scale))
        else:
            builder.add("T106", "unexplained", place=place, layer=row.name, r2=f"{fit.r2:.4f}")
    return fit


def _edit_findings(fit: PreprocessFit, row: LayerRow, index: int, builder: FindingBuilder,
                   data_place: Place | None) -> None:
    edits = {e.key: e for e in fit.edits}
    if "RGB_order" in edits:
        e = edits["RGB_order"]
        _key_finding("T102", e, row, index, builder, data_place, permutation=", ".join(map(str, fit.permutation)))
    if "data_scale" in edits:
        e = edits["data_scale"]
        ratio = sum(fit.scale) / len(fit.scale) if fit.scale else float("nan")
        _key_finding("T103", e, row, index, builder, data_place, ratio=_ratio_text(ratio),
                     caffe_scale=fraction_text(fit.needed_scale), sim_scale=fraction_text(fit.sim_scale))
    if "norm_type" in edits:
        _no_mean_finding(edits["norm_type"], edits.get("mean_file"), fit, row, index, builder, data_place)
    elif "mean_file" in edits:
        _mean_differs_finding(edits["mean_file"], fit, row, index, builder, data_place)


def _place(builder: FindingBuilder, key: str, index: int, data_place: Place | None) -> Place | None:
    """The key's line for that input; else the input's image_list line; else the cfg; else the data input."""
    src = builder.sources
    return (src.cfg_place(key, index) or src.cfg_place("image_list", index) or src.cfg_home()
            or data_place)


def _old(builder: FindingBuilder, code: str, key: str, index: int) -> str:
    entry = builder.sources.cfg_entry(key, index)
    return entry.value if entry is not None else builder.unset(code, key)


def _cfg_edits(builder: FindingBuilder, index: int, key: str, value: str) -> list[FileEdit] | None:
    """The cfg edits that give input `index` this value; None if the cfg cannot express it."""
    src = builder.sources
    if src.cfg is None or src.config is None or not src.cfg_path:
        return None
    edits = set_input_key(src.cfg, src.config, index, key, value)
    return None if edits is None else [FileEdit(src.cfg_path, e) for e in edits]


def _key_finding(code: str, e: CfgEdit, row: LayerRow, index: int, builder: FindingBuilder,
                 data_place: Place | None, **params) -> None:
    """T102/T103: one key set for one input."""
    has_cfg = builder.sources.cfg is not None
    edits = _cfg_edits(builder, index, e.key, e.new_value) if has_cfg else None
    fix = builder.fix(code, "fix", edits or (), safe=False, value=e.new_value, index=index)
    extra = {"old": _old(builder, code, e.key, index)} if has_cfg else {}
    builder.add(code, "set" if has_cfg else "no_cfg", place=_place(builder, e.key, index, data_place),
                layer=row.name, cfg_key=e.key, fix=fix,
                related=builder.related(code, "data", data_place if has_cfg else None, blob=row.blob or row.name),
                value=e.new_value, **extra, **params)


def _mean_path(builder: FindingBuilder, file_name: str) -> str:
    folder = os.path.dirname(builder.sources.cfg_path or "") or "."
    return os.path.join(folder, file_name)


def _read_if_exists(path: str) -> str | None:
    from ...text import read_text

    try:
        return read_text(path).text
    except OSError:
        return None


def _no_mean_finding(norm: CfgEdit, mean: CfgEdit | None, fit: PreprocessFit, row: LayerRow, index: int,
                     builder: FindingBuilder, data_place: Place | None) -> None:
    """T104: the mean is not subtracted → norm_type, mean_file and the channel-mean file, one fix."""
    file_name = (mean.file_name if mean is not None else None) or CHANNEL_MEAN_FILE
    edits: list[FileEdit] | None = None
    if builder.sources.cfg is not None:
        norm_edits = _cfg_edits(builder, index, "norm_type", norm.new_value)
        mean_edits = _cfg_edits(builder, index, "mean_file", f"./{file_name}")
        if norm_edits is not None and mean_edits is not None:
            path = _mean_path(builder, file_name)
            content = (mean.file_content if mean is not None and mean.file_content
                       else channel_mean_text(fit.needed_mean or ()))
            edits = norm_edits + mean_edits + [write_whole_file(path, _read_if_exists(path), content)]
    old_norm = norm.old_value if norm.old_value is not None else (
        _old(builder, "T104", "norm_type", index) if builder.sources.cfg is not None else "?")
    means = _means(fit.needed_mean)
    fix = builder.fix("T104", "fix_no_mean", edits or (), safe=False, new_norm=norm.new_value, file=file_name)
    related = builder.related("T104", "mean_file", builder.sources.cfg_place("mean_file", index), index=index)
    builder.add("T104", "no_mean", place=_place(builder, "norm_type", index, data_place), layer=row.name,
                cfg_key="norm_type", fix=fix, related=related, old_norm=old_norm, new_norm=norm.new_value,
                means=means)


def _mean_differs_finding(mean: CfgEdit, fit: PreprocessFit, row: LayerRow, index: int, builder: FindingBuilder,
                          data_place: Place | None) -> None:
    """T104: a different mean is subtracted → rewrite the mean file the cfg names (or write a new one)."""
    content = mean.file_content or channel_mean_text(fit.needed_mean or ())
    existing = _existing_mean_file(builder, index)
    edits: list[FileEdit] | None = None
    if existing is not None:
        file_label = existing
        edits = [write_whole_file(existing, _read_if_exists(existing), content)]
    else:
        file_name = mean.file_name or CHANNEL_MEAN_FILE
        file_label = file_name
        cfg_edits = _cfg_edits(builder, index, "mean_file", f"./{file_name}")
        if cfg_edits is not None:
            path = _mean_path(builder, file_name)
            edits = cfg_edits + [write_whole_file(path, _read_if_exists(path), content)]
    means = _means(fit.needed_mean)
    fix = builder.fix("T104", "fix_mean", edits or (), safe=False, means=means, file=os.path.basename(file_label))
    builder.add("T104", "mean_differs", place=_place(builder, "mean_file", index, data_place), layer=row.name,
                cfg_key="mean_file", fix=fix, current=_means(fit.current_mean), means=means,
                file=os.path.basename(file_label))


def _existing_mean_file(builder: FindingBuilder, index: int) -> str | None:
    """The channel-mean file input `index` uses today (resolved as lint resolves it), if any."""
    from ...cfg.keys import is_null_path
    from ...cfg.paths import cfg_bases, resolve_path

    entry = builder.sources.cfg_entry("mean_file", index)
    if entry is None or not entry.value or is_null_path(entry.value):
        return None
    found, _tried = resolve_path(entry.value, cfg_bases(builder.sources.cfg_path, os.getcwd()), os.path.exists)
    return found

"""The Caffe side's preprocessing: how the net was TRAINED, never silently the cfg under test.

``nnie-triage reference`` feeds the Caffe net the training preprocessing (docs/field-facts.md
§21): per value -- the channel order, the mean, the scale, the transpose -- a command-line flag
when one is given, else the model card's (``nnie.toml``, :mod:`nnie_lsp.readers.card`), else the cfg's (the
transpose: false).  :func:`apply_card` returns the numbers and, per value, where they came from
(:data:`FLAG`, :data:`CARD`, :data:`CFG`, :data:`DEFAULT`); the run's manifest records both, and a
comparison whose reference took a value from the cfg says so first (T100): a mistake in that value
cannot show when both sides share it.

The NNIE side (``emulate``) is the cfg's by definition and never reads the card: the mapper does
what the cfg says (the transpose only with ``--transpose``: the user feeds transposed images).
"""

from __future__ import annotations

import numpy as np

from nnie_lsp.reference.preprocess import Preprocessing, PreprocessError, read_mean_file

FLAG, CARD, CFG, DEFAULT = "flag", "card", "cfg", "default"
#: the values the card and the flags decide, in the order they are applied
VALUES = ("channel_order", "mean", "scale", "transpose")
#: what each value is called in messages
VALUE_WORDS = {"channel_order": "channel order", "mean": "mean", "scale": "scale", "transpose": "transpose"}


class CardError(ValueError):
    """The model card cannot be used as written (its first error, positioned); for the user."""


def card_for(cfg_path, prototxt, provider=None):
    """The model card (a :class:`~nnie_lsp.project.card_lookup.CardLookup`) for a run on `prototxt`, looked
    up from the cfg's folder (else the prototxt's); None when there is none on the way."""
    import os

    from nnie_lsp.project.card_lookup import find_card

    start = str(cfg_path) if cfg_path else os.path.dirname(os.path.abspath(str(prototxt)))
    wanted = [str(prototxt)] if prototxt else []
    return find_card(start, wanted, provider)


def check_card(lookup) -> None:
    """Refuse a card whose entry (or file) has an error: a reference must never run on a card it
    cannot read right."""
    if lookup is None:
        return
    errors = lookup.errors()
    if errors:
        p = errors[0]
        where = f"{lookup.card_path}:{p.range.start.line + 1}:{p.range.start.character + 1}"
        raise CardError(f"{where}: {p.message} (fix the model card, or give the preprocessing as options)")


def apply_card(prep: Preprocessing, model, flags: dict[str, bool], transpose: bool | None) -> tuple[Preprocessing, dict]:
    """The Caffe side's preprocessing of one input: `prep` is the cfg's (with the flags already
    applied to it), `model` the card's entry (or None), `flags` which values a flag gave
    (``channel_order``, ``mean``, ``scale``), `transpose` the flag's (None: not given).  Returns the
    preprocessing and the source of each value."""
    sources: dict[str, str] = {}
    order = prep.rgb_order
    if flags.get("channel_order"):
        sources["channel_order"] = FLAG
    elif model is not None and model.channel_order is not None:
        sources["channel_order"] = CARD
        order = model.channel_order if model.channel_order in ("RGB", "BGR") else prep.rgb_order
    else:
        sources["channel_order"] = CFG
    mean = prep.mean if prep.uses_mean else None
    mean_file = prep.mean_file if prep.uses_mean else None
    if flags.get("mean"):
        sources["mean"] = FLAG
    elif model is not None and (model.mean is not None or model.mean_file):
        sources["mean"] = CARD
        if model.mean_file:
            try:
                mean = read_mean_file(model.mean_file_path, 1)
            except PreprocessError as exc:
                raise CardError(f"{model.where('mean_file')}: {exc}") from exc
            mean_file = model.mean_file_path
        else:
            mean, mean_file = np.asarray(model.mean, dtype=np.float32), None
    else:
        sources["mean"] = CFG
    scale = float(prep.data_scale) if prep.uses_scale else 1.0
    channel_scale = None
    if flags.get("scale"):
        sources["scale"] = FLAG
    elif model is not None and model.scale is not None:
        sources["scale"] = CARD
        uniform = model.uniform_scale
        if uniform is not None:
            scale = uniform
        else:
            scale, channel_scale = 1.0, np.asarray(model.scale, dtype=np.float32)
    else:
        sources["scale"] = CFG
    if transpose is not None:
        sources["transpose"], flip = FLAG, transpose
    elif model is not None and model.transpose is not None:
        sources["transpose"], flip = CARD, model.transpose
    else:
        sources["transpose"], flip = DEFAULT, False
    out = prep.with_(norm_type=4 if mean is not None and np.asarray(mean).ndim == 3 else 5,
                     mean=mean if mean is not None else np.zeros(1, dtype=np.float32), mean_file=mean_file,
                     data_scale=scale, channel_scale=channel_scale, rgb_order=order, transpose=bool(flip),
                     training_form=True)
    return out, sources


def from_cfg(sources: dict) -> list[str]:
    """The values the Caffe side took from the cfg under test (a mistake in them cannot show)."""
    return [k for k in VALUES if sources.get(k) == CFG]


def describe_sources(sources: dict, card_where: str | None) -> str:
    """``channel order, mean and scale from the model card nnie.toml:3; transpose by default``."""
    groups: dict[str, list[str]] = {}
    for k in VALUES:
        groups.setdefault(sources.get(k, DEFAULT), []).append(VALUE_WORDS[k])
    words = {CARD: f"from the model card {card_where}" if card_where else "from the model card",
             FLAG: "from the options", CFG: "from the cfg under test", DEFAULT: "by default (not declared)"}
    parts = []
    for source in (CARD, FLAG, CFG, DEFAULT):
        names = groups.get(source)
        if names:
            joined = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
            parts.append(f"{joined} {words[source]}")
    return "; ".join(parts)

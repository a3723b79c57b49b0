"""What a cfg must say for the mapper to feed the net what its model card says -- per network
input, in the cfg's own terms (``[RGB_order]``, ``[norm_type]``, ``[mean_file]``, ``[data_scale]``).

The mapper's preprocessing is: channel order, then the mean subtracted, then one scale
(docs/field-facts.md §3.3, §5.4); the card's is the same chain (``channel_order``, ``mean``,
``scale``), so each card value has exactly one cfg counterpart, and a card value the cfg cannot
express (a scale per channel, a transpose) is said as such.  The lint rules NN121-NN124 judge with
this; the edits they offer set the keys to :func:`target`.

Tolerances (the same numbers as the triage's case-1 fit, so that lint and triage call the same
difference a mismatch; a test keeps them equal to ``Thresholds``): a channel mean differs when it
is more than :data:`MEAN_TOLERANCE` grey levels away, a scale when the ratio is more than
:data:`SCALE_RTOL` from 1 (1/255 against 1/256 is 3.9e-3).
"""

from __future__ import annotations

import math

from nnie_lsp.readers.cfg.preprocessing import (CHANNEL_MEAN, DEFAULT_RGB_ORDER, MEAN_IMAGE, NAMED_SCALES, NO_MEAN,
                                 InputPreprocessing, norm_type_for)
from nnie_lsp.core.records import FrozenRecord
from nnie_lsp.readers.card.reader import ModelCard

#: grey levels (triage: ``Thresholds.mean_tolerance``)
MEAN_TOLERANCE = 0.25
#: relative (triage: ``Thresholds.fit_scale_tolerance``)
SCALE_RTOL = 1.5e-3
#: where a card rule writes a new channel-mean file beside the cfg: the first name that is free
#: or already holds the card's values (never over a file that holds other values)
NEW_MEAN_FILES = ("channel_mean.txt", "channel_mean_card.txt")


def scale_matches(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=SCALE_RTOL)


def means_match(a, b) -> bool:
    return len(a) == len(b) and all(abs(x - y) <= MEAN_TOLERANCE for x, y in zip(a, b))


def scale_text(value: float) -> str:
    """A scale as a cfg writes it: the usual text of a named scale (1/255 → 0.0039215686), else
    ten significant digits."""
    for number, _name, written in NAMED_SCALES:
        if math.isclose(value, number, rel_tol=1e-9):
            return written
    return f"{value:.10g}"


class Target(FrozenRecord):
    """The cfg values one input needs (None: the card does not decide that key)."""

    rgb_order: str | None
    mean_kind: str | None              # NO_MEAN, CHANNEL_MEAN or MEAN_IMAGE (None: undeclared)
    means: tuple[float, ...] | None    # CHANNEL_MEAN: the values of the channel-mean file, in the net's order
    mean_image: str | None             # MEAN_IMAGE: the card's .binaryproto (absolute)
    scales: bool | None                # whether the norm_type must scale
    data_scale: float | None           # the [data_scale] needed when it scales
    norm_type: int | None              # the norm_type of (mean_kind, scales) with the cfg's own where undeclared
    per_channel_scale: tuple[float, ...] | None   # the card's scales when they differ per channel
    transpose: bool | None


def current_scale(prep: InputPreprocessing) -> float | None:
    """The factor the mapper multiplies by for this input: data_scale when the norm_type scales
    (its default when not written), else 1; None when unknown."""
    if prep.semantics is None:
        return None
    return (prep.data_scale if prep.uses_scale else 1.0)


def target(card: ModelCard, prep: InputPreprocessing, channels: int | None) -> Target:
    """What input `prep` needs for `card` (module doc).  `channels`: the net input's channels
    (from the prototxt; else the card's order decides)."""
    channels = channels or card.channels or 3
    order = card.channel_order if card.channel_order in ("RGB", "BGR") and channels == 3 else None
    mean_kind = means = mean_image = None
    if card.mean_file:
        mean_kind, mean_image = MEAN_IMAGE, card.mean_file_path
    elif card.mean is not None:
        means = card.means(channels)
        mean_kind = NO_MEAN if means is not None and all(m == 0 for m in means) else CHANNEL_MEAN
    per_channel = None
    scales = data_scale = None
    if card.scale is not None:
        uniform = card.uniform_scale
        if uniform is None:
            per_channel = card.scales(channels)
        elif not scale_matches(uniform, 1.0):
            scales, data_scale = True, uniform
        else:   # scale 1: keep a written data_scale (set it to 1), else a norm_type that does not scale
            keeps = prep.uses_scale and not prep.data_scale_defaulted
            scales, data_scale = keeps, (1.0 if keeps else None)
    kind_now = prep.expected_mean_kind
    norm = None
    if prep.semantics is not None:
        norm = norm_type_for(mean_kind or kind_now, prep.uses_scale if scales is None else scales)
    return Target(order, mean_kind, means, mean_image, scales, data_scale, norm, per_channel, card.transpose)


def rgb_order_now(prep: InputPreprocessing) -> str | None:
    """The order the mapper feeds (the default BGR when not written); None when invalid."""
    return prep.rgb_order if prep.rgb_order is not None else (DEFAULT_RGB_ORDER if prep.rgb_order_defaulted else None)

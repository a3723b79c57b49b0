"""Which layers belong to the net that nnie_mapper converts: Caffe's TEST (deploy) net.

A BVLC ``train_val.prototxt`` holds layers for both phases (``include { phase: TRAIN }`` /
``include { phase: TEST }``), often with the same name; NNIE converts the deploy/TEST net
(docs/field-facts.md §16.4). Caffe decides membership with ``Net::StateMeetsRule`` against the
net state; for the converted net that state is phase TEST, level 0 and no stages:

- a layer with ``include`` rules is in the net when at least one rule is met;
- otherwise it is in the net unless one of its ``exclude`` rules is met;
- a rule is met when its ``phase`` (if set) is the state's, ``min_level``/``max_level`` (if set)
  admit level 0, every ``stage`` is one of the state's stages (there are none) and no
  ``not_stage`` is.
"""

from __future__ import annotations

from nnie_lsp.core.records import NamedTuple

__all__ = ["NetState", "TEST_STATE", "rule_met", "membership"]

TRAIN, TEST = 0, 1  # caffe.Phase
PHASE_NAMES = {TRAIN: "TRAIN", TEST: "TEST"}


class NetState(NamedTuple):
    phase: int = TEST
    level: int = 0
    stages: frozenset[str] = frozenset()


TEST_STATE = NetState()


def _why_not(rule, state: NetState) -> str | None:
    """None when the NetStateRule is met, else the first reason it is not."""
    if rule.HasField("phase") and rule.phase != state.phase:
        return f"phase: {PHASE_NAMES.get(rule.phase, rule.phase)}"
    if rule.HasField("min_level") and state.level < rule.min_level:
        return f"min_level: {rule.min_level}"
    if rule.HasField("max_level") and state.level > rule.max_level:
        return f"max_level: {rule.max_level}"
    for stage in rule.stage:
        if stage not in state.stages:
            return f'stage: "{stage}"'
    for stage in rule.not_stage:
        if stage in state.stages:
            return f'not_stage: "{stage}"'
    return None


def rule_met(rule, state: NetState = TEST_STATE) -> bool:
    return _why_not(rule, state) is None


def membership(param, state: NetState = TEST_STATE) -> str | None:
    """None when the layer (LayerParameter or V1LayerParameter) is in the net for ``state``;
    else why not, in the prototxt's own words (e.g. ``include { phase: TRAIN }``)."""
    includes = list(getattr(param, "include", ()))
    if includes:
        reasons = [_why_not(r, state) for r in includes]
        if any(r is None for r in reasons):
            return None
        return "include { " + " } / include { ".join(r for r in reasons if r) + " }"
    for rule in getattr(param, "exclude", ()):
        if _why_not(rule, state) is None:
            words = []
            if rule.HasField("phase"):
                words.append(f"phase: {PHASE_NAMES.get(rule.phase, rule.phase)}")
            return "exclude { " + (" ".join(words) or "…") + " }"
    return None

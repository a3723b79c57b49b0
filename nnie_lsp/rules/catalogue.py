"""The complete rule catalogue: importing this module imports every rule module, which registers
its codes in :mod:`nnie_lsp.rules.registry`.  The faces (lint, CLI, hover, docs) ask here.

Add a new rule module to the import below.  The rule modules themselves import only the registry,
never this module, so there is no cycle.
"""

from __future__ import annotations

from . import (  # noqa: F401  (imported for their registrations)
    config_rules,
    input_batch,
    input_rules,
    layer_limits,
    layer_matching,
    layer_setup,
    mapper_output,
    mean_scale_rules,
    meta,
    quantization,
    schema_rules,
    triage_findings,
)
from .registry import Rule, registered_rule, registered_rules


def all_rules() -> list[Rule]:
    """Every registered code (rules, triage findings, lint meta codes), sorted by code."""
    return registered_rules()


def get_rule(code: str) -> Rule | None:
    return registered_rule(code)

"""The complete rule catalogue: what the faces (lint, CLI, hover, docs) ask for rules.

Which module registers each code, and what a project must hold for the rule to run, is the
generated table :data:`nnie_lsp.rules.index.RULES` (``python scripts/gen_docs.py`` rewrites it
from the registry; ``tests/lint/test_registry.py`` checks it is current).  Rule modules are
imported from it on demand: :func:`rules_for` loads only the modules whose rules can run on a
project (a prototxt alone does not load the cfg rules and the cfg side they import: nnie-lint's
start-up), :func:`get_rule` only the module of one code, :func:`all_rules` every module.

A new rule module needs no registration here: ``scripts/gen_docs.py`` finds it.  The rule modules
import only the registry, never this module, so there is no cycle.
"""

from __future__ import annotations

import importlib
from typing import Collection

from .index import RULES
from .registry import Rule, registered_rule, registered_rules


def _load(modules: Collection[str]) -> None:
    for name in sorted(modules):
        importlib.import_module(f"{__package__}.{name}")


def import_every_rule_module() -> None:
    """Import every module of this package (each registers its rules), whether the index knows it
    or not: what the index's generator and its test read."""
    import pkgutil

    from . import __path__ as package_path

    _load({info.name for info in pkgutil.iter_modules(package_path)})


def all_rules() -> list[Rule]:
    """Every registered code (rules, triage findings, lint meta codes), sorted by code."""
    _load({module for module, _needs in RULES.values()})
    return registered_rules()


def get_rule(code: str) -> Rule | None:
    entry = RULES.get(code.upper())
    if entry is not None:
        _load((entry[0],))
    return registered_rule(code)


def known_codes() -> frozenset[str]:
    """Every code, without importing a rule module (suppression comments check against it)."""
    return frozenset(RULES)


def rules_for(parts: Collection[str]) -> list[Rule]:
    """The rules the lint runs on a project that holds ``parts`` (e.g. ``{"cfg"}``; see
    :data:`nnie_lsp.rules.registry.NEEDS`), by code; lint meta codes and triage findings are
    never among them."""
    runnable = {code for code, (_module, needs) in RULES.items() if needs is None or needs in parts}
    _load({RULES[code][0] for code in runnable})
    return [r for r in registered_rules() if r.code in runnable and not r.meta]

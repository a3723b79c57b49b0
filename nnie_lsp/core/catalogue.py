"""The complete rule catalogue: what the faces (lint, CLI, hover, docs) ask for rules.

Which module registers each code, and what a project must hold for the rule to run, is the
generated table :data:`nnie_lsp.core.rule_index.RULES` (``python scripts/gen_docs.py`` rewrites it
from the registry; ``tests/lint/test_registry.py`` checks it is current).  It names modules by
their full dotted path: the lint rules' modules in :mod:`nnie_lsp.rules`, each triage finding's (T-code's)
the triage module that emits it (``nnie_lsp.triage.diagnose.tree`` …).  Modules are imported from
it on demand: :func:`rules_for` loads only the modules whose rules can run on a project (a prototxt
alone does not load the cfg rules and the cfg side they import: nnie-lint's start-up), never a
triage module; :func:`get_rule` only the module of one code, :func:`all_rules` every module.
Registering loads no numpy, triage modules included (a test checks it).

A new rule module needs no registration here: ``scripts/gen_docs.py`` finds it
(:func:`import_every_rule_module`).  The rule modules import only the registry, never this module,
so there is no cycle.
"""

from __future__ import annotations

import importlib
from typing import Collection

from nnie_lsp.core.rule_index import RULES
from nnie_lsp.core.registry import Rule, registered_rule, registered_rules

#: Where triage findings are registered: the modules of this package (searched recursively) that
#: call ``register_finding(`` (:mod:`nnie_lsp.rules.triage_common`), the one way a T-code is registered.
TRIAGE_PACKAGE = "nnie_lsp.triage"
#: The lint rules' package: every module of it registers rules (found by name, never imported here
#: statically: this module sits below the rules).
RULE_PACKAGE = "nnie_lsp.rules"
FINDING_REGISTRATION = "register_finding("


def _load(modules: Collection[str]) -> None:
    for name in sorted(modules):
        importlib.import_module(name)


def _modules_registering_findings() -> set[str]:
    """The triage modules whose source registers a T-code (read, not imported: the rest of
    triage/ is never loaded for the index)."""
    import importlib.util
    from pathlib import Path

    root = Path(importlib.util.find_spec(TRIAGE_PACKAGE).origin).parent
    found = set()
    for path in root.rglob("*.py"):
        if FINDING_REGISTRATION in path.read_text(encoding="utf-8"):
            parts = (TRIAGE_PACKAGE, *path.relative_to(root).with_suffix("").parts)
            found.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def import_every_rule_module() -> None:
    """Import every module that registers codes, whether the index knows it or not (what the
    index's generator and its test read): every module of this package (the lint rules) and the
    triage modules that register T-codes."""
    import importlib.util
    import pkgutil

    package_path = importlib.util.find_spec(RULE_PACKAGE).submodule_search_locations
    _load({f"{RULE_PACKAGE}.{info.name}" for info in pkgutil.iter_modules(package_path)})
    _load(_modules_registering_findings())


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
    :data:`nnie_lsp.core.registry.NEEDS`), by code; lint meta codes and triage findings are
    never among them."""
    runnable = {code for code, (_module, needs) in RULES.items() if needs is None or needs in parts}
    _load({RULES[code][0] for code in runnable})
    return [r for r in registered_rules() if r.code in runnable and not r.meta]

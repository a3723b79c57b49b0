"""Lint rules, one function per stable code; see :mod:`nnie_lsp.rules.registry`."""

from .registry import Rule, all_rules, get_rule, rule  # noqa: F401

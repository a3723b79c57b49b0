"""Lint rules, one function per stable code.

:mod:`nnie_lsp.rules.registry` holds the :class:`~nnie_lsp.rules.registry.Rule` type and the
``rule`` decorator the rule modules use; :mod:`nnie_lsp.rules.catalogue` imports every rule module
and answers ``all_rules()`` / ``get_rule(code)``.
"""

"""Lint rules, one function per stable code.

:mod:`nnie_lsp.core.registry` holds the :class:`~nnie_lsp.core.registry.Rule` type and the
``rule`` decorator the rule modules use; :mod:`nnie_lsp.core.catalogue` imports every rule module
and answers ``all_rules()`` / ``get_rule(code)``.

May import: core, readers, project, conversion.
"""

"""The one TOML parser: :mod:`tomllib` (``tomli`` on Python 3.10), imported only when a TOML file is
read (a pyproject.toml's ``[tool.nnie-lint]``, a model card): nnie-lint's start-up does not pay for it."""

from __future__ import annotations


def toml_module():
    """tomllib (tomli on Python 3.10)."""
    try:  # Python 3.11+
        import tomllib
    except ModuleNotFoundError:  # pragma: no cover - 3.10
        import tomli as tomllib  # type: ignore
    return tomllib

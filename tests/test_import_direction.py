"""The layering the package docstrings state, checked on every import statement.

Each unit of the package -- a top-level package or module of ``nnie_lsp``, and each reader of
``nnie_lsp.readers`` (``readers.cfg``, ``readers.file_kinds`` …) -- ends its docstring with a
``May import: a, b, c.`` line ("nothing"; ``readers`` stands for every reader; "anything" only for
``testing``, which nothing shipped may import).  Every import statement counts: module level, lazy
ones inside functions, and ``if TYPE_CHECKING:`` ones too (a type named across a layer is still an
arrow).  The declared arrows must form no cycle, so with them the imports all point one way: down.
"""

from __future__ import annotations

import ast
import re
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "nnie_lsp"
DECLARATION = re.compile(r"^May import:\s*(?P<names>[^\n]*(?:\n(?!\n)[^\n]*)*?)\.\s*$", re.M)


def unit_of(module: str) -> str | None:
    """``nnie_lsp.readers.cfg.reader`` -> ``readers.cfg``; ``nnie_lsp.triage.align.keys`` -> ``triage``."""
    parts = module.split(".")
    if parts[0] != "nnie_lsp" or len(parts) < 2:
        return None
    if parts[1] == "readers" and len(parts) > 2:
        return f"readers.{parts[2]}"
    return parts[1]


def units(package: Path = PACKAGE) -> dict[str, Path]:
    """unit -> the file whose docstring declares it (a package's ``__init__.py``, else the module)."""
    out: dict[str, Path] = {}
    for path in sorted(package.iterdir()):
        if path.name.startswith(("_", ".")) and path.name != "__main__.py":
            continue
        if path.is_dir() and (path / "__init__.py").exists():
            out[path.name] = path / "__init__.py"
        elif path.suffix == ".py":
            out[path.stem] = path
    readers = package / "readers"
    for path in sorted(readers.iterdir()) if readers.is_dir() else ():
        if path.is_dir() and (path / "__init__.py").exists():
            out[f"readers.{path.name}"] = path / "__init__.py"
        elif path.suffix == ".py" and path.name != "__init__.py":
            out[f"readers.{path.stem}"] = path
    return out


def declared(all_units: dict[str, Path]) -> dict[str, set[str] | None]:
    """unit -> the units it may import (None: anything)."""
    readers = {u for u in all_units if u.startswith("readers.")}
    out: dict[str, set[str] | None] = {}
    for unit, path in all_units.items():
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        m = DECLARATION.search(doc)
        assert m, f"{path}: its docstring says what it may import (a 'May import: ….' line)"
        names = " ".join(m.group("names").split())
        if names.startswith("anything"):
            out[unit] = None
            continue
        allowed: set[str] = set()
        for name in (n.strip() for n in names.split(",")):
            if name in ("nothing", ""):
                continue
            if name == "readers" and not unit.startswith("readers"):
                allowed |= readers
            else:
                assert name in all_units or name == "readers", f"{unit}: 'May import' names {name!r}, not a unit"
                allowed.add(name)
        out[unit] = allowed
    return out


def imports_of(path: Path, module: str, known_modules: set[str]) -> list[tuple[str, int]]:
    """Every ``nnie_lsp`` module `path` imports (lazy and TYPE_CHECKING ones included), with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}:{node.lineno}: imports are absolute"
            base = node.module or ""
            for a in node.names:   # `from nnie_lsp.readers import file_kinds` imports the module
                out.append((f"{base}.{a.name}" if f"{base}.{a.name}" in known_modules else base, node.lineno))
    return [(name, line) for name, line in out if name.startswith("nnie_lsp")]


def violations(package: Path = PACKAGE) -> list[str]:
    all_units = units(package)
    allowed = declared(all_units)
    files = sorted(package.rglob("*.py"))
    modules = {".".join(p.relative_to(package.parent).with_suffix("").parts).removesuffix(".__init__"): p for p in files}
    found = []
    for module, path in modules.items():
        unit = unit_of(module)
        if unit is None or unit not in allowed:
            continue
        for target, line in imports_of(path, module, set(modules)):
            other = unit_of(target)
            if other is None or other == unit:
                continue   # `from nnie_lsp import __version__`, or within the unit
            ok = allowed[unit]
            if other == "testing" and unit != "testing":
                found.append(f"{path.relative_to(package.parent)}:{line}: imports {target} (testing/ is not shipped code)")
            elif ok is not None and other not in ok:
                found.append(f"{path.relative_to(package.parent)}:{line}: {unit} imports {target} ({other}), "
                             f"not in its 'May import'")
    return sorted(set(found))


def test_every_import_points_down():
    assert violations() == []


def test_the_declared_layers_have_no_cycle():
    allowed = declared(units())
    graph = {u: (a if a is not None else set()) for u, a in allowed.items()}
    try:
        order = list(TopologicalSorter(graph).static_order())
    except CycleError as exc:
        pytest.fail(f"the 'May import' lines form a cycle: {exc.args[1]}")
    assert order.index("core") < order.index("readers.cfg") < order.index("project") < order.index("cli")


def test_no_shipped_unit_may_import_testing():
    allowed = declared(units())
    assert [u for u, a in allowed.items() if a is not None and "testing" in a] == []


def test_an_import_up_is_caught(tmp_path):
    """The check itself: a reader that imports the project, lazily and under TYPE_CHECKING, is two
    violations; a package without a declaration is an error."""
    pkg = tmp_path / "nnie_lsp"
    (pkg / "core").mkdir(parents=True)
    (pkg / "core" / "__init__.py").write_text('"""Core.\n\nMay import: nothing.\n"""\n')
    (pkg / "project").mkdir()
    (pkg / "project" / "__init__.py").write_text('"""The project.\n\nMay import: core, readers.\n"""\n')
    (pkg / "readers" / "cfg").mkdir(parents=True)
    (pkg / "readers" / "__init__.py").write_text('"""Readers.\n\nMay import: core.\n"""\n')
    (pkg / "readers" / "cfg" / "__init__.py").write_text('"""The cfg.\n\nMay import: core.\n"""\n')
    (pkg / "readers" / "cfg" / "reader.py").write_text(
        "from typing import TYPE_CHECKING\nfrom nnie_lsp.core import text\n"
        "if TYPE_CHECKING:\n    from nnie_lsp.project import sources\n"
        "def f():\n    import nnie_lsp.project.settings\n")
    found = violations(pkg)
    assert len(found) == 2 and all("readers.cfg imports nnie_lsp.project" in v for v in found), found
    (pkg / "lint").mkdir()
    (pkg / "lint" / "__init__.py").write_text('"""No declaration here."""\n')
    with pytest.raises(AssertionError, match="May import"):
        violations(pkg)

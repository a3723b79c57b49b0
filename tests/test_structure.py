"""Package structure: no import cycles between nnie_lsp modules, and no module over 600 lines
unless it says why at its top.

The import graph is read from the source (AST), so it counts every import that can run: module
level, inside functions and methods (a lazy import that closes a cycle is still a layering
cycle), absolute and relative.  Only imports under ``if TYPE_CHECKING:`` are left out: they
never run.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = "nnie_lsp"
ROOT = Path(__file__).resolve().parents[1]
LINE_LIMIT = 600
# a long module says why in its first lines, e.g. "# Over 600 lines: the key table is data ..."
SIZE_REASON = re.compile(r"over\s+600\s+lines\W+(\w+\W+){3,}", re.I)


def _modules(root: Path = ROOT) -> dict[str, Path]:
    out = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _type_checking_only(tree: ast.AST) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return skipped


def _imported(module: str, path: Path, modules: dict[str, Path]) -> dict[str, int]:
    """Modules of the package that `module` imports -> line of the first such import."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    skipped = _type_checking_only(tree)
    found: dict[str, int] = {}
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            # `from pkg import mod` imports the submodule; `from mod import name` the module
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                     for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name and name != module:
                found.setdefault(name, node.lineno)
    return found


def import_graph(root: Path = ROOT) -> dict[str, dict[str, int]]:
    modules = _modules(root)
    return {m: _imported(m, p, modules) for m, p in modules.items()}


def import_cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One cycle through each strongly connected group of modules (Tarjan), shortest found."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:  # recursion depth is bounded by the number of modules
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [_shortest_cycle(graph, set(group), group[0]) for group in groups]


def _shortest_cycle(graph, members: set[str], start: str) -> list[str]:
    """Breadth-first from `start` back to itself inside one strongly connected group."""
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph[node]):
                if target not in members:
                    continue
                if target == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if target not in previous:
                    previous[target] = node
                    following.append(target)
        frontier = following
    raise AssertionError(f"no cycle through {start}")  # cannot happen in a strongly connected group


def _describe(cycle: list[str], graph) -> str:
    steps = [f"{a} (line {graph[a][b]}) -> {b}" for a, b in zip(cycle, cycle[1:])]
    return "import cycle: " + "  ->  ".join(steps)


def test_no_import_cycles():
    graph = import_graph()
    cycles = import_cycles(graph)
    assert not cycles, "\n".join(_describe(c, graph) for c in cycles)


def test_cycle_finder_finds_lazy_and_relative_imports(tmp_path):
    """The checker itself: a function-level relative import closing a loop is a cycle."""
    pkg = tmp_path / PACKAGE
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .sub import b\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                      "    from .. import c\ndef f():\n    from ..a import x\n")
    (pkg / "c.py").write_text("import nnie_lsp.a\n")
    graph = import_graph(tmp_path)
    assert graph["nnie_lsp.a"] == {"nnie_lsp.sub.b": 1}
    assert graph["nnie_lsp.sub.b"] == {"nnie_lsp.a": 5}          # the TYPE_CHECKING import is left out
    assert graph["nnie_lsp.c"] == {"nnie_lsp.a": 1}
    assert import_cycles(graph) == [["nnie_lsp.a", "nnie_lsp.sub.b", "nnie_lsp.a"]]
    assert "nnie_lsp.sub.b (line 5) -> nnie_lsp.a" in _describe(import_cycles(graph)[0], graph)


def test_modules_stay_under_600_lines_or_say_why():
    too_long = []
    for module, path in _modules().items():
        lines = path.read_text(encoding="utf-8").splitlines()
        if len(lines) > LINE_LIMIT and not SIZE_REASON.search(" ".join(lines[:10])):
            too_long.append(f"{path.relative_to(ROOT)}: {len(lines)} lines")
    assert not too_long, ("modules over 600 lines without a reason in their first 10 lines "
                          "(e.g. '# Over 600 lines: <why>'):\n" + "\n".join(too_long))

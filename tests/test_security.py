"""Nothing read from a cfg, prototxt, dump or log is ever executed.

The package's source is scanned (AST) for every way Python runs code or a program: eval/exec/
compile, pickle and friends, ``numpy.load`` without ``allow_pickle=False``, yaml.load, subprocess,
os.system/popen/exec*/spawn*, ``shell=True``, dynamic imports, ``exec_module``, runpy.  Each use
must be in :data:`ALLOWED`, with the reason it is safe; a new one fails this test until someone
looks at it.  Only ``--postprocess``, which the user passes explicitly, runs user code.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "nnie_lsp"

# (file under nnie_lsp/, enclosing function, call) -> why it is allowed
ALLOWED = {
    # `nnie-triage compare --postprocess module:function`: the user names the code to run, on the
    # command line; it is the one place user code runs (never a name read from a file).
    ("triage/inputs/load.py", "load_postprocess", "importlib.util.spec_from_file_location"):
        "--postprocess FILE.py:function, given by the user",
    ("triage/inputs/load.py", "load_postprocess", "*.exec_module"): "--postprocess FILE.py:function, given by the user",
    ("triage/inputs/load.py", "load_postprocess", "importlib.import_module"): "--postprocess module:function, given by the user",
    # the editor's triage, reference and emulate commands run this package's own `nnie-triage`
    # (or the command the user sets in NNIE_TRIAGE_CMD) with an argument list and no shell; every
    # path read from a cfg is the value of a flag (`--prototxt PATH`), never code or an option
    ("server/triage/jobs.py", "run_job", "asyncio.create_subprocess_exec"): "runs nnie-triage with an argument list",
    # the rule catalogue imports this package's own rule modules by the names in the generated
    # index (nnie_lsp/core/rule_index.py) or found in the package folder: never a name from a file
    ("core/catalogue.py", "_load", "importlib.import_module"): "a rule module named in the generated index",
    # the server lints a big document in its own child process (this package's module, with an
    # argument list and no shell); parent and child exchange pickled frames over the child's own
    # pipes, made by this package on either side: never bytes read from a file
    ("server/lint_process.py", "LintProcess._child", "subprocess.Popen"): "python -m nnie_lsp.server.lint_process",
    ("server/lint_process.py", "<module>", "import pickle"): "frames between the server and its own child",
    ("server/lint_process.py", "_write_frame", "pickle.dumps"): "frames between the server and its own child",
    ("server/lint_process.py", "_read_frame", "pickle.loads"): "frames from the server's own child (or parent) pipe",
    # `git check-ignore` with an argument list and no shell; the missing files' paths go on its
    # stdin as data (NUL-separated), never as options
    ("project/repository.py", "_check_ignore", "subprocess.run"): "git check-ignore --stdin, paths as data",
}

# calls that run code or programs (resolved through the module's imports)
BANNED = {
    "eval", "exec", "compile", "__import__", "execfile",
    "builtins.eval", "builtins.exec", "builtins.compile", "builtins.__import__",
    "pickle.load", "pickle.loads", "pickle.Unpickler", "_pickle.load", "_pickle.loads", "cPickle.load",
    "cPickle.loads", "marshal.load", "marshal.loads", "shelve.open", "dill.load", "dill.loads",
    "cloudpickle.load", "cloudpickle.loads", "joblib.load", "torch.load", "pandas.read_pickle",
    "yaml.load", "yaml.load_all", "yaml.unsafe_load", "yaml.unsafe_load_all", "yaml.full_load",
    "yaml.full_load_all",
    "os.system", "os.popen", "os.startfile", "pty.spawn", "code.interact", "code.InteractiveConsole",
    "asyncio.create_subprocess_shell", "asyncio.create_subprocess_exec",
    "importlib.import_module", "importlib.util.spec_from_file_location", "importlib.machinery.SourceFileLoader",
    "runpy.run_path", "runpy.run_module", "ctypes.CDLL", "ctypes.cdll.LoadLibrary",
}
BANNED_PREFIXES = ("subprocess.", "os.exec", "os.spawn", "os.posix_spawn", "pickle.", "marshal.", "shelve.")
BANNED_METHODS = {"exec_module", "load_module"}  # on any object (loaders)
BANNED_IMPORTS = {"pickle", "_pickle", "cPickle", "marshal", "shelve", "dill", "cloudpickle", "yaml"}


def _aliases(tree: ast.AST) -> dict[str, str]:
    """Local name -> dotted name, from the module's imports (anywhere in it)."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    names[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else f"?.{node.attr}"
    return None


def _resolve(name: str, aliases: dict[str, str]) -> str:
    head, _, rest = name.partition(".")
    full = aliases.get(head, head)
    return f"{full}.{rest}" if rest else full


def _risky(call: ast.Call, aliases: dict[str, str]) -> str | None:
    """The name under which a call is risky, else None."""
    name = _dotted(call.func)
    if any(k.arg == "shell" and not (isinstance(k.value, ast.Constant) and k.value.value is False)
           for k in call.keywords):
        return f"{name or 'call'}(shell=...)"
    if name is None:
        return None
    method = name.rsplit(".", 1)[-1]
    if "." in name and method in BANNED_METHODS:
        return f"*.{method}"
    full = _resolve(name, aliases)
    if full == "importlib.import_module" and call.args and isinstance(call.args[0], ast.Constant) \
            and str(call.args[0].value).startswith("nnie_lsp."):
        return None  # one of the package's own modules, by a constant name
    if full in ("numpy.load", "np.load"):
        pickle_off = any(k.arg == "allow_pickle" and isinstance(k.value, ast.Constant) and k.value.value is False
                         for k in call.keywords)
        return None if pickle_off else "numpy.load without allow_pickle=False"
    if full in BANNED or full.startswith(BANNED_PREFIXES):
        return full
    return None


class _Scanner(ast.NodeVisitor):
    def __init__(self, aliases: dict[str, str]) -> None:
        self.aliases = aliases
        self.scope: list[str] = []
        self.found: list[tuple[str, str, int]] = []  # (function, call, line)

    def _enter(self, node) -> None:
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _enter

    def visit_Call(self, node: ast.Call) -> None:
        risky = _risky(node, self.aliases)
        if risky:
            self.found.append((".".join(self.scope) or "<module>", risky, node.lineno))
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name.split(".")[0] in BANNED_IMPORTS:
                self.found.append((".".join(self.scope) or "<module>", f"import {alias.name}", node.lineno))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module and not node.level and node.module.split(".")[0] in BANNED_IMPORTS:
            self.found.append((".".join(self.scope) or "<module>", f"from {node.module} import", node.lineno))


def scan_source(source: str, filename: str = "<source>") -> list[tuple[str, str, int]]:
    tree = ast.parse(source, filename=filename)
    scanner = _Scanner(_aliases(tree))
    scanner.visit(tree)
    return scanner.found


def _package_findings() -> list[tuple[str, str, str, int]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        for function, call, line in scan_source(path.read_text(encoding="utf-8"), str(path)):
            out.append((relative, function, call, line))
    return out


def test_nothing_read_from_a_file_is_executed():
    findings = _package_findings()
    unexpected = [f"nnie_lsp/{file}:{line} in {function}: {call}" for file, function, call, line in findings
                  if (file, function, call) not in ALLOWED]
    assert not unexpected, ("code or programs run from the package (check each: nothing read from a user's file "
                            "may reach it; then allow it in ALLOWED with the reason):\n" + "\n".join(unexpected))


def test_every_allowed_site_still_exists():
    """An allow-list entry for code that is gone would silently allow a new use there."""
    present = {(file, function, call) for file, function, call, _line in _package_findings()}
    assert set(ALLOWED) <= present, set(ALLOWED) - present


def test_the_scanner_finds_what_it_looks_for():
    source = '''
import pickle
import subprocess as sp
import numpy as np
from os import system
import importlib

def hostile(path, text):
    eval(text)
    exec(compile(text, path, "exec"))
    sp.run(["ls", path])
    system("rm " + path)
    np.load(path)
    np.load(path, allow_pickle=True)
    importlib.import_module(text)
    spec.loader.exec_module(module)
    anything(path, shell=True)
    np.load(path, allow_pickle=False)        # fine
    importlib.import_module("nnie_lsp.x")    # fine
    re.compile(text)                         # fine
'''
    calls = [call for _function, call, _line in scan_source(source)]
    assert calls == ["import pickle", "eval", "exec", "compile", "subprocess.run", "os.system",
                     "numpy.load without allow_pickle=False", "numpy.load without allow_pickle=False",
                     "importlib.import_module", "*.exec_module", "anything(shell=...)"]

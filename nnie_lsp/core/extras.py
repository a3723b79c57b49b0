"""Optional packages (the extras of pyproject.toml) and what to tell a user who lacks one.

A missing optional package is an expected outcome, never an internal error: the message names
the package, what needs it, and a remedy that works with the Python at hand (the language server
runs ``nnie-triage`` with its own interpreter, so that is the one to fix):

- that Python has pip and may install into it: ``<python> -m pip install "<requirement>"``;
- it is a virtual environment without pip, but with ``ensurepip``: add pip first, then install;
- the system's package manager owns it (PEP 668 ``EXTERNALLY-MANAGED``: pip refuses), or it has
  neither pip nor ensurepip: the system's package (Debian/Ubuntu) or a virtual environment the
  editor is pointed at (``nnie.interpreter``).

The requirement strings are the extras' own (``importlib.metadata`` of the installed nnie-lsp);
:data:`OPTIONAL` holds the same strings for a server without its metadata (the VS Code bundle),
and a test keeps them equal to pyproject.toml.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import sys
import sysconfig
from dataclasses import dataclass

from nnie_lsp.core import i18n


@dataclass(frozen=True)
class Extra:
    module: str          # the import name that is missing ("cv2")
    extra: str           # the nnie-lsp extra that installs it ("reference")
    requirement: str     # what pip installs
    what: str            # the package's everyday name ("OpenCV")
    apt: str             # the Debian/Ubuntu package of it for the system Python ("" when none fits)


#: Modules of the optional extras, by import name.
OPTIONAL: dict[str, Extra] = {
    "cv2": Extra("cv2", "reference", "opencv-python-headless>=4.8,<5", "OpenCV", "python3-opencv"),
    # Debian's python3-onnx (1.12 in bookworm) is older than the extra needs, and there is no
    # python3-onnxruntime: no system package to suggest
    "onnx": Extra("onnx", "onnx", "onnx>=1.16,<2", "ONNX", ""),
    "onnxruntime": Extra("onnxruntime", "onnx", "onnxruntime>=1.18,<2", "ONNX Runtime", ""),
}

#: The pre-commit hook id (.pre-commit-hooks.yaml) that installs each extra into the hook's
#: environment; the plain ``nnie-lint`` hook has the base package only.
HOOKS: dict[str, str] = {"onnx": "nnie-lint-onnx"}


def in_pre_commit() -> bool:
    """nnie-lint runs as a pre-commit hook (pre-commit sets ``PRE_COMMIT=1`` for its hooks)."""
    return os.environ.get("PRE_COMMIT") == "1"


#: Python's own words for a missing module, and ours (:func:`missing_message`, both languages).
_NO_MODULE = re.compile(r"No module named '([A-Za-z_][\w.]*)'"
                        r"|the Python module ([A-Za-z_]\w*)|Python 模块 ([A-Za-z_]\w*)")


def missing_module(text: str) -> str | None:
    """The top-level name of an optional module `text` says is missing (a tool's error), or None."""
    for match in _NO_MODULE.finditer(text or ""):
        name = next(g for g in match.groups() if g).split(".")[0]
        if name in OPTIONAL:
            return name
    return None


def missing_optional(exc: BaseException) -> str | None:
    """The optional module whose absence raised `exc` (an ImportError), or None."""
    if not isinstance(exc, ImportError):
        return None
    name = (getattr(exc, "name", None) or "").split(".")[0]
    return name if name in OPTIONAL else missing_module(str(exc))


def _name(spec: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", spec)
    return match.group(1).lower().replace("_", "-") if match else ""


def requirement(extra: Extra) -> str:
    """The extra's requirement as the installed nnie-lsp declares it (else :data:`OPTIONAL`'s)."""
    try:
        from importlib.metadata import PackageNotFoundError, requires
        declared = requires("nnie-lsp") or []
    except (ImportError, PackageNotFoundError, OSError, ValueError):
        declared = []
    wanted = _name(extra.requirement)
    for line in declared:
        spec, _, marker = line.partition(";")
        if re.search(r"""extra\s*==\s*["']%s["']""" % re.escape(extra.extra), marker) and _name(spec) == wanted:
            return _ordered(spec.strip())
    return extra.requirement


def _ordered(spec: str) -> str:
    """``name<5,>=4.8`` (metadata order) as ``name>=4.8,<5`` (the order people write)."""
    name = re.match(r"[A-Za-z0-9._-]+", spec).group(0)
    parts = [p.strip() for p in spec[len(name):].split(",") if p.strip()]
    parts.sort(key=lambda p: 0 if p.startswith((">", "~", "=")) else 1)
    return name + ",".join(parts)


# ------------------------------------------------------------------ the interpreter at hand

@dataclass(frozen=True)
class Interpreter:
    executable: str
    has_pip: bool
    has_ensurepip: bool
    externally_managed: bool     # PEP 668: pip refuses to install into it
    in_venv: bool
    debian: bool                 # apt packages are the system Python's way


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def this_interpreter() -> Interpreter:
    in_venv = sys.prefix != getattr(sys, "base_prefix", sys.prefix)
    marker = os.path.join(sysconfig.get_path("stdlib") or "", "EXTERNALLY-MANAGED")
    return Interpreter(sys.executable or "python3", _importable("pip"), _importable("ensurepip"),
                       not in_venv and os.path.isfile(marker), in_venv,
                       sys.platform.startswith("linux") and os.path.isfile("/etc/debian_version"))


def _quote(path: str) -> str:
    if os.name == "nt":
        return f'"{path}"' if re.search(r'[\s&()]', path) else path
    return shlex.quote(path)


@dataclass(frozen=True)
class Remedy:
    text: str                    # what to do, in words (ends with the command when there is one)
    command: str | None          # one command that does it (for a "Copy Command" button)


def remedy(extra: Extra, python: Interpreter | None = None, lang: str = "en") -> Remedy:
    """How to get `extra`'s module into `python` (module doc)."""
    python = python or this_interpreter()
    py = _quote(python.executable)
    req = requirement(extra)
    pip = f'{py} -m pip install "{req}"'
    if python.has_pip and not python.externally_managed:
        return Remedy(i18n.t("extra.fix_pip", lang, command=pip, extra=extra.extra), pip)
    if python.in_venv and python.has_ensurepip:
        command = f"{py} -m ensurepip --upgrade && {pip}"
        return Remedy(i18n.t("extra.fix_ensurepip", lang, command=command), command)
    venv = os.path.join("~", ".venvs", "nnie")
    venv_python = (os.path.join(venv, "Scripts", "python.exe") if os.name == "nt"
                   else os.path.join(venv, "bin", "python"))
    make_venv = f'{py} -m venv {venv} && {venv_python} -m pip install "{req}"'
    why = i18n.t("extra.why_managed" if python.externally_managed else "extra.why_no_pip", lang,
                 python=python.executable)
    if extra.apt and python.debian and python.executable.startswith("/usr/"):
        apt = f"sudo apt install {extra.apt}"
        key = "extra.fix_apt_or_venv" if python.has_ensurepip else "extra.fix_apt"
        return Remedy(why + " " + i18n.t(key, lang, apt=apt, venv=make_venv, venv_python=venv_python), apt)
    if python.has_ensurepip:   # venv brings its own pip
        return Remedy(why + " " + i18n.t("extra.fix_venv", lang, venv=make_venv, venv_python=venv_python), make_venv)
    return Remedy(why + " " + i18n.t("extra.fix_other_python", lang, what=extra.what), None)


def missing_message(module: str, needed_by: str, lang: str = "en",
                    python: Interpreter | None = None) -> tuple[str, dict]:
    """The message for a missing optional `module` that `needed_by` ("NNIE reference") needs, and
    the JSON the editor gets with it (``{"module", "package", "extra", "requirement", "command",
    "python", "problem", "remedy"}``: ``problem`` is the message without the remedy, for an editor
    that offers its own, e.g. an install button)."""
    extra = OPTIONAL[module]
    python = python or this_interpreter()
    if in_pre_commit() and extra.extra in HOOKS:   # the hook's environment is pre-commit's to build
        problem = i18n.t("extra.missing_in_hook", lang, needed_by=needed_by, what=extra.what, module=module)
        fix_text = i18n.t("extra.fix_hook", lang, hook=HOOKS[extra.extra], extra=extra.extra)
        data = {"module": module, "package": extra.what, "extra": extra.extra, "requirement": requirement(extra),
                "command": None, "python": python.executable, "problem": problem, "remedy": fix_text}
        return problem + " " + fix_text, data
    fix = remedy(extra, python, lang)
    problem = i18n.t("extra.missing", lang, needed_by=needed_by, what=extra.what, module=module,
                     python=python.executable)
    data = {"module": module, "package": extra.what, "extra": extra.extra, "requirement": requirement(extra),
            "command": fix.command, "python": python.executable, "problem": problem, "remedy": fix.text}
    return problem + " " + fix.text, data


__all__ = ["Extra", "HOOKS", "OPTIONAL", "Interpreter", "in_pre_commit", "Remedy", "missing_module", "missing_optional", "missing_message",
           "remedy", "requirement", "this_interpreter"]

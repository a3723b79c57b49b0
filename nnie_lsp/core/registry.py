"""The rule registry: one entry per stable code, feeding lint, hover, completion and the docs.

A rule is a pure function ``check(project, ctx) -> Iterable[Diagnostic]`` registered with
:func:`rule`.  Its docstring holds the docs in fixed sections (``What it finds``, ``Why``,
``Example``, ``Fix``); its user-facing texts (messages and fix titles) live in the rule's
``messages`` mapping as ``(English, Simplified Chinese)`` pairs, which together form the one
message catalogue (:mod:`nnie_lsp.core.i18n`).

This module only holds the :class:`Rule` type and the store the rule modules register into; it
imports none of them.  :mod:`nnie_lsp.core.catalogue` imports every rule module and is what the
faces ask for the complete list (``all_rules`` / ``get_rule``).
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Mapping

from nnie_lsp.core.diagnostics import Diagnostic, Severity
from nnie_lsp.core.lang import is_zh, pick
from nnie_lsp.core.records import NamedTuple

DOC_SECTIONS = ("What it finds", "Why", "Example", "Fix")

Messages = Mapping[str, tuple[str, str]]

# What a project must hold for a rule to find anything (``Rule.needs``): the lint runs a rule only
# when its project does, and loads a rule module only when one of its rules may run
# (:mod:`nnie_lsp.core.rule_index`), so linting a prototxt alone does not load the cfg side.
CFG = "cfg"            # a mapper cfg (project.cfg)
TRIAGE = "triage"      # never run by the lint: a triage finding (nnie-triage reports it)
WK = "wk"              # a compiled model (project.wk: the cfg's [instruction_name].wk, or a .wk linted alone)
CARD = "card"          # a model card (project.card: the cfg's, or the nnie.toml linted itself)
NEEDS = (None, CFG, TRIAGE, WK, CARD)

#: step 0: before mapping, the conversion that made the Caffe net (ONNX → Caffe, the NN5xx codes)
STEP_GROUPS = {0: "Before mapping: conversion (ONNX → Caffe)", 2: "Data layer (guide step 2)", 3: "Quantization (guide step 3)",
               4: "Layer matching (guide step 4)"}
#: Codes grouped by their number rather than a guide step: the compiled model (the `.wk`, after mapping).
CODE_GROUPS = {"NN6": "After mapping: the compiled model (.wk)",
               "NN7": "After mapping: the board code", "T6": "Triage (the board, after the guide's steps)"}


class Rule(NamedTuple):
    code: str
    name: str
    severity: Severity
    step: int | None            # troubleshooting-guide step the rule serves (1-6; 0: the ONNX → Caffe conversion before it), None for schema
    summary: tuple[str, str]    # one line, (en, zh)
    messages: Messages          # message/fix-title ids -> (en, zh)
    check: Callable[..., Iterable[Diagnostic]]
    fix: str | None = None      # "safe" | "unsafe" | "safe/unsafe" | None (what kind of fix it offers)
    default_enabled: bool = True
    doc_source: str | Mapping[str, str] = ""  # the check's docstring (sections), or the sections
    docs_zh_given: str = ""     # the Chinese explanation given at registration (``docs_zh=``)
    meta: bool = False          # produced by the lint driver itself (NN000, NN9xx), not by `check`
    needs: str | None = None    # what the project must hold for the rule to run (NEEDS)

    @property
    def docs(self) -> Mapping[str, str]:
        """Section -> markdown (English), read from the docstring when asked (not at start-up)."""
        if isinstance(self.doc_source, str):
            return parse_doc(self.doc_source)
        return dict(self.doc_source)

    @property
    def docs_zh(self) -> str:
        """Short Chinese explanation (hover / ``--explain --lang zh``)."""
        return self.docs_zh_given

    @property
    def group(self) -> str:
        """The heading the rule is listed under: its guide step, triage, or lint meta."""
        if self.meta:
            return "Lint meta"
        for prefix, group in CODE_GROUPS.items():
            if self.code.startswith(prefix):
                return group
        if self.code.startswith("T"):
            return f"Triage (guide step {self.step})" if self.step else "Triage"
        return STEP_GROUPS.get(self.step, "Config and schema")

    def explain(self, lang: str = "en") -> str:
        lines = [f"# {self.code} ({self.name})", ""]
        lines.append(pick(self.summary, lang))
        lines.append("")
        lines.append(f"Default severity: {self.severity.label}"
                     + ("" if self.default_enabled else " (off by default; enable with --select)"))
        if self.fix:
            lines.append(f"Fix: {self.fix}")
        lines.append("")
        if is_zh(lang) and self.docs_zh:
            lines += ["## 说明", "", self.docs_zh.strip(), ""]
        for section in DOC_SECTIONS:
            body = self.docs.get(section)
            if body:
                lines += [f"## {section}", "", body.strip(), ""]
        return "\n".join(lines).rstrip() + "\n"


_RULES: dict[str, Rule] = {}


def parse_doc(doc: str) -> dict[str, str]:
    """The ``## Section`` blocks of a rule's docstring (:data:`DOC_SECTIONS`)."""
    import inspect  # only when docs are asked for (start-up)

    doc = inspect.cleandoc(doc or "")
    sections: dict[str, str] = {}
    current = None
    buf: list[str] = []
    for line in doc.splitlines():
        heading = re.match(r"^##\s+(.*?)\s*$", line)
        if heading:
            if current:
                sections[current] = "\n".join(buf).strip()
            current, buf = heading.group(1), []
        elif current:
            buf.append(line)
    if current:
        sections[current] = "\n".join(buf).strip()
    return sections


def _store(entry: Rule) -> None:
    if entry.code in _RULES:
        raise ValueError(f"rule code {entry.code} registered twice")
    _RULES[entry.code] = entry


def rule(code: str, name: str, severity: Severity, *, step: int | None, summary: tuple[str, str],
         messages: Messages, fix: str | None = None, default_enabled: bool = True,
         docs_zh: str = "", needs: str | None = None):
    """Register a rule function.  The function's docstring provides the English docs (its four
    sections are checked by ``tests/test_registry.py``, not at every start-up)."""
    if needs not in NEEDS:
        raise ValueError(f"{code}: needs must be one of {NEEDS}")

    def deco(fn):
        _store(Rule(code=code, name=name, severity=severity, step=step, summary=summary,
                    messages=dict(messages), check=fn, fix=fix, default_enabled=default_enabled,
                    doc_source=fn.__doc__ or "", docs_zh_given=docs_zh, needs=needs))
        return fn

    return deco


def register_meta(code: str, name: str, severity: Severity, *, summary: tuple[str, str],
                  messages: Messages, docs: Mapping[str, str], fix: str | None = None,
                  docs_zh: str = "") -> None:
    """Register a code produced by the lint driver itself (suppressions, internal errors)."""
    _store(Rule(code=code, name=name, severity=severity, step=None, summary=summary,
                messages=dict(messages), check=_no_check, fix=fix, doc_source=dict(docs),
                docs_zh_given=docs_zh, meta=True))


def _no_check(project, ctx):
    return ()


def registered_rules() -> list[Rule]:
    """The rules registered so far, by code.  Use :func:`nnie_lsp.core.catalogue.all_rules` for
    the complete list (it imports every rule module first)."""
    return [_RULES[c] for c in sorted(_RULES)]


def registered_rule(code: str) -> Rule | None:
    return _RULES.get(code.upper())

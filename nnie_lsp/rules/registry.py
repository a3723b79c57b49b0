"""The rule registry: one entry per stable code, feeding lint, hover, completion, docs and README.

A rule is a pure function ``check(project, ctx) -> Iterable[Diagnostic]`` registered with
:func:`rule`.  Its docstring holds the docs in fixed sections (``What it finds``, ``Why``,
``Example``, ``Fix``); its user-facing texts (messages and fix titles) live in the rule's
``messages`` mapping as ``(English, Simplified Chinese)`` pairs, which together form the one
message catalogue (:mod:`nnie_lsp.i18n`).
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

from ..diagnostics import Diagnostic, Severity
from .docs_zh import DOCS_ZH

DOC_SECTIONS = ("What it finds", "Why", "Example", "Fix")

Messages = Mapping[str, tuple[str, str]]


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: Severity
    step: int | None            # troubleshooting-guide step the rule serves (1-6), None for schema
    summary: tuple[str, str]    # one line, (en, zh)
    messages: Messages          # message/fix-title ids -> (en, zh)
    check: Callable[..., Iterable[Diagnostic]] = field(repr=False)
    fix: str | None = None      # "safe" | "unsafe" | "safe/unsafe" | None (what kind of fix it offers)
    default_enabled: bool = True
    docs: Mapping[str, str] = field(default_factory=dict)  # section -> markdown (English)
    docs_zh: str = ""           # short Chinese explanation (hover / --explain --lang zh)

    @property
    def group(self) -> str:
        return {0: "Config and schema", 1: "Config and schema", 2: "Data layer (guide step 2)",
                3: "Quantization (guide step 3)", 4: "Layer matching (guide step 4)",
                }.get(self.step or 0, "Config and schema") if not self.code.startswith("NN9") else "Lint meta"

    def explain(self, lang: str = "en") -> str:
        zh = lang.startswith("zh")
        lines = [f"# {self.code} ({self.name})", ""]
        lines.append(self.summary[1] if zh else self.summary[0])
        lines.append("")
        lines.append(f"Default severity: {self.severity.label}"
                     + ("" if self.default_enabled else " (off by default; enable with --select)"))
        if self.fix:
            lines.append(f"Fix: {self.fix}")
        lines.append("")
        if zh and self.docs_zh:
            lines += ["## 说明", "", self.docs_zh.strip(), ""]
        for section in DOC_SECTIONS:
            body = self.docs.get(section)
            if body:
                lines += [f"## {section}", "", body.strip(), ""]
        return "\n".join(lines).rstrip() + "\n"


_RULES: dict[str, Rule] = {}


def _parse_doc(doc: str) -> dict[str, str]:
    doc = inspect.cleandoc(doc or "")
    sections: dict[str, str] = {}
    current = None
    buf: list[str] = []
    for line in doc.splitlines():
        m = re.match(r"^##\s+(.*?)\s*$", line)
        if m:
            if current:
                sections[current] = "\n".join(buf).strip()
            current, buf = m.group(1), []
        elif current:
            buf.append(line)
    if current:
        sections[current] = "\n".join(buf).strip()
    return sections


def rule(code: str, name: str, severity: Severity, *, step: int | None, summary: tuple[str, str],
         messages: Messages, fix: str | None = None, default_enabled: bool = True,
         docs_zh: str = ""):
    """Register a rule function.  The function's docstring provides the English docs."""

    def deco(fn):
        if code in _RULES:
            raise ValueError(f"rule code {code} registered twice")
        docs = _parse_doc(fn.__doc__ or "")
        missing = [s for s in DOC_SECTIONS if s not in docs]
        if missing:
            raise ValueError(f"{code}: docstring lacks sections {missing}")
        _RULES[code] = Rule(code=code, name=name, severity=severity, step=step, summary=summary,
                            messages=dict(messages), check=fn, fix=fix,
                            default_enabled=default_enabled, docs=docs,
                            docs_zh=docs_zh or DOCS_ZH.get(code, ""))
        return fn

    return deco


def register_meta(code: str, name: str, severity: Severity, *, summary: tuple[str, str],
                  messages: Messages, docs: Mapping[str, str], fix: str | None = None,
                  docs_zh: str = "") -> None:
    """Register a code produced by the lint driver itself (suppressions, internal errors)."""
    if code in _RULES:
        raise ValueError(f"rule code {code} registered twice")
    _RULES[code] = Rule(code=code, name=name, severity=severity, step=None, summary=summary,
                        messages=dict(messages), check=_no_check, fix=fix, docs=dict(docs),
                        docs_zh=docs_zh or DOCS_ZH.get(code, ""))


def _no_check(project, ctx):
    return ()


def all_rules() -> list[Rule]:
    _load()
    return [_RULES[c] for c in sorted(_RULES)]


def get_rule(code: str) -> Rule | None:
    _load()
    return _RULES.get(code.upper())


_loaded = False


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    # Importing the modules registers their rules.
    from . import config_rules, schema_rules, data_layer, quantization, layer_matching, triage_findings  # noqa: F401
    from .. import suppress  # noqa: F401  (registers the suppression meta codes)
    from .. import lint  # noqa: F401  (registers NN000)

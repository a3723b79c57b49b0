"""What a rule gets besides the project: language, settings, and builders for its output."""

from __future__ import annotations

from typing import Iterable, NamedTuple

from ..diagnostics import Applicability, Diagnostic, FileEdit, Fix, Related, Severity
from ..settings import LintSettings
from ..text import Range, TextEdit


class RuleContext(NamedTuple):
    code: str
    messages: dict
    settings: LintSettings
    lang: str = "en"
    default_severity: Severity = Severity.WARNING

    def text(self, msg_id: str, **params) -> str:
        en, zh = self.messages[msg_id]
        template = zh if self.lang.startswith("zh") else en
        return template.format(**params)

    def fix(self, msg_id: str, edits: Iterable[tuple[str, TextEdit]], *, safe: bool,
            **params) -> Fix:
        return Fix(self.text(msg_id, **params),
                   Applicability.SAFE if safe else Applicability.UNSAFE,
                   tuple(FileEdit(p, e) for p, e in edits))

    def diag(self, msg_id: str, path: str, range: Range, *, severity: Severity | None = None,
             fix: Fix | None = None, related: Iterable[Related] = (),
             data: dict | None = None, alternatives: Iterable[Fix] = (), **params) -> Diagnostic:
        return Diagnostic(
            code=self.code, message=self.text(msg_id, **params), path=path, range=range,
            severity=severity or self.default_severity, fix=fix, related=tuple(related),
            data=tuple(sorted((data or {}).items())), alternatives=tuple(alternatives),
        )

    def related(self, msg_id: str, path: str, range: Range, **params) -> Related:
        return Related(path, range, self.text(msg_id, **params))

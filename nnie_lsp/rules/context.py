"""How every engine Diagnostic is made, and what a rule gets besides the project.

:class:`DiagnosticBuilder` is the one construction path of a :class:`~nnie_lsp.core.diagnostics.Diagnostic`:
a code's registered messages in one language (:func:`nnie_lsp.core.lang.pick`), its default severity,
the range, related places, the fix and its alternatives.  The lint rules get it through
:class:`RuleContext`, the lint driver's own codes through :mod:`nnie_lsp.rules.meta`, and the
triage findings through :class:`nnie_lsp.triage.diagnose.builder.FindingBuilder`.
"""

from __future__ import annotations

from typing import Iterable, Mapping

from nnie_lsp.core.lang import pick
from nnie_lsp.core.diagnostics import Applicability, Diagnostic, FileEdit, Fix, Related, Severity
from nnie_lsp.core.records import NamedTuple
from nnie_lsp.project.settings import LintSettings
from nnie_lsp.core.text import Range, TextEdit
from nnie_lsp.core.registry import Messages, registered_rule


class DiagnosticBuilder(NamedTuple):
    """One code's Diagnostics, fixes and related places, in one language."""

    code: str
    messages: Messages
    lang: str = "en"
    default_severity: Severity = Severity.WARNING

    @classmethod
    def of(cls, code: str, lang: str = "en") -> "DiagnosticBuilder":
        """The builder of a registered code (its messages and severity from the registry);
        KeyError when `code` is not registered (yet: its module registers it on import)."""
        found = registered_rule(code)
        if found is None:
            raise KeyError(f"{code} is not registered")
        return cls(found.code, found.messages, lang, found.severity)

    def text(self, msg_id: str, **params) -> str:
        """The message (or fix title) `msg_id` in the builder's language, formatted."""
        return pick(self.messages[msg_id], self.lang).format(**params)

    def fix(self, msg_id: str, edits: Iterable[tuple[str, TextEdit]], *, safe: bool, **params) -> Fix:
        """A fix titled `msg_id`; `edits` are ``(path, TextEdit)`` pairs (or :class:`FileEdit`)."""
        return Fix(self.text(msg_id, **params), Applicability.SAFE if safe else Applicability.UNSAFE,
                   tuple(FileEdit(p, e) for p, e in edits))

    def related(self, msg_id: str, path: str, range: Range, **params) -> Related:
        return Related(path, range, self.text(msg_id, **params))

    def diag(self, msg_id: str, path: str, range: Range, *, severity: Severity | None = None,
             fix: Fix | None = None, related: Iterable[Related] = (),
             data: Mapping[str, str] | None = None, alternatives: Iterable[Fix] = (), **params) -> Diagnostic:
        """The Diagnostic with message `msg_id` (formatted with `params`)."""
        return self.make(self.text(msg_id, **params), path, range, severity=severity, fix=fix,
                         related=related, data=data, alternatives=alternatives)

    def make(self, message: str, path: str, range: Range, *, severity: Severity | None = None,
             fix: Fix | None = None, related: Iterable[Related] = (),
             data: Mapping[str, str] | None = None, alternatives: Iterable[Fix] = ()) -> Diagnostic:
        """The Diagnostic of this code with an already written `message` (the code's default
        severity unless `severity`; `data` stored sorted by key)."""
        return Diagnostic(code=self.code, message=message, path=path, range=range,
                          severity=severity or self.default_severity, fix=fix, related=tuple(related),
                          data=tuple(sorted((data or {}).items())), alternatives=tuple(alternatives))


class RuleContext(NamedTuple):
    """What a lint rule gets besides the project: its code's builder (messages, language, default
    severity) and the lint settings."""

    code: str
    messages: dict
    settings: LintSettings
    lang: str = "en"
    default_severity: Severity = Severity.WARNING

    @property
    def builder(self) -> DiagnosticBuilder:
        """This code's builder alone (for helpers that take one; the context builds with the same methods)."""
        return DiagnosticBuilder(self.code, self.messages, self.lang, self.default_severity)

    # the one builder's methods, on this record's own fields (code, messages, lang, default_severity)
    text = DiagnosticBuilder.text
    fix = DiagnosticBuilder.fix
    related = DiagnosticBuilder.related
    diag = DiagnosticBuilder.diag
    make = DiagnosticBuilder.make

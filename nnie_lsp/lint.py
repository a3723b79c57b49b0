"""The lint driver: run the selected rules over a project, then severities, ignores, suppressions.

`lint_project` is what the CLI and the language server both call.  A rule that raises becomes one
NN000 diagnostic (and a log record), never a crash.
"""

from __future__ import annotations

import os
from typing import Iterable, NamedTuple

from .diagnostics import Diagnostic, Severity
from .project import DiskProvider, Project, SourceProvider, cfgs_naming, load_project
from .rules.catalogue import known_codes, rules_for
from .rules.context import RuleContext
from .rules.meta import NN000_MESSAGES
from .rules.registry import CFG
from .settings import LintSettings
from .suppress import apply_suppressions, parse_directives
from .text import Range



class LintOutcome(NamedTuple):
    diagnostics: list[Diagnostic]
    errors: list[str] | tuple[str, ...] = ()   # internal errors (already logged)


def project_parts(project: Project) -> frozenset[str]:
    """What the project holds, in :data:`nnie_lsp.rules.registry.NEEDS` terms."""
    return frozenset((CFG,)) if project.cfg is not None else frozenset()


def _log_crash(code: str, exc: Exception) -> None:
    """The traceback of a crashed rule, at debug level (each face reports the error itself: the CLI
    prints it, the server logs it to the client).  logging is imported only here: nnie-lint's
    start-up does not pay for it."""
    import logging
    import traceback

    logging.getLogger("nnie_lsp.lint").debug("rule %s crashed: %r\n%s", code, exc, traceback.format_exc())


def _directives(project: Project):
    out = []
    if project.cfg is not None:
        cfg = project.cfg
        comments = [(c.range, c.text) for c in cfg.comments]
        for e in cfg.entries:
            if e.inline_comment_range is not None:
                idx = cfg.line_index
                a = idx.offset(e.inline_comment_range.start)
                b = idx.offset(e.inline_comment_range.end)
                comments.append((e.inline_comment_range, cfg.text[a:b]))
        out += parse_directives(cfg.path or "<cfg>", comments, cfg.line_index.line_text)
    if project.prototxt is not None:
        p = project.prototxt
        out += parse_directives(p.path or "<prototxt>", list(p.comments), p.line_index.line_text)
    return out


def lint_project(project: Project, *, lang: str | None = None,
                 paths: Iterable[str] | None = None) -> LintOutcome:
    """All diagnostics for the project's files (only those homed in `paths`, when given)."""
    settings = project.settings
    lang = lang or settings.lang
    # only the rules that can find something in this project (Rule.needs); meta codes are
    # produced below and by the suppression pass
    rules = rules_for(project_parts(project))
    known = known_codes()
    raw: list[Diagnostic] = []
    errors: list[str] = []
    for r in rules:
        if not settings.is_selected(r.code, r.default_enabled):
            continue
        ctx = RuleContext(code=r.code, messages=dict(r.messages), settings=settings, lang=lang,
                          default_severity=r.severity)
        try:
            raw.extend(r.check(project, ctx))
        except Exception as exc:  # a crash in one rule must not kill the lint
            _log_crash(r.code, exc)
            errors.append(f"{r.code}: {exc!r}")
            home = project.prototxt_path or project.cfg_path or "<input>"
            pick = 1 if lang.startswith("zh") else 0
            raw.append(Diagnostic("NN000", NN000_MESSAGES["crash"][pick].format(
                rule=r.code, error=f"{type(exc).__name__}: {exc}"), home, Range.point(0, 0), Severity.ERROR))
    out = []
    for d in raw:
        if settings.ignored_for_path(d.code, d.path):
            continue
        sev = settings.severity_for(d.code, d.severity)
        out.append(d if sev == d.severity else d.with_severity(sev))
    directives = _directives(project)
    # file-level directives also silence the unused-suppression report for their codes
    report_unused = settings.is_selected("NN901", True)
    out = apply_suppressions(out, directives, known_codes=known, report_unused=report_unused, lang=lang)
    if not settings.is_selected("NN902", True):
        out = [d for d in out if d.code != "NN902"]
    if paths is not None:
        wanted = {os.path.abspath(p) for p in paths}
        out = [d for d in out if os.path.abspath(d.path) in wanted]
    unique = {}
    for d in out:
        unique.setdefault((d.path, d.code, d.range, d.message), d)
    return LintOutcome(sorted(unique.values(), key=Diagnostic.sort_key), errors)


def project_for_file(path: str, *, settings: LintSettings, provider: SourceProvider | None = None,
                     cwd: str | None = None, is_cfg: bool | None = None) -> Project:
    """The project a single file belongs to: a cfg with its prototxt, or a prototxt with the
    first cfg beside it that names it (or alone)."""
    provider = provider or DiskProvider()
    path = os.path.abspath(path)
    if is_cfg is None:
        is_cfg = path.lower().endswith(".cfg")
    if is_cfg:
        return load_project(cfg_path=path, settings=settings, provider=provider, cwd=cwd)
    cfgs = cfgs_naming(path, provider, cwd)
    return load_project(cfg_path=cfgs[0] if cfgs else None, prototxt_path=path, settings=settings,
                        provider=provider, cwd=cwd)


"""Linting: the one entry, :func:`lint`, for the nnie-lint command line, the language server and
library users::

    from nnie_lsp.lint import lint

    run = lint(["models/"])                       # files and folders, as nnie-lint's command line
    run = lint(["net.cfg"], fix=True)             # the safe fixes applied in memory: run.fixed
    run = lint("net.prototxt", provider=editor)   # one file as an editor has it: run.project
    run = lint(project)                           # a Project already loaded (nnie_lsp.project.project)
    run.diagnostics, run.internal_errors

The machinery is :mod:`nnie_lsp.lint.driver` (the rules over one project, paths to files, fix
loops); which files make a project is :mod:`nnie_lsp.project.project`.  Start-up matters (a pre-commit
hook pays it on every commit): nothing here imports more than that machinery does.
:mod:`.driver` also holds the fix loop (compare-and-swap on the texts read) and :mod:`.fix_writes`
writes fixes to the user's files only onto the exact text they were computed for.

May import: core, readers, project, rules.
"""

from __future__ import annotations

import os
from typing import Callable, Iterable, Sequence

from nnie_lsp.lint.driver import (InputError, LintOutcome, LintRun, Overlay, discover_inputs, fix_files, given_mapper_logs,
                         lint_files, lint_project, project_parts)
from nnie_lsp.project.project import DiskProvider, Project, SourceProvider, project_for_file
from nnie_lsp.project.settings import LintSettings, load_settings
from nnie_lsp.core.text import decode

__all__ = ["lint", "LintRun", "InputError", "Overlay", "lint_project", "LintOutcome", "project_for_file",
           "project_parts"]


def lint(target: Project | str | Sequence[str], *, settings: LintSettings | None = None,
         overrides: dict | None = None, lang: str | None = None, provider: SourceProvider | None = None,
         cwd: str | None = None, kind: str | None = None, only: Iterable[str] | None = None,
         mapper_logs: Sequence[str] = (), fix: bool = False, unsafe_fixes: bool = False,
         stdin: tuple[str, bytes] | None = None, on_note: Callable[[str], None] | None = None) -> LintRun:
    """Lint `target` and return the :class:`~nnie_lsp.lint.driver.LintRun`.

    - a :class:`~nnie_lsp.project.project.Project`: its findings (those homed in `only`, when given);
    - one file path (``str``): the project the file belongs to (a cfg with its prototxt, a prototxt
      with the cfg beside it that names it) read through `provider` (an editor's unsaved texts),
      and the findings homed in that file -- what an editor shows for one document; `kind`
      (``"cfg"`` or ``"prototxt"``) overrides the extension;
    - a sequence of paths: files and folders as nnie-lint's command line takes them, each file
      told by its content (:mod:`nnie_lsp.readers.file_kinds`): folders searched for nets and mapper cfgs;
      a cfg stands for its project (the findings of its prototxt, image lists, mean files and
      mapper logs are reported with it); a prototxt linted with the cfg in the set that names it;
      mapper logs and ``cnn_net_tree.dot`` files among them read with the cfgs; other files said
      to be what they are (``on_note``), not linted; `mapper_logs` are read instead of the logs
      beside the cfgs; `stdin` is ``(path, bytes)`` of a text read from standard input; `fix`
      applies the safe fixes (also the unsafe ones with `unsafe_fixes`) in memory, to ``run.fixed``.
      `on_note` is told, as they arise, of paths not linted and of given logs with nothing to read.
      Raises :class:`~nnie_lsp.lint.driver.InputError` for a path that cannot be used and
      :class:`~nnie_lsp.project.settings.SettingsError` for a broken ``pyproject.toml``.

    `settings` (default: ``[tool.nnie-lint]`` of the nearest ``pyproject.toml``) with `overrides`
    (:meth:`LintSettings.merged` keywords) apply; `lang` is the messages' language.
    """
    if isinstance(target, Project):
        outcome = lint_project(target, lang=lang, paths=only)
        members = [p for p in (target.cfg_path, target.prototxt_path) if p]
        return LintRun(outcome.diagnostics, members, internal_errors=list(outcome.errors), project=target)
    if isinstance(target, str):
        return _lint_document(target, settings, overrides, lang, provider, cwd, kind)
    return _lint_paths(list(target), settings, overrides or {}, lang, provider, cwd, list(mapper_logs), fix,
                       unsafe_fixes, stdin, on_note)


def _lint_document(path: str, settings: LintSettings | None, overrides: dict | None, lang: str | None,
                   provider: SourceProvider | None, cwd: str | None, kind: str | None) -> LintRun:
    path = os.path.abspath(path)
    settings = settings if settings is not None else load_settings(path)
    if overrides:
        settings = settings.merged(**overrides)
    provider = provider or DiskProvider()
    project = project_for_file(path, settings=settings, provider=provider, cwd=cwd,
                               is_cfg=None if kind is None else kind == "cfg")
    outcome = lint_project(project, lang=lang, paths=[path])
    run = LintRun(outcome.diagnostics, [path], internal_errors=list(outcome.errors), project=project)
    run.provider = provider
    return run


def _lint_paths(paths: list[str], settings: LintSettings | None, overrides: dict, lang: str | None,
                provider: SourceProvider | None, cwd: str | None, mapper_logs: list[str], fix: bool,
                unsafe_fixes: bool, stdin: tuple[str, bytes] | None,
                on_note: Callable[[str], None] | None) -> LintRun:
    provider = provider if isinstance(provider, Overlay) else _overlay(provider)
    provider.track_digests = provider.track_digests or fix
    stdin_path = None
    if stdin is not None:
        stdin_path = os.path.abspath(stdin[0])
        decoded = decode(stdin[1])
        provider.overlay[stdin_path] = decoded.text
        provider.decoded[stdin_path] = decoded
    inputs = discover_inputs(paths)
    logs = given_mapper_logs(mapper_logs, on_note) + inputs.mapper_logs
    for note in inputs.notes:
        if on_note is not None:
            on_note(note)
    files = inputs.files + ([stdin_path] if stdin_path else [])
    if not files and not logs and not inputs.wk_files:
        run = LintRun([], [])
    else:
        cfgs = [f for f in files if f.lower().endswith(".cfg")]
        if logs and len(cfgs) > 1 and on_note is not None:
            on_note(f"the mapper log(s) given are read with each of the {len(cfgs)} cfgs linted; "
                    "give only the cfg the log belongs to")
        if settings is None:
            load_settings((files or logs or inputs.wk_files)[0])  # a broken pyproject is said before any file is read
        if fix:
            run = fix_files(files, unsafe=unsafe_fixes, settings=settings, overrides=overrides, cwd=cwd, lang=lang,
                            provider=provider, mapper_logs=logs, net_trees=inputs.net_trees,
                            wk_files=inputs.wk_files, named_wk=inputs.named_wk)
        else:
            run = lint_files(files, settings=settings, overrides=overrides, provider=provider, cwd=cwd, lang=lang,
                             mapper_logs=logs, net_trees=inputs.net_trees, wk_files=inputs.wk_files,
                             named_wk=inputs.named_wk)
        run.files = files
        for note in run.wk_notes:
            if on_note is not None:
                on_note(note)
    for lone in inputs.lone_logs:  # a folder's log that no cfg of it reads: on its own
        alone = lint_files([], settings=settings, overrides=overrides, provider=provider, cwd=cwd, lang=lang,
                           mapper_logs=[lone])
        run.diagnostics = sorted([*run.diagnostics, *alone.diagnostics], key=lambda d: d.sort_key())
        logs = [*logs, lone]
    run.mapper_logs = logs
    run.wk_files = list(inputs.wk_files)
    run.notes = list(inputs.notes) + list(getattr(run, "wk_notes", []))
    run.refused = list(inputs.refused)
    run.provider = provider
    return run


def _overlay(provider: SourceProvider | None) -> Overlay:
    """An :class:`Overlay` holding `provider`'s unsaved texts (a plain disk provider has none)."""
    overlay = Overlay()
    if isinstance(provider, DiskProvider):
        overlay.overlay.update(provider.overlay)
    return overlay

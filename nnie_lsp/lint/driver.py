"""The lint machinery behind :func:`nnie_lsp.lint.lint` (the one entry):

- :func:`lint_project` -- the selected rules over one project, then severities, ignores and
  suppressions (a rule that raises becomes one NN000 diagnostic and a log record, never a crash);
- :func:`discover_inputs` (:func:`lintable_files`: its files only) -- files and folders as given
  on a command line, expanded to the files to lint, the mapper logs among them and notes;
- :func:`lint_files` -- each file once, a prototxt with the cfg in the set that names it;
  :func:`fix_files` -- fix loops in memory; :func:`write_atomic` -- writing the fixes.
"""

from __future__ import annotations

import os
from typing import Callable, Iterable

from nnie_lsp.core import safe_io
from nnie_lsp.readers.card import CARD_FILE
from nnie_lsp.core.diagnostics import Diagnostic, Fix, Severity, non_overlapping_fixes
from nnie_lsp.project.project import DiskProvider, Project, cfgs_naming, load_project, project_for_file
from nnie_lsp.core.catalogue import known_codes, rules_for
from nnie_lsp.rules.context import RuleContext
from nnie_lsp.rules.meta import internal_error, not_linted
from nnie_lsp.core.registry import CARD, CFG, WK
from nnie_lsp.core.records import NamedTuple
from nnie_lsp.project.settings import LintSettings, load_settings
from nnie_lsp.rules.suppress import apply_suppressions, parse_directives
from nnie_lsp.core.text import Decoded, apply_edits, decode, encode

SKIP_DIRS = {".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".tox", ".e2e",
             "build", "dist", ".mypy_cache", ".pytest_cache"}


# ------------------------------------------------------------------ the rules over one project

class LintOutcome(NamedTuple):
    diagnostics: list[Diagnostic]
    errors: list[str] | tuple[str, ...] = ()   # internal errors (already logged)


def project_parts(project: Project) -> frozenset[str]:
    """What the project holds, in :data:`nnie_lsp.core.registry.NEEDS` terms."""
    parts = {CFG} if project.cfg is not None else set()
    if project.wk is not None:
        parts.add(WK)
    if project.card is not None:
        parts.add(CARD)
    return frozenset(parts)


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
            raw.append(internal_error(r.code, exc, project.prototxt_path or project.cfg_path or "<input>", lang))
    # a file given to lint (not one a cfg names: NN006 reports those) that was not read
    raw += [not_linted(u.problem, u.problem.path, lang) for u in project.unreadable if u.ref is None]
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


# ------------------------------------------------------------------ paths to files

class InputError(Exception):
    """A path or input the user gave cannot be used (message is for the user)."""


# The two result holders below are filled in place, so they are plain classes: neither a
# NamedTuple (immutable) nor a dataclass (defining one costs about 0.3 ms at nnie-lint's start-up,
# and importing the dataclasses module about 4 ms; see benchmarks/bench_startup.py).

class Inputs:
    """What the paths on a command line are: files to lint, mapper output to read with them
    (logs, ``cnn_net_tree.dot`` files) and notes for the user about files that are not linted."""

    def __init__(self) -> None:
        self.files: list[str] = []
        self.mapper_logs: list[str] = []
        self.net_trees: list[str] = []
        self.wk_files: list[str] = []   # compiled models (.wk): read with their cfg, or linted on their own
        self.named_wk: list[str] = []   # those named on the command line (not found in a folder)
        self.notes: list[str] = []
        #: files named on the command line that should be linted and could not be (too big, not
        #: readable, binary or UTF-16 under a cfg's or net's name): errors, never skipped
        self.refused: list[str] = []
        #: mapper logs met in a folder walk that no cfg of the walk reads: each read on its own
        self.lone_logs: list[str] = []


def lintable_files(paths: list[str]) -> list[str]:
    """The files to lint among `paths`: given files as they are; folders searched for mapper cfgs
    and prototxts (:func:`discover_inputs`)."""
    return discover_inputs(paths).files


def discover_inputs(paths: list[str]) -> Inputs:
    """Files to lint and the mapper output given among them, each file told by its content
    (:mod:`nnie_lsp.readers.file_kinds`).

    Folders are searched for nets (``*.prototxt`` that are not Caffe solver files; ``*.pt`` and
    ``*.pbtxt`` that hold a net's fields) and NNIE mapper ``*.cfg`` files; mapper logs and dot
    files in folders are not files to lint (a project reads those beside its cfg).  A given file is
    linted when it is a net or a mapper cfg; a ``.cfg`` that is not a mapper cfg (setup.cfg and
    friends, which pre-commit passes) is skipped; a mapper log is read with the projects, like
    ``--mapper-log``; a ``cnn_net_tree.dot`` is read as the net tree of the cfgs linted with it;
    a ``.wk`` (in a folder too) is read as the compiled model of the cfg given with it, else linted
    on its own (:func:`lint_files`); every other file (solver, ``RUNTIME.txt``, dumps, image lists,
    binary data, other text) is skipped with a note saying what it is."""
    from nnie_lsp.readers import file_kinds

    found = Inputs()
    trees: list[str] = []
    walked_logs: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
                for f in sorted(files):
                    low = f.lower()
                    if low.endswith(".wk"):
                        full = os.path.join(root, f)
                        if not _not_readable(full, found):
                            found.wk_files.append(full)
                        continue
                    if f == CARD_FILE:   # a model card is linted as one (NN120)
                        full = os.path.join(root, f)
                        if not _not_readable(full, found):
                            found.files.append(full)
                        continue
                    if low.endswith(".log"):
                        walked_logs.append(os.path.join(root, f))
                        continue
                    if not low.endswith(file_kinds.NET_EXTENSIONS + (".cfg",)):
                        continue
                    full = os.path.join(root, f)
                    if _not_readable(full, found):
                        continue
                    if file_kinds.kind_of(full, named=False) in (file_kinds.NET, file_kinds.MAPPER_CFG):
                        found.files.append(full)
        elif os.path.isfile(p):
            if _not_readable(p, found, named=True):
                continue
            if os.path.basename(p) == CARD_FILE:
                found.files.append(p)
                continue
            kind = file_kinds.kind_of(p)
            if kind in (file_kinds.BINARY, file_kinds.UTF16) and p.lower().endswith(
                    file_kinds.NET_EXTENSIONS + (".cfg",)):
                found.refused.append(file_kinds.refused_note(p, kind))
            elif kind in (file_kinds.NET, file_kinds.MAPPER_CFG):
                found.files.append(p)
            elif kind == file_kinds.MAPPER_LOG:
                found.mapper_logs.append(os.path.abspath(p))
            elif kind == file_kinds.NET_TREE:
                trees.append(p)
            elif kind == file_kinds.WK:
                found.wk_files.append(p)
                found.named_wk.append(p)
            elif kind != file_kinds.OTHER_CFG:  # setup.cfg and friends: not ours, said nothing of
                found.notes.append(file_kinds.not_linted_note(p, kind))
        else:  # not a folder or regular file: missing, a FIFO, a device, a socket, a link loop
            problem = safe_io.check_file(p)
            if problem is None or problem.reason == "missing":
                raise InputError(f"{p}: no such file or directory")
            found.notes.append(f"{p}: not linted: {problem.describe()}")
    seen = set()
    uniq = []
    for f in found.files:
        a = os.path.abspath(f)
        if a not in seen:
            seen.add(a)
            uniq.append(a)
    found.files = uniq
    found.lone_logs = _lone_logs(walked_logs, uniq)
    with_cfg = any(f.lower().endswith(".cfg") for f in uniq)
    for tree in trees:
        found.notes.append(file_kinds.not_linted_note(tree, file_kinds.NET_TREE, with_cfg=with_cfg))
        if with_cfg:
            found.net_trees.append(os.path.abspath(tree))
    return found


def _lone_logs(logs: list[str], files: list[str]) -> list[str]:
    """The logs of a folder walk in folders without a mapper cfg: each is read on its own, as
    ``nnie-lint mapper_error.log`` reads it -- a folder never skips a log the file mode reads.  A
    folder with a cfg is that cfg's project: it reads its ``mapper_debug.log`` /
    ``mapper_error.log`` (:mod:`nnie_lsp.readers.mapper.output_files`), and another log there (a saved
    console of the same run) would only repeat them."""
    from nnie_lsp.readers import file_kinds

    cfg_dirs = {os.path.dirname(f) for f in files if f.lower().endswith(".cfg")}
    out = []
    for log in logs:
        full = os.path.abspath(log)
        if os.path.dirname(full) in cfg_dirs:
            continue
        if safe_io.check_file(full, safe_io.LOG) is None and file_kinds.kind_of(full, named=False) == file_kinds.MAPPER_LOG:
            out.append(full)
    return out


def given_mapper_logs(paths: list[str], on_note: Callable[[str], None] | None = None) -> list[str]:
    """Mapper logs given by name (``--mapper-log``), checked: each must be a readable file
    (:class:`InputError`); `on_note` is told of one that holds nothing a mapper writes."""
    out = []
    for path in paths:
        from nnie_lsp.readers.mapper.log_lines import looks_like_mapper_log

        problem = safe_io.check_file(path, safe_io.LOG)
        if problem is not None:
            raise InputError(f"--mapper-log {problem.message}")
        head = decode(safe_io.read_head(path, 1 << 16, safe_io.LOG)).text
        if not looks_like_mapper_log(head) and on_note is not None:
            on_note(f"--mapper-log {path}: no 'Mapper Version' line, ERROR/WARNING block or RuyiStudio "
                    "line in it: nothing to read")
        out.append(os.path.abspath(path))
    return out


def _not_readable(path: str, found: Inputs, *, named: bool = False) -> bool:
    """A path that is not linted (not a regular file, past the size bound, a link loop, no
    permission: :mod:`nnie_lsp.core.safe_io`), with a note saying why -- an error (``refused``) when
    the user ``named`` the file."""
    problem = safe_io.check_file(path, safe_io.kind_for_path(path))
    if problem is not None:
        (found.refused if named else found.notes).append(f"{path}: could not be linted: {problem.describe()}"
                                                         if named else f"{path}: not linted: {problem.describe()}")
    return problem is not None


class LintRun:
    """What a lint found: ``diagnostics`` and the ``internal_errors`` of crashed rules (already
    NN000 diagnostics); the ``files`` linted; with fixes, the changed texts (``fixed``: path ->
    (old, new)), how many fixes were ``applied`` and the files each edits (``fix_paths``).  From
    :func:`nnie_lsp.lint.lint` also: the ``project`` of one file or project, the ``mapper_logs``
    read, ``notes`` for the user about paths not linted, and the ``provider`` the texts were read
    from (how each file was encoded, the digest of its bytes with fixes)."""

    def __init__(self, diagnostics: list[Diagnostic], files: list[str], *,
                 internal_errors: list[str] | None = None, project: Project | None = None) -> None:
        self.diagnostics = diagnostics
        self.files = files
        self.fixed: dict[str, tuple[str, str]] = {}   # path -> (old text, new text)
        self.applied = 0
        self.fix_paths: list[frozenset[str]] = []     # the files each applied fix edits
        self.internal_errors: list[str] = internal_errors if internal_errors is not None else []
        self.project = project
        self.mapper_logs: list[str] = []
        self.notes: list[str] = []
        self.refused: list[str] = []  # files named that could not be linted (errors: exit 2)
        self.provider: Overlay | DiskProvider | None = None
        self.checked: list[str] = list(files)  # every file whose findings were reported
        self.wk_notes: list[str] = []  # one line per .wk read: what it is, and with which cfg

    def __repr__(self) -> str:
        return (f"LintRun({len(self.diagnostics)} diagnostics, {len(self.files)} files, "
                f"{len(self.fixed)} fixed, {self.applied} applied)")


class Overlay(DiskProvider):
    """Disk plus in-memory texts, remembering how each real file was encoded.

    One run sees one state of the disk: a text file is read once, and every later read of it in
    the run (each pass of the fix loop, each project naming it) gets that same text, so no fix is
    ever computed on one version of a file and applied to another.  With ``track_digests`` (set
    for ``--fix``) the :func:`~nnie_lsp.core.atomic_write.digest` of the bytes read is kept too
    (``digests``): a fixed file is written only while it is still those bytes
    (:mod:`nnie_lsp.lint.fix_writes`)."""

    def __init__(self, *, track_digests: bool = False) -> None:
        super().__init__({})
        self.decoded: dict[str, Decoded] = {}
        self.digests: dict[str, str] = {}
        self.track_digests = track_digests

    def read_text(self, path: str, kind: str | None = None) -> Decoded | None:
        path = os.path.abspath(path)
        orig = self.decoded.get(path)
        if path in self.overlay:
            return Decoded(self.overlay[path], orig.encoding if orig else "utf-8",
                           orig.bom if orig else False, orig.newline if orig else "\n")
        if orig is not None:
            return orig
        data = self.read_bytes(path, kind)
        if data is None:
            return None
        dec = self.decoded[path] = decode(data)
        if self.track_digests:
            from nnie_lsp.core.atomic_write import digest

            self.digests[path] = digest(data)
        return dec


def _settings_for(path: str, base: LintSettings | None, overrides: dict) -> LintSettings:
    s = load_settings(path, base) if base is None or base.origin is None else base
    return s.merged(**overrides)


def _with_logs(project: Project, mapper_logs: tuple[str, ...], provider) -> Project:
    if not mapper_logs:
        return project
    from nnie_lsp.readers.mapper.output_files import with_given_logs

    return with_given_logs(project, mapper_logs, provider)


def log_paths(project: Project) -> tuple[str, ...]:
    """The mapper logs a project read (none without a cfg or given logs: nothing to import)."""
    if not project.mapper_logs:
        return ()
    from nnie_lsp.readers.mapper.output_files import log_paths as found_log_paths

    return found_log_paths(project)


def _with_trees(project: Project, net_trees: tuple[str, ...], provider) -> Project:
    """A cfg's project reading the first ``cnn_net_tree.dot`` given instead of the one beside it."""
    if not net_trees or project.cfg is None:
        return project
    from nnie_lsp.readers.mapper.nettree import parse_net_tree

    decoded = provider.read_text(net_trees[0], safe_io.DOT)
    if decoded is None:
        return project
    tree = parse_net_tree(decoded.text, net_trees[0])
    return project._replace(net_tree=tree) if tree.nodes else project


def _with_wk(project: Project, wk_files: tuple[str, ...]) -> Project:
    """A cfg's project reading the first `.wk` given with it instead of its [instruction_name].wk."""
    if not wk_files or project.cfg is None:
        return project
    from nnie_lsp.readers.mapper.wk_files import given_wk

    sources = (project.cfg_path, project.prototxt_path,
               next((r.resolved for r in project.refs if r.entry.key == "caffemodel_file" and r.resolved), None))
    entry = project.config.instruction_entry if project.config is not None else None
    return project._replace(wk=given_wk(wk_files[0], entry, sources))


def _lint_wk_files(run_diags: list[Diagnostic], errors: list[str], wk_files: tuple[str, ...],
                   read_by: dict[str, str], settings: LintSettings | None, overrides: dict,
                   lang: str | None) -> list[str]:
    """Each `.wk` not read by a cfg's project is linted on its own (its findings homed on it);
    returns one line per `.wk` saying what it is and where it was read."""
    if not wk_files:
        return []
    from nnie_lsp.readers import file_kinds
    from nnie_lsp.readers.mapper.wk_files import given_wk

    notes = []
    for shown in wk_files:
        path = os.path.abspath(shown)
        if path in read_by:
            notes.append(file_kinds.wk_note(shown, cfg=read_by[path]))
            continue
        notes.append(file_kinds.wk_note(shown))
        project = Project(settings=_settings_for(path, settings, overrides), wk=given_wk(path))
        out = lint_project(project, lang=lang, paths=[path])
        run_diags.extend(out.diagnostics)
        errors.extend(out.errors)
    return notes


def project_homes(project: Project) -> set[str]:
    """The files a cfg stands for: the cfg, its prototxt, the image lists and mean files it names,
    and the mapper logs the project read (findings homed in any of them are the cfg's)."""
    homes = {p for p in (project.cfg_path, project.prototxt_path) if p}
    homes.update(os.path.abspath(r.resolved) for r in project.refs
                 if r.resolved and r.entry.key in ("image_list", "mean_file"))
    homes.update(log_paths(project))
    if project.card is not None:   # the card's problems (of this cfg's entry) are the cfg's too
        homes.add(os.path.abspath(project.card.card_path))
    return homes


def lint_files(files: list[str], *, settings: LintSettings | None = None, overrides: dict | None = None,
               provider: Overlay | None = None, cwd: str | None = None, lang: str | None = None,
               mapper_logs: tuple[str, ...] | list[str] = (), net_trees: tuple[str, ...] | list[str] = (),
               wk_files: tuple[str, ...] | list[str] = (), named_wk: tuple[str, ...] | list[str] = ()) -> LintRun:
    """Lint each file once; a cfg stands for its project: the findings of its prototxt, image
    lists, mean files and mapper logs are reported with it (:func:`project_homes`).  A prototxt
    named by a cfg in the set is linted with that cfg.

    A cfg's project reads the mapper log and ``cnn_net_tree.dot`` beside it
    (:mod:`nnie_lsp.readers.mapper.output_files`), or the ``mapper_logs`` / ``net_trees`` given instead
    (every project of the run reads them); findings homed in a log are reported with the cfg, or
    with any file when the logs were given.  Logs given without any file to lint are read on
    their own: every finding stays on the log.  ``wk_files``: the `.wk` files to read; one of them
    ``named_wk`` (named on the command line) with cfgs is their compiled model instead of their
    ``[instruction_name]``.wk; a `.wk` no project read is linted on its own (``run.wk_notes`` says
    what each is).
    ``run.checked`` lists every file whose findings were reported."""
    provider = provider or Overlay()
    mapper_logs = tuple(os.path.abspath(p) for p in mapper_logs)
    net_trees = tuple(os.path.abspath(p) for p in net_trees)
    wk_files = tuple(wk_files)
    overrides = overrides or {}
    wanted = [os.path.abspath(f) for f in files]
    named = tuple(os.path.abspath(p) for p in named_wk)
    given_wk = named if any(f.lower().endswith(".cfg") for f in wanted) and len(named) == 1 else ()
    read_by: dict[str, str] = {}
    wanted_set = set(wanted)
    diags: list[Diagnostic] = []
    errors: list[str] = []
    covered: set[str] = set()
    for f in wanted:
        if f in covered:
            continue
        st = _settings_for(f, settings, overrides)
        is_cfg = f.lower().endswith(".cfg")
        if not is_cfg:
            # a cfg in the set that names this prototxt lints it together with the cfg
            naming = [c for c in cfgs_naming(f, provider, cwd) if c in wanted_set]
            if naming and naming[0] not in covered:
                continue  # will be covered when that cfg is linted (it comes in the list)
        project = _with_logs(project_for_file(f, settings=st, provider=provider, cwd=cwd, is_cfg=is_cfg),
                             mapper_logs, provider)
        project = _with_trees(project, net_trees, provider)
        project = _with_wk(project, given_wk)
        if project.wk is not None:
            read_by.setdefault(project.wk.path, f)
        homes = {f}
        if is_cfg:
            homes |= project_homes(project)
        elif mapper_logs:
            homes.update(log_paths(project))
        out = lint_project(project, lang=lang, paths=sorted(homes))
        covered |= homes
        diags.extend(out.diagnostics)
        errors.extend(out.errors)
    # prototxts skipped above because a cfg would cover them, but the cfg did not load them
    for f in wanted:
        if f not in covered:
            st = _settings_for(f, settings, overrides)
            project = _with_logs(project_for_file(f, settings=st, provider=provider, cwd=cwd), mapper_logs, provider)
            out = lint_project(project, lang=lang, paths=[f, *log_paths(project)] if mapper_logs else [f])
            diags.extend(out.diagnostics)
            errors.extend(out.errors)
    if mapper_logs and not wanted:
        st = _settings_for(mapper_logs[0], settings, overrides)
        project = _with_logs(load_project(settings=st, provider=provider, cwd=cwd), mapper_logs, provider)
        out = lint_project(project, lang=lang, paths=log_paths(project))
        diags.extend(out.diagnostics)
        errors.extend(out.errors)
    wk_notes = _lint_wk_files(diags, errors, wk_files, read_by, settings, overrides, lang)
    uniq = {}
    for d in diags:
        uniq.setdefault((d.path, d.code, d.range, d.message), d)
    run = LintRun(sorted(uniq.values(), key=Diagnostic.sort_key), wanted, internal_errors=errors)
    run.provider = provider
    run.checked = sorted(covered | set(wanted))
    run.wk_notes = wk_notes
    return run


def choose_fixes(diags: list[Diagnostic], unsafe: bool) -> list[Fix]:
    """Non-overlapping fixes, first come first served (the rest wait for the next pass)."""
    return non_overlapping_fixes(d.fix for d in diags
                                 if d.fix is not None and (d.fix.is_safe or unsafe))


def fix_files(files: list[str], *, unsafe: bool = False, settings: LintSettings | None = None,
              overrides: dict | None = None, cwd: str | None = None, lang: str | None = None,
              max_passes: int = 10, provider: Overlay | None = None,
              mapper_logs: tuple[str, ...] | list[str] = (), net_trees: tuple[str, ...] | list[str] = (),
              wk_files: tuple[str, ...] | list[str] = (), named_wk: tuple[str, ...] | list[str] = ()) -> LintRun:
    """Apply fixes in memory until none apply; returns the final lint and the changed texts."""
    provider = provider or Overlay(track_digests=True)
    originals: dict[str, str] = {}
    applied = 0
    touched: list[frozenset[str]] = []
    for _ in range(max_passes):
        res = lint_files(files, settings=settings, overrides=overrides, provider=provider, cwd=cwd, lang=lang,
                         mapper_logs=mapper_logs, net_trees=net_trees, wk_files=wk_files, named_wk=named_wk)
        fixes = choose_fixes(res.diagnostics, unsafe)
        if not fixes:
            break
        by_path: dict[str, list] = {}
        for f in fixes:
            for fe in f.edits:
                by_path.setdefault(os.path.abspath(fe.path), []).append(fe.edit)
            touched.append(frozenset(os.path.abspath(fe.path) for fe in f.edits))
        changed = False
        for path, edits in by_path.items():
            dec = provider.read_text(path)
            if dec is None and not _creates(path, edits):
                continue
            text = dec.text if dec is not None else ""   # a fix that creates the file (a new channel-mean file)
            originals.setdefault(path, text)
            new = apply_edits(text, edits)
            if new != text:
                provider.overlay[path] = new
                changed = True
        applied += len(fixes)
        if not changed:
            break
    res = lint_files(files, settings=settings, overrides=overrides, provider=provider, cwd=cwd, lang=lang,
                     mapper_logs=mapper_logs, net_trees=net_trees, wk_files=wk_files, named_wk=named_wk)
    res.fixed = {p: (originals[p], provider.overlay[p]) for p in originals if provider.overlay.get(p) != originals[p]}
    res.applied = applied
    res.fix_paths = touched
    return res


def _creates(path: str, edits) -> bool:
    """Edits that create `path`: it does not exist and they insert at 1:1 (``fixes.write_whole_file``
    of a missing file)."""
    from nnie_lsp.core.text import Position

    start = Position(0, 0)
    return (not os.path.lexists(path) and len(edits) == 1
            and edits[0].range.start == start and edits[0].range.end == start)


def write_atomic(path: str, text: str, decoded: Decoded | None) -> None:
    """Write text with the file's original encoding and BOM (line endings are in ``text``, as
    the fixes keep them), atomically: temp file in the same folder, fsync, rename
    (:mod:`nnie_lsp.core.atomic_write`).  A linked file is written through the link, which stays."""
    from nnie_lsp.core import atomic_write  # only for --fix (start-up: it imports tempfile's randomness)

    enc = decoded.encoding if decoded else "utf-8"
    bom = decoded.bom if decoded else False
    atomic_write.write_bytes(path, encode(text, enc, bom), follow_symlinks=True)


def counts(diags: list[Diagnostic]) -> dict[str, int]:
    out = {"error": 0, "warning": 0, "info": 0, "hint": 0}
    for d in diags:
        out[d.severity.label] += 1
    return out


def failing(diags: list[Diagnostic]) -> list[Diagnostic]:
    """Findings that make the exit code 1 (errors and warnings; info/hints are advice)."""
    return [d for d in diags if d.severity <= Severity.WARNING]

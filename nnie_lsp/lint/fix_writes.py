"""Writing fixes to the user's files: only onto the exact text they were computed for.

``nnie-lint --fix`` (also with ``--unsafe-fixes``) computes its fixes in memory on one read of
every file (:class:`~nnie_lsp.lint.driver.Overlay` pins that read and keeps the digest of its
bytes).  :func:`write_fixes` then writes each changed file by compare-and-swap
(:func:`nnie_lsp.core.atomic_write.write_bytes` with ``expect``): the file is replaced only while it
still holds the bytes that were read, checked after the new content is on disk and just before
the rename.  A file that changed meanwhile (the user's editor saved it) is left as it is.

- Files that one fix edits together (a fix spanning a cfg and its prototxt) are written as a
  group: all are checked first, and when one of them cannot be written the others of the group
  are not written either (or are put back, when the failure came after they were written), so no
  fix is ever half applied.
- :func:`write_with_retry` lints a changed file again and writes its fixes onto the new text,
  once; a file that changes again is left as it is and said so (exit status 2).
- A file the user made read-only is not replaced (replacing a file needs only the folder's
  permission, but a read-only file says "do not change me"; also to root).
- Only what was written is reported: :attr:`WriteReport.fixes_written` counts the fixes whose every
  file was written, and after any file was left as it was the findings shown are those of a
  fresh lint of the disk (the text that is there), not of the fixed text that was not written.

The triage's fixes travel as the same :class:`~nnie_lsp.core.diagnostics.Fix` objects and are written
the same way (:func:`apply_fixes`: onto the text the run read, when it is known); the editor's path is ``workspace/applyEdit`` with the document
versions the edits were computed for (:func:`nnie_lsp.server.convert.workspace_edit`).
"""

from __future__ import annotations

import os
from typing import Callable, Iterable, Mapping, Sequence

from nnie_lsp.core import atomic_write
from nnie_lsp.core.diagnostics import Fix
from nnie_lsp.core.text import Decoded, apply_edits, decode, encode

__all__ = ["WriteReport", "apply_fixes", "write_fixes", "write_texts", "write_with_retry", "FixOutcome"]


class WriteReport:
    """What :func:`write_fixes` did: the files ``written``, those that ``changed`` on disk since
    they were read (path -> how: changed, removed, appeared), those that ``failed`` for another
    reason (path -> the system's words), those ``held`` back because a fix edits them together
    with a file that was not written (path -> that file), and how many fixes were written."""

    def __init__(self) -> None:
        self.written: list[str] = []
        self.changed: dict[str, str] = {}
        self.failed: dict[str, str] = {}
        self.held: dict[str, str] = {}
        self.fixes_written = 0

    @property
    def not_written(self) -> list[str]:
        return sorted({*self.changed, *self.failed, *self.held})

    def merge(self, later: WriteReport) -> None:
        """A retry's report over this one: its outcome wins for the files it wrote again."""
        for path in later.written:
            self.changed.pop(path, None)
            self.held.pop(path, None)
            self.failed.pop(path, None)
        self.written += later.written
        self.changed.update(later.changed)
        self.failed.update(later.failed)
        self.held.update(later.held)
        self.fixes_written += later.fixes_written


def _groups(paths: Iterable[str], fix_paths: list[frozenset[str]]) -> list[list[str]]:
    """The changed files, in groups that fixes edit together (connected components)."""
    parent = {p: p for p in paths}

    def root(p: str) -> str:
        while parent[p] != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    for touched in fix_paths:
        members = [p for p in touched if p in parent]
        for other in members[1:]:
            parent[root(other)] = root(members[0])
    groups: dict[str, list[str]] = {}
    for p in sorted(parent):
        groups.setdefault(root(p), []).append(p)
    return list(groups.values())


def _read_only(path: str) -> bool:
    """Not writable by us, or with no write permission for anyone (also when we are root, who may
    write anything: the mode is the user's word)."""
    target = os.path.realpath(path)
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return False
    return not os.access(target, os.W_OK) or not mode & 0o222


def write_texts(texts: dict[str, tuple[str, str]], decoded: dict[str, Decoded], digests: dict[str, str],
                fix_paths: list[frozenset[str]], *, only: Iterable[str] | None = None) -> WriteReport:
    """Write ``texts`` (path -> (old text, new text)) by compare-and-swap against ``digests``
    (path -> digest of the bytes read, :data:`~nnie_lsp.core.atomic_write.ABSENT` for a file a fix
    creates), each in its encoding and BOM (``decoded``), group by group (module doc).  ``only``:
    write just these files (and the files fixes edit together with them)."""
    report = WriteReport()
    wanted = set(only) if only is not None else None
    for group in _groups(texts, fix_paths):
        if wanted is not None and not wanted.intersection(group):
            continue
        _write_group(group, texts, decoded, digests, report)
    ok = set(report.written) | (set().union(*fix_paths) - set(texts) if fix_paths else set())
    report.fixes_written = sum(1 for touched in fix_paths if touched <= ok and touched & set(report.written))
    return report


def _write_group(group: list[str], texts, decoded, digests, report: WriteReport) -> None:
    def hold(reason_path: str) -> None:
        for other in group:
            if other != reason_path and other not in report.changed and other not in report.failed:
                report.held[other] = reason_path

    for path in group:   # everything checked before anything is written
        expect = digests.get(path)
        if _read_only(path):
            report.failed[path] = "the file is read-only"
        elif expect is not None:
            try:
                now = atomic_write.current_digest(path)
            except OSError as exc:
                report.failed[path] = exc.strerror or str(exc)
                continue
            if now != expect:
                report.changed[path] = ("removed" if now == atomic_write.ABSENT else
                                        "appeared" if expect == atomic_write.ABSENT else "changed")
    bad = [p for p in group if p in report.changed or p in report.failed]
    if bad:
        hold(bad[0])
        return
    done: list[tuple[str, bytes]] = []
    for path in group:
        old, new = texts[path]
        dec = decoded.get(path)
        enc, bom = (dec.encoding, dec.bom) if dec is not None else ("utf-8", False)
        data = encode(new, enc, bom)
        try:
            atomic_write.write_bytes(path, data, follow_symlinks=True, expect=digests.get(path))
        except atomic_write.ContentChanged as exc:
            report.changed[path] = exc.how
        except OSError as exc:
            report.failed[path] = exc.strerror or str(exc)
        else:
            done.append((path, data))
            continue
        _put_back(done, texts, decoded, digests, report)
        hold(path)
        return
    report.written += [path for path, _data in done]


def _put_back(done: list[tuple[str, bytes]], texts, decoded, digests, report: WriteReport) -> None:
    """Restore the files of a group written before one of them failed (each only while it still
    holds what was written, and only when the old bytes are known exactly)."""
    for path, data in done:
        old, _new = texts[path]
        dec = decoded.get(path)
        enc, bom = (dec.encoding, dec.bom) if dec is not None else ("utf-8", False)
        before = encode(old, enc, bom)
        if digests.get(path) == atomic_write.ABSENT:
            try:
                if atomic_write.current_digest(path) == atomic_write.digest(data):
                    os.unlink(path)
                    continue
            except OSError:
                pass
        elif atomic_write.digest(before) == digests.get(path):
            try:
                atomic_write.write_bytes(path, before, follow_symlinks=True, expect=atomic_write.digest(data))
                continue
            except OSError:
                pass
        report.written.append(path)   # could not be put back: it holds the fixes, say so


def apply_fixes(fixes: Sequence[Fix], texts: Mapping[str, str] | None = None) -> WriteReport:
    """Apply `fixes` (non-overlapping: :func:`nnie_lsp.lint.driver.choose_fixes`; the triage's
    findings carry such fixes) to the files on disk, by compare-and-swap.  `texts` maps paths to
    the text the fixes were computed for (a stored triage result's texts): a file whose text on
    disk is another is not written (``changed``), nor the files a fix edits together with it.
    Without `texts` the text read now is the base, and its digest guards the write.  A file a fix
    creates (an edit at 1:1 of a missing file) must still be missing when it is written."""
    from nnie_lsp.core import safe_io

    by_path: dict[str, list] = {}
    for fix in fixes:
        for file_edit in fix.edits:
            by_path.setdefault(os.path.abspath(file_edit.path), []).append(file_edit.edit)
    contents: dict[str, tuple[str, str]] = {}
    decoded: dict[str, Decoded] = {}
    digests: dict[str, str] = {}
    report = WriteReport()
    for path, edits in by_path.items():
        try:
            data = safe_io.read_bytes(path)
        except safe_io.FileReadError as exc:
            if exc.problem.reason != "missing":
                report.failed[path] = exc.problem.describe()
                continue
            data = None
        if data is None:
            base, digests[path] = "", atomic_write.ABSENT
        else:
            dec = decoded[path] = decode(data)
            base, digests[path] = dec.text, atomic_write.digest(data)
        if texts is not None and path in texts and texts[path] != base:
            report.changed[path] = "changed"
            continue
        contents[path] = (base, apply_edits(base, edits))
    fix_paths = [frozenset(os.path.abspath(fe.path) for fe in fix.edits) for fix in fixes]
    blocked = set(report.changed) | set(report.failed)
    for group in _groups(by_path, fix_paths):
        if blocked.intersection(group):
            cause = sorted(blocked.intersection(group))[0]
            for path in group:
                if path not in blocked:
                    report.held[path] = cause
                    contents.pop(path, None)
    written = write_texts(contents, decoded, digests, fix_paths)
    written.changed.update(report.changed)
    written.failed.update(report.failed)
    written.held.update(report.held)
    return written


def write_fixes(run, *, skip: Iterable[str] = (), only: Iterable[str] | None = None) -> WriteReport:
    """Write a fix run's changed files (:func:`nnie_lsp.lint.driver.fix_files`; ``skip``: files not
    to write, such as a text read from stdin)."""
    skipped = {os.path.abspath(p) for p in skip}
    texts = {p: pair for p, pair in run.fixed.items() if p not in skipped}
    provider = run.provider
    return write_texts(texts, getattr(provider, "decoded", {}), getattr(provider, "digests", {}),
                       list(getattr(run, "fix_paths", [])), only=only)


class FixOutcome:
    """The end of ``--fix``: the ``run`` whose findings describe the files as they are on disk now,
    the merged ``report``, the files ``retried`` (changed on disk, linted again) and the lines
    to tell the user (``messages``)."""

    def __init__(self, run, report: WriteReport, retried: list[str], messages: list[str]) -> None:
        self.run = run
        self.report = report
        self.retried = retried
        self.messages = messages

    @property
    def complete(self) -> bool:
        return not self.report.not_written


def write_with_retry(run, relint: Callable[[bool], object], *, skip: Iterable[str] = ()) -> FixOutcome:
    """Write ``run``'s fixes; a file that changed on disk since it was read is linted again
    (``relint(True)``: the same lint with fixes, from the disk as it is now) and its new fixes
    written, once.  When any file is left as it was, the findings returned are those of
    ``relint(False)`` (the disk as it is, no fixes)."""
    report = write_fixes(run, skip=skip)
    final = run
    first_changed = set(report.changed)
    retried = sorted({*report.changed, *report.held})
    messages: list[str] = []
    if retried:
        again = relint(True)
        second = write_fixes(again, skip=skip, only=retried)
        for path in retried:
            if path not in again.fixed:   # the new text needs no fix: nothing is left unwritten
                report.changed.pop(path, None)
                report.held.pop(path, None)
        report.merge(second)
        final = again
        for path in sorted(first_changed):
            if path in second.written or path not in again.fixed:
                messages.append(f"{path} changed on disk since it was read: linted it again"
                                + (" and wrote the fixes onto the new text" if path in second.written
                                   else "; no fix applies to the new text"))
    for path, how in sorted(report.changed.items()):
        messages.append(f"{path} {atomic_write.ContentChanged.WORDS[how]}, twice: left as it is, "
                        "no fix written to it; run --fix again once it is saved")
    for path, reason in sorted(report.failed.items()):
        messages.append(f"cannot write the fixes to {path}: {reason}; the file is unchanged")
    for path, cause in sorted(report.held.items()):
        messages.append(f"{path}: not written either: a fix edits it together with {cause}; the file is unchanged")
    if report.not_written:
        final = relint(False)
    return FixOutcome(final, report, retried, messages)

"""Where a project's files come from, and why one was not read.

:class:`DiskProvider` reads the disk through the guarded reader (:mod:`nnie_lsp.core.safe_io`), with
editor buffers (the language server's unsaved text) over it; :class:`UnreadableFile` records a file
a project needed but did not read.  Kept apart from :mod:`nnie_lsp.project.project` so that the cfg side
(:mod:`nnie_lsp.project.cfg_files`) can use it without a cycle.
"""

from __future__ import annotations

import os
from typing import Protocol, TYPE_CHECKING

from nnie_lsp.core import safe_io
from nnie_lsp.core.records import NamedTuple
from nnie_lsp.core.safe_io import FileProblem
from nnie_lsp.core.text import Decoded, decode

if TYPE_CHECKING:
    from nnie_lsp.project.cfg_files import RefFile


class SourceProvider(Protocol):
    def read_text(self, path: str, kind: str | None = None) -> Decoded | None: ...
    def read_bytes(self, path: str, kind: str | None = None) -> bytes | None: ...
    def exists(self, path: str) -> bool: ...


class DiskProvider:
    """Reads files from disk; `overlay` maps absolute paths to unsaved text (editor buffers).

    Disk reads go through the guarded reader (:mod:`nnie_lsp.core.safe_io`): regular files only, at most
    the bound for the kind of file (``kind``; guessed from the name when not given); an unsaved
    text has the bound of its file too.  A file that is
    not read gives None, and :meth:`problem` says why."""

    def __init__(self, overlay: dict[str, str] | None = None) -> None:
        self.overlay = overlay or {}
        self.problems: dict[str, FileProblem] = {}

    def read_text(self, path: str, kind: str | None = None) -> Decoded | None:
        path = os.path.abspath(path)
        if path in self.overlay:
            text = self.overlay[path]
            problem = safe_io.check_text(text, path, kind)
            if problem is not None:   # an editor's buffer has the bound of its file
                self.problems[path] = problem
                return None
            return Decoded(text, "utf-8", False, "\r\n" if "\r\n" in text[:4096] else "\n")
        data = self.read_bytes(path, kind)
        return None if data is None else decode(data)

    def read_bytes(self, path: str, kind: str | None = None) -> bytes | None:
        try:
            return safe_io.read_bytes(path, kind)
        except safe_io.FileReadError as exc:
            self.problems[os.path.abspath(path)] = exc.problem
            return None
        except OSError:
            return None

    def exists(self, path: str) -> bool:
        return os.path.abspath(path) in self.overlay or os.path.exists(path)

    def problem(self, path: str, kind: str | None = None, *, read: bool = False) -> FileProblem | None:
        """Why ``path`` was not read (``read=True``: by this provider), else why it would not be
        (regular file? within the bound for ``kind``?).  None for an editor buffer or a good file."""
        absolute = os.path.abspath(path)
        if absolute in self.overlay:
            return self.problems.get(absolute) if read else safe_io.check_text(self.overlay[absolute], absolute, kind)
        if read:
            return self.problems.get(absolute)
        return safe_io.check_file(absolute, kind, bounded=kind is not None)


def provider_problem(provider: SourceProvider, path: str, kind: str | None = None, *,
                     read: bool = False) -> FileProblem | None:
    """:meth:`DiskProvider.problem` for any provider (one without it reports nothing)."""
    ask = getattr(provider, "problem", None)
    return ask(path, kind, read=read) if ask is not None else None


class UnreadableFile(NamedTuple):
    """A file the project needed but did not read, and why (:mod:`nnie_lsp.core.safe_io`): not a
    regular file (FIFO, device, socket, folder), past the bound for its kind, a symbolic link loop
    or a dangling link, no permission.  ``ref`` is the cfg entry naming it (NN006 reports it
    there); None for the cfg or prototxt given directly."""

    ref: RefFile | None
    problem: FileProblem


def note_unreadable(unreadable: list[UnreadableFile], ref: RefFile | None, provider: SourceProvider,
                     path: str, kind: str) -> None:
    """Record why ``path`` was not read (when the provider knows)."""
    problem = provider_problem(provider, path, read=True) or provider_problem(provider, path, kind)
    if problem is not None:
        unreadable.append(UnreadableFile(ref, problem))

"""Where the files a cfg names are: the ONE path resolution of the project (lint, triage, reference).

Resolution order of a relative path written in a cfg (``[mean_file] ./mean.txt``):

1. the cfg's own folder;
2. the working directory (nnie_mapper resolves paths against the directory it runs in, which is
   usually, but not always, the cfg's folder);
3. the folders above the cfg's folder, nearest first (six at most) -- projects often keep the cfg
   in a sub-folder and write paths relative to the project root.

The first candidate that exists wins; :class:`ResolvedPath` keeps every candidate tried so a
message can say where we looked.  Absolute paths are taken as they are.  On POSIX a Windows
absolute path (``D:\\models\\a.prototxt``) cannot be checked and is marked ``foreign``; other
backslashes are read as folder separators.  The lines of an image list are resolved against the
list's folder first, then the same bases.

The functions here only ask an ``exists`` callable about the file system, so the language server
can answer from unsaved editor buffers.
"""

from __future__ import annotations

import ntpath
import os
from typing import Callable

from nnie_lsp.readers.cfg.keys import is_null_path
from nnie_lsp.core.records import FrozenRecord

Exists = Callable[[str], bool]

#: How many folders above the cfg's folder are tried (step 3 of the order).
ANCESTOR_LIMIT = 6


class ResolvedPath(FrozenRecord):
    """A path as written in the cfg and where it was found."""

    written: str                 # the value as meant (inline comment removed)
    resolved: str | None         # absolute path that exists, else None
    candidates: tuple[str, ...]  # where we looked, in order
    is_null: bool                # a "no file" placeholder such as `null` (or empty)
    foreign: bool = False        # a Windows absolute path seen on POSIX (cannot be checked here)

    @property
    def exists(self) -> bool:
        return self.resolved is not None


def is_windows_abs(path: str) -> bool:
    return bool(ntpath.splitdrive(path)[0]) or path.startswith("\\\\")


def _ancestors(folder: str, limit: int = ANCESTOR_LIMIT) -> list[str]:
    out = []
    folder = os.path.abspath(folder)
    for _ in range(limit):
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        out.append(parent)
        folder = parent
    return out


def cfg_bases(cfg_path: str | None, cwd: str) -> list[str]:
    """The folders relative cfg paths are tried against, in the documented order: the cfg's
    folder, then the working directory, then the cfg folder's ancestors (nearest first)."""
    if not cfg_path:
        return [cwd]
    folder = os.path.dirname(os.path.abspath(cfg_path))
    return [folder, cwd] + _ancestors(folder)


def resolve_path(written: str, bases: list[str], exists: Exists) -> tuple[str | None, tuple[str, ...]]:
    """Try ``written`` against each base folder in order (an absolute path as it is).
    Returns (the first candidate that exists or None, every candidate tried)."""
    path = written.strip().strip('"').strip("'")
    if os.sep == "/" and not is_windows_abs(path):
        path = path.replace("\\", "/")
    tried = []
    if os.path.isabs(path):
        tried.append(os.path.normpath(path))
    else:
        seen = set()
        for base in bases:
            candidate = os.path.normpath(os.path.join(base, path))
            if candidate not in seen:
                seen.add(candidate)
                tried.append(candidate)
    for candidate in tried:
        if exists(candidate):
            return candidate, tuple(tried)
    return None, tuple(tried)


def resolve_written(written: str, bases: list[str], exists: Exists) -> ResolvedPath:
    """A cfg path value resolved: placeholders (``null``, empty …) and Windows paths on POSIX
    are recognised and not looked up."""
    if is_null_path(written):
        return ResolvedPath(written, None, (), True)
    if os.sep == "/" and is_windows_abs(written.strip()):
        return ResolvedPath(written, None, (), False, foreign=True)
    resolved, tried = resolve_path(written, bases, exists)
    return ResolvedPath(written, resolved, tried, False)


def list_bases(list_path: str, bases: list[str]) -> list[str]:
    """Bases for the lines of a list file (image_list): the list's folder, then ``bases``."""
    return [os.path.dirname(list_path)] + list(bases)

"""Atomic file replacement: a process killed mid-write leaves the old file intact.

Every file nnie-lsp writes for the user (``nnie-lint --fix``, ``nnie-triage bundle``, the stored
triage results, dumps written by the emulation) goes through :func:`replacing` or
:func:`write_bytes`: the new content is written to a temporary file in the same folder, flushed
and ``fsync``-ed, then renamed over the target with ``os.replace`` (atomic on POSIX and Windows),
and the folder is ``fsync``-ed so the rename survives a power cut.

The temporary file is a hidden ``.<name>.<random>.nnie-tmp`` file, removed on any error.  Only a
kill (SIGKILL, power cut) before the rename can leave it behind: its name ends in ``.nnie-tmp``,
so no tool here mistakes it for a cfg, prototxt, dump or record (:func:`is_leftover`).  (Linux's
anonymous ``O_TMPFILE`` would leave nothing, but naming it needs ``linkat`` through ``/proc``,
which overlay and container file systems refuse with EXDEV.)

A new file gets the usual permissions (``0o666`` less the umask); a replaced file keeps its mode.
``follow_symlinks=True`` writes through a symbolic link to the file it names (``--fix`` on a
linked prototxt keeps the link); ``False`` replaces the link itself, so an output path that is a
link never makes nnie-lsp write where the link points (outputs, bundles, stored results).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from typing import BinaryIO, Iterator

TEMP_SUFFIX = ".nnie-tmp"


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _temporary_name(folder: str, target: str) -> str:
    return os.path.join(folder, f".{os.path.basename(target)}.{secrets.token_hex(4)}{TEMP_SUFFIX}")


def _fsync_folder(folder: str) -> None:
    try:
        handle = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return  # Windows: folders cannot be opened; the rename is durable enough there
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


@contextlib.contextmanager
def replacing(path: str, *, follow_symlinks: bool = True, mode: int | None = None) -> Iterator[BinaryIO]:
    """A binary file to write ``path``'s new content into; ``path`` is replaced when the block
    ends without an exception, and left as it was otherwise (or when the process dies)."""
    target = os.path.realpath(path) if follow_symlinks else os.path.abspath(path)
    folder = os.path.dirname(target)
    if mode is None:
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except OSError:
            mode = 0o666 & ~_umask()
    named: str | None = _temporary_name(folder, target)
    handle = os.open(named, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
                     | getattr(os, "O_BINARY", 0), 0o600)
    try:
        with os.fdopen(handle, "wb") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.chmod(named, mode)
        os.replace(named, target)
        named = None
        _fsync_folder(folder)
    finally:
        if named is not None:
            with contextlib.suppress(OSError):
                os.unlink(named)


def write_bytes(path: str, data: bytes, *, follow_symlinks: bool = True, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` atomically (see :func:`replacing`)."""
    with replacing(path, follow_symlinks=follow_symlinks, mode=mode) as out:
        view = memoryview(data)
        for start in range(0, len(view), 1 << 20):  # 1 MiB at a time
            out.write(view[start:start + (1 << 20)])


def is_leftover(name: str) -> bool:
    """A temporary file a killed writer may have left (never a user's file)."""
    return name.endswith(TEMP_SUFFIX)

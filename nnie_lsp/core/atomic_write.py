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

**Compare-and-swap** (``expect``): a fix is computed for one text of the file; if the file on disk
is no longer that text (the user's editor saved it meanwhile), replacing it would lose the user's
edit.  With ``expect`` (the :func:`digest` of the bytes the fix was computed for, or
:data:`ABSENT` for a file that must not exist yet), the file is read again and hashed after the new
content is written and flushed, just before the rename; when it differs, the temporary file is
removed, the target is left as it is and :class:`ContentChanged` is raised.  A new file is linked
into place with ``os.link``, which never replaces a file that appeared meanwhile.  The window left
between the last hash and the rename is the time of one ``rename`` call: POSIX offers no
compare-and-rename, and a process that writes the file in that window without any lock cannot be
seen by anyone.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from typing import BinaryIO, Iterator

TEMP_SUFFIX = ".nnie-tmp"
ABSENT = "absent"   # ``expect`` for a file that must not exist when it is created


class ContentChanged(OSError):
    """The file is no longer the text the new content was computed for (``expect``): not written."""

    WORDS = {"changed": "changed on disk since it was read", "removed": "was removed since it was read",
             "appeared": "was created by someone else meanwhile"}

    def __init__(self, path: str, how: str = "changed") -> None:
        super().__init__(errno.EAGAIN, self.WORDS[how], path)
        self.path = path
        self.how = how  # changed | removed | appeared


def digest(data: bytes) -> str:
    """The content hash ``expect`` compares (BLAKE2b, 128 bits)."""
    import hashlib  # only for writes that compare (nnie-lint's start-up)

    return hashlib.blake2b(data, digest_size=16).hexdigest()


def current_digest(path: str) -> str:
    """:func:`digest` of the file now at ``path`` (:data:`ABSENT` when there is none).  Read through
    the guarded reader, without a size bound of its kind: the file is one nnie-lsp is about to
    replace, so it was read once already."""
    from nnie_lsp.core import safe_io

    try:
        return digest(safe_io.read_bytes(path, safe_io.FILE, limit=1 << 40))
    except safe_io.FileReadError as exc:
        if exc.problem.reason == "missing":
            return ABSENT
        raise


def _check(target: str, expect: str | None) -> None:
    if expect is None:
        return
    now = current_digest(target)
    if now != expect:
        raise ContentChanged(target, "removed" if now == ABSENT else "appeared" if expect == ABSENT else "changed")


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
def replacing(path: str, *, follow_symlinks: bool = True, mode: int | None = None,
              expect: str | None = None) -> Iterator[BinaryIO]:
    """A binary file to write ``path``'s new content into; ``path`` is replaced when the block
    ends without an exception, and left as it was otherwise (or when the process dies).  With
    ``expect``, only while the file on disk is still the content of that digest (or absent, for
    :data:`ABSENT`): else :class:`ContentChanged` and nothing is written (module doc)."""
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
        _check(target, expect)
        if expect == ABSENT and _link_new(named, target):
            os.unlink(named)
        else:
            os.replace(named, target)
        named = None
        _fsync_folder(folder)
    finally:
        if named is not None:
            with contextlib.suppress(OSError):
                os.unlink(named)


def _link_new(named: str, target: str) -> bool:
    """Put the written temporary file at ``target`` unless a file is there (``os.link`` never
    replaces one); False where the file system has no hard links (then a rename does it)."""
    try:
        os.link(named, target)
    except FileExistsError:
        raise ContentChanged(target, "appeared") from None
    except (OSError, NotImplementedError, AttributeError):
        return False
    return True


def write_bytes(path: str, data: bytes, *, follow_symlinks: bool = True, mode: int | None = None,
                expect: str | None = None) -> None:
    """Replace ``path`` with ``data`` atomically (see :func:`replacing`; ``expect``: only while
    the file is still the content of that digest)."""
    with replacing(path, follow_symlinks=follow_symlinks, mode=mode, expect=expect) as out:
        view = memoryview(data)
        for start in range(0, len(view), 1 << 20):  # 1 MiB at a time
            out.write(view[start:start + (1 << 20)])


def is_leftover(name: str) -> bool:
    """A temporary file a killed writer may have left (never a user's file)."""
    return name.endswith(TEMP_SUFFIX)

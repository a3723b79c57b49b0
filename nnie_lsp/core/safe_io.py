"""The one guarded way nnie-lsp reads a file from disk.

Every reader of a user's file (the project's disk provider, the CLI's discovery, the mapper log
and ``cnn_net_tree.dot`` readers, the triage dump readers, the language server's disk reads)
opens files through :func:`read_bytes` / :func:`read_head`, so hostile paths behave the same
everywhere:

- **Only regular files are read.**  A FIFO (named pipe), a character or block device, a socket or
  a folder is never read: opening a FIFO for reading waits for a writer, a device such as
  ``/dev/zero`` never ends.  The file is opened with ``O_NONBLOCK`` (so opening a FIFO cannot
  wait) and checked with ``fstat`` on the open descriptor (no window between check and read).
- **What is read is bounded**, per kind of file (:data:`LIMITS`).  The bounds are far above what a
  real project holds; past one the file is not read and the message says why and what the bound
  is.  A file that grows past the bound while it is read is reported the same way.
- **Symbolic link loops, dangling links, missing files and permission errors** get a message of
  their own (:class:`FileProblem`), never a traceback.

Errors are :class:`FileReadError`, a subclass of :class:`OSError`: code that already handles
``OSError`` keeps working and gets a clear message.  :func:`check_file` asks the same questions
without reading (for files the lint only names, such as the caffemodel).

This module reads bytes only; decoding lives in :mod:`nnie_lsp.core.text` (``read_text``).
"""

from __future__ import annotations

import errno
import io
import os
import stat

from nnie_lsp.core.lang import pick
from nnie_lsp.core.records import NamedTuple

__all__ = [
    "CFG", "DOT", "DUMP", "FILE", "IMAGE_LIST", "LIMITS", "LOG", "MEAN_FILE", "PROTOTXT", "SETTINGS",
    "BoundedFile", "FileProblem", "FileReadError", "check_file", "check_text", "kind_for_path", "limit_for",
    "open_bounded", "read_bytes", "read_head", "read_stream", "size_text", "text_size",
]

MIB = 1 << 20

# kinds of file (they name the file in messages)
CFG = "cfg"
PROTOTXT = "prototxt"
IMAGE_LIST = "image list"
MEAN_FILE = "mean file"
DUMP = "dump"
LOG = "mapper log"
DOT = "dot file"
SETTINGS = "settings file"
CAFFEMODEL = "caffemodel"
WK = "compiled model (.wk)"
FILE = "file"

#: The most bytes read from one file of each kind.  A real project stays far below: cfgs are a few
#: KB, the largest prototxt in the corpus is 60 KB (a 2,000-layer net is 0.4 MB; 8 MiB is about
#: 40,000 layers and takes seconds and hundreds of MB to lint), calibration lists name 20-200 images
#: (image_type 0 lists hold float text, docs/field-facts.md §5.2), a mean image of a 1024x1024
#: input is 12 MB, a %.18e dump of 1x64x640x640 floats 680 MB; a mapper log at log_level 3 can
#: hold gigabytes (the mapper output beside a cfg is skipped past 64 MiB: mapper/discovery.py); a
#: caffemodel holds the weights (VGG-16's is 528 MB; protobuf parses no message of 2 GiB or more); a
#: `.wk` holds them quantized (VGG-16 at 8 bits is about 140 MB).
LIMITS: dict[str, int] = {
    CFG: MIB // 4,
    PROTOTXT: 8 * MIB,
    IMAGE_LIST: 64 * MIB,
    MEAN_FILE: 64 * MIB,
    DUMP: 1024 * MIB,
    LOG: 64 * MIB,
    DOT: 64 * MIB,
    SETTINGS: 4 * MIB,
    CAFFEMODEL: 2048 * MIB,
    WK: 1024 * MIB,
    FILE: 64 * MIB,
}

_KIND_ZH = {CFG: "cfg 文件", PROTOTXT: "prototxt 文件", IMAGE_LIST: "图片列表", MEAN_FILE: "均值文件",
            DUMP: "dump 文件", LOG: "mapper 日志", DOT: "dot 文件", SETTINGS: "配置文件", CAFFEMODEL: "caffemodel 文件",
            WK: "编译后的模型（.wk）",
            FILE: "文件"}

_EXTENSIONS = {".cfg": CFG, ".prototxt": PROTOTXT, ".pbtxt": PROTOTXT, ".dot": DOT, ".log": LOG,
               ".binaryproto": MEAN_FILE, ".toml": SETTINGS, ".caffemodel": CAFFEMODEL, ".wk": WK}

_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
               | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))


def kind_for_path(path: str) -> str:
    """The kind of file a name suggests (``.cfg``, ``.prototxt``, ``.dot``, ``.log``, ...);
    :data:`FILE` otherwise.  Callers that know better pass the kind themselves."""
    return _EXTENSIONS.get(os.path.splitext(str(path))[1].lower(), FILE)


def limit_for(kind: str) -> int:
    return LIMITS.get(kind, LIMITS[FILE])


def size_text(size: int) -> str:
    """A size for people: bytes, KiB or MiB (binary units, one decimal)."""
    if size >= MIB:
        return f"{size / MIB:.1f} MiB"
    if size >= 1024:
        return f"{size / 1024:.1f} KiB"
    return f"{size} bytes"


class FileProblem(NamedTuple):
    """Why a file was not read.  ``reason`` is one of: ``missing``, ``dangling-link``,
    ``symlink-loop``, ``folder``, ``fifo``, ``device``, ``socket``, ``special``, ``too-large``,
    ``permission``, ``io-error``."""

    path: str
    kind: str
    reason: str
    size: int | None = None     # too-large: the size seen
    limit: int | None = None    # too-large: the bound for the kind
    detail: str = ""            # io-error: the system's words; dangling-link: the link's target

    def describe(self, lang: str = "en") -> str:
        """The reason in words, without the path (messages put the path where they want it)."""
        size = size_text(self.size or 0)
        limit = size_text(self.limit or 0)
        if size == limit and self.size is not None:  # just past the bound: the exact numbers say it
            size, limit = f"{self.size or 0:,} bytes", f"{self.limit or 0:,} bytes"
        kind_zh = _KIND_ZH.get(self.kind, "文件")
        kind = ("an " if self.kind[:1] in "aeiou" else "a ") + self.kind
        words = {
            "missing": ("no such file", "文件不存在"),
            "dangling-link": (f"a symbolic link to a missing file ({self.detail})",
                              f"符号链接指向的文件不存在（{self.detail}）"),
            "symlink-loop": ("a symbolic link loop (the link leads back to itself): not read",
                             "符号链接形成循环：未读取"),
            "folder": ("a folder, not a file", "是文件夹，不是文件"),
            "fifo": ("a FIFO (named pipe), not a regular file: not read (reading it would wait for a writer)",
                     "是 FIFO（命名管道），不是普通文件：未读取（读取会一直等待写入方）"),
            "device": ("a device, not a regular file: not read", "是设备文件，不是普通文件：未读取"),
            "socket": ("a socket, not a regular file: not read", "是套接字，不是普通文件：未读取"),
            "special": ("not a regular file: not read", "不是普通文件：未读取"),
            "too-large": ((f"more than the {limit} nnie-lsp reads from {kind}: not read",
                           f"超过 nnie-lsp 对{kind_zh}的读取上限 {limit}：未读取") if self.size is None else
                          (f"{size}, more than the {limit} nnie-lsp reads from {kind}: not read",
                           f"大小 {size}，超过 nnie-lsp 对{kind_zh}的读取上限 {limit}：未读取")),
            "permission": ("permission denied: cannot be read", "没有读取权限"),
            "io-error": (f"cannot be read: {self.detail}", f"无法读取：{self.detail}"),
        }
        return pick(words.get(self.reason, words["io-error"]), lang)

    @property
    def message(self) -> str:
        return f"{self.path}: {self.describe()}"

    def __str__(self) -> str:
        return self.message


class FileReadError(OSError):
    """A file that was not read, with the reason (:attr:`problem`)."""

    def __init__(self, problem: FileProblem, errno_code: int | None = None) -> None:
        super().__init__(errno_code, problem.describe(), problem.path)
        self.problem = problem

    def __str__(self) -> str:
        return self.problem.message


def _mode_reason(mode: int) -> str | None:
    """None for a regular file, else the reason it is not read."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "special"


def _problem_from_error(path: str, kind: str, exc: OSError) -> FileProblem:
    code = exc.errno
    if code == errno.ELOOP:
        return FileProblem(path, kind, "symlink-loop")
    if code == errno.ENOENT:
        if os.path.islink(path):
            try:
                target = os.readlink(path)
            except OSError:
                target = "?"
            return FileProblem(path, kind, "dangling-link", detail=target)
        return FileProblem(path, kind, "missing")
    if code in (errno.EACCES, errno.EPERM):
        return FileProblem(path, kind, "permission")
    if code == errno.EISDIR:
        return FileProblem(path, kind, "folder")
    if code == errno.ENXIO:  # a socket opened as a file, or a FIFO without a writer on some systems
        return FileProblem(path, kind, "special")
    return FileProblem(path, kind, "io-error", detail=exc.strerror or type(exc).__name__)


def check_file(path: str, kind: str | None = None, *, bounded: bool = True) -> FileProblem | None:
    """Why ``path`` would not be read (None: it is a regular file within the bound for its kind),
    without opening it.  ``bounded=False`` leaves the size alone (files the lint only names, such
    as a caffemodel)."""
    path = str(path)
    kind = kind or kind_for_path(path)
    try:
        info = os.stat(path)
    except OSError as exc:
        return _problem_from_error(path, kind, exc)
    except ValueError:  # embedded NUL character in the path
        return FileProblem(path, kind, "io-error", detail="the path holds a NUL character")
    reason = _mode_reason(info.st_mode)
    if reason is not None:
        return FileProblem(path, kind, reason)
    limit = limit_for(kind)
    if bounded and info.st_size > limit:
        return FileProblem(path, kind, "too-large", size=info.st_size, limit=limit)
    if not os.access(path, os.R_OK):
        return FileProblem(path, kind, "permission")
    return None


def _open_regular(path: str, kind: str) -> tuple[int, os.stat_result]:
    """A read-only descriptor of the regular file ``path`` and its stat; FileReadError otherwise."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as exc:
        raise FileReadError(_problem_from_error(path, kind, exc), exc.errno) from None
    except ValueError:
        raise FileReadError(FileProblem(path, kind, "io-error", detail="the path holds a NUL character")) from None
    try:
        info = os.fstat(fd)
        reason = _mode_reason(info.st_mode)
        if reason is not None:
            raise FileReadError(FileProblem(path, kind, reason))
        if getattr(os, "O_NONBLOCK", 0) and hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)  # a regular file: plain reads from here on
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def _read_fd(fd: int, count: int) -> bytes:
    chunks = []
    left = count
    while left > 0:
        chunk = os.read(fd, min(left, 8 * MIB))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_bytes(path: str, kind: str | None = None, *, limit: int | None = None) -> bytes:
    """The whole content of the regular file ``path``, at most the bound for ``kind`` (default:
    guessed from the name, :func:`kind_for_path`) or ``limit``.  Raises :class:`FileReadError`
    (an ``OSError``) with a clear message for anything else."""
    path = str(path)
    kind = kind or kind_for_path(path)
    bound = limit if limit is not None else limit_for(kind)
    fd, info = _open_regular(path, kind)
    try:
        if info.st_size > bound:
            raise FileReadError(FileProblem(path, kind, "too-large", size=info.st_size, limit=bound))
        try:
            data = _read_fd(fd, bound + 1)
        except OSError as exc:
            raise FileReadError(_problem_from_error(path, kind, exc), exc.errno) from None
    finally:
        os.close(fd)
    if len(data) > bound:  # grew while we read
        raise FileReadError(FileProblem(path, kind, "too-large", size=len(data), limit=bound))
    return data


def read_head(path: str, count: int, kind: str | None = None) -> bytes:
    """The first ``count`` bytes of the regular file ``path`` (for sniffing what a file is); the
    same checks as :func:`read_bytes` except the size bound."""
    path = str(path)
    kind = kind or kind_for_path(path)
    fd, _info = _open_regular(path, kind)
    try:
        return _read_fd(fd, count)
    except OSError as exc:
        raise FileReadError(_problem_from_error(path, kind, exc), exc.errno) from None
    finally:
        os.close(fd)


def read_stream(stream, name: str, kind: str | None = None) -> bytes:
    """Everything a binary stream (standard input) holds, at most the bound for ``kind`` (default:
    guessed from ``name``, the path the text stands for): the same bound and message as a file of
    that name.  A stream past the bound is read no further (``size`` None: its size is unknown;
    a regular file redirected to stdin gives its size)."""
    kind = kind or kind_for_path(name)
    bound = limit_for(kind)
    size = None
    try:
        info = os.fstat(stream.fileno())
        if stat.S_ISREG(info.st_mode):
            size = info.st_size
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        pass
    if size is not None and size > bound:
        raise FileReadError(FileProblem(name, kind, "too-large", size=size, limit=bound))
    chunks, total = [], 0
    while total <= bound:
        chunk = stream.read(min(8 * MIB, bound + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if total > bound:
        raise FileReadError(FileProblem(name, kind, "too-large", size=size, limit=bound))
    return b"".join(chunks)


def text_size(text: str) -> int:
    """The UTF-8 size of a text (an editor's buffer), as its file would have on disk."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def check_text(text: str, name: str, kind: str | None = None) -> FileProblem | None:
    """Why an editor's buffer standing for ``name`` is not read (past the bound for ``kind``, as
    a file of that name would be), or None."""
    kind = kind or kind_for_path(name)
    bound = limit_for(kind)
    if len(text) > bound or (len(text) * 4 > bound and text_size(text) > bound):
        return FileProblem(name, kind, "too-large", size=text_size(text), limit=bound)
    return None


class BoundedFile:
    """A regular file opened by :func:`open_bounded`, read piece by piece into buffers the caller
    owns (a preallocated numpy array, a ``bytearray``): no copy of the whole file is made.  The same
    bound as :func:`read_bytes` holds while reading: a file that grows past it raises
    :class:`FileReadError`.  Use as a context manager (or call :meth:`close`)."""

    def __init__(self, path: str, kind: str, fd: int, size: int, bound: int) -> None:
        self.path, self.kind, self.size, self.bound = path, kind, size, bound
        self._raw = io.FileIO(fd, "rb", closefd=True)
        self._fd = fd
        self._read = 0  # bytes handed out by readinto (the sequential position)
        import threading  # only for the dump reader (nnie-lint's start-up does not pay for it)

        self._seek_lock = threading.Lock()

    def _past_bound(self, seen: int) -> FileReadError:
        return FileReadError(FileProblem(self.path, self.kind, "too-large", size=seen, limit=self.bound))

    def _fill(self, view: memoryview, read_once) -> int:
        done = 0
        try:
            while done < len(view):
                got = read_once(view[done:], done)
                if not got:
                    break
                done += got
        except OSError as exc:
            raise FileReadError(_problem_from_error(self.path, self.kind, exc), exc.errno) from None
        return done

    def readinto(self, buffer) -> int:
        """Fill ``buffer`` with the next bytes of the file (fewer only at its end); the count, 0 at
        the end.  FileReadError once more than the bound has been read."""
        view = memoryview(buffer).cast("B")
        done = self._fill(view, lambda part, _done: self._raw.readinto(part))
        self._read += done
        if self._read > self.bound:
            raise self._past_bound(self._read)
        return done

    def readinto_at(self, buffer, offset: int) -> int:
        """Fill ``buffer`` with the bytes at ``offset`` (fewer only at the file's end) without
        moving the sequential position; safe to call from several threads at once."""
        view = memoryview(buffer).cast("B")
        view = view[: max(0, self.bound + 1 - offset)]  # one byte past the bound tells it was passed
        if hasattr(os, "preadv"):
            done = self._fill(view, lambda part, filled: os.preadv(self._fd, [part], offset + filled))
        else:  # no positional read on this system: seek and read under a lock
            with self._seek_lock:
                here = self._raw.tell()
                try:
                    self._raw.seek(offset)
                    done = self._fill(view, lambda part, _done: self._raw.readinto(part))
                finally:
                    self._raw.seek(here)
        if offset + done > self.bound:
            raise self._past_bound(offset + done)
        return done

    def close(self) -> None:
        self._raw.close()

    def __enter__(self) -> BoundedFile:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def open_bounded(path: str, kind: str | None = None, *, limit: int | None = None) -> BoundedFile:
    """The regular file ``path`` opened for bounded piecewise reads (:class:`BoundedFile`): the
    checks of :func:`read_bytes` (regular files only, the size within the bound for ``kind`` or
    ``limit``), without reading the content.  Raises :class:`FileReadError` like it."""
    path = str(path)
    kind = kind or kind_for_path(path)
    bound = limit if limit is not None else limit_for(kind)
    fd, info = _open_regular(path, kind)
    if info.st_size > bound:
        os.close(fd)
        raise FileReadError(FileProblem(path, kind, "too-large", size=info.st_size, limit=bound))
    try:
        return BoundedFile(path, kind, fd, info.st_size, bound)
    except BaseException:
        os.close(fd)
        raise

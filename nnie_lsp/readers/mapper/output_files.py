"""Where a lint project's mapper output comes from: the logs and the ``cnn_net_tree.dot`` it reads.

nnie_mapper writes its files into the directory it runs in (``docs/field-facts.md §9``); the real
project folders keep them beside the cfg, and the cfg's relative paths are written for that
folder.  Where the mapper ran is recorded nowhere, so the project assumes the cfg's folder and
picks up, **beside its cfg**:

- ``mapper_debug.log``: the record of one run (version line, phases and every ERROR / WARNING
  block, §16.3).  When it is there it is the log that counts;
- ``mapper_error.log`` only when there is no ``mapper_debug.log``: it accumulates runs and gets
  nothing from a run without errors or warnings, so next to a debug log its last run may be an
  older one.  Beside a debug log whose run completed, its runs are all older ones
  (:attr:`FoundLog.older_than`): their errors are reported as such, never placed on the cfg;
- ``cnn_net_tree.dot``: the compiled network (§16.2), for NN304 and the layer hover.

A log whose RuyiStudio ``Start [...] [<cfg>]`` line names another cfg is not this cfg's log and is
left out.  Logs **given** by the user (``nnie-lint --mapper-log FILE``, repeatable; saved console
logs too) replace the ones beside the cfg: :func:`with_given_logs`.

A log or dot older than the cfg or the prototxt on disk may describe a previous version of the
net; :attr:`FoundLog.newer_files` says which project files were modified after it was written, so
a finding can say so.  Files are read through the project's source provider (editor buffers
first); file times come from the disk.  Parsing is cached by content.  Never raises.
"""

from __future__ import annotations

import os
import threading
from pathlib import PureWindowsPath
from typing import TYPE_CHECKING, Iterable, Protocol

from nnie_lsp.core import safe_io
from nnie_lsp.core.content_cache import ContentCache
from nnie_lsp.core.records import NamedTuple
from nnie_lsp.core.text import Decoded, decode

if TYPE_CHECKING:  # the readers are imported when a log or dot file is found (nnie-lint's start-up)
    from nnie_lsp.readers.mapper.log import MapperLog
    from nnie_lsp.readers.mapper.nettree import NetTree

__all__ = [
    "DEBUG_LOG", "ERROR_LOG", "NET_TREE", "FoundLog", "MapperOutput", "mapper_output_beside",
    "read_given_logs", "with_given_logs", "is_mapper_log_file", "log_paths",
]

DEBUG_LOG = "mapper_debug.log"
ERROR_LOG = "mapper_error.log"
NET_TREE = "cnn_net_tree.dot"
#: Larger files are not read (a log at ``[log_level] 3`` can hold gigabytes of dumps).
MAX_BYTES = 64 * 1024 * 1024
#: Seconds a project file may be newer than a log before the log counts as older (file systems
#: and copies round times).
MTIME_SLACK = 2.0


class TextSource(Protocol):
    """What this module asks of the project's source provider."""

    def read_text(self, path: str) -> Decoded | None: ...
    def exists(self, path: str) -> bool: ...


class FoundLog(NamedTuple):  # not a dataclass: defining one costs about 1 ms at start-up
    """A mapper log a project reads, and how it came to it."""

    log: MapperLog
    given: bool = False  # named by the user (``--mapper-log``), not found beside the cfg
    newer_files: tuple[str, ...] = ()  # base names of project files modified after the log
    # base name of the log holding a later run (every run of this one is older): a
    # mapper_error.log beside a mapper_debug.log whose run completed (its errors are not that run's)
    older_than: str = ""

    @property
    def path(self) -> str:
        return self.log.path or ""

    @property
    def name(self) -> str:
        return os.path.basename(self.path) if self.path else "mapper log"


class MapperOutput(NamedTuple):  # not a dataclass: defining one costs about 1 ms at start-up
    """What a project read of the mapper's output."""

    logs: tuple[FoundLog, ...] = ()
    net_tree: NetTree | None = None
    # logs beside the cfg that were left out, with the reason (for ``--verbose``-style notes)
    skipped: tuple[tuple[str, str], ...] = ()


# ---------------------------------------------------------------- parse caches (by content)



def _parse_log(text: str, path: str):
    from nnie_lsp.readers.mapper.log import parse_mapper_log
    return parse_mapper_log(text, path)


def _parse_tree(text: str, path: str):
    from nnie_lsp.readers.mapper.nettree import parse_net_tree
    return parse_net_tree(text, path)


_LOG_CACHE = ContentCache(_parse_log, size=8)
_TREE_CACHE = ContentCache(_parse_tree, size=8)
# (kind, path) -> ((mtime_ns, size), parsed): files on disk are not read again while unchanged
# (the language server builds a project on every edit)
_BY_STAT: dict[tuple[str, str], tuple[tuple[int, int], object]] = {}
_BY_STAT_LOCK = threading.Lock()


def _load(kind: str, path: str, provider: TextSource, cache: ContentCache):
    """The parsed file at ``path`` (None when absent, a folder or too big): editor buffers by
    content, files on disk by modification time and size."""
    if path in getattr(provider, "overlay", {}):
        decoded = provider.read_text(path)
        return None if decoded is None else _finish(cache.get(decoded.text, path), decoded)
    try:
        stat = os.stat(path)
    except OSError:
        return None
    if not os.path.isfile(path) or stat.st_size > MAX_BYTES:
        return None
    stamp = (stat.st_mtime_ns, stat.st_size)
    with _BY_STAT_LOCK:
        hit = _BY_STAT.get((kind, path))
    if hit is not None and hit[0] == stamp:
        return hit[1]
    decoded = provider.read_text(path)
    if decoded is None:
        return None
    parsed = _finish(cache.get(decoded.text, path), decoded)
    with _BY_STAT_LOCK:
        if len(_BY_STAT) > 64:
            _BY_STAT.clear()
        _BY_STAT[(kind, path)] = (stamp, parsed)
    return parsed


def _finish(parsed, decoded: Decoded):
    """A log keeps the encoding it was read with (a net tree has no such fields)."""
    from nnie_lsp.readers.mapper.log import MapperLog
    if isinstance(parsed, MapperLog):
        from dataclasses import replace  # a log read: the log reader has loaded dataclasses already

        return replace(parsed, encoding=decoded.encoding, bom=decoded.bom, newline=decoded.newline)
    return parsed


def _read_log(path: str, provider: TextSource) -> MapperLog | None:
    return _load("log", path, provider, _LOG_CACHE)


def _mtime(path: str | None) -> float | None:
    if not path:
        return None
    try:
        return os.path.getmtime(path)
    except OSError:
        return None


def _newer_files(path: str, project_files: Iterable[str | None]) -> tuple[str, ...]:
    """Base names of the project files modified after ``path`` was written."""
    written = _mtime(path)
    if written is None:
        return ()
    out = []
    for other in project_files:
        changed = _mtime(other)
        if other and changed is not None and changed > written + MTIME_SLACK:
            out.append(os.path.basename(other))
    return tuple(dict.fromkeys(out))


def _same_name(written: str, cfg_path: str) -> bool:
    """Does a cfg path as RuyiStudio wrote it (often a Windows path) name the file ``cfg_path``?"""
    name = PureWindowsPath(written.strip()).name if written.strip() else ""
    return not name or name.lower() == os.path.basename(cfg_path).lower()


def _for_other_cfg(log: MapperLog, cfg_path: str) -> str | None:
    """The cfg a RuyiStudio log's last run names, when it is not ``cfg_path``."""
    run = log.last_run
    if run is None or run.ruyi is None:
        return None
    return None if _same_name(run.ruyi.cfg_path, cfg_path) else run.ruyi.cfg_path


# ---------------------------------------------------------------- beside the cfg

def mapper_output_beside(cfg_path: str | None, provider: TextSource,
                         project_files: Iterable[str | None] = ()) -> MapperOutput:
    """The mapper log and ``cnn_net_tree.dot`` in the cfg's folder (see the module's rules).
    ``project_files`` (cfg, prototxt) are compared with the log's time of writing."""
    if not cfg_path:
        return MapperOutput()
    folder = os.path.dirname(os.path.abspath(cfg_path))
    files = tuple(project_files)
    skipped: list[tuple[str, str]] = []
    logs: list[FoundLog] = []
    for name in (DEBUG_LOG, ERROR_LOG):
        path = os.path.join(folder, name)
        log = _read_log(path, provider)
        if log is None:
            continue
        if logs:
            if logs[0].log.status == "succeeded" and any(run.errors for run in log.runs):
                logs.append(FoundLog(log, given=False, newer_files=_newer_files(path, files), older_than=DEBUG_LOG))
            else:
                skipped.append((path, f"{DEBUG_LOG} holds the last run"))
            continue
        other = _for_other_cfg(log, cfg_path)
        if other is not None:
            skipped.append((path, f"its last run is for {other}"))
            continue
        if not log.runs:
            skipped.append((path, "no mapper run in it"))
            continue
        logs.append(FoundLog(log, given=False, newer_files=_newer_files(path, files)))
    parsed = _load("tree", os.path.join(folder, NET_TREE), provider, _TREE_CACHE)
    tree = parsed if parsed is not None and parsed.nodes else None
    return MapperOutput(tuple(logs), tree, tuple(skipped))


# ---------------------------------------------------------------- given by the user

def read_given_logs(paths: Iterable[str], provider: TextSource,
                    project_files: Iterable[str | None] = ()) -> tuple[FoundLog, ...]:
    """The logs the user named, in the order given (unreadable ones left out: the CLI checks
    that they exist before linting)."""
    files = tuple(project_files)
    out: list[FoundLog] = []
    seen: set[str] = set()
    for path in paths:
        absolute = os.path.abspath(path)
        if absolute in seen:
            continue
        seen.add(absolute)
        log = _read_log(absolute, provider)
        if log is not None:
            out.append(FoundLog(log, given=True, newer_files=_newer_files(absolute, files)))
    return tuple(out)


def with_given_logs(project, paths: Iterable[str], provider: TextSource):
    """``project`` (a :class:`nnie_lsp.project.project.Project`) reading the given logs instead of the
    ones found beside its cfg.  No paths: the project unchanged."""
    paths = tuple(paths)
    if not paths:
        return project
    logs = read_given_logs(paths, provider, (project.cfg_path, project.prototxt_path))
    return project._replace(mapper_logs=logs)


def log_paths(project) -> tuple[str, ...]:
    """The paths of the logs a project reads (where its log-homed findings live)."""
    return tuple(found.path for found in getattr(project, "mapper_logs", ()) if found.path)


def is_mapper_log_file(path: str) -> bool:
    """A ``*.log`` / ``*.txt`` file the user passed among the files to lint that is a mapper log
    (by name, or by its first 64 KiB: a version line, a block header or a RuyiStudio line)."""
    name = os.path.basename(path).lower()
    if name in (DEBUG_LOG, ERROR_LOG):
        return True
    if not name.endswith((".log", ".txt")):
        return False
    try:
        head = safe_io.read_head(path, 1 << 16, safe_io.LOG)  # regular files only (not a FIFO)
    except OSError:
        return False
    from nnie_lsp.readers.mapper.log import looks_like_mapper_log
    return looks_like_mapper_log(decode(head).text)

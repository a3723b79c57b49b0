"""Which `.wk` a lint project reads, and how old it is next to its sources.

nnie_mapper writes ``<[instruction_name]>.wk`` into the folder it runs in (``docs/field-facts.md
§9``); the project assumes the cfg's folder, as for the logs, and resolves the name in the one
order of :mod:`nnie_lsp.readers.cfg.paths` (the cfg's folder, the working directory, the folders above).
Without ``[instruction_name]`` the mapper's default ``inst`` is used.  A `.wk` named on the
command line with the cfg (``nnie-lint net.cfg model.wk``) replaces it.  A cfg whose `.wk` does
not exist yet (before the first mapper run) has none: nothing is said.

A `.wk` is binary: it is read from disk (never from an editor buffer), once per modification
time and size.  :attr:`FoundWk.newer_sources` names the cfg, prototxt and caffemodel modified
after the `.wk` was written -- file times only, which a copy or a checkout resets.  Never raises.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING, Iterable

from nnie_lsp.core.records import NamedTuple

if TYPE_CHECKING:
    from nnie_lsp.readers.cfg.reader import CfgEntry
    from nnie_lsp.readers.wk.reader import WkError
    from nnie_lsp.readers.wk.model import WkModel

__all__ = ["FoundWk", "DEFAULT_INSTRUCTION_NAME", "wk_for_cfg", "given_wk", "load_wk"]

#: The mapper's default ``[instruction_name]`` (docs/field-facts.md §3.1).
DEFAULT_INSTRUCTION_NAME = "inst"
#: Seconds a source may be newer than the `.wk` before it counts (file systems round times).
MTIME_SLACK = 2.0

_CACHE: dict[str, tuple[tuple[int, int], object]] = {}
_LOCK = threading.Lock()


class FoundWk(NamedTuple):
    """A `.wk` a project reads: the model, or why it cannot be read, and how it was found."""

    path: str
    model: WkModel | None = None
    error: WkError | None = None
    given: bool = False                 # named on the command line, not found by [instruction_name]
    entry: CfgEntry | None = None       # the cfg's [instruction_name] line (None: the default name)
    newer_sources: tuple[tuple[str, float], ...] = ()   # (base name, seconds newer than the .wk)

    @property
    def name(self) -> str:
        return os.path.basename(self.path)


def load_wk(path: str) -> tuple[WkModel | None, WkError | None]:
    """The model at ``path`` or the error reading it, cached by modification time and size."""
    from nnie_lsp.readers.wk.reader import WkError, read_wk

    try:
        stat = os.stat(path)
        stamp = (stat.st_mtime_ns, stat.st_size)
    except OSError:
        stamp = None
    with _LOCK:
        hit = _CACHE.get(path)
    if stamp is not None and hit is not None and hit[0] == stamp:
        value = hit[1]
    else:
        try:
            value = read_wk(path)
        except WkError as exc:
            value = exc
        if stamp is not None:
            with _LOCK:
                if len(_CACHE) > 16:
                    _CACHE.clear()
                _CACHE[path] = (stamp, value)
    return (None, value) if isinstance(value, WkError) else (value, None)


def _newer(path: str, sources: Iterable[str | None]) -> tuple[tuple[str, float], ...]:
    try:
        written = os.path.getmtime(path)
    except OSError:
        return ()
    out = []
    for source in sources:
        if not source:
            continue
        try:
            changed = os.path.getmtime(source)
        except OSError:
            continue
        if changed > written + MTIME_SLACK:
            out.append((os.path.basename(source), changed - written))
    return tuple(dict.fromkeys(out))


def _candidates(written: str) -> list[str]:
    name = written.strip().strip('"').strip("'")
    out = [name + ".wk"]
    if name.lower().endswith(".wk"):
        out.append(name)
    return out


def wk_for_cfg(cfg_path: str, entry: CfgEntry | None, sources: Iterable[str | None] = (),
               cwd: str | None = None) -> FoundWk | None:
    """The `.wk` the cfg's ``[instruction_name]`` (``entry``; None: the default ``inst``) names,
    when it exists; ``sources`` (cfg, prototxt, caffemodel) are compared with its file time."""
    from nnie_lsp.readers.cfg.paths import cfg_bases, resolve_path

    written = entry.value if entry is not None and entry.value.strip() else DEFAULT_INSTRUCTION_NAME
    bases = cfg_bases(cfg_path, cwd or os.getcwd())
    for candidate in _candidates(written):
        resolved, _tried = resolve_path(candidate, bases, os.path.isfile)
        if resolved:
            model, error = load_wk(resolved)
            return FoundWk(resolved, model, error, given=False, entry=entry,
                           newer_sources=_newer(resolved, sources))
    return None


def given_wk(path: str, entry: CfgEntry | None = None, sources: Iterable[str | None] = ()) -> FoundWk:
    """A `.wk` the user named (``nnie-lint net.cfg model.wk``, or a `.wk` linted on its own)."""
    path = os.path.abspath(path)
    model, error = load_wk(path)
    return FoundWk(path, model, error, given=True, entry=entry, newer_sources=_newer(path, sources))

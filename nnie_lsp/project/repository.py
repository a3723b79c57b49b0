"""What a Git repository holds: files it does not commit, told apart from wrong paths.

A pre-commit hook (or a fresh clone) runs where the repository's binary files are not: the
caffemodel and the calibration images are commonly ignored (``*.caffemodel`` in ``.gitignore``)
or kept in Git LFS, whose pointer files stand in their place until ``git lfs pull``.  A cfg naming
such a file is fine; only a path that leads nowhere the repository knows is a mistake.  So:

- :func:`ignored` -- the missing files that Git ignores, with the rule that ignores each
  (``.gitignore:3: *.caffemodel``), asked of ``git check-ignore`` once for all of them, per
  repository (a negated rule, ``!keep.caffemodel``, means not ignored);
- :func:`is_lfs_pointer` -- a file that is a Git LFS pointer (the spec's first line, in a file of
  at most a few hundred bytes), not its content.

Outside a Git work tree, without ``git``, or when Git fails, nothing is ignored (the files are
reported as missing, as before).  Only files that are missing are asked about, so a project whose
files are all there costs nothing.
"""

from __future__ import annotations

import os
from typing import Iterable

from nnie_lsp.core import safe_io

LFS_HEADER = b"version https://git-lfs.github.com/spec/v1"
_LFS_MAX = 1024   # an LFS pointer is about 130 bytes
_ROOTS: dict[str, str | None] = {}
#: The language server lints a cfg on every keystroke: Git's answer for the same files is kept
#: while the ignore files that decide them are unchanged.
_ASKED: dict[tuple, dict[str, str]] = {}


def work_tree(path: str) -> str | None:
    """The root of the Git work tree holding `path` (a ``.git`` folder or file above it), or None."""
    folder = os.path.dirname(os.path.abspath(path))
    seen = []
    root = None
    while True:
        if folder in _ROOTS:
            root = _ROOTS[folder]
            break
        seen.append(folder)
        if os.path.exists(os.path.join(folder, ".git")):
            root = folder
            break
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    for f in seen:
        _ROOTS[f] = root
    if len(_ROOTS) > 4096:
        _ROOTS.clear()
    return root


def ignored(paths: Iterable[str]) -> dict[str, str]:
    """Missing `paths` (absolute) that Git ignores -> the rule that ignores each, as
    ``<source>:<line>: <pattern>``."""
    by_root: dict[str, list[str]] = {}
    for path in dict.fromkeys(os.path.abspath(p) for p in paths):
        root = work_tree(path)
        if root is not None:
            by_root.setdefault(root, []).append(path)
    out: dict[str, str] = {}
    for root, members in by_root.items():
        key = (root, tuple(members), _rules_signature(root, members))
        hit = _ASKED.get(key)
        if hit is None:
            hit = _ASKED[key] = _check_ignore(root, members)
            if len(_ASKED) > 256:
                _ASKED.clear()
        out.update(hit)
    return out


def _rules_signature(root: str, paths: list[str]) -> tuple:
    """The state of the ignore files that can decide `paths` (each folder's .gitignore up to the
    root, .git/info/exclude): Git is asked again when one of them changed."""
    files = {os.path.join(root, ".git", "info", "exclude")}
    for path in paths:
        folder = os.path.dirname(path)
        while folder.startswith(root):
            files.add(os.path.join(folder, ".gitignore"))
            if folder == root:
                break
            folder = os.path.dirname(folder)
    signature = []
    for name in sorted(files):
        try:
            info = os.stat(name)
        except OSError:
            continue
        signature.append((name, info.st_mtime_ns, info.st_size))
    return tuple(signature)


def _check_ignore(root: str, paths: list[str]) -> dict[str, str]:
    import subprocess  # only when a file is missing (nnie-lint's start-up)

    try:
        done = subprocess.run(["git", "-C", root, "check-ignore", "-v", "-n", "-z", "--stdin"],
                              input="\0".join(paths).encode("utf-8", "surrogateescape") + b"\0",
                              capture_output=True, timeout=20, check=False)
    except (OSError, subprocess.SubprocessError):   # no git, or it hung
        return {}
    if done.returncode not in (0, 1):
        return {}
    fields = done.stdout.split(b"\0")
    out = {}
    for i in range(0, len(fields) - 3, 4):
        source, line, pattern, name = (f.decode("utf-8", "surrogateescape") for f in fields[i:i + 4])
        if not source or pattern.startswith("!"):
            continue   # no rule, or a negated one: not ignored
        full = os.path.normpath(name if os.path.isabs(name) else os.path.join(root, name))
        out[full] = f"{source}:{line}: {pattern}"
    return out


def is_lfs_pointer(path: str) -> bool:
    """Whether the regular file `path` is a Git LFS pointer instead of the file's content."""
    try:
        if os.path.getsize(path) > _LFS_MAX:
            return False
        return safe_io.read_head(path, len(LFS_HEADER)) == LFS_HEADER
    except OSError:
        return False

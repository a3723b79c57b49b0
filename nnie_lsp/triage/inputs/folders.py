"""Folder checks for the inputs beside a cfg (names only, never values): which entries a folder
holds (bounded: a huge folder is not a project folder), whether it holds dump files, what an output
folder of ``nnie-triage reference``/``emulate`` holds now, the board's dump files.

Importing this module loads no numpy: dump names are parsed by :mod:`nnie_lsp.readers.dumpio.names`,
imported when a folder is first checked.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from nnie_lsp.triage.inputs.folder_names import DUMP_MANIFEST

#: How many entries of a folder are looked at (a huge folder is not a project folder).
MAX_ENTRIES = 400
#: How many files of a candidate folder are checked for dump names.
MAX_NAME_CHECKS = 64


def entries(folder: str) -> list[os.DirEntry]:
    try:
        with os.scandir(folder) as it:
            out = []
            for entry in it:
                out.append(entry)
                if len(out) >= MAX_ENTRIES:
                    break
            return sorted(out, key=lambda e: e.name)
    except OSError:
        return []


def holds_dumps(folder: str) -> bool:
    """Whether `folder` holds at least one file named like a dump tensor (names only)."""
    from nnie_lsp.readers.dumpio.names import parse_dump_name  # the dumpio package loads numpy: only when a folder is checked

    checked = 0
    for entry in entries(folder):
        try:
            if not entry.is_file():
                continue
        except OSError:
            continue
        parsed = parse_dump_name(entry.name)
        if parsed is not None and parsed.fmt != "skip":
            return True
        checked += 1
        if checked >= MAX_NAME_CHECKS:
            break
    return False


def dump_folder(folder: str, name: str, tried: list | None = None) -> str | None:
    path = os.path.join(folder, name)
    why = why_not_dumps(path)
    if why is None:
        return path
    if tried is not None:
        tried.append({"path": path, "why": why})
    return None


def why_not_dumps(path: str) -> str | None:
    """None when `path` is a folder of dumps (dump files, or nnie-triage's manifest: its output
    with several images holds them in sub-folders); else why not, in a few words."""
    if not os.path.exists(path):
        return "does not exist"
    if not os.path.isdir(path):
        return "is a file, not a folder"
    if os.path.isfile(os.path.join(path, DUMP_MANIFEST)) or holds_dumps(path):
        return None
    files = sum(1 for e in entries(path) if is_file(e))
    if not files:
        return "is empty" if not entries(path) else "holds no files (only folders)"
    return f"holds no dump files ({files} other file{'s' if files != 1 else ''})"


@dataclass(frozen=True)
class OutputState:
    """What an output folder of ``nnie-triage reference``/``emulate`` holds now.  The tool replaces
    only the files its own previous run wrote (listed in its manifest) and refuses a folder with
    other dump files (:func:`nnie_lsp.triage.inputs.image_sets.prepare_output`): ``foreign`` > 0
    means the run would be refused, overwrite or not."""

    path: str
    exists: bool
    is_dir: bool
    files: int                  # files in it (not counting sub-folders' files)
    ours: int                   # files the previous nnie-triage run listed in its manifest
    foreign: int                # dump files nnie-triage did not write there
    foreign_examples: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.exists or (self.is_dir and self.files == 0 and self.ours == 0 and self.foreign == 0)

    def to_json(self) -> dict:
        return {"path": self.path, "exists": self.exists, "is_folder": self.is_dir, "files": self.files,
                "written_by_nnie_triage": self.ours, "foreign_dumps": self.foreign,
                "foreign_examples": list(self.foreign_examples),
                "can_overwrite": self.is_dir and self.foreign == 0 and not self.empty,
                "empty": self.empty, "holds_dumps": self.exists and why_not_dumps(self.path) is None,
                "why_not_dumps": why_not_dumps(self.path),
                "board_files": board_files(self.path)[0] if self.is_dir else 0}


def output_state(path: str) -> OutputState:
    """:class:`OutputState` of `path` (the same rule as ``prepare_output``: dump-like names not in
    the manifest, in the folder and its sub-folders that do not start with a dot)."""
    from nnie_lsp.triage.inputs.image_sets import read_manifest
    from nnie_lsp.readers.dumpio.names import is_ignored_file, parse_dump_name

    path = os.path.abspath(path)
    if not os.path.exists(path):
        return OutputState(path, False, False, 0, 0, 0)
    if not os.path.isdir(path):
        return OutputState(path, True, False, 0, 0, 0)
    manifest = read_manifest(path) or {}
    ours = {os.path.normpath(f) for f in manifest.get("files", [])}
    files = sum(1 for e in entries(path) if is_file(e))
    foreign: list[str] = []
    for root, dirs, names in os.walk(path):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in names:
            rel = os.path.normpath(os.path.relpath(os.path.join(root, name), path))
            if rel != DUMP_MANIFEST and rel not in ours and parse_dump_name(name) is not None \
                    and not is_ignored_file(name):
                foreign.append(rel)
    return OutputState(path, True, True, files, len(ours), len(foreign), tuple(sorted(foreign)[:3]))


def cfg_files(folder: str) -> list[str]:
    return [e.path for e in entries(folder) if e.name.lower().endswith(".cfg") and is_file(e)]


def is_file(entry: os.DirEntry) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


def subfolders(folder: str) -> list[str]:
    out = []
    for entry in entries(folder):
        try:
            if entry.is_dir() and not entry.name.startswith("."):
                out.append(entry.path)
        except OSError:
            continue
    return out


def board_files(folder: str) -> tuple[int, int]:
    """(files in a board dump form, runs) in ``folder``: its own files are one run, each sub-folder
    holding such files another (names only)."""
    from nnie_lsp.readers.dumpio.board_forms import board_form

    def count(path: str) -> int:
        return sum(1 for e in entries(path) if is_file(e) and board_form(e.name) is not None)

    own = count(folder)
    runs = int(own > 0)
    total = own
    for sub in subfolders(folder):
        n = count(sub)
        if n:
            runs += 1
            total += n
    return total, runs


def shown(path: str) -> str:
    """`path` as messages show it: relative to the working folder, unless that climbs two folders
    up (or cannot be made: another drive), then as given."""
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return path if relative.startswith(".." + os.sep + "..") else relative

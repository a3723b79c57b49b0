"""Stored triage results: ``.nnie-triage/`` beside the cfg (no LSP types).

One result per cfg ``<stem>.cfg`` (per prototxt when the run had no cfg), three files:

- ``<stem>.json``: a :class:`StoredTriage` record — the ``nnie-triage compare --format json``
  result, the inputs used (given or discovered, with the rule), the *stamps* of what the run read,
  so that a later look can tell whether the result still describes the files, and the texts of
  the cfg and the prototxt the run read (the findings' positions and fixes refer to them: an editor
  carries them over to the current text);
- ``<stem>.html``: the HTML report; ``<stem>.txt``: the text report.

Paths inside the record are relative to the owner's folder (the project can be moved or copied)
and absolute when they lie on another drive.  Every file is written atomically (a temporary file
in the same folder, then a rename), so a crash never leaves half a result; a record that cannot
be read is skipped with the reason, never raised.

Stamps: the cfg and the prototxt by size, modification time and SHA-256 of their text (so a touch
without a change is not a change, and an unsaved editor text that differs is one); each dump
folder by file count, total size and newest modification time (its files and those of its direct
sub-folders, which is what the dump scan reads) — the ONNX side of the conversion stage
(``framework``, ``compare --framework``) among them; and ``onnx``, the ONNX model those dumps were
made from (the path and SHA-256 its manifest records, ``nnie-triage reference --onnx``), by size,
modification time and that SHA-256: the model changed when its bytes differ from what the dumps
were made from (a touch is no change; the file is hashed only when its size or time moved).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
from dataclasses import dataclass, field
from typing import Callable, Iterator, Mapping

from nnie_lsp.core import atomic_write
from nnie_lsp.core.text import read_text
from nnie_lsp.triage.inputs.folder_names import TRIAGE_STORE_DIR

STORE_VERSION = 1
#: Folders never walked when looking for stored results.
SKIPPED_FOLDERS = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".tox",
                             ".mypy_cache", ".pytest_cache"})
SCAN_DEPTH = 5
SCAN_MAX_FOLDERS = 5000
FOLDER_ROLES = ("reference", "sim", "sim16", "framework", "board")
#: The roles :func:`changed_inputs` names, in its order.
ROLES = ("cfg", "prototxt", *FOLDER_ROLES, "dot", "onnx")

TextSource = Callable[[str], "str | None"]   # path -> the editor's unsaved text, or None


# ------------------------------------------------------------------ stamps

def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _disk_text(path: str) -> str | None:
    try:
        return read_text(path).text
    except (OSError, ValueError):
        return None


def file_stamp(path: str, text: str | None = None) -> dict | None:
    """Size, mtime and the digest of the text (`text` when given: what the run read)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if text is None:
        text = _disk_text(path)
    return {"size": info.st_size, "mtime_ns": info.st_mtime_ns,
            "sha256": text_digest(text) if text is not None else None}


def folder_stamp(path: str) -> dict | None:
    """File count, total size and newest mtime of a dump folder (and its direct sub-folders)."""
    if os.path.isfile(path):
        info = os.stat(path)
        return {"files": 1, "bytes": info.st_size, "newest_mtime_ns": info.st_mtime_ns}
    files = size = newest = 0
    try:
        top = list(os.scandir(path))
    except OSError:
        return None
    entries = list(top)
    for entry in top:
        try:
            if entry.is_dir() and not entry.name.startswith("."):
                entries.extend(os.scandir(entry.path))
        except OSError:
            continue
    for entry in entries:
        try:
            if not entry.is_file():
                continue
            info = entry.stat()
        except OSError:
            continue
        files += 1
        size += info.st_size
        newest = max(newest, info.st_mtime_ns)
    return {"files": files, "bytes": size, "newest_mtime_ns": newest}


#: SHA-256 of model files by (path, size, mtime_ns): a result's model is hashed once per change,
#: not at every staleness check.
_MODEL_DIGESTS: dict[tuple[str, int, int], str] = {}
_MODEL_DIGESTS_MAX = 32


def _file_digest(path: str, info: os.stat_result) -> str | None:
    key = (os.path.abspath(path), info.st_size, info.st_mtime_ns)
    digest = _MODEL_DIGESTS.get(key)
    if digest is not None:
        return digest
    h = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                h.update(chunk)
    except OSError:
        return None
    if len(_MODEL_DIGESTS) >= _MODEL_DIGESTS_MAX:
        _MODEL_DIGESTS.pop(next(iter(_MODEL_DIGESTS)))
    _MODEL_DIGESTS[key] = digest = h.hexdigest()
    return digest


def model_stamp(framework: str | None) -> dict | None:
    """The ONNX model the framework dumps in `framework` were made from: ``{path, sha256, size,
    mtime_ns}`` with the path and SHA-256 their manifest records (``nnie-triage reference
    --onnx``), size and time of the file now; None without a manifest naming a model."""
    from nnie_lsp.triage.inputs.image_sets import read_manifest

    manifest = read_manifest(framework) if framework and os.path.isdir(framework) else None
    path = manifest.get("onnx") if manifest else None
    if not isinstance(path, str) or not path:
        return None
    path = _absolute(path, framework)
    sha = manifest.get("onnx_sha256")
    try:
        info = os.stat(path)
    except OSError:
        return {"path": path, "sha256": sha if isinstance(sha, str) else None, "size": None, "mtime_ns": None}
    return {"path": path, "sha256": sha if isinstance(sha, str) else None, "size": info.st_size,
            "mtime_ns": info.st_mtime_ns}


def model_changed(stamp: Mapping) -> bool:
    """The model of an ``onnx`` stamp is not the one the dumps were made from: gone, or other
    bytes (hashed only when its size or time moved; without a recorded SHA-256, a moved size or
    time is a change)."""
    path = stamp.get("path")
    if not isinstance(path, str):
        return False
    try:
        info = os.stat(path)
    except OSError:
        return stamp.get("size") is not None     # was there at the run, gone now
    if info.st_size == stamp.get("size") and info.st_mtime_ns == stamp.get("mtime_ns"):
        return False
    if not stamp.get("sha256"):
        return True
    return _file_digest(path, info) != stamp["sha256"]


# ------------------------------------------------------------------ the record

def store_dir(owner: str) -> str:
    return os.path.join(os.path.dirname(os.path.abspath(owner)), TRIAGE_STORE_DIR)


@dataclass(frozen=True)
class StorePaths:
    json: str
    html: str
    text: str

    def existing(self) -> list[str]:
        return [p for p in (self.json, self.html, self.text) if os.path.exists(p)]


def store_paths(owner: str) -> StorePaths:
    stem = os.path.splitext(os.path.basename(owner))[0] or "triage"
    folder = store_dir(owner)
    return StorePaths(os.path.join(folder, stem + ".json"), os.path.join(folder, stem + ".html"),
                      os.path.join(folder, stem + ".txt"))


def _relative(path: str | None, base: str) -> str | None:
    if not path:
        return None
    try:
        return os.path.relpath(os.path.abspath(path), base)
    except ValueError:  # another drive
        return os.path.abspath(path)


def _absolute(path: str | None, base: str) -> str | None:
    if not path:
        return None
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(base, path))


@dataclass
class StoredTriage:
    """One stored triage: the compare result and what it was computed from (absolute paths)."""

    owner: str                                  # the cfg (or the prototxt without a cfg)
    result: dict                                # the compare JSON (schema v2)
    cfg: str | None = None
    prototxt: str | None = None
    inputs: dict[str, dict | None] = field(default_factory=dict)     # role -> {path, origin, rule}
    stamps: dict[str, dict | None] = field(default_factory=dict)     # role -> stamp at the run
    texts: dict[str, str] = field(default_factory=dict)               # "cfg"/"prototxt" -> text read
    saved_at: str = ""
    paths: StorePaths | None = None

    @property
    def base(self) -> str:
        return os.path.dirname(self.owner)

    def input_path(self, role: str) -> str | None:
        found = self.inputs.get(role)
        return found.get("path") if isinstance(found, Mapping) else None

    def to_json(self) -> dict:
        base = self.base
        inputs = {role: (None if found is None else {**found, "path": _relative(found.get("path"), base)})
                  for role, found in self.inputs.items()}
        return {"store_version": STORE_VERSION, "tool": "nnie-lsp", "saved_at": self.saved_at,
                "owner": os.path.basename(self.owner), "cfg": _relative(self.cfg, base),
                "prototxt": _relative(self.prototxt, base), "inputs": inputs, "stamps": self.stamps,
                "texts": self.texts, "result": self.result}

    @staticmethod
    def from_json(doc: Mapping, json_path: str) -> "StoredTriage":
        if not isinstance(doc, Mapping) or doc.get("store_version") != STORE_VERSION:
            raise StoreError(f"{json_path}: not a version {STORE_VERSION} nnie-lsp triage record")
        result = doc.get("result")
        if not isinstance(result, dict):
            raise StoreError(f"{json_path}: no triage result in it")
        base = os.path.dirname(os.path.dirname(os.path.abspath(json_path)))   # the folder of .nnie-triage/
        owner = os.path.join(base, str(doc.get("owner") or "triage"))
        inputs: dict[str, dict | None] = {}
        for role, found in (doc.get("inputs") or {}).items():
            inputs[str(role)] = (None if not isinstance(found, Mapping) else
                                 {**found, "path": _absolute(found.get("path"), base)})
        stamps = {str(k): (dict(v) if isinstance(v, Mapping) else None) for k, v in (doc.get("stamps") or {}).items()}
        texts = {str(k): v for k, v in (doc.get("texts") or {}).items() if isinstance(v, str)}
        record = StoredTriage(owner, result, _absolute(doc.get("cfg"), base), _absolute(doc.get("prototxt"), base),
                              inputs, stamps, texts, str(doc.get("saved_at") or ""), store_paths(owner))
        _rebase_working_directory(record, base)
        return record


def _rebase_working_directory(record: StoredTriage, base: str) -> None:
    """A moved project: the report's relative paths are relative to its working directory, which
    was the owner's folder when the server ran it; follow the folder."""
    inputs = record.result.get("inputs")
    if isinstance(inputs, dict) and inputs.get("working_directory") and not os.path.isdir(inputs["working_directory"]):
        inputs["working_directory"] = base


def new_record(owner: str, result: dict, *, cfg: str | None, prototxt: str | None, inputs: Mapping[str, dict | None],
               texts: Mapping[str, str] | None = None) -> StoredTriage:
    """A record of a run that just finished; `texts` are the cfg/prototxt texts it read (else the
    files on disk are stamped now)."""
    texts = dict(texts or {})
    stamps: dict[str, dict | None] = {}
    read: dict[str, str] = {}
    for role, path in (("cfg", cfg), ("prototxt", prototxt)):
        if not path:
            stamps[role] = None
            continue
        text = texts.get(path)
        if text is None:
            text = _disk_text(path)
        stamps[role] = file_stamp(path, text)
        if text is not None:
            read[role] = text
    for role in FOLDER_ROLES:
        found = inputs.get(role)
        path = found.get("path") if isinstance(found, Mapping) else None
        stamps[role] = folder_stamp(path) if path else None
    dot = inputs.get("dot")
    dot_path = dot.get("path") if isinstance(dot, Mapping) else None
    stamps["dot"] = file_stamp(dot_path) if dot_path else None
    framework = inputs.get("framework")
    stamps["onnx"] = model_stamp(framework.get("path")) if isinstance(framework, Mapping) else None
    base_dir = os.path.dirname(os.path.abspath(owner))
    for path in _other_fixed_files(result, (cfg, prototxt)):
        text = texts.get(path)
        if text is None:
            text = _disk_text(path) if os.path.exists(path) else ""   # "": the fix creates it
        if text is not None:
            read[FILE_TEXT_PREFIX + (_relative(path, base_dir) or path)] = text
    saved_at = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()
    owner = os.path.abspath(owner)
    return StoredTriage(owner, result, os.path.abspath(cfg) if cfg else None,
                        os.path.abspath(prototxt) if prototxt else None,
                        {role: (dict(v) if v else None) for role, v in inputs.items()}, stamps, read, saved_at,
                        store_paths(owner))


#: The record's ``texts`` key of a file a finding's fix edits besides the cfg and the prototxt (a
#: channel-mean file, T104): its text when the run read it ("" when the fix creates it), so that
#: the fix can be found applied later (:mod:`.confirmation`).
FILE_TEXT_PREFIX = "file:"


def _other_fixed_files(result: Mapping, skip) -> list[str]:
    """The absolute paths the findings' fixes edit, other than `skip` (the cfg, the prototxt)."""
    inputs = result.get("inputs") if isinstance(result.get("inputs"), Mapping) else {}
    base = inputs.get("working_directory") if isinstance(inputs.get("working_directory"), str) else os.getcwd()
    skipped = {os.path.abspath(p) for p in skip if p}
    out: list[str] = []
    for finding in result.get("findings") or []:
        if not isinstance(finding, Mapping):
            continue
        for fix in (finding.get("fix"), *(finding.get("alternatives") or ())):
            for edit in (fix or {}).get("edits") or () if isinstance(fix, Mapping) else ():
                path = edit.get("path") if isinstance(edit, Mapping) else None
                if not isinstance(path, str) or not path:
                    continue
                absolute = os.path.normpath(path if os.path.isabs(path) else os.path.join(base, path))
                if absolute not in skipped and absolute not in out:
                    out.append(absolute)
    return out


def run_texts(record: "StoredTriage") -> dict[str, str]:
    """Absolute path -> the text the run read, for every file its fixes edit (the cfg, the prototxt,
    a mean file)."""
    out = {os.path.abspath(p): record.texts[role] for role, p in (("cfg", record.cfg), ("prototxt", record.prototxt))
           if p and role in record.texts}
    for key, text in record.texts.items():
        if key.startswith(FILE_TEXT_PREFIX):
            out[_absolute(key[len(FILE_TEXT_PREFIX):], record.base)] = text
    return out


# ------------------------------------------------------------------ staleness

def _file_changed(path: str, stamp: Mapping, editor_text: str | None) -> bool:
    if editor_text is not None:
        return stamp.get("sha256") is not None and text_digest(editor_text) != stamp.get("sha256")
    try:
        info = os.stat(path)
    except OSError:
        return True
    if info.st_size == stamp.get("size") and info.st_mtime_ns == stamp.get("mtime_ns"):
        return False
    text = _disk_text(path)
    return text is None or stamp.get("sha256") is None or text_digest(text) != stamp["sha256"]


def changed_inputs(record: StoredTriage, editor_text: TextSource | None = None,
                   check_folders: bool = True) -> list[str]:
    """The roles (:data:`ROLES`: cfg, prototxt, reference, sim, sim16, framework, dot, onnx) whose
    files changed since the run.  `editor_text` gives the unsaved text of an open file (it counts
    over the disk); `check_folders` False checks the cfg and the prototxt only."""
    editor_text = editor_text or (lambda _path: None)
    changed = []
    for role, path in (("cfg", record.cfg), ("prototxt", record.prototxt)):
        stamp = record.stamps.get(role)
        if path and stamp and _file_changed(path, stamp, editor_text(path)):
            changed.append(role)
    if check_folders:
        for role in FOLDER_ROLES:
            path, stamp = record.input_path(role), record.stamps.get(role)
            if path and stamp and folder_stamp(path) != stamp:
                changed.append(role)
        path, stamp = record.input_path("dot"), record.stamps.get("dot")
        if path and stamp and _file_changed(path, stamp, None):
            changed.append("dot")
        stamp = record.stamps.get("onnx")
        if stamp and model_changed(stamp):
            changed.append("onnx")
    return changed


# ------------------------------------------------------------------ files

class StoreError(OSError):
    """The store folder cannot be written safely (the message is for the user)."""


def _checked_store_folder(folder: str) -> str:
    """``.nnie-triage/`` beside the owner, created when missing; a link (or anything but a folder)
    there is refused, so stored results are never written outside the owner's folder."""
    if os.path.islink(folder):
        raise StoreError(f"{folder} is a symbolic link: stored triage results are written only into a real "
                         "folder beside the cfg; remove the link")
    os.makedirs(folder, exist_ok=True)
    if not os.path.isdir(folder):
        raise StoreError(f"{folder} is not a folder")
    return folder


def write_atomic(path: str, data: bytes) -> None:
    """Replace ``path`` atomically (temp file + fsync + rename, :mod:`nnie_lsp.core.atomic_write`); a
    link at ``path`` is replaced, never followed."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.basename(folder) == TRIAGE_STORE_DIR:
        _checked_store_folder(folder)
    else:
        os.makedirs(folder, exist_ok=True)
    atomic_write.write_bytes(path, data, follow_symlinks=False)


def save(record: StoredTriage, *, html: str | None = None, text: str | None = None) -> StorePaths:
    """Write the record (and the reports given) into ``.nnie-triage/`` beside its owner."""
    paths = record.paths or store_paths(record.owner)
    record.paths = paths
    if html is not None:
        write_atomic(paths.html, html.encode("utf-8"))
    if text is not None:
        write_atomic(paths.text, text.encode("utf-8"))
    write_atomic(paths.json, (json.dumps(record.to_json(), ensure_ascii=False, indent=1) + "\n").encode("utf-8"))
    return paths


def load(json_path: str) -> StoredTriage:
    """Read one record; raises StoreError with the file and the reason."""
    try:
        with open(json_path, encoding="utf-8") as handle:
            doc = json.load(handle)
    except OSError as exc:
        raise StoreError(f"{json_path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise StoreError(f"{json_path}: not JSON ({exc})") from None
    return StoredTriage.from_json(doc, json_path)


def records_in(folder: str) -> Iterator[str]:
    """The record files of one ``.nnie-triage/`` folder."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return
    for name in names:
        if name.endswith(".json") and not name.startswith("."):
            yield os.path.join(folder, name)


def scan(root: str, depth: int = SCAN_DEPTH) -> list[str]:
    """Every record under `root` (``.nnie-triage/*.json``), `depth` folders deep at most."""
    found: list[str] = []
    visited = 0
    pending = [(os.path.abspath(root), 0)]
    while pending and visited < SCAN_MAX_FOLDERS:
        folder, level = pending.pop()
        visited += 1
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if not entry.is_dir(follow_symlinks=False):
                    continue
            except OSError:
                continue
            if entry.name == TRIAGE_STORE_DIR:
                found.extend(records_in(entry.path))
            elif level < depth and entry.name not in SKIPPED_FOLDERS and not entry.name.startswith("."):
                pending.append((entry.path, level + 1))
    return sorted(found)


def clear(record: StoredTriage) -> list[str]:
    """Delete the record's files; the paths deleted.  The folder goes when it is left empty."""
    paths = record.paths or store_paths(record.owner)
    deleted = []
    for path in paths.existing():
        try:
            os.unlink(path)
            deleted.append(path)
        except OSError:
            continue
    folder = os.path.dirname(paths.json)
    try:
        if not os.listdir(folder):
            os.rmdir(folder)
    except OSError:
        pass
    return deleted

"""A lint project: one mapper cfg plus the prototxt, mean file, image list and caffemodel it names.

The project is the only place that touches the file system; rules get everything from it.  A
:class:`SourceProvider` lets the language server substitute unsaved editor text for disk text.
Relative paths are resolved in the one order of :mod:`nnie_lsp.cfg.paths` (the cfg's folder, the
working directory, the folders above the cfg); what the preprocessing keys mean per input is
:attr:`Project.preprocessing` (:mod:`nnie_lsp.cfg.preprocessing`) -- the triage and the reference
forward read a cfg through :func:`load_project` too (``load_prototxt=False``), so they see the same
values and files as the lint.
"""

from __future__ import annotations

import glob
import re
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from .cfg.model import MapperConfig
from .content_cache import ContentCache
from .cfg.paths import ResolvedPath, cfg_bases, is_windows_abs, list_bases, resolve_path, resolve_written
from .cfg.preprocessing import (
    MEAN_IMAGE,
    InputPreprocessing,
    input_preprocessing,
    mean_file_kind,
    parse_channel_means,
)
from .cfg.reader import CfgDocument, CfgEntry, looks_like_mapper_cfg, parse_cfg
from .mapper.discovery import FoundLog, mapper_output_beside
from .prototxt.graph import NetGraph, build_graph
from .prototxt.reader import PrototxtDocument, parse_prototxt
from . import safe_io
from .safe_io import FileProblem
from .settings import LintSettings
from .text import Decoded, decode

if TYPE_CHECKING:  # read only when a cnn_net_tree.dot is found (nnie-lint's start-up)
    from .mapper.nettree import NetTree

PATH_KEYS = ("prototxt_file", "caffemodel_file", "image_list", "mean_file", "roi_coordinate_file")
MAX_LIST_LINES = 20000


class SourceProvider(Protocol):
    def read_text(self, path: str, kind: str | None = None) -> Decoded | None: ...
    def read_bytes(self, path: str, kind: str | None = None) -> bytes | None: ...
    def exists(self, path: str) -> bool: ...


class DiskProvider:
    """Reads files from disk; `overlay` maps absolute paths to unsaved text (editor buffers).

    Disk reads go through the guarded reader (:mod:`nnie_lsp.safe_io`): regular files only, at most
    the bound for the kind of file (``kind``; guessed from the name when not given).  A file that is
    not read gives None, and :meth:`problem` says why."""

    def __init__(self, overlay: dict[str, str] | None = None) -> None:
        self.overlay = overlay or {}
        self.problems: dict[str, FileProblem] = {}

    def read_text(self, path: str, kind: str | None = None) -> Decoded | None:
        path = os.path.abspath(path)
        if path in self.overlay:
            text = self.overlay[path]
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
            return None
        if read:
            return self.problems.get(absolute)
        return safe_io.check_file(absolute, kind, bounded=kind is not None)


def provider_problem(provider: SourceProvider, path: str, kind: str | None = None, *,
                     read: bool = False) -> FileProblem | None:
    """:meth:`DiskProvider.problem` for any provider (one without it reports nothing)."""
    ask = getattr(provider, "problem", None)
    return ask(path, kind, read=read) if ask is not None else None


# ------------------------------------------------------------------ parse caches (by content)



def _parse_proto_and_graph(text: str, path: str | None):
    doc = parse_prototxt(text, path)
    return doc, build_graph(doc)


_CFG_CACHE = ContentCache(parse_cfg)
_PROTO_CACHE = ContentCache(_parse_proto_and_graph, size=16)


def clear_parse_caches() -> None:
    """Forget every cached cfg and prototxt parse (the next read parses again)."""
    for cache in (_CFG_CACHE, _PROTO_CACHE):
        cache.clear()


def cached_cfg(text: str, path: str | None) -> CfgDocument:
    return _CFG_CACHE.get(text, path)


def cached_prototxt(text: str, path: str | None) -> tuple[PrototxtDocument, NetGraph]:
    return _PROTO_CACHE.get(text, path)


# ------------------------------------------------------------------ facts about referenced files

@dataclass(frozen=True)
class RefFile:
    entry: CfgEntry
    written: str               # the value as meant (inline comment removed)
    resolved: str | None       # absolute path that exists, else None
    candidates: tuple[str, ...]  # where we looked
    is_null: bool              # `null`-like placeholder
    foreign: bool = False      # a Windows absolute path seen on POSIX (cannot be checked here)

    @property
    def exists(self) -> bool:
        return self.resolved is not None

    @classmethod
    def of(cls, entry: CfgEntry, path: ResolvedPath) -> "RefFile":
        return cls(entry, path.written, path.resolved, path.candidates, path.is_null, path.foreign)


@dataclass(frozen=True)
class ListLine:
    line: int
    text: str
    resolved: str | None


@dataclass(frozen=True)
class ImageListFacts:
    ref: RefFile
    lines: tuple[ListLine, ...]
    truncated: bool = False

    @property
    def missing(self) -> tuple[ListLine, ...]:
        return tuple(l for l in self.lines if l.resolved is None)


@dataclass(frozen=True)
class MeanFacts:
    ref: RefFile
    kind: str                          # "binaryproto" | "text"
    values: tuple[float, ...] | None   # channel means for text files
    channels: int | None               # channel count (text: number of values; binaryproto: from the blob)
    error: str | None = None           # unreadable / not numbers (message)
    error_line: int | None = None


@dataclass(frozen=True)
class UnreadableFile:
    """A file the project needed but did not read, and why (:mod:`nnie_lsp.safe_io`): not a
    regular file (FIFO, device, socket, folder), past the bound for its kind, a symbolic link loop
    or a dangling link, no permission.  ``ref`` is the cfg entry naming it (NN006 reports it
    there); None for the cfg or prototxt given directly."""

    ref: RefFile | None
    problem: FileProblem


@dataclass(frozen=True)
class Project:
    settings: LintSettings
    cfg: CfgDocument | None = None
    config: MapperConfig | None = None
    prototxt: PrototxtDocument | None = None
    graph: NetGraph | None = None
    refs: tuple[RefFile, ...] = ()
    image_lists: tuple[ImageListFacts, ...] = ()
    means: tuple[MeanFacts, ...] = ()
    base_dir: str | None = None         # folder the cfg's relative paths were resolved against
    prototxt_origin: RefFile | None = None
    binary_prototxt: str | None = None  # path of a "prototxt" that is binary data (not parsed)
    # RuyiStudio marked prototxts (`<name>_mark_nnie_<yyyymmddhhmmss>.prototxt`) beside the one the
    # cfg names, newest first (only filled when [prototxt_file] is such a file)
    marked_siblings: tuple[str, ...] = ()
    # whether the newest marked sibling holds the same net as the one the cfg names (same text, or
    # the same parsed NetParameter); None when there is no newer sibling or it cannot be read
    marked_newest_same: bool | None = None
    notes: tuple[str, ...] = field(default=())
    # one per input group of the cfg: what its preprocessing keys mean (cfg/preprocessing.py)
    preprocessing: tuple[InputPreprocessing, ...] = ()
    # the mapper's own output beside the cfg, or logs the user gave (mapper/discovery.py)
    mapper_logs: tuple[FoundLog, ...] = ()
    net_tree: NetTree | None = None
    # files the project needed but did not read, with the reason (safe_io)
    unreadable: tuple[UnreadableFile, ...] = ()

    @property
    def cfg_path(self) -> str | None:
        return self.cfg.path if self.cfg else None

    @property
    def prototxt_path(self) -> str | None:
        return self.prototxt.path if self.prototxt else None

    def ref_for(self, entry: CfgEntry) -> RefFile | None:
        for r in self.refs:
            if r.entry is entry:
                return r
        return None

    def mean_for(self, entry: CfgEntry | None) -> MeanFacts | None:
        if entry is None:
            return None
        for m in self.means:
            if m.ref.entry is entry:
                return m
        return None

    def image_list_for(self, entry: CfgEntry | None) -> ImageListFacts | None:
        if entry is None:
            return None
        for il in self.image_lists:
            if il.ref.entry is entry:
                return il
        return None

    def input_preprocessing(self, k: int) -> InputPreprocessing | None:
        return self.preprocessing[k] if 0 <= k < len(self.preprocessing) else None

    def calibration_images(self, prep: InputPreprocessing) -> list[str]:
        """The image files an input's image_list names, resolved (unresolved lines as written);
        none for a feature-map input, whose list holds float text."""
        if prep.is_feature_map:
            return []
        facts = self.image_list_for(prep.entry("image_list"))
        if facts is None:
            return []
        return [line.resolved or line.text for line in facts.lines]

    def network_input(self, k: int):
        """The prototxt's k-th network input (name, shape, range), or None."""
        g = self.graph
        if g is None or not 0 <= k < len(g.inputs):
            return None
        return g.inputs[k]

    def input_channels(self, k: int) -> int | None:
        """Channel count (shape[1]) of the k-th network input, when the prototxt declares it."""
        inp = self.network_input(k)
        if inp is None or not inp.shape or len(inp.shape) < 2:
            return None
        return inp.shape[1]


# ------------------------------------------------------------------ referenced files
# (path resolution itself: nnie_lsp.cfg.paths; cfg_bases / resolve_path / is_windows_abs are
# imported above and stay importable from here)


def _ref(entry: CfgEntry, bases: list[str], provider: SourceProvider) -> RefFile:
    return RefFile.of(entry, resolve_written(entry.value, bases, provider.exists))


def _read_image_list(ref: RefFile, bases: list[str], provider: SourceProvider,
                     check_paths: bool) -> ImageListFacts | None:
    """The list's lines (None: the file was not read, see :func:`_problem_of`)."""
    dec = provider.read_text(ref.resolved, safe_io.IMAGE_LIST) if ref.resolved else None
    if dec is None:
        return None
    lines = []
    # Entries are relative to the working directory the mapper runs in (unknown); accept the list's
    # folder and the cfg's resolution bases.
    img_bases = list_bases(ref.resolved, bases)
    truncated = False
    for i, raw in enumerate(dec.text.splitlines()):
        t = raw.strip()
        if not t or t.startswith("#"):
            continue
        if len(lines) >= MAX_LIST_LINES:
            truncated = True
            break
        if check_paths:
            if os.sep == "/" and is_windows_abs(t):
                resolved = t  # cannot check a Windows path here; do not call it missing
            else:
                resolved, _ = resolve_path(t, img_bases, provider.exists)
        else:
            resolved = t
        lines.append(ListLine(i, t, resolved))
    return ImageListFacts(ref, tuple(lines), truncated)


def _read_mean(ref: RefFile, provider: SourceProvider) -> MeanFacts | None:
    if not ref.resolved:
        return None
    if mean_file_kind(ref.resolved) == MEAN_IMAGE:
        data = provider.read_bytes(ref.resolved, safe_io.MEAN_FILE)
        if data is None:
            return None
        try:
            from .prototxt import caffe_pb2
            blob = caffe_pb2.BlobProto()
            blob.ParseFromString(data)
            if blob.HasField("shape") and len(blob.shape.dim) >= 3:
                ch = int(blob.shape.dim[-3])
            elif blob.channels:
                ch = int(blob.channels)
            else:
                ch = None
            return MeanFacts(ref, "binaryproto", None, ch)
        except Exception as exc:  # malformed binary
            return MeanFacts(ref, "binaryproto", None, None, f"not a readable BlobProto ({type(exc).__name__})")
    dec = provider.read_text(ref.resolved, safe_io.MEAN_FILE)
    if dec is None:
        return None
    if "\x00" in dec.text[:1024]:
        return MeanFacts(ref, "binary", None, None, "binary data, not a channel-mean text file")
    means = parse_channel_means(dec.text)
    if means.values is None:
        return MeanFacts(ref, "text", None, None, means.error, means.error_line)
    return MeanFacts(ref, "text", means.values, len(means.values))


# ------------------------------------------------------------------ building projects

def load_project(*, cfg_path: str | None = None, prototxt_path: str | None = None,
                 settings: LintSettings | None = None, provider: SourceProvider | None = None,
                 cwd: str | None = None, load_prototxt: bool = True) -> Project:
    """Parse a cfg and/or prototxt and gather the facts rules need.

    With a cfg, its `[prototxt_file]` is loaded unless `prototxt_path` is given or
    `load_prototxt` is False (the cfg alone: what the triage and the reference forward need).
    Never raises on bad content; a missing top-level file gives a project without that document.
    """
    settings = settings or LintSettings()
    provider = provider or DiskProvider()
    cwd = cwd or os.getcwd()
    cfg_doc = config = None
    refs: list[RefFile] = []
    image_lists: list[ImageListFacts] = []
    means: list[MeanFacts] = []
    preprocessing: tuple[InputPreprocessing, ...] = ()
    proto_origin = None
    unreadable: list[UnreadableFile] = []
    bases = cfg_bases(cfg_path, cwd)
    if cfg_path:
        cfg_path = os.path.abspath(cfg_path)
        dec = provider.read_text(cfg_path, safe_io.CFG)
        if dec is None:
            _note_unreadable(unreadable, None, provider, cfg_path, safe_io.CFG)
        else:
            cfg_doc = _with_encoding(cached_cfg(dec.text, cfg_path), dec)
            config = MapperConfig.from_document(cfg_doc)
            preprocessing = input_preprocessing(config, cfg_path=cfg_path, bases=bases,
                                                exists=provider.exists)
            feature_map = {p.index: p.is_feature_map for p in preprocessing}
            list_index = 0
            for entry in cfg_doc.entries:
                if entry.key in PATH_KEYS:
                    r = _ref(entry, bases, provider)
                    refs.append(r)
                    problem = _ref_problem(r, provider)
                    if problem is not None:
                        unreadable.append(UnreadableFile(r, problem))
                    if entry.key == "prototxt_file":
                        proto_origin = proto_origin or r
                    elif entry.key == "image_list":
                        k, list_index = list_index, list_index + 1  # k-th image_list = input k
                        if r.resolved and problem is None:
                            check = not feature_map.get(k, False)  # feature maps: float text lines
                            facts = _read_image_list(r, bases, provider, check)
                            if facts is not None:
                                image_lists.append(facts)
                            else:
                                _note_unreadable(unreadable, r, provider, r.resolved, safe_io.IMAGE_LIST)
                    elif entry.key == "mean_file" and r.resolved and problem is None:
                        m = _read_mean(r, provider)
                        if m is not None:
                            means.append(m)
                        else:
                            _note_unreadable(unreadable, r, provider, r.resolved, safe_io.MEAN_FILE)
    proto_doc = graph = binary = None
    from_cfg = False
    if prototxt_path is None and load_prototxt and proto_origin is not None and proto_origin.resolved:
        prototxt_path = proto_origin.resolved
        from_cfg = True
    if prototxt_path:
        prototxt_path = os.path.abspath(prototxt_path)
        dec = provider.read_text(prototxt_path, safe_io.PROTOTXT)
        reported = from_cfg and any(u.ref is proto_origin for u in unreadable)
        if dec is None and not reported:
            _note_unreadable(unreadable, proto_origin if from_cfg else None, provider, prototxt_path,
                             safe_io.PROTOTXT)
        if dec is not None and looks_binary(dec.text):
            binary = prototxt_path   # e.g. [prototxt_file] pointing at the .caffemodel: not parsed
        elif dec is not None:
            proto_doc, graph = cached_prototxt(dec.text, prototxt_path)
    siblings = _marked_siblings(proto_origin)
    mapper = mapper_output_beside(cfg_path if load_prototxt else None, provider, (cfg_path, prototxt_path))
    return Project(settings=settings, cfg=cfg_doc, config=config, prototxt=proto_doc, graph=graph,
                   refs=tuple(refs), image_lists=tuple(image_lists), means=tuple(means),
                   base_dir=bases[0] if cfg_path else None, prototxt_origin=proto_origin,
                   binary_prototxt=binary, marked_siblings=siblings,
                   marked_newest_same=_same_net(siblings, prototxt_path, proto_doc, provider),
                   preprocessing=preprocessing, mapper_logs=mapper.logs, net_tree=mapper.net_tree,
                   unreadable=tuple(unreadable))


# the kind of file each path key names, and whether the lint reads it (bounded) or only names it
_REF_KINDS = {"prototxt_file": (safe_io.PROTOTXT, True), "image_list": (safe_io.IMAGE_LIST, True),
              "mean_file": (safe_io.MEAN_FILE, True), "caffemodel_file": (safe_io.FILE, False),
              "roi_coordinate_file": (safe_io.FILE, False)}


def _ref_problem(ref: RefFile, provider: SourceProvider) -> FileProblem | None:
    """Why a file the cfg names cannot be used, before reading it: not a regular file, past the
    bound for its kind, no permission; for a path not found, a symbolic link loop or a dangling
    link where the path was looked for (the plain "not found" is NN006's own message)."""
    kind, bounded = _REF_KINDS.get(ref.entry.key, (safe_io.FILE, False))
    if ref.resolved:
        return provider_problem(provider, ref.resolved, kind if bounded else None)
    if ref.is_null or ref.foreign:
        return None
    for candidate in ref.candidates:
        if os.path.islink(candidate):
            return safe_io.check_file(candidate, kind)
    return None


def _note_unreadable(unreadable: list[UnreadableFile], ref: RefFile | None, provider: SourceProvider,
                     path: str, kind: str) -> None:
    """Record why ``path`` was not read (when the provider knows)."""
    problem = provider_problem(provider, path, read=True) or provider_problem(provider, path, kind)
    if problem is not None:
        unreadable.append(UnreadableFile(ref, problem))


MARKED_RE = re.compile(r"^(?P<name>.+)_mark_nnie_(?P<stamp>\d{14})\.prototxt$")


def _marked_siblings(origin: RefFile | None) -> tuple[str, ...]:
    """Other RuyiStudio marked prototxts of the same net in the same folder, newest stamp first."""
    if origin is None or not origin.resolved:
        return ()
    m = MARKED_RE.match(os.path.basename(origin.resolved))
    if not m:
        return ()
    folder = os.path.dirname(origin.resolved)
    out = []
    try:
        names = os.listdir(folder)
    except OSError:
        return ()
    for n in names:
        mm = MARKED_RE.match(n)
        if mm and mm.group("name") == m.group("name"):
            out.append((mm.group("stamp"), os.path.join(folder, n)))
    return tuple(p for _, p in sorted(out, reverse=True))


def _same_net(siblings: tuple[str, ...], used: str | None, used_doc: PrototxtDocument | None,
              provider: SourceProvider) -> bool | None:
    """Does the newest marked sibling hold the same net as ``used``? RuyiStudio writes a new mark
    each time the net is marked, often with identical content: only a different net is stale."""
    if not siblings or not used or os.path.basename(siblings[0]) == os.path.basename(used):
        return None
    newest = provider.read_text(siblings[0])
    current = provider.read_text(used)
    if newest is None or current is None:
        return None

    def lines(text: str) -> list[str]:
        return [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]

    if lines(newest.text) == lines(current.text):
        return True
    if used_doc is None or used_doc.syntax_errors:
        return False
    newest_doc, _ = cached_prototxt(newest.text, siblings[0])
    return not newest_doc.syntax_errors and newest_doc.message == used_doc.message


def looks_binary(text: str) -> bool:
    """NUL bytes or mostly control characters in the first 8 KiB: not a text prototxt."""
    head = text[:8192]
    if "\x00" in head:
        return True
    ctrl = sum(1 for ch in head if ord(ch) < 32 and ch not in "\r\n\t\f")
    return bool(head) and ctrl / len(head) > 0.05


def _with_encoding(doc: CfgDocument, dec: Decoded) -> CfgDocument:
    import dataclasses
    try:
        return dataclasses.replace(doc, encoding=dec.encoding, bom=dec.bom, newline=dec.newline)
    except (TypeError, ValueError):
        return doc


def cfgs_naming(prototxt_path: str, provider: SourceProvider | None = None,
                cwd: str | None = None) -> list[str]:
    """Mapper cfg files beside the prototxt (its folder and the parent) whose prototxt_file names it."""
    provider = provider or DiskProvider()
    cwd = cwd or os.getcwd()
    target = os.path.abspath(prototxt_path)
    d = os.path.dirname(target)
    found = []
    for folder in (d, os.path.dirname(d)):
        for cfg in sorted(glob.glob(os.path.join(glob.escape(folder), "*.cfg"))):
            dec = provider.read_text(cfg)
            if dec is None or not looks_like_mapper_cfg(dec.text):
                continue
            doc = cached_cfg(dec.text, cfg)
            for e in doc.get("prototxt_file"):
                resolved, _ = resolve_path(e.value, cfg_bases(cfg, cwd), provider.exists)
                if resolved and _same_file(resolved, target):
                    found.append(os.path.abspath(cfg))
                    break
    return found


def _same_file(a: str, b: str) -> bool:
    if os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b)):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False

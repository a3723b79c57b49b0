"""The files a mapper cfg names, as the lint reads them: the cfg itself, the prototxt it names,
its image lists (every line resolved) and mean files (channel count), each with the cfg entry
naming it and where it was looked for (:mod:`nnie_lsp.readers.cfg.paths`, one resolution order).

Only a project with a cfg imports this module (and the cfg reader, key table and preprocessing
fact base with it): linting a prototxt alone does not pay for them (nnie-lint's start-up).
"""

from __future__ import annotations

import os

from nnie_lsp.core import safe_io
from nnie_lsp.readers.cfg.model import MapperConfig
from nnie_lsp.readers.cfg.paths import ResolvedPath, cfg_bases, is_windows_abs, list_bases, resolve_path, resolve_written
from nnie_lsp.readers.cfg.preprocessing import (
    MEAN_IMAGE,
    InputPreprocessing,
    input_preprocessing,
    mean_file_kind,
    parse_channel_means,
)
from nnie_lsp.readers.cfg.reader import CfgDocument, CfgEntry, parse_cfg
from nnie_lsp.core.content_cache import ContentCache
from nnie_lsp.core.records import NamedTuple
from nnie_lsp.core.safe_io import FileProblem
from nnie_lsp.project.sources import SourceProvider, UnreadableFile, note_unreadable, provider_problem
from nnie_lsp.core.text import Decoded

PATH_KEYS = ("prototxt_file", "caffemodel_file", "image_list", "mean_file", "roi_coordinate_file")
# The records below are NamedTuples, not dataclasses: a frozen dataclass costs about 1 ms to define
# (its methods are generated and compiled), paid by every nnie-lint run on a cfg (start-up).
MAX_LIST_LINES = 20000

_CFG_CACHE = ContentCache(parse_cfg)


def cached_cfg(text: str, path: str | None) -> CfgDocument:
    """The cfg parse of ``text``, shared by every reader of the same content."""
    return _CFG_CACHE.get(text, path)


def clear_cfg_cache() -> None:
    """Forget every cached cfg parse (:func:`nnie_lsp.project.project.clear_parse_caches`)."""
    _CFG_CACHE.clear()


class RefFile(NamedTuple):
    entry: CfgEntry
    written: str               # the value as meant (inline comment removed)
    resolved: str | None       # absolute path that exists, else None
    candidates: tuple[str, ...]  # where we looked
    is_null: bool              # `null`-like placeholder
    foreign: bool = False      # a Windows absolute path seen on POSIX (cannot be checked here)
    # why the file is not in this checkout though the path is right (:mod:`nnie_lsp.project.repository`):
    # "lfs" (a Git LFS pointer stands in its place), or the Git rule that ignores the missing file
    absent: str | None = None

    @property
    def exists(self) -> bool:
        return self.resolved is not None

    @classmethod
    def of(cls, entry: CfgEntry, path: ResolvedPath) -> "RefFile":
        return cls(entry, path.written, path.resolved, path.candidates, path.is_null, path.foreign)


class ListLine(NamedTuple):
    line: int
    text: str
    resolved: str | None
    absent: str | None = None   # missing, but Git ignores it: the rule (see RefFile.absent)


class ImageListFacts(NamedTuple):
    ref: RefFile
    lines: tuple[ListLine, ...]
    truncated: bool = False
    # (line number, where the missing image of that line was first looked for)
    missing_at: tuple[tuple[int, str], ...] = ()

    @property
    def missing(self) -> tuple[ListLine, ...]:
        """Images not found, Git-ignored ones included (NN006 tells them apart: ``absent``)."""
        return tuple(l for l in self.lines if l.resolved is None)


class MeanFacts(NamedTuple):
    ref: RefFile
    kind: str                          # "binaryproto" | "text"
    values: tuple[float, ...] | None   # channel means for text files
    channels: int | None               # channel count (text: number of values; binaryproto: from the blob)
    error: str | None = None           # unreadable / not numbers (message)
    error_line: int | None = None
    text: str | None = None            # a text file's content (a fix rewriting it needs its end)
    size: tuple[int, int] | None = None  # a mean image's (H, W)


class CfgFiles(NamedTuple):
    """What :func:`read_cfg_files` found: the cfg, its typed model, the files it names."""

    cfg: CfgDocument | None = None
    config: MapperConfig | None = None
    refs: tuple[RefFile, ...] = ()
    image_lists: tuple[ImageListFacts, ...] = ()
    means: tuple[MeanFacts, ...] = ()
    preprocessing: tuple[InputPreprocessing, ...] = ()
    prototxt_origin: RefFile | None = None
    unreadable: tuple[UnreadableFile, ...] = ()
    base_dir: str | None = None


def read_cfg_files(cfg_path: str, provider: SourceProvider, cwd: str) -> CfgFiles:
    """Read the cfg at ``cfg_path`` (absolute) and the files it names (not its prototxt)."""
    bases = cfg_bases(cfg_path, cwd)
    cfg_doc = config = None
    refs: list[RefFile] = []
    image_lists: list[ImageListFacts] = []
    means: list[MeanFacts] = []
    preprocessing: tuple[InputPreprocessing, ...] = ()
    proto_origin = None
    unreadable: list[UnreadableFile] = []
    dec = provider.read_text(cfg_path, safe_io.CFG)
    if dec is None:
        note_unreadable(unreadable, None, provider, cfg_path, safe_io.CFG)
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
                if r.resolved and entry.key in _BINARY_OR_DATA and _lfs_pointer(r.resolved):
                    r = r._replace(absent="lfs")   # the pointer is not the file: nothing to read
                refs.append(r)
                problem = _ref_problem(r, provider) if r.absent is None else None
                if problem is not None:
                    unreadable.append(UnreadableFile(r, problem))
                if entry.key == "prototxt_file":
                    proto_origin = proto_origin or r
                elif entry.key == "image_list":
                    k, list_index = list_index, list_index + 1  # k-th image_list = input k
                    if r.resolved and problem is None and r.absent is None:
                        check = not feature_map.get(k, False)  # feature maps: float text lines
                        facts = _read_image_list(r, bases, provider, check)
                        if facts is not None:
                            image_lists.append(facts)
                        else:
                            note_unreadable(unreadable, r, provider, r.resolved, safe_io.IMAGE_LIST)
                elif entry.key == "mean_file" and r.resolved and problem is None and r.absent is None:
                    m = _read_mean(r, provider)
                    if m is not None:
                        means.append(m)
                    else:
                        note_unreadable(unreadable, r, provider, r.resolved, safe_io.MEAN_FILE)
    refs, image_lists, proto_origin = _mark_ignored(refs, image_lists, proto_origin)
    return CfgFiles(cfg_doc, config, tuple(refs), tuple(image_lists), tuple(means), preprocessing, proto_origin,
                    tuple(unreadable), bases[0])


def _mark_ignored(refs: list[RefFile], image_lists: list[ImageListFacts], proto_origin: RefFile | None):
    """Missing files (and listed images) that Git ignores get the rule that ignores them
    (``absent``): not in the repository, which is not a wrong path.  One ``git check-ignore`` for
    all of them, only when something is missing."""
    wanted = [r.candidates[0] for r in refs if _missing(r)]
    wanted += [where for il in image_lists for _line, where in il.missing_at]
    if not wanted:
        return refs, image_lists, proto_origin
    from nnie_lsp.project.repository import ignored

    rules = ignored(wanted)
    if not rules:
        return refs, image_lists, proto_origin
    out = []
    for r in refs:
        new = r._replace(absent=rules[r.candidates[0]]) if _missing(r) and r.candidates[0] in rules else r
        if r is proto_origin:
            proto_origin = new
        out.append(new)
    lists = []
    for il in image_lists:
        where = dict(il.missing_at)
        lines = tuple(line._replace(absent=rules.get(where.get(line.line, ""))) if line.resolved is None
                      else line for line in il.lines)
        lists.append(il._replace(lines=lines))
    return out, lists, proto_origin


def _lfs_pointer(path: str) -> bool:
    from nnie_lsp.project.repository import is_lfs_pointer  # loaded for a cfg naming such files only (start-up)

    return is_lfs_pointer(path)


def _missing(r: RefFile) -> bool:
    return not r.resolved and not r.is_null and not r.foreign and bool(r.candidates) and bool(r.written.strip())


def _ref(entry: CfgEntry, bases: list[str], provider: SourceProvider) -> RefFile:
    return RefFile.of(entry, resolve_written(entry.value, bases, provider.exists))


def _read_image_list(ref: RefFile, bases: list[str], provider: SourceProvider,
                     check_paths: bool) -> ImageListFacts | None:
    """The list's lines (None: the file was not read, its problem is :func:`_ref_problem`)."""
    dec = provider.read_text(ref.resolved, safe_io.IMAGE_LIST) if ref.resolved else None
    if dec is None:
        return None
    lines = []
    # Entries are relative to the working directory the mapper runs in (unknown); accept the list's
    # folder and the cfg's resolution bases.
    img_bases = list_bases(ref.resolved, bases)
    truncated = False
    missing_at: dict[int, str] = {}
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
                resolved, looked = resolve_path(t, img_bases, provider.exists)
                if resolved is None and looked:
                    missing_at[i] = looked[0]
        else:
            resolved = t
        lines.append(ListLine(i, t, resolved))
    return ImageListFacts(ref, tuple(lines), truncated, tuple(missing_at.items()))


def _mean_image(ref: RefFile, blob) -> MeanFacts:
    """A parsed BlobProto as a mean image: its channels and (H, W), or why it is none (no values,
    values that do not fill its shape: a protobuf parser takes many a corrupt file without error,
    so the values are counted as the reference's reader counts them)."""
    if len(blob.shape.dim):
        shape = tuple(int(d) for d in blob.shape.dim)
    else:
        shape = tuple(int(d) for d in (blob.num or 1, blob.channels, blob.height, blob.width))
    count = len(blob.data) or len(blob.double_data)
    need = 1
    for d in shape:
        need *= d
    dims = "×".join(map(str, shape))
    if not count:
        return MeanFacts(ref, "binaryproto", None, None, "holds no values (a corrupt or empty BlobProto)")
    if len(shape) < 3 or count != need:
        return MeanFacts(ref, "binaryproto", None, None, f"{count} value(s) for its shape {dims or '(none)'}")
    return MeanFacts(ref, "binaryproto", None, shape[-3], size=(shape[-2], shape[-1]))


def _read_mean(ref: RefFile, provider: SourceProvider) -> MeanFacts | None:
    if not ref.resolved:
        return None
    if mean_file_kind(ref.resolved) == MEAN_IMAGE:
        data = provider.read_bytes(ref.resolved, safe_io.MEAN_FILE)
        if data is None:
            return None
        try:
            from nnie_lsp.readers.prototxt import caffe_pb2
            blob = caffe_pb2.BlobProto()
            blob.ParseFromString(data)
        except Exception as exc:  # malformed binary
            return MeanFacts(ref, "binaryproto", None, None, f"not a readable BlobProto ({type(exc).__name__})")
        return _mean_image(ref, blob)
    dec = provider.read_text(ref.resolved, safe_io.MEAN_FILE)
    if dec is None:
        return None
    if "\x00" in dec.text[:1024]:
        return MeanFacts(ref, "binary", None, None, "binary data, not a channel-mean text file")
    means = parse_channel_means(dec.text)
    if means.values is None:
        return MeanFacts(ref, "text", None, None, means.error, means.error_line)
    return MeanFacts(ref, "text", means.values, len(means.values), text=dec.text)


# the files a repository may keep in Git LFS (its pointer stands in the checkout): weights, means,
# lists -- the cfg and prototxt are text the project is made of
_BINARY_OR_DATA = frozenset({"caffemodel_file", "mean_file", "image_list", "roi_coordinate_file"})

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


def _with_encoding(doc: CfgDocument, dec: Decoded) -> CfgDocument:
    try:
        return doc._replace(encoding=dec.encoding, bom=dec.bom, newline=dec.newline)
    except (TypeError, ValueError):
        return doc

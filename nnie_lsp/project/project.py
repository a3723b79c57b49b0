"""A lint project: one mapper cfg plus the prototxt, mean file, image list and caffemodel it names.

The project is the only place that touches the file system; rules get everything from it.  A
:class:`SourceProvider` lets the language server substitute unsaved editor text for disk text.
Relative paths are resolved in the one order of :mod:`nnie_lsp.readers.cfg.paths` (the cfg's folder, the
working directory, the folders above the cfg); what the preprocessing keys mean per input is
:attr:`Project.preprocessing` (:mod:`nnie_lsp.readers.cfg.preprocessing`) -- the triage and the reference
forward read a cfg through :func:`load_project` too (``load_prototxt=False``), so they see the same
values and files as the lint.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from nnie_lsp.core.content_cache import ContentCache
from nnie_lsp.readers.prototxt.graph import NetGraph, build_graph
from nnie_lsp.readers.prototxt.reader import PrototxtDocument, parse_prototxt
from nnie_lsp.core import safe_io
from nnie_lsp.core.records import NamedTuple
from nnie_lsp.project.settings import LintSettings
from nnie_lsp.project.sources import DiskProvider, SourceProvider, UnreadableFile, note_unreadable, provider_problem
from nnie_lsp.core.text import split_lines

if TYPE_CHECKING:  # the cfg side is imported only for a project with a cfg (nnie-lint's start-up)
    from nnie_lsp.readers.cfg.model import MapperConfig
    from nnie_lsp.readers.cfg.preprocessing import InputPreprocessing
    from nnie_lsp.readers.cfg.reader import CfgDocument, CfgEntry
    from nnie_lsp.project.card_lookup import CardLookup
    from nnie_lsp.project.cfg_files import ImageListFacts, MeanFacts, RefFile
    from nnie_lsp.readers.mapper.output_files import FoundLog
    from nnie_lsp.readers.mapper.nettree import NetTree
    from nnie_lsp.readers.mapper.wk_files import FoundWk

__all__ = ["DiskProvider", "SourceProvider", "UnreadableFile", "provider_problem", "Project", "load_project",
           "project_for_file", "cached_cfg", "cached_prototxt", "clear_parse_caches", "cfgs_naming", "looks_binary"]


def __getattr__(name: str):
    """``PATH_KEYS`` (and the cfg-side types) from :mod:`nnie_lsp.project.cfg_files`, loaded on first use."""
    if name in ("PATH_KEYS", "MAX_LIST_LINES", "RefFile", "ListLine", "ImageListFacts", "MeanFacts"):
        from nnie_lsp.project import cfg_files

        return getattr(cfg_files, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ------------------------------------------------------------------ parse caches (by content)

def _parse_proto_and_graph(text: str, path: str | None):
    doc = parse_prototxt(text, path)
    return doc, build_graph(doc)


_PROTO_CACHE = ContentCache(_parse_proto_and_graph, size=16)


def clear_parse_caches() -> None:
    """Forget every cached cfg and prototxt parse (the next read parses again)."""
    _PROTO_CACHE.clear()
    import sys

    cfg_side = sys.modules.get(__package__ + ".cfg_files")
    if cfg_side is not None:  # nothing to forget when no cfg was ever read
        cfg_side.clear_cfg_cache()


def cached_cfg(text: str, path: str | None) -> CfgDocument:
    from nnie_lsp.project.cfg_files import cached_cfg as cfg_parse

    return cfg_parse(text, path)


def cached_prototxt(text: str, path: str | None) -> tuple[PrototxtDocument, NetGraph]:
    return _PROTO_CACHE.get(text, path)


# ------------------------------------------------------------------ the project

class Project(NamedTuple):
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
    notes: tuple[str, ...] = ()
    # one per input group of the cfg: what its preprocessing keys mean (cfg/preprocessing.py)
    preprocessing: tuple[InputPreprocessing, ...] = ()
    # the mapper's own output beside the cfg, or logs the user gave (mapper/discovery.py)
    mapper_logs: tuple[FoundLog, ...] = ()
    net_tree: NetTree | None = None
    # files the project needed but did not read, with the reason (safe_io)
    unreadable: tuple[UnreadableFile, ...] = ()
    # the ONNX model the prototxt was converted from (the NN5xx checks): the `onnx` setting
    # (`--onnx`), else `<prototxt stem>.onnx` beside the prototxt (:func:`onnx_for`)
    onnx_path: str | None = None
    # the compiled model: `[instruction_name]`.wk beside the cfg, or a .wk named on the command line
    # (mapper/wk_files.py); a .wk linted on its own is a project holding only it
    wk: FoundWk | None = None
    # the model card (nnie.toml) the cfg is judged against (:func:`nnie_lsp.project.card_lookup.find_card`),
    # or the card file itself when it is what is linted (then ``cfg`` is None)
    card: CardLookup | None = None
    # the texts of the files a card rule may rewrite or create: (absolute path, text or None when
    # missing) -- the cfg's channel-mean files and the candidates for a new one (rules read no file)
    card_texts: tuple[tuple[str, str | None], ...] = ()

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




# ------------------------------------------------------------------ building projects

class _NoCfg:
    """The cfg side of a project without a cfg (:class:`nnie_lsp.project.cfg_files.CfgFiles`' shape)."""

    cfg = config = prototxt_origin = base_dir = None
    refs = image_lists = means = preprocessing = unreadable = ()


_NO_CFG = _NoCfg()


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
    if cfg_path:
        from nnie_lsp.project.cfg_files import read_cfg_files

        cfg_path = os.path.abspath(cfg_path)
        side = read_cfg_files(cfg_path, provider, cwd)
    else:
        side = _NO_CFG
    proto_origin = side.prototxt_origin
    unreadable = list(side.unreadable)
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
            note_unreadable(unreadable, proto_origin if from_cfg else None, provider, prototxt_path,
                             safe_io.PROTOTXT)
        if dec is not None and looks_binary(dec.text):
            binary = prototxt_path   # e.g. [prototxt_file] pointing at the .caffemodel: not parsed
        elif dec is not None:
            proto_doc, graph = cached_prototxt(dec.text, prototxt_path)
    siblings = _marked_siblings(proto_origin)
    mapper_logs, net_tree, wk = (), None, None
    if cfg_path and load_prototxt:
        from nnie_lsp.readers.mapper.output_files import mapper_output_beside

        mapper = mapper_output_beside(cfg_path, provider, (cfg_path, prototxt_path))
        mapper_logs, net_tree = mapper.logs, mapper.net_tree
        wk = _wk_beside(cfg_path, side, prototxt_path, cwd)
    card = card_texts = None
    if cfg_path and side.cfg is not None:
        card, card_texts = _card_of(cfg_path, proto_origin, side, provider)
    return Project(settings=settings, cfg=side.cfg, config=side.config, prototxt=proto_doc, graph=graph,
                   refs=side.refs, image_lists=side.image_lists, means=side.means,
                   base_dir=side.base_dir, prototxt_origin=proto_origin,
                   binary_prototxt=binary, marked_siblings=siblings,
                   marked_newest_same=_same_net(siblings, prototxt_path, proto_doc, provider),
                   preprocessing=side.preprocessing, mapper_logs=mapper_logs, net_tree=net_tree,
                   unreadable=tuple(unreadable),
                   onnx_path=onnx_for(settings, prototxt_path) if proto_doc is not None else None, wk=wk,
                   card=card, card_texts=card_texts or ())


def _wk_beside(cfg_path: str, side, prototxt_path: str | None, cwd: str):
    """The `.wk` the cfg's [instruction_name] names, when it exists (mapper/wk_files.py)."""
    if side.config is None:
        return None
    from nnie_lsp.readers.mapper.wk_files import wk_for_cfg

    caffemodel = next((r.resolved for r in side.refs if r.entry.key == "caffemodel_file" and r.resolved), None)
    return wk_for_cfg(cfg_path, side.config.instruction_entry, (cfg_path, prototxt_path, caffemodel), cwd)


def _card_of(cfg_path: str, proto_origin, side, provider: SourceProvider):
    """The cfg's model card (None when there is none on the way: nothing more is imported) and the
    texts the card rules may need (:attr:`Project.card_texts`)."""
    from nnie_lsp.readers.card import card_paths

    exists = provider.exists
    if not card_paths(cfg_path, lambda p: exists(p) and (os.path.isfile(p) or p in getattr(provider, "overlay", {}))):
        return None, ()
    from nnie_lsp.readers.card.expect import NEW_MEAN_FILES
    from nnie_lsp.project.card_lookup import find_card

    wanted = []
    if proto_origin is not None and proto_origin.resolved:
        wanted.append(proto_origin.resolved)
        marked = MARKED_RE.match(os.path.basename(proto_origin.resolved))
        if marked:   # a RuyiStudio marked copy stands for its original beside it
            wanted.append(os.path.join(os.path.dirname(proto_origin.resolved), marked.group("name") + ".prototxt"))
    card = find_card(cfg_path, wanted, provider)
    if card is None or card.model is None or card.model.mean is None:
        return card, ()
    texts = {}
    for ref in side.refs:
        if ref.entry.key == "mean_file" and ref.resolved and not ref.resolved.lower().endswith(".binaryproto"):
            dec = provider.read_text(ref.resolved, safe_io.MEAN_FILE)
            texts[os.path.abspath(ref.resolved)] = dec.text if dec is not None else None
    for name in NEW_MEAN_FILES:
        path = os.path.join(os.path.dirname(cfg_path), name)
        if path not in texts:
            dec = provider.read_text(path, safe_io.MEAN_FILE) if exists(path) else None
            texts[path] = dec.text if dec is not None else None
    return card, tuple(texts.items())


def card_project(card_path: str, *, settings: LintSettings | None = None,
                 provider: SourceProvider | None = None) -> Project:
    """The project of a model card linted on its own: every entry's problems (NN120)."""
    from nnie_lsp.project.card_lookup import CardLookup, read_card
    from nnie_lsp.readers.card.reader import CardDocument, CardProblem
    from nnie_lsp.core.text import LineIndex

    provider = provider or DiskProvider()
    path = os.path.abspath(card_path)
    doc = read_card(path, provider)
    if isinstance(doc, CardProblem):
        doc = CardDocument(path, "", (), (doc,), LineIndex(""))
    problems = doc.problems + doc.file_problems(provider.exists)
    return Project(settings=settings or LintSettings(), card=CardLookup(path, doc, None, problems, (path,)))


def is_card_path(path: str) -> bool:
    from nnie_lsp.readers.card import CARD_FILE

    return os.path.basename(path) == CARD_FILE


def onnx_for(settings: LintSettings, prototxt_path: str | None) -> str | None:
    """The ONNX model a prototxt was converted from: the `onnx` setting (an absolute path, or
    relative to the working directory), else `<prototxt stem>.onnx` beside the prototxt."""
    if settings.onnx:
        return os.path.abspath(settings.onnx)
    if prototxt_path:
        beside = os.path.splitext(prototxt_path)[0] + ".onnx"
        if os.path.isfile(beside):
            return beside
    return None


def project_for_file(path: str, *, settings: LintSettings, provider: SourceProvider | None = None,
                     cwd: str | None = None, is_cfg: bool | None = None) -> Project:
    """The project a single file belongs to: a cfg with its prototxt, or a prototxt with the
    first cfg beside it that names it (or alone).  `is_cfg` overrides the file's extension."""
    provider = provider or DiskProvider()
    path = os.path.abspath(path)
    if is_card_path(path) and not is_cfg:
        return card_project(path, settings=settings, provider=provider)
    if is_cfg is None:
        is_cfg = path.lower().endswith(".cfg")
    if is_cfg:
        return load_project(cfg_path=path, settings=settings, provider=provider, cwd=cwd)
    cfgs = cfgs_naming(path, provider, cwd)
    return load_project(cfg_path=cfgs[0] if cfgs else None, prototxt_path=path, settings=settings,
                        provider=provider, cwd=cwd)


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
        return [line.rstrip() for line in split_lines(text)]

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


def cfgs_naming(prototxt_path: str, provider: SourceProvider | None = None,
                cwd: str | None = None) -> list[str]:
    """Mapper cfg files beside the prototxt (its folder and the parent) whose prototxt_file names it.

    Cheap (nnie-lint's start-up pays it for every prototxt): a cfg whose text does not hold the
    prototxt's file name is not parsed (nor is the cfg reader imported for it); only the cfgs
    that hold the name are parsed and their ``[prototxt_file]`` resolved.  A cfg that names the
    prototxt through a link of another name is not found."""
    provider = provider or DiskProvider()
    target = os.path.abspath(prototxt_path)
    name = os.path.basename(target).casefold()
    d = os.path.dirname(target)
    found = []
    for folder in (d, os.path.dirname(d)):
        try:
            names = sorted(n for n in os.listdir(folder) if n.lower().endswith(".cfg"))
        except OSError:
            continue
        for cfg_name in names:
            cfg = os.path.join(folder, cfg_name)
            if cfg in found:
                continue
            dec = provider.read_text(cfg, safe_io.CFG)
            if dec is None or name not in dec.text.casefold():
                continue
            from nnie_lsp.readers.cfg.paths import cfg_bases, resolve_path
            from nnie_lsp.readers.cfg.reader import looks_like_mapper_cfg

            if not looks_like_mapper_cfg(dec.text):
                continue
            doc = cached_cfg(dec.text, cfg)
            for e in doc.get("prototxt_file"):
                resolved, _ = resolve_path(e.value, cfg_bases(cfg, cwd or os.getcwd()), provider.exists)
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

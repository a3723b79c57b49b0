"""Whether an input found near a cfg is this net's: a 16-bit run, a compiled net
(``cnn_net_tree.dot``) or a dump folder is taken only on evidence that it belongs to the net the
cfg names (:mod:`.beside_cfg` lists what it skipped, with the sentence this module gives).

Evidence, by names and sizes only (nothing is read but file names, the cfgs, a manifest and the
dot's text):

- **the same prototxt**: the other run's cfg (``[prototxt_file]``, resolved from that cfg's folder
  as the mapper does: ``docs/field-facts.md §9``) or nnie-triage's manifest names the prototxt
  this cfg names — the same file, or a copy with the same content;
- **its tensors match this net's blobs**: the dump names are layers or blobs of this prototxt
  (looked up with the alignment's keys, :func:`nnie_lsp.triage.align.keys.name_variants`) and the
  sizes their names carry are those of the blobs (one image: §10.1).  A dot's nodes are checked
  the same way (their names, their ``output size``, §16.2).

:meth:`ThisNet.borrowed` judges a run taken from another folder (a sibling's or a sub-folder's
16-bit run): it needs positive evidence.  :meth:`ThisNet.beside` judges the folders the tools
write beside the cfg itself (``output/``, ``mapper_quant/``, the dot): their place makes them
this cfg's unless their names say another net (none of their dumps is named after a layer or
blob of this net; a dot most of whose nodes are not).  Sizes do not refuse a folder beside the
cfg: the comparison says which layer differs and how.

Instruction-simulator dumps (``seg<s>_layer<node>``) carry no layer names: their folder cannot be
told by names ("cannot tell"), and a borrowed one is then taken only with the same prototxt.
Importing this module loads no numpy.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import os
from dataclasses import dataclass
from functools import cached_property
from typing import Callable, Iterator

from nnie_lsp.readers.dumpio.forms import SKIP
from nnie_lsp.triage.inputs.folders import is_file, shown, subfolders

#: How many dump names of a folder a borrowed run is judged on (a sample: the folder's order).
MAX_NAMES = 400
#: How many entries of a folder beside the cfg are looked at, at most, for one of this net's dumps.
MAX_SCAN = 100_000
#: A borrowed run is another net's when more than this share of its checked dumps have other sizes.
SIZE_SHARE = 0.1
#: Sizes listed in a refusal.
SHOWN = 2

TextReader = Callable[[str], "str | None"]


@dataclass(frozen=True)
class Verdict:
    """``belongs``: True (this net's), False (another net's), None (cannot tell); ``why``: a few
    words for the inputs section and stderr."""

    belongs: bool | None
    why: str


@dataclass(frozen=True)
class Evidence:
    """What a folder's dump names say against the net (:meth:`ThisNet.evidence`)."""

    named: int = 0             # dumps with a tensor name (not instruction-simulator numbers)
    known: int = 0             # of those, named after a layer or blob of this net
    sized: int = 0             # of those, with dims in the name and a known blob shape
    other_sizes: tuple[str, ...] = ()   # "conv1: 3240 values there, 250 here", a few
    size_misses: int = 0       # how many had other sizes
    nameless: int = 0          # instruction-simulator dumps


class ThisNet:
    """The net a cfg names (its prototxt, read once, lazily) and the checks against it."""

    def __init__(self, prototxt: str | None, reader: TextReader) -> None:
        self.prototxt = os.path.abspath(prototxt) if prototxt else None
        self._reader = reader

    @cached_property
    def _text(self) -> str | None:
        return self._reader(self.prototxt) if self.prototxt else None

    @cached_property
    def label(self) -> str:
        return os.path.basename(self.prototxt) if self.prototxt else "the cfg's prototxt"

    @cached_property
    def graph(self):
        """The prototxt's graph (the parse the lint shares), None when it cannot be read or has no
        layers."""
        if self._text is None:
            return None
        from nnie_lsp.project.project import cached_prototxt

        try:
            graph = cached_prototxt(self._text, self.prototxt)[1]
        except (ValueError, RecursionError):
            return None
        return graph if graph.layers else None

    def _why_no_graph(self) -> str:
        if not self.prototxt:
            return "the cfg names no prototxt that exists"
        if self._text is None:
            return f"{self.label} cannot be read"
        return f"{self.label} has no layers"

    # ---------------------------------------------------------------- the same prototxt
    def same_prototxt(self, other: str | None) -> bool:
        """`other` is this net's prototxt: the same file, or a file with the same content."""
        if not other or not self.prototxt:
            return False
        other = os.path.abspath(other)
        try:
            if os.path.realpath(other) == os.path.realpath(self.prototxt) or os.path.samefile(other, self.prototxt):
                return True
        except OSError:
            return False
        text = self._reader(other)
        return text is not None and self._text is not None and _digest(text) == _digest(self._text)

    # ---------------------------------------------------------------- dump names
    def _blob(self, name: str, index: int) -> str | None:
        from nnie_lsp.triage.align.keys import name_variants

        graph = self.graph
        blob = graph.find_blob(name, name_variants)
        if blob is not None:
            return blob
        layer = graph.find_layer(name, name_variants)
        if layer is None or not layer.tops:
            return None
        return layer.tops[min(index, len(layer.tops) - 1)]

    def evidence(self, folder: str, *, limit: int = MAX_NAMES, enough: int | None = None) -> Evidence:
        """What the dump names of `folder` (or of its first image sub-folder, nnie-triage's layout
        for several images) say against this net: at most `limit` names (in the order the folder
        lists them), or until `enough` of them are this net's; needs :attr:`graph`."""
        from nnie_lsp.readers.dumpio.names import parse_dump_name

        parsed = _dump_names(folder, parse_dump_name)
        first = next(parsed, None)
        if first is None:
            for sub in subfolders(folder):
                parsed = _dump_names(sub, parse_dump_name)
                first = next(parsed, None)
                if first is not None:
                    break
        named = known = sized = misses = nameless = 0
        shown: list[str] = []
        for k, p in enumerate(itertools.chain((first,) if first is not None else (), parsed)):
            if k >= limit or (enough is not None and known >= enough):
                break
            if p.seg is not None or p.node is not None:
                nameless += 1
                continue
            named += 1
            blob = next((b for b in (self._blob(n, p.index) for n in (p.name, *p.alt_names)) if b), None)
            if blob is None:
                continue
            known += 1
            expected = self.graph.item_shape(blob)
            if not p.shape or not expected:
                continue
            sized += 1
            there, here = math.prod(p.shape), math.prod(expected)
            if there != here:
                misses += 1
                if len(shown) < SHOWN:
                    shown.append(f"{p.name}: {there} values there, {'×'.join(map(str, expected))} = {here} here")
        return Evidence(named, known, sized, tuple(shown), misses, nameless)

    def _names_say(self, ev: Evidence) -> Verdict | None:
        """None when the names cannot tell; else the verdict of the names alone (not the sizes)."""
        if not ev.named:
            return None
        if not ev.known:
            return Verdict(False, f"another net's: none of its {ev.named} dump names is a layer or blob of "
                                  f"{self.label}")
        if 2 * ev.known < ev.named:
            return Verdict(False, f"another net's: only {ev.known} of its {ev.named} dump names are layers or "
                                  f"blobs of {self.label}")
        return Verdict(True, f"{ev.known} of its {ev.named} dump names are layers or blobs of {self.label}")

    def borrowed(self, folder: str, declared: str | None = None, whose: str = "its cfg") -> Verdict:
        """A run taken from another folder: this net's when `declared` (the prototxt `whose`
        names) is this net's, or when its dump names and sizes are this net's; else not."""
        if self.same_prototxt(declared):
            return Verdict(True, f"{whose} names the same prototxt")
        other = (f"{whose} names {shown(declared)}" if declared else f"{whose} names no prototxt that exists")
        if self.graph is None:
            return Verdict(False, f"cannot tell it is this net's: {other}, and {self._why_no_graph()}")
        ev = self.evidence(folder)
        names = self._names_say(ev)
        if names is None:
            return Verdict(False, f"cannot tell it is this net's: {other}, and its dumps carry no layer names")
        if not names.belongs:
            return Verdict(False, f"{names.why} ({other})")
        if ev.size_misses and ev.size_misses > SIZE_SHARE * max(1, ev.sized):
            return Verdict(False, f"another net's: {ev.size_misses} of its {ev.sized} dumps have other sizes than "
                                  f"{self.label}'s blobs ({'; '.join(ev.other_sizes)}) ({other})")
        return Verdict(True, f"its tensors match this net's blobs ({names.why}, sizes agree; {other})")

    def beside(self, folder: str) -> Verdict:
        """A folder the tools write beside the cfg: this net's unless its names say another net."""
        if self.graph is None:
            return Verdict(None, f"not checked against the net: {self._why_no_graph()}")
        # one dump named after this net is enough: a folder of thousands is not read through
        ev = self.evidence(folder, limit=MAX_SCAN, enough=1)
        names = self._names_say(ev)
        if names is None:
            return Verdict(None, "not checked against the net: its dumps carry no layer names")
        if ev.known:
            return Verdict(True, f"its dumps are named after layers or blobs of {self.label}")
        return names

    # ---------------------------------------------------------------- the compiled net
    def dot(self, path: str) -> Verdict:
        """``cnn_net_tree.dot`` beside the cfg: this net's unless most of its named nodes are not
        layers or blobs of this net, or most of those carry other output sizes."""
        if self.graph is None:
            return Verdict(None, f"not checked against the net: {self._why_no_graph()}")
        from nnie_lsp.readers.mapper.nettree import parse_net_tree

        text = self._reader(path)
        if text is None:
            return Verdict(None, "not checked against the net: it cannot be read")
        tree = parse_net_tree(text, path=path)
        named = known = sized = misses = 0
        for node in list(tree.nodes.values())[:MAX_NAMES]:
            if node.is_mapper_inserted or node.report_point is not None:
                continue
            named += 1
            blob = self._blob(node.reading.name, 0)
            if blob is None:
                continue
            known += 1
            expected, size = self.graph.item_shape(blob), node.output_size
            if expected and size:
                sized += 1
                misses += math.prod(expected) != math.prod(size)
        if not named:
            return Verdict(None, "not checked against the net: its nodes carry no names")
        if 2 * known < named:
            return Verdict(False, f"another net's: {known} of its {named} nodes are layers or blobs of {self.label}")
        if sized and 2 * misses > sized:
            return Verdict(False, f"another net's: {misses} of its {sized} nodes have other output sizes than "
                                  f"{self.label}'s blobs")
        return Verdict(True, f"{known} of its {named} nodes are layers or blobs of {self.label}")


def _dump_names(folder: str, parse) -> Iterator:
    """The output dump names of `folder`, as the folder lists them (at most :data:`MAX_SCAN`
    entries looked at)."""
    try:
        with os.scandir(folder) as it:
            for entry in itertools.islice(it, MAX_SCAN):
                if not is_file(entry):
                    continue
                p = parse(entry.name)
                if p is not None and p.fmt != SKIP and p.role == "output":
                    yield p
    except OSError:
        return


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

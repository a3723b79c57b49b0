"""Which model card a cfg is judged against: ``find_card(cfg_path, prototxt)``.

A card is a file :data:`~nnie_lsp.readers.card.CARD_FILE` in the cfg's folder or any folder above it, up
to the repository root (the first folder holding ``.git``; the file system's root when there is
none).  Of the cards on that way, the nearest one holding a ``[[model]]`` whose ``prototxt`` is the
cfg's prototxt wins; when none holds one, the lookup still names the nearest card (so the user can
be told that it does not cover this net).  Parses are cached by content; whether the files an
entry names exist is asked each time (the editor's unsaved text and the disk as they are now).
"""

from __future__ import annotations

import hashlib
import os
from typing import Iterable

from nnie_lsp.core.content_cache import ContentCache
from nnie_lsp.core.records import FrozenRecord
from nnie_lsp.readers.card.reader import CardDocument, CardProblem, ModelCard, parse_card
from nnie_lsp.readers.card import card_paths

_CACHE = ContentCache(parse_card, size=16)


class CardLookup(FrozenRecord):
    """What the lookup found for one cfg."""

    card_path: str                          # the card used: the one with the entry, else the nearest
    document: CardDocument
    model: ModelCard | None                 # the entry for the cfg's prototxt (None: the card does not cover it)
    problems: tuple[CardProblem, ...]       # the document's problems and the missing files it names
    cards: tuple[str, ...] = ()             # every card on the way, nearest first
    prototxt: str | None = None             # the prototxt looked for (absolute)
    mean_file_sha256: str | None = None     # the entry's mean image, when it names one that can be read

    @property
    def found(self) -> bool:
        return self.model is not None

    def entry_problems(self) -> tuple[CardProblem, ...]:
        """The problems of the matched entry and of the file as a whole (not the other entries')."""
        index = self.model.index if self.model is not None else None
        return tuple(p for p in self.problems if p.model is None or p.model == index)

    def errors(self) -> tuple[CardProblem, ...]:
        return tuple(p for p in self.entry_problems() if p.severity == "error")

    def digest(self) -> str | None:
        """The matched entry's :meth:`~.reader.ModelCard.digest` (with its mean image's), or None."""
        return self.model.digest(self.mean_file_sha256) if self.model is not None else None

    def where(self, key: str | None = None) -> str:
        """``path/nnie.toml:4``: the line of `key` in the entry (else its header, else the file)."""
        if self.model is None:
            return self.card_path
        line = self.model.place(key).start.line + 1
        return f"{self.card_path}:{line}"


def read_card(path: str, provider=None) -> CardDocument | CardProblem:
    """The card at `path` (a cached parse of the provider's text), or the problem of reading it."""
    from nnie_lsp.project.sources import DiskProvider, provider_problem
    from nnie_lsp.core.safe_io import SETTINGS

    provider = provider or DiskProvider()
    decoded = provider.read_text(path, SETTINGS)
    if decoded is None:
        from nnie_lsp.core.text import Range
        from nnie_lsp.readers.card import messages as M

        problem = provider_problem(provider, path, SETTINGS, read=True)
        reason_en = problem.describe("en") if problem is not None else "it cannot be read"
        reason_zh = problem.describe("zh") if problem is not None else "无法读取"
        return CardProblem("unreadable", M.text("unreadable", "en", reason=reason_en),
                           M.text("unreadable", "zh", reason=reason_zh), Range.point(0, 0))
    return _CACHE.get(decoded.text, os.path.abspath(path))


def find_card(start: str, prototxts: str | Iterable[str] | None, provider=None) -> CardLookup | None:
    """The card of a cfg (module doc).  `start`: the cfg (or its folder); `prototxts`: the cfg's
    prototxt as resolved, and any other path that stands for the same net (a RuyiStudio marked copy's
    original).  None when there is no card on the way (or none can be read)."""
    from nnie_lsp.project.sources import DiskProvider

    provider = provider or DiskProvider()
    if isinstance(prototxts, str):
        prototxts = [prototxts]
    wanted = [os.path.abspath(p) for p in (prototxts or ()) if p]
    paths = card_paths(start, lambda p: provider.exists(p) and (os.path.isfile(p) or _overlaid(provider, p)))
    nearest: tuple[str, CardDocument] | None = None
    for path in paths:
        doc = read_card(path, provider)
        if isinstance(doc, CardProblem):
            if nearest is None:   # an unreadable card is still the nearest one: say why it was not read
                from nnie_lsp.core.text import LineIndex

                empty = CardDocument(path, "", (), (doc,), LineIndex(""))
                nearest = (path, empty)
            continue
        if nearest is None:
            nearest = (path, doc)
        for prototxt in wanted:
            models = doc.models_naming(prototxt)
            if models:
                return _lookup(path, doc, models[0], paths, prototxt, provider)
    if nearest is None:
        return None
    return _lookup(nearest[0], nearest[1], None, paths, wanted[0] if wanted else None, provider)


def _overlaid(provider, path: str) -> bool:
    overlay = getattr(provider, "overlay", None)
    return bool(overlay) and os.path.abspath(path) in overlay


def _lookup(path: str, doc: CardDocument, model: ModelCard | None, paths: list[str], prototxt: str | None,
            provider) -> CardLookup:
    problems = doc.problems + doc.file_problems(provider.exists)
    sha = None
    if model is not None and model.mean_file_path and provider.exists(model.mean_file_path):
        data = provider.read_bytes(model.mean_file_path)
        sha = hashlib.sha256(data).hexdigest() if data is not None else None
    return CardLookup(path, doc, model, problems, tuple(paths), prototxt, sha)


def clear_cache() -> None:
    _CACHE.clear()

"""The model card ``nnie.toml``: how each source model was trained, declared once, apart from the cfg.

The cfg says what ``nnie_mapper`` will do to an image; whether that is what the net was trained
with is exactly what the guide's step 2 asks, so the cfg can never be its own reference
(docs/field-facts.md §21).  The card is that reference::

    [[model]]
    prototxt = "model/yuface.prototxt"   # relative to this file; the cfg that names it uses this entry
    channel_order = "BGR"                # "RGB" | "BGR" | "GRAY": the order the trained net expects
    mean = [104, 117, 123]               # per channel in channel_order (one value: all); subtracted first
    scale = 1.0                          # then multiplied: one value or one per channel (1/std)
    transpose = false                    # true for nets trained with H and W swapped (MATLAB Caffe: MTCNN)

What lives here (each module one job):

- :mod:`.schema` -- the card's keys as data (kind, allowed values, en/zh docs, who reads them):
  the reader, hover, completion and the docs read it;
- :mod:`.messages` -- the card's problem texts (en/zh), registered by rule NN120;
- :mod:`.locate` -- where each table, key and value of a TOML text is (tomllib gives values only);
- :mod:`.reader` -- ``parse_card(text, path)``: an immutable :class:`~.reader.CardDocument` with
  exact ranges and positioned problems (TOML syntax, unknown key with did-you-mean, wrong types and
  lengths, a prototxt that does not exist);
- :mod:`.render` -- the text of a new entry and the edits that add it (a rule's fix, the editor's
  card flow, ``nnie-triage card``);
- :mod:`.expect` -- what a cfg must say, per input, for the mapper to feed what the card says
  (the lint rules NN121-NN124 judge with it).

This module itself only walks the folders (:func:`card_paths`): a lint without a card on the way
imports nothing more.

Elsewhere: finding the card of a cfg (its folder or any folder above, up to the repository root)
is the project's (:mod:`nnie_lsp.project.card_lookup`); drafting a card from inference code or
Caffe dumps is :mod:`nnie_lsp.card_draft`.  The project, the rules, the reference, the triage and
the editor features import this package; it imports none of them.

May import: core, readers.cfg.
"""

from __future__ import annotations

import os

CARD_FILE = "nnie.toml"
#: the most folders walked up from a cfg (a guard against pathological depths; real trees are < 30)
MAX_DEPTH = 64

__all__ = ["CARD_FILE", "card_paths", "repository_root"]


def repository_root(start: str) -> str | None:
    """The nearest folder at or above `start` holding ``.git`` (a folder or a worktree's file)."""
    d = os.path.abspath(start)
    for _ in range(MAX_DEPTH):
        if os.path.exists(os.path.join(d, ".git")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent
    return None


def card_paths(start: str, exists=os.path.isfile) -> list[str]:
    """The cards at or above the folder `start` (a file: its folder), nearest first, up to the
    repository root (the file system's root outside a repository)."""
    d = os.path.abspath(start)
    if not os.path.isdir(d):
        d = os.path.dirname(d)
    root = repository_root(d)
    out = []
    for _ in range(MAX_DEPTH):
        candidate = os.path.join(d, CARD_FILE)
        if exists(candidate):
            out.append(candidate)
        if root is not None and os.path.normcase(d) == os.path.normcase(root):
            break
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return out

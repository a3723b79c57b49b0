"""The model card ``nnie.toml``: how each source model was trained, declared once, apart from the cfg.

The cfg says what ``nnie_mapper`` will do to an image; whether that is what the net was trained
with is exactly what the guide's step 2 asks, so the cfg can never be its own reference
(docs/field-facts.md §19).  The card is that reference::

    [[model]]
    prototxt = "model/yuface.prototxt"   # relative to this file; the cfg that names it uses this entry
    channel_order = "BGR"                # "RGB" | "BGR" | "GRAY": the order the trained net expects
    mean = [104, 117, 123]               # per channel in channel_order (one value: all); subtracted first
    scale = 1.0                          # then multiplied: one value or one per channel (1/std)
    transpose = false                    # true for nets trained with H and W swapped (MATLAB Caffe: MTCNN)

What lives here (each module one job):

- :mod:`.schema` -- the card's keys as data (kind, allowed values, en/zh docs, who reads them):
  the reader, hover, completion, the docs and the README read it;
- :mod:`.messages` -- the card's problem texts (en/zh), registered by rule NN120;
- :mod:`.locate` -- where each table, key and value of a TOML text is (tomllib gives values only);
- :mod:`.reader` -- ``parse_card(text, path)``: an immutable :class:`~.reader.CardDocument` with
  exact ranges and positioned problems (TOML syntax, unknown key with did-you-mean, wrong types and
  lengths, a prototxt that does not exist);
- :mod:`.lookup` -- ``find_card(cfg_path, prototxt)``: the card of a cfg (its folder or any folder
  above, up to the repository root; the nearest card holding an entry for the cfg's prototxt wins);
- :mod:`.draft` -- draft cards from what the user has: inference code read with ``ast`` (never
  run), the user's own Caffe dumps (the case-1 fit between the image and the data blob); the
  text of a new entry (:mod:`.draft.render`).

Imports: :mod:`nnie_lsp.text`, :mod:`nnie_lsp.records`, :mod:`nnie_lsp.lang`, :mod:`nnie_lsp.safe_io`
and :mod:`nnie_lsp.sources` only (the draft from dumps loads numpy and the triage fit when it runs).
The project (:mod:`nnie_lsp.project`), the rules, the reference, the triage and the editor features
import this package; it imports none of them.
"""

from __future__ import annotations

CARD_FILE = "nnie.toml"

__all__ = ["CARD_FILE"]

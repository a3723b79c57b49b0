"""The model card's commands: ``nnie.draftCard`` (what the project says about how the net was
trained, for the editor's ask-once dialog and the code action) and ``nnie.writeCard`` (the values
the user confirmed, written to ``nnie.toml``).  The draft is :mod:`nnie_lsp.card_draft.for_cfg`;
nothing is written without ``nnie.writeCard`` or the code action the user picks.
docs/editor-protocol.md, "Model card"."""

from __future__ import annotations

import os
import time
from typing import Sequence

from pygls.exceptions import JsonRpcInvalidParams

from nnie_lsp.core import i18n
from nnie_lsp.server.server import NnieLanguageServer
from nnie_lsp.server.handlers.common import HandlerTable

handlers = HandlerTable()

DRAFT_CARD = "nnie.draftCard"
WRITE_CARD = "nnie.writeCard"
#: a draft is made again after this many seconds (it reads the repository's Python files)
DRAFT_TTL = 30.0
_DRAFTS: dict[tuple, tuple[float, object]] = {}


def _cfg_arg(ls: NnieLanguageServer, command: str, args: Sequence) -> tuple[str, dict]:
    raw = args[0] if args and isinstance(args[0], dict) else {}
    cfg = raw.get("cfg")
    if not isinstance(cfg, str) or not os.path.isfile(cfg):
        raise JsonRpcInvalidParams(i18n.t("triage.bad_args", ls.lang, command=command,
                                          error=f"cfg: {cfg!r} is not a file"))
    return os.path.abspath(cfg), raw


async def draft(ls: NnieLanguageServer, cfg: str):
    """The cfg's :class:`~nnie_lsp.card_draft.for_cfg.CardDraft`, made off the event loop (cached)."""
    from nnie_lsp.card_draft.for_cfg import draft_for_cfg
    from nnie_lsp.project.project import DiskProvider

    from nnie_lsp.readers.card import card_paths

    overlay, _versions = ls.documents.overlay()
    cards = []
    for path in card_paths(cfg):   # a card written or changed on disk makes the draft stale
        try:
            st = os.stat(path)
            cards.append((path, st.st_mtime_ns, st.st_size))
        except OSError:
            continue
    key = (cfg, ls.documents.state(), tuple(cards))
    hit = _DRAFTS.get(key)
    if hit is not None and time.monotonic() - hit[0] < DRAFT_TTL:
        return hit[1]
    result = await ls.scheduler.run_aux(draft_for_cfg, cfg, DiskProvider(dict(overlay)))
    if len(_DRAFTS) > 16:
        _DRAFTS.clear()
    _DRAFTS[key] = (time.monotonic(), result)
    return result


@handlers.command(DRAFT_CARD)
async def draft_card(ls: NnieLanguageServer, *args):
    """{cfg}: ``{cfg, prototxt, card, card_exists, has_entry, values: [{key, value, source,
    certain}], text, files, notes}``."""
    cfg, _raw = _cfg_arg(ls, DRAFT_CARD, args)
    return (await draft(ls, cfg)).to_json()


@handlers.command(WRITE_CARD)
async def write_card(ls: NnieLanguageServer, *args):
    """{cfg, values: {channel_order, mean, scale, transpose}, sources?: {key: text}}: the entry
    added to the nearest card (or a new ``nnie.toml`` beside the cfg); ``{card, text}``.  Refused when
    the card already describes the net, when a value is not valid, or when the card is open with
    unsaved changes."""
    from nnie_lsp.readers.card.render import add_entry_edits
    from nnie_lsp.readers.card.reader import parse_card
    from nnie_lsp.core.text import apply_edits, read_text

    cfg, raw = _cfg_arg(ls, WRITE_CARD, args)
    values = raw.get("values") if isinstance(raw.get("values"), dict) else {}
    sources = raw.get("sources") if isinstance(raw.get("sources"), dict) else {}
    result = await draft(ls, cfg)
    if result.has_entry or not result.prototxt:
        raise JsonRpcInvalidParams(f"{WRITE_CARD}: {result.card_path} already describes the net of {cfg}"
                                   if result.has_entry else f"{WRITE_CARD}: {cfg} names no prototxt that exists")
    uri = ls.documents.uri_for_path(result.card_path)
    current = read_text(result.card_path).text if os.path.exists(result.card_path) else None
    if uri is not None and current is not None and ls.documents.text(uri)[0] != current:
        raise JsonRpcInvalidParams(f"{WRITE_CARD}: save {os.path.basename(result.card_path)} first (it has unsaved "
                                   "changes)")
    known = {k: v for k, v in values.items() if k in ("channel_order", "mean", "scale", "transpose") and v is not None}
    comments = {k: str(sources.get(k) or "given in the editor") for k in known}
    edits = add_entry_edits(result.card_path, current, result.prototxt, known, comments,
                            "declared in the editor (nnie.writeCard)")
    text = apply_edits(current or "", [e.edit for e in edits])
    problems = [p for p in parse_card(text, result.card_path).problems if p.severity == "error"]
    if problems:
        raise JsonRpcInvalidParams(f"{WRITE_CARD}: {problems[0].message}")
    from nnie_lsp.core.atomic_write import write_bytes

    write_bytes(result.card_path, text.encode("utf-8"))
    _DRAFTS.clear()
    ls.settings_gen += 1          # every lint read the card: lint again
    ls.scheduler.relint_all()
    return {"card": result.card_path, "text": text}

"""The draft card for one cfg: what its project already holds, put together, never written silently.

:func:`draft_for_cfg` reads the cfg as the lint reads it (its prototxt, its image list), then

1. the user's own Caffe dumps beside the cfg (a folder of ``…_caffe.linear.float`` dumps that
   nnie-triage did NOT write: ours would be the cfg's or the card's own preprocessing, not a truth
   from outside): the fit of the data blob against the image (:mod:`.dumps`);
2. the inference and training code of the repository (the folders up to its root): :mod:`.code`,
   the files naming the net's prototxt or caffemodel first.

Per key the dumps' value wins (it is what the user's Caffe run computed); where the code says
otherwise the note says so and the value is marked uncertain.  The result carries the entry's text
(every value with where it came from as a comment; unknown values as comments for the user to
fill) and the edits that add it to the nearest card or create ``nnie.toml`` beside the cfg.
"""

from __future__ import annotations

import os

from nnie_lsp.core.records import FrozenRecord
from nnie_lsp.card_draft import Draft, DraftValue

KEYS = ("channel_order", "mean", "scale", "transpose")


class CardDraft(FrozenRecord):
    cfg: str
    prototxt: str | None              # absolute: the net the entry describes
    card_path: str                    # where the entry goes (the nearest card, else beside the cfg)
    card_exists: bool
    has_entry: bool                   # the card already describes this net (nothing to draft)
    draft: Draft
    text: str                         # the entry as it would be written
    edits: tuple = ()                 # FileEdits that add it (empty: nothing to add)
    entry: dict | None = None         # has_entry: what the card's entry declares (channel_order, mean, scale, transpose)

    def to_json(self) -> dict:
        return {"cfg": self.cfg, "prototxt": self.prototxt, "card": self.card_path, "card_exists": self.card_exists,
                "has_entry": self.has_entry, "entry": self.entry, "text": self.text, "files": list(self.draft.files),
                "notes": list(self.draft.notes),
                "values": [{"key": v.key, "value": v.value, "source": v.source, "certain": v.certain}
                           for v in self.draft.values]}


def user_caffe_dumps(cfg_path: str) -> list[str]:
    """Folders beside the cfg holding Caffe dumps that nnie-triage did not write."""
    from nnie_lsp.readers.dumpio.names import is_caffe_dump_name
    from nnie_lsp.triage.inputs.image_sets import read_manifest

    folder = os.path.dirname(os.path.abspath(cfg_path))
    out = []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    for name in names:
        path = os.path.join(folder, name)
        if not os.path.isdir(path) or name.startswith(".") or read_manifest(path) is not None:
            continue
        try:
            if any(is_caffe_dump_name(n) for n in os.listdir(path)):
                out.append(path)
        except OSError:
            continue
    return out


def merge(first: Draft | None, second: Draft | None) -> Draft:
    """Per key the first draft's known value, else the second's; a disagreement is a note."""
    values, notes = [], list((first.notes if first else ()) + (second.notes if second else ()))
    for key in KEYS:
        a = first.get(key) if first else None
        b = second.get(key) if second else None
        if a is not None and a.value is not None:
            if b is not None and b.value is not None and not _same(a.value, b.value):
                notes.append(f"{key}: {a.value} from {a.source}, but {b.value} from {b.source}")
                a = a._replace(certain=False)
            values.append(a)
        elif b is not None and b.value is not None:
            values.append(b)
        else:
            values.append(a or b or DraftValue(key, None, "unknown: nothing in the project says"))
    files = (first.files if first else ()) + (second.files if second else ())
    return Draft(tuple(values), files, tuple(notes))


def _same(a, b) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return abs(a - b) <= 1e-3 * max(abs(a), abs(b), 1e-9)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def draft_for_cfg(cfg_path: str, provider=None) -> CardDraft:
    """The draft card of a cfg (module doc)."""
    from nnie_lsp.project.project import load_project
    from nnie_lsp.readers.card import repository_root
    from nnie_lsp.card_draft.code import draft_from_code
    from nnie_lsp.card_draft.dumps import draft_from_dumps
    from nnie_lsp.readers.card.render import add_entry_edits, card_for_cfg, entry_text, relative_prototxt

    cfg_path = os.path.abspath(cfg_path)
    project = load_project(cfg_path=cfg_path, load_prototxt=False, provider=provider)
    origin = project.prototxt_origin
    prototxt = origin.resolved if origin is not None and origin.resolved else None
    card = project.card
    card_path = card_for_cfg(cfg_path, card.card_path if card is not None else None)
    has_entry = card is not None and card.model is not None
    if has_entry:   # nothing to draft: what the entry declares
        m = card.model
        entry = {"channel_order": m.channel_order, "mean": list(m.mean) if m.mean else None,
                 "scale": list(m.scale) if m.scale else None, "transpose": m.transpose}
        return CardDraft(cfg_path, prototxt, card_path, True, True, Draft(()), "", (), entry)
    images = project.calibration_images(project.preprocessing[0]) if project.preprocessing else []
    from_dumps = None
    notes = []
    for folder in user_caffe_dumps(cfg_path):
        try:
            from_dumps = draft_from_dumps(folder, [i for i in images if os.path.isfile(i)])
        except ImportError:   # OpenCV reads the image: without it the dumps cannot be fitted
            notes.append(f"{folder}: the Caffe dumps there are not read (OpenCV is not installed)")
            break
        if from_dumps is not None and not from_dumps.empty:
            break
    root = repository_root(os.path.dirname(cfg_path)) or os.path.dirname(cfg_path)
    mentions = [os.path.splitext(os.path.basename(p))[0] for p in (prototxt,) if p]
    model = next((r.resolved for r in project.refs if r.entry.key == "caffemodel_file" and r.resolved), None)
    if model:
        mentions.append(os.path.splitext(os.path.basename(model))[0])
    from_code = draft_from_code(root, mentions, near=os.path.dirname(cfg_path))
    draft = merge(from_dumps, from_code)
    if notes:
        draft = draft._replace(notes=draft.notes + tuple(notes))
    rel = relative_prototxt(card_path, prototxt) if prototxt else "?"
    known = {v.key: v.value for v in draft.values if v.value is not None}
    comments = {v.key: v.source for v in draft.values if v.value is not None}
    header = "drafted by nnie-lsp from " + ", ".join(os.path.relpath(f, os.path.dirname(card_path))
                                                    for f in draft.files[:3]) if draft.files else None
    text = entry_text(rel, known, comments, header)
    unknown = [v for v in draft.values if v.value is None]
    text += "".join(f"# {v.key} = ?   {v.source}\n" for v in unknown)
    edits: tuple = ()
    if prototxt and not has_entry and known:
        current = card.document.text if card is not None and card.card_path == card_path else None
        edits = tuple(add_entry_edits(card_path, current, prototxt, known, comments, header))
        if unknown:   # the unknown values as comments, after the entry
            from nnie_lsp.core.diagnostics import FileEdit
            from nnie_lsp.core.text import TextEdit

            last = edits[-1]
            edits = edits[:-1] + (FileEdit(last.path, TextEdit(last.edit.range, last.edit.new_text + "".join(
                f"# {v.key} = ?   {v.source}\n" for v in unknown))),)
    return CardDraft(cfg_path, prototxt, card_path, card is not None, False, draft, text, edits)

"""``nnie.toml`` reader: text -> :class:`CardDocument`, immutable, with exact ranges.

:mod:`tomllib` reads the values (``tomli`` on Python 3.10); :mod:`.locate` says where each one is.
A card is never half-read: a TOML syntax error gives a document with that one problem (at the
line and column tomllib names) and no entries; otherwise every ``[[model]]`` becomes a
:class:`ModelCard` whose invalid values are left unset (None) with a problem each -- never guessed.
What a key means and takes is :mod:`.schema`; the texts are :mod:`.messages`.

Pure: nothing here reads another file.  Whether the files an entry names exist is
:meth:`CardDocument.file_problems` (given the lookup's ``exists``), so a parse can be cached by
content while the file checks follow the disk.
"""

from __future__ import annotations

import math
import os
import re
from nnie_lsp.core.records import FrozenRecord
from nnie_lsp.core.text import LineIndex, Position, Range
from nnie_lsp.core.toml import toml_module
from nnie_lsp.readers.card import messages as M
from nnie_lsp.readers.card.locate import Header, Pair, error_position, locate
from nnie_lsp.readers.card.schema import (BOOL, BY_NAME, CHANNEL_ORDERS, CHOICE, KEYS, MODEL_TABLE, NUMBERS, ORDER, ORDER_CHANNELS, PATH,
                     SIZE, SIZE_UNITS, TEXT, suggest)

ERROR, WARNING = "error", "warning"
#: the keys whose values decide the preprocessing (what :meth:`ModelCard.digest` covers)
PREPROCESSING_KEYS = ("channel_order", "mean", "mean_file", "scale", "transpose")
#: a mean whose every value is below this is taken for a mean on [0, 1] data (NN120 warns)
UNIT_MEAN_BELOW = 1.0
#: a scale at or above this is taken for a std written as the scale (NN120 warns)
STD_AS_SCALE_FROM = 10.0


class CardProblem(FrozenRecord):
    """One problem of a card: its texts in both languages, where, and how bad."""

    msg_id: str
    message: str
    message_zh: str
    range: Range
    severity: str = ERROR          # ERROR | WARNING
    key: str | None = None
    model: int | None = None       # the [[model]] it is in (0-based), None for the file
    suggestion: str | None = None  # did-you-mean: the key or file name meant
    replace: Range | None = None   # where the suggestion goes (a fix renames this range)


def _problem(msg_id: str, rng: Range, *, severity: str = ERROR, key: str | None = None, model: int | None = None,
             suggestion: str | None = None, replace: Range | None = None, **params) -> CardProblem:
    params.setdefault("key", key)

    def render(lang: str) -> str:
        p = {k: (v(lang) if callable(v) else v) for k, v in params.items()}
        return M.text(msg_id, lang, **p)
    return CardProblem(msg_id, render("en"), render("zh"), rng, severity, key, model, suggestion, replace)


class ModelCard(FrozenRecord, not_compared=("raw",)):
    """One ``[[model]]`` entry: the declared training preprocessing of one source model.

    A value that is absent or invalid is None (``declared(name)`` says which were written right).
    ``mean`` and ``scale`` hold what was written (one value, or one per channel in
    ``channel_order``); :meth:`means` / :meth:`scales` give them per channel."""

    index: int
    card_path: str | None
    header_range: Range
    range: Range                              # the header to the end of the last value
    key_ranges: tuple[tuple[str, Range], ...]
    value_ranges: tuple[tuple[str, Range], ...]
    raw: dict
    prototxt: str | None = None
    channel_order: str | None = None
    mean: tuple[float, ...] | None = None
    mean_file: str | None = None
    scale: tuple[float, ...] | None = None
    transpose: bool | None = None
    source: str | None = None
    framework: str | None = None
    chip: str | None = None
    board_memory: int | None = None

    # -------------------------------------------------------------- where
    def key_range(self, name: str) -> Range | None:
        return dict(self.key_ranges).get(name)

    def value_range(self, name: str) -> Range | None:
        return dict(self.value_ranges).get(name)

    def place(self, name: str | None = None) -> Range:
        """The value of `name` when it was written, else the ``[[model]]`` header."""
        return (self.value_range(name) if name else None) or self.header_range

    def where(self, name: str | None = None) -> str:
        """``nnie.toml:4`` (1-based line of `name`'s value, else of the header)."""
        line = self.place(name).start.line + 1
        return f"{os.path.basename(self.card_path or 'nnie.toml')}:{line}"

    @property
    def folder(self) -> str:
        return os.path.dirname(os.path.abspath(self.card_path)) if self.card_path else os.getcwd()

    def resolve(self, written: str | None) -> str | None:
        if not written:
            return None
        return os.path.normpath(os.path.join(self.folder, os.path.expanduser(written)))

    @property
    def prototxt_path(self) -> str | None:
        return self.resolve(self.prototxt)

    @property
    def mean_file_path(self) -> str | None:
        return self.resolve(self.mean_file)

    # -------------------------------------------------------------- what
    def declared(self, name: str) -> bool:
        return getattr(self, name, None) is not None

    @property
    def declares_preprocessing(self) -> bool:
        return any(self.declared(k) for k in PREPROCESSING_KEYS)

    @property
    def channels(self) -> int | None:
        return ORDER_CHANNELS.get(self.channel_order) if self.channel_order else None

    def means(self, channels: int) -> tuple[float, ...] | None:
        """The mean per channel for a `channels`-channel input (one value: every channel)."""
        return _per_channel(self.mean, channels)

    def scales(self, channels: int) -> tuple[float, ...] | None:
        return _per_channel(self.scale, channels)

    @property
    def uniform_scale(self) -> float | None:
        """The scale when it is one value for every channel, else None."""
        if not self.scale:
            return None
        first = self.scale[0]
        return first if all(math.isclose(s, first, rel_tol=1e-9) for s in self.scale) else None

    def describe(self) -> str:
        """``BGR, mean 104, 117, 123, scale 1, not transposed`` (what is declared)."""
        parts = []
        if self.channel_order:
            parts.append(self.channel_order)
        if self.mean is not None:
            parts.append("mean " + ", ".join(_num(v) for v in self.mean))
        if self.mean_file:
            parts.append(f"mean image {self.mean_file}")
        if self.scale is not None:
            parts.append("scale " + ", ".join(_num(v) for v in self.scale))
        if self.transpose is not None:
            parts.append("transposed (H and W swapped)" if self.transpose else "not transposed")
        return ", ".join(parts) or "nothing declared"

    def digest(self, mean_file_sha256: str | None = None) -> str:
        """A stable SHA-256 of what decides the preprocessing: the prototxt it names and the values
        of :data:`PREPROCESSING_KEYS` (normalized: ``[104, 117, 123]`` and ``[104.0, 117.0, 123.0]``
        are the same; comments, ``source`` and key order do not count), plus the mean image's own
        digest when one is named (``mean_file_sha256``: the lookup reads it)."""
        import hashlib
        import json

        doc = {"prototxt": os.path.normpath(self.prototxt) if self.prototxt else None}
        for k in PREPROCESSING_KEYS:
            v = getattr(self, k)
            doc[k] = [float(x) for x in v] if isinstance(v, tuple) else v
        if self.mean_file:
            doc["mean_file_sha256"] = mean_file_sha256
        return hashlib.sha256(json.dumps(doc, sort_keys=True).encode("utf-8")).hexdigest()


class CardDocument(FrozenRecord, not_compared=("line_index", "items")):
    path: str | None
    text: str
    models: tuple[ModelCard, ...]
    problems: tuple[CardProblem, ...]
    line_index: LineIndex
    items: tuple = ()                 # the located headers and pairs (also of a text with a syntax error)

    @property
    def ok(self) -> bool:
        return not any(p.severity == ERROR for p in self.problems)

    def model_at(self, pos: Position) -> ModelCard | None:
        found = None
        for m in self.models:
            if m.header_range.start <= pos:
                found = m
        return found

    def pair_at(self, pos: Position) -> Pair | None:
        """The key/value pair whose key or value holds `pos` (hover, completion)."""
        for item in self.items:
            if isinstance(item, Pair) and (item.key_range.contains(pos) or item.value_range.contains(pos)):
                return item
        return None

    def table_at(self, pos: Position) -> tuple[str, ...]:
        """The keys of the table header above `pos` (``("model",)`` inside a [[model]]), () at the top."""
        table: tuple[str, ...] = ()
        for item in self.items:
            if isinstance(item, Header) and item.range.start <= pos:
                table = item.keys
        return table

    def models_naming(self, prototxt: str) -> list[ModelCard]:
        target = os.path.normcase(os.path.normpath(os.path.abspath(prototxt)))
        return [m for m in self.models if m.prototxt_path and os.path.normcase(m.prototxt_path) == target]

    def file_problems(self, exists=os.path.exists, listdir=None) -> tuple[CardProblem, ...]:
        """The files the entries name that do not exist (``prototxt``, ``mean_file``), with a
        did-you-mean among the files of that folder (``listdir``, default :func:`os.listdir`)."""
        out = []
        for m in self.models:
            for key in ("prototxt", "mean_file"):
                written = getattr(m, key)
                path = m.resolve(written)
                if path is None or exists(path):
                    continue
                hint, suggestion = "", _similar_file(path, BY_NAME[key].extension, listdir)
                if suggestion is not None:
                    rel = os.path.relpath(suggestion, m.folder).replace(os.sep, "/")
                    hint = lambda lang, rel=rel: M.text("did_you_mean_file", lang, suggestion=f'"{rel}"')
                    suggestion = rel
                out.append(_problem("missing_file", m.place(key), key=key, model=m.index, suggestion=suggestion,
                                    replace=m.value_range(key), written=f'"{written}"', looked=path, hint=hint))
        return tuple(out)


def _similar_file(path: str, extension: str, listdir=None) -> str | None:
    import difflib

    folder, name = os.path.split(path)
    try:
        names = (listdir or os.listdir)(folder)
    except OSError:
        return None
    if extension:
        names = [n for n in names if n.lower().endswith(extension)]
    found = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    return os.path.join(folder, found[0]) if found else None


def _per_channel(values: tuple[float, ...] | None, channels: int) -> tuple[float, ...] | None:
    if values is None:
        return None
    if len(values) == 1:
        return values * channels
    return values if len(values) == channels else None


def _num(v: float) -> str:
    return f"{v:g}"


# ------------------------------------------------------------------------------------ parsing

def parse_card(text: str, path: str | None = None) -> CardDocument:
    """The card in `text` (module doc).  Never raises on content."""
    idx = LineIndex(text)
    tomllib = toml_module()
    items = tuple(locate(text, idx))
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return CardDocument(path, text, (), (_syntax_problem(str(exc), idx),), idx, items)
    problems: list[CardProblem] = []
    models: list[ModelCard] = []
    pairs_by_model, headers, top_pairs = _group(items)
    for k, v in data.items():
        if k == MODEL_TABLE:
            continue
        rng = next((p.key_range for p in top_pairs if p.keys[:1] == (k,)), None)
        if rng is None:
            rng = next((h.range for h in headers if h.keys[:1] == (k,)), idx.line_range(0))
        hint = _did_you_mean(k, (MODEL_TABLE,))
        problems.append(_problem("unknown_top", rng, key=k, hint=hint))
    raw_models = data.get(MODEL_TABLE)
    model_headers = [h for h in headers if h.keys == (MODEL_TABLE,)]
    if raw_models is None:
        if not problems:
            problems.append(_problem("no_models", idx.line_range(0), severity=WARNING))
    elif isinstance(raw_models, dict):
        header = model_headers[0] if model_headers else None
        rng = header.range if header else _top_range(top_pairs, MODEL_TABLE, idx)
        problems.append(_problem("not_array", rng, key=MODEL_TABLE))
    elif not isinstance(raw_models, list) or not all(isinstance(t, dict) for t in raw_models):
        problems.append(_problem("model_type", _top_range(top_pairs, MODEL_TABLE, idx), key=MODEL_TABLE,
                                 got=lambda lang: M.type_name(raw_models, lang)))
    else:
        inline = not any(h.array for h in model_headers)   # model = [{...}, {...}]: one range for all
        for n, table in enumerate(raw_models):
            if not inline and n < len(model_headers):
                header, pairs = model_headers[n].range, pairs_by_model.get(n, [])
            else:
                header, pairs = _top_range(top_pairs, MODEL_TABLE, idx), []
            model, found = _model(n, table, header, pairs, path, idx)
            models.append(model)
            problems += found
    problems += _duplicates(models)
    return CardDocument(path, text, tuple(models), tuple(problems), idx, items)


def _syntax_problem(message: str, idx: LineIndex) -> CardProblem:
    at = error_position(message)
    error = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)\s*$", "", message)
    if at is None:
        last = max(0, idx.line_count - 1)
        rng = idx.line_range(last)
    else:
        line, col = at
        line = min(line, idx.line_count - 1)
        content = idx.line_range(line)
        col = min(col, content.end.character)
        rng = Range(Position(line, col), Position(line, content.end.character))
        if col >= content.end.character:   # at the end of the line: the whole line
            rng = content
    return _problem("syntax", rng, error=error)


def _group(items) -> tuple[dict[int, list[Pair]], list[Header], list[Pair]]:
    """Pairs by the [[model]] they follow, every header, and the pairs above any header."""
    by_model: dict[int, list[Pair]] = {}
    headers: list[Header] = []
    top: list[Pair] = []
    model = -1
    current: tuple[str, ...] | None = None
    for item in items:
        if isinstance(item, Header):
            headers.append(item)
            current = item.keys
            if item.keys == (MODEL_TABLE,) and item.array:
                model += 1
            continue
        if current is None:
            top.append(item)
        elif current == (MODEL_TABLE,) and model >= 0:
            by_model.setdefault(model, []).append(item)
    return by_model, headers, top


def _top_range(top_pairs: list[Pair], key: str, idx: LineIndex) -> Range:
    return next((p.key_range for p in top_pairs if p.keys[:1] == (key,)), idx.line_range(0))


def _did_you_mean(name: str, candidates: tuple[str, ...]):
    s = suggest(name, candidates)
    if s is None:
        return ""
    return lambda lang: M.text("did_you_mean", lang, suggestion=s)


def _model(n: int, table: dict, header: Range, pairs: list[Pair], path: str | None,
           idx: LineIndex) -> tuple[ModelCard, list[CardProblem]]:
    key_ranges = {p.keys[0]: p.key_range for p in pairs if p.keys}
    value_ranges = {p.keys[0]: p.value_range for p in pairs if len(p.keys) == 1}
    end = max([header.end] + [p.value_range.end for p in pairs])
    problems: list[CardProblem] = []
    values: dict = {}

    def at(key: str) -> Range:
        return value_ranges.get(key) or key_ranges.get(key) or header

    def bad(msg_id: str, key: str, severity: str = ERROR, **params) -> None:
        problems.append(_problem(msg_id, at(key), severity=severity, key=key, model=n, **params))

    for key, value in table.items():
        spec = BY_NAME.get(key)
        if spec is None:
            rng = key_ranges.get(key, header)
            if key.lower() in ("std", "stddev", "std_dev"):
                problems.append(_problem("std_key", rng, key=key, model=n, suggestion="scale", replace=rng))
                continue
            s = suggest(key)
            problems.append(_problem("unknown_key", rng, key=key, model=n, suggestion=s,
                                     replace=rng if s else None, hint=_did_you_mean(key, tuple(BY_NAME))))
            continue
        if isinstance(value, dict):
            bad("nested", key)
            continue
        checked = _check_value(spec, value, bad)
        if checked is not None:
            values[key] = checked
    order = values.get("channel_order")
    for key in ("mean", "scale"):
        v = values.get(key)
        if v is None:
            continue
        if order is not None and len(v) not in (1, ORDER_CHANNELS[order]):
            expected = "1 or 3" if ORDER_CHANNELS[order] == 3 else "1"
            bad("length", key, count=len(v), order=order, expected=expected)
            values.pop(key)
        elif order is None and len(v) not in (1, 3):
            bad("length_no_order", key, count=len(v))
            values.pop(key)
    if "scale" in values and any(s <= 0 for s in values["scale"]):
        bad("scale_positive", "scale", value=", ".join(_num(s) for s in values["scale"]))
        values.pop("scale")
    if "mean" in values and values["mean"] and all(0 < abs(m) < UNIT_MEAN_BELOW for m in values["mean"]):
        bad("mean_unit", "mean", WARNING, values=", ".join(_num(m) for m in values["mean"]),
            pixels=", ".join(f"{m * 255:.6g}" for m in values["mean"]))
    if "scale" in values and all(s >= STD_AS_SCALE_FROM for s in values["scale"]):
        bad("scale_unit", "scale", WARNING, value=", ".join(_num(s) for s in values["scale"]),
            inverse=", ".join(f"{1 / s:.6g}" for s in values["scale"]))
    if "mean" in values and "mean_file" in values:
        bad("mean_twice", "mean_file")
    if "mean_file" in values and not values["mean_file"].lower().endswith(".binaryproto"):
        bad("mean_file_kind", "mean_file", written=f'"{values["mean_file"]}"')
        values.pop("mean_file")
    if "prototxt" not in table:
        problems.append(_problem("required", header, key="prototxt", model=n))
    elif "prototxt" in values and not any(k in table for k in PREPROCESSING_KEYS) and all(k in BY_NAME for k in table):
        problems.append(_problem("no_values", header, severity=WARNING, model=n))
    model = ModelCard(n, path, header, Range(header.start, end), tuple(key_ranges.items()),
                      tuple(value_ranges.items()), table, **values)
    return model, problems


def _check_value(spec, value, bad):
    """The value normalized for its kind, or None after recording why it is not one."""
    kind = spec.kind

    def wrong_type():
        bad("type", spec.name, expected=lambda lang: M.text(f"kind_{kind}", lang),
            got=lambda lang: M.type_name(value, lang))
        return None

    if kind in (PATH, TEXT):
        if not isinstance(value, str):
            return wrong_type()
        return value
    if kind in (ORDER, CHOICE):
        if not isinstance(value, str):
            return wrong_type()
        choices = CHANNEL_ORDERS if kind == ORDER else spec.choices
        for c in choices:
            if value.strip().lower() == c.lower():
                return c
        bad("choice", spec.name, value=f'"{value}"', choices=", ".join(f'"{c}"' for c in choices))
        return None
    if kind == BOOL:
        if not isinstance(value, bool):
            return wrong_type()
        return value
    if kind == NUMBERS:
        items = value if isinstance(value, list) else [value]
        if not items:
            bad("empty_list", spec.name)
            return None
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in items):
            return wrong_type()
        if not all(math.isfinite(float(v)) for v in items):
            bad("not_finite", spec.name)
            return None
        return tuple(float(v) for v in items)
    if kind == SIZE:
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            return wrong_type()
        size = _size(value)
        if size is None:
            bad("board_memory", spec.name, value=repr(value) if isinstance(value, str) else str(value))
        return size
    raise AssertionError(kind)


def _size(value) -> int | None:
    if isinstance(value, int):
        return value if value > 0 else None
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", value)
    if m is None:
        return None
    unit = SIZE_UNITS.get(m.group(2).lower() or "b")
    return int(float(m.group(1)) * unit) if unit else None


def _duplicates(models: list[ModelCard]) -> list[CardProblem]:
    out = []
    seen: dict[str, ModelCard] = {}
    for m in models:
        if not m.prototxt:
            continue
        key = os.path.normcase(os.path.normpath(m.prototxt))
        first = seen.get(key)
        if first is None:
            seen[key] = m
            continue
        out.append(_problem("duplicate", m.place("prototxt"), key="prototxt", model=m.index,
                            prototxt=f'"{m.prototxt}"', line=first.header_range.start.line + 1))
    return out


__all__ = ["CardDocument", "CardProblem", "ModelCard", "parse_card", "KEYS", "PREPROCESSING_KEYS"]

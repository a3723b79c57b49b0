"""Editor features of the model card ``nnie.toml`` (no LSP types): hover and completion of its keys
and values, read from the one key table (:mod:`nnie_lsp.readers.card.schema`), as the cfg's are from
:mod:`nnie_lsp.readers.cfg.keys`; and the card's line in a cfg's hover (what the training says beside what
the cfg says).
"""

from __future__ import annotations

import os
import re

from nnie_lsp.readers.card import reader as card_reader
from nnie_lsp.readers.card.locate import Header
from nnie_lsp.readers.card.schema import BOOL, BY_NAME, CHOICE, KEYS, MODEL_TABLE, NUMBERS, ORDER, PATH, CardKey, suggest
from nnie_lsp.core.lang import pick
from nnie_lsp.core.text import LineIndex, Position, Range
from nnie_lsp.editor.completion import Completion

Hover = tuple[str, Range]

_T = {
    "values": ("Values", "取值"),
    "example": ("Example", "示例"),
    "read_by": ("Read by", "使用者"),
    "reserved": ("Reserved for the checks of the mapper's `.wk` output.", "保留给 mapper 输出 `.wk` 的检查使用。"),
    "unknown": ("unknown key of a model card", "模型卡片的未知配置项"),
    "did_you_mean": ("Did you mean `{key}`?", "是否应为 `{key}`？"),
    "resolved": ("→ `{path}`", "→ `{path}`"),
    "missing": ("→ `{path}` (no such file)", "→ `{path}`（文件不存在）"),
    "entry": ("**[[model]]** — how one source model was trained", "**[[model]]** —— 一个源模型的训练方式"),
    "entry_applies": ("Judges every cfg whose `[prototxt_file]` is `{path}`.", "检查 `[prototxt_file]` 为 `{path}` 的每个 cfg。"),
    "entry_declares": ("Declares: {what}.", "声明：{what}。"),
    "model_snippet": ("a source model: how it was trained", "一个源模型：其训练方式"),
    "card_line": ("Model card {where}: {key} = {value}", "模型卡片 {where}：{key} = {value}"),
}


def _t(msg: str, lang: str, **params) -> str:
    return pick(_T[msg], lang).format(**params)


def key_markdown(spec: CardKey, lang: str = "en") -> str:
    lines = [f"**`{spec.name}`** — {pick(spec.summary, lang)}", "", pick(spec.doc, lang), ""]
    if spec.choices:
        lines.append(f"{_t('values', lang)}: " + ", ".join(f"`\"{c}\"`" for c in spec.choices))
    lines.append(f"{_t('example', lang)}: `{spec.name} = {spec.example}`")
    if spec.read_by:
        lines.append(f"{_t('read_by', lang)}: {spec.read_by}")
    if spec.reserved:
        lines.append(_t("reserved", lang))
    return "\n".join(lines).rstrip() + "\n"


def card_hover(text: str, path: str | None, pos: Position, lang: str = "en", exists=os.path.exists) -> Hover | None:
    """Hover in a card: a key (its docs), a path value (where it resolves), a ``[[model]]`` header
    (what the entry declares and which cfgs it judges)."""
    doc = card_reader.parse_card(text, path)
    for item in doc.items:
        if isinstance(item, Header) and item.range.contains(pos) and item.keys == (MODEL_TABLE,):
            model = doc.model_at(pos)
            lines = [_t("entry", lang), ""]
            if model is not None and model.prototxt:
                lines.append(_t("entry_applies", lang, path=model.prototxt))
                lines.append(_t("entry_declares", lang, what=model.describe()))
            return "\n".join(lines) + "\n", item.range
    pair = doc.pair_at(pos)
    if pair is None or not pair.keys:
        return None
    name = pair.keys[-1]
    spec = BY_NAME.get(name) if pair.table == (MODEL_TABLE,) or pair.keys[0] == MODEL_TABLE else None
    if pair.key_range.contains(pos):
        if spec is not None:
            return key_markdown(spec, lang), pair.key_range
        s = suggest(name)
        md = f"**`{name}`** — {_t('unknown', lang)}"
        if s:
            md += "\n\n" + _t("did_you_mean", lang, key=s)
        return md, pair.key_range
    if spec is None:
        return None
    md = key_markdown(spec, lang)
    if spec.kind == PATH:
        written = pair.value_text.strip().strip("\"'")
        folder = os.path.dirname(os.path.abspath(path)) if path else os.getcwd()
        full = os.path.normpath(os.path.join(folder, written))
        md = (_t("resolved" if exists(full) else "missing", lang, path=full)) + "\n\n---\n\n" + md
    return md, pair.value_range


def cfg_card_line(project, key: str, lang: str = "en") -> str | None:
    """What the model card says about a cfg key's concern (``[RGB_order]`` → ``channel_order``), for
    the cfg's hover; None without a card entry that declares it."""
    card = getattr(project, "card", None)
    model = card.model if card is not None else None
    if model is None:
        return None
    concern = {"RGB_order": ("channel_order",), "mean_file": ("mean", "mean_file"), "norm_type": ("mean", "scale"),
               "data_scale": ("scale",), "image_list": ("transpose",)}.get(key, ())
    parts = []
    for name in concern:
        value = getattr(model, name, None)
        if value is None:
            continue
        if isinstance(value, tuple):
            shown = f"{value[0]:g}" if len(value) == 1 else "[" + ", ".join(f"{v:g}" for v in value) + "]"
        else:
            shown = "true" if value is True else "false" if value is False else '"' + str(value) + '"'
        parts.append(_t("card_line", lang, where=model.where(name), key=name, value=shown))
    return "\n\n".join(parts) if parts else None


# ------------------------------------------------------------------------------------ completion

_KEY_TYPED = re.compile(r"^(\s*)([A-Za-z_]*)$")
_VALUE_TYPED = re.compile(r"^\s*([A-Za-z_]+)\s*=\s*(\"?)([^\"]*)$")
#: the [[model]] snippet: the contract keys with their examples
MODEL_SNIPPET = ('[[model]]\nprototxt = "${1:model/net.prototxt}"\nchannel_order = "${2|BGR,RGB,GRAY|}"\n'
                 "mean = ${3:[104, 117, 123]}\nscale = ${4:1.0}\ntranspose = ${5|false,true|}\n")


def card_completions(text: str, path: str | None, pos: Position, lang: str = "en") -> list[Completion]:
    """Keys of a ``[[model]]`` (the ones the entry lacks) with their example values, values of the
    key before the cursor (orders, choices, booleans, files of the expected kind), and the
    ``[[model]]`` table itself on an empty line."""
    li = LineIndex(text)
    line = li.line_text(pos.line)[:pos.character]
    doc = card_reader.parse_card(text, path)
    table = doc.table_at(pos)
    m = _VALUE_TYPED.match(line)
    if m and table == (MODEL_TABLE,):
        spec = BY_NAME.get(m.group(1))
        if spec is None:
            return []
        start = Position(pos.line, pos.character - len(m.group(3)) - len(m.group(2)))
        return _values(spec, Range(start, pos), m.group(3), path)
    m = _KEY_TYPED.match(line)
    if not m:
        return []
    rng = Range(Position(pos.line, len(m.group(1))), pos)
    out: list[Completion] = []
    if table == (MODEL_TABLE,):
        have = _keys_of_entry(doc, pos)
        for rank, spec in enumerate(KEYS):
            if spec.name in have:
                continue
            out.append(Completion(spec.name, "key", f"{spec.name} = {spec.example}", rng,
                                  detail=pick(spec.summary, lang), documentation=key_markdown(spec, lang),
                                  sort_text=f"{rank:02d}{spec.name}"))
    if not m.group(1):
        out.append(Completion("[[model]]", "message", MODEL_SNIPPET, rng, detail=_t("model_snippet", lang),
                              snippet=True, sort_text="99model", filter_text="[[model]] model"))
    return out


def _keys_of_entry(doc, pos: Position) -> set[str]:
    """The keys written in the ``[[model]]`` around `pos` (from the located items: also while the
    text does not parse, as it does not while a line is being typed)."""
    from nnie_lsp.readers.card.locate import Pair

    start = end = None
    for item in doc.items:
        if isinstance(item, Header):
            if item.range.start <= pos:
                start, end = item.range.start, None
            elif end is None and start is not None:
                end = item.range.start
    if start is None:
        return set()
    return {item.keys[0] for item in doc.items if isinstance(item, Pair) and item.keys
            and start <= item.key_range.start and (end is None or item.key_range.start < end)
            and item.key_range.start.line != pos.line}


def _values(spec: CardKey, rng: Range, typed: str, path: str | None) -> list[Completion]:
    if spec.kind in (ORDER, CHOICE):
        return [Completion(c, "enum", f'"{c}"', rng, detail=spec.name, filter_text=f'"{c}') for c in spec.choices]
    if spec.kind == BOOL:
        return [Completion(v, "enum", v, rng, detail=spec.name) for v in ("false", "true")]
    if spec.kind == NUMBERS:
        return [Completion(spec.example, "value", spec.example, rng, detail=spec.name)]
    if spec.kind == PATH and path:
        return _files(spec, rng, typed, os.path.dirname(os.path.abspath(path)))
    return []


def _files(spec: CardKey, rng: Range, typed: str, base: str) -> list[Completion]:
    head, _, _partial = typed.replace("\\", "/").rpartition("/")
    folder = os.path.normpath(os.path.join(base, head or "."))
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    out = []
    for name in names[:200]:
        if name.startswith("."):
            continue
        is_dir = os.path.isdir(os.path.join(folder, name))
        if not is_dir and spec.extension and not name.lower().endswith(spec.extension):
            continue
        shown = (head + "/" if head else "") + name + ("/" if is_dir else "")
        out.append(Completion(shown, "value", f'"{shown}' + ("" if is_dir else '"'), rng,
                              detail="folder" if is_dir else spec.name, filter_text=f'"{shown}'))
    return out

"""Source and status tags (``[C, S13]``, ``[C-u, S3]``, ``[I]``, ``[?]``) in hover and completion
texts, explained: each status becomes a plain word ("confirmed", "inferred"…) and each source,
section or "corpus" a link to its entry in ``docs/field-facts.md``.

The meanings have one home, the page itself (shipped in the package): its "How code cites this
page" list gives the status tags and their words (the text before the first ``:``/``,``/``;`` of
each bullet), §15 the sources, and every ``## N.`` / ``### N.M`` heading a section.  This module
only reads the page; the Simplified Chinese word of each status is a UI string
(``facts.status.*`` in :mod:`nnie_lsp.core.i18n`).  Links point at the entry's line
(``field-facts.md#L24``: VS Code opens ``file:`` links at such a line, as the rule links do), with
the entry's text as the link title (shown on hover).

A bracket group is a tag group only when its first item is a tag, so ``[RGB_order]`` and
``[CfgEntry]`` are left alone; code spans and fenced blocks are never touched, and an explained
text is left as it is when explained again.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

from nnie_lsp.core import i18n

FIELD_FACTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "field-facts.md")

STATUSES = ("C", "C-u", "I", "?")


@dataclass(frozen=True)
class Entry:
    line: int       # 1-based line of the entry in field-facts.md
    word: str       # the plain word (statuses) or the tag itself
    text: str       # the entry's text (the link's title)


@dataclass(frozen=True)
class Facts:
    url: str                                 # file: URI of field-facts.md
    statuses: dict[str, Entry]
    sources: dict[str, Entry]                # "S13" -> §15 entry
    sections: dict[str, int]                 # "16.4" -> heading line
    corpus: int | None                       # line of the "Corpus" explanation


_STATUS_BULLET = re.compile(r"^\s*- \*\*\[(C-u|C|I|\?)\]\*\*\s+(.*)$")
_SOURCE_BULLET = re.compile(r"^- \*\*(S\d+[a-z]?)\*\*\s+(.*)$")
_INLINE_SOURCE = re.compile(r"\*\*(S\d+[a-z]?)\*\*")
_HEADING = re.compile(r"^#{2,3} (\d+(?:\.\d+)*)\.? ")


def _clean(text: str) -> str:
    text = re.sub(r"\*\*|`", "", " ".join(text.split()))
    return text.rstrip(";. ")


@functools.lru_cache(maxsize=2)
def load(path: str = FIELD_FACTS) -> Facts:
    """The tags of field-facts.md (empty tables when the page cannot be read)."""
    try:
        lines = Path(path).read_text(encoding="utf-8").split("\n")
    except OSError:
        lines = []
    statuses: dict[str, Entry] = {}
    sources: dict[str, Entry] = {}
    sections: dict[str, int] = {}
    corpus = None
    current: tuple[str, str, int, list[tuple[int, str]]] | None = None   # (kind, tag, line, [(line, text)])

    def close() -> None:
        if current is None:
            return
        kind, tag, line, parts = current
        text = _clean(" ".join(part for _number, part in parts))
        if kind == "status":
            word = re.split(r"[:;,]", text, maxsplit=1)[0].strip()
            statuses[tag] = Entry(line, word, f"{tag} — {text}")
        else:
            sources.setdefault(tag, Entry(line, tag, f"{tag}: {text}"))
            for number, part in parts:      # an entry that names another source (S16 ... **S16b** ...)
                for inline in _INLINE_SOURCE.findall(part):
                    sources.setdefault(inline, Entry(number, inline, f"{inline}: {text}"))

    in_sources = False
    for number, raw in enumerate(lines, 1):
        heading = _HEADING.match(raw)
        if heading:
            close()
            current = None
            sections.setdefault(heading.group(1), number)
            in_sources = raw.startswith("## 15.")
            continue
        status = _STATUS_BULLET.match(raw)
        source = _SOURCE_BULLET.match(raw) if in_sources else None
        if status or source:
            close()
            match = status or source
            current = ("status" if status else "source", match.group(1), number, [(number, match.group(2))])
            continue
        if current is not None and raw.startswith("  ") and raw.strip() and not raw.lstrip().startswith("- "):
            current[3].append((number, raw.strip()))
            continue
        close()
        current = None
        if corpus is None and raw.startswith('- "Corpus" means'):
            corpus = number
    close()
    return Facts(Path(path).resolve().as_uri().replace("(", "%28").replace(")", "%29"),
                 statuses, sources, sections, corpus)


# ------------------------------------------------------------------ explaining a text

_GROUP = re.compile(r"\[([^\[\]\n]+)\](?![(\[])")
_SOURCE_ITEM = re.compile(r"^(S\d+[a-z]?(?:/S\d+[a-z]?)*)(.*)$", re.S)
_SECTION_ITEM = re.compile(r"^§(\d+(?:\.\d+)*)(.*)$", re.S)
_STATUS_ITEM = re.compile(r"^(C-u|C|I|\?)(?![\w-])(.*)$", re.S)
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)


def _title(text: str) -> str:
    text = text.replace("[", "").replace("]", "")      # a title never holds a tag group itself
    text = text if len(text) <= 160 else text[:157].rstrip() + "…"
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _link(facts: Facts, label: str, line: int, title: str) -> str:
    return f'[{label}]({facts.url}#L{line} "{_title(title)}")'


def _item(facts: Facts, item: str, lang: str) -> str | None:
    """One item of a group explained, or None when it is no tag."""
    item = item.strip()
    status = _STATUS_ITEM.match(item)
    if status and status.group(1) in facts.statuses:
        entry = facts.statuses[status.group(1)]
        word = i18n.t(f"facts.status.{status.group(1)}", lang) if i18n.is_zh(lang) else entry.word
        return _link(facts, word, entry.line, entry.text) + status.group(2)
    source = _SOURCE_ITEM.match(item)
    if source:
        tags = source.group(1).split("/")
        if not all(t in facts.sources for t in tags):
            return None
        return "/".join(_link(facts, t, facts.sources[t].line, facts.sources[t].text) for t in tags) + source.group(2)
    section = _SECTION_ITEM.match(item)
    if section and section.group(1) in facts.sections:
        return _link(facts, f"§{section.group(1)}", facts.sections[section.group(1)],
                     f"docs/field-facts.md §{section.group(1)}") + section.group(2)
    if item.lower() == "corpus" and facts.corpus is not None:
        return _link(facts, i18n.t("facts.corpus", lang), facts.corpus,
                     "the real public files copied into the test corpus (tests/data/)")
    return None


def _group(facts: Facts, match: re.Match, lang: str) -> str:
    items = re.split(r"([,;]\s*)", match.group(1))
    out = []
    for index, part in enumerate(items):
        if index % 2:                       # a separator
            out.append(part)
            continue
        explained = _item(facts, part, lang)
        if explained is None:
            if index == 0:
                return match.group(0)       # not a tag group
            explained = part.strip()
        out.append(explained)
    return "(" + "".join(out) + ")"


def explain(markdown: str, lang: str = "en", facts: Facts | None = None) -> str:
    """`markdown` with every tag group explained (module doc)."""
    if "[" not in markdown:
        return markdown
    facts = facts or load()
    if not facts.statuses and not facts.sources:
        return markdown
    out, last = [], 0
    for code in _CODE.finditer(markdown):
        out.append(_GROUP.sub(lambda m: _group(facts, m, lang), markdown[last:code.start()]))
        out.append(code.group(0))
        last = code.end()
    out.append(_GROUP.sub(lambda m: _group(facts, m, lang), markdown[last:]))
    return "".join(out)


__all__ = ["FIELD_FACTS", "STATUSES", "Facts", "explain", "load"]

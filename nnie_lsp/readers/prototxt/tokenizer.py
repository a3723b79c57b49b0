"""Tokenizer for protobuf text format: one regular expression, offsets only.

Token kinds are small integers (``IDENT``, ``NUMBER``, ``STRING``, ``USTRING`` for an
unterminated string, ``BAD`` for any other character, ``EOF``) or, for punctuation, the
character itself (``"{"``, ``":"``...).  Comments are returned apart as ``(start, end)`` offsets.
"""

from __future__ import annotations

import re
from functools import cache

# token kinds
EOF, IDENT, NUMBER, STRING, PUNCT, COMMENT, USTRING, BAD = 0, 1, 2, 3, 4, 5, 6, 7

# Identifiers and numbers follow text_format's tokenizer (a number token is loose: "10f",
# "1e-5", "-inf", "0x1F" are single tokens and are checked when the field type is known).
_TOKEN_PATTERN = (
    r"""\s*(?:
      ([A-Za-z_][0-9A-Za-z_+-]*)                            # 1 identifier
     |((?:[0-9+-]|\.[0-9])[0-9A-Za-z_.+-]*)                # 2 number
     |("[^"\n\\]*(?:\\.[^"\n\\]*)*"|'[^'\n\\]*(?:\\.[^'\n\\]*)*')   # 3 string
     |([{}<>\[\]:,;])                                      # 4 punctuation
     |(\#[^\n\r]*)                                         # 5 comment
     |(["'][^\n\r]*)                                       # 6 unterminated string
     |(\S)                                                 # 7 anything else
    )"""
)


@cache
def _token_re() -> re.Pattern:
    """The token pattern, compiled on first use: a well-formed prototxt is read by the fast path
    (:mod:`.fast_path`) and never tokenized here (nnie-lint's start-up; about 0.8 ms)."""
    return re.compile(_TOKEN_PATTERN, re.X)


def tokenize(text: str) -> tuple[list[int], list[int], list[int], list[tuple[int, int]]]:
    """``(kinds, starts, ends, comments)``; comments are ``(start, end)`` offsets.

    ``kinds`` holds ``IDENT``/``NUMBER``/``STRING``/``USTRING``/``BAD`` codes, or the character
    itself for punctuation (``"{"``, ``":"``...).  The lists end with an ``EOF`` token at
    ``len(text)``.
    """
    return tokenize_from(text, 1 if text.startswith("\ufeff") else 0)


def tokenize_from(text: str, pos: int) -> tuple[list[int], list[int], list[int], list[tuple[int, int]]]:
    """:func:`tokenize` from offset ``pos`` (a token boundary)."""
    kinds: list[int] = []
    starts: list[int] = []
    ends: list[int] = []
    comments: list[tuple[int, int]] = []
    ka, sa, ea = kinds.append, starts.append, ends.append
    for m in _token_re().finditer(text, pos):
        k = m.lastindex
        s, e = m.span(k)
        if k == PUNCT:
            ka(text[s])
        elif k == COMMENT:
            comments.append((s, e))
            continue
        else:
            ka(k)
        sa(s)
        ea(e)
    n = len(text)
    ka(EOF)
    sa(n)
    ea(n)
    return kinds, starts, ends, comments

"""nnie_mapper ``.cfg`` reader: text -> :class:`CfgDocument` with exact ranges.

How it parses
-------------
The grammar (``grammar/mapper_cfg.lark``, LALR + contextual lexer) describes ONE line.  The
document is split into lines with :class:`~nnie_lsp.core.text.LineIndex` (``\\n`` only; a ``\\r``
before it is not content) and every line's content is parsed on its own, so each line is
classified as *blank*, *comment*, *entry* or *error*; a bad line becomes a
:class:`CfgSyntaxError` (the lint reports it as NN001) and the others are kept.  Line results are
memoised by content (an LRU cache), so re-parsing an edited document in the language server only
pays for the lines that changed.

Inline comments (heuristic)
---------------------------
A ``#`` that follows a blank (space/tab) inside the text after ``]`` starts an inline comment:
``[image_list] ./list.txt   # 30 images`` has ``value == "./list.txt"`` and the comment is kept
in ``raw_value`` and marked by ``inline_comment_range``.  A ``#`` glued to other characters
(``./a#b.txt``) is part of the value.  Whether nnie_mapper itself strips such comments is unknown
(docs/field-facts.md §2), so the lint warns about them; ``raw_value`` is what the mapper may see.

Never raises: :func:`parse_cfg` accepts any ``str``.
"""

from __future__ import annotations

import re
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Literal

from nnie_lsp.core import safe_io
from nnie_lsp.core.text import LineIndex, Position, Range, detect_newline, read_text
from nnie_lsp.core.records import FrozenRecord

GRAMMAR_PATH = Path(__file__).resolve().parents[2] / "grammar" / "mapper_cfg.lark"

LineKind = Literal["blank", "comment", "entry", "error"]

_BLANKS = " \t\f\v\r"


# ---------------------------------------------------------------- public data


class CfgEntry(FrozenRecord):
    """One ``[key] value`` line.  All ranges are in the document (0-based line, code points)."""

    key: str  # text inside the brackets, as written
    raw_value: str  # after the blanks following ']', trailing blanks removed (incl. inline comment)
    value: str  # raw_value without an inline ' #...' comment, stripped
    line: int
    key_range: Range
    bracket_range: Range  # '[key]'
    value_range: Range  # range of `value`; empty range where the value would start if none
    raw_value_range: Range
    line_range: Range  # whole line content (no newline)
    inline_comment_range: Range | None  # '#' .. last non-blank character of the comment
    index: int  # order among entries

    @property
    def inline_comment(self) -> str | None:
        """Text of the inline comment after '#', or None."""
        if self.inline_comment_range is None:
            return None
        start = self.inline_comment_range.start.character - self.raw_value_range.start.character
        return self.raw_value[start + 1:]


class CfgSyntaxError(FrozenRecord):
    message: str
    range: Range
    message_zh: str = ""


class CfgComment(FrozenRecord):
    """A full-line ``#`` comment (possibly indented)."""

    range: Range  # from '#' to the last non-blank character
    text: str  # text after '#', trailing blanks removed

    def looks_like_entry(self) -> bool:
        """True for a commented-out setting such as ``# [prototxt_file] ./a.prototxt``."""
        return re.match(_COMMENTED_ENTRY, self.text) is not None


_COMMENTED_ENTRY = r"[ \t#]*\[[^\[\]\s]+\]"  # compiled on first use (re's cache)


class CfgDocument(FrozenRecord, not_compared=("line_index", "line_kinds")):
    path: str | None
    text: str
    entries: tuple[CfgEntry, ...]
    comments: tuple[CfgComment, ...]
    errors: tuple[CfgSyntaxError, ...]
    line_index: LineIndex  # not compared, not in repr
    encoding: str = "utf-8"
    bom: bool = False
    newline: str = "\n"
    line_kinds: tuple[LineKind, ...] = ()  # not compared, not in repr

    @cached_property
    def _by_key(self) -> dict[str, tuple[CfgEntry, ...]]:
        out: dict[str, list[CfgEntry]] = {}
        for e in self.entries:
            out.setdefault(e.key, []).append(e)
        return {k: tuple(v) for k, v in out.items()}

    @cached_property
    def _by_line(self) -> dict[int, CfgEntry]:
        return {e.line: e for e in self.entries}

    def get(self, key: str) -> tuple[CfgEntry, ...]:
        """All entries with exactly this key (case-sensitive), in file order."""
        return self._by_key.get(key, ())

    def first(self, key: str) -> CfgEntry | None:
        found = self._by_key.get(key)
        return found[0] if found else None

    def keys(self) -> tuple[str, ...]:
        """Distinct keys in order of first appearance."""
        return tuple(self._by_key)

    def entry_at_line(self, line: int) -> CfgEntry | None:
        return self._by_line.get(line)

    def entry_at(self, pos: Position) -> CfgEntry | None:
        """The entry whose line contains ``pos`` (for hover / completion)."""
        e = self._by_line.get(pos.line)
        if e is not None and e.line_range.contains(pos):
            return e
        return None

    @property
    def ok(self) -> bool:
        return not self.errors


# ---------------------------------------------------------------- line parsing

class _LineGrammar:
    """The line parser and the lark types its results are made of.

    Built on first use, once per process: from :mod:`.standalone_parser` (lark's standalone
    parser generated from the grammar by ``scripts/gen_cfg_parser.py``: no lark import, no grammar
    compilation, nothing written at run time), or, when that module is missing or was generated
    from another grammar, by lark from ``grammar/mapper_cfg.lark`` itself."""

    def __init__(self, parser, tree_type, token_type, error_type) -> None:
        self.parser = parser
        self.Tree = tree_type
        self.Token = token_type
        self.LarkError = error_type


_grammar: _LineGrammar | None = None


def _build_lark_parser() -> _LineGrammar:
    from lark import Lark, Token, Tree
    from lark.exceptions import LarkError

    parser = Lark(GRAMMAR_PATH.read_text(encoding="utf-8"), parser="lalr", lexer="contextual", start="start",
                  maybe_placeholders=False)
    return _LineGrammar(parser, Tree, Token, LarkError)


def _build_standalone_parser() -> _LineGrammar | None:
    import zlib

    try:
        from nnie_lsp.readers.cfg import standalone_parser
        grammar_crc = zlib.crc32(GRAMMAR_PATH.read_bytes())
    except (ImportError, OSError):
        return None
    if grammar_crc != getattr(standalone_parser, "GRAMMAR_CRC32", None):
        return None  # generated from another grammar: lark compiles the shipped one
    return _LineGrammar(standalone_parser.Lark_StandAlone(), standalone_parser.Tree, standalone_parser.Token,
                        standalone_parser.LarkError)


def _line_grammar() -> _LineGrammar:
    global _grammar
    if _grammar is None:
        _grammar = _build_standalone_parser() or _build_lark_parser()
    return _grammar


def _get_parser():
    """The line parser (see :class:`_LineGrammar`)."""
    return _line_grammar().parser


Span = tuple[int, int]


class _LineParse(FrozenRecord):
    """Result of one line, offsets relative to the line content."""

    kind: LineKind
    span: Span = (0, 0)  # comment: '#'..end ; error: first..last non-blank
    key: Span = (0, 0)
    raw_value: Span = (0, 0)
    value: Span = (0, 0)
    comment: Span | None = None  # inline comment
    message: str = ""
    message_zh: str = ""


def _rstrip_end(s: str) -> int:
    return len(s.rstrip(_BLANKS))


# The grammar is regular: this reads exactly the lines it accepts, with the same spans (greedy
# VALUE and COMMENT, as lark's lexer takes them).  A line read here needs no parser, so reading a
# well-formed cfg never loads the line parser (nnie-lint's start-up); any other line goes
# to the parser.  It is written with str methods rather than as one regular expression, whose
# compilation alone cost about 0.7 ms of every start-up.  tests/test_startup_cfg_parser.py checks
# both agree on every line.
_TO_SPACE = str.maketrans({blank: " " for blank in _BLANKS})


def _fast_line(content: str) -> _LineParse | None:
    """The parse of a line the grammar accepts, without the parser (None: ask the parser).

    The grammar's line: blanks (`` \\t\\f\\v\\r``), then nothing, a ``#`` comment (to the last
    non-blank character), or ``[key]`` (no blank or bracket in the key) followed by nothing or by
    blanks and then a comment, or a value (words separated by blanks, none starting with ``#``)
    with an optional comment after blanks; then blanks."""
    if "\n" in content:
        return None
    start = len(content) - len(content.lstrip(_BLANKS))
    end = _rstrip_end(content)  # just past the last non-blank character
    if start >= end:
        return _LineParse("blank")
    if content[start] == "#":
        return _LineParse("comment", span=(start, end))
    if content[start] != "[":
        return None
    close = content.find("]", start + 1)
    if close <= start + 1:
        return None
    key = content[start + 1:close]
    if "[" in key or any(ch in _BLANKS for ch in key):
        return None
    after = close + 1  # just past ']'
    if after < len(content) and content[after] not in _BLANKS:
        return None
    raw_start = after + (len(content) - after - len(content[after:].lstrip(_BLANKS)))
    raw_end = max(end, raw_start)
    value = (raw_start, raw_start)
    comment = None
    if raw_start < end:
        if content[raw_start] == "#":
            comment = (raw_start, end)
        else:
            # words separated by blanks; the first word starting with '#' starts the comment
            rest = content[raw_start:end].translate(_TO_SPACE)
            hash_word = rest.find(" #")
            if hash_word == -1:
                value = (raw_start, end)
            else:
                value = (raw_start, raw_start + len(rest[:hash_word].rstrip(" ")))
                comment = (raw_start + hash_word + 1, end)
    return _LineParse("entry", key=(start + 1, close), raw_value=(raw_start, raw_end), value=value, comment=comment)


@lru_cache(maxsize=8192)
def _parse_line(content: str) -> _LineParse:
    fast = _fast_line(content)
    if fast is not None:
        return fast
    grammar = _line_grammar()
    Tree, Token = grammar.Tree, grammar.Token
    try:
        tree = grammar.parser.parse(content)
    except grammar.LarkError:
        start = len(content) - len(content.lstrip(_BLANKS))
        end = max(_rstrip_end(content), start)
        msg, msg_zh = _explain_error(content)
        return _LineParse("error", span=(start, end), message=msg, message_zh=msg_zh)
    if not tree.children:
        return _LineParse("blank")
    node = tree.children[0]
    assert isinstance(node, Tree)
    if node.data == "comment":
        tok = node.children[0]
        assert isinstance(tok, Token)
        return _LineParse("comment", span=(tok.start_pos, tok.end_pos))
    # entry
    key_tok = node.children[0]
    assert isinstance(key_tok, Token)
    value_tok: Token | None = None
    comment_tok: Token | None = None
    for child in node.children[1:]:
        assert isinstance(child, Tree)
        tok = child.children[0]
        assert isinstance(tok, Token)
        if child.data == "value":
            value_tok = tok
        else:
            comment_tok = tok
    after = key_tok.end_pos + 1  # just past ']'
    raw_start = after + (len(content) - after - len(content[after:].lstrip(_BLANKS)))
    raw_end = max(_rstrip_end(content), raw_start)
    if value_tok is not None:
        value = (value_tok.start_pos, value_tok.end_pos)
    else:
        value = (raw_start, raw_start)
    comment = (comment_tok.start_pos, comment_tok.end_pos) if comment_tok is not None else None
    return _LineParse(
        "entry",
        key=(key_tok.start_pos, key_tok.end_pos),
        raw_value=(raw_start, raw_end),
        value=value,
        comment=comment,
    )


# compiled on first use by re's own cache (a Unicode \w class costs about 4 ms to compile)
_INI_LINE = r"^\s*[A-Za-z_][\w.\- ]*?\s*[=:]"
_ODD_SPACES = {"\u3000": "full-width space (U+3000)", "\u00a0": "no-break space (U+00A0)",
               "\ufeff": "byte-order mark (U+FEFF)", "\u200b": "zero-width space (U+200B)"}
_ODD_SPACES_ZH = {"\u3000": "全角空格 (U+3000)", "\u00a0": "不间断空格 (U+00A0)",
                  "\ufeff": "BOM 字符 (U+FEFF)", "\u200b": "零宽空格 (U+200B)"}


def _explain_error(content: str) -> tuple[str, str]:
    """A precise English + Chinese message for a line the grammar rejected."""
    s = content.strip(_BLANKS)
    expected = "expected '[key] value', a '#' comment or a blank line"
    expected_zh = "应为 '[key] value' 格式、'#' 注释或空行"
    odd = next((ch for ch in s if ch in _ODD_SPACES), None)
    if s.startswith("["):
        close = s.find("]")
        if close == -1:
            return ("missing ']' after the key; " + expected,
                    "键名后缺少 ']'；" + expected_zh)
        inner = s[1:close]
        if "[" in inner:
            return ("'[' inside the key brackets; " + expected,
                    "方括号内的键名中出现了 '['；" + expected_zh)
        if inner.strip() == "":
            return ("empty key '[]'; " + expected, "键名为空 '[]'；" + expected_zh)
        if inner != inner.strip(_BLANKS) or any(c in _BLANKS for c in inner):
            return (f"whitespace inside the brackets: write '[{inner.strip()}]'",
                    f"方括号内不能有空白：应写成 '[{inner.strip()}]'")
        rest = s[close + 1:]
        if rest and rest[0] in _ODD_SPACES:
            return (f"a {_ODD_SPACES[rest[0]]} follows ']'; use an ASCII space or tab between "
                    "the key and the value",
                    f"']' 后面是{_ODD_SPACES_ZH[rest[0]]}；键和值之间请使用半角空格或 Tab")
        if rest:
            return (f"missing space between ']' and the value: write '[{inner}] {rest}'",
                    f"']' 与值之间缺少空格：应写成 '[{inner}] {rest}'")
    if odd is not None:
        return (f"the line contains a {_ODD_SPACES[odd]}; " + expected,
                f"该行含有{_ODD_SPACES_ZH[odd]}；" + expected_zh)
    if s.startswith(("//", ";")):
        return ("only '#' starts a comment in a nnie_mapper cfg",
                "nnie_mapper cfg 只能用 '#' 开始注释")
    if re.match(_INI_LINE, s):
        return ("'key = value' is INI syntax; nnie_mapper expects '[key] value'",
                "'key = value' 是 INI 写法；nnie_mapper 要求 '[key] value'")
    return "not a cfg line: " + expected, "无法识别的行：" + expected_zh


# ---------------------------------------------------------------- document


def parse_cfg(text: str, path: str | None = None) -> CfgDocument:
    """Parse cfg text (already decoded; a leading U+FEFF is tolerated).  Never raises."""
    if not isinstance(text, str):  # defensive: the LSP always gives str
        text = str(text)
    index = LineIndex(text)
    entries: list[CfgEntry] = []
    comments: list[CfgComment] = []
    errors: list[CfgSyntaxError] = []
    kinds: list[LineKind] = []
    bom = text.startswith("\ufeff")
    for line in range(index.line_count):
        start = index.line_start(line)
        content = text[start:index.line_end(line)]
        shift = 0
        if line == 0 and bom:
            content = content[1:]
            shift = 1
        lp = _parse_line(content)
        kinds.append(lp.kind)
        if lp.kind == "blank":
            continue

        def rng(span: Span, line: int = line, shift: int = shift) -> Range:
            return Range(Position(line, span[0] + shift), Position(line, span[1] + shift))

        if lp.kind == "comment":
            a, b = lp.span
            comments.append(CfgComment(rng(lp.span), content[a + 1:b]))
        elif lp.kind == "error":
            errors.append(CfgSyntaxError(lp.message, rng(lp.span), lp.message_zh))
        else:
            ks, ke = lp.key
            entries.append(
                CfgEntry(
                    key=content[ks:ke],
                    raw_value=content[lp.raw_value[0]:lp.raw_value[1]],
                    value=content[lp.value[0]:lp.value[1]],
                    line=line,
                    key_range=rng(lp.key),
                    bracket_range=rng((ks - 1, ke + 1)),
                    value_range=rng(lp.value),
                    raw_value_range=rng(lp.raw_value),
                    line_range=index.line_range(line),
                    inline_comment_range=rng(lp.comment) if lp.comment is not None else None,
                    index=len(entries),
                )
            )
    return CfgDocument(
        path=path,
        text=text,
        entries=tuple(entries),
        comments=tuple(comments),
        errors=tuple(errors),
        line_index=index,
        encoding="utf-8",
        bom=bom,
        newline=detect_newline(text),
        line_kinds=tuple(kinds),
    )


def read_cfg(path: str) -> CfgDocument:
    """Read a cfg file: UTF-8 (BOM stripped) or GB18030/GBK, keeping encoding/BOM/newline.
    Regular files up to the bound for cfgs only (:mod:`nnie_lsp.core.safe_io`); otherwise
    :class:`~nnie_lsp.core.safe_io.FileReadError` (an ``OSError``) says why."""
    decoded = read_text(str(path), safe_io.CFG)
    doc = parse_cfg(decoded.text, str(path))
    return CfgDocument(
        path=doc.path,
        text=doc.text,
        entries=doc.entries,
        comments=doc.comments,
        errors=doc.errors,
        line_index=doc.line_index,
        encoding=decoded.encoding,
        bom=decoded.bom or doc.bom,
        newline=decoded.newline,
        line_kinds=doc.line_kinds,
    )


# ---------------------------------------------------------------- sniffing


def bracket_key(line: str) -> str | None:
    """The key of a line that starts ``[key]`` after blanks or a BOM, or None: what
    ``^[ \\t\\ufeff]*\\[([^\\[\\]\\s]+)\\]`` reads, without compiling that pattern at start-up (about
    0.4 ms; tests/test_startup_cfg_parser.py checks both agree)."""
    rest = line.lstrip(" \t\ufeff")
    if not rest.startswith("["):
        return None
    close = rest.find("]", 1)
    if close < 2:
        return None
    key = rest[1:close]
    if "[" in key or any(ch.isspace() for ch in key):
        return None
    return key


def looks_like_mapper_cfg(text: str) -> bool:
    """True if some non-comment line is ``[known key] ...`` (nnie_mapper or ATC/dpico key).

    INI files (``[metadata]`` / ``name = x``) and empty files give False.  Key match is
    case-insensitive so a misspelt-case key (``[rgb_order]``) still marks the file as a cfg.
    """
    from nnie_lsp.readers.cfg.keys import is_known_any  # local import: keys imports nothing from here

    for raw in text.splitlines():
        key = bracket_key(raw)
        if key is not None and is_known_any(key):
            return True
    return False

"""The fast path: read the common valid line shapes one statement per regex match.

Most files are valid and use a handful of line shapes (``name: value``, ``name {``, ``}``,
``# comment``).  :func:`fast_parse` reads such files one *statement* per regex match, without a
token list, and builds exactly what the general parser (:mod:`.parser`) would.  At the first
thing it does not handle (any error, unknown field, list, ``,``/``;`` separator, escaped or
adjacent strings, ...) it stops and the general parser takes over at the start of the top-level
field being read (what it is done with is undone): the general parser's state at that point is
exactly what the fast path built, so the output never depends on which path read what.
"""

from __future__ import annotations

import re
import sys

from google.protobuf.message import Message

from nnie_lsp.core.text import LineIndex
from nnie_lsp.readers.prototxt.decode import (
    FALSE_WORDS,
    K_BOOL,
    K_BYTES,
    K_FLOAT,
    K_MSG,
    K_STRING,
    K_UINT32,
    TRUE_WORDS,
    BadValue,
    FieldInfo,
    MsgInfo,
    decode_token,
    parse_float,
)
from nnie_lsp.readers.prototxt.parser import MAX_DEPTH
from nnie_lsp.readers.prototxt.tokenizer import IDENT, NUMBER, STRING
from nnie_lsp.readers.prototxt.tree import Node

# The sub-patterns are the tokenizer's; possessive quantifiers keep the engine from
# backtracking into a token, so a statement splits into exactly the tokenizer's tokens.
# Python 3.10's `re` has no possessive quantifiers: there the plain greedy ones are used. They
# match the same statements, because no token can end where a shorter one would let the rest
# match (names must be followed by `:`/`{`/`<`, strings exclude their quote, numbers and
# identifiers end the pattern); only the time spent on a line that falls back differs.
_STMT_PATTERN = (
    r"""\s*+(?:
      ([A-Za-z_][0-9A-Za-z_+-]*+)\s*+(?:                    # 1 field name
          :\s*+(?:
              ("[^"\n\\]*+"|'[^'\n\\]*+')                   # 2 simple string
             |((?:[0-9+-]|\.[0-9])[0-9A-Za-z_.+-]*+)        # 3 number
             |([A-Za-z_][0-9A-Za-z_+-]*+)                   # 4 identifier
          )
         |(?::\s*+)?([{<])                                  # 5 block opening
      )
     |([}>])                                                # 6 block closing
     |(\#[^\n\r]*+)                                         # 7 comment
     |(\S)                                                  # 8 anything else: give up
    )"""
)
_STMT_RE = re.compile(_STMT_PATTERN if sys.version_info >= (3, 11) else _STMT_PATTERN.replace("*+", "*"),
                      re.X)
_S_KIND = (None, None, STRING, NUMBER, IDENT)  # token kind of the value in groups 2, 3, 4


def _fast_decode(fi: FieldInfo, kind: int, tok: str):
    """(message value, node value) of an unquoted token, as the general parser decodes it."""
    fk = fi.k
    if fk == K_UINT32 and kind == NUMBER and tok.isdigit() and (tok[0] != "0" or len(tok) == 1):
        v = int(tok)
        return (v, v) if v <= 4294967295 else decode_token(fi, kind, tok)
    if fk == K_FLOAT and kind == NUMBER:
        v = parse_float(tok)
        return v, v
    if fk == K_BOOL:
        if tok in TRUE_WORDS:
            return True, True
        if tok in FALSE_WORDS:
            return False, False
    return decode_token(fi, kind, tok)


def _undo_field(msg: Message, seen: set[str], fi: FieldInfo) -> None:
    """Undo the last occurrence of a (fully or partly read) top-level field."""
    if fi.repeated:
        del getattr(msg, fi.name)[-1]
    else:
        msg.ClearField(fi.name)
        seen.discard(fi.name)


def fast_parse(text: str, li: LineIndex, msg: Message, root_mi: MsgInfo):
    """Read ``text`` into ``msg`` as far as the fast path can.

    Returns ``(nodes, layer_entries, comment_offsets, resume)``: ``resume`` is ``None`` if the
    whole file was read, else ``(offset, seen)``: the general parser must go on from
    ``offset`` (the start of a top-level field) with ``seen`` the singular root fields already
    set; the other items hold what comes before ``offset``.  Returns ``None`` if the general
    parser must read the whole file into a fresh message.
    """
    nodes: list[Node] = []
    append = nodes.append
    layer_entries: list[tuple[Node, Message, bool]] = []
    comments: list[tuple[int, int]] = []
    # one entry per open block: the enclosing level's state + the block's own data
    stack: list[tuple] = []
    push, pop = stack.append, stack.pop
    mi = root_mi
    fields_get = mi.fields.get
    seen: set[str] = set()
    node_cls = Node
    k_string, k_bytes, k_msg = K_STRING, K_BYTES, K_MSG
    kinds = _S_KIND
    max_depth = MAX_DEPTH
    m = None
    try:
        for m in _STMT_RE.finditer(text, 1 if text.startswith("\ufeff") else 0):
            k = m.lastindex
            if k <= 4:
                # ---- name: scalar  (k: 2 string, 3 number, 4 identifier)
                name = m[1]
                fi = fields_get(name)
                if fi is None:
                    break
                tok = m[k]
                if k == 2:
                    fk = fi.k
                    if fk == k_string:
                        mv = value = tok[1:-1]
                    elif fk == k_bytes:
                        mv = value = tok[1:-1].encode("utf-8")
                    else:
                        break
                else:
                    # decoded values of unquoted tokens are cached per field (1, 0.1, true...)
                    cache = fi.fast_values
                    r = cache.get(tok)
                    if r is None:
                        r = _fast_decode(fi, kinds[k], tok)
                        if len(cache) < 512:
                            cache[tok] = r
                    mv, value = r
                if fi.repeated:
                    getattr(msg, name).append(mv)
                elif name in seen:
                    break
                else:
                    seen.add(name)
                    setattr(msg, name, mv)
                ns = m.start(1)
                vs, ve = m.span(k)
                # fi.name: one shared string per field name instead of one per occurrence
                append(node_cls((fi.name, "scalar", value, (), li, ns, ns + len(name), ns, ve, vs, ve, fi.desc)))
            elif k == 5:
                # ---- name {  : push the current level
                name = m[1]
                fi = fields_get(name)
                if fi is None or fi.k != k_msg or len(stack) >= max_depth:
                    break
                if fi.repeated:
                    sub = getattr(msg, name).add()
                elif name in seen:
                    break
                else:
                    seen.add(name)
                    sub = getattr(msg, name)  # marked present when a field is set, or at '}'
                push((nodes, msg, mi, seen, fi.name, m.start(1), fi, m.start(5), "}" if m[5] == "{" else ">"))
                nodes = []
                append = nodes.append
                msg = sub
                mi = fi._minfo or fi.minfo  # the cached info without a property call, else build it
                fields_get = mi.fields.get
                seen = set()
            elif k == 6:
                # ---- }  : pop
                if not stack or m[6] != stack[-1][8]:
                    break
                children = nodes
                nodes, parent, mi, seen, name, ns, fi, bs, close = pop()
                if not children and not fi.repeated:
                    msg.SetInParent()  # an empty singular block: "name { }"
                be = m.end(6)
                append = nodes.append
                fields_get = mi.fields.get
                node = node_cls((name, "message", None, tuple(children), li, ns, ns + len(name), ns, be,
                                 bs, be, fi.desc))
                append(node)
                if not stack and (name == "layer" or name == "layers"):
                    layer_entries.append((node, msg, name == "layers"))
                msg = parent
            elif k == 7:
                comments.append(m.span(7))
            else:
                break
        else:
            if not stack:
                return nodes, layer_entries, comments, None
    except BadValue:
        pass
    # ---- hand over to the general parser
    if stack:
        # inside a top-level block: undo it and resume at its name
        nodes, msg, _, seen, _, offset, fi, _, _ = stack[0]
        _undo_field(msg, seen, fi)
    else:
        # at the top level: resume here (nothing of this statement was done yet) unless the
        # previous field may take this token ("a" "b", a ',' / ';' separator): then read that
        # field again too
        offset = m.start(1) if m[1] is not None else m.start(m.lastindex)
        if text[offset] in "\"',;":
            if not nodes:
                return None
            last = nodes.pop()
            _undo_field(msg, seen, root_mi.fields[last[0]])
            if layer_entries and layer_entries[-1][0] is last:
                layer_entries.pop()
            offset = last[7]
    while comments and comments[-1][0] >= offset:
        comments.pop()
    return nodes, layer_entries, comments, (offset, seen)

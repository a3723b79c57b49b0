"""The general parser: recursive descent over the token list, driven by the descriptors.

:class:`Parser` builds the ``caffe_pb2`` message from everything that is valid, the source tree
(:class:`~.tree.Node` tuples), the layer entries and *all* problems with their offsets
(``text_format`` stops at the first one).  It recovers from errors line by line and block by
block: a missing ``}`` before a top-level ``layer`` is reported on the open blocks and the
layer is read at the top level.  It can start at any top-level field, which is how it takes
over from the fast path (:mod:`.fast_path`).
"""

from __future__ import annotations

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
    MsgInfo,
    decode_token,
    generic_value,
    parse_float,
    string_value,
)
from nnie_lsp.readers.prototxt.tokenizer import BAD, EOF, IDENT, NUMBER, STRING, USTRING, tokenize, tokenize_from
from nnie_lsp.readers.prototxt.tree import NN010, NN011, NN012, Node

MAX_DEPTH = 64  # deeper blocks are reported (NN010) and skipped, in both paths
_CLOSE_OF = {"{": "}", "<": ">"}
_OPENERS = ("{", "<")
_new_node = tuple.__new__  # builds a Node without calling a constructor


class Parser:
    """Reads fields with :meth:`fields`; collects ``errors`` (code, message, start, end),
    ``layer_entries`` and ``comment_offsets`` on the way."""

    def __init__(self, text: str, li: LineIndex, root_mi: MsgInfo, start: int | None = None) -> None:
        """``start``: read from this offset (the start of a top-level field), not from the top."""
        self.text = text
        self.li = li
        if start is None:
            self.kinds, self.starts, self.ends, self.comment_offsets = tokenize(text)
        else:
            self.kinds, self.starts, self.ends, self.comment_offsets = tokenize_from(text, start)
        self.i = 0
        self.errors: list[tuple[str, str, int, int]] = []
        self.root_mi = root_mi
        self.layer_entries: list[tuple[Node, Message, bool]] = []
        self.unwind = False
        self.top_col = 0
        self.stack: list[tuple[str, int, int]] = []  # (block name, name start, brace end)
        self.mi_stack: list[MsgInfo | None] = [root_mi]

    def err(self, code: str, msg: str, s: int, e: int) -> None:
        self.errors.append((code, msg, s, e))

    # -- recovery ---------------------------------------------------------------------------

    def skip_line(self, i: int) -> int:
        """Skip tokens to the start of the next line (nested blocks are skipped whole).

        Stops before a closing brace of the enclosing block.
        """
        kinds, starts, text = self.kinds, self.starts, self.text
        line_end = text.find("\n", starts[i])
        if line_end < 0:
            line_end = len(text)
        depth = 0
        while True:
            k = kinds[i]
            if k == EOF:
                break
            if depth == 0 and starts[i] > line_end:
                break
            if k == "{" or k == "<" or k == "[":
                depth += 1
            elif k == "}" or k == ">" or k == "]":
                if depth == 0:
                    if k != "]":
                        break
                else:
                    depth -= 1
                    if depth == 0:
                        line_end = text.find("\n", starts[i])
                        if line_end < 0:
                            line_end = len(text)
            i += 1
        return i

    def _skip_block(self, i: int) -> int:
        """i at an opening brace; returns the index after its matching close (or EOF)."""
        kinds = self.kinds
        depth = 0
        while True:
            k = kinds[i]
            if k == EOF:
                return i
            if k == "{" or k == "<":
                depth += 1
            elif k == "}" or k == ">":
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1

    # -- fields -----------------------------------------------------------------------------

    def fields(self, msg: Message | None, mi: MsgInfo | None, depth: int,
               close: str | None, seen: set[str] | None = None) -> tuple[list[Node], int]:
        """Parse fields until ``close`` (consumed) or EOF.  Returns (nodes, end offset).

        ``seen``: the singular fields of ``msg`` already set (when resuming a partial read).
        """
        kinds, starts, ends, text = self.kinds, self.starts, self.ends, self.text
        li = self.li
        err = self.err
        nodes: list[Node] = []
        append = nodes.append
        if seen is None:
            seen = set()
        fields_get = mi.fields.get if mi is not None else None
        i = self.i
        while True:
            k = kinds[i]
            if k == IDENT:
                ns = starts[i]
                ne = ends[i]
                name = text[ns:ne]
                fi = None
                fd = None
                if fields_get is not None:
                    fi = fields_get(name)
                    if fi is None:
                        if depth > 0 and self._starts_new_top_level(i, name):
                            self._report_unclosed(i, name)
                            self.i = i
                            return nodes, ends[i - 1]
                        err(NN011, self._unknown_field_message(mi, name), ns, ne)
                    else:
                        fd = fi.desc
                if depth == 0:
                    self.top_col = ns - text.rfind("\n", 0, ns) - 1
                i += 1
                k = kinds[i]
                colon = k == ":"
                if colon:
                    i += 1
                    k = kinds[i]
                if k == STRING or k == NUMBER or k == IDENT:
                    # ---- scalar value (the hot path)
                    vs = starts[i]
                    j = i + 1
                    if k == STRING:
                        while kinds[j] == STRING:
                            j += 1
                        tok = None
                    else:
                        tok = text[vs:ends[i]]
                    ve = ends[j - 1]
                    value = None
                    if fi is None:
                        if not colon:
                            err(NN010, f'Expected ":" after "{name}".', ne, vs)
                        value = generic_value(k, tok, text, starts, ends, i, j)
                    else:
                        fk = fi.k
                        try:
                            if not colon:
                                if fk == K_MSG:
                                    raise BadValue(f'Field "{name}" is a message ({fi.type_name}): '
                                                    f'write "{name} {{ ... }}".')
                                err(NN010, f'Expected ":" between "{name}" and its value.', ne, vs)
                            if k == STRING:
                                if fk == K_STRING and j == i + 1:
                                    value = text[vs + 1:ve - 1]
                                    if "\\" in value:
                                        value = string_value(text, starts, ends, i, j, fk)
                                elif fk == K_STRING or fk == K_BYTES:
                                    value = string_value(text, starts, ends, i, j, fk)
                                else:
                                    raise BadValue(
                                        f'Field "{name}" ({fi.type_name}) needs '
                                        f'{"a { ... } block" if fk == K_MSG else "a number or identifier"}, '
                                        f"found a quoted string."
                                    )
                                mv = value
                            elif fk == K_UINT32 and k == NUMBER and tok.isdigit() and (tok[0] != "0" or len(tok) == 1):
                                mv = value = int(tok)
                                if mv > 4294967295:
                                    mv, value = decode_token(fi, k, tok)
                            elif fk == K_FLOAT and k == NUMBER:
                                mv = value = parse_float(tok)
                            elif fk == K_BOOL:
                                if tok in TRUE_WORDS:
                                    mv = value = True
                                elif tok in FALSE_WORDS:
                                    mv = value = False
                                else:
                                    mv, value = decode_token(fi, k, tok)
                            else:
                                mv, value = decode_token(fi, k, tok)
                            if msg is not None:
                                if fi.repeated:
                                    getattr(msg, name).append(mv)
                                else:
                                    if name in seen:
                                        err(NN012, f'Message type "{mi.full_name}" should not have multiple '
                                                   f'"{name}" fields.', ns, ve)
                                    else:
                                        seen.add(name)
                                    setattr(msg, name, mv)
                        except BadValue as e:
                            err(NN012, str(e), vs, ve)
                            value = None
                    append(_new_node(Node, (name, "scalar", value, (), li, ns, ne, ns, ve, vs, ve, fd)))
                    i = j
                elif k == "{" or k == "<":
                    # ---- message value
                    bs = starts[i]
                    sub = None
                    submi = None
                    if fi is not None:
                        if fi.k != K_MSG:
                            err(NN012, f'Field "{name}" is a {fi.type_name} value, not a message: '
                                       f'write "{name}: <value>".', ns, ends[i])
                        else:
                            submi = fi.minfo
                            if msg is not None:
                                if fi.repeated:
                                    sub = getattr(msg, name).add()
                                else:
                                    if name in seen:
                                        err(NN012, f'Message type "{mi.full_name}" should not have multiple '
                                                   f'"{name}" fields.', ns, ends[i])
                                    else:
                                        seen.add(name)
                                    sub = getattr(msg, name)
                                    sub.SetInParent()
                    if depth >= MAX_DEPTH:
                        err(NN010, "Blocks are nested too deeply.", bs, ends[i])
                        i = self._skip_block(i)
                        children: list[Node] = []
                        be = ends[i - 1]
                    else:
                        self.i = i + 1
                        self.stack.append((name, ns, ends[i]))
                        self.mi_stack.append(submi)
                        children, be = self.fields(sub, submi, depth + 1, _CLOSE_OF[k])
                        self.mi_stack.pop()
                        self.stack.pop()
                        i = self.i
                    node = _new_node(Node, (name, "message", None, tuple(children), li, ns, ne, ns, be,
                                            bs, be, fd))
                    append(node)
                    if depth == 0 and sub is not None and (name == "layer" or name == "layers"):
                        self.layer_entries.append((node, sub, name == "layers"))
                    if self.unwind:
                        if depth > 0:
                            self.i = i
                            return nodes, be
                        self.unwind = False
                        continue
                elif k == "[":
                    self.i = i
                    node = self._list(msg, mi, fi, name, ns, ne, colon, depth)
                    append(node)
                    i = self.i
                    if self.unwind:
                        if depth > 0:
                            return nodes, node[8]
                        self.unwind = False
                        continue
                elif k == USTRING:
                    err(NN010, "Unterminated string (missing closing quote).", starts[i], ends[i])
                    append(_new_node(Node, (name, "scalar", None, (), li, ns, ne, ns, ends[i], starts[i],
                                            ends[i], fd)))
                    i += 1
                else:
                    # ---- missing value
                    what = "end of file" if k == EOF else f"'{text[starts[i]:ends[i]]}'"
                    err(NN010, f'Expected a value for "{name}", found {what}.', ns, ne if k == EOF else ends[i])
                    append(_new_node(Node, (name, "scalar", None, (), li, ns, ne, ns, ne, ne, ne, fd)))
                    if k == BAD or k == ":" or k == "," or k == ";" or k == "]":
                        i = self.skip_line(i)
                # optional separator
                k = kinds[i]
                if k == "," or k == ";":
                    i += 1
                continue
            if k == "}" or k == ">":
                if close is not None:
                    if k != close:
                        err(NN010, f"Expected '{close}' to close the block, found '{k}'.", starts[i], ends[i])
                    self.i = i + 1
                    return nodes, ends[i]
                err(NN010, f"Unmatched '{k}' (no block is open).", starts[i], ends[i])
                i += 1
                continue
            if k == EOF:
                self.i = i
                if close is not None:
                    bname, bns, bbe = self.stack[-1]
                    err(NN010, f"Missing '{close}': the \"{bname}\" block is never closed.", bns, bbe)
                return nodes, starts[i]
            # anything else where a field name is expected
            if k == USTRING:
                err(NN010, "Unterminated string (missing closing quote).", starts[i], ends[i])
            elif k == BAD:
                err(NN010, f"Unexpected character '{text[starts[i]:ends[i]]}'.", starts[i], ends[i])
            else:
                err(NN010, f"Expected a field name, found '{text[starts[i]:ends[i]]}'.", starts[i], ends[i])
            ni = self.skip_line(i)
            i = ni if ni > i else i + 1

    def _to_list_end(self, i: int) -> int:
        """After an error inside [ ... ]: skip past the closing ']' if it is on the same line
        (and no brace comes first); otherwise stay at i."""
        kinds, starts, text = self.kinds, self.starts, self.text
        line_end = text.find("\n", starts[i])
        if line_end < 0:
            line_end = len(text)
        j = i
        while True:
            k = kinds[j]
            if k == EOF or starts[j] > line_end or k in ("{", "}", "<", ">", "["):
                return i
            if k == "]":
                return j + 1
            j += 1

    def _starts_new_top_level(self, i: int, name: str) -> bool:
        """A name unknown here but valid at the top level (a ``layer`` must open a block), on
        its own line at a column not deeper than the enclosing top-level field: a '}' is
        missing before it."""
        if name not in self.root_mi.fields:
            return False
        kinds, starts, text = self.kinds, self.starts, self.text
        j = i + 1
        if kinds[j] == ":":
            j += 1
        if kinds[j] not in _OPENERS and (name == "layer" or name == "layers"):
            return False
        s = starts[i]
        line_start = text.rfind("\n", 0, s) + 1
        if text[line_start:s].strip():
            return False
        return s - line_start <= self.top_col

    def _report_unclosed(self, i: int, name: str) -> None:
        line = self.li.position(self.starts[i]).line + 1
        for block, s, e in reversed(self.stack):
            self.err(NN010, f'Missing \'}}\': the "{block}" block is not closed before the top-level '
                            f'"{name}" on line {line}.', s, e)
        self.unwind = True

    def _unknown_field_message(self, mi: MsgInfo, name: str) -> str:
        msg = f'Message type "{mi.full_name}" has no field named "{name}".'
        from nnie_lsp.readers.prototxt.schema import field_suggestion  # only for an unknown field (start-up)

        close = field_suggestion(mi.full_name, name, mi.names)
        hint = f' Did you mean "{close}"?' if close else ""
        if not hint:
            # a field of an enclosing message: probably a misplaced '}'
            for outer in self.mi_stack[:-1]:
                if outer is not None and name in outer.fields:
                    hint = f' "{name}" is a field of the enclosing {outer.full_name}: is a "}}" misplaced?'
                    break
        return msg + hint

    def _list(self, msg, mi, fi, name, ns, ne, colon, depth) -> Node:
        kinds, starts, ends, text, li = self.kinds, self.starts, self.ends, self.text, self.li
        fd = fi.desc if fi is not None else None
        i = self.i
        ls = starts[i]
        i += 1
        fi_use = fi
        if fi is not None and not fi.repeated:
            self.err(NN012, f'Field "{name}" is not repeated: a [ ... ] list is not allowed.', ls, ends[i - 1])
            fi_use = None
        if fi is not None and fi.k != K_MSG and not colon:
            self.err(NN010, f'Expected ":" between "{name}" and its value.', ne, ls)
        elements: list[Node] = []
        values: list = []
        target = getattr(msg, name) if (msg is not None and fi_use is not None) else None
        le = ends[i - 1]
        while True:
            k = kinds[i]
            if k == "]":
                le = ends[i]
                i += 1
                break
            if k == IDENT or k == NUMBER or k == STRING:
                vs = starts[i]
                j = i + 1
                if k == STRING:
                    while kinds[j] == STRING:
                        j += 1
                ve = ends[j - 1]
                tok = text[vs:ends[i]]
                value = None
                if fi_use is None:
                    value = generic_value(k, tok, text, starts, ends, i, j)
                else:
                    try:
                        if k == STRING:
                            if fi_use.k not in (K_STRING, K_BYTES):
                                raise BadValue(f'Field "{name}" ({fi_use.type_name}) does not take a quoted string.')
                            mv = value = string_value(text, starts, ends, i, j, fi_use.k)
                        else:
                            mv, value = decode_token(fi_use, k, tok)
                        if target is not None:
                            target.append(mv)
                    except BadValue as e:
                        self.err(NN012, str(e), vs, ve)
                        value = None
                elements.append(_new_node(Node, (name, "scalar", value, (), li, ns, ne, vs, ve, vs, ve, fd)))
                values.append(value)
                i = j
                le = ve
            elif k == "{" or k == "<":
                bs = starts[i]
                sub = None
                submi = None
                if fi_use is not None:
                    if fi_use.k == K_MSG:
                        submi = fi_use.minfo
                        sub = target.add() if target is not None else None
                    else:
                        self.err(NN012, f'Field "{name}" is a {fi_use.type_name} value, not a message.', bs, ends[i])
                if depth + 1 >= MAX_DEPTH:
                    self.err(NN010, "Blocks are nested too deeply.", bs, ends[i])
                    i = self._skip_block(i)
                    children, be = [], ends[i - 1]
                else:
                    self.i = i + 1
                    self.stack.append((name, ns, ends[i]))
                    self.mi_stack.append(submi)
                    children, be = self.fields(sub, submi, depth + 1, _CLOSE_OF[k])
                    self.mi_stack.pop()
                    self.stack.pop()
                    i = self.i
                elements.append(_new_node(Node, (name, "message", None, tuple(children), li, ns, ne, bs, be,
                                                 bs, be, fd)))
                values.append(None)
                le = be
                if self.unwind:
                    break
            else:
                what = "end of file" if k == EOF else f"'{text[starts[i]:ends[i]]}'"
                self.err(NN010, f"Expected a value or ']' in the list, found {what}.", starts[i],
                         ends[i] if k != EOF else starts[i])
                i = self._to_list_end(i)
                break
            k = kinds[i]
            if k == ",":
                i += 1
                continue
            if k == "]":
                continue
            what = "end of file" if k == EOF else f"'{text[starts[i]:ends[i]]}'"
            self.err(NN010, f"Expected ',' or ']' in the list, found {what}.", starts[i], ends[i])
            i = self._to_list_end(i)
            break
        self.i = i
        return _new_node(Node, (name, "list", tuple(values), tuple(elements), li, ns, ne, ns, le, ls, le, fd))

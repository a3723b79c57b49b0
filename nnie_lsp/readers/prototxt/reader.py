"""Position-aware reader for Caffe prototxt (protobuf text format): the entry point.

``parse_prototxt(text, path)`` gives a :class:`~.tree.PrototxtDocument` in one pass: the
``caffe_pb2`` message built from everything that was valid (equal to ``text_format.Parse``'s
result on a valid file), a source tree with the ranges of every field occurrence, the layers with
their name/type/bottom/top ranges, every ``#`` comment and *all* problems found
(``text_format`` stops at the first one):

- ``NN010`` syntax error (bad token, unterminated string, missing ``:``/``}``/``]``...);
- ``NN011`` unknown field (with a did-you-mean from the descriptor's field names);
- ``NN012`` bad value (wrong type, out of range, bad enum value, repeated singular field...).

The work is split by job: :mod:`.tokenizer` (one regular expression), :mod:`.tree` (the
immutable document, nodes and layers, ranges computed lazily from offsets), :mod:`.decode`
(descriptor tables and scalar/string/enum decoding), :mod:`.parser` (recursive descent with
error recovery) and :mod:`.fast_path` (the common valid line shapes, one statement per regex
match).  This module runs the fast path and hands over to the general parser where it stops, so
a 30k-line file reads in about 40 ms.  ``parse_prototxt`` never raises.

The document types (``PrototxtDocument``, ``LayerSource``, ``Node``) are re-exported here: the
rest of the package imports them from this module.
"""

from __future__ import annotations

import gc
import re

from nnie_lsp.core.text import LineIndex
from nnie_lsp.readers.prototxt import caffe_pb2
from nnie_lsp.readers.prototxt.decode import message_class, msg_info
from nnie_lsp.readers.prototxt.fast_path import fast_parse
from nnie_lsp.readers.prototxt.parser import Parser
from nnie_lsp.readers.prototxt.tree import NN010, NN011, LayerSource, Node, PrototxtDocument, ProtoError

__all__ = ["LayerSource", "Node", "PrototxtDocument", "parse_prototxt"]

_HEADER_RE = r"#\s*proto-message:\s*([A-Za-z_][\w.]*)"  # compiled on first use (re's cache)


def parse_prototxt(text: str, path: str | None = None, message_type: str | None = None) -> PrototxtDocument:
    """Read a prototxt.  Never raises; problems are in ``errors``.

    The root message is ``caffe.NetParameter`` unless ``message_type`` is given or the file
    starts with a ``# proto-message: caffe.X`` header comment.
    """
    li = LineIndex(text)
    header_errors: list[tuple[str, str, int, int]] = []
    root_name = "caffe.NetParameter"
    # the header is looked up before parsing (cheap: only leading comments)
    lead = text[:4096]
    hm = re.search(_HEADER_RE, lead) if "proto-message" in lead else None
    requested = message_type
    if requested is None and hm is not None:
        # only honour it if nothing but comments/whitespace precedes it
        before = text[:hm.start()]
        if all(not ln.strip() or ln.lstrip().startswith("#") for ln in before.split("\n")):
            requested = hm.group(1)
            if message_class(requested) is None:
                header_errors.append((NN011, f'Unknown message type "{requested}" in the proto-message header; '
                                             f"reading the file as caffe.NetParameter.", hm.start(1), hm.end(1)))
                requested = None
    if requested is not None and message_class(requested) is not None:
        root_name = "caffe." + (requested[6:] if requested.startswith("caffe.") else requested)
    cls = message_class(root_name) or caffe_pb2.NetParameter
    msg = cls()
    root_mi = msg_info(cls.DESCRIPTOR)
    # The tree is many small acyclic objects: the cyclic GC only costs time while it is built.
    # At the end one gen-1 collection moves it to the oldest generation at once; otherwise the
    # next allocation would trigger a gen-0 pass over all of it and a later gen-1 pass would
    # traverse it again (about 10 ms each on a 30k-line file).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        try:
            fast = fast_parse(text, li, msg, root_mi)
        except Exception:  # pragma: no cover - safety net: the general parser reads it all
            fast = None
        if fast is not None and fast[3] is None:
            nodes, layer_entries, comment_offsets, _ = fast
            raw_errors = header_errors
        else:
            if fast is None:
                msg = cls()
                p = Parser(text, li, root_mi)
                seen = None
                nodes = layer_entries = comment_offsets = []
            else:
                # the general parser goes on where the fast path stopped
                nodes, layer_entries, comment_offsets, (offset, seen) = fast
                p = Parser(text, li, root_mi, offset)
            p.errors.extend(header_errors)
            p.layer_entries = layer_entries + p.layer_entries
            try:
                rest, _ = p.fields(msg, root_mi, 0, None, seen)
                nodes = nodes + rest
            except RecursionError:
                nodes = []
                p.errors.append((NN010, "Blocks are nested too deeply.", 0, 0))
            except Exception as e:  # pragma: no cover - safety net; tests assert it never triggers
                nodes = []
                p.errors.append((NN010, f"internal error: {type(e).__name__}: {e}", 0, 0))
            layer_entries, raw_errors = p.layer_entries, p.errors
            comment_offsets = comment_offsets + p.comment_offsets
    finally:
        if gc_was_enabled:
            gc.enable()
            gc.collect(1)
    errors = sorted(
        (ProtoError(code, message, li.range(s, max(s, e))) for code, message, s, e in raw_errors),
        key=lambda er: (er.range.start, er.range.end),
    )
    comments = tuple((li.range(s, e), text[s:e]) for s, e in comment_offsets)
    layers = tuple(
        LayerSource(idx, node, sub, v1) for idx, (node, sub, v1) in enumerate(layer_entries)
    )
    return PrototxtDocument(
        text=text,
        path=path,
        line_index=li,
        message=msg,
        nodes=tuple(nodes),
        layers=layers,
        errors=tuple(errors),
        comments=comments,
        message_type=root_name,
    )

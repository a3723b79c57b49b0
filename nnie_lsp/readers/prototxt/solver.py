"""Recognising a Caffe solver file (``solver.prototxt``), which is not a net.

Model folders often keep a ``solver.prototxt`` (a ``SolverParameter``: ``net:``, ``base_lr:``,
``max_iter:``, ``snapshot_prefix:`` …) beside the nets (docs/field-facts.md §16.4).  Read as a
``NetParameter`` every one of its fields is unknown, so the lint skips such files in folder mode
and says what they are when given one.

A text is a solver when its top-level fields (outside any ``{ }``, strings and ``#`` comments)
include a field only ``SolverParameter`` has and no field only ``NetParameter`` has (``layer``,
``layers``, ``input`` …).  The field lists come from the compiled ``caffe.proto``.  Only the first
64 KiB are looked at: a net names its first layer long before that.
"""

from __future__ import annotations

import re

from nnie_lsp.readers.prototxt import caffe_pb2

__all__ = ["looks_like_solver", "top_level_fields", "SOLVER_ONLY_FIELDS", "NET_ONLY_FIELDS"]

_SOLVER_FIELDS = frozenset(caffe_pb2.SolverParameter.DESCRIPTOR.fields_by_name)
_NET_FIELDS = frozenset(caffe_pb2.NetParameter.DESCRIPTOR.fields_by_name)
SOLVER_ONLY_FIELDS = _SOLVER_FIELDS - _NET_FIELDS
NET_ONLY_FIELDS = _NET_FIELDS - _SOLVER_FIELDS
HEAD_CHARS = 1 << 16

_TOKEN_RE = re.compile(r"""#[^\n]*|"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?|[{}<>]|[A-Za-z_][\w.]*\s*[:{<]?""")


def top_level_fields(text: str, limit: int = HEAD_CHARS) -> list[str]:
    """Names of the fields written at the top level of a prototxt text (first ``limit`` chars)."""
    depth = 0
    names: list[str] = []
    for match in _TOKEN_RE.finditer(text, 0, min(len(text), limit)):
        token = match.group(0)
        first = token[0]
        if first in "{<":
            depth += 1
        elif first in "}>":
            depth = max(depth - 1, 0)
        elif first in "#\"'":
            continue
        elif depth == 0 and token.rstrip()[-1:] in (":", "{", "<"):
            names.append(token.rstrip(" \t\r\n:{<"))
            if token.rstrip()[-1] in "{<":
                depth += 1
    return names


def looks_like_solver(text: str) -> bool:
    """True for a ``SolverParameter`` text (see the module's rule)."""
    names = set(top_level_fields(text))
    return bool(names & SOLVER_ONLY_FIELDS) and not names & NET_ONLY_FIELDS

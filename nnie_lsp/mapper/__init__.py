"""The mapper's own output read as engine documents (``docs/field-facts.md §8, §9, §16``).

- :mod:`.dot`: the project's one DOT tokenizer and statement reader;
- :mod:`.nettree`: ``cnn_net_tree.dot`` in the NNIE label format → :class:`NetTree`;
- :mod:`.log`: ``mapper_error.log``, ``mapper_debug.log`` and saved console logs → :class:`MapperLog`;
- :mod:`.messages`: the mapper's message forms and what each block names (its target);
- :mod:`.discovery`: which logs and ``cnn_net_tree.dot`` a lint project reads (beside the cfg, or
  given with ``nnie-lint --mapper-log``); the rules that use them are in
  :mod:`nnie_lsp.rules.mapper_output`.
"""

from .log import (
    LAST_PHASE,
    LogBlock,
    LogKind,
    MapperLog,
    MapperRun,
    MapperVersion,
    Phase,
    RunFailure,
    RunStatus,
    RuyiStart,
    looks_like_mapper_log,
    parse_mapper_log,
    read_mapper_log,
)
from .messages import MESSAGE_FORMS, LogTarget, MessageForm, TargetKind, message_form, message_target
from .dot import DotEdge, DotNodeStatement, DotSyntax, label_lines, parse_dot_syntax, tokenize_dot
from .nettree import BIT_MODE_NOTE, LayerView, NetTree, ReportPoint, TreeNode, parse_dims, parse_net_tree, read_net_tree

__all__ = [
    "LAST_PHASE", "LogBlock", "LogKind", "MapperLog", "MapperRun", "MapperVersion", "Phase", "RunFailure",
    "RunStatus", "RuyiStart", "looks_like_mapper_log", "parse_mapper_log", "read_mapper_log",
    "MESSAGE_FORMS", "LogTarget", "MessageForm", "TargetKind", "message_form", "message_target",
    "DotEdge", "DotNodeStatement", "DotSyntax", "label_lines", "parse_dot_syntax", "tokenize_dot",
    "BIT_MODE_NOTE", "LayerView", "NetTree", "ReportPoint", "TreeNode", "parse_dims", "parse_net_tree",
    "read_net_tree",
]

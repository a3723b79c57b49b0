"""The mapper's own output read as engine documents (``docs/field-facts.md §8, §9, §16``).

- :mod:`.dot`: the project's one DOT tokenizer and statement reader;
- :mod:`.nettree`: ``cnn_net_tree.dot`` in the NNIE label format → :class:`NetTree` (the one
  ``cnn_net_tree.dot`` reader, for the lint, the hover and the triage);
- :mod:`.dot_labels`: node labels in other formats (ATC-style lines, ``key=value`` pairs, record
  labels, free text) read for a name, a type, a node number and merged operators
  (:attr:`TreeNode.reading <nnie_lsp.readers.mapper.nettree.TreeNode.reading>` for a non-NNIE label);
- :mod:`.log`: ``mapper_error.log``, ``mapper_debug.log`` and saved console logs → :class:`MapperLog`;
- :mod:`.messages`: the mapper's message forms and what each block names (its target);
- :mod:`.output_files`: which logs and ``cnn_net_tree.dot`` a lint project reads (beside the cfg,
  or given with ``nnie-lint --mapper-log``); the rules that use them are in
  :mod:`nnie_lsp.rules.mapper_output`.
"""

# The names below are imported from their submodules on first use (PEP 562 ``__getattr__``),
# so importing one submodule does not load every other one (nnie-lint's start-up).
_EXPORTS = {
    "LAST_PHASE": (".log", "LAST_PHASE"),
    "LogBlock": (".log", "LogBlock"),
    "LogKind": (".log", "LogKind"),
    "MapperLog": (".log", "MapperLog"),
    "MapperRun": (".log", "MapperRun"),
    "MapperVersion": (".log", "MapperVersion"),
    "Phase": (".log", "Phase"),
    "RunFailure": (".log", "RunFailure"),
    "RunStatus": (".log", "RunStatus"),
    "RuyiStart": (".log", "RuyiStart"),
    "looks_like_mapper_log": (".log", "looks_like_mapper_log"),
    "parse_mapper_log": (".log", "parse_mapper_log"),
    "read_mapper_log": (".log", "read_mapper_log"),
    "MESSAGE_FORMS": (".messages", "MESSAGE_FORMS"),
    "LogTarget": (".messages", "LogTarget"),
    "MessageForm": (".messages", "MessageForm"),
    "TargetKind": (".messages", "TargetKind"),
    "message_form": (".messages", "message_form"),
    "message_target": (".messages", "message_target"),
    "DotEdge": (".dot", "DotEdge"),
    "DotNodeStatement": (".dot", "DotNodeStatement"),
    "DotSyntax": (".dot", "DotSyntax"),
    "label_lines": (".dot", "label_lines"),
    "parse_dot_syntax": (".dot", "parse_dot_syntax"),
    "tokenize_dot": (".dot", "tokenize_dot"),
    "BIT_MODE_NOTE": (".nettree", "BIT_MODE_NOTE"),
    "LayerView": (".nettree", "LayerView"),
    "NetTree": (".nettree", "NetTree"),
    "ReportPoint": (".nettree", "ReportPoint"),
    "TreeNode": (".nettree", "TreeNode"),
    "parse_dims": (".nettree", "parse_dims"),
    "parse_net_tree": (".nettree", "parse_net_tree"),
    "read_net_tree": (".nettree", "read_net_tree"),
}


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from nnie_lsp.readers.mapper import log, messages, dot, nettree  # static: all on first use

    sources = {".log": log, ".messages": messages, ".dot": dot, ".nettree": nettree}
    module, attribute = _EXPORTS[name]
    value = getattr(sources[module], attribute)
    globals()[name] = value
    return value


__all__ = [
    "LAST_PHASE", "LogBlock", "LogKind", "MapperLog", "MapperRun", "MapperVersion", "Phase", "RunFailure",
    "RunStatus", "RuyiStart", "looks_like_mapper_log", "parse_mapper_log", "read_mapper_log",
    "MESSAGE_FORMS", "LogTarget", "MessageForm", "TargetKind", "message_form", "message_target",
    "DotEdge", "DotNodeStatement", "DotSyntax", "label_lines", "parse_dot_syntax", "tokenize_dot",
    "BIT_MODE_NOTE", "LayerView", "NetTree", "ReportPoint", "TreeNode", "parse_dims", "parse_net_tree",
    "read_net_tree",
]

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

May import: core, readers.cfg, readers.wk.
"""

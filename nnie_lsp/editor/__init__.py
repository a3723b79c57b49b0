"""Editor features as pure functions on engine objects (no LSP types): the server calls them and
tests call them directly.

- :mod:`.common`: document kinds, what is under the cursor (layer, blob, suppression code);
- :mod:`.hover`: markdown for cfg keys/values, layer types, blobs, fields, rule codes;
- :mod:`.completion`: cfg keys/values, prototxt types, fields, enum values, blob names;
- :mod:`.navigation`: definition, references, rename, symbols, links, folding;
- :mod:`.actions`: quick-fix titles, "disable for this line", fix-all (the server carries each
  fix's edits ready for the editor in ``Diagnostic.data``);
- :mod:`.triage`: the editor's triage without LSP types — the commands' argument objects, per-layer
  notes (the T005 similarity diagnostic and the ``cos`` inlay hint) and the findings back as
  Diagnostics with their Fixes (:mod:`.triage.annotations`); a stored result on the current texts:
  findings and fixes carried over, "apply all", the words of the lens and stale marks
  (:mod:`.triage.carry_over`); the fixes already in the texts (:mod:`.triage.fixed_since_run`);
  the run's lines in the current text (:mod:`.triage.line_map`).

May import: core, readers, project, rules.
"""

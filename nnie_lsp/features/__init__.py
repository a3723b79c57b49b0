"""Editor features as pure functions on engine objects (no LSP types): the server calls them and
tests call them directly.

- :mod:`.common`: document kinds, what is under the cursor (layer, blob, suppression code);
- :mod:`.hover`: markdown for cfg keys/values, layer types, blobs, fields, rule codes;
- :mod:`.completion`: cfg keys/values, prototxt types, fields, enum values, blob names;
- :mod:`.navigation`: definition, references, rename, symbols, links, folding;
- :mod:`.actions`: quick-fix titles, "disable for this line", fix-all (the server carries each
  fix's edits ready for the editor in ``Diagnostic.data``);
- :mod:`.triage`: nnie-triage JSON -> per-layer diagnostics and inlay hints, the editor commands'
  argument objects;
- :mod:`.triage_results`: a stored triage result on the current texts (findings and fixes carried
  over, "apply all" choice, the words of the lens and the notification).
"""

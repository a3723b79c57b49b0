"""The editor's triage without LSP types: what a triage result means on the texts being edited.

- :mod:`.annotations` — the editor commands' argument objects and the ``nnie-triage`` command line;
  per-layer notes (the similarity diagnostic and the ``cos 0.9731`` inlay hint) on a parsed
  prototxt; the report's findings back as engine Diagnostics with their Fixes;
- :mod:`.carry_over` — the findings placed on the current texts (fixes kept only where their lines
  are unchanged), "apply all triage fixes", and the words of the lens, summary and stale marks;
- :mod:`.fixed_since_run` — which findings' fixes are already in the texts;
- :mod:`.line_map` — line numbers of the run's text in the current one (both of the above use it).

The LSP side is :mod:`nnie_lsp.server.triage`.
"""

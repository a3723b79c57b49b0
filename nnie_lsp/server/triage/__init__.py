"""The editor's triage, one feature: its state, its staleness and its LSP surface.

What a stored triage result means on the texts being edited (no LSP types):

- :mod:`.annotations` — the editor commands' argument objects and the ``nnie-triage`` command line;
  per-layer notes (the similarity diagnostic and the ``cos 0.9731`` inlay hint) on a parsed
  prototxt; the report's findings back as engine Diagnostics with their Fixes;
- :mod:`.carry_over` — the findings placed on the current texts (fixes kept only where their lines
  are unchanged), "apply all triage fixes", and the words of the lens, summary and stale marks;
- :mod:`.fixed_since_run` — which findings' fixes are already in the texts;
- :mod:`.line_map` — line numbers of the run's text in the current one (both of the above use it);
- :mod:`.tool_inputs` — the inputs a run needs, completed from the workspace.

The LSP side (server state, LSP types):

- :mod:`.commands` — the ``nnie.*`` triage commands, the verdict code lens, the cosine inlay hints;
- :mod:`.runner` — ``nnie.triage`` / ``nnie.reference`` / ``nnie.emulate``: the inputs completed,
  the ``nnie-triage`` command line run, the result stored and shown;
- :mod:`.jobs` — that command line in a subprocess: work-done progress with the tool's stages and
  percentage, cancellation, one job of each kind per cfg;
- :mod:`.results` — the stored results (``.nnie-triage/`` beside each cfg, written and read by
  :mod:`nnie_lsp.triage.store`, which the command line shares), their staleness, their diagnostics.

The analysis is :mod:`nnie_lsp.triage`; this package imports it, the engine's core types and the
server's wiring (:mod:`nnie_lsp.server.server`, :mod:`nnie_lsp.server.convert`); only the server's
handlers import this package.
"""

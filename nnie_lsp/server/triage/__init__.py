"""The editor's triage in the server (LSP types, server state; the words and places are in
:mod:`nnie_lsp.features.triage`, the analysis in :mod:`nnie_lsp.triage`):

- :mod:`.commands` — the ``nnie.*`` triage commands, the verdict code lens, the cosine inlay hints;
- :mod:`.runner` — ``nnie.triage`` / ``nnie.reference`` / ``nnie.emulate``: the inputs completed,
  the ``nnie-triage`` command line run, the result stored and shown;
- :mod:`.jobs` — that command line in a subprocess: work-done progress with the tool's stages and
  percentage, cancellation, one job of each kind per cfg;
- :mod:`.results` — the stored results (``.nnie-triage/`` beside each cfg), their staleness, their
  diagnostics and "apply all triage fixes".
"""

"""Empty, and to be deleted: the T-codes are registered in the triage modules that emit them
(:mod:`nnie_lsp.triage.diagnose.tree` and its siblings, :mod:`nnie_lsp.triage.measure.rows`; the
index :mod:`nnie_lsp.rules.index` names each).  Only ``triage/diagnose/builder.py`` still imports
this module; delete both the import and this file together."""

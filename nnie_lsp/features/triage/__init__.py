"""Triage results in the editor (no LSP types): annotations, carrying places over to current texts, fixes applied since the run."""

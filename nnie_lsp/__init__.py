"""nnie-lsp: lint, language server and accuracy triage for HiSilicon NNIE (nnie_mapper) projects."""

__version__ = "0.1.0"

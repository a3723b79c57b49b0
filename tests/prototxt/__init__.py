"""Tests of nnie_lsp.prototxt."""

"""Tests of nnie_lsp.readers.prototxt."""

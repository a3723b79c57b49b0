"""Fixtures for the text parsers that have a numpy path and a compiled one (numba): every test of a
module that uses them runs on both paths, and can cut the text into tiny pieces."""

from __future__ import annotations

import pytest

from nnie_lsp.readers.dumpio import compiled


def path_fixture(parser):
    """An autouse fixture running each test on ``parser``'s numpy path and on its compiled path
    (skipped where numba does not load)."""

    @pytest.fixture(autouse=True, params=["numpy", "compiled"])
    def path(request, monkeypatch):
        if request.param == "compiled":
            if parser.compiled() is None:
                pytest.skip("numba does not load here")
            monkeypatch.setattr(compiled, "COMPILE_AFTER", 0)
        else:
            monkeypatch.setattr(compiled, "COMPILE_AFTER", None)
        return request.param

    return path


def pieces_fixture(parser):
    """A fixture whose value sets ``parser``'s piece size (bytes) for the test."""

    @pytest.fixture
    def tiny_pieces(monkeypatch):
        def use(size: int) -> None:
            monkeypatch.setattr(parser, "CHUNK", size)
        return use

    return tiny_pieces

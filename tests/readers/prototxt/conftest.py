"""Shared fixtures for the prototxt tests (corpus copies live in tests/data/prototxt)."""

from __future__ import annotations

import pathlib

import pytest

from nnie_lsp.testing.shared_files import corpus_dir

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "prototxt"
REAL = sorted((DATA / "real").glob("*.prototxt"))
MODELS = sorted((DATA / "models").glob("*/*.prototxt"))
CORPUS = REAL + MODELS
# the real models with their weights (tests/data/shared, or NNIE_SHARED)
SHARED_MODELS = corpus_dir("models")


def read(path: pathlib.Path) -> str:
    with open(path, encoding="utf-8", newline="") as fh:
        return fh.read()


def corpus_file(fragment: str) -> pathlib.Path:
    hits = [p for p in CORPUS if fragment in p.name]
    assert len(hits) == 1, (fragment, hits)
    return hits[0]


@pytest.fixture(scope="session")
def corpus_texts() -> dict[str, str]:
    assert len(CORPUS) == 12, CORPUS
    return {p.name: read(p) for p in CORPUS}

"""The shared material the tests and benchmarks read: the public corpus (``corpus/real``: cfg and
prototxt files; ``corpus/models``: real trained Caffe models with their test images and licences).

The repository carries its own copy in ``tests/data/shared`` (provenance and licences in its
README.md and SOURCES.md files), so a fresh clone and CI read the same files and no test skips for
want of them.  ``NNIE_SHARED`` (a folder with the same ``corpus/...`` layout) overrides the place;
an empty value means the in-repository copy.  No machine path is written anywhere else."""

from __future__ import annotations

import os
from pathlib import Path

#: The repository this package was imported from (tests and benchmarks run from a checkout).
CHECKOUT = Path(__file__).resolve().parents[2]

#: The copy committed with the repository.
IN_REPO = CHECKOUT / "tests" / "data" / "shared"


def shared_dir() -> Path:
    return Path(os.environ.get("NNIE_SHARED") or IN_REPO)


def corpus_dir(kind: str) -> Path:
    """``kind``: ``"real"`` or ``"models"``."""
    return shared_dir() / "corpus" / kind

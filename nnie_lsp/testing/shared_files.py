"""The shared material beside the checkout: the folder ``shared`` next to the repository (as CI lays
it out), holding the public corpus (``corpus/real``: cfg and prototxt files; ``corpus/models``: real
trained Caffe models with their test images) and the field reference.  ``NNIE_SHARED`` overrides the
place.  Tests and benchmarks that need it skip, or say so, when it is absent: a clean checkout alone
must still pass.  No machine path is written anywhere else."""

from __future__ import annotations

import os
from pathlib import Path

#: The repository this package was imported from (tests and benchmarks run from a checkout).
CHECKOUT = Path(__file__).resolve().parents[2]


def shared_dir() -> Path:
    return Path(os.environ.get("NNIE_SHARED") or CHECKOUT.parent / "shared")


def corpus_dir(kind: str) -> Path:
    """``kind``: ``"real"`` or ``"models"``."""
    return shared_dir() / "corpus" / kind

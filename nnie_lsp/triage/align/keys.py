"""The dump-name keys with which triage looks layers and blobs up in the prototxt's graph
(:meth:`~nnie_lsp.readers.prototxt.graph.NetGraph.find_layer`): the alignment passes and the inputs
discovery (whether a folder's dumps are this net's) use the same keys.  No numpy here."""

from __future__ import annotations

import functools

from nnie_lsp.readers.dumpio.names import normalize_name

__all__ = ["name_variants"]


@functools.lru_cache(maxsize=1 << 16)
def name_variants(name: str) -> tuple[str, ...]:
    """Progressively looser keys, most specific first: the normalized name, the part after the
    last ``:`` (mapper ``comp2:NET:conv1`` style prefixes), and lower-cased forms of both.
    (Cached: every pass looks the same names up again.)"""
    key = normalize_name(name)
    out: list[str] = [key]
    if ":" in key:
        tail = normalize_name(key.rsplit(":", 1)[1])
        if tail:
            out.append(tail)
    for k in list(out):
        low = k.lower()
        if low not in out:
            out.append(low)
    return tuple(dict.fromkeys(out))

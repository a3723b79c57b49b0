"""Name normalisation for matching dump files against prototxt layers and blobs.

NNIE_REFERENCE §10: RuyiStudio replaces ``/`` with ``_`` in blob names, ``:`` is kept (mapper_param
names such as ``comp2:NET:conv1``), and the NNIE marks ``_report`` / ``_hp`` / ``_cpu`` are suffixes
of layer names that the dumps may or may not carry.
"""

from __future__ import annotations

import re

__all__ = ["normalize_name", "name_variants", "MARK_SUFFIXES"]

MARK_SUFFIXES: tuple[str, ...] = ("_report", "_hp", "_cpu")
_SUFFIX_RE = re.compile(r"(?:_report|_hp|_cpu)+$")


def normalize_name(name: str) -> str:
    """Key used for matching: ``/`` → ``_``, surrounding blanks dropped, NNIE mark suffixes
    (``_report``, ``_hp``, ``_cpu``, also stacked like ``_hp_report``) stripped; ``:`` kept."""
    key = name.strip().replace("/", "_").replace("\\", "_")
    stripped = _SUFFIX_RE.sub("", key)
    return stripped if stripped else key


def name_variants(name: str) -> tuple[str, ...]:
    """Progressively looser keys, most specific first: the normalized name, the part after the
    last ``:`` (mapper ``comp2:NET:conv1`` style prefixes), and lower-cased forms of both."""
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

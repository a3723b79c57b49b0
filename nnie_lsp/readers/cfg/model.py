"""Typed view of a cfg: :class:`MapperConfig` built from a :class:`CfgDocument`.

Conventions (documented here because rule authors rely on them):

- **Effective entry of a single-valued key**: when a non-repeatable key appears more than once,
  the *last* occurrence is effective (a line-by-line reader that assigns a struct field keeps
  the last value) [I]; :attr:`MapperConfig.duplicates` lists them so a rule can flag them.
  For repeatable keys :meth:`MapperConfig.entry` returns the *first* occurrence (input 0).
- **Spelling variants**: ``instructions_name`` and ``instruction_name`` are one setting; ask for
  either name and you get whichever is written (the last one if both).
- **Per-input groups**: the k-th occurrence of each per-input key (image_list, image_type,
  norm_type, mean_file, RGB_order, data_scale) belongs to input k (docs/field-facts.md §4) [I].
  The number of groups is the largest occurrence count among those keys.  A *shareable* key
  (``RGB_order``, ``data_scale``) written exactly once in a multi-input cfg applies to every
  input: each group reuses that same entry and lists the key in ``InputGroup.shared``.  Other
  per-input keys written fewer times than there are inputs leave ``None`` in the later groups
  (the mismatch is reported by :meth:`MapperConfig.per_input_mismatches`).
- **Meaning**: what the values of a group do (norm_type semantics, defaults, resolved mean file)
  is :mod:`.preprocessing`'s :class:`~.preprocessing.InputPreprocessing`, built from a group.
- **Values**: ``value(...)`` returns the parsed value when the written value is valid, the
  key's parsed default when the key is absent, and ``None`` when the value is invalid or there
  is no default.  Use ``check(...)`` / :attr:`MapperConfig.checks` for the error message.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from nnie_lsp.readers.cfg.keys import (
    ATC_KEYS,
    KEYS,
    PER_INPUT_KEYS,
    SHAREABLE_PER_INPUT_KEYS,
    ForeignKey,
    KeySpec,
    is_null_path,
    lookup,
)
from nnie_lsp.readers.cfg.values import ValueCheck, check_value
from nnie_lsp.readers.cfg.reader import CfgDocument, CfgEntry
from nnie_lsp.core.records import FrozenRecord


def canonical_key(key: str) -> str:
    spec = KEYS.get(key)
    return spec.preferred if spec is not None else key


def _value_of(spec: KeySpec, entry: CfgEntry | None) -> Any:
    if entry is None:
        return spec.default_value()
    chk = check_value(spec, entry.value)
    return chk.parsed if chk.ok else None


class InputGroup(FrozenRecord):
    """The per-input settings of network input ``index`` (0-based)."""

    index: int
    image_list: CfgEntry | None
    image_type: CfgEntry | None
    norm_type: CfgEntry | None
    mean_file: CfgEntry | None
    RGB_order: CfgEntry | None
    data_scale: CfgEntry | None
    shared: frozenset[str] = frozenset()  # keys whose single entry applies to all inputs

    def entry(self, key: str) -> CfgEntry | None:
        if key not in PER_INPUT_KEYS:
            raise KeyError(f"{key} is not a per-input key")
        return getattr(self, key)

    def value(self, key: str) -> Any:
        """Parsed value, the default if absent, None if invalid / no default."""
        return _value_of(KEYS[key], self.entry(key))

    def check(self, key: str) -> ValueCheck | None:
        e = self.entry(key)
        return None if e is None else check_value(KEYS[key], e.value)

    @property
    def image_type_value(self) -> int | None:
        return self.value("image_type")

    @property
    def norm_type_value(self) -> int | None:
        return self.value("norm_type")

    @property
    def data_scale_value(self) -> float | None:
        return self.value("data_scale")

    @property
    def rgb_order_value(self) -> str | None:
        return self.value("RGB_order")

    @property
    def mean_file_value(self) -> str | None:
        return self.mean_file.value if self.mean_file is not None else None

    @property
    def mean_file_is_null(self) -> bool:
        """True when mean_file is a placeholder such as ``null`` (or absent / empty)."""
        v = self.mean_file_value
        return v is None or is_null_path(v)

    @property
    def entries(self) -> tuple[CfgEntry, ...]:
        """Entries of this group in file order (shared entries included)."""
        es = [getattr(self, k) for k in PER_INPUT_KEYS]
        return tuple(sorted((e for e in es if e is not None), key=lambda e: e.index))


class PerInputMismatch(FrozenRecord):
    """A per-input key whose occurrence count does not match the number of image_list entries."""

    key: str
    count: int
    expected: int  # number of image_list entries
    entries: tuple[CfgEntry, ...]

    @property
    def message(self) -> str:
        return (f"[{self.key}] appears {self.count} time(s) but there are {self.expected} "
                f"[image_list] entries (one group per network input)")

    @property
    def message_zh(self) -> str:
        return (f"[{self.key}] 出现了 {self.count} 次，但 [image_list] 有 {self.expected} 个"
                f"（每个网络输入一组配置）")


class EntryCheck(FrozenRecord):
    entry: CfgEntry
    spec: KeySpec
    check: ValueCheck


class MapperConfig:
    """Typed access to one cfg document (immutable; build a new one when the text changes)."""

    def __init__(self, doc: CfgDocument) -> None:
        self.doc = doc
        by_canon: dict[str, list[CfgEntry]] = {}
        for e in doc.entries:
            by_canon.setdefault(canonical_key(e.key), []).append(e)
        self._by_canon = {k: tuple(v) for k, v in by_canon.items()}

    @classmethod
    def from_document(cls, doc: CfgDocument) -> "MapperConfig":
        return cls(doc)

    # ------------------------------------------------------------ raw access

    def entries(self, key: str) -> tuple[CfgEntry, ...]:
        """All entries of a key (both spellings for instruction(s)_name), in file order."""
        return self._by_canon.get(canonical_key(key), ())

    def entry(self, key: str) -> CfgEntry | None:
        """Effective entry: last occurrence for single-valued keys, first for repeatable keys."""
        es = self.entries(key)
        if not es:
            return None
        spec = lookup(key)
        return es[0] if spec is not None and spec.repeatable else es[-1]

    def has(self, key: str) -> bool:
        return bool(self.entries(key))

    def check(self, key: str) -> ValueCheck | None:
        """Check of the effective entry (None if the key is absent or unknown)."""
        spec, e = lookup(key), self.entry(key)
        if spec is None or e is None:
            return None
        return check_value(spec, e.value)

    def value(self, key: str) -> Any:
        """Parsed value of the effective entry, else the default; None if invalid/no default."""
        spec = lookup(key)
        if spec is None:
            raise KeyError(f"unknown nnie_mapper key: {key}")
        return _value_of(spec, self.entry(key))

    @cached_property
    def checks(self) -> tuple[EntryCheck, ...]:
        """A value check for every entry whose key is in the key table, in file order."""
        out = []
        for e in self.doc.entries:
            spec = lookup(e.key)
            if spec is not None:
                out.append(EntryCheck(e, spec, check_value(spec, e.value)))
        return tuple(out)

    @cached_property
    def invalid(self) -> tuple[EntryCheck, ...]:
        return tuple(c for c in self.checks if not c.check.ok)

    @cached_property
    def unknown_entries(self) -> tuple[CfgEntry, ...]:
        """Entries whose key is neither in the key table nor an ATC/dpico key."""
        return tuple(e for e in self.doc.entries if e.key not in KEYS and e.key not in ATC_KEYS)

    @cached_property
    def foreign_entries(self) -> tuple[tuple[CfgEntry, ForeignKey], ...]:
        """Entries using ATC/dpico keys (another tool's cfg)."""
        return tuple((e, ATC_KEYS[e.key]) for e in self.doc.entries if e.key in ATC_KEYS)

    @cached_property
    def duplicates(self) -> dict[str, tuple[CfgEntry, ...]]:
        """Single-valued keys written more than once (canonical key -> all its entries)."""
        out = {}
        for k, es in self._by_canon.items():
            spec = lookup(k)
            if spec is not None and not spec.repeatable and len(es) > 1:
                out[k] = es
        return out

    def missing_required(self) -> tuple[KeySpec, ...]:
        """Required keys that are absent (see ``KeySpec.required_note`` for how sure we are)."""
        return tuple(s for s in KEYS.values()
                     if s.required and s.alias_of is None and not self.has(s.name))

    # ------------------------------------------------------------ per input

    @cached_property
    def per_input_counts(self) -> dict[str, int]:
        return {k: len(self.entries(k)) for k in PER_INPUT_KEYS}

    @property
    def input_count(self) -> int:
        """Number of [image_list] entries = number of inputs the cfg describes."""
        return self.per_input_counts["image_list"]

    @cached_property
    def groups(self) -> tuple[InputGroup, ...]:
        counts = self.per_input_counts
        n = max(counts.values(), default=0)
        groups = []
        for k in range(n):
            fields: dict[str, CfgEntry | None] = {}
            shared = set()
            for key in PER_INPUT_KEYS:
                es = self.entries(key)
                if k < len(es):
                    fields[key] = es[k]
                    if len(es) == 1 and n > 1 and key in SHAREABLE_PER_INPUT_KEYS:
                        shared.add(key)
                elif len(es) == 1 and key in SHAREABLE_PER_INPUT_KEYS:
                    fields[key] = es[0]
                    shared.add(key)
                else:
                    fields[key] = None
            groups.append(InputGroup(index=k, shared=frozenset(shared), **fields))
        return tuple(groups)

    def group(self, k: int) -> InputGroup | None:
        return self.groups[k] if 0 <= k < len(self.groups) else None

    def per_input_mismatches(self) -> tuple[PerInputMismatch, ...]:
        """Per-input keys whose count differs from the number of image_list entries.

        Shareable keys (RGB_order, data_scale) may also appear once or not at all.  Absent
        required keys are left to :meth:`missing_required`.
        """
        n = self.input_count
        out = []
        for key in PER_INPUT_KEYS:
            if key == "image_list":
                continue
            es = self.entries(key)
            c = len(es)
            if c == n or c == 0:
                continue
            if key in SHAREABLE_PER_INPUT_KEYS and c == 1:
                continue
            out.append(PerInputMismatch(key, c, n, es))
        return tuple(out)

    def is_per_input_consistent(self) -> bool:
        return not self.per_input_mismatches()

    def _group_value(self, k: int, key: str) -> Any:
        g = self.group(k)
        if g is None:
            return None
        return g.value(key)

    def image_type(self, k: int = 0) -> int | None:
        return self._group_value(k, "image_type")

    def norm_type(self, k: int = 0) -> int | None:
        return self._group_value(k, "norm_type")

    def data_scale(self, k: int = 0) -> float | None:
        """data_scale for input k; the default 1/256 when absent (also with no inputs)."""
        g = self.group(k)
        return g.value("data_scale") if g is not None else self.value("data_scale")

    def rgb_order(self, k: int = 0) -> str | None:
        g = self.group(k)
        return g.value("RGB_order") if g is not None else self.value("RGB_order")

    def mean_file(self, k: int = 0) -> CfgEntry | None:
        g = self.group(k)
        return g.mean_file if g is not None else None

    # ------------------------------------------------------------ single-valued shortcuts

    @property
    def roi_files(self) -> tuple[CfgEntry, ...]:
        return self.entries("roi_coordinate_file")

    @property
    def compile_mode(self) -> int | None:
        return self.value("compile_mode")

    @property
    def net_type(self) -> int | None:
        return self.value("net_type")

    @property
    def is_simulation(self) -> int | None:
        return self.value("is_simulation")

    @property
    def batch_num(self) -> int | None:
        return self.value("batch_num")

    @property
    def prototxt_file(self) -> str | None:
        e = self.entry("prototxt_file")
        return e.value if e is not None and e.value else None

    @property
    def caffemodel_file(self) -> str | None:
        e = self.entry("caffemodel_file")
        return e.value if e is not None and e.value else None

    @property
    def instruction_name(self) -> str | None:
        """Output name as written (either spelling), else the default ``inst``."""
        return self.value("instruction_name")

    @property
    def instruction_entry(self) -> CfgEntry | None:
        return self.entry("instruction_name")

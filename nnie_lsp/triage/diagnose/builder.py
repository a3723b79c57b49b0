"""Triage findings as engine :class:`~nnie_lsp.diagnostics.Diagnostic`s.

A finding points where the user acts: the cfg line of a key (its value) for preprocessing and
``[compile_mode]``, the layer's name in the prototxt for a layer, the ``input:`` of the data blob
for the data layer; findings about the comparison as a whole have no place (empty ``path``).
Messages are the T-code's registered (English, Chinese) pairs (:mod:`nnie_lsp.rules.triage_findings`);
fixes are engine :class:`~nnie_lsp.diagnostics.Fix` objects whose edits come from
:mod:`nnie_lsp.fixes`.  :func:`finding_json` writes one in nnie-lint's JSON shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from ...cfg.keys import KEYS, PER_INPUT_KEYS
from ...cfg.model import MapperConfig
from ...cfg.reader import CfgDocument, CfgEntry, read_cfg
from ...diagnostics import Applicability, Diagnostic, FileEdit, Fix, Related, Severity
from ...output import to_json_obj
from ...prototxt.graph import GraphLayer, NetGraph
from ...prototxt.reader import PrototxtDocument
from ...rules import triage_findings  # noqa: F401  (registers the T-codes)
from ...rules.registry import Rule, registered_rule
from ...settings import LintSettings, load_settings
from ...text import Range

Place = tuple[str, Range]  # (path, range)
_NOWHERE = Range.point(0, 0)


@dataclass(frozen=True)
class Sources:
    """The files a triage run was given, read once: where findings point and what fixes edit."""

    cfg: CfgDocument | None = None
    config: MapperConfig | None = None
    prototxt: PrototxtDocument | None = None
    graph: NetGraph | None = None
    settings: LintSettings = field(default_factory=LintSettings)
    lang: str = "en"

    @classmethod
    def read(cls, *, cfg_path: str | Path | None = None, prototxt: PrototxtDocument | None = None,
             graph: NetGraph | None = None, lang: str = "en", settings: LintSettings | None = None) -> "Sources":
        """Read the cfg; the lint settings (``extra-inplace-pairs``…) come from the pyproject.toml
        nearest the prototxt (else the cfg), as nnie-lint finds them."""
        cfg = config = None
        if cfg_path is not None:
            cfg = read_cfg(str(cfg_path))
            config = MapperConfig.from_document(cfg)
        if settings is None:
            anchor = (prototxt.path if prototxt is not None else None) or (str(cfg_path) if cfg_path else None)
            settings = load_settings(anchor) if anchor else LintSettings()
        return cls(cfg, config, prototxt, graph, settings, lang)

    # ------------------------------------------------------------------ places
    @property
    def cfg_path(self) -> str | None:
        return self.cfg.path if self.cfg is not None else None

    def layer(self, name: str | None) -> GraphLayer | None:
        return self.graph.layer(name) if self.graph is not None and name else None

    def layer_place(self, name: str | None) -> Place | None:
        """The layer's name in the prototxt (its type when the name is not written)."""
        layer = self.layer(name)
        if layer is None or self.prototxt is None or not self.prototxt.path:
            return None
        return self.prototxt.path, layer.source.name_range or layer.source.type_range

    def input_place(self, blob: str | None) -> Place | None:
        """The ``input:`` (or Input layer ``top``) of a network input."""
        if self.graph is None or self.prototxt is None or not self.prototxt.path:
            return None
        for inp in self.graph.inputs:
            if inp.name == blob:
                return self.prototxt.path, inp.range
        return None

    def node_place(self, name: str | None) -> Place | None:
        """A row's place: the layer of that name, else the network input of that name."""
        return self.layer_place(name) or self.input_place(name)

    def cfg_entry(self, key: str, index: int = 0) -> CfgEntry | None:
        """The entry of `key` that applies to input `index` (per-input keys), or the effective one."""
        if self.config is None:
            return None
        if key in PER_INPUT_KEYS:
            group = self.config.group(index)
            return group.entry(key) if group is not None else None
        return self.config.entry(key)

    def cfg_place(self, key: str, index: int = 0) -> Place | None:
        entry = self.cfg_entry(key, index)
        if entry is None or not self.cfg_path:
            return None
        return self.cfg_path, entry.value_range

    def cfg_home(self) -> Place | None:
        """The cfg's first entry: where a finding about an absent key points."""
        if self.cfg is None or not self.cfg_path:
            return None
        return self.cfg_path, self.cfg.entries[0].line_range if self.cfg.entries else _NOWHERE


class FindingBuilder:
    """Collects the findings of one diagnosis, in the language of its :class:`Sources`."""

    def __init__(self, sources: Sources | None = None) -> None:
        self.sources = sources or Sources()
        self.items: list[Diagnostic] = []

    @staticmethod
    def rule(code: str) -> Rule:
        found = registered_rule(code)
        if found is None:
            raise KeyError(f"triage finding {code} is not registered")
        return found

    def text(self, code: str, msg_id: str, **params) -> str:
        return self._text(code, msg_id, self.sources.lang, params)

    def english(self, code: str, msg_id: str, **params) -> str:
        """The English text (the report's `reason` and `verdict` are English)."""
        return self._text(code, msg_id, "en", params)

    def _text(self, code: str, msg_id: str, lang: str, params: dict) -> str:
        en, zh = self.rule(code).messages[msg_id]
        return (zh if lang.startswith("zh") else en).format(**params)

    def fix(self, code: str, msg_id: str, edits: Iterable[FileEdit], *, safe: bool, **params) -> Fix | None:
        """A fix, or None when there is nothing to edit."""
        edits = tuple(edits)
        if not edits:
            return None
        return Fix(self.text(code, msg_id, **params), Applicability.SAFE if safe else Applicability.UNSAFE, edits)

    def related(self, code: str, msg_id: str, place: Place | None, **params) -> tuple[Related, ...]:
        if place is None:
            return ()
        return (Related(place[0], place[1], self.text(code, msg_id, **params)),)

    def add(self, code: str, msg_id: str, *, place: Place | None = None, severity: Severity | None = None,
            fix: Fix | None = None, related: Iterable[Related] = (), layer: str | None = None,
            cfg_key: str | None = None, **params) -> Diagnostic:
        data = {k: v for k, v in (("layer", layer), ("cfg_key", cfg_key)) if v}
        path, rng = place if place is not None else ("", _NOWHERE)
        text_params = {"layer": layer or "?", **params}
        diag = Diagnostic(code=code, message=self.text(code, msg_id, **text_params), path=path, range=rng,
                          severity=severity or self.rule(code).severity, fix=fix, related=tuple(related),
                          data=tuple(sorted(data.items())))
        self.items.append(diag)
        return diag

    def unset(self, code: str, key: str) -> str:
        """How a message quotes a key the cfg does not set: "not set, default BGR"."""
        return self.text(code, "unset", default=KEYS[key].default or "—")


def finding_json(diag: Diagnostic) -> dict:
    """One finding in the triage JSON: nnie-lint's diagnostic fields (1-based ``line``/``column``,
    ``fix`` as ``{applicability, message, edits}``) plus ``layer``/``cfg_key``; a finding with no
    place has no ``path``, ``line``, ``column``, ``end_line``, ``end_column``."""
    obj = to_json_obj(diag)
    out = {"code": obj["code"], "name": obj["name"], "severity": obj["severity"], "message": obj["message"]}
    out.update(dict(diag.data))
    if diag.path:
        for key in ("path", "line", "column", "end_line", "end_column"):
            out[key] = obj[key]
    out["fix"] = obj["fix"]
    out["related"] = obj["related"]
    out["url"] = obj["url"]
    return out


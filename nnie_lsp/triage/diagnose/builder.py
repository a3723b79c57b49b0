"""Triage findings as engine :class:`~nnie_lsp.core.diagnostics.Diagnostic`s.

A finding points where the user acts: the cfg line of a key (its value) for preprocessing and
``[compile_mode]``, the layer's name in the prototxt for a layer, the ``input:`` of the data blob
for the data layer; findings about the comparison as a whole have no place (empty ``path``).
Messages are the T-code's registered (English, Chinese) pairs, made into Diagnostics, fixes and
related places by the one builder of every engine Diagnostic
(:class:`~nnie_lsp.rules.context.DiagnosticBuilder`); fixes are engine
:class:`~nnie_lsp.core.diagnostics.Fix` objects whose edits come from :mod:`nnie_lsp.rules.fixes`.  The cfg is
read as the lint reads it (:func:`nnie_lsp.project.project.load_project`).  :func:`finding_json` writes a
finding in nnie-lint's JSON shape with the triage extension (:func:`nnie_lsp.core.diagnostic_json.encode_finding`).
"""

from __future__ import annotations

import errno
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable

from nnie_lsp.readers.cfg.keys import KEYS, PER_INPUT_KEYS
from nnie_lsp.readers.cfg.model import MapperConfig
from nnie_lsp.readers.cfg.reader import CfgDocument, CfgEntry
from nnie_lsp.core.diagnostic_json import encode_finding
from nnie_lsp.core.diagnostics import Diagnostic, FileEdit, Fix, Related, Severity
from nnie_lsp.project.project import Project, load_project
from nnie_lsp.readers.prototxt.graph import GraphLayer, NetGraph
from nnie_lsp.readers.prototxt.reader import PrototxtDocument
from nnie_lsp.rules.context import DiagnosticBuilder
from nnie_lsp.core.catalogue import get_rule
from nnie_lsp.core.registry import Rule
from nnie_lsp.core.safe_io import FileReadError
from nnie_lsp.project.settings import LintSettings, load_settings
from nnie_lsp.core.text import Range

Place = tuple[str, Range]  # (path, range)
#: A message id's variant used while fixes are withheld (:attr:`FindingBuilder.withholding`).
WITHHELD_PREFIX = "withheld_"
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
    # the cfg side as the lint reads it (load_project, without the prototxt): None without a cfg
    project: Project | None = None

    @classmethod
    def read(cls, *, cfg_path: str | Path | None = None, prototxt: PrototxtDocument | None = None,
             graph: NetGraph | None = None, lang: str = "en", settings: LintSettings | None = None) -> "Sources":
        """Read the cfg (:func:`read_cfg_project`); the lint settings (``extra-inplace-pairs``…)
        come from the pyproject.toml nearest the prototxt (else the cfg), as nnie-lint finds them."""
        cfg = config = project = None
        if cfg_path is not None:
            project = read_cfg_project(cfg_path)
            cfg, config = project.cfg, project.config
        if settings is None:
            anchor = (prototxt.path if prototxt is not None else None) or (str(cfg_path) if cfg_path else None)
            settings = load_settings(anchor) if anchor else LintSettings()
        return cls(cfg, config, prototxt, graph, settings, lang, project)

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


def read_cfg_project(cfg_path: str | Path) -> Project:
    """The cfg at `cfg_path` read as the lint reads it (:func:`nnie_lsp.project.project.load_project`,
    without its prototxt): the one reading of a cfg in the triage (:mod:`.preprocess_fit` takes
    it from :attr:`Sources.project`).  The cfg document keeps the path as given (findings and
    fixes quote it so).  An unreadable cfg raises :class:`~nnie_lsp.core.safe_io.FileReadError` (an
    ``OSError``) saying why."""
    project = load_project(cfg_path=str(cfg_path), load_prototxt=False)
    if project.cfg is None:
        problem = next((u.problem for u in project.unreadable if u.ref is None), None)
        if problem is None:
            raise OSError(errno.EIO, "cannot be read", str(cfg_path))
        raise FileReadError(problem._replace(path=str(cfg_path)))
    if project.cfg.path != str(cfg_path):
        cfg = replace(project.cfg, path=str(cfg_path))
        project = project._replace(cfg=cfg, config=MapperConfig.from_document(cfg))
    return project


class FindingBuilder:
    """Collects the findings of one diagnosis, in the language of its :class:`Sources`; each code's
    texts and Diagnostics come from its :class:`~nnie_lsp.rules.context.DiagnosticBuilder`."""

    def __init__(self, sources: Sources | None = None, *, withholding: bool = False) -> None:
        self.sources = sources or Sources()
        self.items: list[Diagnostic] = []
        #: the NNIE dumps predate the inputs (T008): a finding whose message gives advice is worded
        #: by its ``withheld_<id>`` message (what it found, never the advice: on old dumps that
        #: advice may be the undo of a fix just made)
        self.withholding = withholding
        self._builders: dict[tuple[str, str], DiagnosticBuilder] = {}

    @staticmethod
    def rule(code: str) -> Rule:
        found = get_rule(code)  # loads the module that registers it (rules/index.py)
        if found is None:
            raise KeyError(f"triage finding {code} is not registered")
        return found

    def for_code(self, code: str, lang: str | None = None) -> DiagnosticBuilder:
        """`code`'s builder in the findings' language (or `lang`), made once per code and language."""
        key = (code, lang or self.sources.lang)
        builder = self._builders.get(key)
        if builder is None:
            found = self.rule(code)
            builder = self._builders[key] = DiagnosticBuilder(found.code, found.messages, key[1], found.severity)
        return builder

    def text(self, code: str, msg_id: str, **params) -> str:
        return self.for_code(code).text(msg_id, **params)

    def english(self, code: str, msg_id: str, **params) -> str:
        """The English text (the report's `reason` and `verdict` are English)."""
        return self.for_code(code, "en").text(msg_id, **params)

    def fix(self, code: str, msg_id: str, edits: Iterable[FileEdit], *, safe: bool, **params) -> Fix | None:
        """A fix, or None when there is nothing to edit."""
        edits = tuple(edits)
        if not edits:
            return None
        return self.for_code(code).fix(msg_id, edits, safe=safe, **params)

    def related(self, code: str, msg_id: str, place: Place | None, **params) -> tuple[Related, ...]:
        if place is None:
            return ()
        return (self.for_code(code).related(msg_id, place[0], place[1], **params),)

    def add(self, code: str, msg_id: str, *, place: Place | None = None, severity: Severity | None = None,
            fix: Fix | None = None, related: Iterable[Related] = (), layer: str | None = None,
            cfg_key: str | None = None, **params) -> Diagnostic:
        data = {k: v for k, v in (("layer", layer), ("cfg_key", cfg_key)) if v}
        path, rng = place if place is not None else ("", _NOWHERE)
        builder = self.for_code(code)
        if self.withholding and f"{WITHHELD_PREFIX}{msg_id}" in self.rule(code).messages:
            msg_id = f"{WITHHELD_PREFIX}{msg_id}"
        message = builder.text(msg_id, **{"layer": layer or "?", **params})
        diag = builder.make(message, path, rng, severity=severity, fix=fix, related=related, data=data)
        self.items.append(diag)
        return diag

    def unset(self, code: str, key: str) -> str:
        """How a message quotes a key the cfg does not set: "not set, default BGR"."""
        return self.text(code, "unset", default=KEYS[key].default or "—")


def finding_json(diag: Diagnostic) -> dict:
    """One finding in the triage JSON (:func:`nnie_lsp.core.diagnostic_json.encode_finding`): nnie-lint's
    diagnostic fields plus ``layer``/``cfg_key``; a finding with no place has no ``path``,
    ``line``, ``column``, ``end_line``, ``end_column``."""
    return encode_finding(diag)


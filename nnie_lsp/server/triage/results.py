"""The triage results the server holds: stored beside each cfg (``.nnie-triage/``,
:mod:`nnie_lsp.triage.store`), shown on the open documents, stale when their inputs changed.

Each result (a :class:`~nnie_lsp.triage.store.StoredTriage`) belongs to a cfg (its *owner*) and
names its prototxt.  The newest result of a cfg or a prototxt is the one shown there:

- its findings become ``nnie-triage`` diagnostics on the cfg and the prototxt, carried over to the
  current texts with their fixes (:mod:`nnie_lsp.server.triage.carry_over`), and the per-layer
  statuses become diagnostics and inlay hints on the prototxt;
- it is *stale* when the cfg, the prototxt (saved or not) or a dump folder changed after the run:
  the messages and the lens say so, and "apply all triage fixes" is not offered;
- results come back after a restart: every ``.nnie-triage/*.json`` under the workspace root is
  loaded at start-up, and the one beside a document opened later.

The words (summary, lens titles, stale reasons) and the placing on the current texts are in
:mod:`nnie_lsp.server.triage`; this module holds the state and speaks LSP.
"""

from __future__ import annotations

import itertools
import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lsprotocol import types as lsp
from pygls.capabilities import get_capability

from nnie_lsp.core import i18n
from nnie_lsp.server.triage import annotations as triage_features
from nnie_lsp.server.triage import carry_over
from nnie_lsp.project.project import cached_prototxt
from nnie_lsp.core.text import read_text
from nnie_lsp.triage.inputs.folder_names import TRIAGE_STORE_DIR
from nnie_lsp.server.convert import TRIAGE_SOURCE, documented_rule, fix_data, merge_fix_data, rule_href, to_lsp_diagnostic

if TYPE_CHECKING:
    from nnie_lsp.triage.store import StoredTriage
    from nnie_lsp.server.server import NnieLanguageServer

#: Dump folders are stamped again at most this often (a big mapper_quant/ holds thousands of files).
FOLDER_CHECK_SECONDS = 2.0


def _store():
    """nnie_lsp.triage.store, imported when the first result is read or written (not at the
    server's start-up)."""
    from nnie_lsp.triage import store
    return store


def _read_records(folders: list[str]) -> list[tuple[StoredTriage | None, str]]:
    """(record, "") or (None, why) for each record in the folders' store (in a worker thread)."""
    store = _store()
    out = []
    for folder in folders:
        for path in store.records_in(os.path.join(folder, TRIAGE_STORE_DIR)):
            out.append(_read(store, path))
    return out


def _scan_records(root: str) -> list[tuple[StoredTriage | None, str]]:
    store = _store()
    return [_read(store, path) for path in store.scan(root)]


def _read(store, path: str) -> tuple[StoredTriage | None, str]:
    try:
        return store.load(path), ""
    except store.StoreError as exc:
        return None, str(exc)


def _regenerable(sim: str | None) -> bool:
    """The NNIE dumps are an emulation `nnie-triage emulate` wrote (its manifest says so): only
    those can be made again from the editor (``nnie.triage`` with ``regenerate: true``)."""
    if not sim or not os.path.isdir(sim):
        return False
    from nnie_lsp.triage.inputs.image_sets import read_manifest
    manifest = read_manifest(sim)
    return manifest is not None and manifest.get("command") == "emulate"


def rerun_arguments(record: StoredTriage) -> dict:
    """``nnie.triage`` arguments that run a stored result's triage again: its cfg (else its
    prototxt) and the inputs the user gave (the others are found again)."""
    rerun = {"cfg": record.cfg} if record.cfg else {"prototxt": record.prototxt}
    for role in carry_over.INPUT_ROLES:
        found = record.inputs.get(role)
        if found and found.get("origin") == "given":
            rerun[role] = found["path"]
    return rerun


def _stat(path: str) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns


@dataclass
class Entry:
    record: StoredTriage
    sequence: int                                   # later runs and loads win
    folder_roles: list[str] = field(default_factory=list)
    folder_checked: float = 0.0


@dataclass(frozen=True)
class View:
    """A result as it stands now."""

    stale_reasons: tuple[str, ...]
    placed: carry_over.Placed
    counts: dict
    fixed: int = 0      # findings whose fix is already in the texts (features/triage/fixed_since_run.py)
    remake: dict | None = None   # the NNIE dumps predate the cfg: regenerate, or re-run the mapper

    @property
    def stale(self) -> bool:
        return bool(self.stale_reasons)


class TriageResults:
    def __init__(self, ls: NnieLanguageServer) -> None:
        self.ls = ls
        self.entries: dict[str, Entry] = {}            # owner path -> entry
        self._sequence = itertools.count(1)
        self._loaded_folders: set[str] = set()
        self._annotated: dict[str, tuple] = {}         # uri -> what its stored diagnostics reflect
        self._disk: dict[str, tuple[tuple, str | None]] = {}
        self._views: dict[str, tuple[tuple, View]] = {}

    # ---------------------------------------------------------------- records
    def add(self, record: StoredTriage) -> Entry:
        entry = Entry(record, next(self._sequence), folder_checked=time.monotonic())
        self.entries[os.path.abspath(record.owner)] = entry
        return entry

    def entry_for(self, path: str | None) -> Entry | None:
        """The newest result whose cfg or prototxt is `path`: by the time it was saved (results read
        from disk come in folder order), then by the order they came in."""
        if not path:
            return None
        path = os.path.abspath(path)
        hits = [e for e in self.entries.values() if path in (e.record.owner, e.record.cfg, e.record.prototxt)]
        return max(hits, key=lambda e: (e.record.saved_at or "", e.sequence)) if hits else None

    def _accept(self, record: StoredTriage) -> Entry:
        """A record read from disk, unless a newer one of the same owner is already here."""
        current = self.entries.get(os.path.abspath(record.owner))
        if current is not None and current.record.saved_at >= record.saved_at:
            return current
        return self.add(record)

    def _accept_all(self, loaded: list) -> int:
        accepted = 0
        for record, error in loaded:
            if record is None:
                self.ls.log(i18n.t("triage.store_unreadable", self.ls.lang, error=error), lsp.MessageType.Warning)
            else:
                self._accept(record)
                accepted += 1
        return accepted

    def load_folder(self, folder: str) -> list[Entry]:
        """The results stored in `folder`'s store, read now (read once per folder)."""
        folder = os.path.abspath(folder)
        if folder in self._loaded_folders:
            return []
        self._loaded_folders.add(folder)
        before = set(self.entries)
        self._accept_all(_read_records([folder]))
        return [e for owner, e in self.entries.items() if owner not in before]

    async def load_beside(self, folder: str) -> None:
        """The results stored in `folder`'s store, read off the event loop, then shown."""
        folder = os.path.abspath(folder)
        if folder in self._loaded_folders or not os.path.isdir(os.path.join(folder, TRIAGE_STORE_DIR)):
            return
        self._loaded_folders.add(folder)
        loaded = await self.ls.scheduler.run_aux(_read_records, [folder])
        if self._accept_all(loaded):
            self.show_everywhere()

    async def load_workspace(self, root: str | None) -> None:
        """Every stored result under the workspace root (off the event loop), then show them."""
        if not root:
            return
        loaded = await self.ls.scheduler.run_aux(_scan_records, root)
        for record, _error in loaded:
            if record is not None:
                self._loaded_folders.add(os.path.dirname(record.owner))
        accepted = self._accept_all(loaded)
        if accepted:
            self.ls.log(f"loaded {accepted} stored triage result(s) under {root}")
            self.show_everywhere()

    def remove(self, entry: Entry) -> list[str]:
        self.entries.pop(os.path.abspath(entry.record.owner), None)
        return _store().clear(entry.record)

    # ---------------------------------------------------------------- texts and staleness
    def current_text(self, path: str) -> str | None:
        """`path`'s text now: the editor's when it is open, else the file's (cached by stat)."""
        uri = self.ls.documents.uri_for_path(path)
        if uri is not None:
            return self.ls.documents.text(uri)[0]
        try:
            info = os.stat(path)
        except OSError:
            return None
        stamp = (info.st_size, info.st_mtime_ns)
        cached = self._disk.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        try:
            text = read_text(path).text
        except (OSError, ValueError):
            text = None
        self._disk[path] = (stamp, text)
        return text

    def _editor_text(self, path: str) -> str | None:
        uri = self.ls.documents.uri_for_path(path)
        return self.ls.documents.text(uri)[0] if uri is not None else None

    def stale_roles(self, entry: Entry) -> list[str]:
        store = _store()
        roles = store.changed_inputs(entry.record, self._editor_text, check_folders=False)
        now = time.monotonic()
        if now - entry.folder_checked >= FOLDER_CHECK_SECONDS:
            entry.folder_roles = [r for r in store.changed_inputs(entry.record, self._editor_text)
                                  if r not in ("cfg", "prototxt")]
            entry.folder_checked = now
        return roles + entry.folder_roles

    def _run_texts(self, record: StoredTriage) -> dict[str, str]:
        texts = {}
        for role, path in (("cfg", record.cfg), ("prototxt", record.prototxt)):
            if path and role in record.texts:
                texts[path] = record.texts[role]
        return texts

    def view(self, entry: Entry) -> View:
        lang = self.ls.lang
        roles = self.stale_roles(entry)
        record = entry.record
        key = (entry.sequence, tuple(roles), lang,
               tuple(self.ls.documents.version(self.ls.documents.uri_for_path(p) or "") if p else None
                     for p in (record.cfg, record.prototxt)),
               tuple(_stat(p) for p in (record.cfg, record.prototxt) if p))
        cached = self._views.get(record.owner)
        if cached is not None and cached[0] == key:
            return cached[1]
        run_texts = self._run_texts(record)
        changed = list(roles)
        fixes = carry_over.fixes_in_texts(record.result, run_texts, self.current_text)
        if fixes.explained:  # every change to the cfg / prototxt is one of the result's own fixes
            roles = [role for role in roles if role not in ("cfg", "prototxt")]
        reasons = tuple(carry_over.stale_reasons(roles, lang))
        if fixes.explained:
            reasons += (carry_over.fixed_reason(fixes.applied, lang),)
        placed = carry_over.place_findings(record.result, run_texts, self.current_text,
                                           carry_over.stale_note(reasons, lang), fixed=fixes.fixed,
                                           fixed_note=carry_over.fixed_note(lang))
        counts = carry_over.fix_counts(placed.diagnostics)
        if reasons:
            counts["applicable"] = counts["safe"] = 0
        remake = None
        if carry_over.dumps_predate_cfg(record.result, changed, record.texts.get("cfg"),
                                        self.current_text(record.cfg) if record.cfg else None):
            remake = carry_over.remake(regenerable=_regenerable(record.input_path("sim")),
                                       arguments=rerun_arguments(record), lang=lang)
        view = View(reasons, placed, counts, len(fixes.fixed), remake)
        self._views[record.owner] = (key, view)
        return view

    def editor_info(self, entry: Entry, text_report: str | None = None) -> dict:
        view = self.view(entry)
        if text_report is None and entry.record.paths is not None:
            try:
                text_report = read_text(entry.record.paths.text).text
            except (OSError, ValueError):
                text_report = None
        return carry_over.editor_info(entry.record, stale_reasons=view.stale_reasons, counts=view.counts,
                                      fixed=view.fixed, text_report=text_report, lang=self.ls.lang,
                                      remake=view.remake)

    def result_with_editor(self, entry: Entry, text_report: str | None = None) -> dict:
        return {**entry.record.result, "editor": self.editor_info(entry, text_report)}

    # ---------------------------------------------------------------- diagnostics
    def refresh_diagnostics(self, uri: str) -> None:
        """Bring `uri`'s ``nnie-triage`` entry in the diagnostics store up to date."""
        document = self.ls.documents.get(uri)
        entry = self.entry_for(document.path) if document is not None and not self.ls.documents.problem(uri) else None
        if entry is None:
            self._annotated.pop(uri, None)
            self.ls.diagnostics.clear(uri, TRIAGE_SOURCE)
            return
        view = self.view(entry)
        encoder = self.ls.encoder()
        text, version = self.ls.documents.text(uri)
        reflects = (self.ls.documents.state(), entry.sequence, view.stale_reasons, self.ls.lang, encoder.encoding)
        if self._annotated.get(uri) == reflects and self.ls.diagnostics.get(TRIAGE_SOURCE, uri) is not None:
            return
        _overlay, versions = self.ls.documents.overlay()
        lines = self._lines()
        extra = {"stale": view.stale, "cfg": entry.record.cfg, "owner": entry.record.owner}
        items = [to_lsp_diagnostic(d, lines, encoder, versions, source=TRIAGE_SOURCE,
                                   extra={**extra, **dict(d.data)})
                 for d in view.placed.diagnostics if os.path.abspath(d.path) == document.path]
        if document.kind == "prototxt":
            items += self._layer_diagnostics(entry, view, text, document.path)
        self.ls.diagnostics.set(TRIAGE_SOURCE, uri, items, version)
        self._annotated[uri] = reflects

    def _layer_diagnostics(self, entry: Entry, view: View, text: str, path: str) -> list[lsp.Diagnostic]:
        doc, _graph = cached_prototxt(text, path)
        encoder = self.ls.encoder()
        note = carry_over.stale_note(view.stale_reasons, self.ls.lang)
        items = []
        for layer_note in triage_features.annotations(entry.record.result, doc, self.ls.lang, only_flagged=True):
            if layer_note.message is None:
                continue
            code = layer_note.code   # the registered similarity code (T005)
            items.append(lsp.Diagnostic(
                range=encoder.range(doc.line_index, layer_note.range), message=layer_note.message + note,
                severity=lsp.DiagnosticSeverity(int(layer_note.severity)), source=TRIAGE_SOURCE, code=code,
                code_description=lsp.CodeDescription(href=rule_href(code)) if documented_rule(code) else None,
                data={"layer": layer_note.layer, "stale": view.stale, "owner": entry.record.owner}))
        return items

    def _lines(self):
        """Line indexes by path for one conversion (a big prototxt is indexed once, not per finding)."""
        cache: dict[str, object] = {}

        def lines(path: str):
            if path not in cache:
                cache[path] = self.ls.documents.line_index_for_path(path)
            return cache[path]
        return lines

    def forget(self, uri: str) -> None:
        self._annotated.pop(uri, None)

    def show_everywhere(self) -> None:
        """Results changed: the open documents' diagnostics, code lenses and inlay hints again."""
        self._annotated.clear()
        if self.ls.pull:
            self.ls.refresh_pull()
        else:
            for document in self.ls.documents:
                self.ls.publish(document.uri)
        for capability, refresh in (("workspace.code_lens.refresh_support", self.ls.workspace_code_lens_refresh),
                                    ("workspace.inlay_hint.refresh_support", self.ls.workspace_inlay_hint_refresh)):
            if get_capability(self.ls.client_capabilities, capability, False):
                try:
                    refresh(None)
                except Exception:
                    pass

    # ---------------------------------------------------------------- apply all
    def fix_all_data(self, entry: Entry, can_create: bool) -> tuple[dict | None, int, list[str]]:
        """The merged fix data of "apply all triage fixes", how many fixes it holds, and why
        others were left out."""
        view = self.view(entry)
        if view.stale:
            return None, 0, [i18n.t("triage.no_fixes", self.ls.lang)]
        _overlay, versions = self.ls.documents.overlay()
        lines = self._lines()
        encoder = self.ls.encoder()
        chosen, left_out = [], []
        for _diagnostic, fix in carry_over.fix_all(view.placed.diagnostics):
            data = fix_data(fix, lines, encoder, versions)
            if data.get("creates") and not can_create:
                left_out.append(i18n.t("triage.cannot_create", self.ls.lang,
                                       file=", ".join(os.path.basename(u) for u in data["creates"])))
                continue
            chosen.append(data)
        if not chosen:
            return None, 0, left_out or [i18n.t("triage.no_fixes", self.ls.lang)]
        return merge_fix_data(chosen), len(chosen), left_out

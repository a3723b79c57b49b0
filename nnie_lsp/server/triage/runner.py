"""The triage commands: ``nnie.triage`` (``nnie-triage compare``), ``nnie.reference`` and
``nnie.emulate``, each a subprocess with cancellable progress (:mod:`.jobs`).

``nnie.triage`` completes its inputs once, with the editor's unsaved texts, through the triage's
one entry (:func:`nnie_lsp.triage.pipeline.find_inputs`: what lies beside the cfg), passes every
input to ``nnie-triage compare`` explicitly (so the command has nothing left to look for), runs it
in the cfg's folder, stores the result with its HTML and text reports in ``.nnie-triage/``
(:mod:`nnie_lsp.triage.store`) and shows it (:mod:`.results`).  Its response is the compare JSON
plus the ``editor`` object of docs/editor-protocol.md.
"""

from __future__ import annotations

import json
import os
import uuid
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams

from ... import i18n
from ...features.triage import annotations as triage_features
from ...features.triage import carry_over as result_features
from ...project import DiskProvider, project_for_file
from ...settings import LintSettings
from ...text import read_text
from .jobs import Busy, run_job
from ..protocol import request_failed
from .results import TriageResults

if TYPE_CHECKING:
    from ...triage.store import StoredTriage
    from ..server import NnieLanguageServer

# nnie_lsp.triage (store, pipeline, inputs) is imported inside the commands: none of it loads numpy,
# but the server's start-up does without it until a triage command runs.

ROLES = ("reference", "sim", "sim16", "dot")


class TriageRunner:
    def __init__(self, ls: NnieLanguageServer) -> None:
        self.ls = ls
        self.results = TriageResults(ls)
        self.busy = Busy()

    # ---------------------------------------------------------------- what the rest of the server asks
    def refresh_diagnostics(self, uri: str) -> None:
        self.results.refresh_diagnostics(uri)

    def forget(self, uri: str) -> None:
        self.results.forget(uri)

    def result_for(self, path: str) -> dict | None:
        entry = self.results.entry_for(path)
        return entry.record.result if entry is not None else None

    # ---------------------------------------------------------------- arguments
    def arguments(self, command: str, args: Sequence, keys: Mapping[str, str]) -> dict[str, Any]:
        try:
            return triage_features.parse_arguments(list(args), keys, self.ls.root)
        except triage_features.TriageArgsError as exc:
            raise JsonRpcInvalidParams(i18n.t("triage.bad_args", self.ls.lang, command=command, error=str(exc))) from None

    def read(self, path: str) -> str | None:
        """A file's text as the editor has it (unsaved changes first)."""
        uri = self.ls.documents.uri_for_path(path)
        if uri is not None:
            return self.ls.documents.text(uri)[0]
        try:
            return read_text(path).text
        except (OSError, ValueError):
            return None

    def cfg_of_prototxt(self, prototxt: str) -> str | None:
        """The cfg beside `prototxt` that names it, else the cfg of its newest stored result."""
        overlay, _versions = self.ls.documents.overlay()
        try:
            project = project_for_file(prototxt, settings=LintSettings(), provider=DiskProvider(overlay), is_cfg=False)
            if project.cfg_path:
                return project.cfg_path
        except Exception as exc:  # an unreadable project: fall back to the stored results
            self.ls.log(f"no cfg for {prototxt}: {exc!r}", lsp.MessageType.Info)
        entry = self.results.entry_for(prototxt)
        return entry.record.cfg if entry is not None else None

    def discovery(self, args: Sequence) -> dict:
        values = self.arguments("nnie.discoverTriageInputs", args, triage_features.LOOKUP_KEYS)
        cfg = values.get("cfg") or (self.cfg_of_prototxt(values["prototxt"]) if values.get("prototxt") else None)
        if cfg is None:
            raise JsonRpcInvalidParams(i18n.t("triage.bad_args", self.ls.lang, command="nnie.discoverTriageInputs",
                                              error="give a cfg, or a prototxt a cfg beside it names"))
        from ...triage.inputs.beside_cfg import discover
        return discover(cfg, reader=self.read).to_json()

    # ---------------------------------------------------------------- nnie.triage
    async def run(self, args: Sequence) -> dict:
        """Run one triage; the compare JSON plus the ``editor`` object."""
        from ...triage import store
        from ...triage.inputs.beside_cfg import DiscoveryError
        from ...triage.pipeline import TriageRequest, find_inputs
        lang = self.ls.lang
        try:
            targs = triage_features.TriageArgs.parse(list(args), self.ls.root)
        except triage_features.TriageArgsError as exc:
            raise JsonRpcInvalidParams(i18n.t("triage.bad_args", lang, command="nnie.triage", error=str(exc))) from None
        for key in ("cfg", "prototxt"):
            path = getattr(targs, key)
            if path and not os.path.isfile(path):
                raise JsonRpcInvalidParams(i18n.t("triage.bad_args", lang, command="nnie.triage",
                                                  error=f"{key}: {path} does not exist"))
        cfg = targs.cfg or (self.cfg_of_prototxt(targs.prototxt) if targs.prototxt else None)
        try:
            found = find_inputs(TriageRequest(reference=targs.reference, sim=targs.sim, sim16=targs.sim16, cfg=cfg,
                                              prototxt=targs.prototxt, dot=targs.dot, lang=lang, find=targs.discover),
                                reader=self.read)
        except DiscoveryError as exc:
            raise JsonRpcInvalidParams(str(exc)) from None
        prototxt = found.prototxt
        owner = cfg or prototxt
        inputs = {role: found.origin(role) for role in ROLES}
        texts = {path: text for path in (cfg, prototxt) if path and (text := _disk_text(path)) is not None}
        html = None
        if owner:
            html = os.path.join(store.store_dir(owner), f".tmp-{uuid.uuid4().hex}.html")
            try:
                os.makedirs(os.path.dirname(html), exist_ok=True)
            except OSError as exc:
                self.ls.log(i18n.t("triage.store_failed", lang, error=str(exc)), lsp.MessageType.Warning)
                html = None
        command = triage_features.triage_command(triage_features.TriageArgs(
            found.reference, found.sim, cfg, prototxt, found.sim16, found.dot), html=html, lang=lang)
        claim = self.busy.claim("nnie.triage", owner or found.sim, lang)
        try:
            out, progress = await run_job(self.ls, command, title=i18n.t("triage.title", lang),
                                          message=os.path.basename(owner or found.sim), running="triage.running",
                                          cwd=os.path.dirname(owner) if owner else None)
        except BaseException:
            _unlink(html)
            raise
        finally:
            self.busy.release(claim)
        try:
            result = json.loads(out)
            if not isinstance(result, dict):
                raise ValueError("not an object")
        except ValueError as exc:
            _unlink(html)
            message = i18n.t("triage.failed", lang, code=0, error=f"invalid JSON: {exc}")
            progress.end(message)
            raise request_failed(message) from None
        text_report = _text_report(result)
        record = store.new_record(owner or os.path.join(found.sim, "triage"), result, cfg=cfg, prototxt=prototxt,
                                  inputs=inputs, texts=texts)
        if owner:
            self._save(record, html, text_report)
        entry = self.results.add(record)
        progress.end(i18n.t("triage.done", lang, verdict=result_features.summary(result, lang)))
        self.results.show_everywhere()
        return self.results.result_with_editor(entry, text_report)

    def _save(self, record: StoredTriage, html: str | None, text_report: str | None) -> None:
        from ...triage import store
        try:
            if html and os.path.exists(html):
                os.replace(html, record.paths.html)
            store.save(record, text=text_report)
        except OSError as exc:
            _unlink(html)
            message = i18n.t("triage.store_failed", self.ls.lang, error=f"{exc.filename or ''}: {exc.strerror or exc}")
            self.ls.log(message, lsp.MessageType.Warning)
            self.ls.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=message))

    # ---------------------------------------------------------------- nnie.reference / nnie.emulate
    async def run_tool(self, kind: str, args: Sequence) -> dict:
        """``nnie-triage reference`` or ``emulate`` for a cfg; the folder written and what the tool said."""
        from ...triage.inputs.beside_cfg import EMULATED_16BIT_DIR, discover
        from ...triage.inputs.folder_names import CAFFE_OUTPUT_DIR, EMULATED_DIR
        lang = self.ls.lang
        command_name = f"nnie.{kind}"
        values = self.arguments(command_name, args,
                                triage_features.REFERENCE_KEYS if kind == "reference" else triage_features.EMULATE_KEYS)

        def bad(error: str) -> JsonRpcInvalidParams:
            return JsonRpcInvalidParams(i18n.t("triage.bad_args", lang, command=command_name, error=error))
        cfg = values.get("cfg")
        if not cfg:
            raise bad("cfg is required")
        found = discover(cfg, reader=self.read)
        prototxt = values.get("prototxt") or found.prototxt
        caffemodel = values.get("caffemodel") or found.caffemodel
        for key, path in (("prototxt", prototxt), ("caffemodel", caffemodel)):
            if not path or not os.path.isfile(path):
                raise bad(f"{key}: {path} does not exist" if path else
                          f"the cfg names no {key} that exists; give {key}")
        bits = values.get("bits", 8)
        default = CAFFE_OUTPUT_DIR if kind == "reference" else (EMULATED_16BIT_DIR if bits == 16 else EMULATED_DIR)
        out = values.get("out") or os.path.join(os.path.dirname(cfg), default)
        if os.path.exists(out) and not os.path.isdir(out):
            raise bad(f"out: {out} is a file")
        existing = _file_count(out)
        if existing and not values.get("overwrite"):
            raise bad(i18n.t("job.out_not_empty", lang, out=out, count=existing))
        arguments = [kind, "--cfg", cfg, "--prototxt", prototxt, "--caffemodel", caffemodel, "-o", out]
        for image in values.get("image", ()):
            arguments += ["--image", image]
        if kind == "emulate":
            arguments += ["--bits", str(bits), "--format", values.get("format", "mapper_quant")]
            for layer in values.get("hp", ()):
                arguments += ["--hp", layer]
        command = triage_features.triage_cli(*arguments)
        claim = self.busy.claim(command_name, cfg, lang)
        try:
            out_text, progress = await run_job(self.ls, command, title=i18n.t(f"job.title.{kind}", lang),
                                               message=os.path.basename(cfg), cwd=os.path.dirname(cfg))
        finally:
            self.busy.release(claim)
        lines = [line for line in out_text.splitlines() if line.strip()]
        message = lines[0] if lines else ""
        progress.end(i18n.t("job.done", lang, message=message))
        self.ls.log("\n".join(lines))
        self.results.show_everywhere()   # results that read `out` are stale now
        return {"out": out, "files": _file_count(out), "message": "\n".join(lines), "command": command}


def _disk_text(path: str) -> str | None:
    try:
        return read_text(path).text
    except (OSError, ValueError):
        return None


def _text_report(result: dict) -> str | None:
    from ...triage.report import render as report
    try:
        return report.render_text(result)
    except Exception:  # a report the renderer does not know (another tool version): the JSON is kept
        return None


def _file_count(folder: str) -> int:
    try:
        return sum(1 for entry in os.scandir(folder) if entry.is_file())
    except OSError:
        return 0


def _unlink(path: str | None) -> None:
    if path and os.path.exists(path):
        try:
            os.unlink(path)
        except OSError:
            pass

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
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from nnie_lsp.core import i18n
from nnie_lsp.server.triage import annotations as triage_features
from nnie_lsp.server.triage import carry_over as result_features
from nnie_lsp.project.project import DiskProvider, cfgs_naming
from nnie_lsp.core.text import read_text
from nnie_lsp.server.triage.jobs import Busy, run_job
from nnie_lsp.server.protocol import request_failed
from nnie_lsp.server.triage.results import TriageResults

if TYPE_CHECKING:
    from nnie_lsp.triage.store import StoredTriage
    from nnie_lsp.server.server import NnieLanguageServer

# nnie_lsp.triage (store, pipeline, inputs) is imported inside the commands: none of it loads numpy,
# but the server's start-up does without it until a triage command runs.

ROLES = result_features.INPUT_ROLES    # recorded with the result (with framework: the ONNX side)


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

    def cfgs_of_prototxt(self, prototxt: str) -> list[str]:
        """The cfgs beside `prototxt` (its folder and the parent) that name it."""
        overlay, _versions = self.ls.documents.overlay()
        try:
            return cfgs_naming(prototxt, DiskProvider(overlay), self.ls.root)
        except Exception as exc:  # an unreadable folder: fall back to the stored results
            self.ls.log(f"no cfg for {prototxt}: {exc!r}", lsp.MessageType.Info)
            return []

    def cfg_of_prototxt(self, prototxt: str, command: str = "nnie.triage") -> str | None:
        """The cfg of `prototxt`: the one beside it that names it; among several, the one of its
        newest stored result, else none is picked silently (InvalidParams naming them); without
        any, the cfg of its newest stored result."""
        cfgs = self.cfgs_of_prototxt(prototxt)
        entry = self.results.entry_for(prototxt)
        stored = entry.record.cfg if entry is not None else None
        if len(cfgs) == 1:
            return cfgs[0]
        if len(cfgs) > 1:
            if stored in cfgs:
                return stored
            raise JsonRpcInvalidParams(i18n.t("triage.several_cfgs", self.ls.lang, command=command,
                                              prototxt=os.path.basename(prototxt),
                                              cfgs=", ".join(os.path.relpath(c, os.path.dirname(prototxt))
                                                             for c in cfgs)))
        return stored

    def discovery(self, args: Sequence) -> dict:
        """``nnie.discoverTriageInputs``: what lies beside the cfg; for a prototxt named by several
        cfgs, ``cfg`` null and ``cfgs`` the candidates (the client asks which)."""
        values = self.arguments("nnie.discoverTriageInputs", args, triage_features.LOOKUP_KEYS)
        prototxt = values.get("prototxt")
        cfgs = [values["cfg"]] if values.get("cfg") else (self.cfgs_of_prototxt(prototxt) if prototxt else [])
        cfg = cfgs[0] if len(cfgs) == 1 else None
        if cfg is None and prototxt and not cfgs:
            entry = self.results.entry_for(prototxt)
            cfg = entry.record.cfg if entry is not None else None
        if cfg is None and prototxt:      # several cfgs name it (the client asks which), or none does
            return {"cfg": None, "cfgs": cfgs, "prototxt": prototxt, "folder": os.path.dirname(prototxt),
                    "reference": None, "sim": None, "sim16": None, "dot": None, "looked_for": [], "notes": [],
                    "tried": {}, "prototxt_named": None, "prototxt_tried": []}
        if cfg is None:
            raise JsonRpcInvalidParams(i18n.t("triage.bad_args", self.ls.lang, command="nnie.discoverTriageInputs",
                                              error="give a cfg, or a prototxt a cfg beside it names"))
        from nnie_lsp.triage.inputs.beside_cfg import discover
        return {**discover(cfg, reader=self.read, lang=self.ls.lang).to_json(), "cfgs": cfgs or [cfg]}

    def check_folder(self, args: Sequence) -> dict:
        """``nnie.checkFolder {folder}``: what a folder holds, for the editor's choices before it
        runs anything (an input folder must hold dumps; an output folder with dumps nnie-triage did
        not write cannot be overwritten)."""
        from nnie_lsp.triage.inputs.beside_cfg import output_state
        values = self.arguments("nnie.checkFolder", args, {"folder": "path"})
        if not values.get("folder"):
            raise JsonRpcInvalidParams(i18n.t("triage.bad_args", self.ls.lang, command="nnie.checkFolder",
                                              error="folder is required"))
        return output_state(values["folder"]).to_json()

    # ---------------------------------------------------------------- nnie.triage
    async def run(self, args: Sequence) -> dict:
        """Run one triage; the compare JSON plus the ``editor`` object.  Every expected outcome
        (bad arguments, inputs not found, the tool's failure, Cancel) is one log line."""
        try:
            return await self._run(args)
        except JsonRpcException as exc:
            raise self.ls.outcome("nnie.triage", exc) from None

    async def _run(self, args: Sequence) -> dict:
        from nnie_lsp.triage import store
        from nnie_lsp.triage.inputs.beside_cfg import DiscoveryError, why_not_dumps
        from nnie_lsp.triage.pipeline import TriageRequest, find_inputs
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
                                              prototxt=targs.prototxt, dot=targs.dot, framework=targs.framework,
                                              board=(targs.board,) if targs.board else None,
                                              lang=lang, find=targs.discover),
                                reader=self.read)
        except DiscoveryError as exc:
            raise JsonRpcInvalidParams(str(exc)) from None
        for role in ("reference", "sim", "sim16"):   # a folder without dumps: refused before anything runs
            path = getattr(found, role)
            why = why_not_dumps(path) if path else None
            if why is not None:
                raise JsonRpcInvalidParams(i18n.t("triage.no_dumps", lang, what=i18n.t(f"triage.what.{role}", lang),
                                                  path=path, why=why))
        prototxt = found.prototxt
        for path in (cfg, prototxt) if targs.regenerate else ():   # the emulation reads them from disk
            editor = self.read(path) if path else None
            if editor is not None and editor != _disk_text(path):
                raise JsonRpcInvalidParams(i18n.t("triage.save_first", lang, file=os.path.basename(path)))
        warnings = self._warnings(found)
        owner = cfg or prototxt
        inputs = {role: found.origin(role) for role in ROLES}
        texts = {path: text for path in (cfg, prototxt) if path and (text := _disk_text(path)) is not None}
        html, made = None, []
        if owner:
            html = os.path.join(store.store_dir(owner), f".tmp-{uuid.uuid4().hex}.html")
            try:
                made = _makedirs(os.path.dirname(html))
            except OSError as exc:
                self.ls.log(i18n.t("triage.store_failed", lang, error=str(exc)), lsp.MessageType.Warning)
                html = None
        command = triage_features.triage_command(triage_features.TriageArgs(
            found.reference, found.sim, cfg, prototxt, found.sim16, found.dot, regenerate=targs.regenerate,
            framework=found.framework,    # as given, else output_onnx/ beside the cfg (discovery)
            board=found.board[0] if found.board else None),   # as given, else board/ beside the cfg
            html=html, lang=lang)
        claim = self.busy.claim("nnie.triage", owner or found.sim or found.reference, lang)
        try:
            out, progress = await run_job(self.ls, command, title=i18n.t("triage.title", lang),
                                          message=os.path.basename(owner or found.sim or found.reference), running="triage.running",
                                          cwd=os.path.dirname(owner) if owner else None)
        except BaseException:
            _unlink(html)
            _remove_empty(made)
            raise
        finally:
            self.busy.release(claim)
        try:
            result = json.loads(out)
            if not isinstance(result, dict):
                raise ValueError("not an object")
        except ValueError as exc:
            _unlink(html)
            _remove_empty(made)
            message = i18n.t("triage.failed", lang, code=0, error=f"invalid JSON: {exc}")
            progress.end(message)
            raise request_failed(message) from None
        text_report = _text_report(result)
        record = store.new_record(owner or os.path.join(found.sim or found.reference, "triage"), result, cfg=cfg, prototxt=prototxt,
                                  inputs=inputs, texts=texts)
        if owner:
            self._save(record, html, text_report)
        entry = self.results.add(record)
        progress.end(i18n.t("triage.done", lang, verdict=result_features.summary(result, lang)))
        self.results.show_everywhere()
        response = self.results.result_with_editor(entry, text_report)
        response["editor"]["warnings"] = warnings
        return response

    def _warnings(self, found) -> list[str]:
        """What the user must know about a run that goes ahead: the prototxt the cfg names does
        not exist (the layers cannot be matched to the net)."""
        discovery = getattr(found, "found", None)
        discovery = getattr(discovery, "discovery", None)
        named = getattr(discovery, "prototxt_named", None)
        if not named or found.prototxt:
            return []
        text = i18n.t("triage.prototxt_missing", self.ls.lang, cfg=os.path.basename(discovery.cfg or "the cfg"),
                      prototxt=named, where=", ".join(discovery.prototxt_tried[:3]))
        self.ls.log(text, lsp.MessageType.Warning)
        return [text]

    def _save(self, record: StoredTriage, html: str | None, text_report: str | None) -> None:
        from nnie_lsp.triage import store
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
    def _tool_paths(self, values: Mapping) -> tuple[str | None, str | None]:
        from nnie_lsp.triage.inputs.beside_cfg import discover
        found = discover(values["cfg"], reader=self.read)
        return values.get("prototxt") or found.prototxt, values.get("caffemodel") or found.caffemodel

    async def check_tool_inputs(self, args: Sequence) -> dict:
        """``nnie.checkToolInputs {kind, cfg, prototxt?, caffemodel?, image?}``: what keeps
        ``nnie.reference`` / ``nnie.emulate`` from running, asked by an editor before any question
        (``{ok, problems: [{message, path, key, line, character, end_line, end_character}]}``)."""
        raw = list(args)
        kind = raw[0].get("kind") if raw and isinstance(raw[0], Mapping) else None
        if kind not in ("reference", "emulate"):
            raise JsonRpcInvalidParams(i18n.t("triage.bad_args", self.ls.lang, command="nnie.checkToolInputs",
                                              error="kind must be reference or emulate"))
        rest = [{k: v for k, v in raw[0].items() if k != "kind"}]
        values = self.arguments("nnie.checkToolInputs", rest, triage_features.REFERENCE_KEYS)
        if not values.get("cfg"):
            raise JsonRpcInvalidParams(i18n.t("triage.bad_args", self.ls.lang, command="nnie.checkToolInputs",
                                              error="cfg is required"))
        problems = await self._problems(kind, values)
        return {"ok": not problems, "problems": [p.to_json() for p in problems]}

    async def _problems(self, kind: str, values: Mapping):
        from nnie_lsp.server.triage import tool_inputs

        prototxt, caffemodel = self._tool_paths(values)
        overlay, _versions = self.ls.documents.overlay()
        return await self.ls.scheduler.run_aux(lambda: tool_inputs.check(
            kind, values["cfg"], {"prototxt": prototxt, "caffemodel": caffemodel},
            images_given=bool(values.get("image")), lang=self.ls.lang, provider=DiskProvider(overlay)))

    async def tool_inputs(self, kind: str, values: Mapping) -> tuple[str, str]:
        """The prototxt and caffemodel of a reference / emulate job, or the refusal that says, in the
        cfg's terms and at its line, what is missing (``data.problems``: as ``nnie.checkToolInputs``)."""
        from nnie_lsp.server.triage import tool_inputs
        problems = await self._problems(kind, values)
        if problems:
            raise request_failed(tool_inputs.first_problem_text(problems),
                                 data={"problems": [p.to_json() for p in problems]})
        prototxt, caffemodel = self._tool_paths(values)
        return prototxt, caffemodel

    async def run_tool(self, kind: str, args: Sequence) -> dict:
        """``nnie-triage reference`` or ``emulate`` for a cfg; the folder written and what the tool said."""
        try:
            return await self._run_tool(kind, args)
        except JsonRpcException as exc:
            raise self.ls.outcome(f"nnie.{kind}", exc) from None

    async def _run_tool(self, kind: str, args: Sequence) -> dict:
        from nnie_lsp.triage.inputs.beside_cfg import EMULATED_16BIT_DIR, discover, output_state
        from nnie_lsp.triage.inputs.folder_names import CAFFE_OUTPUT_DIR, EMULATED_DIR
        lang = self.ls.lang
        command_name = f"nnie.{kind}"
        values = self.arguments(command_name, args,
                                triage_features.REFERENCE_KEYS if kind == "reference" else triage_features.EMULATE_KEYS)

        def bad(error: str) -> JsonRpcInvalidParams:
            return JsonRpcInvalidParams(i18n.t("triage.bad_args", lang, command=command_name, error=error))
        cfg = values.get("cfg")
        if not cfg:
            raise bad("cfg is required")
        prototxt, caffemodel = await self.tool_inputs(kind, values)   # refused with the cfg's words
        bits = values.get("bits")   # None: the cfg's [compile_mode] decides (the emulation says so)
        sixteen_apart = bits == 16 and discover(cfg, reader=self.read).compile_mode != 1
        default = CAFFE_OUTPUT_DIR if kind == "reference" else (EMULATED_16BIT_DIR if sixteen_apart else EMULATED_DIR)
        out = values.get("out") or os.path.join(os.path.dirname(cfg), default)
        state = output_state(out)
        if state.exists and not state.is_dir:
            raise bad(f"out: {out} is a file")
        if state.foreign:   # the tool never overwrites them: refused whatever `overwrite` says
            raise JsonRpcInvalidParams(i18n.t("job.out_foreign", lang, out=out, count=state.foreign,
                                              examples=", ".join(state.foreign_examples)))
        if state.ours and not values.get("overwrite"):
            raise JsonRpcInvalidParams(i18n.t("job.out_not_empty", lang, out=out, count=state.ours))
        arguments = [kind, "--cfg", cfg, "--prototxt", prototxt, "--caffemodel", caffemodel, "-o", out]
        for image in values.get("image", ()):
            arguments += ["--image", image]
        if kind == "emulate":
            arguments += (["--bits", str(bits)] if bits is not None else []) + [
                "--format", values.get("format", "mapper_quant")]
            for layer in values.get("hp", ()):
                arguments += ["--hp", layer]
            if values.get("transpose"):   # the images fed transposed (the model card says the net was trained so)
                arguments.append("--transpose")
        command = triage_features.triage_cli(*arguments)
        claim = self.busy.claim(command_name, cfg, lang)
        made = [] if state.exists else [out]
        try:
            out_text, progress = await run_job(self.ls, command, title=i18n.t(f"job.title.{kind}", lang),
                                               message=os.path.basename(cfg), cwd=os.path.dirname(cfg))
        except BaseException:
            _remove_empty(made)      # no empty output folder is left after a failure
            raise
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
    from nnie_lsp.triage.report import render as report
    try:
        return report.render_text(result)
    except Exception:  # a report the renderer does not know (another tool version): the JSON is kept
        return None


def _file_count(folder: str) -> int:
    try:
        return sum(1 for entry in os.scandir(folder) if entry.is_file())
    except OSError:
        return 0


def _makedirs(folder: str) -> list[str]:
    """Create `folder` and its missing parents; the folders created, deepest first."""
    made = []
    path = os.path.abspath(folder)
    while not os.path.exists(path):
        made.append(path)
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    os.makedirs(folder, exist_ok=True)
    return made


def _remove_empty(folders: Sequence[str]) -> None:
    """Remove the folders a failed run created, deepest first, when nothing was put in them."""
    for folder in folders:
        try:
            os.rmdir(folder)
        except OSError:   # not empty, or already gone
            pass


def _unlink(path: str | None) -> None:
    if path and os.path.exists(path):
        try:
            os.unlink(path)
        except OSError:
            pass

"""Which triage inputs lie beside a cfg: the Caffe dumps, the mapper's dumps, a 16-bit run, the
compiled net (no LSP types: the language server and ``nnie-triage compare --cfg`` both use it).

The folder names come from :mod:`nnie_lsp.triage.inputs.folder_names`.  The rules, all relative to the cfg's
folder (nnie_mapper writes its files into the folder it runs in, which is the cfg's folder:
``docs/field-facts.md §9``; RuyiStudio's "Get Caffe Output" writes ``output/`` by default: §10.3):

- reference: ``output/`` holding dump files;
- sim: ``mapper_quant/`` holding dump files; when there is none, ``mapper_quant_emulated/``
  (``nnie-triage emulate``'s output), and the rule says it is an emulation;
  a folder holding nnie-triage's manifest is said to be nnie-triage's (its emulation, its Caffe
  reference), whatever its name (:mod:`.dump_writer`);
- sim16 (a compile_mode 1 run, ``docs/field-facts.md §3``), first hit wins:

  1. a sub-folder of the cfg's folder, or a sibling folder, holding a ``*.cfg`` whose
     ``[compile_mode]`` is 1 and a ``mapper_quant/`` with dumps beside that cfg (evidence: the cfg);
  2. a sub-folder whose *name* says 16 bit (``16bit``, ``16_bit``, ``16-bit``, ``int16``, or a name
     ending in ``16`` such as ``nnie16``) holding dump files (evidence: the name only; the rule
     says so);
  3. ``mapper_quant_emulated_16bit/`` (``nnie-triage emulate --bits 16``).

  Each only when it is this net's run: its cfg (or nnie-triage's manifest) names the same
  prototxt, or its dump names and sizes are this net's (:meth:`.this_net.ThisNet.borrowed`);
  a candidate of another net is skipped (:mod:`.sixteen_bit`).
  A cfg that itself says ``[compile_mode] 1`` gets none: its own ``mapper_quant/`` is the 16-bit run.
- dot: ``cnn_net_tree.dot`` beside the cfg;
- framework (the ONNX side of the conversion stage, ``compare --framework``): ``output_onnx/``
  holding dumps, where ``nnie-triage reference --onnx`` writes by default; the rule says it was
  written by ``reference --onnx`` when its manifest says ``framework: onnx``, else that only the
  name tells.  Optional: a missing one is no error.
- board (the board's own dumps, ``compare --board``): ``board/`` holding files in a board dump
  form (:mod:`nnie_lsp.readers.dumpio.board`), directly or in sub-folders (one run each).  Optional; with
  a board the simulator side may be missing (the board is then judged against Caffe alone).

``output/``, ``mapper_quant/``, ``mapper_quant_emulated/`` and the dot beside the cfg are taken
unless their names say another net (:meth:`.this_net.ThisNet.beside`, :meth:`~.this_net.ThisNet.dot`).
Every input found but not taken is in :attr:`Discovery.skipped` with why (and in
:attr:`Discovery.tried` of its role); :func:`complete_inputs` says each on its log.

Inputs given by the caller are kept as given (``origin == "given"``), never checked; discovery
only fills the others.  Nothing here raises on a missing or unreadable folder: it is simply not
found.

Importing this module loads no numpy (the editor's server uses it at once): dump names are parsed
by :mod:`nnie_lsp.readers.dumpio.names`, imported when a folder is first checked.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable, Mapping

from nnie_lsp.readers.cfg.paths import cfg_bases, resolve_written
from nnie_lsp.core.text import read_text
from nnie_lsp.triage.inputs.dump_writer import beside_cfg_rule
from nnie_lsp.triage.inputs.folder_names import (BOARD_DIR, CAFFE_OUTPUT_DIR, EMULATED_DIR, MAPPER_QUANT_DIR, NET_TREE_FILE,
                           ONNX_OUTPUT_DIR)
from nnie_lsp.triage.inputs.folders import shown as _shown
from nnie_lsp.triage.inputs.folders import (MAX_ENTRIES, MAX_NAME_CHECKS, OutputState, board_files, dump_folder, holds_dumps,  # noqa: F401
                      output_state, why_not_dumps)
from nnie_lsp.triage.inputs.sixteen_bit import EMULATED_16BIT_DIR, SIXTEEN_BIT_NAME, cfg_value, compile_mode, sixteen_bit_run  # noqa: F401
from nnie_lsp.triage.inputs.this_net import ThisNet

ROLES = ("reference", "sim", "sim16", "dot", "framework", "board")

TextReader = Callable[[str], "str | None"]


@dataclass(frozen=True)
class Found:
    """One triage input and how it came to be used."""

    path: str
    origin: str                 # "given" | "discovered"
    rule: str | None = None     # for discovered inputs: the rule that found it

    def to_json(self) -> dict:
        return {"path": self.path, "origin": self.origin, "rule": self.rule}


@dataclass(frozen=True)
class Discovery:
    cfg: str | None
    folder: str | None
    prototxt: str | None = None
    caffemodel: str | None = None
    compile_mode: int | None = None
    inputs: Mapping[str, Found | None] = field(default_factory=dict)
    looked_for: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    #: role -> the places looked at for it and why each was not taken (``{"path", "why"}``)
    tried: Mapping[str, tuple[dict, ...]] = field(default_factory=dict)
    #: the prototxt as the cfg writes it (``[prototxt_file]``), and where it was looked for when
    #: it does not exist (then :attr:`prototxt` is None)
    prototxt_named: str | None = None
    prototxt_tried: tuple[str, ...] = ()
    #: inputs found near the cfg but not taken: another net's (``{"role", "path", "why"}``)
    skipped: tuple[dict, ...] = ()

    def get(self, role: str) -> Found | None:
        return self.inputs.get(role)

    def path(self, role: str) -> str | None:
        found = self.inputs.get(role)
        return found.path if found is not None else None

    def missing(self, role: str) -> str:
        """A sentence saying where `role` was looked for and what was there (for an error message)."""
        where = self.folder or "(no cfg folder)"
        wanted = {"reference": f"{CAFFE_OUTPUT_DIR}/ (RuyiStudio's Caffe output)",
                  "sim": f"{MAPPER_QUANT_DIR}/ or {EMULATED_DIR}/"}.get(role, role)
        seen = "; ".join(f"{os.path.basename(t['path'])}/ {t['why']}" for t in self.tried.get(role, ()))
        return f"no {role} given and none found beside the cfg: looked for {wanted} in {where}" + (
            f" ({seen})" if seen else "")

    def to_json(self) -> dict:
        out = {"cfg": self.cfg, "folder": self.folder, "prototxt": self.prototxt, "caffemodel": self.caffemodel}
        for role in ROLES:
            found = self.inputs.get(role)
            out[role] = found.to_json() if found is not None else None
        out["looked_for"] = list(self.looked_for)
        out["notes"] = list(self.notes)
        out["tried"] = {role: [dict(t) for t in tried] for role, tried in self.tried.items()}
        out["prototxt_named"] = self.prototxt_named
        out["prototxt_tried"] = list(self.prototxt_tried)
        out["skipped"] = [dict(s) for s in self.skipped]
        return out


LOOKED_FOR = (
    f"reference: {CAFFE_OUTPUT_DIR}/ beside the cfg (RuyiStudio's Get Caffe Output)",
    f"sim: {MAPPER_QUANT_DIR}/ beside the cfg, else {EMULATED_DIR}/",
    f"sim16: a sub- or sibling folder with a compile_mode 1 cfg and its {MAPPER_QUANT_DIR}/; "
    f"a sub-folder named like 16bit/int16/*16 with dumps; {EMULATED_16BIT_DIR}/",
    f"dot: {NET_TREE_FILE} beside the cfg",
    f"framework: {ONNX_OUTPUT_DIR}/ beside the cfg (nnie-triage reference --onnx)",
    f"board: {BOARD_DIR}/ beside the cfg (the board program's dumps, one file per output node)",
)


def _default_reader(path: str) -> str | None:
    try:
        return read_text(path).text
    except (OSError, ValueError):
        return None


def _board_folder(folder: str, tried: list) -> Found | None:
    path = os.path.join(folder, BOARD_DIR)
    if not os.path.isdir(path):
        tried.append({"path": path, "why": "does not exist" if not os.path.exists(path) else "is a file, not a folder"})
        return None
    files, runs = board_files(path)
    if not files:
        tried.append({"path": path, "why": "holds no file in a board dump form (.bin, .txt, .hex, …)"})
        return None
    return Found(path, "discovered", f"{BOARD_DIR}/ beside the cfg: the board's dumps ({files} file{'s' if files != 1 else ''}"
                 + (f", {runs} runs of one input" if runs > 1 else "") + ")")


# ------------------------------------------------------------------ discovery

def _given(given: Mapping[str, str | None], role: str) -> Found | None:
    value = given.get(role)
    return Found(os.path.abspath(value), "given") if value else None


def _resolve(cfg: str, text: str, key: str, cwd: str) -> str | None:
    value = cfg_value(text, key)
    if value is None:
        return None
    return resolve_written(value, cfg_bases(cfg, cwd), os.path.exists).resolved


def discover(cfg: str | None, *, given: Mapping[str, str | None] | None = None, reader: TextReader | None = None,
             cwd: str | None = None, look_for: tuple[str, ...] = ROLES, lang: str = "en",
             prototxt: str | None = None) -> Discovery:
    """The triage inputs for `cfg`: those `given` (``reference``, ``sim``, ``sim16``, ``dot``,
    ``framework``) as given, the others of `look_for` looked for beside the cfg and taken when
    they are this net's (module doc; ``look_for=()`` reads only the cfg: its prototxt, caffemodel
    and compile_mode).  `reader` reads a file's text (the editor's unsaved buffers first); `cwd` is
    where relative cfg paths are tried second; `lang` is the language of the rules that say who
    wrote a folder (:mod:`.dump_writer`); `prototxt` is the net to check against when it is not the
    one the cfg names (``compare --prototxt``)."""
    given = given or {}
    reader = reader or _default_reader
    inputs: dict[str, Found | None] = {role: _given(given, role) for role in ROLES}
    if not cfg:
        return Discovery(None, None, inputs=inputs)
    cfg = os.path.abspath(cfg)
    folder = os.path.dirname(cfg)
    text = reader(cfg)
    notes: list[str] = []
    named_prototxt = caffemodel = None
    mode = None
    prototxt_named = None
    prototxt_tried: tuple[str, ...] = ()
    tried: dict[str, list] = {}
    skipped: list[dict] = []
    if text is None:
        notes.append(f"cannot read {cfg}")
    else:
        base = cwd or folder
        prototxt_named = cfg_value(text, "prototxt_file")
        if prototxt_named is not None:
            where = resolve_written(prototxt_named, cfg_bases(cfg, base), os.path.exists)
            named_prototxt = where.resolved
            if named_prototxt is None:
                prototxt_tried = tuple(where.candidates)
                notes.append(f"the cfg names the prototxt {prototxt_named}, which does not exist (looked for "
                             + ", ".join(prototxt_tried[:3]) + ")")
        caffemodel = _resolve(cfg, text, "caffemodel_file", base)
        mode = compile_mode(text)
    net = ThisNet(prototxt or named_prototxt, reader)

    def beside(role: str, name: str) -> str | None:
        """`name` beside the cfg when it holds dumps that are not another net's."""
        found = dump_folder(folder, name, tried.setdefault(role, []))
        if found is None:
            return None
        verdict = net.beside(found)
        if verdict.belongs is False:
            tried[role].append({"path": found, "why": verdict.why})
            skipped.append({"role": role, "path": found, "why": verdict.why})
            return None
        return found

    if inputs["reference"] is None and "reference" in look_for:
        found = beside("reference", CAFFE_OUTPUT_DIR)
        if found is not None:
            inputs["reference"] = Found(found, "discovered", beside_cfg_rule(found, "reference", lang))
    if inputs["sim"] is None and "sim" in look_for:
        found = beside("sim", MAPPER_QUANT_DIR)
        if found is not None:
            inputs["sim"] = Found(found, "discovered", beside_cfg_rule(found, "sim", lang))
        else:
            found = beside("sim", EMULATED_DIR)
            if found is not None:
                inputs["sim"] = Found(found, "discovered", f"{EMULATED_DIR}/ beside the cfg: an emulated 8-bit run "
                                      f"(nnie-triage emulate), not a mapper run (no {MAPPER_QUANT_DIR}/ of this net "
                                      "found)")
    if inputs["sim16"] is None and "sim16" in look_for:
        if mode == 1:
            notes.append(f"the cfg says [compile_mode] 1: its own {MAPPER_QUANT_DIR}/ is already the 16-bit run")
        else:
            hit = sixteen_bit_run(cfg, folder, reader, net, skipped)
            inputs["sim16"] = Found(hit[0], "discovered", hit[1]) if hit is not None else None
    if inputs["dot"] is None and "dot" in look_for:
        dot = os.path.join(folder, NET_TREE_FILE)
        if os.path.isfile(dot):
            verdict = net.dot(dot)
            if verdict.belongs is False:
                tried.setdefault("dot", []).append({"path": dot, "why": verdict.why})
                skipped.append({"role": "dot", "path": dot, "why": verdict.why})
            else:
                inputs["dot"] = Found(dot, "discovered", beside_cfg_rule(dot, "dot", lang))
    if inputs["framework"] is None and "framework" in look_for:
        # ONNX exports number their tensors: their names cannot tell the net (the conversion stage
        # matches them by structure and lists what it cannot compare)
        found = dump_folder(folder, ONNX_OUTPUT_DIR, tried.setdefault("framework", []))
        if found is not None:
            inputs["framework"] = Found(found, "discovered", beside_cfg_rule(found, "framework", lang))
    if inputs["board"] is None and "board" in look_for:
        inputs["board"] = _board_folder(folder, tried.setdefault("board", []))
    return Discovery(cfg, folder, named_prototxt, caffemodel, mode, inputs, LOOKED_FOR, tuple(notes),
                     {role: tuple(places) for role, places in tried.items() if inputs.get(role) is None},
                     prototxt_named, prototxt_tried, tuple(skipped))


# ------------------------------------------------------------------ the compare command's inputs

class DiscoveryError(ValueError):
    """A required input is neither given nor found (the message says where it was looked for)."""


@dataclass(frozen=True)
class CompareInputs:
    """What ``compare`` runs on: the given inputs, completed by discovery."""

    reference: str
    sim: str
    sim16: str | None
    dot: str | None
    prototxt: str | None
    discovery: Discovery
    discovered: tuple[str, ...]          # the roles filled by discovery
    framework: str | None = None         # the ONNX side (compare --framework)
    board: tuple[str, ...] | None = None  # the board's dump folders (compare --board)

    def as_tuple(self) -> tuple[str, str, str | None, str | None, str | None]:
        return self.reference, self.sim, self.sim16, self.dot, self.prototxt

    def origin(self, role: str) -> dict | None:
        """How the input of `role` came to be used, ``{"path", "origin", "rule"}`` (``origin``
        ``given`` or ``discovered``); None when there is none."""
        path = getattr(self, role)
        if not path:
            return None
        if isinstance(path, tuple):
            path = path[0]
        found = self.discovery.get(role)
        if role in self.discovered and found is not None:
            return found.to_json()
        return {"path": os.path.abspath(path), "origin": "given", "rule": None}


def complete_inputs(cfg: str | None, *, reference: str | None = None, sim: str | None = None,
                    sim16: str | None = None, dot: str | None = None, prototxt: str | None = None,
                    framework: str | None = None, board: tuple[str, ...] | None = None, force: bool | None = None,
                    reader: TextReader | None = None, log=None, lang: str = "en") -> CompareInputs:
    """The compare inputs with what is missing found beside `cfg`.

    Given dump folders are used as given, and nothing is added to them: when `reference` and
    `sim` are both given, only the prototxt the cfg names is filled in (unless `force`); when one
    of them is missing, every input not given is looked for (module doc).  `force=False` looks for
    no folder (the prototxt still defaults to the one the cfg names, as ``compare --cfg`` does).
    Nothing is read when there is nothing to find (every input given, or no cfg).  Raises
    :class:`DiscoveryError` when `reference` or `sim` is still missing.  `log` (a text stream) is
    told each input found (in `lang`, as the rules are)."""
    look = force if force is not None else not (reference and sim)
    values = {"reference": reference, "sim": sim, "sim16": sim16, "dot": dot, "framework": framework,
              "board": board[0] if board else None}
    if cfg and (look or prototxt is None or not (reference and sim)):
        discovery = discover(cfg, given=values, reader=reader, look_for=ROLES if look else (), lang=lang,
                             prototxt=prototxt)
    else:
        discovery = Discovery(None, None)
    discovered: list[str] = []
    if look:
        for role in ROLES:
            found = discovery.get(role)
            if values[role] is None and found is not None:
                values[role] = found.path
                discovered.append(role)
                if log is not None:
                    print(f"nnie-triage: {role}: {_shown(found.path)} — {found.rule}", file=log)
        if log is not None:
            for skip in discovery.skipped:
                print(f"nnie-triage: skipped {skip['role']}: {_shown(skip['path'])} — {skip['why']}", file=log)
    if prototxt is None and discovery.prototxt is not None:
        prototxt = discovery.prototxt
        discovered.append("prototxt")
        if log is not None:
            print(f"nnie-triage: prototxt: {_shown(prototxt)} — named by the cfg", file=log)
    boards = tuple(board) if board else ((values["board"],) if values["board"] else None)
    for role in ("reference", "sim"):
        if role == "sim" and boards and not values[role]:
            continue   # the board against Caffe alone
        if not values[role]:
            if not cfg:
                raise DiscoveryError(f"--{role} is required (or give --cfg and keep the dumps where the tools "
                                     f"write them: {CAFFE_OUTPUT_DIR}/ and {MAPPER_QUANT_DIR}/ beside the cfg)")
            raise DiscoveryError(discovery.missing(role))
    return CompareInputs(values["reference"], values["sim"], values["sim16"], values["dot"], prototxt, discovery,
                         tuple(discovered), values["framework"], boards)

"""The board folder: what a board program wrote, run by run, and the contract it is read by.

**Runs.**  ``compare --board DIR`` reads DIR; a DIR whose files sit in sub-folders holds one run
per sub-folder (two runs of one input: the repeatability check), and ``--board`` given more than
once names one run each.  Files of a run: one per node, in a form of
:data:`nnie_lsp.readers.dumpio.board.BOARD_FORMS` (other files are listed, never read).

**Which node a file is.**  By its name, first match wins:

1. the node's blob name (``prob1.bin``; ``/`` written as ``_``, the marks ``_report``/``_hp``
   dropped, as every dump name is keyed: :func:`nnie_lsp.readers.dumpio.names.normalize_name`);
2. the name the `.wk` keeps, 31 characters (``szName``): several outputs whose names agree there
   are all candidates (a name collision, which the assignment check resolves by values);
3. its index: ``output1``, ``out_1``, ``dst1``, ``1``, ``seg1_output0`` (segment 1's first output);
   ``input``, ``input0``, ``src0``, ``in0`` for the first segment's inputs;
4. the SDK sample's report name ``seg<s>_layer<node id>_output0_inst.linear.hex``: the node ids
   of a segment's outputs taken in increasing order as its outputs in order [I];
5. else none: the assignment check pairs the file with an output by size and values.

**The contract** (:func:`board_contract`): the `.wk` (``--wk``, else the cfg's
``[instruction_name]``.wk beside the cfg, as nnie_mapper names it, field facts §9) with the
prototxt's blob names matched to its nodes (31 characters, in order); without a `.wk` the
prototxt's inputs and the blobs no NNIE layer reads (the outputs), shaped by the reference dumps,
every field then inferred.  Loads no numpy.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from nnie_lsp.readers.dumpio.board_forms import board_form, stem_of
from nnie_lsp.readers.dumpio.names import normalize_name
from nnie_lsp.readers.wk.contract import BoardContract, ContractNode, from_nodes, from_wk
from nnie_lsp.readers.wk.model import DESTINATION, SOURCE

#: Files looked at in one run folder (a board folder is small; a huge one is not a board folder).
MAX_FILES = 2000

_INDEX = re.compile(r"(?i)^(?:seg(?:ment)?_?(\d+)[_-]?)?(?:out(?:put)?|dst|o)?[_-]?(\d+)$")
_INPUT = re.compile(r"(?i)^(?:seg(?:ment)?_?0[_-]?)?(?:in(?:put)?|src)[_-]?(\d*)$")
_REPORT = re.compile(r"(?i)^seg(\d+)_layer(\d+)_output\d+_inst\.linear$")


@dataclass(frozen=True)
class BoardFile:
    path: str
    stem: str
    form: str
    node: ContractNode | None         # the node the name says (None: not said, or ambiguous)
    named_by: str | None              # "name" | "cut-name" | "index" | "report" | None
    ambiguous: tuple[ContractNode, ...] = ()   # the outputs a shared 31-character name stands for

    @property
    def name(self) -> str:
        return os.path.basename(self.path)


@dataclass(frozen=True)
class BoardRun:
    label: str                        # the run's name in messages (its folder, relative)
    folder: str
    files: tuple[BoardFile, ...]
    ignored: tuple[str, ...] = ()     # files in no board form

    def file_of(self, node: ContractNode) -> BoardFile | None:
        return next((f for f in self.files if f.node is node), None)


@dataclass(frozen=True)
class BoardFolder:
    runs: tuple[BoardRun, ...]
    contract: BoardContract
    warnings: tuple[str, ...] = field(default=())

    @property
    def first(self) -> BoardRun:
        return self.runs[0]


def _key(name: str) -> str:
    return normalize_name(name).lower()


def match_file(stem: str, contract: BoardContract) -> tuple[ContractNode | None, str | None, tuple[ContractNode, ...]]:
    """(node, how, ambiguous candidates) for a file stem (module doc, rules 1-3)."""
    key = _key(stem)
    by_blob = [n for n in contract.nodes if _key(n.blob_name) == key and (n.role == DESTINATION or n.segment == 0)]
    if len(by_blob) == 1:
        return by_blob[0], "name", ()
    cut = key.encode("utf-8")[:31]
    by_cut = [n for n in contract.nodes if n.role == DESTINATION and _key(n.name).encode("utf-8") == cut]
    if len(by_cut) == 1 and not by_blob:
        return by_cut[0], "cut-name", ()
    if len(by_cut) > 1:
        return None, "cut-name", tuple(by_cut)
    if by_blob:  # several nodes of one blob name (a later segment's input and the output it reads)
        outputs = [n for n in by_blob if n.role == DESTINATION]
        return (outputs[0] if outputs else by_blob[0]), "name", ()
    m = _INPUT.match(stem)
    if m:
        inputs = contract.inputs
        k = int(m.group(1)) if m.group(1) else 0
        if k < len(inputs):
            return inputs[k], "index", ()
    m = _INDEX.match(stem)
    if m:
        seg = int(m.group(1)) if m.group(1) else None
        k = int(m.group(2))
        outputs = [n for n in contract.outputs if seg is None or n.segment == seg]
        if seg is None and contract.segments > 1:
            outputs = list(contract.outputs)   # an index over every segment's outputs, in file order
        if k < len(outputs):
            return outputs[k], "index", ()
    return None, None, ()


def _report_names(files: list[tuple[str, str, str]], contract: BoardContract) -> dict[str, ContractNode]:
    """Rule 4: ``seg<s>_layer<id>_output0_inst.linear.hex`` files, the ids of a segment sorted."""
    by_seg: dict[int, list[tuple[int, str]]] = {}
    for path, stem, _form in files:
        m = _REPORT.match(stem)
        if m:
            by_seg.setdefault(int(m.group(1)), []).append((int(m.group(2)), path))
    out: dict[str, ContractNode] = {}
    for seg, items in by_seg.items():
        outputs = [n for n in contract.outputs if n.segment == seg]
        if len(items) != len(outputs):
            continue
        for (_id, path), node in zip(sorted(items), outputs):
            out[path] = node
    return out


def _stem(name: str) -> str:
    stem = stem_of(name)
    return stem


def _run_files(folder: str) -> tuple[list[tuple[str, str, str]], list[str], list[str]]:
    """(board files (path, stem, form), other files, sub-folders) of one folder."""
    files, other, subs = [], [], []
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        raise ValueError(f"board folder {folder}: {exc.strerror or exc}") from exc
    for entry in entries[:MAX_FILES]:
        if entry.name.startswith("."):
            continue
        try:
            if entry.is_dir():
                subs.append(entry.path)
                continue
            if not entry.is_file():
                continue
        except OSError:
            continue
        form = board_form(entry.name)
        if form is None:
            other.append(entry.name)
        else:
            files.append((entry.path, _stem(entry.name), form.key))
    return files, other, subs


def _run(folder: str, label: str, contract: BoardContract, found: list[tuple[str, str, str]],
         other: list[str]) -> BoardRun:
    reports = _report_names(found, contract)
    out = []
    for path, stem, form in found:
        node, how, ambiguous = match_file(stem, contract)
        if node is None and path in reports:
            node, how = reports[path], "report"
        out.append(BoardFile(path, stem, form, node, how, ambiguous))
    return BoardRun(label, folder, tuple(out), tuple(other))


def read_board_folders(folders: Iterable[str], contract: BoardContract) -> BoardFolder:
    """The runs of the board folders given (module doc).  A folder that does not exist or holds
    no board file raises ValueError with a message for the user."""
    runs: list[BoardRun] = []
    warnings: list[str] = []
    for folder in folders:
        if not os.path.isdir(folder):
            raise ValueError(f"board folder {folder} does not exist" if not os.path.exists(folder)
                             else f"board folder {folder} is a file, not a folder")
        found, other, subs = _run_files(folder)
        inner = []
        for sub in subs:
            sub_found, sub_other, _ = _run_files(sub)
            if sub_found:
                inner.append(_run(sub, os.path.join(os.path.basename(folder.rstrip(os.sep)), os.path.basename(sub)),
                                  contract, sub_found, sub_other))
        if found:
            runs.append(_run(folder, os.path.basename(folder.rstrip(os.sep)) or folder, contract, found, other))
        elif other and not inner:
            warnings.append(f"{folder}: no file in a board dump form ({', '.join(other[:5])}"
                            f"{' …' if len(other) > 5 else ''}): see docs/board-dumps.md")
        runs.extend(inner)
    if not runs:
        raise ValueError(f"board folder {', '.join(folders)}: no board dumps (one file per output node, named by the "
                         "node: <name>.bin with the blob memory, <name>.txt with one value per line; "
                         "nnie_lsp/docs/board-dumps.md)")
    return BoardFolder(tuple(runs), contract, tuple(warnings))


# ------------------------------------------------------------------ the contract

def instruction_wk(cfg: str | None) -> str | None:
    """The `.wk` nnie_mapper writes for ``cfg``: ``[instruction_name]`` (default ``inst``) + ``.wk``,
    in the cfg's folder (where the mapper runs, field facts §9), else where the cfg's relative paths
    resolve; None when there is none."""
    if not cfg or not os.path.isfile(cfg):
        return None
    from nnie_lsp.readers.cfg.paths import cfg_bases, resolve_written
    from nnie_lsp.readers.cfg.reader import parse_cfg
    from nnie_lsp.core.text import read_text

    try:
        text = read_text(cfg).text
    except (OSError, ValueError):
        return None
    entry = parse_cfg(text).first("instruction_name")
    name = (entry.value if entry is not None and entry.value else "inst").strip()
    if not name.lower().endswith(".wk"):
        name += ".wk"
    found = resolve_written(name, cfg_bases(os.path.abspath(cfg), os.path.dirname(os.path.abspath(cfg))),
                            os.path.isfile)
    return found.resolved


def _ends_in_order(graph) -> list[str]:
    from nnie_lsp.readers.prototxt.nnie_ends import nnie_ends

    ends = nnie_ends(graph)
    out, seen = [], set()
    for layer in graph.layers:
        for top in layer.tops:
            if top in ends and top not in seen:
                seen.add(top)
                out.append(top)
    return out


def _shape(tensor) -> tuple[int, ...] | None:
    shape = tuple(int(d) for d in tensor.shape) if getattr(tensor, "shape", None) else None
    while shape is not None and len(shape) > 3 and shape[0] == 1:
        shape = shape[1:]
    return shape


def _full_names(model, graph) -> dict[tuple[int, str, int], str]:
    """The prototxt's blobs for the `.wk`'s nodes: the same 31 characters, in order."""
    out: dict[tuple[int, str, int], str] = {}
    if graph is None:
        return out
    pools = {SOURCE: list(graph.input_blobs), DESTINATION: _ends_in_order(graph)}
    used: set[tuple[str, str]] = set()
    for seg in model.segments:
        for node in seg.nodes:
            if node.role == SOURCE and seg.index > 0:
                continue
            for blob in pools[node.role]:
                if (node.role, blob) not in used and blob.encode("utf-8")[:31] == node.name_bytes:
                    used.add((node.role, blob))
                    out[(node.segment, node.role, node.index)] = blob
                    break
    return out


def board_contract(*, wk: str | None, graph, reference: Mapping[str, object], image_types: Mapping[int, int],
                   named: Iterable[str] = ()) -> BoardContract:
    """The contract the board files are read by (module doc).  ``reference``: the Caffe dumps by
    normalized blob key (their shapes); ``image_types``: the cfg's ``[image_type]`` by input index;
    ``named``: the board files' stems (the last resort without a prototxt: the reference blobs they
    name are the outputs)."""
    notes: list[str] = []
    if wk:
        from nnie_lsp.readers.wk.reader import WkError, read_wk

        try:
            model = read_wk(wk)
        except WkError as exc:
            notes.append(f"the .wk {wk} cannot be read ({exc}): the contract is inferred from the prototxt")
        else:
            contract = from_wk(model, _full_names(model, graph))
            return BoardContract(contract.nodes, contract.source, contract.path, contract.segments,
                                 contract.temp_buffer, contract.notes + tuple(notes))
    inputs, outputs = [], []
    if graph is not None:
        for k, blob in enumerate(graph.input_blobs):
            t = reference.get(normalize_name(blob))
            shape = _shape(t) if t is not None else None
            if shape is not None and len(shape) == 3:
                inputs.append((blob, shape, image_types.get(k)))
        for blob in _ends_in_order(graph):
            t = reference.get(normalize_name(blob))
            shape = _shape(t) if t is not None else None
            if shape:
                outputs.append((blob, shape))
        notes.append("no .wk: the contract is inferred from the prototxt's inputs and outputs and the reference's "
                     "shapes (give --wk, or keep the .wk the mapper wrote beside the cfg)")
    else:
        for stem in named:
            t = reference.get(normalize_name(stem))
            shape = _shape(t) if t is not None else None
            if shape:
                outputs.append((stem, shape))
        notes.append("no .wk and no prototxt: the board files are read as the reference blobs they are named after")
    return from_nodes(inputs, outputs, path=wk, notes=notes)

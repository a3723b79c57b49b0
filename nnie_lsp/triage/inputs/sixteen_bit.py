"""The 16-bit run near a cfg (a compile_mode 1 run, ``docs/field-facts.md §3``) — for
:mod:`.beside_cfg`, which documents the rules — and the cfg keys discovery reads.

Each candidate is taken only when it is this net's (:meth:`.this_net.ThisNet.borrowed`: the
run's cfg or manifest names the same prototxt, or its dump names and sizes are this net's);
a candidate of another net is skipped, and the skip is listed with why.  No numpy.
"""

from __future__ import annotations

import os
import re
from typing import Callable

from nnie_lsp.readers.cfg.paths import cfg_bases, resolve_written
from nnie_lsp.readers.cfg.reader import parse_cfg
from nnie_lsp.triage.inputs.folder_names import EMULATED_DIR, MAPPER_QUANT_DIR
from nnie_lsp.triage.inputs.folders import cfg_files, dump_folder, holds_dumps, subfolders
from nnie_lsp.triage.inputs.this_net import ThisNet

#: ``nnie-triage emulate --bits 16`` writes here by default (the editor's ``nnie.emulate`` too).
EMULATED_16BIT_DIR = EMULATED_DIR + "_16bit"
#: Folder names that say "16 bit" (rule 2 of the 16-bit run).
SIXTEEN_BIT_NAME = re.compile(r"(?i)16[-_ ]?bits?|int[-_]?16|bits?[-_]?16|(?<![0-9])16$")

TextReader = Callable[[str], "str | None"]


def cfg_value(text: str, key: str) -> str | None:
    entry = parse_cfg(text).first(key)
    return entry.value if entry is not None and entry.value else None


def compile_mode(text: str) -> int | None:
    value = cfg_value(text, "compile_mode")
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def cfg_prototxt(cfg: str, text: str) -> str | None:
    """The prototxt `cfg` names, resolved as for the cfg under test (its folder first); None when
    it names none or it does not exist."""
    value = cfg_value(text, "prototxt_file")
    if value is None:
        return None
    return resolve_written(value, cfg_bases(cfg, os.path.dirname(os.path.abspath(cfg))), os.path.exists).resolved


def manifest_prototxt(folder: str) -> tuple[str | None, str | None]:
    """(the cfg, the prototxt) nnie-triage's manifest in `folder` names (None, None without one)."""
    from nnie_lsp.triage.inputs.image_sets import read_manifest

    manifest = read_manifest(folder) or {}
    cfg, prototxt = manifest.get("cfg"), manifest.get("prototxt")
    return (cfg if isinstance(cfg, str) else None), (prototxt if isinstance(prototxt, str) else None)


def sixteen_bit_run(cfg: str, folder: str, reader: TextReader, net: ThisNet,
                    skipped: list[dict]) -> tuple[str, str] | None:
    """(path, rule) of the first 16-bit run of this net near `cfg` (rules 1-3 of
    :mod:`.beside_cfg`), or None; the candidates of other nets go to `skipped`
    (``{"role": "sim16", "path", "why"}``)."""
    own = os.path.abspath(cfg)
    parent = os.path.dirname(folder)
    candidates = [(sub, "sub-folder") for sub in subfolders(folder)]
    if parent and parent != folder:
        candidates += [(sibling, "sibling folder") for sibling in subfolders(parent)
                       if os.path.abspath(sibling) != folder]

    def skip(path: str, why: str) -> None:
        skipped.append({"role": "sim16", "path": path, "why": why})

    # rule 1: a compile_mode 1 cfg with its mapper_quant/
    for candidate, relation in candidates:
        for other_cfg in cfg_files(candidate):
            if os.path.abspath(other_cfg) == own:
                continue
            text = reader(other_cfg)
            if text is None or compile_mode(text) != 1:
                continue
            dumps = dump_folder(candidate, MAPPER_QUANT_DIR)
            if dumps is None:
                continue
            name = os.path.basename(other_cfg)
            verdict = net.borrowed(dumps, cfg_prototxt(other_cfg, text), whose=name)
            where = f"{MAPPER_QUANT_DIR}/ beside {name} ([compile_mode] 1) in the {relation} {os.path.basename(candidate)}/"
            if verdict.belongs:
                return dumps, f"{where}: {verdict.why}"
            skip(dumps, f"{where}: {verdict.why}")
    # rule 2: a sub-folder named like a 16-bit run
    for sub in subfolders(folder):
        name = os.path.basename(sub)
        if name == EMULATED_16BIT_DIR or not SIXTEEN_BIT_NAME.search(name):
            continue
        inner = dump_folder(sub, MAPPER_QUANT_DIR)
        path, shown = (inner, f"{name}/{MAPPER_QUANT_DIR}/") if inner is not None else (sub, f"{name}/")
        if inner is None and not holds_dumps(sub):
            continue
        verdict = net.borrowed(path, manifest_prototxt(path)[1], whose="its manifest")
        if verdict.belongs:
            return path, (f"{shown}: the folder name says 16 bit (no compile_mode 1 cfg beside it; only the name "
                          f"tells it is 16-bit); {verdict.why}")
        skip(path, f"{shown} (the folder name says 16 bit): {verdict.why}")
    # rule 3: our own 16-bit emulation
    emulated = dump_folder(folder, EMULATED_16BIT_DIR)
    if emulated is not None:
        made_from, prototxt = manifest_prototxt(emulated)
        if made_from is not None and os.path.abspath(made_from) == own:
            return emulated, (f"{EMULATED_16BIT_DIR}/: an emulated 16-bit run (nnie-triage emulate --bits 16) of "
                              "this cfg, not a mapper run")
        verdict = net.borrowed(emulated, prototxt, whose="its manifest")
        if verdict.belongs:
            return emulated, (f"{EMULATED_16BIT_DIR}/: an emulated 16-bit run (nnie-triage emulate --bits 16), not a "
                              f"mapper run; {verdict.why}")
        skip(emulated, f"{EMULATED_16BIT_DIR}/: {verdict.why}")
    return None

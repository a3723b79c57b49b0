"""``nnie-triage wk``: what a `.wk` holds, as a table or JSON (argument parsing and output only).

  nnie-triage wk FILE.wk [--format text|json] [--records] [--batch N] [--output FILE]
  nnie-triage wk --cfg NET.cfg ...        (the cfg's [instruction_name].wk)
  nnie-triage wk FILE.wk --board-contract [--format text|json|c]   (the board code's contract:
                                          :mod:`.triage_board_contract`)

The reader is :mod:`nnie_lsp.readers.wk`; the JSON is documented in ``nnie_lsp/docs/triage-schema.md``
("The `.wk` description").  Exit codes: 0 an intact `.wk`, 1 a damaged one (described as far as
it reads, the damage first), 2 not a readable `.wk` (the message names the byte where it fails).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from nnie_lsp.cli.triage_board_contract import add_contract_args, run_contract

EXIT_OK, EXIT_DAMAGED, EXIT_BAD_INPUT = 0, 1, 2


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("wk", help="describe a compiled model (.wk): format, mapper version, segments, inputs and "
                       "outputs, bit widths, board memory, damage")
    p.add_argument("file", nargs="?", help="the .wk file")
    p.add_argument("--cfg", help="instead of FILE: the .wk the cfg's [instruction_name] names")
    p.add_argument("--format", choices=["text", "json", "c"], default="text",
                   help="text, json, or c (a header to #include; with --board-contract)")
    p.add_argument("--records", action="store_true", help="also list every record of the memory plan")
    p.add_argument("--batch", type=int, default=1, metavar="N",
                   help="items per blob for the board memory (the SDK sample's N; default 1)")
    p.add_argument("-o", "--output", help="write to this file instead of stdout")
    add_contract_args(p)
    return p


def _path(args) -> str:
    if args.file and args.cfg:
        raise ValueError("give a .wk or --cfg, not both")
    if args.file:
        return args.file
    if not args.cfg:
        raise ValueError("give the .wk file (or --cfg: the .wk its [instruction_name] names)")
    from nnie_lsp.project.project import load_project

    project = load_project(cfg_path=args.cfg)
    if project.config is None:
        raise ValueError(f"{args.cfg}: not a mapper cfg that could be read")
    if project.wk is None:
        entry = project.config.instruction_entry
        written = entry.value if entry is not None else "inst (the default)"
        raise ValueError(f"{args.cfg}: no .wk for [instruction_name] {written} beside it (run nnie_mapper first)")
    return project.wk.path


def cmd_wk(args) -> int:
    from nnie_lsp.readers.wk.reader import WkError, read_wk
    from nnie_lsp.readers.wk.describe import render_text, to_json

    if args.batch < 1:
        raise ValueError("--batch must be at least 1")
    path = _path(args)
    if args.board_contract:
        return run_contract(path, args.format, args.output)
    if args.format == "c":
        raise ValueError("--format c is the board contract's header: add --board-contract")
    if not os.path.exists(path):
        raise ValueError(f"{path}: no such file")
    try:
        model = read_wk(path)
    except WkError as exc:
        print(f"nnie-triage wk: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.format == "json":
        doc = to_json(model, records=args.records)
        if args.batch != 1:
            memory = model.board_memory(args.batch)
            doc["memory"].update(n=memory.num, sources=memory.sources, destinations=memory.destinations,
                                 total=memory.total)
        text = json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
    else:
        text = render_text(model, records=args.records, num=args.batch)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return EXIT_OK if model.intact else EXIT_DAMAGED

"""``nnie-triage card``: a draft model card (``nnie.toml``) for a cfg, from what its project holds.

  nnie-triage card --cfg FILE [--write] [--format text|json]

Prints the ``[[model]]`` entry drafted from the user's own Caffe dumps beside the cfg and the
inference code of the repository (each value with where it came from; unknown values as comments),
and where it would go.  Nothing is written without ``--write`` (then the entry is added to the
nearest card, or ``nnie.toml`` is created beside the cfg).  Argument parsing and output only: the
draft is :mod:`nnie_lsp.card_draft.for_cfg`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

EXIT_OK = 0


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("card", help="draft the model card (nnie.toml: how the net was trained) from your Caffe "
                       "dumps and inference code; --write adds it")
    p.add_argument("--cfg", required=True, help="the mapper cfg whose net the card describes")
    p.add_argument("--write", action="store_true", help="add the drafted entry to the card (else only print it)")
    p.add_argument("--format", choices=["text", "json"], default="text")
    return p


def cmd_card(args) -> int:
    from nnie_lsp.card_draft.for_cfg import draft_for_cfg

    if not os.path.isfile(args.cfg):
        raise ValueError(f"cfg file {args.cfg} does not exist")
    result = draft_for_cfg(args.cfg)
    if args.format == "json":
        sys.stdout.write(json.dumps(result.to_json(), indent=1, ensure_ascii=False) + "\n")
    elif result.has_entry:
        print(f"{result.card_path} already describes {result.prototxt}: nothing to draft")
    else:
        print(f"# draft for {result.card_path}" + ("" if result.card_exists else " (a new file)"))
        sys.stdout.write(result.text)
        for note in result.draft.notes:
            print(f"note: {note}", file=sys.stderr)
    if not args.write or result.has_entry:
        return EXIT_OK
    if not result.edits:
        raise ValueError("nothing known to write: no Caffe dump beside the cfg and no inference code says how the "
                         "net was trained; write nnie.toml by hand (nnie-lint --explain NN120)")
    _write(result.edits)
    print(f"wrote {result.card_path}", file=sys.stderr)
    return EXIT_OK


def _write(edits) -> None:
    """Apply the draft's edits: create the card, or add the entry at its end (atomically)."""
    from nnie_lsp.core.atomic_write import write_bytes
    from nnie_lsp.core.text import apply_edits, read_text

    by_path: dict[str, list] = {}
    for fe in edits:
        by_path.setdefault(fe.path, []).append(fe.edit)
    for path, file_edits in by_path.items():
        current = read_text(path).text if os.path.exists(path) else ""
        write_bytes(path, apply_edits(current, file_edits).encode("utf-8"))

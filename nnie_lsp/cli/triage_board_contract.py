"""``nnie-triage wk FILE.wk --board-contract [--format text|json|c]``: the board code's contract of
a `.wk` (argument parsing and output only; the contract is :mod:`nnie_lsp.readers.wk.contract`).

  nnie-triage wk FILE.wk --board-contract                # a table
  nnie-triage wk FILE.wk --board-contract --format json  # docs/triage-schema.md, "The board contract"
  nnie-triage wk FILE.wk --board-contract --format c -o net_contract.h

:func:`add_contract_args` adds the option to the ``wk`` parser (:mod:`.triage_wk`) and
:func:`run_contract` answers it.
Exit codes: 0 an intact `.wk`, 1 a damaged one (its contract is printed all the same, the damage
named first), 2 not a readable `.wk`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

EXIT_OK, EXIT_DAMAGED, EXIT_BAD_INPUT = 0, 1, 2
FORMATS = ("text", "json", "c")


def add_contract_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--board-contract", action="store_true",
                   help="print what the board code must do with every input and output of every segment: blob type, "
                   "N/C/H/W, element size, row stride, buffer size, how a value is read, how segments are linked "
                   "by name (--format json, or c for a header to #include)")


def _write(text: str, output: str | None) -> None:
    if output:
        from nnie_lsp.core.atomic_write import write_bytes

        write_bytes(output, text.encode("utf-8"))
        print(f"wrote {output}", file=sys.stderr)
    else:
        sys.stdout.write(text)


def run_contract(path: str, fmt: str, output: str | None = None) -> int:
    """Print (or write) the contract of the `.wk` at ``path`` in ``fmt``; the exit code."""
    from nnie_lsp.readers.wk.reader import WkError, read_wk
    from nnie_lsp.readers.wk.contract import from_wk, render_c, render_text

    if not os.path.exists(path):
        raise ValueError(f"{path}: no such file")
    try:
        model = read_wk(path)
    except WkError as exc:
        print(f"nnie-triage wk: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    contract = from_wk(model)
    if not model.intact:
        print(f"nnie-triage wk: warning: {path} is damaged: the contract is read as far as the file goes "
              f"({'; '.join(d.message for d in model.damage)})", file=sys.stderr)
    if fmt == "json":
        text = json.dumps(contract.to_json(), ensure_ascii=False, indent=2) + "\n"
    elif fmt == "c":
        text = render_c(contract)
    else:
        text = render_text(contract)
    _write(text, output)
    return EXIT_OK if model.intact else EXIT_DAMAGED


__all__ = ["add_contract_args", "run_contract", "FORMATS"]

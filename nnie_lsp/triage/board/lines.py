"""The report's lines about the board (``doc["board"]``, :func:`.stage.board_json`); no numpy (the
reports render results the editor stores)."""

from __future__ import annotations

import os


def board_lines(doc: dict) -> list[str]:
    """The report's lines about the board (none without ``--board``)."""
    board = doc.get("board")
    if not board:
        return []
    runs = board.get("runs") or []
    contract = board.get("contract") or {}
    out = [f"Board: {len(runs)} run(s) in {', '.join(board.get('folders') or [])}; contract from "
           f"{'the .wk ' + os.path.basename(contract.get('path') or '') if contract.get('source') == 'wk' else 'the prototxt (no .wk)'}"]
    inp = board.get("input")
    if inp:
        how = "as a packed H,W,C buffer" if inp.get("layout") == "HWC" else "as planes"
        perm = inp.get("permutation") or []
        if perm and perm != sorted(perm):
            how += f", channels {', '.join(map(str, perm))}"
        out.append(f"  input: fits the {inp.get('against')}'s data {how}, rows {inp.get('stride')} bytes apart "
                   f"(R² {inp.get('r2'):.4f}; the blob's stride {inp.get('blob_stride')})")
    for c in board.get("outputs") or []:
        sim = c.get("simulator") or {}
        bits = []
        if c.get("node") and c.get("node") != c.get("named"):
            bits.append(f"holds {c['node']}'s values")
        if c.get("stride") and c.get("expected_stride") and c["stride"] != c["expected_stride"]:
            bits.append(f"rows {c['stride'] * 4} bytes apart")
        if c.get("scale_kind"):
            bits.append(f"scale ×{c.get('scale'):.6g}")
        if sim.get("cosine") is not None:
            eq = sim.get("equal_words")
            bits.append(f"vs simulator cosine {sim['cosine']:.6f}" + (f", {100 * eq:.1f}% equal words" if eq is not None else ""))
        if c.get("caffe_cosine") is not None:
            bits.append(f"vs Caffe {c['caffe_cosine']:.4f}")
        if not bits and c.get("cosine") is not None:
            bits.append(f"best reading cosine {c['cosine']:.4f} against the {c.get('against')}")
        out.append(f"  {c['file']}: " + ("; ".join(bits) or "not compared"))
    for note in board.get("notes") or []:
        out.append(f"  note: {note}")
    return out

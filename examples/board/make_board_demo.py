"""Regenerate the board demo from the real MTCNN P-Net (det1) at 36×36, whose two outputs are
13×13: 52 bytes of values per row, 64 on the board (the stride trap).

    .venv/bin/python examples/board/make_board_demo.py

The folder is laid out as a project is after the tools and the board program ran in it, so that
`nnie-triage compare --cfg examples/board/net.cfg` finds everything by itself:

    net.cfg, det1_36x36.prototxt   the cfg (MTCNN's training preprocessing) and the net at 36×36
    output/                        the Caffe side: `nnie-triage reference --cfg net.cfg --transpose`
    mapper_quant/                  the NNIE side: `nnie-triage emulate --cfg net.cfg --transpose`
    board/                         what a board program wrote (nnie_lsp/testing/board_dumps.py, from
                                   the emulation): data.bin and conv4-2.bin, the blob memory as
                                   board_code/nnie_board_dump.c writes it, and prob1.bin, the words read by
                                   code that moves on by the width instead of u32Stride (the mistake)

`nnie-triage compare --cfg examples/board/net.cfg` → the stage board, T601 on prob1.
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
sys.path.insert(0, str(HERE.parent / "triage"))

from nnie_lsp.cli.triage import main as triage_main  # noqa: E402
from nnie_lsp.testing.board_dumps import board_from_cfg  # noqa: E402
from make_demo import _relative_manifest  # noqa: E402  (examples/triage: the manifests' paths made relative)


def main() -> int:
    cfg = HERE / "net.cfg"
    for name in ("output", "mapper_quant", "board"):
        shutil.rmtree(HERE / name, ignore_errors=True)
    for args in (["reference", "--cfg", str(cfg), "-o", str(HERE / "output")],
                 ["emulate", "--cfg", str(cfg), "-o", str(HERE / "mapper_quant")]):
        if triage_main([*args, "--transpose", "--progress", "none"]) != 0:
            return 1
    for folder in ("output", "mapper_quant"):
        _relative_manifest(HERE / folder)
    board_from_cfg(str(cfg), str(HERE / "board"), fault="stride", nodes=("prob1",), transpose=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

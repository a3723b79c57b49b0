"""The board checks on the real MTCNN P-Net (tests/data/triage/mtcnn) at 36×36 -- two 13×13 outputs
(52 bytes per row, 64 on the board) and a 36-wide U8 input (48 on the board) -- through the CLI as
a user runs it: ``reference`` and ``emulate`` from the cfg, the board dumps written from the
emulation as a board program writes them (one mistake each), ``compare --board``.  Without the
input's dump an input mistake is inferred from the outputs (the emulation fed that way reproduces
them).  Other sizes, faults and forms: the benchmark's board row (benchmarks/board_runs.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("cv2")

from nnie_lsp.cli.triage import main  # noqa: E402
from nnie_lsp.testing import faults  # noqa: E402
from nnie_lsp.testing.board_dumps import board_from_cfg  # noqa: E402
from nnie_lsp.testing.faults import Prep  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
MTCNN = ROOT / "tests" / "data" / "triage" / "mtcnn"
IMAGE = ROOT / "examples" / "triage" / "test1.jpg"


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("det1_36")
    proto = root / "det1.prototxt"
    proto.write_text(faults.with_input_shape((MTCNN / "det1.prototxt").read_text(encoding="utf-8"), (1, 3, 36, 36)),
                     encoding="utf-8")
    (root / "images.txt").write_text(f"{IMAGE}\n", encoding="utf-8")
    cfg = faults.write_cfg(root / "net.cfg", prototxt=proto, caffemodel=MTCNN / "det1.caffemodel",
                           prep=Prep("RGB", 5, (127.5,) * 3, 0.0078125))
    for args in (["reference", "--cfg", str(cfg), "-o", str(root / "output")],
                 ["emulate", "--cfg", str(cfg), "-o", str(root / "mapper_quant")]):
        assert main([*args, "--transpose", "--progress", "none"]) == 0
    return root


def _triage(project: Path, board: Path, capsys, *extra: str) -> dict:
    capsys.readouterr()
    code = main(["compare", "--cfg", str(project / "net.cfg"), "--reference", str(project / "output"),
                 "--sim", str(project / "mapper_quant"), "--board", str(board), "--format", "json", *extra])
    out = capsys.readouterr().out
    assert code == 0
    return json.loads(out)


def _board(project: Path, name: str, **kw) -> Path:
    out = project / name
    shutil.rmtree(out, ignore_errors=True)
    board_from_cfg(str(project / "net.cfg"), str(out), transpose=True, **kw)
    return out


def _first(doc: dict):
    mistakes = doc["board"]["mistakes"]
    return (mistakes[0]["code"], mistakes[0]["kind"]) if mistakes else None


def test_a_faithful_board_is_bit_exact_and_the_guide_verdict_stands(project, capsys):
    doc = _triage(project, _board(project, "ok"), capsys)
    assert doc["case"] == 4 and not doc["verdict"].startswith("board")
    assert [c["simulator"]["equal_words"] for c in doc["board"]["outputs"]] == [1.0, 1.0]
    t607 = [f for f in doc["findings"] if f["code"] == "T607"]
    assert "2 outputs bit-exact (conv4-2, prob1)" in t607[0]["message"]
    assert doc["board"]["input"]["r2"] > 0.9999


@pytest.mark.parametrize("fault, nodes, form, with_input, named", [
    ("stride", ("conv4-2",), "txt", True, ("T601", "output")),
    ("x4096", ("prob1",), "txt", False, ("T602", "x4096")),
    ("hwc", (), "bin", True, ("T603", "hwc")),
    ("hwc", (), "bin", False, ("T603", "hwc_inferred")),
    ("rgb", (), "bin", False, ("T604", "rgb_bgr_inferred")),
    ("input_stride", (), "bin", False, ("T601", "input_inferred")),
])
def test_each_mistake_is_named(project, capsys, fault, nodes, form, with_input, named):
    board = _board(project, f"{fault}_{with_input}", fault=fault, nodes=nodes, form=form, with_input=with_input)
    doc = _triage(project, board, capsys)
    assert doc["verdict"].startswith("board: ") and doc["next_step"] == 7 and doc["case"] is None
    assert _first(doc) == named, doc["board"]["mistakes"]
    finding = next(f for f in doc["findings"] if f["code"] == named[0])
    assert finding["path"].endswith("det1.prototxt")          # on the layer (or the input) it is about
    assert "T401" not in [f["code"] for f in doc["findings"]]

"""The board-side C code in board_code/ builds against a stand-in of the SDK's structs
(tests/board_code/sdk_stub/) and writes what the triage reads: every form of every blob kind, the
padding kept in .bin and skipped in .txt/.hex, byte for byte what the Python twin
(``dumpio.board.write_board_file``) writes; and the contract header of every real .wk compiles and
holds the contract's JSON."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from nnie_lsp.readers.dumpio.board import blob_memory, read_board_file, to_words, write_board_file
from nnie_lsp.testing.wk_files import Node, Segment, WkSpec, simple_spec, write_wk, Blob as PlanBlob
from nnie_lsp.readers.wk.reader import read_wk, parse_wk
from nnie_lsp.readers.wk.contract import _macro_stem, from_wk, render_c

ROOT = Path(__file__).resolve().parents[3]
CODE = ROOT / "board_code"
STUB = ROOT / "tests" / "board_code" / "sdk_stub"
WK = ROOT / "tests" / "data" / "wk"
CC = shutil.which("gcc") or shutil.which("cc")
FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O1"]

pytestmark = pytest.mark.skipif(CC is None, reason="no C compiler on this machine")

S32, U8, YVU420SP, VEC_S32, SEQ_S32 = 0, 1, 2, 4, 5
BIN, TXT, HEX = 1, 2, 4


@pytest.fixture(scope="module")
def driver(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cc") / "driver"
    subprocess.run([CC, *FLAGS, f"-I{STUB}", f"-I{CODE}", str(CODE / "nnie_board_dump.c"),
                    str(ROOT / "tests" / "board_code" / "driver.c"), "-o", str(out)], check=True,
                   capture_output=True, text=True)
    return out


def _run(driver: Path, tmp: Path, name: str, blob_type: int, stride: int, memory: bytes, *, num=1, w=0, h=0, c=0,
         dim=0, steps=(), forms=BIN | TXT | HEX) -> subprocess.CompletedProcess:
    spec = tmp / f"{name.replace('/', '_')}.spec"
    head = struct.pack("<8I", blob_type, stride, num, w, h, c, dim, len(steps)) + struct.pack(f"<{len(steps)}I", *steps)
    spec.write_bytes(head + memory)
    out = tmp / "dumps"
    out.mkdir(exist_ok=True)
    return subprocess.run([str(driver), str(spec), name, str(out), str(forms)], capture_output=True, text=True)


def test_the_writer_builds_warning_free_as_c99():
    subprocess.run([CC, *FLAGS, "-Wconversion", f"-I{STUB}", "-c", str(CODE / "nnie_board_dump.c"), "-o", os.devnull],
                   check=True, capture_output=True, text=True)


def test_s32_output_with_padding_every_form(driver, tmp_path):
    c, h, w = 2, 3, 13                      # 52 bytes of values per row, 64 on the board
    stride = 64
    values = np.linspace(-3.5, 700.25, c * h * w).reshape(c, h, w)
    words = to_words(values)
    memory = blob_memory(words.reshape(c * h, w), stride // 4, pad=np.int32(0x5A5A5A5A))
    done = _run(driver, tmp_path, "conv4-2", S32, stride, memory.astype("<i4").tobytes(), w=w, h=h, c=c)
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "dumps"
    raw = read_board_file(str(folder / "conv4-2.bin"), 4)
    assert raw.words.size == c * h * stride // 4                 # the padding kept
    assert np.array_equal(raw.words.reshape(c * h, stride // 4)[:, :w].reshape(-1), words.reshape(-1))
    assert np.all(raw.words.reshape(c * h, -1)[:, w:] == 0x5A5A5A5A)
    for form in ("txt", "hex"):
        read = read_board_file(str(folder / f"conv4-2.{form}"), 4)
        assert read.count == c * h * w                           # the padding skipped
        assert np.array_equal(np.rint(read.values * 4096), words.reshape(-1))  # the word comes back exactly
    # what the Python twin writes, byte for byte
    twin = tmp_path / "twin"
    twin.mkdir()
    for form in ("bin", "txt", "hex"):
        write_board_file(str(twin), "conv4-2", memory, w, stride // 4, form)
        assert (twin / f"conv4-2.{form}").read_bytes() == (folder / f"conv4-2.{form}").read_bytes(), form


def test_u8_input_with_padding_and_a_name_with_slash(driver, tmp_path):
    c, h, w, stride = 3, 4, 28, 32
    planes = (np.arange(c * h * w) % 251).astype(np.uint8).reshape(c, h, w)
    memory = blob_memory(planes.reshape(c * h, w), stride, pad=np.uint8(7))
    done = _run(driver, tmp_path, "data/in", U8, stride, memory.tobytes(), w=w, h=h, c=c, forms=BIN | TXT)
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "dumps"
    raw = read_board_file(str(folder / "data_in.bin"), 1)
    assert raw.element_size == 1 and raw.count == c * h * stride
    assert np.array_equal(raw.values.reshape(c * h, stride)[:, :w].reshape(-1), planes.reshape(-1))
    assert np.array_equal(read_board_file(str(folder / "data_in.txt")).values, planes.reshape(-1))
    # a .hex of a U8 blob is refused (EINVAL), nothing written
    bad = _run(driver, tmp_path, "data2", U8, stride, memory.tobytes(), w=w, h=h, c=c, forms=HEX)
    assert bad.returncode == 1 and not (folder / "data2.hex").exists()


def test_vector_and_sequence_outputs(driver, tmp_path):
    vec = to_words(np.arange(10) / 8.0)
    memory = blob_memory(vec.reshape(1, 10), 12, pad=np.int32(-1))
    assert _run(driver, tmp_path, "prob", VEC_S32, 48, memory.astype("<i4").tobytes(), w=10, h=1, c=1).returncode == 0
    assert np.allclose(read_board_file(str(tmp_path / "dumps" / "prob.txt")).values, np.arange(10) / 8.0, atol=1e-9)
    steps, dim = (2, 3), 5
    seq = to_words(np.arange(sum(steps) * dim).reshape(-1, dim) / 16.0)
    memory = blob_memory(seq, 8, pad=np.int32(0))
    done = _run(driver, tmp_path, "lstm", SEQ_S32, 32, memory.astype("<i4").tobytes(), num=2, dim=dim, steps=steps)
    assert done.returncode == 0, done.stderr
    assert np.array_equal(read_board_file(str(tmp_path / "dumps" / "lstm.hex")).values, seq.reshape(-1) / 4096.0)


def test_yuv420sp_memory_size(driver, tmp_path):
    h, w, stride = 4, 20, 32
    memory = bytes(range(256)) * 1
    memory = (memory * 2)[: stride * h * 3 // 2]
    done = _run(driver, tmp_path, "frame", YVU420SP, stride, memory, w=w, h=h, c=3, forms=BIN)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "dumps" / "frame.bin").read_bytes() == memory


def test_a_blob_whose_memory_does_not_match_is_refused(driver, tmp_path):
    done = _run(driver, tmp_path, "x", S32, 64, bytes(100), w=13, h=1, c=1)
    assert done.returncode == 3


# ------------------------------------------------------------------ the contract header

def _two_segments() -> bytes:
    seg0 = Segment((Node("data", 30, 30, 3),), (Node("rpn_cls", 8, 8, 18), Node("rpn_bbox", 8, 8, 36),
                                                Node("conv5", 8, 8, 64)))
    seg1 = Segment((Node("conv5", 8, 8, 64, image_type=0), Node("rois", 1, 1, 5, image_type=0)),
                   (Node("cls_prob", 1, 1, 21, vector=True),))
    blobs = (PlanBlob(30, 30, 3, 1), PlanBlob(8, 8, 18, 4, output=True), PlanBlob(8, 8, 36, 4, output=True),
             PlanBlob(8, 8, 64, 4, output=True), PlanBlob(21, 1, 1, 4, output=True))
    return write_wk(WkSpec(segments=(seg0, seg1), blobs=blobs))


def _header_table(tmp: Path, path: Path) -> list[list[str]]:
    contract = from_wk(read_wk(str(path)))
    header = tmp / (path.stem + "_contract.h")
    header.write_text(render_c(contract), encoding="utf-8")
    exe = tmp / (path.stem + "_print")
    prefix = "NNIE_" + _macro_stem(str(path))
    subprocess.run([CC, *FLAGS, f'-DCONTRACT_HEADER="{header}"', f"-DCONTRACT_PREFIX={prefix}",
                    str(ROOT / "tests" / "board_code" / "contract_print.c"), "-o", str(exe)], check=True,
                   capture_output=True, text=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    return [line.split(" ") for line in out.splitlines()]


@pytest.mark.parametrize("name", sorted(p.name for p in WK.glob("*.wk")) + ["two_segments.wk"])
def test_contract_header_compiles_and_holds_the_json(name, tmp_path):
    path = WK / name
    if name == "two_segments.wk":
        path = tmp_path / name
        path.write_bytes(_two_segments())
    rows = _header_table(tmp_path, path)
    doc = from_wk(read_wk(str(path))).to_json()
    assert len(rows) == len(doc["nodes"])
    for row, node in zip(rows, doc["nodes"]):
        link = (node.get("link") or {}).get("first") or {"segment": -1, "index": -1}
        want = [node["segment"], int(node["role"] == "destination"), node["index"], node["name"], node["blob_type_code"],
                node["n"], node["c"], node["h"], node["w"], node["element_size"], node["stride"], node["size"] or 0,
                link["segment"], link["index"]]
        assert row == [str(x) for x in want]


def test_two_segments_link_by_name_and_json_round_trip(tmp_path):
    path = tmp_path / "two_segments.wk"
    path.write_bytes(_two_segments())
    contract = from_wk(read_wk(str(path)))
    later = [n for n in contract.nodes if n.segment == 1 and n.role == "source"]
    assert later[0].link.first == (0, 2)            # conv5: segment 0 output 2
    assert later[1].link.first is None              # rois: the CPU's proposals, no earlier output
    conv5 = next(n for n in contract.outputs if n.name == "conv5")
    assert conv5.read_by == ((1, 0),)
    doc = json.loads(json.dumps(contract.to_json()))
    assert doc["nodes"][-1]["blob_type"] == "VEC_S32" and doc["nodes"][-1]["stride"] == 96


def test_mnet_collision_in_the_contract():
    contract = from_wk(read_wk(str(WK / "hanson-young__nniefacelib__mnet_mergebn_640L_inst.wk")))
    cls = [n for n in contract.outputs if n.name.startswith("face_rpn_cls_prob_reshape")]
    assert [n.same_name for n in cls] == [(7, 8), (6, 8), (6, 7)]
    assert contract.output_named("face_rpn_cls_prob_reshape_stride16") == tuple(cls)


def test_cli_board_contract_formats(tmp_path, capsys):
    from nnie_lsp.cli.triage import main

    wk = WK / "Strand2013__NNIE-lite__inst_mnist_cycle.wk"
    assert main(["wk", str(wk), "--board-contract", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [(n["name"], n["blob_type"], n["stride"], n["padding_bytes"]) for n in doc["nodes"]] == [
        ("data", "U8", 32, 4), ("prob", "VEC_S32", 48, 8)]
    out = tmp_path / "mnist.h"
    assert main(["wk", str(wk), "--board-contract", "--format", "c", "-o", str(out)]) == 0
    assert "#define NNIE_STRAND2013_NNIE_LITE_INST_MNIST_CYCLE_SEG0_SRC0_STRIDE 32" in out.read_text()
    assert main(["wk", str(wk), "--board-contract"]) == 0
    text = capsys.readouterr().out
    assert "rows are 32 bytes apart, not W × 1 = 28" in text and "one row per item: padded to 48 bytes" in text
    # a damaged copy: the contract all the same, exit 1; not a .wk: exit 2
    bad = tmp_path / "cut.wk"
    bad.write_bytes(wk.read_bytes()[:-100])
    assert main(["wk", str(bad), "--board-contract", "--format", "json"]) == 1
    text = tmp_path / "x.wk"
    text.write_text("hello")
    assert main(["wk", str(text), "--board-contract"]) == 2
    assert parse_wk  # the reader's entry stays importable beside the contract


def test_the_wk_page_and_hover_show_the_contract():
    from nnie_lsp.readers.wk.contract import hover_markdown
    from nnie_lsp.readers.wk.describe import render_html

    model = read_wk(str(WK / "Strand2013__NNIE-lite__inst_mnist_cycle.wk"))
    page = render_html(model)
    assert "<h2>The board code's contract</h2>" in page and "rows are 32 bytes apart, not W × 1 = 28" in page
    hover = hover_markdown(from_wk(model))
    assert "input `data`: U8 1×28×28, rows 32 B apart (not 28)" in hover
    assert "output `prob`: VEC_S32 1×1×10, stride 48 B, read as S32 / 4096" in hover


def test_the_header_included_without_using_the_table_builds_warning_free(tmp_path):
    path = WK / "hanson-young__nniefacelib__mnet_mergebn_640L_inst.wk"
    header = tmp_path / "mnet.h"
    header.write_text(render_c(from_wk(read_wk(str(path)))), encoding="utf-8")
    src = tmp_path / "unit.c"
    src.write_text(f'#include "{header}"\n#include "{header}"\nint stride(void) {{ return '
                   f'NNIE_HANSON_YOUNG_NNIEFACELIB_MNET_MERGEBN_640L_INST_SEG0_DST6_STRIDE; }}\n', encoding="utf-8")
    subprocess.run([CC, *FLAGS, "-Wunused", "-c", str(src), "-o", os.devnull], check=True, capture_output=True, text=True)

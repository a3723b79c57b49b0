"""A `.wk` through nnie-lint: a file kind (one line saying what it is, then its findings), in
folders too; read as the compiled model of the cfg that builds it or is named with it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from nnie_lsp.readers import file_kinds
from nnie_lsp.lint import lint
from nnie_lsp.testing.wk_files import Node, simple_spec, write_wk

DATA = Path(__file__).resolve().parents[2] / "data"
MNET = DATA / "wk" / "hanson-young__nniefacelib__mnet_mergebn_640L_inst.wk"
MNIST = DATA / "wk" / "Strand2013__NNIE-lite__inst_mnist_cycle.wk"


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "nnie_lsp.cli.lint", *args], cwd=cwd, capture_output=True,
                          text=True, check=False)


def test_sniffed_by_extension_or_header(tmp_path):
    data = MNIST.read_bytes()
    assert file_kinds.sniff("x.wk", data[:8192]) == file_kinds.WK
    assert file_kinds.sniff("model.bin", data[:8192]) == file_kinds.WK            # the header says it
    assert file_kinds.sniff("x.wk", b"version https://git-lfs.github.com/spec/v1\n") == file_kinds.WK
    assert file_kinds.sniff("weights.bin", b"\x00\x01\x02" * 100) == file_kinds.BINARY


def test_a_wk_alone_says_what_it_is_then_its_findings(tmp_path):
    shutil.copy(MNET, tmp_path / "mnet.wk")
    run = _cli("mnet.wk", cwd=tmp_path)
    assert run.returncode == 1
    assert ("nnie-lint: mnet.wk: a compiled NNIE model (.wk): 8-bit, 1 segment, 1 input, 9 outputs, "
            "mapper 1.2.1.0_B020 [I], needs 5.7 MiB on the board") in run.stderr
    assert run.stdout.startswith("mnet.wk:1:1: NN608 3 outputs of this .wk share the name")
    assert "1 .wk file(s) checked: 1 warning." in run.stderr


def test_a_damaged_wk_alone(tmp_path):
    (tmp_path / "cut.wk").write_bytes(MNIST.read_bytes()[:300000])
    run = _cli("cut.wk", cwd=tmp_path)
    assert run.returncode == 1 and "DAMAGED" in run.stderr
    assert "cut.wk:1:1: NN600 cut.wk is damaged: truncated: 300000 bytes" in run.stdout
    (tmp_path / "text.wk").write_text("<html>404</html>")
    run = _cli("text.wk", cwd=tmp_path)
    assert "a .wk that cannot be read: text" in run.stderr and "NN600 text.wk cannot be loaded by the board" in run.stdout


def test_folder_mode_reads_a_wk_with_its_cfg_and_lints_the_others(tmp_path):
    (tmp_path / "net.prototxt").write_text('name: "n"\ninput: "data"\ninput_shape { dim: 1 dim: 3 dim: 16 dim: 16 }\n'
                                          'layer { name: "c" type: "Convolution" bottom: "data" top: "out" '
                                          'convolution_param { num_output: 4 kernel_size: 1 } }\n')
    (tmp_path / "net.cfg").write_text("[prototxt_file] ./net.prototxt\n[image_type] 1\n[norm_type] 0\n"
                                      "[instruction_name] ./model/net_inst\n")
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "net_inst.wk").write_bytes(
        write_wk(simple_spec([Node("data", 32, 32, 3)], [Node("out", 16, 16, 4)])))
    shutil.copy(MNIST, tmp_path / "other.wk")
    notes: list[str] = []
    run = lint([str(tmp_path)], on_note=notes.append, overrides={"select": ("NN6",)})
    joined = "\n".join(notes)
    assert "net_inst.wk: a compiled NNIE model (.wk)" in joined and "read with the cfg that builds it (net.cfg)" in joined
    assert "other.wk: a compiled NNIE model (.wk): 8-bit" in joined
    (nn601,) = [d for d in run.diagnostics if d.code == "NN601"]   # built at 32 × 32, the prototxt says 16 × 16
    assert nn601.path.endswith("net.cfg") and "32×32×3 (H×W×C) but the prototxt's input is 16×16×3" in nn601.message


def test_a_wk_named_with_the_cfg_replaces_its_instruction_name(tmp_path):
    (tmp_path / "net.prototxt").write_text('name: "n"\ninput: "data"\ninput_shape { dim: 1 dim: 3 dim: 32 dim: 32 }\n'
                                          'layer { name: "c" type: "Convolution" bottom: "data" top: "out" '
                                          'convolution_param { num_output: 4 kernel_size: 1 } }\n')
    (tmp_path / "net.cfg").write_text("[prototxt_file] ./net.prototxt\n[image_type] 1\n[norm_type] 0\n[compile_mode] 0\n")
    (tmp_path / "elsewhere.wk").write_bytes(
        write_wk(simple_spec([Node("data", 32, 32, 3)], [Node("out", 32, 32, 4)], bits="16-bit")))
    run = _cli("net.cfg", "elsewhere.wk", "--select", "NN6", cwd=tmp_path)
    assert "net.cfg:4:1: NN604 elsewhere.wk is a 16-bit build" in run.stdout
    assert "elsewhere.wk: a compiled NNIE model (.wk): 16-bit" in run.stderr and "read with the cfg" in run.stderr

"""Hostile files: FIFOs, devices, sockets, folders, link loops, unreadable and oversized files.

Nothing is ever opened that is not a regular file, what is read is bounded per kind of file
(``nnie_lsp.core.safe_io.LIMITS``), and each case gets a clear message with the path and the reason,
never a hang or a traceback.  The command-line tests run ``nnie-lint`` in a subprocess with a
timeout: before the guarded reader, a cfg naming a FIFO as its image list hung it for good.
"""

from __future__ import annotations

import errno
import os
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from nnie_lsp.core import safe_io
from nnie_lsp.lint.driver import discover_inputs, lint_files
from nnie_lsp.readers.cfg.reader import read_cfg
from nnie_lsp.readers.dumpio.readers import read_hex_words, read_mindspore_header_shape, read_text_floats
from nnie_lsp.readers.mapper.log import read_mapper_log
from nnie_lsp.readers.mapper.nettree import read_net_tree
from nnie_lsp.project.project import DiskProvider, load_project
from nnie_lsp.project.settings import settings_from_mapping
from nnie_lsp.core.text import read_text

POSIX = hasattr(os, "mkfifo")
needs_fifo = pytest.mark.skipif(not POSIX, reason="no FIFOs on this system")
TIMEOUT = 60  # seconds; the hang this guards against never ends

PROTOTXT = 'input: "data"\ninput_shape { dim: 1 dim: 3 dim: 8 dim: 8 }\n' \
           'layer { name: "r" type: "ReLU" bottom: "data" top: "r" }\n'


def _project(tmp_path: Path, **paths: str) -> Path:
    """net.cfg + net.prototxt + net.caffemodel in tmp_path; `paths` overrides cfg keys."""
    (tmp_path / "net.prototxt").write_text(PROTOTXT, encoding="utf-8")
    (tmp_path / "net.caffemodel").write_bytes(b"")
    (tmp_path / "list.txt").write_text("a.jpg\n", encoding="utf-8")
    (tmp_path / "a.jpg").write_bytes(b"\xff\xd8")
    keys = {"prototxt_file": "./net.prototxt", "caffemodel_file": "./net.caffemodel",
            "image_list": "./list.txt", "image_type": "1", "norm_type": "0", "mean_file": "null"}
    keys.update(paths)
    cfg = tmp_path / "net.cfg"
    cfg.write_text("".join(f"[{k}] {v}\n" for k, v in keys.items()), encoding="utf-8")
    return cfg


def _lint_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "nnie_lsp.cli.lint", "--no-color", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=TIMEOUT,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})


def _nn006(cfg: Path, lang: str = "en") -> list[str]:
    result = lint_files([str(cfg)], settings=settings_from_mapping({"select": ["NN006"]}), lang=lang)
    return [d.message for d in result.diagnostics if d.code == "NN006"]


def _finishes(call, seconds: float = 20.0):
    """Run call() in a thread; fail (instead of hanging the suite) when it does not return."""
    box: dict = {}

    def run():
        try:
            box["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"{call} did not return within {seconds} s"
    if "error" in box:
        raise box["error"]
    return box.get("value")


# ---------------------------------------------------------------- the command line (subprocess)

@needs_fifo
def test_fifo_image_list_does_not_hang_nnie_lint(tmp_path):
    os.mkfifo(tmp_path / "list.fifo")
    cfg = _project(tmp_path, image_list="./list.fifo")
    run = _lint_cli(str(cfg), cwd=tmp_path)  # used to hang for ever (TimeoutExpired here)
    assert run.returncode == 1, run.stderr
    assert "NN006" in run.stdout and "[image_list] ./list.fifo: a FIFO (named pipe)" in run.stdout
    assert "Traceback" not in run.stderr


@needs_fifo
def test_fifo_given_or_found_is_skipped_with_a_note(tmp_path):
    os.mkfifo(tmp_path / "pipe.prototxt")
    os.mkfifo(tmp_path / "pipe.cfg")
    (tmp_path / "ok.prototxt").write_text(PROTOTXT, encoding="utf-8")
    run = _lint_cli(str(tmp_path), cwd=tmp_path)  # a folder walk meets the FIFOs
    assert run.returncode == 0, run.stdout + run.stderr
    assert "pipe.prototxt: not linted: a FIFO" in run.stderr and "pipe.cfg: not linted: a FIFO" in run.stderr
    assert "1 file(s) checked" in run.stderr
    run = _lint_cli("pipe.prototxt", "ok.prototxt", cwd=tmp_path)  # given by name
    assert "pipe.prototxt: not linted: a FIFO" in run.stderr and "1 file(s) checked" in run.stderr
    run = _lint_cli("--mapper-log", "pipe.prototxt", "ok.prototxt", cwd=tmp_path)
    assert run.returncode == 2 and "--mapper-log pipe.prototxt: a FIFO" in run.stderr


def test_oversized_prototxt_is_not_read(tmp_path):
    big = tmp_path / "big.prototxt"
    with open(big, "wb") as handle:  # sparse: costs no disk, but stat says 1 MiB past the bound
        handle.truncate(safe_io.LIMITS[safe_io.PROTOTXT] + (1 << 20))
    limit = safe_io.LIMITS[safe_io.PROTOTXT] >> 20
    past = f"{limit + 1}.0 MiB, more than the {limit}.0 MiB nnie-lsp reads from a prototxt: not read"
    run = _lint_cli(str(big), cwd=tmp_path)  # named: an error, never skipped
    assert f"big.prototxt: could not be linted: {past}" in run.stderr and run.returncode == 2
    cfg = _project(tmp_path, prototxt_file="./big.prototxt")
    assert _nn006(cfg) == [f"[prototxt_file] ./big.prototxt: {past}"]
    # a file to lint that is past the bound when it is read (it grew after it was found) is NN903
    from nnie_lsp.lint.driver import lint_files

    found = lint_files([str(big)]).diagnostics
    assert [(d.code, d.range.start.line) for d in found] == [("NN903", 0)]
    assert found[0].message == f"this file was not linted: {past}; nothing in it was checked"


# ---------------------------------------------------------------- files a cfg names

@needs_fifo
def test_every_path_key_naming_a_fifo(tmp_path):
    for name in ("p.fifo", "m.fifo", "l.fifo", "c.fifo"):
        os.mkfifo(tmp_path / name)
    cfg = _project(tmp_path, prototxt_file="./p.fifo", mean_file="./m.fifo", image_list="./l.fifo",
                   caffemodel_file="./c.fifo", norm_type="1")
    messages = _finishes(lambda: _nn006(cfg))
    assert sorted(messages) == sorted(f"[{key}] ./{name}: {safe_io.FileProblem('', '', 'fifo').describe()}"
                                      for key, name in (("prototxt_file", "p.fifo"), ("mean_file", "m.fifo"),
                                                        ("image_list", "l.fifo"), ("caffemodel_file", "c.fifo")))
    project = _finishes(lambda: load_project(cfg_path=str(cfg)))
    assert project.prototxt is None and project.image_lists == () and project.means == ()
    assert {u.problem.reason for u in project.unreadable} == {"fifo"}


def test_device_socket_and_folder(tmp_path):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero here")
    (tmp_path / "folder").mkdir()
    cfg = _project(tmp_path, image_list="/dev/zero", mean_file="./folder", norm_type="1")
    assert sorted(_finishes(lambda: _nn006(cfg))) == [
        "[image_list] /dev/zero: a device, not a regular file: not read",
        "[mean_file] ./folder: a folder, not a file",
    ]
    # an unread list is not an empty one: no "names no images" warning
    assert not any("names no images" in m for m in _nn006(cfg))
    if not hasattr(socket, "AF_UNIX"):
        return
    sock_path = tmp_path / "s.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(str(sock_path))
    except OSError:
        pytest.skip("cannot bind a unix socket here")
    try:
        cfg = _project(tmp_path, image_list="./s.sock")
        assert _finishes(lambda: _nn006(cfg)) == ["[image_list] ./s.sock: a socket, not a regular file: not read"]
    finally:
        server.close()


def test_symlink_loop_and_dangling_link(tmp_path):
    os.symlink("loop_b", tmp_path / "loop_a")
    os.symlink("loop_a", tmp_path / "loop_b")
    os.symlink("gone.txt", tmp_path / "dangling.txt")
    cfg = _project(tmp_path, image_list="./loop_a", roi_coordinate_file="./dangling.txt")
    assert sorted(_nn006(cfg)) == [
        "[image_list] ./loop_a: a symbolic link loop (the link leads back to itself): not read",
        "[roi_coordinate_file] ./dangling.txt: a symbolic link to a missing file (gone.txt)",
    ]
    zh = _nn006(cfg, lang="zh")
    assert any("符号链接形成循环" in m for m in zh)
    inputs = discover_inputs([str(tmp_path / "loop_a")])
    assert inputs.files == [] and "not linted: a symbolic link loop" in inputs.notes[0]


def test_unreadable_file(tmp_path):
    locked = tmp_path / "locked.txt"
    locked.write_text("a.jpg\n", encoding="utf-8")
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):
            pytest.skip("running as root (CI): chmod 000 does not stop reads, nothing to test")
        cfg = _project(tmp_path, image_list="./locked.txt")
        assert _nn006(cfg) == ["[image_list] ./locked.txt: permission denied: cannot be read"]
        with pytest.raises(safe_io.FileReadError, match="permission denied"):
            safe_io.read_bytes(str(locked))
    finally:
        locked.chmod(stat.S_IRUSR | stat.S_IWUSR)


def test_oversized_image_list_and_mean_file(tmp_path):
    for name, kind in (("big_list.txt", safe_io.IMAGE_LIST), ("big_mean.binaryproto", safe_io.MEAN_FILE)):
        with open(tmp_path / name, "wb") as handle:
            handle.truncate(safe_io.LIMITS[kind] + 1)
    cfg = _project(tmp_path, image_list="./big_list.txt", mean_file="./big_mean.binaryproto", norm_type="1")
    just_past = "67,108,865 bytes, more than the 67,108,864 bytes nnie-lsp reads from"
    assert sorted(_nn006(cfg)) == [f"[image_list] ./big_list.txt: {just_past} an image list: not read",
                                   f"[mean_file] ./big_mean.binaryproto: {just_past} a mean file: not read"]


# ---------------------------------------------------------------- the guarded reader itself

@needs_fifo
def test_every_reader_refuses_a_fifo_at_once(tmp_path):
    fifo = tmp_path / "x.fifo"
    os.mkfifo(fifo)
    readers = [
        lambda: safe_io.read_bytes(str(fifo)), lambda: safe_io.read_head(str(fifo), 10),
        lambda: read_text(str(fifo)), lambda: read_cfg(str(fifo)), lambda: read_mapper_log(str(fifo)),
        lambda: read_net_tree(str(fifo)), lambda: read_text_floats(str(fifo)), lambda: read_hex_words(str(fifo)),
        lambda: read_mindspore_header_shape(str(fifo)),
    ]
    for call in readers:
        with pytest.raises(safe_io.FileReadError) as caught:
            _finishes(call)
        assert isinstance(caught.value, OSError)  # callers handling OSError keep working
        assert str(caught.value) == f"{fifo}: {safe_io.FileProblem('', '', 'fifo').describe()}"
    assert DiskProvider().read_text(str(fifo)) is None


def test_reader_bounds_and_messages(tmp_path):
    path = tmp_path / "f.txt"
    path.write_bytes(b"0123456789")
    assert safe_io.read_bytes(str(path), limit=10) == b"0123456789"
    with pytest.raises(safe_io.FileReadError, match="10 bytes, more than the 9 bytes"):
        safe_io.read_bytes(str(path), limit=9)
    assert safe_io.read_head(str(path), 4) == b"0123"
    with pytest.raises(safe_io.FileReadError, match="no such file") as caught:
        safe_io.read_bytes(str(tmp_path / "missing.txt"))
    assert caught.value.errno == errno.ENOENT
    with pytest.raises(safe_io.FileReadError, match="a folder, not a file"):
        safe_io.read_bytes(str(tmp_path))
    assert safe_io.check_file(str(path)) is None
    assert safe_io.check_file(str(tmp_path)).reason == "folder"
    assert safe_io.check_file("bad\x00path").reason == "io-error"
    provider = DiskProvider()
    assert provider.read_bytes(str(tmp_path)) is None
    assert provider.problem(str(tmp_path), read=True).reason == "folder"
    # an editor buffer is never checked on disk
    buffered = DiskProvider({str(tmp_path / "open.cfg"): "[norm_type] 0\n"})
    assert buffered.problem(str(tmp_path / "open.cfg"), safe_io.CFG) is None
    assert buffered.read_text(str(tmp_path / "open.cfg")).text == "[norm_type] 0\n"


def test_limits_are_documented_and_ordered():
    kinds = (safe_io.CFG, safe_io.PROTOTXT, safe_io.IMAGE_LIST, safe_io.MEAN_FILE, safe_io.DUMP,
             safe_io.LOG, safe_io.DOT, safe_io.SETTINGS, safe_io.CAFFEMODEL, safe_io.WK, safe_io.FILE)
    assert set(safe_io.LIMITS) == set(kinds)
    assert safe_io.kind_for_path("nnie_model/net_inst.wk") == safe_io.WK
    assert safe_io.LIMITS[safe_io.CFG] < safe_io.LIMITS[safe_io.PROTOTXT] < safe_io.LIMITS[safe_io.DUMP]
    assert safe_io.LIMITS[safe_io.CAFFEMODEL] == 2048 * safe_io.MIB  # protobuf's own message bound
    assert safe_io.kind_for_path("VGG_ILSVRC_16.caffemodel") == safe_io.CAFFEMODEL
    assert safe_io.kind_for_path("a/b.PROTOTXT") == safe_io.PROTOTXT
    assert safe_io.kind_for_path("mapper_debug.log") == safe_io.LOG
    assert safe_io.kind_for_path("list.txt") == safe_io.FILE


@needs_fifo
def test_mapper_output_beside_the_cfg_as_fifos(tmp_path):
    """mapper_debug.log, mapper_error.log and cnn_net_tree.dot beside the cfg are read without
    being asked for: as FIFOs they are left out, the lint goes on."""
    for name in ("mapper_debug.log", "mapper_error.log", "cnn_net_tree.dot"):
        os.mkfifo(tmp_path / name)
    cfg = _project(tmp_path)
    project = _finishes(lambda: load_project(cfg_path=str(cfg)))
    assert project.prototxt is not None and project.mapper_logs == () and project.net_tree is None
    run = _lint_cli(str(cfg), str(tmp_path / "mapper_debug.log"), cwd=tmp_path)
    assert "mapper_debug.log: not linted: a FIFO" in run.stderr and "Traceback" not in run.stderr


@needs_fifo
def test_a_wk_that_is_a_fifo(tmp_path):
    """A FIFO named as the cfg's [instruction_name].wk is not read (the lint goes on); named on
    the command line it is said to be one."""
    cfg = _project(tmp_path)
    os.mkfifo(tmp_path / "inst.wk")
    project = _finishes(lambda: load_project(cfg_path=str(cfg)))
    assert project.prototxt is not None and project.wk is None
    run = _lint_cli(str(tmp_path / "inst.wk"), cwd=tmp_path)
    assert "inst.wk: not linted: a FIFO" in run.stderr and "Traceback" not in run.stderr


def test_bounds_of_logs_and_dumps(tmp_path, monkeypatch):
    log = tmp_path / "console.log"
    with open(log, "wb") as handle:
        handle.truncate(safe_io.LIMITS[safe_io.LOG] + (1 << 20))
    (tmp_path / "ok.prototxt").write_text(PROTOTXT, encoding="utf-8")
    run = _lint_cli("--mapper-log", str(log), "ok.prototxt", cwd=tmp_path)
    assert run.returncode == 2
    assert "--mapper-log " + str(log) + ": 65.0 MiB, more than the 64.0 MiB nnie-lsp reads from a mapper log" in run.stderr
    dump = tmp_path / "conv1_output0_1_2_2_caffe.linear.float"
    dump.write_text("1.0\n" * 40, encoding="ascii")
    monkeypatch.setitem(safe_io.LIMITS, safe_io.DUMP, 100)
    with pytest.raises(safe_io.FileReadError, match="160 bytes, more than the 100 bytes nnie-lsp reads from a dump"):
        read_text_floats(str(dump))
    monkeypatch.setitem(safe_io.LIMITS, safe_io.DUMP, 160)
    assert read_text_floats(str(dump)).size == 40


# ---------------------------------------------------------------- triage and mapper-log readers

@needs_fifo
def test_mapper_log_sniffing_and_net_loading_refuse_a_fifo(tmp_path):
    from nnie_lsp.readers.mapper.output_files import is_mapper_log_file
    from nnie_lsp.readers.caffemodel import NetLoadError
    from nnie_lsp.reference.net import load_net

    log = tmp_path / "console.log"
    os.mkfifo(log)
    assert _finishes(lambda: is_mapper_log_file(str(log))) is False
    proto = tmp_path / "net.prototxt"
    os.mkfifo(proto)
    with pytest.raises(NetLoadError, match="cannot read prototxt .*net.prototxt") as caught:
        _finishes(lambda: load_net(str(proto), weights=False))
    assert safe_io.FileProblem("", "", "fifo").describe() in str(caught.value)
    from nnie_lsp.readers.caffemodel import read_weights

    weights = tmp_path / "net.caffemodel"
    os.mkfifo(weights)
    with pytest.raises(NetLoadError, match="cannot read caffemodel .*net.caffemodel: a FIFO"):
        _finishes(lambda: read_weights(str(weights)))


@needs_fifo
def test_a_bundle_never_zips_a_fifo(tmp_path):
    from nnie_lsp.triage.report.bundle import BundleError, make_bundle

    ref, sim = tmp_path / "caffe", tmp_path / "nnie"
    ref.mkdir()
    sim.mkdir()
    (ref / "conv1_output0_caffe.linear.float").write_text("1.0\n2.0\n")
    os.mkfifo(sim / "conv1_output0_1_1_2_quant.linear.hex")  # named like a dump, but a FIFO
    info = _finishes(lambda: make_bundle(tmp_path / "b.zip", layer="conv1", reference=str(ref), sim=str(sim)))
    import zipfile

    with zipfile.ZipFile(tmp_path / "b.zip") as z:
        names = z.namelist()
    assert "data/caffe/conv1_output0_caffe.linear.float" in names  # the regular file is there
    assert not any("quant" in n for n in names)  # the FIFO is never opened (the dump scan skips it)
    assert any("no nnie dump found" in w for w in info["warnings"]), info
    # a FIFO the caller names directly is refused with the reason, at once
    image = tmp_path / "img.jpg"
    os.mkfifo(image)
    with pytest.raises(BundleError, match="img.jpg"):
        _finishes(lambda: make_bundle(tmp_path / "c.zip", layer="conv1", reference=str(ref), sim=str(sim),
                                      images=[str(image)]))

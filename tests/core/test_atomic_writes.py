"""Atomic writes proven with a real kill (issue 11).

A child process writes through :mod:`nnie_lsp.core.atomic_write` (directly, through ``nnie-lint
--fix``, through the triage store and through ``nnie-triage bundle``); the child stalls at a
chosen point (its own ``os.fsync`` replaced, or a slow writer) and tells the test, which sends
SIGKILL.  The old file must be intact, and nothing left in the folder may look like a user's file.
Plus: modes and links kept, and nothing written outside the requested folder (``../``, links).
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
import zipfile

import pytest

from nnie_lsp.core import atomic_write
from nnie_lsp.lint.driver import discover_inputs, write_atomic
from nnie_lsp.core.text import decode

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, "examples", "project")

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL (POSIX)")

STALL_AT_FSYNC = """
import os, sys, time
def stall(fd):
    print("STALLED", flush=True)
    time.sleep(120)
os.fsync = stall   # the data is written, not yet flushed to disk nor renamed
"""


def _kill_when_stalled(code: str, *args: str, cwd: str | None = None) -> None:
    child = subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, cwd=cwd, env={**os.environ, "PYTHONPATH": ROOT})
    try:
        line = child.stdout.readline()
        assert line.strip() == "STALLED", (line, child.stderr.read() if child.poll() is not None else "")
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=60)
        assert child.returncode == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdout.close()
        child.stderr.close()


def _user_visible(folder: str) -> list[str]:
    """Names a user (or nnie-lint's folder discovery) would take for a file of theirs."""
    return sorted(name for name in os.listdir(folder) if not atomic_write.is_leftover(name))


def test_kill_after_the_data_is_written_leaves_the_old_file(tmp_path):
    target = tmp_path / "dump.txt"
    target.write_bytes(b"old content\n")
    code = STALL_AT_FSYNC + ("from nnie_lsp.core import atomic_write\n"
                             "atomic_write.write_bytes(sys.argv[1], b'N' * (48 << 20))\n")
    _kill_when_stalled(code, str(target))
    assert target.read_bytes() == b"old content\n"
    assert _user_visible(str(tmp_path)) == ["dump.txt"]
    leftovers = [name for name in os.listdir(tmp_path) if atomic_write.is_leftover(name)]
    assert all(name.startswith(".dump.txt.") for name in leftovers)  # hidden, marked, named after its target


def test_kill_in_the_middle_of_a_slow_write_leaves_the_old_file(tmp_path):
    target = tmp_path / "model.prototxt"
    target.write_text('name: "old"\n')
    code = ("import sys, time\nfrom nnie_lsp.core import atomic_write\n"
            "with atomic_write.replacing(sys.argv[1]) as out:\n"
            "    out.write(b'name: \"new\"\\n' * 100000)\n"
            "    out.flush()\n"
            "    print('STALLED', flush=True)\n"
            "    time.sleep(120)\n"
            "    out.write(b'layer { }\\n')\n")
    _kill_when_stalled(code, str(target))
    assert target.read_text() == 'name: "old"\n'
    assert _user_visible(str(tmp_path)) == ["model.prototxt"]
    found = discover_inputs([str(tmp_path)])
    assert found.files == [str(target)]  # a leftover is never linted as a prototxt


def test_fix_killed_before_the_rename_keeps_the_users_files(tmp_path):
    project = tmp_path / "project"
    shutil.copytree(EXAMPLE, project)
    before = {p.name: p.read_bytes() for p in project.iterdir() if p.is_file()}
    code = STALL_AT_FSYNC + "from nnie_lsp.cli.lint import main\nmain(['project', '--fix'])\n"
    _kill_when_stalled(code, cwd=str(tmp_path))
    assert {p.name: p.read_bytes() for p in project.iterdir() if p.is_file() and not atomic_write.is_leftover(p.name)} \
        == before
    # the same run, not killed, fixes them (the fixes exist: the kill above really interrupted a write)
    done = subprocess.run([sys.executable, "-m", "nnie_lsp.cli.lint", "project", "--fix", "--exit-zero"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": ROOT})
    assert done.returncode == 0, done.stderr
    after = {p.name: p.read_bytes() for p in project.iterdir() if p.is_file() and not atomic_write.is_leftover(p.name)}
    assert set(after) == set(before) and after != before


def test_store_killed_mid_save_keeps_the_previous_record(tmp_path):
    from nnie_lsp.triage import store

    cfg = tmp_path / "net.cfg"
    cfg.write_text("[prototxt_file] ./net.prototxt\n")
    record = store.new_record(str(cfg), {"schema_version": 2, "case": 1}, cfg=str(cfg), prototxt=None, inputs={})
    paths = store.save(record)
    old = open(paths.json, "rb").read()
    code = STALL_AT_FSYNC + (
        "from nnie_lsp.triage import store\n"
        "record = store.load(sys.argv[1])\n"
        "record.result = {'schema_version': 2, 'case': 2, 'pad': 'x' * (8 << 20)}\n"
        "store.save(record)\n")
    _kill_when_stalled(code, paths.json)
    assert open(paths.json, "rb").read() == old
    assert store.load(paths.json).result["case"] == 1
    assert _user_visible(os.path.dirname(paths.json)) == [os.path.basename(paths.json)]


def test_bundle_killed_mid_write_keeps_the_old_bundle(tmp_path):
    ref, sim = tmp_path / "ref", tmp_path / "sim"
    ref.mkdir()
    sim.mkdir()
    (ref / "conv1_output0_1_8_8_caffe.linear.float").write_text("1.0\n" * 64)
    out = tmp_path / "conv1_bundle.zip"
    out.write_bytes(b"an older bundle")
    code = STALL_AT_FSYNC + ("from nnie_lsp.triage.report.bundle import make_bundle\n"
                             "make_bundle(sys.argv[1], layer='conv1', reference=sys.argv[2], sim=sys.argv[3])\n")
    _kill_when_stalled(code, str(out), str(ref), str(sim))
    assert out.read_bytes() == b"an older bundle"
    assert _user_visible(str(tmp_path)) == ["conv1_bundle.zip", "ref", "sim"]


# ------------------------------------------------------------------ what a write keeps


def test_fix_keeps_mode_and_link(tmp_path):
    real = tmp_path / "shared" / "net.cfg"
    real.parent.mkdir()
    real.write_bytes("[image_type] 1\r\n".encode("gb18030"))
    os.chmod(real, 0o640)
    link = tmp_path / "net.cfg"
    link.symlink_to(real)
    decoded = decode(real.read_bytes())
    write_atomic(str(link), "# 注释\r\n[image_type] 1\r\n", decoded)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_bytes() == "# 注释\r\n[image_type] 1\r\n".encode(decoded.encoding)
    assert stat.S_IMODE(os.stat(real).st_mode) == 0o640
    assert sorted(os.listdir(real.parent)) == ["net.cfg"]


def test_a_new_file_gets_the_umask_mode(tmp_path):
    old = os.umask(0o027)
    try:
        atomic_write.write_bytes(str(tmp_path / "new.txt"), b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "new.txt").st_mode) == 0o640


def test_an_error_while_writing_leaves_nothing(tmp_path):
    target = tmp_path / "a.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_write.replacing(str(target)) as out:
            out.write(b"half")
            raise RuntimeError("disk full")
    assert target.read_text() == "old" and os.listdir(tmp_path) == ["a.txt"]


# ------------------------------------------------------------------ never outside the requested folder


def test_outputs_replace_a_link_instead_of_writing_where_it_points(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("not yours")
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "report.json").symlink_to(outside)
    atomic_write.write_bytes(str(folder / "report.json"), b"{}", follow_symlinks=False)
    assert outside.read_text() == "not yours"
    assert not (folder / "report.json").is_symlink() and (folder / "report.json").read_bytes() == b"{}"


def test_store_refuses_a_linked_store_folder_and_links_inside_it(tmp_path):
    from nnie_lsp.triage import store
    from nnie_lsp.triage.inputs.folder_names import TRIAGE_STORE_DIR

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    cfg = project / "net.cfg"
    cfg.write_text("[prototxt_file] ./net.prototxt\n")
    (project / TRIAGE_STORE_DIR).symlink_to(elsewhere, target_is_directory=True)
    record = store.new_record(str(cfg), {"schema_version": 2}, cfg=str(cfg), prototxt=None, inputs={})
    with pytest.raises(store.StoreError, match="symbolic link"):
        store.save(record, text="report")
    assert os.listdir(elsewhere) == []
    (project / TRIAGE_STORE_DIR).unlink()
    (project / TRIAGE_STORE_DIR).mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    (project / TRIAGE_STORE_DIR / "net.txt").symlink_to(victim)
    store.save(record, text="report")
    assert victim.read_text() == "keep" and (project / TRIAGE_STORE_DIR / "net.txt").read_text() == "report"


def test_bundle_members_stay_inside_the_bundle(tmp_path):
    from nnie_lsp.triage.report.bundle import make_bundle, safe_member_name

    assert safe_member_name("layer/../../etc/passwd") == "layer/__/__/etc/passwd"
    assert safe_member_name("/abs/x") == "abs/x" and safe_member_name("C:\\x\\..\\y") == "C_/x/__/y"
    ref, sim = tmp_path / "ref", tmp_path / "sim"
    ref.mkdir()
    sim.mkdir()
    proto = tmp_path / "net.prototxt"
    proto.write_text('input: "data"\nlayer { name: "../../evil" type: "ReLU" bottom: "data" top: "../../evil" }\n')
    out = tmp_path / "b.zip"
    make_bundle(str(out), layer="../../evil", reference=str(ref), sim=str(sim), prototxt=str(proto))
    with zipfile.ZipFile(out) as bundle:
        names = bundle.namelist()
    assert names and all(".." not in name.split("/") and not name.startswith("/") for name in names), names
    extract = tmp_path / "x" / "y"
    extract.mkdir(parents=True)
    with zipfile.ZipFile(out) as bundle:
        bundle.extractall(extract)
    assert sorted(os.listdir(tmp_path / "x")) == ["y"]

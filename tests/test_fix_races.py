"""Fixes are compare-and-swap: a fix is written only onto the exact text it was computed for.

A writer thread stands for the user's editor saving the file while ``nnie-lint --fix`` runs: between
the lint and the write, inside the write (after the new content is on disk, before the rename),
during the lint of a 6 MB prototxt, and at random moments.  The user's edit is never lost, a file
never holds a mix of two texts, the run reports only the fixes it wrote, and the findings printed
after a file was left alone are those of the text on disk.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import stat
import threading

import pytest

from nnie_lsp.core import atomic_write, safe_io
from nnie_lsp.cli.lint import main
from nnie_lsp.lint.fix_writes import write_texts
from nnie_lsp.lint import lint

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "project")

NET = """name: "n"
input: "data"
input_dim: 1
input_dim: 3
input_dim: 32
input_dim: 32
layer { name: "conv" type: "Convolution" bottom: "data" top: "conv"
  convolution_param { num_output: 8 kernel_size: 3 } }
layer { name: "cat" type: "Concat" bottom: "conv" bottom: "conv" top: "cat" }
layer { name: "relu" type: "ReLU" bottom: "cat" top: "cat" }
layer { name: "out" type: "Convolution" bottom: "cat" top: "out"
  convolution_param { num_output: 2 kernel_size: 1 } }
"""

USER_EDIT = NET.replace("input_dim: 32\ninput_dim: 32", "input_dim: 64\ninput_dim: 48")


def _run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _fixed(text: str, path: str) -> str:
    """What --fix makes of `text` (in memory, on a copy)."""
    folder = os.path.dirname(path)
    copy = os.path.join(folder, ".copy_" + os.path.basename(path))
    with open(copy, "w") as fh:
        fh.write(text)
    try:
        run = lint([copy], fix=True)
        return run.fixed[os.path.abspath(copy)][1] if os.path.abspath(copy) in run.fixed else text
    finally:
        os.unlink(copy)


class _EditorWrites:
    """Replace ``atomic_write.write_bytes`` so that, before the real call (``when="before"``) or
    inside it after the new content is flushed (``when="inside"``: os.fsync), a writer thread
    saves ``texts[k]`` into the file on call k (None: nothing that time)."""

    def __init__(self, monkeypatch, path: str, texts: list[str | None], when: str = "before") -> None:
        self.path, self.texts, self.calls = path, list(texts), 0
        real_write, real_fsync = atomic_write.write_bytes, os.fsync
        editor = self

        def user_saves() -> None:
            text = editor.texts[editor.calls] if editor.calls < len(editor.texts) else None
            editor.calls += 1
            if text is None:
                return
            thread = threading.Thread(target=lambda: open(editor.path, "w").write(text))
            thread.start()
            thread.join()

        if when == "before":
            def write_bytes(path, data, **kw):
                if os.path.abspath(path) == editor.path:
                    user_saves()
                return real_write(path, data, **kw)
            monkeypatch.setattr(atomic_write, "write_bytes", write_bytes)
        else:
            target = {"armed": False}

            def write_bytes(path, data, **kw):
                target["armed"] = os.path.abspath(path) == editor.path
                return real_write(path, data, **kw)

            def fsync(fd):
                real_fsync(fd)
                if target["armed"]:
                    target["armed"] = False
                    user_saves()
            monkeypatch.setattr(atomic_write, "write_bytes", write_bytes)
            monkeypatch.setattr(os, "fsync", fsync)


@pytest.fixture
def net(tmp_path):
    path = tmp_path / "net.prototxt"
    path.write_text(NET)
    return str(path)


@pytest.mark.parametrize("when", ["before", "inside"])
def test_a_save_between_lint_and_replace_is_kept_and_fixed_again(net, capsys, monkeypatch, when):
    _EditorWrites(monkeypatch, net, [USER_EDIT], when)
    code, out, err = _run(capsys, net, "--fix", "--no-color")
    text = open(net).read()
    assert "input_dim" not in text and "dim: 64" in text and "dim: 48" in text   # the edit, fixed
    assert text == _fixed(USER_EDIT, net)
    assert "changed on disk since it was read: linted it again and wrote the fixes onto the new text" in err
    assert code in (0, 1)
    assert not [n for n in os.listdir(os.path.dirname(net)) if atomic_write.is_leftover(n)]


@pytest.mark.parametrize("when", ["before", "inside"])
def test_a_file_that_keeps_changing_is_left_as_the_user_wrote_it(net, capsys, monkeypatch, when):
    second = USER_EDIT.replace('name: "n"', 'name: "n2"')
    _EditorWrites(monkeypatch, net, [USER_EDIT, second], when)
    code, out, err = _run(capsys, net, "--fix", "--no-color")
    assert open(net).read() == second                     # exactly the user's last text
    assert code == 2
    assert "changed on disk since it was read, twice: left as it is" in err
    assert "fixed" not in err.splitlines()[-1]             # nothing was written: nothing reported fixed
    # the findings printed are those of the text on disk (NN016 at its input_dim line, still fixable)
    assert re.search(r"net\.prototxt:3:1: NN016 \[\*\]", out), out


def test_unsafe_fixes_are_compare_and_swap_too(net, capsys, monkeypatch):
    second = USER_EDIT + "# saved again\n"
    _EditorWrites(monkeypatch, net, [USER_EDIT, second])
    code, _out, err = _run(capsys, net, "--fix", "--unsafe-fixes", "--no-color")
    assert open(net).read() == second and code == 2


def test_save_during_the_lint_of_a_six_megabyte_prototxt(tmp_path, capsys, monkeypatch):
    """The issue's case: the user's editor rewrites the input_dim lines while --fix lints."""
    layers = "".join(f'layer {{ name: "r{i}" type: "ReLU" bottom: "data" top: "r{i}" }}\n' for i in range(80000))
    original = NET + layers
    assert len(original) > 5_000_000
    path = tmp_path / "net.prototxt"
    path.write_text(original)
    edited = USER_EDIT + layers
    read = threading.Event()
    real_read = safe_io.read_bytes

    def read_bytes(p, kind=None, **kw):
        data = real_read(p, kind, **kw)
        if os.path.abspath(p) == str(path) and not read.is_set():
            read.set()
        return data
    monkeypatch.setattr(safe_io, "read_bytes", read_bytes)
    saved = threading.Event()

    def editor():
        read.wait(60)
        path.write_text(edited)   # in place, as some editors save
        saved.set()
    thread = threading.Thread(target=editor)
    thread.start()
    code, _out, err = _run(capsys, str(path), "--fix", "--no-color", "--quiet")
    thread.join()
    assert saved.is_set()
    text = path.read_text()
    assert "}6" not in text and "dim: 64" in text and "dim: 48" in text and "input_dim" not in text
    assert text.endswith(layers) and text.count("layer {") == original.count("layer {")
    assert "changed on disk since it was read" in err


def test_read_only_files_are_left_and_the_findings_are_those_on_disk(tmp_path, capsys):
    project = tmp_path / "project"
    shutil.copytree(EXAMPLE, project)
    before = {p.name: p.read_bytes() for p in project.iterdir() if p.is_file()}
    for name in ("model.prototxt", "tiny_face_inst.cfg"):
        os.chmod(project / name, 0o444)
    _c, plain, _e = _run(capsys, str(project), "--no-color")
    code, out, err = _run(capsys, str(project), "--fix", "--no-color")
    assert {p.name: p.read_bytes() for p in project.iterdir() if p.is_file()} == before
    assert code == 2
    assert "cannot write the fixes to" in err and "the file is read-only" in err
    assert out == plain                         # NN304 at 159:9, NN016/301/302/106 all still there
    assert "159:9: NN304" in out and all(c in out for c in ("NN016", "NN301", "NN302", "NN106"))
    assert "fixed" not in err


def test_a_fix_over_two_files_is_never_half_written(tmp_path):
    a, b = tmp_path / "a.cfg", tmp_path / "b.txt"
    a.write_text("old a\n")
    b.write_text("old b\n")
    texts = {str(a): ("old a\n", "new a\n"), str(b): ("old b\n", "new b\n")}
    digests = {str(a): atomic_write.digest(b"old a\n"), str(b): atomic_write.digest(b"old b\n")}
    both = [frozenset(texts)]
    b.write_text("the user's b\n")    # b changed since it was read
    report = write_texts(texts, {}, digests, both)
    assert a.read_text() == "old a\n" and b.read_text() == "the user's b\n"
    assert report.changed == {str(b): "changed"} and report.held == {str(a): str(b)} and report.fixes_written == 0
    # b fails after a was written (read-only by then): a is put back
    b.write_text("old b\n")
    real = atomic_write.write_bytes

    def failing(path, data, **kw):
        if path == str(b):
            raise PermissionError(13, "Permission denied", path)
        return real(path, data, **kw)
    atomic_write.write_bytes = failing
    try:
        report = write_texts(texts, {}, digests, both)
    finally:
        atomic_write.write_bytes = real
    assert a.read_text() == "old a\n" and b.read_text() == "old b\n"
    assert report.written == [] and report.fixes_written == 0 and str(a) in report.held
    # unrelated files are written on their own
    report = write_texts(texts, {}, digests, [frozenset([str(a)]), frozenset([str(b)])])
    assert a.read_text() == "new a\n" and report.fixes_written == 2


def test_a_file_a_fix_creates_is_never_written_over_one_that_appeared(tmp_path):
    mean = tmp_path / "mean.txt"
    texts = {str(mean): ("", "1\n2\n3\n")}
    digests = {str(mean): atomic_write.ABSENT}
    mean.write_text("the user's mean\n")
    report = write_texts(texts, {}, digests, [frozenset(texts)])
    assert mean.read_text() == "the user's mean\n" and report.changed == {str(mean): "appeared"}
    mean.unlink()
    report = write_texts(texts, {}, digests, [frozenset(texts)])
    assert mean.read_text() == "1\n2\n3\n" and report.written == [str(mean)]


def test_expect_is_checked_at_the_replace(tmp_path):
    target = tmp_path / "x.prototxt"
    target.write_bytes(b"one")
    with pytest.raises(atomic_write.ContentChanged):
        with atomic_write.replacing(str(target), expect=atomic_write.digest(b"one")) as out:
            out.write(b"two")
            target.write_bytes(b"the user's")
    assert target.read_bytes() == b"the user's" and os.listdir(tmp_path) == ["x.prototxt"]
    atomic_write.write_bytes(str(target), b"two", expect=atomic_write.digest(b"the user's"))
    assert target.read_bytes() == b"two"


@pytest.mark.parametrize("seed", range(6))
def test_random_saves_never_mix_two_texts(tmp_path, capsys, seed):
    """Fuzz: an editor saving one of several texts at random moments while --fix runs, over and
    over; after each run the file is one of the texts the editor wrote, or that text fixed."""
    rng = random.Random(seed)
    path = tmp_path / "net.prototxt"
    versions = [NET.replace("input_dim: 32\ninput_dim: 32", f"input_dim: {h}\ninput_dim: {w}")
                for h, w in ((32, 32), (64, 48), (16, 16), (128, 96))]
    allowed = set(versions) | {_fixed(v, str(path)) for v in versions}
    for _ in range(4):
        path.write_text(rng.choice(versions))
        stop = threading.Event()

        def editor():
            while not stop.is_set():
                stop.wait(rng.uniform(0.0, 0.02))
                text = rng.choice(versions)
                tmp = str(path) + ".editor"
                with open(tmp, "w") as fh:
                    fh.write(text)
                os.replace(tmp, path)    # editors save by rename too
        thread = threading.Thread(target=editor)
        thread.start()
        try:
            code, _out, _err = _run(capsys, str(path), "--fix", "--quiet")
        finally:
            stop.set()
            thread.join()
        assert code in (0, 1, 2)
        assert path.read_text() in allowed
        assert stat.S_ISREG(os.stat(path).st_mode)


def test_the_triage_fix_applier_writes_only_onto_the_run_s_text(tmp_path):
    """apply_fixes: the fixes a triage run's findings carry are written onto the text the run read;
    a cfg the user changed since is left (and the mean file a fix writes with it is not created)."""
    from nnie_lsp.core.diagnostics import Applicability, FileEdit, Fix
    from nnie_lsp.lint.fix_writes import apply_fixes
    from nnie_lsp.core.text import Position, Range, TextEdit

    cfg, mean = tmp_path / "net.cfg", tmp_path / "mean.txt"
    run_text = "[norm_type] 3\n[RGB_order] BGR\n"
    cfg.write_text(run_text)
    rgb = TextEdit(Range(Position(1, 12), Position(1, 15)), "RGB")
    norm = TextEdit(Range(Position(0, 12), Position(0, 13)), "5")
    create = TextEdit(Range.point(0, 0), "104\n117\n123\n")
    both = Fix("norm_type 5 with a channel-mean file", Applicability.UNSAFE,
               (FileEdit(str(cfg), norm), FileEdit(str(mean), create)))
    alone = Fix("RGB", Applicability.UNSAFE, (FileEdit(str(cfg), rgb),))
    cfg.write_text("# the user's line\n" + run_text)   # edited since the run
    report = apply_fixes([both], texts={str(cfg): run_text})
    assert cfg.read_text() == "# the user's line\n" + run_text and not mean.exists()
    assert report.changed == {str(cfg): "changed"} and report.held == {str(mean): str(cfg)}
    cfg.write_text(run_text)
    report = apply_fixes([both, alone], texts={str(cfg): run_text})
    assert cfg.read_text() == "[norm_type] 5\n[RGB_order] RGB\n" and mean.read_text() == "104\n117\n123\n"
    assert report.fixes_written == 2 and not report.not_written

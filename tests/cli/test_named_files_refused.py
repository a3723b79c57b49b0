"""A file named on nnie-lint's command line is linted or is an error (exit 2), never skipped:
a pre-commit hook must not pass a cfg it could not read."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def _run(*args, cwd):
    return subprocess.run([sys.executable, "-m", "nnie_lsp.cli.lint", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True)


@pytest.mark.parametrize("name,data,says", [
    ("u16.cfg", "[prototxt_file] ./a.prototxt\n[net_type] 0\n".encode("utf-16"), "UTF-16 text"),
    ("u16_nobom.cfg", "[prototxt_file] ./a.prototxt\n[net_type] 0\n".encode("utf-16-le"), "UTF-16 text"),
    ("bin.cfg", bytes(range(256)) * 2, "binary data under a .cfg name"),
    ("big.prototxt", b'name: "x"\n' + b'layer { name: "a" type: "ReLU" }\n' * 300000, "more than"),
])
def test_a_named_file_that_cannot_be_linted_is_an_error(name, data, says, tmp_path):
    (tmp_path / name).write_bytes(data)
    r = _run(name, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert f"nnie-lint: error: {name}: could not be linted" in r.stderr and says in r.stderr
    assert "no NNIE cfg or prototxt files found" not in r.stderr


def test_the_other_files_are_still_linted_and_the_run_is_an_error(tmp_path):
    (tmp_path / "u16.cfg").write_bytes("[prototxt_file] ./a.prototxt\n".encode("utf-16"))
    (tmp_path / "net.prototxt").write_text('input: "data"\ninput_dim: 1\ninput_dim: 3\ninput_dim: 8\ninput_dim: 8\n',
                                           encoding="utf-8")
    r = _run("u16.cfg", "net.prototxt", "--format", "json", cwd=tmp_path)
    assert r.returncode == 2 and '"NN016"' in r.stdout, (r.returncode, r.stdout, r.stderr)


def test_a_non_mapper_cfg_and_a_folder_stay_as_they_were(tmp_path):
    (tmp_path / "setup.cfg").write_text("[metadata]\nname = x\n", encoding="utf-8")
    assert _run("setup.cfg", cwd=tmp_path).returncode == 0           # pre-commit passes it: not ours
    sub = tmp_path / "proj"
    sub.mkdir()
    (sub / "bin.cfg").write_bytes(bytes(range(256)))
    r = _run("proj", cwd=tmp_path)
    assert r.returncode == 0 and "could not be linted" not in r.stderr   # a folder's file was not named

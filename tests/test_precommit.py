"""The pre-commit hook works through `pre-commit try-repo` on a repository with NNIE files."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"})


def test_try_repo(tmp_path):
    pre_commit = Path(sys.executable).with_name("pre-commit")
    if not pre_commit.exists() or shutil.which("git") is None:
        pytest.skip("pre-commit or git not installed")
    repo = tmp_path / "user-repo"
    shutil.copytree(ROOT / "examples" / "project", repo)
    (repo / "setup.cfg").write_text("[metadata]\nname = demo\n")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pc-home"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    p = subprocess.run([str(pre_commit), "try-repo", str(ROOT), "nnie-lint", "--all-files"],
                       cwd=repo, capture_output=True, text=True, env=env, timeout=600)
    out = p.stdout + p.stderr
    assert p.returncode == 1, out
    assert "model.prototxt:174:9: NN301" in out
    assert "tiny_face_inst.cfg" in out and "NN108" in out
    assert "setup.cfg:" not in out
    # a commit that changes only the cfg: the hook gets the cfg alone, and the cfg stands for its
    # project -- the prototxt's findings are shown too (issue 18)
    p = subprocess.run([str(pre_commit), "try-repo", str(ROOT), "nnie-lint", "--files", "tiny_face_inst.cfg"],
                       cwd=repo, capture_output=True, text=True, env=env, timeout=600)
    out = p.stdout + p.stderr
    assert p.returncode == 1, out
    assert "model.prototxt:174:9: NN301" in out and "tiny_face_inst.cfg" in out

"""The pre-commit hook works through `pre-commit try-repo` on a repository with NNIE files."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def pc_home(tmp_path_factory) -> str:
    """One pre-commit home for the module: the hook's environment is built once (the first install
    is what a user waits for once; the README's install page gives its time)."""
    return str(tmp_path_factory.mktemp("pc-home"))


def _git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"})


def test_try_repo(tmp_path, pc_home):
    pre_commit = Path(sys.executable).with_name("pre-commit")
    if not pre_commit.exists() or shutil.which("git") is None:
        pytest.skip("pre-commit or git not installed")
    repo = tmp_path / "user-repo"
    shutil.copytree(ROOT / "examples" / "project", repo)
    (repo / "setup.cfg").write_text("[metadata]\nname = demo\n")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    env = {**os.environ, "PRE_COMMIT_HOME": pc_home, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
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


def test_the_hook_fits_where_it_runs(tmp_path, pc_home):
    """The plain hook's environment has no onnx, and the repository commits neither the caffemodel
    nor the images: a project that is fine passes, with info findings saying what was not checked
    and how to check it (the hook id with the extra; where the files are)."""
    pre_commit = Path(sys.executable).with_name("pre-commit")
    if not pre_commit.exists() or shutil.which("git") is None:
        pytest.skip("pre-commit or git not installed")
    repo = tmp_path / "user-repo"
    repo.mkdir()
    for name in ("det1.cfg", "det1.prototxt", "det1.onnx", "det1_mean.txt"):
        shutil.copy(ROOT / "examples" / "conversion" / name, repo / name)
    (repo / "images.txt").write_text("images/test1.jpg\n")
    (repo / ".gitignore").write_text("*.caffemodel\nimages/\n")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    env = {**os.environ, "PRE_COMMIT_HOME": pc_home, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    p = subprocess.run([str(pre_commit), "try-repo", str(ROOT), "nnie-lint", "--all-files", "--verbose"],
                       cwd=repo, capture_output=True, text=True, env=env, timeout=600)
    out = p.stdout + p.stderr
    assert p.returncode == 0, out
    assert "det1.prototxt:1:1: NN500 the conversion checks (NN5xx) did not run" in out
    assert "use the hook id nnie-lint-onnx" in out
    assert "det1.cfg:2:19: NN006 [caffemodel_file] ./det1.caffemodel is not in this checkout: Git ignores it" in out
    assert "1 of 1 images listed in images.txt are not in this checkout" in out
    assert "0 errors" not in out and "1 error" not in out


def test_the_onnx_hook_installs_the_extra():
    """The hook ids README names install what they say: nnie-lint-onnx the [onnx] extra's packages
    (the same requirements as pyproject.toml), the others the base package only."""
    import tomllib

    from nnie_lsp.core.extras import HOOKS

    hooks = _manifest()
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for extra, hook in HOOKS.items():
        assert hooks[hook]["additional_dependencies"] == extras[extra], hook
        assert hooks[hook]["entry"] == hooks["nnie-lint"]["entry"] and hooks[hook]["files"] == hooks["nnie-lint"]["files"]
    assert "additional_dependencies" not in hooks["nnie-lint"] and "additional_dependencies" not in hooks["nnie-lint-fix"]
    readme = (ROOT / "README.md").read_text()
    for hook in hooks:
        assert f"id: {hook}" in readme or f"`{hook}`" in readme, hook


def _manifest() -> dict[str, dict]:
    """.pre-commit-hooks.yaml as hook id -> its keys (PyYAML comes with pre-commit)."""
    yaml = pytest.importorskip("yaml")
    return {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}

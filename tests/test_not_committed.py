"""Files a repository does not commit are told apart from wrong paths: a missing caffemodel or
image that Git ignores, a caffemodel / mean file kept in Git LFS whose content was not fetched,
are info findings saying so; a missing file Git does not ignore stays an error.  And a missing
onnx package is info with how to get it (in a pre-commit hook: which hook id installs it)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from nnie_lsp.project import repository
from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.lint import lint

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "project")
LFS_POINTER = (b"version https://git-lfs.github.com/spec/v1\n"
               b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n")

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _repo(tmp_path, gitignore: str):
    dest = tmp_path / "repo"
    shutil.copytree(EXAMPLE, dest)
    subprocess.run(["git", "init", "-q", str(dest)], check=True)
    (dest / ".gitignore").write_text(gitignore)
    return dest


def _nn006(folder):
    return [(d.severity, d.message) for d in lint([str(folder)]).diagnostics if d.code == "NN006"]


def test_ignored_files_are_not_in_the_checkout_and_wrong_paths_stay_errors(tmp_path):
    repo = _repo(tmp_path, "*.caffemodel\nimages/street_002.jpg\n")
    (repo / "model.caffemodel").unlink()
    found = _nn006(repo)
    assert (Severity.INFO, "[caffemodel_file] ./model.caffemodel is not in this checkout: Git ignores it "
            "(.gitignore:1: *.caffemodel), so it is not a wrong path; it is checked where the file is") in found
    assert (Severity.INFO, "1 of 2 images listed in images.txt are not in this checkout: Git ignores them "
            "(.gitignore:2: images/street_002.jpg; first: line 2: images/street_002.jpg); they are checked "
            "where the images are") in found
    assert len(found) == 2
    # the same files missing, not ignored: wrong paths, errors as before
    (repo / ".gitignore").write_text("")
    errors = _nn006(repo)
    assert [s for s, _m in errors] == [Severity.ERROR, Severity.ERROR]
    assert "file not found: ./model.caffemodel" in errors[0][1]
    # a negated rule un-ignores: an error again
    (repo / ".gitignore").write_text("*.caffemodel\n!model.caffemodel\n")
    assert any(s == Severity.ERROR and "file not found: ./model.caffemodel" in m for s, m in _nn006(repo))


def test_outside_a_repository_nothing_is_ignored(tmp_path):
    dest = tmp_path / "plain"
    shutil.copytree(EXAMPLE, dest)
    (dest / "model.caffemodel").unlink()
    (dest / ".gitignore").write_text("*.caffemodel\n")   # not a repository: the file means nothing
    if repository.work_tree(str(dest / "x")) is not None:
        pytest.skip("the temporary folder is inside a Git work tree")
    assert all(s == Severity.ERROR for s, _m in _nn006(dest))


def test_lfs_pointers_are_not_the_file(tmp_path):
    repo = _repo(tmp_path, "")
    (repo / "model.caffemodel").write_bytes(LFS_POINTER)
    assert repository.is_lfs_pointer(str(repo / "model.caffemodel"))
    assert not repository.is_lfs_pointer(str(repo / "model.prototxt"))
    found = _nn006(repo)
    assert (Severity.INFO, "[caffemodel_file] ./model.caffemodel is a Git LFS pointer, not the file (its content "
            "was not fetched): not checked here; `git lfs pull` fetches it") in found
    # a mean file in LFS is not read as numbers (no finding about its "values")
    cfg = (repo / "tiny_face_inst.cfg").read_text().replace("[norm_type] 3", "[norm_type] 5")
    (repo / "tiny_face_inst.cfg").write_text(cfg)
    (repo / "mean.txt").write_bytes(LFS_POINTER)
    run = lint([str(repo)])
    mean_findings = [d for d in run.diagnostics if "mean" in d.message.lower() and d.code != "NN006"]
    assert not [d for d in mean_findings if "not a channel-mean" in d.message or "number" in d.message]
    assert any(d.code == "NN006" and "mean.txt is a Git LFS pointer" in d.message for d in run.diagnostics)


def test_a_missing_onnx_package_is_info_and_names_the_hook_in_pre_commit(tmp_path, monkeypatch):
    pytest.importorskip("onnx")   # made missing below, for the lint only
    folder = tmp_path / "conv"
    folder.mkdir()
    for name in ("det1.prototxt", "det1.onnx"):
        shutil.copy(os.path.join(ROOT, "examples", "conversion", name), folder / name)
    from nnie_lsp.conversion import analysis, onnx_graph

    def unavailable(_path):
        raise onnx_graph.OnnxUnavailable("no onnx")
    monkeypatch.setattr(onnx_graph, "cached_onnx", unavailable)
    monkeypatch.setattr(analysis, "_CACHE", {})
    run = lint([str(folder / "det1.prototxt")])
    nn500 = [d for d in run.diagnostics if d.code == "NN500"]
    assert len(nn500) == 1 and nn500[0].severity == Severity.INFO
    assert "pip install" in nn500[0].message
    monkeypatch.setenv("PRE_COMMIT", "1")
    monkeypatch.setattr(analysis, "_CACHE", {})
    nn500 = [d for d in lint([str(folder / "det1.prototxt")]).diagnostics if d.code == "NN500"]
    assert nn500[0].severity == Severity.INFO
    assert "the pre-commit hook's environment does not have" in nn500[0].message
    assert "use the hook id nnie-lint-onnx" in nn500[0].message and "pip install" not in nn500[0].message

"""Expected outcomes in process: the remedy for a missing optional package fits the interpreter
(nnie_lsp/core/extras.py), the requirement strings are pyproject's, pygls' traceback records of
expected outcomes are dropped (nnie_lsp/server/protocol.py), and the workspace scan is bounded
(nnie_lsp/server/workspace_lint.py)."""

from __future__ import annotations

import logging
import shutil
import sys
from pathlib import Path

from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams, JsonRpcRequestCancelled

from nnie_lsp.core import extras
from nnie_lsp.server.protocol import ExpectedOutcomes, is_expected
from nnie_lsp.server.workspace_lint import scan

REPO = Path(__file__).resolve().parents[2]
if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def python(**kw) -> extras.Interpreter:
    values = {"executable": "/v/bin/python", "has_pip": True, "has_ensurepip": True, "externally_managed": False,
              "in_venv": True, "debian": False}
    return extras.Interpreter(**{**values, **kw})


def test_the_requirements_are_pyprojects_extras():
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for extra in extras.OPTIONAL.values():
        assert extra.requirement in declared[extra.extra], extra
        assert extras.requirement(extra) == extra.requirement


def test_the_remedy_fits_the_interpreter():
    cv2 = extras.OPTIONAL["cv2"]
    pip = extras.remedy(cv2, python())
    assert pip.command == '/v/bin/python -m pip install "opencv-python-headless>=4.8,<5"'
    assert pip.text.startswith("Install it into that Python, then run the command again: /v/bin/python -m pip")
    assert '"reference" extra' in pip.text
    no_pip = extras.remedy(cv2, python(has_pip=False))            # a venv made --without-pip
    assert no_pip.command.startswith("/v/bin/python -m ensurepip --upgrade && /v/bin/python -m pip install")
    system = extras.remedy(cv2, python(executable="/usr/bin/python3", externally_managed=True, in_venv=False,
                                       debian=True, has_ensurepip=False))
    assert system.command == "sudo apt install python3-opencv"
    assert "PEP 668" in system.text and "venv" not in system.text   # no venv without ensurepip
    managed = extras.remedy(cv2, python(executable="/opt/py/bin/python3", externally_managed=True, in_venv=False))
    assert managed.command.startswith("/opt/py/bin/python3 -m venv ~/.venvs/nnie && ~/.venvs/nnie/bin/python -m pip")
    assert "set nnie.interpreter to ~/.venvs/nnie/bin/python" in managed.text
    bare = extras.remedy(cv2, python(has_pip=False, has_ensurepip=False, in_venv=False))
    assert bare.command is None and "has no pip" in bare.text and "nnie.interpreter" in bare.text
    spaced = extras.remedy(extras.OPTIONAL["onnx"], python(executable="/my envs/bin/python"))
    assert spaced.command == "'/my envs/bin/python' -m pip install \"onnx>=1.16,<2\""


def test_the_message_and_its_data():
    text, data = extras.missing_message("cv2", "NNIE emulation", "en", python())
    assert text.startswith("NNIE emulation needs OpenCV (the Python module cv2), which /v/bin/python cannot import.")
    assert "internal error" not in text
    problem = "NNIE emulation needs OpenCV (the Python module cv2), which /v/bin/python cannot import."
    assert data == {"module": "cv2", "package": "OpenCV", "extra": "reference",
                    "requirement": "opencv-python-headless>=4.8,<5",
                    "command": '/v/bin/python -m pip install "opencv-python-headless>=4.8,<5"', "python": "/v/bin/python",
                    # the message without its remedy, for an editor that offers its own (an install button)
                    "problem": problem, "remedy": text[len(problem) + 1:]}
    assert text == f"{problem} {data['remedy']}"
    zh, _ = extras.missing_message("cv2", "NNIE 仿真", "zh", python())
    assert "Python 模块 cv2" in zh and extras.missing_module(zh) == "cv2"
    for line in ("nnie-triage reference: internal error: ModuleNotFoundError: No module named 'cv2' (please report it",
                 "nnie-triage emulate: error: this command needs OpenCV (the Python module cv2), which …",
                 "No module named 'onnxruntime.capi'"):
        assert extras.missing_module(line) in ("cv2", "onnxruntime"), line
    assert extras.missing_module("No module named 'numpy'") is None           # required, not optional
    assert extras.missing_optional(ModuleNotFoundError("No module named 'cv2'", name="cv2")) == "cv2"
    assert extras.missing_optional(ImportError("libGL.so.1: cannot open shared object file")) is None
    assert extras.missing_optional(ValueError("cv2")) is None


def test_the_onnx_extra_has_no_system_package_to_suggest():
    # Debian's python3-onnx is older than the extra needs and there is no python3-onnxruntime
    for module in ("onnx", "onnxruntime"):
        fix = extras.remedy(extras.OPTIONAL[module], python(executable="/usr/bin/python3", externally_managed=True,
                                                             in_venv=False, debian=True, has_ensurepip=True))
        assert "apt" not in fix.text and fix.command.startswith("/usr/bin/python3 -m venv"), fix
    assert extras.missing_module("No module named 'onnxruntime'") == "onnxruntime"


def test_pygls_tracebacks_of_expected_outcomes_are_dropped():
    keep = ExpectedOutcomes()

    def record(error: BaseException) -> logging.LogRecord:
        return logging.LogRecord("pygls.protocol.json_rpc", logging.ERROR, __file__, 1, "Exception occurred", None,
                                 (type(error), error, None))
    for error in (JsonRpcInvalidParams("bad"), JsonRpcRequestCancelled("cancelled"), JsonRpcException("failed", -32803)):
        assert is_expected(error) and not keep.filter(record(error))
    assert keep.filter(record(JsonRpcInternalError("bug"))) and keep.filter(record(KeyError("bug")))
    assert keep.filter(logging.LogRecord("x", logging.WARNING, __file__, 1, "no exception", None, None))


def test_the_workspace_scan_is_bounded(tmp_path):
    example = REPO / "examples" / "project"
    for name in ("a", "b", "node_modules/x", ".git/y", "venv/z", "build/w"):
        shutil.copytree(example, tmp_path / name, ignore=shutil.ignore_patterns("*.caffemodel", "*.py"))
    (tmp_path / "setup.cfg").write_text("[metadata]\nname = x\n")
    files, capped = scan([str(tmp_path)])
    assert [(Path(p).relative_to(tmp_path).as_posix(), kind) for p, kind in files] == [
        ("a/model.prototxt", "prototxt"), ("a/tiny_face_inst.cfg", "cfg"),
        ("b/model.prototxt", "prototxt"), ("b/tiny_face_inst.cfg", "cfg")]
    assert capped is False
    files, capped = scan([str(tmp_path)], limit=3)
    assert len(files) == 3 and capped is True


def test_the_output_state_agrees_with_what_the_tool_refuses(tmp_path):
    """nnie.checkFolder's `foreign_dumps` is exactly what `prepare_output` (the tool) refuses."""
    import pytest

    from nnie_lsp.triage.inputs.beside_cfg import output_state
    from nnie_lsp.triage.inputs.image_sets import ImageSetError, prepare_output, write_manifest

    ours = tmp_path / "ours"
    (ours / "image0_a").mkdir(parents=True)
    for rel in ("conv1_output0_1_2_2_caffe.linear.float", "image0_a/conv2_output0_1_2_2_caffe.linear.float"):
        (ours / rel).write_text("0\n")
    write_manifest(ours, {"command": "reference", "files": [str(p) for p in ours.rglob("*.float")]})
    (ours / "notes.md").write_text("mine\n")
    state = output_state(str(ours))
    assert (state.ours, state.foreign, state.to_json()["can_overwrite"]) == (2, 0, True)
    prepare_output(ours)                                   # accepted: it replaces only its own files
    assert (ours / "notes.md").exists()
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "conv1_output0_10_18_18_caffe.linear.float").write_text("0\n")
    state = output_state(str(theirs))
    assert (state.ours, state.foreign, state.to_json()["can_overwrite"]) == (0, 1, False)
    with pytest.raises(ImageSetError):
        prepare_output(theirs)
    assert output_state(str(tmp_path / "none")).to_json()["empty"] is True

"""The test data (ONNX models and their conversions) and the faces of the NN5xx check: the
conversions are faithful by value (ONNX Runtime against the numpy Caffe forward, every blob), the
injected faults really change what Caffe computes, the rule cases' binary files are current, and
`--onnx`, the `onnx` setting, the `<stem>.onnx` beside the prototxt and a missing onnx package."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from caffe_run import caffe_blobs, cosine, onnx_blobs  # noqa: E402

from nnie_lsp.lint.driver import lint_files  # noqa: E402
from nnie_lsp.project.project import load_project  # noqa: E402
from nnie_lsp.project.settings import LintSettings, load_settings, settings_from_mapping  # noqa: E402
from nnie_lsp.testing import onnx_models as m  # noqa: E402
from nnie_lsp.testing.onnx_models_convert import convert  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "onnx"


def _input(model) -> np.ndarray:
    shape = tuple(d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim)
    return np.random.default_rng(0).random(shape).astype(np.float32)


def _models():
    out = [("small", m.small_net, {}), ("small", m.small_net, {"fold_bn": True}), ("tiny_conv", m.tiny_conv, {}),
           ("tiny_fc", m.tiny_fc, {})]
    if m.mtcnn_available():
        out += [("pnet", m.pnet, {}), ("rnet", m.rnet, {})]
    return out


@pytest.mark.parametrize("name,build,options", _models(), ids=lambda v: v if isinstance(v, str) else "")
def test_faithful_conversions_agree_on_every_blob(name, build, options, tmp_path):
    model = build()
    x = _input(model)
    conv = convert(model, **options)
    ours, theirs = caffe_blobs(conv, tmp_path, x), onnx_blobs(model, x)
    # a folded BN: the Caffe conv's top holds what ONNX calls the BN's output
    pairs = {"conv1": "bn1"} if options.get("fold_bn") and name == "small" else {}
    common = [b for b in ours if pairs.get(b, b) in theirs]
    assert len(common) >= (2 if name.startswith("tiny") else 5)
    worst = min((cosine(ours[b], theirs[pairs.get(b, b)]), b) for b in common)
    assert worst[0] >= 0.9999, worst


@pytest.mark.parametrize("fault,build,options", [
    ("ceil_mode", "pnet", {}), ("pads_lost", "small", {}), ("relu6_to_relu", "small", {}),
    ("hardswish_lost", "small", {}), ("silu_lost", "small", {}), ("upsample_bilinear", "small", {}),
    ("bn_eps", "small", {}), ("bn_fold_lost", "small", {"fold_bn": True}), ("softmax_axis", "small", {}),
    ("ip_order", "rnet", {}), ("weights", "small", {}), ("dilation_lost", "small", {})])
def test_the_injected_faults_change_what_caffe_computes(fault, build, options, tmp_path):
    if build in ("pnet", "rnet") and not m.mtcnn_available():
        pytest.skip("the MTCNN models of the shared corpus are absent")
    model = {"pnet": m.pnet, "rnet": m.rnet, "small": m.small_net}[build]()
    x = _input(model) * 50   # large enough for every activation's range (ReLU6 clips at 6)
    theirs = onnx_blobs(model, x)
    try:
        ours = caffe_blobs(convert(model, fault, **options), tmp_path, x)
    except ValueError:   # the shapes no longer fit: Caffe cannot even run it
        return
    changed = [b for b in ours if b in theirs and (ours[b].shape != theirs[b].shape or np.max(
        np.abs(ours[b] - theirs[b])) > 1e-4 * max(1.0, float(np.max(np.abs(theirs[b])))))]
    assert changed, fault


def test_the_rule_cases_binary_files_are_current():
    spec = importlib.util.spec_from_file_location("build_onnx_data", DATA / "build.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    for name, data in build.files().items():
        assert (DATA / name).read_bytes() == data, f"{name} is stale: run {DATA / 'build.py'}"


def _pool_fault(tmp: Path) -> tuple[Path, Path]:
    model = m.tiny_conv()
    conv = convert(model, "ceil_mode")
    proto = tmp / "model.prototxt"
    proto.write_text(conv.prototxt, encoding="utf-8")
    (tmp / "model.caffemodel").write_bytes(conv.caffemodel)
    onnx_path = tmp / "elsewhere" / "exported.onnx"
    m.save(model, onnx_path)
    return proto, onnx_path


def test_cli_onnx_flag(tmp_path):
    proto, onnx_path = _pool_fault(tmp_path)
    run = [sys.executable, "-m", "nnie_lsp.cli.lint", str(proto), "--select", "NN5", "--no-color"]
    without = subprocess.run(run, capture_output=True, text=True, cwd=tmp_path)
    assert without.returncode == 0 and "NN503" not in without.stdout   # no ONNX model: no check
    found = subprocess.run(run + ["--onnx", str(onnx_path)], capture_output=True, text=True, cwd=tmp_path)
    assert found.returncode == 1, found.stderr
    line = next(i for i, t in enumerate(proto.read_text().splitlines(), 1) if "pooling_param" in t)
    assert f"model.prototxt:{line}:" in found.stdout and "NN503" in found.stdout and "ceil_mode 0" in found.stdout
    missing = subprocess.run(run + ["--onnx", str(tmp_path / "nope.onnx")], capture_output=True, text=True,
                             cwd=tmp_path)
    assert missing.returncode == 2 and "--onnx" in missing.stderr and "no such file" in missing.stderr


def test_setting_and_stem_discovery(tmp_path):
    proto, onnx_path = _pool_fault(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.nnie-lint]\nonnx = "elsewhere/exported.onnx"\n')
    settings = load_settings(str(proto))
    assert settings.onnx == str(onnx_path)               # relative to the pyproject.toml
    assert load_project(prototxt_path=str(proto), settings=settings).onnx_path == str(onnx_path)
    (tmp_path / "pyproject.toml").unlink()
    assert load_project(prototxt_path=str(proto), settings=LintSettings()).onnx_path is None
    m.save(m.tiny_conv(), tmp_path / "model.onnx")       # <prototxt stem>.onnx beside it: the editor's way
    assert load_project(prototxt_path=str(proto), settings=LintSettings()).onnx_path == str(tmp_path / "model.onnx")
    with pytest.raises(ValueError, match="onnx must be the path"):
        settings_from_mapping({"onnx": 3})


def test_without_the_onnx_package_the_message_says_how_to_get_it(tmp_path, monkeypatch):
    from nnie_lsp.conversion import analysis, onnx_graph

    def unavailable():
        raise onnx_graph.OnnxUnavailable("No module named 'onnx'", name="onnx")

    proto, onnx_path = _pool_fault(tmp_path)
    monkeypatch.setattr(onnx_graph, "_import_onnx", unavailable)
    monkeypatch.setattr(onnx_graph, "_CACHE", {})
    monkeypatch.setattr(analysis, "_CACHE", {})
    diags = lint_files([str(proto)], settings=settings_from_mapping({"select": ["NN5"], "onnx": str(onnx_path)})
                       ).diagnostics
    assert [d.code for d in diags] == ["NN500"]
    assert "pip install" in diags[0].message or "apt" in diags[0].message or "venv" in diags[0].message
    assert "onnx" in diags[0].message and "NN5xx" in diags[0].message


def test_an_unreadable_model_is_a_message_not_a_crash(tmp_path):
    proto, onnx_path = _pool_fault(tmp_path)
    onnx_path.write_bytes(b"\x00not an onnx model at all")
    diags = lint_files([str(proto)], settings=settings_from_mapping({"select": ["NN5"], "onnx": str(onnx_path)})
                       ).diagnostics
    assert [d.code for d in diags] == ["NN500"] and "cannot be read" in diags[0].message

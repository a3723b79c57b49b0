"""The static conversion check (NN5xx) on real and generated models: every converter fault, injected
alone, is named on the layer it is in; a faithful conversion gives no finding; the original MTCNN
Caffe files (in-place PReLUs: matched by graph structure) check clean against their ONNX export."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("onnx")

from nnie_lsp.lint.driver import lint_files  # noqa: E402
from nnie_lsp.project.settings import LintSettings, settings_from_mapping  # noqa: E402
from nnie_lsp.testing import onnx_models as m  # noqa: E402
from nnie_lsp.testing.onnx_models_convert import FAULTS, convert  # noqa: E402
from nnie_lsp.testing.shared_files import corpus_dir  # noqa: E402

needs_mtcnn = pytest.mark.skipif(not m.mtcnn_available(), reason="the MTCNN models of the shared corpus are absent")

#: fault -> (model, convert options, the code that names it)
CASES = {
    "ceil_mode": ("pnet", {}, "NN503"),
    "pads_lost": ("small", {}, "NN502"),
    "asym_pads": ("small_asym", {}, "NN502"),
    "dilation_lost": ("small", {}, "NN502"),
    "upsample_bilinear": ("small", {}, "NN504"),
    "upsample_scale": ("small", {}, "NN504"),
    "upsample_fork": ("small", {}, "NN504"),
    "relu6_to_relu": ("small", {}, "NN505"),
    "hardswish_lost": ("small", {}, "NN505"),
    "silu_lost": ("small", {}, "NN505"),
    "ip_order": ("rnet", {}, "NN507"),
    "flatten_axis": ("rnet", {}, "NN506"),
    "bn_eps": ("small", {}, "NN507"),
    "bn_fold_lost": ("small", {"fold_bn": True}, "NN507"),
    "concat_axis": ("small", {"at": "cat_h"}, "NN506"),
    "slice_axis": ("small", {}, "NN506"),
    "softmax_axis": ("small", {}, "NN506"),
    "reshape_target": ("small", {}, "NN506"),
    "weights": ("small", {}, "NN507"),
}
MTCNN = {"pnet", "rnet"}


def _model(name):
    return {"pnet": m.pnet, "rnet": m.rnet, "small": m.small_net,
            "small_asym": lambda: m.small_net(asymmetric_pads=True)}[name]()


def _lint(tmp: Path, model, conv, select=("NN5",)):
    (tmp / "net.prototxt").write_text(conv.prototxt, encoding="utf-8")
    (tmp / "net.caffemodel").write_bytes(conv.caffemodel)
    m.save(model, tmp / "net.onnx")
    return lint_files([str(tmp / "net.prototxt")],
                      settings=settings_from_mapping({"select": list(select)})).diagnostics


def test_every_fault_has_a_case():
    assert set(CASES) == set(FAULTS)


@pytest.mark.parametrize("fault", sorted(CASES))
def test_each_fault_alone_is_named_on_its_layer(fault, tmp_path):
    model_name, options, code = CASES[fault]
    if model_name in MTCNN and not m.mtcnn_available():
        pytest.skip("the MTCNN models of the shared corpus are absent")
    model = _model(model_name)
    conv = convert(model, fault, **options)
    diags = _lint(tmp_path, model, conv)
    named = [d for d in diags if d.code == code]
    assert named, (fault, [(d.code, d.message) for d in diags])
    text_lines = conv.prototxt.splitlines()
    for d in named:
        if fault.endswith("_lost") and fault in ("hardswish_lost", "silu_lost"):
            # the operator has no layer: named on the `bottom:` of the layer that reads past it
            dropped = {"hardswish_lost": "HardSwish", "silu_lost": "Mul"}[fault]
            assert f"ONNX {dropped} " in d.message and "dropped" in d.message, d.message
            assert text_lines[d.range.start.line].strip().startswith("bottom:"), text_lines[d.range.start.line]
        else:  # on the faulty layer
            assert d.range.start.line + 1 in conv.layer_lines(conv.fault_layer), (fault, d.range, d.message)
    # nothing else is blamed: no finding of another conversion code, no unmatched layer
    others = [d for d in diags if d.code not in (code, "NN501") and not (fault == "upsample_fork")]
    assert not others, [(d.code, d.message) for d in others]


@pytest.mark.parametrize("model_name,options", [("small", {}), ("small", {"fold_bn": True}),
                                                ("pnet", {}), ("rnet", {}), ("rnet", {"fold_bn": True})])
def test_a_faithful_conversion_gives_no_finding(model_name, options, tmp_path):
    if model_name in MTCNN and not m.mtcnn_available():
        pytest.skip("the MTCNN models of the shared corpus are absent")
    model = _model(model_name)
    assert _lint(tmp_path, model, convert(model, **options)) == []


@needs_mtcnn
@pytest.mark.parametrize("net,build", [("det1", lambda: m.pnet(size=12, ceil_mode=1)), ("det2", m.rnet)])
def test_the_original_caffe_files_match_their_onnx_export(net, build, tmp_path):
    """det1/det2 as their authors wrote them (in-place PReLUs, det2's InnerProduct straight on a
    4-D blob) against the ONNX a PyTorch port exports: matched by name and by structure, clean."""
    folder = corpus_dir("models") / "mtcnn"
    shutil.copy(folder / f"{net}.prototxt", tmp_path / "net.prototxt")
    shutil.copy(folder / f"{net}.caffemodel", tmp_path / "net.caffemodel")
    m.save(build(), tmp_path / "net.onnx")
    diags = lint_files([str(tmp_path / "net.prototxt")],
                       settings=settings_from_mapping({"select": ["NN5"]})).diagnostics
    assert diags == [], [d.message for d in diags]
    from nnie_lsp.conversion.matching import match
    from nnie_lsp.conversion.onnx_graph import read_onnx
    from nnie_lsp.project.project import load_project
    project = load_project(prototxt_path=str(tmp_path / "net.prototxt"), settings=LintSettings())
    matching = match(project.graph, read_onnx(str(tmp_path / "net.onnx")))
    assert not matching.unmatched
    hows = {mt.layer.type: mt.how for mt in matching.matches}
    assert hows["PReLU"] == "structure" and hows["Convolution"] == "name"


def test_an_in_place_activation_is_matched_by_structure(tmp_path):
    model = m.small_net()
    conv = convert(model)
    text = conv.prototxt.replace('bottom: "conv4"\n  top: "relu4"', 'bottom: "conv4"\n  top: "conv4"')
    text = text.replace('bottom: "relu4"', 'bottom: "conv4"')
    assert text != conv.prototxt
    (tmp_path / "net.prototxt").write_text(text, encoding="utf-8")
    (tmp_path / "net.caffemodel").write_bytes(conv.caffemodel)
    m.save(model, tmp_path / "net.onnx")
    assert lint_files([str(tmp_path / "net.prototxt")],
                      settings=settings_from_mapping({"select": ["NN5"]})).diagnostics == []
    from nnie_lsp.conversion.matching import match
    from nnie_lsp.conversion.onnx_graph import read_onnx
    from nnie_lsp.project.project import load_project
    project = load_project(prototxt_path=str(tmp_path / "net.prototxt"), settings=LintSettings())
    relu = match(project.graph, read_onnx(str(tmp_path / "net.onnx"))).of("relu4")
    assert relu is not None and relu.how == "structure" and relu.nodes[0].op == "Relu"


def test_ambiguous_structure_is_never_matched_by_position(tmp_path):
    """Two ONNX Relus read one tensor; the in-place ReLU of the Caffe net could stand for either:
    it is reported unmatched (NN501), not matched to the first one."""
    import numpy as np
    b = m._Builder("two", "x", (1, 2, 4, 4))
    m._conv(b, "c", "x", np.ones((2, 2, 1, 1), np.float32), np.zeros(2, np.float32))
    b.node("Relu", ["c"], ["r1"], "r1")
    b.node("LeakyRelu", ["c"], ["r2"], "r2", alpha=0.1)
    b.node("Add", ["r1", "r2"], ["sum"], "sum")
    b.outputs = ["sum"]
    m.save(b.model(), tmp_path / "net.onnx")
    (tmp_path / "net.prototxt").write_text(
        'input: "x"\ninput_shape { dim: 1 dim: 2 dim: 4 dim: 4 }\n'
        'layer { name: "c" type: "Convolution" bottom: "x" top: "c" convolution_param { num_output: 2 kernel_size: 1 } }\n'
        'layer { name: "r" type: "ReLU" bottom: "c" top: "c" }\n', encoding="utf-8")
    diags = lint_files([str(tmp_path / "net.prototxt")],
                       settings=settings_from_mapping({"select": ["NN501"]})).diagnostics
    assert [(d.code, d.range.start.line) for d in diags] == [("NN501", 3)], [d.message for d in diags]

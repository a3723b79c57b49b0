"""The chain ONNX → Caffe → NNIE on the layers converters write that OpenCV's Caffe importer cannot
create (Clip for ReLU6, Upsample for Resize; issue 19): the Caffe reference runs them in the numpy
forward, so every converter fault of ``onnx_models_convert.FAULTS`` that changes values on the
generated chain net is named "conversion" at its layer — T501 on that layer's line, citing the
static NN5xx finding.  A dropped operator (HardSwish, SiLU's Mul) is named at the Caffe layer that
reads past it, where the static check puts it too.  BatchNorm eps 1e-5 against 1e-3 is below any
honest threshold (README, "The conversion stage"): not named by values, named by NN5xx."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytest.importorskip("cv2")

from nnie_lsp.testing import onnx_models as m  # noqa: E402
from nnie_lsp.testing.conversion_chain import run_chain, write_project  # noqa: E402
from nnie_lsp.testing.onnx_models_convert import convert  # noqa: E402
from nnie_lsp.testing.shared_files import corpus_dir  # noqa: E402

IMAGE = corpus_dir("models") / "mtcnn" / "test1.jpg"
pytestmark = pytest.mark.skipif(not IMAGE.is_file(), reason="the shared corpus's test image is absent")

#: fault -> (the Caffe layer triage names, the static code T501 cites, convert() options)
FAULTS = {
    "pads_lost": ("conv1", "NN502", {}),
    "asym_pads": ("conv2", "NN502", {}),
    "dilation_lost": ("conv3", "NN502", {}),
    "upsample_bilinear": ("up", "NN504", {}),
    "upsample_scale": ("up", "NN504", {}),
    "upsample_fork": ("up", "NN504", {}),
    "relu6_to_relu": ("relu6", "NN505", {}),
    "hardswish_lost": ("conv3", "NN505", {}),    # dropped: conv3 reads past it
    "silu_lost": ("up", "NN505", {}),            # dropped: up reads the Sigmoid
    "bn_fold_lost": ("conv1", "NN507", {"fold_bn": True}),
    "concat_axis": ("cat_h", "NN506", {}),
    "slice_axis": ("split_w", "NN506", {}),
    "softmax_axis": ("prob", "NN506", {}),
    "reshape_target": ("reshape", "NN506", {}),  # values kept, shape changed: prob (reading it) differs
    "weights": ("conv1", "NN507", {}),
}


def _chain(tmp: Path, fault: str | None, **options) -> tuple[dict, object]:
    model = m.chain_net(asymmetric_pads=fault == "asym_pads")
    conv = convert(model, fault, **options)
    project = write_project(tmp / str(fault), model, conv, [IMAGE], transpose=False)
    return run_chain(project), conv


@pytest.mark.parametrize("fault", list(FAULTS))
def test_each_fault_is_named_conversion_at_its_layer(tmp_path, fault):
    layer, code, options = FAULTS[fault]
    doc, conv = _chain(tmp_path, fault, **options)
    assert doc["verdict"].startswith("conversion:") and doc["verdict"].endswith(f"from {layer} on"), doc["verdict"]
    assert doc["case"] is None and doc["next_step"] == 0
    t501 = [f for f in doc["findings"] if f["code"] == "T501"]
    assert len(t501) == 1 and t501[0]["layer"] == layer, t501
    assert t501[0]["line"] == conv.layer_line(layer)
    assert code in t501[0]["message"], t501[0]["message"]
    hop = doc["framework"]["layers"]
    at = next(k for k, r in enumerate(hop) if r["name"] == layer)   # network order
    before = hop[:at]
    assert before and all(r["status"] in ("ok", "missing") for r in before), [(r["blob"], r["status"]) for r in before]


def test_the_reference_of_a_net_with_clip_and_upsample_runs_in_numpy_and_agrees_with_onnx(tmp_path):
    doc, _ = _chain(tmp_path, None)
    hop = [r for r in doc["framework"]["layers"] if r["status"] != "missing"]
    # every Caffe blob but the HardSwish's inner ones (no ONNX tensor) is compared, all agree
    assert len(hop) >= 15 and all(r["status"] == "ok" for r in hop), [(r["blob"], r["status"]) for r in hop]
    assert min(r["cosine"] for r in hop) >= 0.9999
    assert doc["framework"]["first_difference"] is None and "T501" not in {f["code"] for f in doc["findings"]}
    manifest = json.loads((tmp_path / "None" / "caffe" / "nnie-triage-dumps.json").read_text())
    assert manifest["engine"] == "numpy"


def test_bn_eps_is_below_the_conversion_bar(tmp_path):
    """1e-5 written for 1e-3 moves bn1 by ~5e-4 of its size (variances 0.5..1.5): under the
    conversion bar (relative L2 0.01), above float rounding; the static check names it."""
    doc, _ = _chain(tmp_path, "bn_eps")
    assert doc["framework"]["differing"] == 0 and not doc["verdict"].startswith("conversion")
    bn = next(r for r in doc["framework"]["layers"] if r["blob"] == "bn1" and not r.get("overwritten"))
    assert 0.9999 <= bn["cosine"] < 1.0 - 1e-9 and 1e-5 < bn["rel_l2_error"] < 0.01   # it moves, under the bar

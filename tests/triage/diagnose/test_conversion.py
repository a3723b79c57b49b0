"""The chain ONNX → Caffe → NNIE in triage (issue 19, part 2), on the real MTCNN det1/det2 weights:
every converter fault injected alone into the conversion is named "conversion" at the layer it is
in (T501 on that layer's line, citing the static NN5xx finding); a faithful conversion agrees with
ONNX to float rounding on every layer and keeps the guide's verdict; `reference --onnx` writes
Caffe-named dumps with a manifest; a missing onnxruntime is a message, not a traceback."""

from __future__ import annotations

import builtins
import json
from pathlib import Path

import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytest.importorskip("cv2")

from nnie_lsp.testing import onnx_models as m  # noqa: E402
from nnie_lsp.testing.conversion_chain import run_chain, triage, write_project  # noqa: E402
from nnie_lsp.testing.onnx_models_convert import convert  # noqa: E402
from nnie_lsp.testing.shared_files import corpus_dir  # noqa: E402

pytestmark = pytest.mark.skipif(not m.mtcnn_available(), reason="the MTCNN models of the shared corpus are absent")

IMAGE = corpus_dir("models") / "mtcnn" / "test1.jpg"
MODELS = {"det1": m.pnet, "det2": m.rnet}

#: fault -> (model, the NN5xx code the static check names it with)
FAULTS = {
    ("det1", "ceil_mode"): "NN503",      # pool1 rounds up in Caffe: 12×12 against ONNX's 11×11
    ("det1", "weights"): "NN507",        # conv1's kernels transposed
    ("det2", "ip_order"): "NN507",       # conv4 (InnerProduct after Flatten) weights in H, W, C order
    ("det2", "weights"): "NN507",
}


def _chain(tmp: Path, model_key: str, fault: str | None) -> tuple[dict, object]:
    model = MODELS[model_key]()
    conv = convert(model, fault)
    project = write_project(tmp / f"{model_key}_{fault}", model, conv, [IMAGE])
    return run_chain(project), conv


@pytest.mark.parametrize("model_key,fault", list(FAULTS), ids=lambda v: v)
def test_each_fault_is_named_conversion_at_its_layer(tmp_path, model_key, fault):
    doc, conv = _chain(tmp_path, model_key, fault)
    layer = conv.fault_layer
    assert doc["verdict"].startswith("conversion:") and doc["verdict"].endswith(f"from {layer} on"), doc["verdict"]
    assert doc["case"] is None and doc["next_step"] == 0
    assert doc["framework"]["first_difference"] == layer
    t501 = [f for f in doc["findings"] if f["code"] == "T501"]
    assert len(t501) == 1 and t501[0]["layer"] == layer
    assert t501[0]["line"] == conv.layer_line(layer)          # on the layer's name in the prototxt
    assert FAULTS[(model_key, fault)] in t501[0]["message"]   # the static finding for that layer
    assert "T401" not in {f["code"] for f in doc["findings"]}  # not "check the post-processing"
    rows = {r["name"]: r for r in doc["layers"]}
    assert rows[layer]["framework_status"] in ("differs", "shape")
    before = [r for r in doc["layers"] if r["order"] < rows[layer]["order"]]
    assert before and all(r["framework_status"] == "ok" for r in before)


@pytest.mark.parametrize("model_key", list(MODELS))
def test_a_faithful_conversion_agrees_on_every_layer(tmp_path, model_key):
    doc, _ = _chain(tmp_path, model_key, None)
    hop = doc["framework"]["layers"]
    assert len(hop) >= 10 and all(r["status"] == "ok" for r in hop), [(r["blob"], r["status"]) for r in hop]
    assert min(r["cosine"] for r in hop) >= 0.9999
    assert max(r["rel_l2_error"] for r in hop) <= 1e-5     # what Thresholds.conversion_rel_l2's reason says
    assert all(r["framework_cosine"] >= 0.9999 for r in doc["layers"])
    assert doc["framework"]["first_difference"] is None and doc["next_step"] != 0
    assert "T501" not in {f["code"] for f in doc["findings"]}
    assert doc["case"] == 4     # the healthy 8-bit emulation: the guide's verdict stands


def test_a_value_neutral_fault_is_no_conversion_verdict(tmp_path):
    """Flatten axis 2 in det2: the InnerProduct flattens again, every value agrees — the static
    check names it (NN506), the triage by values does not invent a difference."""
    doc, _ = _chain(tmp_path, "det2", "flatten_axis")
    assert doc["framework"]["differing"] == 0 and not doc["verdict"].startswith("conversion")


def test_reference_onnx_writes_caffe_named_dumps_and_a_manifest(tmp_path):
    model = m.rnet()
    project = write_project(tmp_path, model, convert(model), [IMAGE])
    code, out = triage(["reference", "--cfg", str(project.cfg), "--onnx", str(project.onnx), "--transpose"])
    assert code == 0, out
    folder = tmp_path / "output_onnx"                 # the default beside the cfg
    names = {p.name for p in folder.iterdir()}
    assert "conv4_output0_128_caffe.linear.npz" in names and "pool1_output0_28_11_11_caffe.linear.npz" in names
    manifest = json.loads((folder / "nnie-triage-dumps.json").read_text())
    assert manifest["framework"] == "onnx" and manifest["onnx"] == str(project.onnx.resolve())
    assert manifest["blob_tensor"]["conv4"] == "conv4" and manifest["blob_tensor"]["data"] == "data"
    assert "ONNX (ONNX Runtime) dumps" in out


def test_the_html_report_plots_both_hops(tmp_path):
    from nnie_lsp.triage.report import render

    doc, _ = _chain(tmp_path, "det1", "ceil_mode")
    html = render.render_html(doc)
    assert 'class="framework"' in html and "ONNX → Caffe (conversion)" in html and "size differs" in html
    assert "ONNX→Caffe" in render.render_markdown(doc) and "size differs" in render.render_text(doc)


def test_without_onnxruntime_the_command_says_how_to_get_it(tmp_path, monkeypatch):
    model = m.pnet()
    project = write_project(tmp_path, model, convert(model), [IMAGE])
    real_import = builtins.__import__

    def no_ort(name, *args, **kwargs):
        if name == "onnxruntime" or name.startswith("onnxruntime."):
            raise ModuleNotFoundError("No module named 'onnxruntime'", name="onnxruntime")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ort)
    code, out = triage(["reference", "--cfg", str(project.cfg), "--onnx", str(project.onnx), "-o", str(tmp_path / "o")])
    assert code == 2 and "ONNX Runtime" in out and "onnxruntime" in out and "Traceback" not in out, out
    assert "internal error" not in out


def test_bad_inputs_are_messages(tmp_path):
    model = m.pnet(size=25)
    project = write_project(tmp_path, model, convert(model), [IMAGE])
    code, out = triage(["reference", "--cfg", str(project.cfg), "--onnx", str(tmp_path / "nope.onnx")])
    assert code == 2 and "nope.onnx does not exist" in out
    m.save(m.pnet(size=31), tmp_path / "other.onnx")      # exported at another input size
    code, out = triage(["reference", "--cfg", str(project.cfg), "--onnx", str(tmp_path / "other.onnx"), "-o",
                        str(tmp_path / "x")])
    assert code == 2 and "1×3×31×31" in out and "1×3×25×25" in out, out
    code, out = triage(["compare", "--cfg", str(project.cfg), "--reference", str(tmp_path), "--sim", str(tmp_path),
                        "--framework", str(tmp_path / "missing")])
    assert code == 2 and "framework dump folder" in out and "does not exist" in out


def test_the_example_files_are_current():
    import importlib.util

    folder = Path(__file__).resolve().parents[3] / "examples" / "conversion"
    spec = importlib.util.spec_from_file_location("make_conversion_example", folder / "make_example.py")
    make = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make)
    for name, data in make.files().items():
        assert (folder / name).read_bytes() == data, f"{name} is stale: run {folder / 'make_example.py'}"


def test_dumps_of_another_version_of_the_model_are_not_judged(tmp_path):
    """The ONNX model changed after `reference --onnx` wrote its dumps (the manifest's SHA-256): the
    hop is not judged — T501 says so, no conversion verdict from dumps of another model."""
    model = MODELS["det1"]()
    conv = convert(model, "ceil_mode")
    project = write_project(tmp_path / "p", model, conv, [IMAGE])
    doc = run_chain(project)
    assert doc["verdict"].startswith("conversion:")
    project.onnx.write_bytes(project.onnx.read_bytes() + b"\0")   # the model edited after its dumps
    out = tmp_path / "again.json"
    code, text = triage(["compare", "--cfg", str(project.cfg), "--reference", str(project.folder / "caffe"),
                         "--sim", str(project.folder / "nnie"), "--framework", str(project.folder / "onnx"),
                         "--format", "json", "--output", str(out), "--progress", "none", "--previous", "none"])
    assert code == 0, text
    again = json.loads(out.read_text(encoding="utf-8"))
    assert not again["verdict"].startswith("conversion")
    t501 = [f for f in again["findings"] if f["code"] == "T501"]
    assert len(t501) == 1 and t501[0]["severity"] == "warning" and "another version" in t501[0]["message"]

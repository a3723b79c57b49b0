"""The conversion check in the shapes real users have: in-place Caffe nets (the real MTCNN
prototxts put every PReLU in place), ONNX models whose in-place chain ends carry the blob's name,
and the PyTorch exporter's numbered tensors -- static check (NN5xx), ``reference --onnx`` and the
ONNX → Caffe hop of ``compare --framework``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("onnx")

from nnie_lsp.lint.driver import lint_files  # noqa: E402
from nnie_lsp.project.settings import settings_from_mapping  # noqa: E402
from nnie_lsp.testing import onnx_models as m  # noqa: E402
from nnie_lsp.testing import onnx_names as names  # noqa: E402
from nnie_lsp.testing.onnx_models_convert import FAULTS, convert  # noqa: E402
from nnie_lsp.testing.shared_files import corpus_dir  # noqa: E402

from test_static_check import CASES, MTCNN, _model  # noqa: E402

needs_mtcnn = pytest.mark.skipif(not m.mtcnn_available(), reason="the MTCNN models of the shared corpus are absent")

#: variant -> (what is done to the ONNX model, convert options, whether the Caffe side is converted
#: from the renamed model (onnx2caffe on that export) or from the original one (names of its own))
VARIANTS = {
    "in-place Caffe": (lambda x: x, {"inplace": True}, True),
    "in-place Caffe, ONNX chain ends named": (names.inplace_named, {"inplace": True}, True),
    "exporter names both sides": (names.exporter_named, {}, True),
    "exporter names, in-place Caffe": (names.exporter_named, {"inplace": True}, True),
    "exporter-named ONNX, Caffe names of its own": (names.exporter_named, {"inplace": True}, False),
    "numbered inputs too, Caffe names of its own": (lambda x: names.exporter_named(x, numeric_io=True),
                                                    {"inplace": True}, False),
}
MTCNN_BUILDERS = {"det1": lambda: m.pnet(size=12, ceil_mode=1), "det2": m.rnet, "det3": m.onet}
ONNX_NAMINGS = {"plain": lambda x: x, "chain ends named": names.inplace_named, "exporter": names.exporter_named,
                "exporter, numbered inputs": lambda x: names.exporter_named(x, numeric_io=True)}


def _lint(tmp: Path, model, prototxt: str, caffemodel: bytes):
    (tmp / "net.prototxt").write_text(prototxt, encoding="utf-8")
    (tmp / "net.caffemodel").write_bytes(caffemodel)
    m.save(model, tmp / "net.onnx")
    return lint_files([str(tmp / "net.prototxt")], settings=settings_from_mapping({"select": ["NN5"]})).diagnostics


def _variant(name, model_name, fault=None, options=()):
    rename, opts, from_renamed = VARIANTS[name]
    original = _model(model_name)
    model = rename(original)
    return model, convert(model if from_renamed else original, fault, **dict(options), **opts)


def test_the_variants_change_names_only():
    g = m.rnet().graph
    chain = names.inplace_named(m.rnet()).graph
    numbered = names.exporter_named(m.rnet()).graph
    assert [n.op_type for n in chain.node] == [n.op_type for n in g.node] == [n.op_type for n in numbered.node]
    prelu = next(n for n in chain.node if n.op_type == "PRelu")
    assert list(prelu.output) == ["conv1"] and list(prelu.input)[0] == "conv1_pre"
    assert all(t.isdigit() for n in numbered.node for t in n.output if t not in ("prob1", "conv5-2"))


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("fault", sorted(CASES))
def test_each_fault_is_named_in_every_naming(variant, fault, tmp_path):
    model_name, options, code = CASES[fault]
    if model_name in MTCNN and not m.mtcnn_available():
        pytest.skip("the MTCNN models of the shared corpus are absent")
    try:
        model, conv = _variant(variant, model_name, fault, options)
    except ValueError as exc:  # the fault needs a node name the renamed model does not have
        pytest.skip(str(exc))
    diags = _lint(tmp_path, model, conv.prototxt, conv.caffemodel)
    named = [d for d in diags if d.code == code]
    assert named, (variant, fault, [(d.code, d.message) for d in diags])
    lines = conv.prototxt.splitlines()
    for d in named:
        if fault in ("hardswish_lost", "silu_lost"):
            assert "dropped" in d.message or "does not compute" in d.message, d.message
        else:
            assert d.range.start.line + 1 in conv.layer_lines(conv.fault_layer), (d.range, d.message)
    others = [d for d in diags if d.code not in (code, "NN501") and fault != "upsample_fork"]
    assert not others, [(d.code, d.message) for d in others]
    if fault not in ("hardswish_lost", "silu_lost", "upsample_fork"):
        assert not [d for d in diags if d.code == "NN501"], [d.message for d in diags]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("model_name,options", [("small", {}), ("small", {"fold_bn": True}), ("pnet", {}),
                                                ("rnet", {}), ("rnet", {"fold_bn": True})])
def test_a_faithful_conversion_is_clean_in_every_naming(variant, model_name, options, tmp_path):
    if model_name in MTCNN and not m.mtcnn_available():
        pytest.skip("the MTCNN models of the shared corpus are absent")
    model, conv = _variant(variant, model_name, options=options)
    diags = _lint(tmp_path, model, conv.prototxt, conv.caffemodel)
    assert diags == [], [(d.code, d.message) for d in diags]


@needs_mtcnn
@pytest.mark.parametrize("naming", sorted(ONNX_NAMINGS))
@pytest.mark.parametrize("net", sorted(MTCNN_BUILDERS))
def test_the_real_in_place_mtcnn_prototxts_check_clean(net, naming, tmp_path):
    """The MTCNN prototxts as their authors wrote them (every PReLU in place, det3's in-place
    Dropout) against a faithful ONNX model of their own weights: no finding, every layer matched."""
    from nnie_lsp.conversion.matching import match
    from nnie_lsp.conversion.onnx_graph import read_onnx
    from nnie_lsp.readers.prototxt.reader import parse_prototxt
    from nnie_lsp.readers.prototxt.graph import build_graph

    folder = corpus_dir("models") / "mtcnn"
    text = (folder / f"{net}.prototxt").read_text(encoding="utf-8")
    model = ONNX_NAMINGS[naming](MTCNN_BUILDERS[net]())
    diags = _lint(tmp_path, model, text, (folder / f"{net}.caffemodel").read_bytes())
    assert diags == [], [(d.code, d.message) for d in diags]
    graph = build_graph(parse_prototxt(text, str(tmp_path / "net.prototxt")))
    matching = match(graph, read_onnx(str(tmp_path / "net.onnx")))
    assert not matching.unmatched
    prelus = {layer.name for layer in graph.layers if layer.type == "PReLU"}
    assert len(prelus) >= 3 and prelus <= {mt.layer.name for mt in matching.matches}


def _det(net: str, tmp: Path, model, caffemodel: bytes | None = None):
    from nnie_lsp.testing.conversion_chain import write_project
    from nnie_lsp.testing.onnx_models_convert import Conversion

    folder = corpus_dir("models") / "mtcnn"
    conv = Conversion((folder / f"{net}.prototxt").read_text(encoding="utf-8"),
                      caffemodel if caffemodel is not None else (folder / f"{net}.caffemodel").read_bytes())
    return write_project(tmp, model, conv, [folder / "test1.jpg"])


@needs_mtcnn
@pytest.mark.parametrize("naming", ["chain ends named", "exporter"])
def test_reference_onnx_dumps_every_tensor_of_det2(naming, tmp_path):
    """det2 in place: every ONNX tensor is dumped -- the blobs' last values by blob, the values the
    PReLUs overwrite by layer (beside the Caffe reference's), the Flatten inside the
    InnerProduct as not comparable -- and the hop compares every Caffe value."""
    from nnie_lsp.testing.conversion_chain import run_chain

    model = ONNX_NAMINGS[naming](m.rnet())
    p = _det("det2", tmp_path, model)
    doc = run_chain(p)
    onnx_out = tmp_path / "onnx"
    manifest = json.loads((onnx_out / "nnie-triage-dumps.json").read_text(encoding="utf-8"))
    tensors = [t for n in model.graph.node for t in n.output]
    written = set(manifest["blob_tensor"].values()) | set(manifest["overwritten"].values()) | set(manifest["onnx_only_tensors"])
    assert set(tensors) <= written, set(tensors) - written
    assert len(list((onnx_out / ".inplace").iterdir())) == 4 == len(list((tmp_path / "caffe" / ".inplace").iterdir()))
    assert len(list((onnx_out / ".onnx_only").iterdir())) == 1
    fw = doc["framework"]
    assert fw["differing"] == 0 and fw["first_difference"] is None
    rows = fw["layers"]
    assert all(r["status"] == "ok" for r in rows), [(r["name"], r["status"], r["note"]) for r in rows]
    assert sum(1 for r in rows if r.get("overwritten")) == 4 and len(rows) == 14
    (nc,) = fw["not_compared"]
    assert "inside Caffe layer \"conv4\"" in nc["why"]


@needs_mtcnn
@pytest.mark.parametrize("naming", ["plain", "exporter"])
def test_the_heads_after_a_fork_are_compared(naming, tmp_path):
    """det1's conv3 forks into conv4-1 and conv4-2; the converter dropped conv4-2's bias.  With
    numbered ONNX tensors too, both heads and prob1 are compared and conv4-2 is the first
    difference (the heads are told apart by their output counts, never by position)."""
    from nnie_lsp.readers.prototxt import caffe_pb2
    from nnie_lsp.testing.conversion_chain import run_chain

    folder = corpus_dir("models") / "mtcnn"
    net = caffe_pb2.NetParameter()
    net.ParseFromString((folder / "det1.caffemodel").read_bytes())
    bias = next(layer for layer in net.layer if layer.name == "conv4-2").blobs[1]
    del bias.data[:]
    bias.data.extend([0.0] * 4)
    p = _det("det1", tmp_path, ONNX_NAMINGS[naming](MTCNN_BUILDERS["det1"]()), net.SerializeToString())
    fw = run_chain(p)["framework"]
    status = {r["name"]: r["status"] for r in fw["layers"] if not r.get("overwritten")}
    assert status["conv4-1"] == "ok" and status["prob1"] == "ok" and status["conv4-2"] == "differs", status
    assert fw["first_difference"] == "conv4-2"
    diags = lint_files([str(p.prototxt)], settings=settings_from_mapping({"select": ["NN5"]})).diagnostics
    assert [d.code for d in diags] == ["NN507"] and "conv4-2" in diags[0].message, [d.message for d in diags]


def test_a_named_dump_without_its_reference_is_never_paired_by_values(tmp_path):
    """Caffe dumps without conv3 and conv4-1, NNIE dumps without prob1: NNIE's conv4-1 has the size
    of Caffe's prob1 but is not paired with it; both are listed unmatched."""
    from nnie_lsp.readers.dumpio.scan import scan_dumps
    from nnie_lsp.project.project import load_project
    from nnie_lsp.project.settings import LintSettings
    from nnie_lsp.triage.align.driver import align

    src = Path(__file__).parents[2] / "examples" / "triage"
    shutil.copytree(src / "channel_swap", tmp_path / "run")
    shutil.copytree(src / "model", tmp_path / "model")
    for pattern in ("output/conv3_*", "output/conv4-1_*", "mapper_quant/prob1_*"):
        for f in (tmp_path / "run").glob(pattern):
            f.unlink()
    graph = load_project(prototxt_path=str(tmp_path / "model" / "det1.prototxt"), settings=LintSettings()).graph
    al = align(scan_dumps(tmp_path / "run" / "output"), scan_dumps(tmp_path / "run" / "mapper_quant"), graph)
    assert {p.name for p in al.pairs} == {"data", "conv1", "pool1", "conv2", "conv4-2"}
    assert {t.key for t in al.unmatched_sim} == {"conv3", "conv4-1"}
    assert {t.key for t in al.unmatched_ref} == {"prob1"}
    assert any("never paired with another layer by values" in n for n in al.notes)


def test_every_fault_is_in_the_cases():
    assert set(CASES) == set(FAULTS)

"""The ONNX side of the chain (nnie_lsp/reference/onnx_forward.py): every tensor from ONNX Runtime,
named by the Caffe blobs they stand for, agrees with the Caffe forward of a faithful conversion on
every blob; with a fault injected, the first blob that differs is the faulty layer's; the dumps are
the Caffe reference's form plus the manifest."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("onnxruntime")

from caffe_run import caffe_blobs, cosine  # noqa: E402

from nnie_lsp.readers.dumpio.names import parse_dump_name  # noqa: E402
from nnie_lsp.reference.onnx_forward import run_onnx_reference, write_onnx_dumps  # noqa: E402
from nnie_lsp.testing import onnx_models as m  # noqa: E402
from nnie_lsp.testing.onnx_models_convert import convert  # noqa: E402


def _setup(tmp_path, model, fault=None, **options):
    conv = convert(model, fault, **options)
    folder = tmp_path / "net"
    x = (np.random.default_rng(0).random((1, 3, 16, 16)) * 50).astype(np.float32)
    ours = caffe_blobs(conv, folder, x)
    m.save(model, folder / "net.onnx")
    ref = run_onnx_reference(folder / "net.onnx", folder / "net.prototxt", {"input": x})
    return conv, ours, ref


def test_a_faithful_conversion_agrees_on_every_blob(tmp_path):
    conv, ours, ref = _setup(tmp_path, m.small_net(), fold_bn=True)
    assert len(ref.blobs) >= 15 and not ref.unmatched
    assert min(cosine(ours[b], ref.blobs[b]) for b in ref.blobs) >= 0.9999
    assert ref.blob_tensor["conv1"] == "bn1"     # the BN folded into conv1: its top is the BN's output


def test_the_first_differing_blob_is_the_faulty_layers(tmp_path):
    conv, ours, ref = _setup(tmp_path, m.small_net(), "relu6_to_relu")
    order = [b for b in ours if b in ref.blobs]
    first = next(b for b in order if cosine(ours[b], ref.blobs[b]) < 0.9999)
    assert first == "relu6" == conv.fault_layer


def test_dumps_and_manifest(tmp_path):
    _conv, _ours, ref = _setup(tmp_path, m.small_net())
    written = write_onnx_dumps(ref, tmp_path / "onnx_out")
    manifest = json.loads((tmp_path / "onnx_out" / "onnx_manifest.json").read_text())
    assert manifest["blobs"]["relu6"] == {"tensor": "relu6", "matched_by": "tensor name"}
    dumps = [p for p in written if p.suffix != ".json"]
    assert len(dumps) == len(ref.blobs)
    names = {parse_dump_name(p.name).name for p in dumps}
    assert "relu6" in names and "prob" in names


def test_the_benchmark_conversion_runs_are_judged_right():
    """bench_verdicts' conversion row, quick: the faults it runs are named by both the static check
    and the layer-by-layer hop, the faithful conversion by neither."""
    from nnie_lsp.testing.onnx_models_faults import runs

    records = runs(quick=True)
    assert records and all(r["static_right"] and r["hop_right"] for r in records), records
    assert any(r["fault"] == "faithful" for r in records)

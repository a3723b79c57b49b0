"""The synthetic big net (used by benchmarks/bench_lint.py and bench_lsp.py) is a valid net.

Speed goals live in benchmarks/, not in timed unit tests."""

from __future__ import annotations

from google.protobuf import text_format

from nnie_lsp.readers.prototxt.graph import build_graph
from nnie_lsp.readers.prototxt import caffe_pb2
from nnie_lsp.testing.synth_nets import generate_big_prototxt
from nnie_lsp.readers.prototxt.reader import parse_prototxt


def test_generator_shape_and_validity():
    text = generate_big_prototxt(2000)
    assert 28000 <= text.count("\n") <= 33000
    expected = caffe_pb2.NetParameter()
    text_format.Parse(text, expected)
    assert len(expected.layer) == 2000
    doc = parse_prototxt(text)
    assert doc.errors == ()
    assert doc.message.SerializeToString(deterministic=True) == expected.SerializeToString(deterministic=True)
    g = build_graph(doc)
    assert g.undefined_bottoms() == () and g.duplicate_layer_names() == ()
    types = {l.type for l in g.layers}
    assert types >= {"Convolution", "BatchNorm", "Scale", "ReLU", "Concat", "Pooling", "Eltwise"}
    assert all(v is not None for v in g.blob_shapes().values())
    for n in (0, 1, 7, 23):
        small = generate_big_prototxt(n)
        d = parse_prototxt(small)
        assert d.errors == () and len(d.layers) == n
        assert build_graph(d).undefined_bottoms() == ()

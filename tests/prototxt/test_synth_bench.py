"""The synthetic big net and the reader's speed relative to text_format."""

from __future__ import annotations

import time

from google.protobuf import text_format

from nnie_lsp.prototxt import build_graph, caffe_pb2, generate_big_prototxt, parse_prototxt


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


def _timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def test_reader_faster_than_text_format():
    """Generous bound (shared machines are noisy): the quiet-machine ratio is about 0.4.

    Runs are interleaved and the best of each is compared, so load affects both alike."""
    text = generate_big_prototxt(2000)
    reader, baseline = float("inf"), float("inf")
    for _ in range(5):
        reader = min(reader, _timed(lambda: parse_prototxt(text)))
        baseline = min(baseline, _timed(lambda: text_format.Parse(text, caffe_pb2.NetParameter())))
    assert reader < 0.8 * baseline, (reader, baseline)

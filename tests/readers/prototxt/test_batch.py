"""Which layers depend on the input batch (NN017's fix is safe only when none does)."""

from __future__ import annotations

from nnie_lsp.readers.prototxt.graph import build_graph
from nnie_lsp.readers.prototxt.reader import parse_prototxt
from nnie_lsp.readers.prototxt.batch import axis_zero_fields, batch_dependence

HEAD = 'input: "data"\ninput_shape { dim: 16 dim: 3 dim: 32 dim: 32 }\n'


def _kinds(body: str, inputs="data"):
    g = build_graph(parse_prototxt(HEAD + body))
    return [(d.layer.name, d.kind) for d in batch_dependence(g, inputs, 1)]


def test_plain_layers_follow_the_batch():
    body = """layer { name: "c" type: "Convolution" bottom: "data" top: "c" convolution_param { num_output: 8 kernel_size: 3 } }
layer { name: "p" type: "Pooling" bottom: "c" top: "p" pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "r" type: "Reshape" bottom: "p" top: "r" reshape_param { shape { dim: 0 dim: -1 } } }
layer { name: "r2" type: "Reshape" bottom: "p" top: "r2" reshape_param { shape { dim: -1 dim: 8 dim: 15 dim: 15 } } }
layer { name: "f" type: "Flatten" bottom: "p" top: "f" }
layer { name: "fc" type: "InnerProduct" bottom: "f" top: "fc" inner_product_param { num_output: 10 } }
layer { name: "cat" type: "Concat" bottom: "r" bottom: "f" top: "cat" }
layer { name: "pb" type: "PriorBox" bottom: "c" bottom: "data" top: "pb" prior_box_param { min_size: 4 } }
"""
    assert _kinds(body) == []


def test_lrcn_reshape_hard_codes_the_batch():
    body = """layer { name: "fc6" type: "InnerProduct" bottom: "data" top: "fc6" inner_product_param { num_output: 40960 } }
layer { name: "reshape-data" type: "Reshape" bottom: "fc6" top: "fc6-reshape" reshape_param { shape { dim: 16 dim: 10 dim: 4096 } } }
"""
    g = build_graph(parse_prototxt(HEAD + body))
    (dep,) = batch_dependence(g, "data", 1)
    assert dep.layer.name == "reshape-data" and dep.kind == "reshape_dims" and dep.details["dims"] == (16, 10, 4096)


def test_outputs_changing_beyond_the_batch():
    # folding the batch into the channels: 16x3x32x32 -> 1x48x32x32, but 1x3x32x32 with batch 1
    assert _kinds('layer { name: "fold" type: "Reshape" bottom: "data" top: "fold" '
                  'reshape_param { shape { dim: 1 dim: -1 dim: 32 dim: 32 } } }\n') == [("fold", "reshape_dims")]
    # the same through axis: 1 cannot be seen from the parameters, only from the shapes
    assert _kinds('layer { name: "f" type: "Flatten" bottom: "data" top: "f" flatten_param { axis: 1 } }\n'
                  'layer { name: "r" type: "Reshape" bottom: "f" top: "r" '
                  'reshape_param { axis: 0 num_axes: 1 shape { dim: 4 dim: 4 } } }\n') == [("r", "reshape_dims")]
    assert _kinds('layer { name: "r" type: "Reshape" bottom: "data" top: "r" '
                  'reshape_param { axis: 1 shape { dim: -1 } } }\n'
                  'layer { name: "t" type: "Reshape" bottom: "r" top: "t" '
                  'reshape_param { axis: 1 shape { dim: 16 dim: -1 } } }\n') == []


def test_axis_zero_and_setup_and_mixing():
    assert _kinds('layer { name: "s" type: "Softmax" bottom: "data" top: "s" softmax_param { axis: 0 } }\n') \
        == [("s", "axis0")]
    assert _kinds('layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip" '
                  'inner_product_param { num_output: 2 axis: 0 } }\n') == [("ip", "axis0")]
    # a Slice in two along the batch (axis written as -4) cannot be set up with batch 1
    assert _kinds('layer { name: "sl" type: "Slice" bottom: "data" top: "a" top: "b" slice_param { axis: -4 } }\n') \
        == [("sl", "setup")]
    # a Tile along the batch: 16x3 -> 32x3 but 1x3 -> 2x3, the batch no longer maps to itself
    assert _kinds('layer { name: "t" type: "Tile" bottom: "data" top: "t" tile_param { axis: -4 tiles: 2 } }\n') \
        == [("t", "shape")]
    two = 'input: "other"\ninput_shape { dim: 16 dim: 3 dim: 32 dim: 32 }\n' \
          'layer { name: "sum" type: "Eltwise" bottom: "data" bottom: "other" top: "sum" }\n'
    assert _kinds(two) == [("sum", "mixes")]
    assert _kinds(two, inputs=["data", "other"]) == []


def test_unknown_shapes_cannot_be_checked():
    body = """layer { name: "mine" type: "MyPrivateLayer" bottom: "data" top: "mine" }
layer { name: "c" type: "Convolution" bottom: "mine" top: "c" convolution_param { num_output: 8 kernel_size: 3 } }
"""
    assert _kinds(body) == [("mine", "unknown")]


def test_batch_one_or_unknown_input_has_nothing_to_check():
    g = build_graph(parse_prototxt('input: "data"\ninput_shape { dim: 1 dim: 3 dim: 8 dim: 8 }\n'
                                   'layer { name: "s" type: "Softmax" bottom: "data" top: "s" softmax_param { axis: 0 } }\n'))
    assert batch_dependence(g, "data", 1) == []
    assert batch_dependence(g, "nope", 1) == []


def test_axis_zero_fields():
    g = build_graph(parse_prototxt(HEAD + 'layer { name: "c" type: "Concat" bottom: "data" bottom: "data" top: "c" '
                                   'concat_param { concat_dim: 0 } }\n'
                                   'layer { name: "d" type: "Concat" bottom: "data" bottom: "data" top: "d" }\n'))
    assert axis_zero_fields(g.layers[0]) == ("concat_dim",)
    assert axis_zero_fields(g.layers[1]) == ()

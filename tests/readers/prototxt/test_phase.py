"""The graph is the TEST net nnie_mapper converts (Caffe's NetStateRule semantics)."""

from nnie_lsp.readers.prototxt.graph import build_graph
from nnie_lsp.readers.prototxt.reader import parse_prototxt

TRAIN_VAL = '''name: "lenet"
layer { name: "mnist" type: "Data" top: "data" top: "label" include { phase: TRAIN } }
layer { name: "mnist" type: "Data" top: "data" top: "label" include { phase: TEST } }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
  convolution_param { num_output: 4 kernel_size: 3 } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "conv1" bottom: "label" top: "loss" exclude { phase: TEST } }
layer { name: "acc" type: "Accuracy" bottom: "conv1" bottom: "label" top: "acc" include { phase: TEST stage: "val" } }
layer { name: "deep" type: "ReLU" bottom: "conv1" top: "conv1" include { min_level: 1 } }
layer { name: "either" type: "ReLU" bottom: "conv1" top: "conv1" include { phase: TRAIN } include { phase: TEST } }
layer { name: "notstage" type: "ReLU" bottom: "conv1" top: "conv1" include { not_stage: "deploy" } }
'''


def _graph(text):
    return build_graph(parse_prototxt(text, "train_val.prototxt"))


def test_test_net_membership():
    g = _graph(TRAIN_VAL)
    kept = [gl.name for gl in g.layers]
    assert kept == ["mnist", "conv1", "either", "notstage"]
    assert [gl.index for gl in g.layers] == [1, 2, 6, 7]
    reasons = {e.layer.name: e.reason for e in g.excluded}
    assert reasons["mnist"] == "include { phase: TRAIN }"
    assert reasons["loss"] == "exclude { phase: TEST }"
    assert reasons["acc"] == 'include { stage: "val" }'
    assert reasons["deep"] == "include { min_level: 1 }"
    assert g.duplicate_layer_names() == ()


def test_excluded_layers_take_no_part():
    g = _graph(TRAIN_VAL)
    assert [c.name for c in g.consumers("label")] == []
    assert [p.name for p in g.producers("data")] == ["mnist"]
    assert all(p.index == 1 for p in g.producers("data"))


def test_plain_deploy_net_is_unchanged():
    text = 'input: "data" input_shape { dim: 1 dim: 3 dim: 4 dim: 4 }\n' \
           'layer { name: "r" type: "ReLU" bottom: "data" top: "r" }\n'
    g = _graph(text)
    assert [gl.name for gl in g.layers] == ["r"] and g.excluded == ()

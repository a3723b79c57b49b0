"""Graph facts on the corpus, counted independently from the files themselves."""

from __future__ import annotations

import collections
import re

import pytest

from nnie_lsp.readers.prototxt.graph import build_graph
from nnie_lsp.readers.prototxt.reader import parse_prototxt

from .conftest import CORPUS, corpus_file, read


def graph_of(fragment):
    text = read(corpus_file(fragment))
    return text, build_graph(parse_prototxt(text))


def _layer_blocks(text):
    """Independent count: (type, bottoms, tops) per `layer {` block, with regexes."""
    out = []
    for block in re.split(r"(?m)^\s*layer\s*\{", text)[1:]:
        t = re.search(r'type:\s*"([^"]+)"', block).group(1)
        bottoms = re.findall(r'bottom:\s*"([^"]+)"', block)
        tops = re.findall(r'top:\s*"([^"]+)"', block)
        out.append((t, bottoms, tops))
    return out


def test_yolov3_inplace_chains():
    text, g = graph_of("yolov3-nnie-model-yolov3")
    blocks = _layer_blocks(text)
    inplace = collections.Counter(t for t, b, tp in blocks if set(b) & set(tp))
    assert inplace == {"BatchNorm": 72, "Scale": 72, "ReLU": 72}
    chains = g.inplace_chains()
    assert len(chains) == 72
    for c in chains:
        assert c.producer.type == "Convolution"
        assert [l.type for l in c.layers] == ["BatchNorm", "Scale", "ReLU"]
        assert all(l.in_place and c.blob in l.tops for l in c.layers)
        assert c.blob in c.producer.tops
    assert sum(l.in_place for l in g.layers) == 3 * 72
    assert len(g.layers) == len(blocks) == 318
    assert g.undefined_bottoms() == ()
    assert g.duplicate_layer_names() == ()
    (inp,) = g.inputs
    assert (inp.name, inp.shape, inp.style) == ("data", (1, 3, 416, 416), "input_shape")
    lines = text.split("\n")
    assert lines[inp.range.start.line][inp.range.start.character:inp.range.end.character] == '"data"'


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name[:40])
def test_counts_match_independent_regex_parse(path):
    text = read(path)
    g = build_graph(parse_prototxt(text))
    blocks = _layer_blocks(re.sub(r"(?m)#.*$", "", text))
    assert [l.type for l in g.layers] == [t for t, _, _ in blocks]
    assert [list(l.bottoms) for l in g.layers] == [b for _, b, _ in blocks]
    assert [list(l.tops) for l in g.layers] == [t for _, _, t in blocks]
    assert sum(l.in_place for l in g.layers) == sum(bool(set(b) & set(t)) for _, b, t in blocks)
    assert g.undefined_bottoms() == ()
    # every in-place layer belongs to exactly one chain
    in_chains = [l.index for c in g.inplace_chains() for l in c.layers]
    assert sorted(in_chains) == [l.index for l in g.layers if l.in_place]


def test_input_styles():
    expected = {
        "det1": ("data", (1, 3, 12, 12), "input_dim"),
        "yolov3-tiny": ("data", (1, 3, 416, 416), "input_dim"),
        "face-mnet": ("data", (1, 3, 640, 640), "input_shape"),
        "yufacedetectnet": ("data", (1, 3, 240, 320), "input_shape"),
        "pfpld": ("input", (1, 3, 112, 112), "Input layer"),
        "ENet": ("data", (1, 3, 512, 1024), "Input layer"),
        "hisi-yolov5": ("images", (1, 3, 640, 640), "Input layer"),
        "SASN": ("blob1", (1, 3, 320, 320), "input_dim"),
    }
    for frag, exp in expected.items():
        _, g = graph_of(frag)
        (inp,) = g.inputs
        assert (inp.name, inp.shape, inp.style) == exp, frag
        if inp.style == "Input layer":
            assert g.layers[inp.layer].type == "Input"
            assert not g.is_input(inp.name)
        else:
            assert g.is_input(inp.name)


def test_mnet_chains_and_queries():
    _, g = graph_of("face-mnet")
    shapes = collections.Counter(tuple(l.type for l in c.layers) for c in g.inplace_chains())
    assert shapes == {("Scale", "ReLU"): 38, ("Scale",): 9, ("ReLU",): 3}


SMALL_NET = """\
input: "data"
input_dim: 1 input_dim: 3 input_dim: 8 input_dim: 8
layer { name: "conv" type: "Convolution" bottom: "data" top: "conv"
        convolution_param { num_output: 4 kernel_size: 3 pad: 1 } }
layer { name: "relu" type: "ReLU" bottom: "conv" top: "conv" }
layer { name: "conv" type: "Convolution" bottom: "conv" top: "c2"
        convolution_param { num_output: 4 kernel_size: 1 } }
layer { name: "sum" type: "Eltwise" bottom: "conv" bottom: "c2" bottom: "ghost" top: "sum" }
layer { name: "relu2" type: "ReLU" bottom: "data" top: "data" }
layer { name: "cat" type: "Concat" bottom: "sum" bottom: "data" top: "cat" }
"""


def test_small_net_queries():
    doc = parse_prototxt(SMALL_NET)
    g = build_graph(doc)
    names = [l.name for l in g.layers]
    assert names == ["conv", "relu", "conv", "sum", "relu2", "cat"]
    assert [l.name for l in g.producers("conv")] == ["conv", "relu"]
    assert [l.index for l in g.consumers("conv")] == [1, 2, 3]
    assert g.producer_before(3, "conv").name == "relu"
    assert g.producer_before(1, "conv").index == 0
    assert g.producer_before(0, "conv") is None
    assert g.producer_before(5, "data").name == "relu2"
    assert g.producer_before(2, "data") is None and g.is_input("data")
    (u,) = g.undefined_bottoms()
    assert (u.layer.name, u.blob) == ("sum", "ghost")
    line = SMALL_NET.split("\n")[u.range.start.line]
    assert line[u.range.start.character:u.range.end.character] == '"ghost"'
    ((name, dups),) = g.duplicate_layer_names()
    assert name == "conv" and [l.index for l in dups] == [0, 2]
    chains = g.inplace_chains()
    assert [(c.blob, c.producer.name if c.producer else None, [l.name for l in c.layers]) for c in chains] == [
        ("conv", "conv", ["relu"]),
        ("data", None, ["relu2"]),
    ]
    assert set(g.outputs()) == {"cat"}
    assert g.blobs()[0] == "data"
    shapes = g.blob_shapes()
    assert shapes["conv"] == (1, 4, 8, 8) and shapes["c2"] == (1, 4, 8, 8)
    # "sum" reads "ghost", which no layer produces: its shape and everything after it is unknown
    assert shapes["sum"] is None and shapes["cat"] is None


def test_graph_on_broken_file():
    doc = parse_prototxt('layer { name: "a" type: "ReLU" bottom: "x" top: "y" \nlayer { name: "b" }')
    g = build_graph(doc)
    assert doc.errors
    assert [l.name for l in g.layers] == ["a", "b"]
    assert g.undefined_bottoms()[0].blob == "x"

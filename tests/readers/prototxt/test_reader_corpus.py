"""The reader on the real corpus: same message as text_format, no errors, exact ranges."""

from __future__ import annotations

import pytest
from google.protobuf import text_format

from nnie_lsp.readers.prototxt import caffe_pb2
from nnie_lsp.readers.prototxt.reader import parse_prototxt
from nnie_lsp.core.text import Position, Range

from .conftest import CORPUS, corpus_file, read


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name[:40])
def test_message_equals_text_format(path):
    text = read(path)
    expected = caffe_pb2.NetParameter()
    text_format.Parse(text, expected)
    doc = parse_prototxt(text, str(path))
    assert doc.errors == ()
    assert doc.message == expected
    assert doc.message.SerializeToString(deterministic=True) == expected.SerializeToString(deterministic=True)
    assert len(doc.layers) == len(expected.layer) + len(expected.layers)
    assert [ls.name for ls in doc.layers] == [l.name for l in expected.layer]
    assert [ls.type for ls in doc.layers] == [l.type for l in expected.layer]
    for ls, lp in zip(doc.layers, expected.layer):
        assert ls.param == lp
        assert [b for b, _ in ls.bottoms] == list(lp.bottom)
        assert [t for t, _ in ls.tops] == list(lp.top)
    assert doc.path == str(path)


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name[:40])
def test_every_range_slices_its_text(path):
    text = read(path)
    doc = parse_prototxt(text)
    li = doc.line_index
    count = 0
    for node in doc.walk():
        s, e = li.offset(node.name_range.start), li.offset(node.name_range.end)
        assert text[s:e] == node.name
        vs, ve = li.offset(node.value_range.start), li.offset(node.value_range.end)
        assert text[vs:ve] == node.value_text
        if node.kind == "message":
            assert node.value_text[0] in "{<" and node.value_text[-1] in "}>"
        count += 1
    assert count > 50
    for ls in doc.layers:
        for blob, rng in ls.bottoms + ls.tops:
            s, e = li.offset(rng.start), li.offset(rng.end)
            assert text[s + 1:e - 1] == blob and text[s] in "\"'"
        s, e = li.offset(ls.name_range.start), li.offset(ls.name_range.end)
        assert text[s + 1:e - 1] == ls.name
    for rng, ctext in doc.comments:
        assert ctext.startswith("#")
        assert text[li.offset(rng.start):li.offset(rng.end)] == ctext


def test_exact_ranges_yolov3():
    text = read(corpus_file("yolov3-nnie-model-yolov3"))
    doc = parse_prototxt(text)
    lines = text.split("\n")
    # the file starts: name, input: "data", input_shape { dim ... }
    inp = doc.first("input")
    row = next(i for i, ln in enumerate(lines) if ln.startswith("input:"))
    col = lines[row].index('"data"')
    assert inp.value == "data"
    assert inp.name_range == Range(Position(row, 0), Position(row, 5))
    assert inp.value_range == Range(Position(row, col), Position(row, col + 6))
    first = doc.layers[0]
    assert first.name == "layer1-conv" and first.type == "Convolution"
    r = first.name_range
    assert lines[r.start.line][r.start.character:r.end.character] == '"layer1-conv"'
    r = first.type_range
    assert lines[r.start.line][r.start.character:r.end.character] == '"Convolution"'
    assert [b for b, _ in first.bottoms] == ["data"]
    (blob, r), = first.bottoms
    assert lines[r.start.line][r.start.character:r.end.character] == '"data"'
    # block range: from the `layer` keyword to its closing brace
    br = first.block_range
    assert lines[br.start.line][br.start.character:].startswith("layer")
    assert lines[br.end.line][br.end.character - 1] == "}"
    # input_shape dims with tab indentation (the corpus notes it)
    shape = doc.first("input_shape")
    assert [d.value for d in shape.find("dim")] == [1, 3, 416, 416]


def test_node_values_and_helpers():
    text = 'name: "n"\nlayer {\n  name: "c"\n  type: "Convolution"\n  convolution_param {\n' \
           '    num_output: 8\n    kernel_size: 3\n    bias_term: false\n  }\n}\n' \
           'layer { name: "p" type: "Pooling" pooling_param { pool: AVE global_pooling: true } }\n'
    doc = parse_prototxt(text)
    assert doc.errors == ()
    conv = doc.layers[0].node
    cp = conv.first("convolution_param")
    assert cp.kind == "message"
    assert cp.first("num_output").value == 8
    assert cp.first("bias_term").value is False
    assert cp.first("missing") is None
    pool = doc.layers[1].node.first("pooling_param")
    assert pool.first("pool").value == "AVE"  # enum values by name
    assert doc.message.layer[1].pooling_param.pool == caffe_pb2.PoolingParameter.AVE
    # path_at / node_at
    pos = doc.line_index.position(text.index("8"))
    path = doc.path_at(pos)
    assert [n.name for n in path] == ["layer", "convolution_param", "num_output"]
    assert doc.node_at(pos).value == 8
    assert doc.node_at(Position(99, 0)) is None


def test_text_format_details():
    text = (
        "name: 'single' \"double\"  # adjacent strings concatenate\n"
        "input: \"a\\\"b\\n\\x41\\101\"\n"
        "input_dim: 0x10 input_dim: 010 ; input_dim: -0, input_dim: [1, 2]\n"
        "force_backward: t debug_info: True\n"
        "layer < name: \"x\" type: \"Power\" power_param: { power: 10f scale: -inf shift: .5 } "
        "loss_weight: [1e-3, nan] propagate_down: 1 >\n"
        "state { phase: 1 }\n"
        "layer { name: \"u\" type: \"Upsample\" upsample_param { scale: 2 } }\n"
    )
    expected = caffe_pb2.NetParameter()
    text_format.Parse(text, expected)
    doc = parse_prototxt(text)
    assert doc.errors == ()
    assert doc.message == expected
    assert doc.message.name == "singledouble"
    assert doc.message.input[0] == 'a"b\nAA'
    assert list(doc.message.input_dim) == [16, 8, 0, 1, 2]
    assert doc.first("name").value_text == "'single' \"double\""
    dims = doc.find("input_dim")
    assert dims[-1].kind == "list" and dims[-1].value == (1, 2)
    assert [c.value_text for c in dims[-1].children] == ["1", "2"]


def test_v1_layers_and_proto_message_header():
    text = (
        'name: "old"\ninput: "data"\ninput_dim: 1 input_dim: 3 input_dim: 8 input_dim: 8\n'
        'layers { name: "conv" type: CONVOLUTION bottom: "data" top: "conv" '
        "convolution_param { num_output: 4 kernel_size: 3 } }\n"
        'layers { name: "sm" type: SOFTMAX_LOSS bottom: "conv" top: "loss" }\n'
    )
    doc = parse_prototxt(text)
    assert doc.errors == ()
    assert [(ls.name, ls.type, ls.is_v1) for ls in doc.layers] == [
        ("conv", "Convolution", True), ("sm", "SoftmaxWithLoss", True)]
    solver = parse_prototxt("# proto-message: caffe.SolverParameter\nbase_lr: 0.01\nmax_iter: 10\n")
    assert solver.errors == () and solver.message_type == "caffe.SolverParameter"
    assert solver.message.max_iter == 10
    bad = parse_prototxt("# proto-message: caffe.NoSuch\nname: \"x\"\n")
    assert [e.code for e in bad.errors] == ["NN011"] and bad.message.name == "x"


def test_bom_and_crlf():
    text = "\ufeffname: \"x\"\r\nlayer {\r\n  name: \"a\" # c\r\n}\r\n"
    doc = parse_prototxt(text)
    assert doc.errors == ()
    assert doc.message.name == "x"
    rng, ctext = doc.comments[0]
    assert ctext == "# c"  # no \r in comments
    assert doc.layers[0].name_range == Range(Position(2, 8), Position(2, 11))

"""Errors: all problems in one pass, with the right codes, messages and positions."""

from __future__ import annotations

from nnie_lsp.readers.prototxt import caffe_pb2
from nnie_lsp.readers.prototxt.reader import parse_prototxt
from nnie_lsp.readers.prototxt.tree import NN010, NN011, NN012
from nnie_lsp.core.text import Position, Range

THREE_MISTAKES = """\
name: "net"
input: "data"
input_shape { dim: 1 dim: 3 dim: 32 dim: 32 }
layer {
  name: "conv1"
  type: "Convolution"
  botom: "data"
  top: "conv1"
  convolution_param {
    num_output: -3
    kernel_size: 3
  }
}
layer {
  name: "pool1
  type: "Pooling"
  bottom: "conv1"
  top: "pool1"
  pooling_param { pool: MAX kernel_size: 2 stride: 2 }
}
"""


def codes(doc):
    return [e.code for e in doc.errors]


def test_three_mistakes_three_errors():
    doc = parse_prototxt(THREE_MISTAKES)
    assert codes(doc) == [NN011, NN012, NN010]
    unknown, bad, syntax = doc.errors
    assert unknown.range == Range(Position(6, 2), Position(6, 7))
    assert 'has no field named "botom"' in unknown.message
    assert 'Did you mean "bottom"?' in unknown.message
    assert "caffe.LayerParameter" in unknown.message
    assert bad.range == Range(Position(9, 16), Position(9, 18))
    assert "out of range" in bad.message and "uint32" in bad.message
    assert syntax.range == Range(Position(14, 8), Position(14, 14))
    assert "Unterminated string" in syntax.message
    # everything else was read
    m = doc.message
    assert len(m.layer) == 2
    assert m.layer[0].top == ["conv1"] and list(m.layer[0].bottom) == []
    assert m.layer[0].convolution_param.kernel_size == [3]
    assert not m.layer[0].convolution_param.HasField("num_output")
    assert m.layer[1].type == "Pooling" and m.layer[1].pooling_param.stride == 2
    assert [ls.type for ls in doc.layers] == ["Convolution", "Pooling"]
    assert doc.layers[1].name == ""  # its name was the broken string
    assert doc.layers[1].name_range == doc.layers[1].node.name_range  # falls back to the keyword


def error_of(text, code=None):
    doc = parse_prototxt(text)
    assert len(doc.errors) == 1, doc.errors
    e = doc.errors[0]
    if code:
        assert e.code == code, e
    return e, doc


def test_bad_enum_lists_valid_values():
    e, _ = error_of('layer { pooling_param { pool: MAXX } }', NN012)
    assert "Valid values: MAX, AVE, STOCHASTIC" in e.message and 'Did you mean "MAX"?' in e.message
    assert e.range == Range(Position(0, 30), Position(0, 34))
    e, _ = error_of('layer { pooling_param { pool: 7 } }', NN012)
    assert "no value with number 7" in e.message


def test_repeated_singular_field():
    e, doc = error_of('layer {\n  name: "a"\n  name: "b"\n}', NN012)
    assert 'should not have multiple "name" fields' in e.message
    assert e.range.start == Position(2, 2)
    assert doc.message.layer[0].name == "b"  # like text_format.Merge: the last one wins
    e, _ = error_of('layer { convolution_param { num_output: 1 } convolution_param { group: 2 } }', NN012)
    assert "multiple" in e.message


def test_wrong_value_types():
    assert "needs an integer" in error_of('layer { convolution_param { num_output: "3" } }', NN012)[0].message \
        or "number" in error_of('layer { convolution_param { num_output: "3" } }', NN012)[0].message
    assert "Couldn't parse integer: 1.5" in error_of("layer { convolution_param { num_output: 1.5 } }", NN012)[0].message
    assert "needs true or false" in error_of("layer { convolution_param { bias_term: yes } }", NN012)[0].message
    assert "quoted string" in error_of("layer { name: conv1 }", NN012)[0].message
    assert "not a message" in error_of("layer { convolution_param { num_output { } } }", NN012)[0].message
    assert "is a message" in error_of("layer { convolution_param: 3 }", NN012)[0].message
    assert "not repeated" in error_of("layer { convolution_param { num_output: [1, 2] } }", NN012)[0].message
    assert "out of range" in error_of("input_dim: 3000000000", NN012)[0].message
    assert "Couldn't parse float" in error_of("layer { relu_param { negative_slope: abc } }", NN012)[0].message
    assert "octal" in error_of("layer { relu_param { negative_slope: 01.5 } }", NN012)[0].message


def test_syntax_errors():
    e, doc = error_of('name "x"', NN010)
    assert 'Expected ":"' in e.message
    assert doc.message.name == "x"  # the intent is clear: the value is still read
    e, _ = error_of("name: @", NN010)
    assert e.range == Range(Position(0, 0), Position(0, 7)) or "found '@'" in e.message
    e, _ = error_of("}\nname: \"x\"", NN010)
    assert "Unmatched" in e.message and e.range == Range(Position(0, 0), Position(0, 1))
    e, doc = error_of("name: \"x\" 42\ninput: \"data\"", NN010)
    assert "Expected a field name, found '42'" in e.message
    assert list(doc.message.input) == ["data"]  # recovered on the next line
    e, _ = error_of("input_dim: [1, 2 3]", NN010)
    assert "Expected ',' or ']'" in e.message
    e, _ = error_of("layer { name: \"a\" >", NN010)
    assert "Expected '}'" in e.message


def test_missing_brace_before_next_layer_is_recovered():
    text = (
        "layer {\n"
        '  name: "conv1"\n'
        '  type: "Convolution"\n'
        "  convolution_param {\n"
        "    num_output: 8\n"
        "}\n"
        "layer {\n"
        '  name: "relu1"\n'
        '  type: "ReLU"\n'
        "}\n"
    )
    doc = parse_prototxt(text)
    assert codes(doc) == [NN010]
    (e,) = doc.errors
    assert e.range == Range(Position(0, 0), Position(0, 7))  # the unclosed `layer {`
    assert 'the "layer" block is not closed' in e.message and "line 7" in e.message
    assert [ls.name for ls in doc.layers] == ["conv1", "relu1"]
    assert doc.message.layer[0].convolution_param.num_output == 8
    assert doc.message.layer[1].type == "ReLU"


def test_missing_braces_at_eof_one_error_per_open_block():
    doc = parse_prototxt('layer {\n  name: "a"\n  convolution_param {\n    num_output: 1\n')
    assert codes(doc) == [NN010, NN010]
    assert doc.errors[0].range.start == Position(0, 0)
    assert doc.errors[1].range.start == Position(2, 2)
    assert all("never closed" in e.message for e in doc.errors)
    assert doc.message.layer[0].convolution_param.num_output == 1


def test_unknown_field_hints():
    e, _ = error_of('layer { convolution_param { bottom: "x" } }', NN011)
    assert 'caffe.ConvolutionParameter" has no field named "bottom"' in e.message
    assert "enclosing caffe.LayerParameter" in e.message
    e, _ = error_of("layer { pooling_param { ceil_mode: false } }", NN011)
    assert "caffe.PoolingParameter" in e.message
    e, _ = error_of("Layer { }", NN011)
    assert 'Did you mean "layer"?' in e.message


def test_all_problems_in_one_pass_many():
    lines = []
    for k in range(20):
        lines.append(f'layer {{ name: "l{k}" type: "ReLU" botom: "x" relu_param {{ negative_slope: q }} }}')
    doc = parse_prototxt("\n".join(lines))
    assert codes(doc) == [NN011, NN012] * 20
    assert [e.range.start.line for e in doc.errors] == [k // 2 for k in range(40)]
    assert len(doc.message.layer) == 20


def test_errors_are_sorted_and_str():
    doc = parse_prototxt("layer { name: 1 }\nfoo: 2\n}")
    assert [e.range.start for e in doc.errors] == sorted(e.range.start for e in doc.errors)
    assert str(doc.errors[0]).startswith("1:15: NN012")


def test_deep_nesting_does_not_crash():
    text = "layer " + "{ " * 300 + "} " * 300
    doc = parse_prototxt(text)
    assert doc.errors and all(e.code in (NN010, NN011) for e in doc.errors)
    assert not any(e.message.startswith("internal error") for e in doc.errors)


def test_message_type_is_netparameter():
    assert isinstance(parse_prototxt("").message, caffe_pb2.NetParameter)
    assert parse_prototxt("").errors == () and parse_prototxt("  # only a comment\n").comments

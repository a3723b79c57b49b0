"""The formatter: idempotent, message-preserving, comment-keeping, refuses broken text."""

from __future__ import annotations

import random

import pytest
from google.protobuf import text_format
from hypothesis import given, settings
from hypothesis import strategies as st

from nnie_lsp.readers.prototxt import caffe_pb2
from nnie_lsp.readers.prototxt.format import format_edits, format_prototxt
from nnie_lsp.readers.prototxt.reader import parse_prototxt
from nnie_lsp.readers.prototxt.tokenizer import tokenize
from nnie_lsp.core.text import apply_edits

from .conftest import CORPUS, corpus_file, read


def parsed(text):
    m = caffe_pb2.NetParameter()
    text_format.Parse(text, m)
    return m


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name[:40])
def test_corpus_idempotent_and_message_preserving(path):
    text = read(path)
    out = format_prototxt(text)
    assert out is not None
    assert parsed(out) == parsed(text)
    assert format_prototxt(out) == out
    # comments are all kept, in order
    assert [c for _, c in parse_prototxt(out).comments] == [c.rstrip() for _, c in parse_prototxt(text).comments]
    for line in out.split("\n"):
        assert line == line.rstrip()
        stripped = line.lstrip(" ")
        assert (len(line) - len(stripped)) % 2 == 0 and "\t" not in line[: len(line) - len(stripped)]
    assert "\n\n\n" not in out and out.endswith("\n") and not out.startswith("\n")


def test_canonical_layout():
    text = (
        "# proto-message: caffe.NetParameter\n"
        'name:"x"   # the name\n\n\n\n'
        'input: "data" input_shape: { dim: 1 dim: [3, 4] , dim: 5 } # shape\n'
        "layer <\n"
        "  name: 'a' ; type: \"Conv\" \"olution\"  # split\n"
        "\n"
        "      # inside\n"
        '  bottom: "data"\n'
        '  top: "a"\n'
        "  convolution_param { num_output: 3 # three\n"
        "     kernel_size: 3\n"
        "     # before close\n"
        "  }\n"
        ">   # after layer\n"
        "# end"
    )
    expected = (
        "# proto-message: caffe.NetParameter\n"
        'name: "x" # the name\n'
        "\n"
        'input: "data"\n'
        "input_shape {\n"
        "  dim: 1\n"
        "  dim: [3, 4]\n"
        "  dim: 5\n"
        "} # shape\n"
        "layer {\n"
        "  name: 'a'\n"
        '  type: "Conv" "olution" # split\n'
        "  # inside\n"
        '  bottom: "data"\n'
        '  top: "a"\n'
        "  convolution_param {\n"
        "    num_output: 3 # three\n"
        "    kernel_size: 3\n"
        "    # before close\n"
        "  }\n"
        "} # after layer\n"
        "# end\n"
    )
    out = format_prototxt(text)
    assert out == expected
    assert format_prototxt(out) == out
    assert parsed(out) == parsed(text)


def test_crlf_kept():
    text = 'name: "x"\r\nlayer {  name: "a"  # c\r\n}\r\n'
    out = format_prototxt(text)
    assert out == 'name: "x"\r\nlayer {\r\n  name: "a" # c\r\n}\r\n'
    assert format_prototxt(out) == out


def test_refuses_syntax_errors_but_not_unknown_fields():
    assert format_prototxt('layer { name: "a"') is None
    assert format_prototxt('name: "unterminated\n') is None
    assert format_edits("name: @") is None
    out = format_prototxt('layer { botom: "x"   num_output: "3" }')  # NN011 + NN012 only
    assert out == 'layer {\n  botom: "x"\n  num_output: "3"\n}\n'


def test_format_edits():
    assert format_edits('name: "x"\n') == []
    text = 'name:"x"'
    (edit,) = format_edits(text)
    assert apply_edits(text, [edit]) == 'name: "x"\n'
    assert format_prototxt("") == "" and format_prototxt("\n\n") == ""


def test_multiline_adjacent_strings_and_message_lists():
    text = 'name: "a" # c1\n  "b"\ninput_shape: [{ dim: 1 }, { dim: 2 }]\n'
    out = format_prototxt(text)
    assert parsed(out) == parsed(text)
    assert format_prototxt(out) == out
    assert "# c1" in out
    assert out.count("input_shape {") == 2


def _perturb_whitespace(text: str, rnd: random.Random) -> str:
    """Re-space a valid file between tokens (comments untouched, newlines kept after them)."""
    kinds, starts, ends, comments = tokenize(text)
    spans = sorted([(s, e, False) for s, e in zip(starts, ends) if s != e] + [(s, e, True) for s, e in comments])
    out = []
    for s, e, is_comment in spans:
        out.append(text[s:e])
        out.append("\n" if is_comment else rnd.choice([" ", "  ", "\n", "\t", " \n  ", ""]))
    return "".join(out)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([p for p in CORPUS if p.stat().st_size < 60000]), st.integers(0, 10**6))
def test_layout_changes_do_not_change_output_message(path, seed):
    text = read(path)
    noisy = _perturb_whitespace(text, random.Random(seed))
    try:
        expected = parsed(noisy)
    except text_format.ParseError:
        return  # gluing two tokens can change the text's meaning; nothing to compare
    out = format_prototxt(noisy)
    assert out is not None
    assert parsed(out) == expected
    assert format_prototxt(out) == out


def test_yolov3_formats_to_itself_modulo_tabs():
    text = read(corpus_file("yolov3-nnie-model-yolov3"))
    out = format_prototxt(text)
    assert "\t" not in out
    assert out.count("\n") == text.count("\n")

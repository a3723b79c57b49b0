"""Property tests: the reader never raises, and agrees with text_format on mutated real files."""

from __future__ import annotations

from google.protobuf import text_format
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nnie_lsp.readers.prototxt import caffe_pb2
from nnie_lsp.readers.prototxt.format import format_prototxt
from nnie_lsp.readers.prototxt.reader import parse_prototxt

from .conftest import CORPUS, read

TEXTS = [read(p) for p in CORPUS]
SMALL = [t for t in TEXTS if len(t) < 40000]

ALPHABET = st.sampled_from(list("{}<>[]:;,#\"'\\\n\t -.0123456789efxabcdnlyrmtupIF_") + [
    "layer", "name", "type", "bottom", "top", "convolution_param", "num_output", "dim",
    "input_shape", "pool", "MAX", "true", "inf", "\r\n", "\ufeff", "\u00e9", "\x00", "0x1F", "1e-5",
])


def _check_invariants(text: str):
    doc = parse_prototxt(text)
    assert not any(e.message.startswith("internal error") for e in doc.errors), doc.errors
    li = doc.line_index
    n = len(text)
    for e in doc.errors:
        assert e.code in ("NN010", "NN011", "NN012")
        assert 0 <= li.offset(e.range.start) <= li.offset(e.range.end) <= n
    for node in doc.walk():
        assert node.name_range.start <= node.range.end
        node.value_text  # noqa: B018 - must not raise
    for ls in doc.layers:
        ls.name_range, ls.type_range, ls.bottoms, ls.tops, ls.type  # noqa: B018
    return doc


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ALPHABET, max_size=80).map("".join))
def test_never_raises_on_random_text(text):
    _check_invariants(text)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200))
def test_never_raises_on_arbitrary_unicode(text):
    _check_invariants(text)


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(SMALL))
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["delete", "insert", "duplicate", "swap"]))
        a = draw(st.integers(0, max(0, len(text) - 1)))
        if op == "delete":
            b = a + draw(st.integers(1, 12))
            text = text[:a] + text[b:]
        elif op == "insert":
            text = text[:a] + draw(ALPHABET) + text[a:]
        elif op == "duplicate":
            b = a + draw(st.integers(1, 40))
            text = text[:b] + text[a:b] + text[b:]
        else:
            b = min(len(text) - 1, a + draw(st.integers(1, 30)))
            if b > a:
                text = text[:a] + text[b] + text[a + 1:b] + text[a] + text[b + 1:]
    return text


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_corpus_agrees_with_text_format(text):
    """text_format accepts the text <=> the reader reports no error, and then same message."""
    doc = _check_invariants(text)
    expected = caffe_pb2.NetParameter()
    try:
        text_format.Parse(text, expected)
        ok = True
    except text_format.ParseError:
        ok = False
    if ok:
        assert doc.errors == ()
        assert doc.message.SerializeToString(deterministic=True) == expected.SerializeToString(deterministic=True)
        formatted = format_prototxt(text)
        assert formatted is not None
        again = caffe_pb2.NetParameter()
        text_format.Parse(formatted, again)
        assert again.SerializeToString(deterministic=True) == expected.SerializeToString(deterministic=True)
        assert format_prototxt(formatted) == formatted
    else:
        assert doc.errors, "text_format rejects the text but the reader found no problem"

"""The reader's line-at-a-time fast path must give exactly what the general parser gives.

Differential test: every text is parsed twice, once normally and once with the fast path switched
off, and the message, source tree, layers, errors and comments are compared.
"""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from nnie_lsp.readers.prototxt import fast_path, reader
from nnie_lsp.testing.synth_nets import generate_big_prototxt

from .conftest import CORPUS, read

_REAL_FAST = reader.fast_parse


def _parse(text: str, slow: bool):
    reader.fast_parse = (lambda *a: None) if slow else _REAL_FAST
    try:
        return reader.parse_prototxt(text)
    finally:
        reader.fast_parse = _REAL_FAST


def _key(doc):
    def nk(n):
        return (n[0], n[1], n[2], tuple(nk(c) for c in n[3]), n[5:11], n[11])
    return (doc.message.SerializeToString(deterministic=True), str(doc.message),
            tuple(nk(n) for n in doc.nodes),
            tuple((l.index, nk(l.node), l.param.SerializeToString(deterministic=True), l.is_v1, l.name, l.type)
                  for l in doc.layers),
            tuple((e.code, e.message, e.range) for e in doc.errors), doc.comments, doc.message_type)


EDGE = ['input_shape { }', 'layer { convolution_param { weight_filler { } num_output: 3 } }', 'layer < param < > >',
        'layer { include { phase: TEST } }', 'force_backward: 1', 'layer { top: "a" top: "b" bottom: \'c\' }',
        'layer { convolution_param { kernel_size: 3 kernel_size: 0x3 } }', 'name: "a"\n' + 'layer { ' * 70 + '}' * 70,
        'name: "a" ;\nname: "b"', 'input: "a"\n"b"', 'name: "a"\nlayer { name: "y" foo: 1 }\nlayer { name: "z" }',
        '# c1\nlayer { # c2\n name: "x" # c3\n bad: 1 # c4\n}\n# c5\n', 'layer { name: "x" }\n}\nlayer { name: "y" }',
        'layer { name: "x"\n', 'layer { name: "x" >', 'input: "a", input: "b"', 'debug_info: 1 "x"', '; name: "x"']
TEXTS = [read(p) for p in CORPUS] + [generate_big_prototxt(40)] + EDGE
MUT = ["", " ", "\n", ";", ",", '"', "'", "#x\n", "{", "}", "<", ">", ":", "\\", "a", "1", "-", ".", "\ufeff",
       "[", "]", "\t", "0x1F", "1e5", "inf", "true", "é"]


def test_the_switch_above_is_the_fast_path_the_reader_calls():
    calls = []

    def spy(*args):
        calls.append(args[0])
        return _REAL_FAST(*args)

    reader.fast_parse = spy
    try:
        reader.parse_prototxt('name: "a"')
    finally:
        reader.fast_parse = _REAL_FAST
    assert calls == ['name: "a"']
    assert _REAL_FAST is fast_path.fast_parse


def test_fast_path_equals_general_parser_on_corpus_and_edge_cases():
    for t in TEXTS:
        for variant in (t, "\ufeff" + t, t.replace("{", "<").replace("}", ">")):
            assert _key(_parse(variant, False)) == _key(_parse(variant, True)), variant[:200]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(TEXTS), st.integers(0, 10**9), st.sampled_from(MUT), st.sampled_from([0, 0, 1, 2, 5]))
def test_fast_path_equals_general_parser_on_mutations(text, pos, insert, cut):
    pos %= len(text) + 1
    t = text[:pos] + insert + text[pos + cut:]
    assert _key(_parse(t, False)) == _key(_parse(t, True))

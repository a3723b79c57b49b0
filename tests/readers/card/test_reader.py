"""The model card reader: values, exact ranges, positioned problems (nnie_lsp/readers/card/reader.py)."""

from __future__ import annotations

import os

import pytest

from nnie_lsp.readers.card.locate import Header, Pair, locate
from nnie_lsp.readers.card.reader import parse_card
from nnie_lsp.readers.card.schema import KEYS, suggest
from nnie_lsp.core.records import FrozenInstanceError

CARD = '''# how the nets were trained
[[model]]
prototxt = "model/yuface.prototxt"   # relative to this file
channel_order = "BGR"
mean = [104, 117,
        123]
scale = 1.0
transpose = false
source = "detect.py:42"

[[model]]
prototxt = 'mtcnn/det1.prototxt'
channel_order = "RGB"
mean = 127.5
scale = 0.0078125
transpose = true
'''


def _at(doc, line: int) -> list[str]:
    """The message ids of the problems starting on 1-based `line`."""
    return [p.msg_id for p in doc.problems if p.range.start.line + 1 == line]


def test_values_and_ranges():
    doc = parse_card(CARD, "/p/nnie.toml")
    assert doc.ok and not doc.problems
    yu, det1 = doc.models
    assert (yu.prototxt, yu.channel_order, yu.mean, yu.scale, yu.transpose) == (
        "model/yuface.prototxt", "BGR", (104.0, 117.0, 123.0), (1.0,), False)
    assert yu.source == "detect.py:42"
    assert yu.prototxt_path == os.path.normpath("/p/model/yuface.prototxt")
    # exact ranges: the key, and the whole value (the array spans two lines)
    assert str(yu.key_range("channel_order")) == "4:1-4:14"
    assert str(yu.value_range("channel_order")) == "4:17-4:22"
    assert str(yu.value_range("mean")) == "5:8-6:13"
    assert str(yu.header_range) == "2:1-2:10"
    assert yu.where("scale") == "nnie.toml:7"
    assert det1.means(3) == (127.5, 127.5, 127.5) and det1.uniform_scale == 0.0078125
    assert det1.transpose is True and det1.channels == 3
    assert det1.describe() == "RGB, mean 127.5, scale 0.0078125, transposed (H and W swapped)"


def test_immutable():
    doc = parse_card(CARD)
    with pytest.raises(FrozenInstanceError):
        doc.models[0].channel_order = "RGB"


def test_digest_is_stable_and_semantic():
    a = parse_card(CARD).models[0]
    same = parse_card(CARD.replace("[104, 117,\n        123]", "[104.0, 117.0, 123.0]")
                      .replace('source = "detect.py:42"', "# comment only")).models[0]
    other = parse_card(CARD.replace('"BGR"', '"RGB"')).models[0]
    assert a.digest() == same.digest()
    assert a.digest() != other.digest()
    assert len(a.digest()) == 64


def test_syntax_error_is_positioned():
    doc = parse_card('[[model]]\nprototxt = "a.prototxt\nchannel_order = "BGR"\n')
    (p,) = doc.problems
    assert p.msg_id == "syntax" and p.severity == "error"
    assert p.range.start.line == 1
    assert "TOML syntax error" in p.message and "at line" not in p.message
    assert doc.models == ()


def test_unknown_keys_did_you_mean():
    doc = parse_card('[[model]]\nprototxt = "a.prototxt"\nchanel_order = "BGR"\nstd = [58.4, 57.1, 57.4]\n'
                     'rgb_order = "RGB"\n[extra]\nx = 1\n')
    ids = {p.range.start.line + 1: (p.msg_id, p.suggestion) for p in doc.problems}
    assert ids[3] == ("unknown_key", "channel_order")
    assert "did you mean `channel_order`" in next(p.message for p in doc.problems if p.range.start.line == 2)
    assert ids[4] == ("std_key", "scale")
    assert ids[5] == ("unknown_key", "channel_order")
    assert ids[6][0] == "unknown_top"
    bad = next(p for p in doc.problems if p.range.start.line == 2)
    assert str(bad.range) == "3:1-3:13" and bad.replace == bad.range


def test_wrong_types_lengths_values():
    text = ('[[model]]\nprototxt = "a.prototxt"\nchannel_order = "RBG"\nmean = [1, 2]\nscale = "1/255"\n'
            'transpose = "yes"\n[[model]]\nprototxt = "b.prototxt"\nchannel_order = "GRAY"\nmean = [1, 2, 3]\n'
            'scale = -1\n')
    doc = parse_card(text)
    assert _at(doc, 3) == ["choice"]
    assert _at(doc, 4) == ["length_no_order"]          # the order is invalid: no order to count by
    assert _at(doc, 5) == ["type"] and _at(doc, 6) == ["type"]
    assert _at(doc, 10) == ["length"] and _at(doc, 11) == ["scale_positive"]
    a, b = doc.models
    assert a.channel_order is None and a.mean is None and a.scale is None and a.transpose is None
    assert b.channel_order == "GRAY" and b.mean is None and b.scale is None
    msg = next(p.message for p in doc.problems if p.msg_id == "length")
    assert msg == "`mean` holds 3 values; channel_order GRAY takes 1"
    assert next(p.message for p in doc.problems if p.msg_id == "type" and p.key == "scale") == \
        "`scale` must be a number or a list of numbers, not a string"
    # lowercase orders are the same order
    assert parse_card('[[model]]\nprototxt = "a"\nchannel_order = "rgb"\n').models[0].channel_order == "RGB"


def test_units_warnings():
    doc = parse_card('[[model]]\nprototxt = "a.prototxt"\nmean = [0.485, 0.456, 0.406]\nscale = [58.395, 57.12, 57.375]\n')
    assert [(p.msg_id, p.severity) for p in doc.problems] == [("mean_unit", "warning"), ("scale_unit", "warning")]
    assert "[123.675, 116.28, 103.53]" in doc.problems[0].message
    assert doc.ok   # warnings only; the values are kept as written
    assert doc.models[0].mean == (0.485, 0.456, 0.406)


def test_structure_problems():
    assert [p.msg_id for p in parse_card('[model]\nprototxt = "a"\n').problems] == ["not_array"]
    assert [p.msg_id for p in parse_card('[[model]]\nchannel_order = "BGR"\n').problems] == ["required"]
    assert [p.msg_id for p in parse_card('[[model]]\nprototxt = "a"\n').problems] == ["no_values"]
    assert [p.msg_id for p in parse_card('# nothing yet\n').problems] == ["no_models"]
    dup = parse_card('[[model]]\nprototxt = "a.prototxt"\nscale = 1\n[[model]]\nprototxt = "./a.prototxt"\nscale = 2\n')
    (p,) = dup.problems
    assert p.msg_id == "duplicate" and p.range.start.line == 4 and "line 1" in p.message
    both = parse_card('[[model]]\nprototxt = "a"\nmean = 1\nmean_file = "m.binaryproto"\n')
    assert [p.msg_id for p in both.problems] == ["mean_twice"]
    kind = parse_card('[[model]]\nprototxt = "a"\nmean_file = "mean.txt"\n')
    assert [p.msg_id for p in kind.problems] == ["mean_file_kind"]


def test_inline_models_have_ranges_of_the_key():
    doc = parse_card('model = [{prototxt = "a.prototxt", channel_order = "BGR"}]\n')
    (m,) = doc.models
    assert m.channel_order == "BGR" and m.header_range.start.line == 0


def test_reserved_keys():
    doc = parse_card('[[model]]\nprototxt = "a"\nchip = "hi3516dv300"\nboard_memory = "64 MiB"\nscale = 1\n')
    (m,) = doc.models
    assert (m.chip, m.board_memory) == ("Hi3516DV300", 64 << 20)
    bad = parse_card('[[model]]\nprototxt = "a"\nboard_memory = "lots"\nchip = "Hi9999"\nscale = 1\n')
    assert sorted(p.msg_id for p in bad.problems) == ["board_memory", "choice"]


def test_file_problems(tmp_path):
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "yuface.prototxt").write_text("name: 'x'\n")
    doc = parse_card('[[model]]\nprototxt = "model/yface.prototxt"\nscale = 1\n', str(tmp_path / "nnie.toml"))
    (p,) = doc.file_problems()
    assert p.msg_id == "missing_file" and p.suggestion == "model/yuface.prototxt"
    assert 'did you mean "model/yuface.prototxt"' in p.message
    assert str(p.range) == "2:12-2:34"
    ok = parse_card('[[model]]\nprototxt = "model/yuface.prototxt"\nscale = 1\n', str(tmp_path / "nnie.toml"))
    assert ok.file_problems() == ()


def test_every_problem_has_both_languages():
    texts = ['[[model]]\nprototxt = "a\n', '[model]\nx=1\n', '[[model]]\nchanel = 1\nstd = 1\nmean = [0.5]\n'
             'scale = [100]\ntranspose = 1\n', '[[model]]\nprototxt = "a"\n']
    for text in texts:
        for p in parse_card(text).problems:
            assert p.message and p.message_zh and p.message != p.message_zh


def test_locate_skips_strings_and_comments():
    text = ('a = """x = 1\n[not a header]\n"""\n# [nor this]\n[t] # c\nb = [1, # c ]\n 2]\n'
            'c = { d = "}" }\n[[u.v]]\n"q.k" = \'\'\'lit\n\'\'\'\n')
    items = locate(text)
    heads = [i.keys for i in items if isinstance(i, Header)]
    pairs = [(i.keys, i.table) for i in items if isinstance(i, Pair)]
    assert heads == [("t",), ("u", "v")]
    assert pairs == [(("a",), ()), (("b",), ("t",)), (("c",), ("t",)), (("q.k",), ("u", "v"))]
    b = next(i for i in items if isinstance(i, Pair) and i.keys == ("b",))
    assert str(b.value_range) == "6:5-7:4"


def test_schema_keys_are_documented():
    names = [k.name for k in KEYS]
    assert names[:5] == ["prototxt", "channel_order", "mean", "mean_file", "scale"]
    for k in KEYS:
        assert all(k.summary) and all(k.doc) and k.example
    assert suggest("Channel-Order") == "channel_order" and suggest("zzz") is None


def test_any_text_reads_without_an_exception():
    from hypothesis import given, settings, strategies as st

    alphabet = st.sampled_from(list('[]{}"\'=.,#\n \t\\abc_019-') + ['"""', "'''", "[[model]]", "prototxt", "mean"])

    @settings(max_examples=300, deadline=None)
    @given(st.lists(alphabet, max_size=40).map("".join))
    def read(text):
        doc = parse_card(text, "/tmp/x/nnie.toml")
        for p in doc.problems:
            assert p.message and p.range.start <= p.range.end
        locate(text)

    read()


def test_an_unterminated_quoted_key_reads_without_an_exception():
    # found by the test above: the quoted key's escape ran past the end of the text
    for text in ('"\\', '"a\\', 'a."\\', '"'):
        doc = parse_card(text, "/tmp/x/nnie.toml")
        assert [p.msg_id for p in doc.problems] == ["syntax"]
        locate(text)

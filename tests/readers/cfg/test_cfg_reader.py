"""Reader tests: grammar acceptance on the real corpus, exact ranges, encodings, error recovery."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nnie_lsp.readers.cfg.reader import CfgDocument, looks_like_mapper_cfg, parse_cfg, read_cfg
from nnie_lsp.readers.cfg import reader as reader_mod
from nnie_lsp.core.text import LineIndex, Range, encode

DATA = Path(__file__).resolve().parents[2] / "data" / "cfg"

# file -> (entries, full-line comments); counted by hand from the files
CORPUS = {
    "Strand2013__NNIE-lite__Converter-ENet-model_inst.cfg": (16, 0),
    "hanson-young__nniefacelib__issue-29-retinaface_yuv420sp.cfg": (16, 0),
    "mindspore-ai__docs__docs-lite-docs-source_en-use-nnie.md.nnie.cfg": (5, 0),
    "rinetd__nnie_mapper__nnie_mapper-README.md.annotated.cfg": (16, 0),
    "rinetd__nnie_mapper__nnie_mapper-yolov3_func.cfg": (16, 0),
    "rinetd__nnie_mapper__nnie_mapper-yolov3_inst.cfg": (16, 14),
    "unresolved__ntk-doc__multi_input_NET.cfg": (19, 0),
    "zhihu_p107548509__mobilefacenet.cfg": (16, 0),
}
INST = DATA / "rinetd__nnie_mapper__nnie_mapper-yolov3_inst.cfg"
FUNC = DATA / "rinetd__nnie_mapper__nnie_mapper-yolov3_func.cfg"
ANNOTATED = DATA / "rinetd__nnie_mapper__nnie_mapper-README.md.annotated.cfg"


def slice_range(doc: CfgDocument, r: Range) -> str:
    idx = doc.line_index
    return doc.text[idx.offset(r.start):idx.offset(r.end)]


def assert_ranges_consistent(doc: CfgDocument) -> None:
    for i, e in enumerate(doc.entries):
        assert e.index == i
        assert slice_range(doc, e.key_range) == e.key
        assert slice_range(doc, e.bracket_range) == f"[{e.key}]"
        assert slice_range(doc, e.value_range) == e.value
        assert slice_range(doc, e.raw_value_range) == e.raw_value
        assert slice_range(doc, e.line_range) == doc.line_index.line_text(e.line)
        for r in (e.key_range, e.bracket_range, e.value_range, e.raw_value_range):
            assert r.start.line == r.end.line == e.line
        assert e.raw_value == e.raw_value.strip(" \t")
        assert e.value == e.value.strip()
        assert e.raw_value.startswith(e.value)
        if e.inline_comment_range is not None:
            comment = slice_range(doc, e.inline_comment_range)
            assert comment.startswith("#") and e.raw_value.endswith(comment)
            assert e.inline_comment == comment[1:]
        else:
            assert e.value == e.raw_value
    for c in doc.comments:
        assert slice_range(doc, c.range) == "#" + c.text


def test_corpus_copied():
    assert sorted(p.name for p in DATA.glob("*.cfg")) == sorted(CORPUS)


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_corpus_parses_without_errors(name):
    doc = read_cfg(str(DATA / name))
    assert doc.errors == ()
    assert (len(doc.entries), len(doc.comments)) == CORPUS[name]
    assert len(doc.line_kinds) == doc.line_index.line_count
    assert_ranges_consistent(doc)
    assert doc.encoding == "utf-8" and doc.bom is False and doc.newline == "\n"
    assert looks_like_mapper_cfg(doc.text)


def test_double_space_after_bracket():
    doc = read_cfg(str(INST))
    e = doc.entries[1]
    assert (e.key, e.line) == ("caffemodel_file", 5)
    assert e.value == "./data/detection/yolov3-drone/model/yolov3-voc.caffemodel"
    assert e.bracket_range == Range.of(5, 0, 5, 17)
    assert e.key_range == Range.of(5, 1, 5, 16)
    assert e.value_range == Range.of(5, 19, 5, 19 + len(e.value))
    assert e.line_range == Range.of(5, 0, 5, 19 + len(e.value))


def test_full_line_comments_kept():
    doc = read_cfg(str(INST))
    assert [c.range.start.line for c in doc.comments] == [0, 1, 2, 3, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]
    assert doc.comments[0].text == " [prototxt_file] ../data/caffemodel/yolov3-voc.prototxt"
    assert doc.comments[2].text == "" and doc.comments[2].range == Range.of(2, 0, 2, 1)
    assert doc.comments[3].text == " yolov3-voc 2种分类"
    assert doc.comments[0].looks_like_entry()
    assert doc.comments[8].looks_like_entry()  # line 11: "# [instruction_name] ..."
    assert not doc.comments[5].looks_like_entry()  # "# # yolov3-voc 20种分类"
    assert not doc.comments[3].looks_like_entry()
    assert doc.line_kinds[:5] == ("comment",) * 4 + ("entry",)
    assert doc.first("prototxt_file").line == 4
    assert [e.line for e in doc.get("instruction_name")] == [6]


def test_trailing_space_and_inline_comments():
    doc = read_cfg(str(ANNOTATED))
    text_lines = doc.text.split("\n")
    rgb = doc.first("RGB_order")
    assert text_lines[rgb.line] == "[RGB_order] BGR "
    assert (rgb.value, rgb.raw_value) == ("BGR", "BGR")
    assert rgb.value_range == Range.of(rgb.line, 12, rgb.line, 15)
    assert rgb.line_range == Range.of(rgb.line, 0, rgb.line, 16)
    assert rgb.inline_comment_range is None

    proto = doc.first("prototxt_file")
    line0 = text_lines[0]
    assert proto.value == "./yolov3.prototxt"
    assert proto.value_range == Range.of(0, 17, 0, 34)  # double space after ']'
    hash_col = line0.index("#")
    assert proto.inline_comment_range == Range.of(0, hash_col, 0, len(line0.rstrip()))
    assert proto.raw_value == line0[17:].rstrip()
    assert proto.inline_comment == " caffe 的prototxt"

    net = doc.first("net_type")  # value then only padding spaces
    assert (net.value, net.raw_value, net.inline_comment_range) == ("0", "0", None)
    scale = doc.first("data_scale")
    assert scale.value == "0.0039062"
    assert scale.inline_comment.startswith(" 0.00390625 = 1/ 256")
    assert sum(e.inline_comment_range is not None for e in doc.entries) == 13
    assert "blank" in doc.line_kinds  # blank line inside the block


def test_no_final_newline():
    doc = read_cfg(str(FUNC))
    assert not doc.text.endswith("\n")
    last = doc.entries[-1]
    assert (last.key, last.value, last.line) == ("norm_type", "3", 15)
    assert last.value_range == Range.of(15, 12, 15, 13)
    assert doc.line_index.line_count == 16


def _entries_sig(doc):
    return [(e.key, e.value, e.raw_value, e.key_range, e.value_range, e.inline_comment_range)
            for e in doc.entries]


def test_crlf_and_bom(tmp_path):
    base = read_cfg(str(INST))
    data = base.text.replace("\n", "\r\n").encode("utf-8")
    p = tmp_path / "crlf_bom.cfg"
    p.write_bytes(codecs.BOM_UTF8 + data)
    doc = read_cfg(str(p))
    assert doc.errors == ()
    assert doc.bom is True and doc.newline == "\r\n" and doc.encoding == "utf-8"
    assert _entries_sig(doc) == _entries_sig(base)
    assert [c.text for c in doc.comments] == [c.text for c in base.comments]
    # write-back keeps the bytes
    assert encode(doc.text, doc.encoding, doc.bom) == p.read_bytes()


def test_bom_char_left_in_text_is_tolerated():
    doc = parse_cfg("\ufeff[norm_type] 3\n[image_type] 1\n")
    assert doc.errors == () and doc.bom
    e = doc.entries[0]
    assert e.key == "norm_type" and e.bracket_range == Range.of(0, 1, 0, 12)
    assert e.value_range == Range.of(0, 13, 0, 14)


def test_gbk_comments(tmp_path):
    text = INST.read_text(encoding="utf-8") + "[norm_type] 3    # 归一化方式\n"
    p = tmp_path / "gbk.cfg"
    p.write_bytes(text.encode("gbk"))
    doc = read_cfg(str(p))
    assert doc.encoding == "gb18030" and not doc.bom
    assert doc.errors == ()
    assert doc.comments[3].text == " yolov3-voc 2种分类"
    last = doc.entries[-1]
    assert last.value == "3" and last.inline_comment == " 归一化方式"
    assert encode(doc.text, doc.encoding, doc.bom) == p.read_bytes()


def test_error_line_in_middle_keeps_other_entries():
    lines = FUNC.read_text(encoding="utf-8").split("\n")
    bad = lines[:8] + ["image_list = ./list.txt"] + lines[8:]
    base = parse_cfg("\n".join(lines))
    doc = parse_cfg("\n".join(bad))
    assert len(doc.errors) == 1
    err = doc.errors[0]
    assert err.range == Range.of(8, 0, 8, len("image_list = ./list.txt"))
    assert "INI" in err.message and err.message_zh
    assert [e.key for e in doc.entries] == [e.key for e in base.entries]
    assert [e.line for e in doc.entries] == [e.line + (e.line >= 8) for e in base.entries]
    assert doc.line_kinds[8] == "error"
    assert_ranges_consistent(doc)


@pytest.mark.parametrize(
    "line, fragment",
    [
        ("key = value", "INI"),
        ("[norm_type 3", "missing ']'"),
        ("[norm_type]3", "missing space"),
        ("[ norm_type ] 3", "whitespace inside"),
        ("[] 3", "empty key"),
        ("[norm_type]\u30003", "full-width"),
        ("// [norm_type] 3", "only '#'"),
        ("; comment", "only '#'"),
        ("norm_type", "not a cfg line"),
        ("  some text [x] y", "not a cfg line"),
        ("[a[b] c", "'[' inside"),
    ],
)
def test_error_lines(line, fragment):
    doc = parse_cfg(f"[net_type] 0\n{line}\n[image_type] 1\n")
    assert [e.key for e in doc.entries] == ["net_type", "image_type"]
    assert len(doc.errors) == 1, doc.errors
    assert fragment in doc.errors[0].message
    assert doc.errors[0].range.start.line == 1
    assert doc.errors[0].message_zh


@pytest.mark.parametrize(
    "line, key, value, raw, value_col",
    [
        ("[image_list]\t./a.txt", "image_list", "./a.txt", "./a.txt", 13),
        ("[image_list] \t ./a.txt \t", "image_list", "./a.txt", "./a.txt", 15),
        ("[mean_file]", "mean_file", "", "", 11),
        ("[mean_file]   ", "mean_file", "", "", 14),
        ("[mean_file]   # none", "mean_file", "", "# none", 14),
        ("[prototxt_file] C:\\My Models\\a b.prototxt", "prototxt_file",
         "C:\\My Models\\a b.prototxt", "C:\\My Models\\a b.prototxt", 16),
        ("[image_list] /data/my list#1.txt", "image_list", "/data/my list#1.txt",
         "/data/my list#1.txt", 13),
        ("[image_list] ./a.txt #x #y", "image_list", "./a.txt", "./a.txt #x #y", 13),
        ("  [norm_type] 3", "norm_type", "3", "3", 14),
        ("[RGB_order] BGR\r", "RGB_order", "BGR", "BGR", 12),
        ("[数据] 值", "数据", "值", "值", 5),
    ],
)
def test_accepted_lines(line, key, value, raw, value_col):
    doc = parse_cfg(line + "\n# end\n")
    assert doc.errors == ()
    (e,) = doc.entries
    assert (e.key, e.value, e.raw_value) == (key, value, raw)
    assert e.value_range.start.character == value_col
    assert e.value_range.end.character == value_col + len(value)
    assert_ranges_consistent(doc)


def test_indented_comment_and_entry_lookup():
    doc = parse_cfg("   # indented\n[a] 1\n[a] 2\n")
    assert doc.comments[0].range == Range.of(0, 3, 0, 13)
    assert [e.value for e in doc.get("a")] == ["1", "2"]
    assert doc.first("a").value == "1" and doc.first("b") is None and doc.get("b") == ()
    assert doc.keys() == ("a",)
    assert doc.entry_at_line(2).value == "2"
    from nnie_lsp.core.text import Position
    assert doc.entry_at(Position(1, 4)).value == "1"
    assert doc.entry_at(Position(0, 2)) is None


def test_empty_document():
    for text in ("", "\n", "   \n\n"):
        doc = parse_cfg(text)
        assert doc.entries == () and doc.errors == () and doc.comments == ()
        assert not looks_like_mapper_cfg(text)


# ---------------------------------------------------------------- looks_like_mapper_cfg

SETUP_CFG = """[metadata]
name = nnie-lsp
version = 0.1

[options]
packages = find:
"""
TOX_INI = """[tox]
envlist = py311

[testenv]
deps = pytest
commands = pytest {posargs}
"""
FLAKE8 = "[flake8]\nmax-line-length = 100\n"


@pytest.mark.parametrize("text", [SETUP_CFG, TOX_INI, FLAKE8, "", "# [image_list] x\n", "hello"])
def test_not_mapper_cfg(text):
    assert not looks_like_mapper_cfg(text)


@pytest.mark.parametrize("text", [
    "[norm_type] 3\n",
    "\ufeff[net_type] 0",
    "# comment\n  [rgb_order] RGB\n",
    "[insert_op_conf] ./aipp.cfg\n[input_shape] data:1,3,224,224\n",  # dpico cfg
    "[gfpq_param_file]\n",
])
def test_is_mapper_cfg(text):
    assert looks_like_mapper_cfg(text)


# ---------------------------------------------------------------- properties

_ALPHABET = st.sampled_from(list("[]# \t\r\n=abc_01.;/\\") + ["\u3000", "类", "\ufeff", "\x00"])


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=_ALPHABET, max_size=80) | st.text(max_size=60))
def test_parse_never_raises_and_classifies_every_line(text):
    doc = parse_cfg(text)
    n = LineIndex(text).line_count
    assert len(doc.line_kinds) == n
    lines = [e.line for e in doc.entries] + [c.range.start.line for c in doc.comments] + [
        x.range.start.line for x in doc.errors]
    assert len(lines) == len(set(lines))  # at most one item per line
    assert sorted(lines) == [i for i, k in enumerate(doc.line_kinds) if k != "blank"]
    assert_ranges_consistent(doc)


_KEY = st.text(alphabet=st.sampled_from(list("abcdefghijklmnopqrstuvwxyz_RGB0123456789")),
               min_size=1, max_size=20)
_WORD = st.text(alphabet=st.sampled_from(list("abcxyz./\\:-_0123456789#类")), min_size=1,
                max_size=12).filter(lambda w: not w.startswith("#"))
_VALUE = st.lists(_WORD, min_size=0, max_size=4).map(" ".join)
_BLANK = st.text(alphabet=st.sampled_from([" ", "\t"]), min_size=1, max_size=3)
_ENTRY = st.tuples(_KEY, _BLANK, _VALUE, st.sampled_from(["", " ", "\t "]),
                   st.one_of(st.none(), st.text(alphabet=st.sampled_from(list("ab #类")),
                                                max_size=8)))
_LINE = st.one_of(_ENTRY, st.just("blank"), st.text(alphabet=st.sampled_from(list("ab #")),
                                                    max_size=8).map(lambda t: "#" + t))


@settings(max_examples=300)
@given(st.lists(_LINE, max_size=20), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_generated_cfgs_round_trip(lines, newline, final_newline):
    rendered, expected = [], []
    for item in lines:
        if item == "blank":
            rendered.append("")
        elif isinstance(item, str):
            rendered.append(item)
        else:
            key, sep, value, trail, comment = item
            text = f"[{key}]"
            if value or comment is not None:
                text += sep + value
                if comment is not None:
                    text += (" " if value else "") + "#" + comment
            text += trail
            rendered.append(text)
            expected.append((key, value))
    text = newline.join(rendered) + (newline if final_newline and rendered else "")
    doc = parse_cfg(text)
    assert doc.errors == ()
    assert [(e.key, e.value) for e in doc.entries] == expected
    assert_ranges_consistent(doc)
    # re-render the entries and parse again: same keys/values
    again = parse_cfg("\n".join(f"[{e.key}] {e.value}" for e in doc.entries))
    assert [(e.key, e.value) for e in again.entries] == expected
    assert again.errors == ()


# ---------------------------------------------------------------- line cache


def test_line_cache_gives_the_same_document():
    """Re-parsing unchanged lines comes from the per-line cache and must give equal entries."""
    src = INST.read_text(encoding="utf-8").splitlines()
    lines = [f"{line}  # note {i}" if line.startswith("[") else line
             for i, line in enumerate((src * 4)[:100])]
    text = "\n".join(lines) + "\n"
    reader_mod._parse_line.cache_clear()
    cold = parse_cfg(text)
    warm = parse_cfg(text)
    assert reader_mod._parse_line.cache_info().hits > 0
    assert len(cold.line_kinds) == 101 and not cold.errors
    assert [(e.key, e.value, e.key_range, e.value_range, e.inline_comment_range) for e in cold.entries] == \
        [(e.key, e.value, e.key_range, e.value_range, e.inline_comment_range) for e in warm.entries]

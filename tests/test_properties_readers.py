"""Property tests for every reader of a user's file, from raw BYTES (the way files reach them).

The text-level properties live beside each reader (tests/readers/cfg/test_cfg_reader.py,
tests/readers/prototxt/test_reader_fuzz.py, tests/readers/mapper/test_mapper_log.py, tests/readers/mapper/test_nettree.py);
here the input is what a disk holds: arbitrary bytes, and real corpus files mutated at the byte
level (broken UTF-8, GBK, BOMs, NULs, CR, truncation), decoded the way every file is decoded
(``nnie_lsp.core.text.decode``).  For the cfg, prototxt, mapper log and dot readers:

- they never raise;
- every range they report lies inside the document;
- the same bytes give the same result (read twice, and once more with the reader's caches empty).

The dump readers raise ``ValueError`` naming the file for content that is not numbers (their
documented contract) and nothing else; the dump-name parser never raises.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from nnie_lsp.readers.cfg import reader as cfg_reader
from nnie_lsp.readers.dumpio.names import parse_dump_name, shape_readings
from nnie_lsp.readers.dumpio.readers import parse_hex_words, parse_text_floats
from nnie_lsp.readers.dumpio.writers import cpp_stream_text
from nnie_lsp.readers.mapper.log import looks_like_mapper_log, parse_mapper_log
from nnie_lsp.readers.mapper.nettree import parse_net_tree
from nnie_lsp.readers.prototxt.graph import build_graph
from nnie_lsp.readers.prototxt.reader import parse_prototxt
from nnie_lsp.core.text import LineIndex, Range, decode

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"


def _files(folder: Path, pattern: str, limit: int = 40_000) -> list[bytes]:
    return [p.read_bytes() for p in sorted(folder.glob(pattern)) if p.stat().st_size <= limit]


CFGS = _files(DATA / "cfg", "*.cfg")
PROTOTXTS = _files(DATA / "prototxt" / "real", "*.prototxt") + _files(DATA / "prototxt" / "models", "*/*.prototxt")
LOGS = _files(DATA / "mapper", "*.log", 200_000)
DOTS = _files(DATA / "mapper", "*.dot", 200_000) + _files(DATA / "triage" / "real_shapes", "*.dot")
DUMPS = [p.read_bytes()[:6000] for p in sorted((REPO / "examples" / "triage" / "channel_swap").rglob("*.linear.*"))]
HEX_DUMPS = [d for d, p in zip(DUMPS, sorted((REPO / "examples" / "triage" / "channel_swap").rglob("*.linear.*")))
             if p.name.endswith(".hex")]
FLOAT_DUMPS = [d for d in DUMPS if d not in HEX_DUMPS]
# the mapper's dequantized text in its real form (C++ stream output, six significant digits)
FLOAT_DUMPS += [cpp_stream_text(np.float32([0.353553, 0.0743254, 0.25, 0, -0.0, 1.5e-5, -7.62939e-06, 1234567,
                                            0.000123457, 12345.6, np.inf, -np.nan] * 20)),
                cpp_stream_text((2.0 ** (-np.arange(128) / 16)).astype(np.float32))]

# bytes that stress decoding and line handling
NASTY = [b"\x00", b"\r", b"\r\n", b"\n", b"\xef\xbb\xbf", b"\xff\xfe", b"\xc3", b"\xe4\xb8\xad", b"\xd6\xd0",
         b"\x81\x30\x81\x30", b"\t", b"\x0b", b"\x0c", b"\xe3\x80\x80", b"\xc2\xa0", b"\\", b'"', b"'", b"#",
         b"[", b"]", b"{", b"}", b":", b"<", b">", b"nan", b"-inf", b"1e999", b"0x", b"\xed\xa0\x80"]


@st.composite
def mutated(draw, seeds: list[bytes]):
    """A real file with 1-4 byte-level edits: delete, insert (nasty bytes or a slice of another
    file), duplicate, overwrite a byte, or cut the end."""
    data = draw(st.sampled_from(seeds))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["delete", "insert", "splice", "duplicate", "byte", "truncate"]))
        at = draw(st.integers(0, len(data)))
        if op == "delete":
            data = data[:at] + data[at + draw(st.integers(1, 40)):]
        elif op == "insert":
            data = data[:at] + draw(st.sampled_from(NASTY) | st.binary(min_size=1, max_size=6)) + data[at:]
        elif op == "splice":
            other = draw(st.sampled_from(seeds))
            start = draw(st.integers(0, len(other)))
            data = data[:at] + other[start:start + draw(st.integers(1, 300))] + data[at:]
        elif op == "duplicate":
            end = min(len(data), at + draw(st.integers(1, 200)))
            data = data[:end] + data[at:end] + data[end:]
        elif op == "byte" and at < len(data):
            data = data[:at] + bytes([draw(st.integers(0, 255))]) + data[at + 1:]
        else:
            data = data[:at]
    return data


def any_bytes(seeds: list[bytes]):
    return st.binary(max_size=300) | mutated(seeds)


# NNIE_PROPERTY_EXAMPLES=5000 for a deep run (the suite keeps 120: a few seconds per reader)
EXAMPLES = int(os.environ.get("NNIE_PROPERTY_EXAMPLES", "120"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    # CI explores the same examples every run (a landing never fails on a new random
                    # draw); developers' runs stay random and find new cases
                    derandomize=bool(os.environ.get("CI")), suppress_health_check=[HealthCheck.too_slow])


def _inside(rng: Range | None, index: LineIndex, what: str = "range") -> None:
    if rng is None:
        return
    for pos in (rng.start, rng.end):
        assert 0 <= pos.line < index.line_count, (what, rng, index.line_count)
        assert 0 <= pos.character <= len(index.line_text(pos.line)), (what, rng, index.line_text(pos.line))
    assert rng.start <= rng.end, (what, rng)


# ---------------------------------------------------------------- cfg

def _cfg_facts(text: str):
    doc = cfg_reader.parse_cfg(text)
    return doc, (doc.entries, doc.comments, doc.errors, doc.line_kinds)


@SETTINGS
@given(any_bytes(CFGS))
def test_cfg_reader_from_bytes(data):
    text = decode(data).text
    doc, facts = _cfg_facts(text)
    index = doc.line_index
    assert len(doc.line_kinds) == index.line_count
    for entry in doc.entries:
        for rng in (entry.key_range, entry.bracket_range, entry.value_range, entry.raw_value_range,
                    entry.line_range, entry.inline_comment_range):
            _inside(rng, index, entry.key)
        start = index.offset(entry.value_range.start)
        assert text[start:start + len(entry.value)] == entry.value
    for item in (*doc.comments, *doc.errors):
        _inside(item.range, index)
    assert all(error.message and error.message_zh for error in doc.errors)
    assert _cfg_facts(text)[1] == facts
    cfg_reader._parse_line.cache_clear()  # the line cache must not change what is read
    assert _cfg_facts(text)[1] == facts


# ---------------------------------------------------------------- prototxt

def _proto_facts(doc):
    return ([(e.code, e.message, e.range) for e in doc.errors], doc.message.SerializeToString(deterministic=True),
            [(layer.name, layer.type, tuple(layer.bottoms), tuple(layer.tops)) for layer in doc.layers])


@SETTINGS
@given(any_bytes(PROTOTXTS))
@example(b"_{\r")  # found by this test: an unclosed node's range ran past a final "\r"
def test_prototxt_reader_from_bytes(data):
    text = decode(data).text
    doc = parse_prototxt(text)
    index = doc.line_index
    for error in doc.errors:
        assert error.code in ("NN010", "NN011", "NN012") and not error.message.startswith("internal error")
        _inside(error.range, index, error.message)
    for node in doc.walk():
        _inside(node.range, index, "node")
        _inside(node.name_range, index, "node name")
    for layer in doc.layers:
        _inside(layer.name_range, index, "layer name")
        _inside(layer.type_range, index, "layer type")
    graph = build_graph(doc)
    assert [layer.name for layer in graph.layers] is not None
    assert _proto_facts(parse_prototxt(text)) == _proto_facts(doc)


# ---------------------------------------------------------------- mapper output

@SETTINGS
@given(any_bytes(LOGS))
def test_mapper_log_reader_from_bytes(data):
    text = decode(data).text
    log = parse_mapper_log(text, "mapper_debug.log")
    index = log.line_index
    for run in log.runs:
        _inside(run.range, index, "run")
        for phase in run.phases:
            _inside(phase.begin_range, index, "phase")
            _inside(phase.end_range, index, "phase end")
        for block in run.blocks:
            for item in (block, *block.unwinding):
                for rng in (item.range, item.header_range, item.message_range, item.target.range,
                            item.target.value_range, item.failure.range if item.failure else None):
                    _inside(rng, index, item.message)
    again = parse_mapper_log(text, "mapper_debug.log")
    assert [(r.range, r.status, r.blocks) for r in again.runs] == [(r.range, r.status, r.blocks) for r in log.runs]
    assert isinstance(looks_like_mapper_log(text), bool)


@SETTINGS
@given(any_bytes(DOTS))
def test_dot_readers_from_bytes(data):
    text = decode(data).text
    tree = parse_net_tree(text, "cnn_net_tree.dot")
    index = tree.line_index
    for node in tree.nodes.values():
        _inside(node.range, index, node.name)
        tree.view_of(node.name)
    tree.describe()
    tree.topo_order(), tree.describe_labels()
    again = parse_net_tree(text, "cnn_net_tree.dot")
    assert list(again.nodes) == list(tree.nodes) and again.describe() == tree.describe()


# ---------------------------------------------------------------- dumps

def _values_or_value_error(parse, data: bytes, path: str):
    try:
        values = parse(data, path=path)
    except ValueError as exc:
        assert str(exc).startswith(path), exc  # the message names the file
        return None
    assert isinstance(values, np.ndarray) and values.ndim == 1
    return values


@SETTINGS
@given(any_bytes(FLOAT_DUMPS or [b"1.0\n"]), st.booleans())
def test_text_float_dump_reader_from_bytes(data, skip_header):
    def parse(raw, path):
        return parse_text_floats(raw, path=path, skip_header=skip_header)
    first = _values_or_value_error(parse, data, "dump.float")
    second = _values_or_value_error(parse, data, "dump.float")
    assert (first is None) == (second is None)
    if first is not None:
        np.testing.assert_array_equal(first, second)


def _fixed_e_lines(draw_values, frac: int, leading_zeros: int) -> bytes:
    """``%.{frac}e`` lines; with ``leading_zeros`` the mantissa is written un-normalised
    (``0.000ddd…e+X``, same value): valid numbers the fast path must read right or hand over."""
    lines = []
    for value in draw_values:
        text = f"{value:.{frac}e}"
        if leading_zeros and value != 0:
            sign = "-" if text.startswith("-") else ""
            mantissa, exponent = text.lstrip("-").split("e")
            digits = (mantissa.replace(".", "") + "0" * frac)[:frac + 1 - leading_zeros]
            text = f"{sign}0.{'0' * (leading_zeros - 1)}{digits}e{int(exponent) + leading_zeros:+03d}"
        lines.append(text)
    return ("\n".join(lines) + "\n").encode()


@SETTINGS
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=1, max_size=40),
       st.integers(16, 24), st.sampled_from([0, 0, 1, 5, 13]), st.booleans())
def test_text_float_fast_path_agrees_with_the_general_tokeniser(values, frac, leading_zeros, crlf):
    """Differential (as ``benchmarks/fuzz_readers.py --reader dump``): the same numbers read by the
    fast path and, with a blank before each newline (which it never accepts), by the general
    tokeniser: NaN-free, same signs, within the 2 ulp the README promises."""
    data = _fixed_e_lines(values, frac, leading_zeros)
    if crlf:
        data = data.replace(b"\n", b"\r\n")
    fast = parse_text_floats(data, threads=1)
    general = parse_text_floats(data.replace(b"\n", b" \n"), threads=1)
    assert fast.shape == general.shape == (len(values),)
    np.testing.assert_array_equal(np.signbit(fast), np.signbit(general))
    with np.errstate(over="ignore", invalid="ignore"):
        close = (fast == general) | (np.abs(fast - general) <= 2 * np.spacing(np.maximum(abs(fast), abs(general))))
    assert close.all(), (data[:200], fast[~close][:3], general[~close][:3])


@SETTINGS
@given(st.lists(st.floats(width=32), min_size=1, max_size=40), st.booleans(), st.booleans())
def test_mapper_g_fast_path_agrees_with_the_general_tokeniser(values, crlf, final_newline):
    """Differential (as ``benchmarks/fuzz_readers.py --reader dump``) for the mapper's six-digit ``%g``
    form (``dumpio/short_g.py``): read by the fast path and, with a blank before each newline, by the
    general tokeniser: NaN in the same places, same signs, within the 2 ulp the README promises."""
    data = cpp_stream_text(np.array(values, dtype=np.float32))
    if not final_newline:
        data = data[:-1]
    if crlf:
        data = data.replace(b"\n", b"\r\n")
    fast = parse_text_floats(data, threads=1)
    general = parse_text_floats(data.replace(b"\n", b" \n"), threads=1)
    assert fast.shape == general.shape == (len(values),)
    np.testing.assert_array_equal(np.isnan(fast), np.isnan(general))
    keep = ~np.isnan(general)
    fast, general = fast[keep], general[keep]
    np.testing.assert_array_equal(np.signbit(fast), np.signbit(general))
    with np.errstate(over="ignore", invalid="ignore"):
        close = (fast == general) | (np.abs(fast - general) <= 2 * np.spacing(np.maximum(abs(fast), abs(general))))
    assert close.all(), (data[:200], fast[~close][:3], general[~close][:3])


@SETTINGS
@given(any_bytes(HEX_DUMPS or [b"00001000\n"]))
def test_hex_dump_reader_from_bytes(data):
    first = _values_or_value_error(parse_hex_words, data, "dump.hex")
    second = _values_or_value_error(parse_hex_words, data, "dump.hex")
    assert (first is None) == (second is None)
    if first is not None:
        np.testing.assert_array_equal(first, second)


REAL_NAMES = [p.name for p in sorted((REPO / "examples" / "triage").rglob("*.linear.*"))] + [
    "layer12_conv5_output0_64_13_13_caffe.linear.float", "conv1_output0_10_18_18_quant.linear.hex",
    "seg0_layer3605_output0_inst.linear.hex", "data_input0_3_20_20_quant.linear.hex", "x.npy", "y_1x3x4.bin"]


@SETTINGS
@given(st.text(max_size=80) | st.sampled_from(REAL_NAMES).flatmap(
    lambda name: st.tuples(st.integers(0, len(name)), st.text(max_size=6)).map(
        lambda cut: name[:cut[0]] + cut[1] + name[cut[0]:])))
def test_dump_name_parser_never_raises(filename):
    parsed = parse_dump_name(filename)
    assert parsed == parse_dump_name(filename)
    if parsed is not None:
        assert parsed.key == parse_dump_name(filename).key
    shape_readings(filename.rsplit(".", 1)[0])


@pytest.mark.parametrize("name", REAL_NAMES[:3])
def test_real_dump_names_are_recognised(name):
    """The seeds of the name property are real names (the property would be empty otherwise)."""
    assert parse_dump_name(name) is not None


def test_hex_word_wider_than_64_bits_is_a_clear_error():
    """Found by test_hex_dump_reader_from_bytes: an OverflowError from numpy, now a ValueError
    naming the file and the word."""
    with pytest.raises(ValueError, match=r"dump.hex: word 1 is wider than 64 bits: b'10000000000000000'"):
        parse_hex_words(b"10000000000000000", path="dump.hex")
    assert parse_hex_words(b"7fffffffffffffff -1\n", path="dump.hex").size == 2


def test_offsets_inside_a_line_break_are_the_end_of_the_line():
    """Found by test_prototxt_reader_from_bytes (``_{\r``): an offset inside a ``\r\n`` is the end
    of the line's content, never a column past it; a lone ``\r`` ends its line (classic Mac line
    ends, as editors show them), so the offset after it starts the next line."""
    index = LineIndex("_{\r")
    assert (index.position(2).line, index.position(2).character) == (0, 2)
    assert (index.position(3).line, index.position(3).character) == (1, 0) and index.line_count == 2
    crlf = LineIndex("ab\r\ncd")
    assert (crlf.position(3).character, crlf.position(4).line) == (2, 1)
    cr = LineIndex("a\rb\r\rc")
    assert [cr.line_text(i) for i in range(cr.line_count)] == ["a", "b", "", "c"]
    assert cr.position(2) == (1, 0) and cr.offset(cr.position(5)) == 5 and cr.line_end(1) == 3
    doc = parse_prototxt("_{\r")
    assert all(node.range.end.character <= 2 for node in doc.walk())

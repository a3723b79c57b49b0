"""The short ``%g`` fast path (``nnie_lsp/readers/dumpio/short_g.py``): the mapper's dequantized ``.float``
text (C++ stream output, six significant digits, docs/field-facts.md §16.5) against the general
tokeniser.

Whatever it accepts must read as the general tokeniser reads it (exactly for lines without an
exponent, within 2 ulp for the others), and whatever it refuses must give exactly the general
tokeniser's result or error.  Pieces are made tiny here so that piece boundaries fall at every byte.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nnie_lsp.readers.dumpio import readers, short_g
from nnie_lsp.readers.dumpio.readers import parse_text_floats, read_text_floats

from .both_paths import path_fixture, pieces_fixture
from nnie_lsp.readers.dumpio.writers import cpp_stream_text

# every shape C++ `stream << float` gives, and the non-finite spellings of glibc
SHAPES = [b"0", b"-0", b"0.25", b"123456", b"-123456", b"1.23457e+06", b"1.5e-05", b"-7.62939e-06",
          b"0.353553", b"0.0743254", b"-0.0743254", b"0.00743254", b"0.000123457", b"-0.000123457",
          b"12345.6", b"-1.5", b"1e+06", b"1e-05", b"9.99999e-05", b"3.40282e+38", b"1.4013e-45",
          b"-1.17549e-38", b"inf", b"-inf", b"nan", b"-nan", b"7", b"-9", b"0.5", b"99999.9"]


def _general(data: bytes):
    """The general tokeniser's values, or its error message."""
    try:
        return readers._parse_general(data.replace(b"\r", b""), "<x>")
    except ValueError as exc:
        return str(exc)


def _fast_only(data: bytes, threads: int = 1):
    """The short-line path alone (None when it refuses)."""
    view = memoryview(data)

    def read_at(buffer, offset):
        piece = view[offset : offset + len(buffer)]
        buffer[: len(piece)] = piece
        return len(piece)

    return short_g.parse_parts(read_at, len(data), threads)


def _same(got, want, ulps: float = 0.0) -> None:
    assert not isinstance(got, str) and not isinstance(want, str), (got, want)
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    keep = ~np.isnan(want)
    got, want = got[keep], want[keep]
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    if ulps == 0:
        np.testing.assert_array_equal(got, want)
    else:
        with np.errstate(over="ignore", invalid="ignore"):
            near = np.abs(got - want) <= ulps * np.spacing(np.maximum(np.abs(got), np.abs(want)))
        assert np.all((got == want) | near), (got[~near], want[~near])


def _mapper_like(n: int, seed: int = 0) -> np.ndarray:
    """float32 values like a mapper dump: an 8-bit grid clip*2^(-k/16), a third zeros, some
    negatives, some values small or large enough for the exponent form."""
    rng = np.random.default_rng(seed)
    values = (2.0 ** (rng.integers(-40, 40) / 16) * 2.0 ** (-rng.integers(0, 128, n) / 16)).astype(np.float32)
    values[rng.random(n) < 0.33] = 0
    values[rng.random(n) < 0.3] *= -1
    values[::13] *= np.float32(1e-4)
    values[5::17] *= np.float32(1e7)
    return values


path = path_fixture(short_g)       # every test on the numpy path and on the compiled one
tiny_pieces = pieces_fixture(short_g)


# ------------------------------------------------------------------------------ values


@pytest.mark.parametrize("line", SHAPES, ids=[s.decode() for s in SHAPES])
def test_every_shape_reads_as_the_general_tokeniser(line):
    data = line + b"\n"
    fast = _fast_only(data)
    assert fast is not None, line
    _same(fast, _general(data), ulps=0 if b"e" not in line else 2)
    _same(parse_text_floats(data), _general(data), ulps=0 if b"e" not in line else 2)


def test_all_shapes_in_one_text_take_the_fast_path():
    data = b"\n".join(SHAPES) + b"\n"
    fast = _fast_only(data)
    assert fast is not None
    _same(fast, _general(data), ulps=2)
    assert np.signbit(fast[1]) and fast[1] == 0  # "-0" stays negative zero
    assert np.isnan(fast[SHAPES.index(b"-nan")]) and not np.signbit(fast[SHAPES.index(b"-nan")])  # as the tokeniser


def test_lines_without_an_exponent_are_correctly_rounded():
    values = _mapper_like(20_000, seed=1)
    data = cpp_stream_text(values)
    fast = _fast_only(data)
    assert fast is not None
    want = np.array([float(x) for x in data.split()])
    plain = np.array([b"e" not in x for x in data.split()])
    assert plain.mean() > 0.8
    np.testing.assert_array_equal(fast[plain], want[plain])
    _same(fast, want, ulps=2)
    np.testing.assert_array_equal(fast, np.loadtxt(data.decode().splitlines()))


def test_the_values_are_the_float32_values_to_six_digits():
    values = _mapper_like(5000, seed=2)
    fast = parse_text_floats(cpp_stream_text(values))
    finite = np.isfinite(values)
    error = np.abs(fast[finite] - values[finite].astype(np.float64))
    assert np.all(error <= 5.0000001e-6 * np.abs(values[finite]))


# ------------------------------------------------------------------------------ layout


def test_crlf_missing_final_newline_and_a_header(tmp_path):
    values = _mapper_like(3000, seed=3)
    data = cpp_stream_text(values)
    want = parse_text_floats(data)
    path = tmp_path / "conv1_input0_3_10_100_anti_quant.float"
    path.write_bytes(data.replace(b"\n", b"\r\n"))
    np.testing.assert_array_equal(read_text_floats(path), want)
    path.write_bytes(data[:-1])
    np.testing.assert_array_equal(read_text_floats(path), want)
    np.testing.assert_array_equal(parse_text_floats(data[:-1]), want)
    path.write_bytes(b"data 4 1 10 100 3\n" + data)
    np.testing.assert_array_equal(read_text_floats(path, skip_header=True), want)
    np.testing.assert_array_equal(parse_text_floats(b"data 4 1 10 100 3\n" + data), want)


def test_a_single_value_without_newline():
    for line in (b"0", b"-0", b"5", b"0.25", b"1.5e-05", b"inf"):
        _same(parse_text_floats(line), _general(line), ulps=2)
        assert _fast_only(line) is not None


def test_piece_boundaries_fall_anywhere(tiny_pieces):
    data = b"\n".join(SHAPES) + b"\n" + cpp_stream_text(_mapper_like(300, seed=4))
    want = _fast_only(data)
    _same(want, _general(data), ulps=2)
    for size in list(range(1, 40)) + [100, 333, 1000]:
        tiny_pieces(size)
        for threads in (1, 3):
            got = _fast_only(data, threads)
            assert got is not None, size
            np.testing.assert_array_equal(got, want, err_msg=f"piece {size}, {threads} threads")
        np.testing.assert_array_equal(_fast_only(data[:-1]), want)


def test_threads_give_the_same_values(tmp_path, tiny_pieces):
    tiny_pieces(1 << 12)
    path = tmp_path / "big_anti_quant.float"
    path.write_bytes(cpp_stream_text(_mapper_like(60_000, seed=5)))
    one = read_text_floats(path, threads=1)
    for threads in (2, 3, 4, None):
        np.testing.assert_array_equal(read_text_floats(path, threads=threads), one)


def test_buffers_kept_between_calls_hold_no_value(tiny_pieces):
    data = cpp_stream_text(_mapper_like(4000, seed=6))
    for size in (short_g.CHUNK, 1000, 13):
        tiny_pieces(size)
        short_g._PER_THREAD.work = None
        fresh = _fast_only(data[:-1])
        for junk in (b"-" * 3000, b"9" * 12 + b"\n", b"\n" * 4000, b"\xff" * 500, b"-1.5e-05\n" * 300,
                     b"0.000123457\n" * 300):
            try:
                parse_text_floats(b"1\n" + junk)
            except ValueError:
                pass
            np.testing.assert_array_equal(_fast_only(data[:-1]), fresh)


# ------------------------------------------------------------------------------ refusals

MALFORMED = [
    b"", b" 0.5", b"0.5 ", b"+0.5", b"0.5.5", b"--1", b"-", b".", b"-.", b".5", b"5.", b"0..5",
    b"1e5", b"1E+05", b"1e+5", b"1e+005", b"1e+-05", b"1.5e-0x", b"1.5f-05", b"e+05", b"-e+05",
    b"1.5e+05e", b"0.1234567891", b"123456789012", b"1234567890123", b"0.0000123457", b"1.0.5e+05",
    b"12345678", b"123456789", b"0x10", b"nan(ind)", b"Inf", b"NaN", b"infinity", b"1_0", b"1,5",
    b"1\t5", b"1;5", b"\x00", b"\xff", b"1-2", b"12-", b"0.-5", b"-0-", b"1.2.3", b"0.00.1",
    b"1.2345678", b"-1.23456e+06e", b"9" * 12, b"0.00000000001", b"1e-300", b"1.5e+0",
]


@pytest.mark.parametrize("line", MALFORMED, ids=[repr(x)[2:-1] or "blank" for x in MALFORMED])
@pytest.mark.parametrize("piece", [None, 64])
def test_a_malformed_line_in_the_middle_gives_the_general_result(tmp_path, tiny_pieces, line, piece):
    if piece:
        tiny_pieces(piece)
    lines = cpp_stream_text(_mapper_like(400, seed=7)).split(b"\n")
    lines[217] = line
    text = b"\n".join(lines)
    path = tmp_path / "bad_anti_quant.float"
    path.write_bytes(text)
    want = _general(text)
    try:
        got = read_text_floats(path)
    except ValueError as exc:
        got = str(exc).replace(str(path), "<x>")
    if isinstance(want, str):
        assert got == want
    else:
        _same(got, want, ulps=2)


@pytest.mark.parametrize("position", range(13))
def test_every_byte_is_checked(position):
    """A byte changed anywhere in a line: the same values as the general tokeniser (within 2 ulp)
    or its error."""
    head = b"-0.000123457\n0.25\n-7.62939e-06\n"
    line_start = len(head)
    base = head + b"-1.23457e+06\n0.0743254\n0\n"
    for byte in b"09-+.eE\n \t,\r\x00\xffainf":
        if line_start + position >= len(base):
            continue
        text = base[: line_start + position] + bytes([byte]) + base[line_start + position + 1 :]
        want = _general(text)
        try:
            got = parse_text_floats(text, path="<x>")
        except ValueError as exc:
            got = str(exc)
        if isinstance(want, str):
            assert got == want, (text, got, want)
        else:
            _same(got, want, ulps=2)


def test_lines_too_long_for_the_path_go_to_the_tokeniser():
    data = b"0.25\n" * 10 + b"-1.234567890123e-05\n" + b"0.5\n"
    assert _fast_only(data) is None
    _same(parse_text_floats(data), _general(data), ulps=0)


def test_errors_name_the_file(tmp_path):
    path = tmp_path / "conv1_input0_2_2_2_anti_quant.float"
    path.write_bytes(b"0.25\n0.5\n0.5x\n1\n")
    with pytest.raises(ValueError, match=r"anti_quant.float: token 3 is not a number: b'0.5x'"):
        read_text_floats(path)


# ------------------------------------------------------------------------------ property


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.floats(width=32, allow_nan=True, allow_infinity=True), min_size=1, max_size=60),
       st.booleans(), st.booleans())
def test_float32_printed_as_the_mapper_prints_reads_back(values, crlf, final_newline):
    """float32 values printed with '%.6g' (the C++ stream form) read back as float() of each line:
    exactly for lines without an exponent, within 2 ulp for the others; NaN where the text says nan."""
    data = cpp_stream_text(np.array(values, dtype=np.float32))
    lines = data.split()
    if not final_newline:
        data = data[:-1]
    if crlf:
        data = data.replace(b"\n", b"\r\n")
    got = parse_text_floats(data, threads=1)
    want = np.array([float(x) for x in lines])
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    keep = ~np.isnan(want)
    np.testing.assert_array_equal(np.signbit(got[keep]), np.signbit(want[keep]))
    plain = np.array([b"e" not in x for x in lines])[keep]
    g, w = got[keep], want[keep]
    np.testing.assert_array_equal(g[plain], w[plain])
    with np.errstate(over="ignore", invalid="ignore"):
        near = (g == w) | (np.abs(g - w) <= 2 * np.spacing(np.maximum(np.abs(g), np.abs(w))))
    assert near.all()
    # and they are the float32 values to six significant digits
    f32 = np.array(values, dtype=np.float32).astype(np.float64)[keep]
    finite = np.isfinite(f32)
    assert np.all(np.abs(g[finite] - f32[finite]) <= 5.0000001e-6 * np.abs(f32[finite]))

"""The ``%.18e`` fast path (``nnie_lsp/readers/dumpio/fixed_e.py``) against correctly rounded parses, on
both its paths (numpy, and compiled: ``fixed_e_jit.py``; the ``path`` fixture).

Whatever it accepts must read as the general tokeniser reads it (within 2 ulp; exactly for values
near the ends of float64), and whatever it refuses must give exactly the general tokeniser's result
or error.  Pieces are made tiny here so that piece boundaries fall at every byte of a line.
"""

from __future__ import annotations

import io
import os
import re

import numpy as np
import pytest

from nnie_lsp.core import safe_io
from nnie_lsp.readers.dumpio import fixed_e, readers
from nnie_lsp.readers.dumpio.readers import parse_text_floats, read_text_floats

from .both_paths import path_fixture, pieces_fixture

EXTREMES = [0.0, -0.0, 1.0, -1.0, 5e-324, -5e-324, 1e-310, -2.5e-315, 2.2250738585072014e-308,
            1.7976931348623157e308, -1.7976931348623157e308, 1e300, -1e-300, 1e-100, 9.999999999999999e99,
            1e100, 123.456, -9.999999999999999e-5, 1e22, 1e23, -3e-23, 4.35e18, 9.223372036854775807e18]


def _savetxt(values, fmt="%.18e") -> bytes:
    buffer = io.BytesIO()
    np.savetxt(buffer, np.asarray(values, dtype=np.float64), fmt=fmt)
    return buffer.getvalue()


def _exact(data: bytes) -> np.ndarray:
    """Correctly rounded, one line at a time."""
    return np.array([float(line) for line in data.split()], dtype=np.float64)


def _mixed(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    values = rng.normal(0, 50, n) * rng.choice([1e-3, 1, 1e3], n)
    values[::97] = 10.0 ** rng.uniform(-99, 99, values[::97].size) * rng.choice([-1, 1], values[::97].size)
    return values


def _assert_within_ulps(got: np.ndarray, want: np.ndarray, ulps: float = 2.0) -> None:
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    finite = np.isfinite(want) & (want != 0)
    np.testing.assert_array_equal(got[~finite], want[~finite])
    with np.errstate(over="ignore"):  # the spacing above the largest float64
        spacing = np.minimum(np.spacing(np.abs(want[finite])), np.spacing(np.finfo(np.float64).max / 2) * 2)
    error = np.abs(got[finite] - want[finite]) / spacing
    assert error.max(initial=0) <= ulps, error.max()


path = path_fixture(fixed_e)       # every test on the numpy path and on the compiled one
tiny_pieces = pieces_fixture(fixed_e)


def _general_or_error(data: bytes, path: str):
    """What the general tokeniser gives: values or the error message."""
    try:
        return readers._parse_general(data.replace(b"\r", b""), path)
    except ValueError as exc:
        return str(exc)


def _read_or_error(path: str, **kw):
    try:
        return read_text_floats(path, **kw)
    except ValueError as exc:
        return str(exc)


# ------------------------------------------------------------------------------ values


def test_mixed_signs_exponents_zero_and_subnormals(tmp_path):
    values = np.concatenate([EXTREMES, _mixed(20_000)])
    data = _savetxt(values)
    path = tmp_path / "x_caffe.linear.float"
    path.write_bytes(data)
    want = _exact(data)
    got = read_text_floats(path)
    _assert_within_ulps(got, want)
    np.testing.assert_allclose(got, np.loadtxt(path), rtol=5e-16, atol=0)  # test_dumps' tolerance
    # near the ends of float64 (exponents of 300 and more) the values are exact: overflow to inf
    # and the subnormals round as a correctly rounded parse does
    ends = np.abs(want) >= 1e300
    ends |= (want != 0) & (np.abs(want) < 1e-299)
    assert ends.sum() == 9
    np.testing.assert_array_equal(got[ends], want[ends])
    assert np.signbit(got[1]) and got[1] == 0  # -0.0 stays negative


def test_two_and_three_digit_exponents_in_one_piece(tmp_path, tiny_pieces):
    tiny_pieces(4096)
    values = _mixed(3000, seed=1)
    values[5::50] *= 1e-140   # 3-digit negative exponents
    values[7::50] *= 1e+150   # 3-digit positive exponents
    values[9::400] = 1e-310   # subnormal
    data = _savetxt(values)
    assert re.search(rb"e-1\d\d\n", data) and re.search(rb"e\+1\d\d\n", data) and b"e-31" in data
    got = parse_text_floats(data)
    _assert_within_ulps(got, _exact(data))


def test_at_most_one_ulp_off_on_most_values():
    data = _savetxt(_mixed(50_000, seed=3))
    got, want = parse_text_floats(data), _exact(data)
    error = np.abs(got - want) / np.spacing(np.abs(want))
    assert error.max() <= 2
    assert np.mean(error == 0) > 0.8  # 19 digits kept: most values are correctly rounded


@pytest.mark.parametrize("fmt", ["%.16e", "%.17e", "%.20e"])
def test_other_digit_counts_take_the_general_piece_parser(fmt):
    values = np.concatenate([EXTREMES, _mixed(2000, seed=4)])
    data = _savetxt(values, fmt)
    assert fixed_e.line_format(data) == int(fmt[2:4])
    _assert_within_ulps(parse_text_floats(data), _exact(data), ulps=3)


@pytest.mark.parametrize("line", [
    b"0.00000000000006385288598e+38",   # found by benchmarks/fuzz_readers.py --reader dump
    b"0.000000000000000000123e+05",     # the only non-zero digits are past the 19th
    b"-0.0000000000000000000000001e-10",
])
def test_a_long_mantissa_with_a_leading_zero_keeps_its_digits(line):
    """More than 19 digits with a first digit 0 (not how %e writes, but a valid number): the fast
    path keeps 19 digits only, so such a text goes to the general tokeniser, correctly rounded."""
    frac = fixed_e.line_format(line.lstrip(b"-"))
    data = line + b"\n" + _savetxt([1.5, -2.25], f"%.{frac}e")  # every line the same shape
    _assert_within_ulps(parse_text_floats(data, threads=1), _exact(data), ulps=0)


# ------------------------------------------------------------------------------ pieces and layout


def test_piece_boundaries_fall_anywhere(tiny_pieces):
    values = np.concatenate([EXTREMES, _mixed(400, seed=5)])
    data = _savetxt(values)
    want = parse_text_floats(data)
    _assert_within_ulps(want, _exact(data))
    for size in list(range(1, 64)) + [100, 333, 1000]:
        tiny_pieces(size)
        for threads in (1, 3):
            got = parse_text_floats(data, threads=threads)
            np.testing.assert_array_equal(got, want, err_msg=f"piece {size}, {threads} threads")


def test_threads_give_the_same_values(tmp_path, tiny_pieces):
    tiny_pieces(1 << 12)
    path = tmp_path / "big.float"
    path.write_bytes(_savetxt(_mixed(30_000, seed=6)))
    one = read_text_floats(path, threads=1)
    data = path.read_bytes()

    def read_at(view, offset):
        piece = data[offset : offset + len(view)]
        view[: len(piece)] = piece
        return len(piece)

    points = fixed_e.split_points(len(data), 4, read_at)
    assert len(points) == 5 and all(data[point - 1 : point] == b"\n" for point in points[1:])
    for threads in (2, 3, 4, None):
        np.testing.assert_array_equal(read_text_floats(path, threads=threads), one)
    np.testing.assert_array_equal(parse_text_floats(path.read_bytes(), threads=4), one)


def test_crlf_and_missing_final_newline(tmp_path, tiny_pieces):
    values = np.concatenate([EXTREMES, _mixed(3000, seed=7)])
    data = _savetxt(values)
    want = parse_text_floats(data)
    path = tmp_path / "crlf.float"
    path.write_bytes(data.replace(b"\n", b"\r\n"))
    np.testing.assert_array_equal(read_text_floats(path), want)
    path.write_bytes(data[:-1])
    np.testing.assert_array_equal(read_text_floats(path), want)
    for size in (25, 26, 27, 4096):  # the last line alone in the last piece, or cut by it
        tiny_pieces(size)
        np.testing.assert_array_equal(read_text_floats(path), want)
        np.testing.assert_array_equal(parse_text_floats(data[:-1]), want)


def test_header_line_is_skipped_on_the_fast_path(tmp_path):
    values = _mixed(5000, seed=8)
    path = tmp_path / "in_inst.linear.hex"
    path.write_bytes(b"data 4 1 10 50 10\n" + _savetxt(values))
    _assert_within_ulps(read_text_floats(path, skip_header=True), values)


def test_buffers_kept_between_calls_hold_no_value(tiny_pieces):
    """The per-thread buffers are reused: a parse after garbage reads as a parse on fresh buffers."""
    values = np.concatenate([EXTREMES, _mixed(5000, seed=11)])
    data = _savetxt(values)
    for size in (fixed_e.CHUNK, 1000, 27):
        tiny_pieces(size)
        fixed_e._PER_THREAD.work = None
        fresh = parse_text_floats(data[:-1])
        for junk in (b"-" * 30000, b"9" * 100 + b"\n", b"\n" * 40000, b"\xff" * 5000, b"-1.0e+00\n" * 3000):
            try:
                parse_text_floats(b"1.000000000000000000e+00\n" + junk)
            except ValueError:
                pass
            np.testing.assert_array_equal(parse_text_floats(data[:-1]), fresh)


# ------------------------------------------------------------------------------ refusals


MALFORMED = [
    b"1.5",                                # short line: general tokeniser
    b"+1.000000000000000000e+00",          # explicit plus
    b"1.000000000000000000E+00",           # capital E
    b" 2.000000000000000000e+00",          # leading blank
    b"1.000000000000000000e+00 2.5",       # two values on one line
    b"nan",
    b"-inf",
    b"",                                   # blank line
    b"1.000000000000000000e+00,",          # trailing separator
    b"1.00000000000000000xe+00",           # not a number: the same error
    b"1.000000000000000000e+0x",
    b"--1.000000000000000000e+00",
    b"1.000000000000000000e,00",
]


@pytest.mark.parametrize("line", MALFORMED, ids=[repr(x)[2:-1] or "blank" for x in MALFORMED])
def test_a_malformed_line_in_piece_37_gives_the_general_result(tmp_path, tiny_pieces, line):
    tiny_pieces(1024)
    data = _savetxt(_mixed(3000, seed=9))
    lines = data.split(b"\n")
    at = 37 * 1024 // 25 + 3  # a line inside the 37th piece
    lines[at] = line
    text = b"\n".join(lines)
    path = tmp_path / "bad_caffe.linear.float"
    path.write_bytes(text)
    want = _general_or_error(text, str(path))
    got = _read_or_error(str(path))
    if isinstance(want, str):
        assert got == want and str(path) in got
    else:
        np.testing.assert_array_equal(got, want)
    assert type(_read_or_error(str(path), threads=3)) is type(got)


def test_a_malformed_line_in_piece_37_of_full_size_pieces(tmp_path):
    block = _savetxt(_mixed(40_000, seed=10))
    text = block * 25  # 25 MB: past 37 pieces of 512 KiB
    cut = 37 * fixed_e.CHUNK + 12_345
    cut = text.index(b"\n", cut) + 1
    text = text[:cut] + b"1.25\n" + text[cut:]
    path = tmp_path / "bad.float"
    path.write_bytes(text)
    np.testing.assert_array_equal(read_text_floats(path, threads=1), readers._parse_general(text, str(path)))


@pytest.mark.parametrize("position", range(27))
def test_every_byte_is_checked(tmp_path, position):
    """A byte changed anywhere in a line of a %.18e file: the fast path reads the same values as
    the general tokeniser (within 2 ulp) or refuses, and the reader then gives the general result."""
    values = np.array([-1.25e-7, 3.5, -0.0, 7.0e10, 2.0e-5])
    data = _savetxt(values)
    start = data.index(b"\n", data.index(b"\n") + 1) + 1  # the third line, "-0.000...e+00"
    path = tmp_path / "mutated.float"
    for byte in b"09-+.eE\n \t,\r\x00\xffa":
        if start + position >= len(data):
            continue
        text = data[: start + position] + bytes([byte]) + data[start + position + 1 :]
        path.write_bytes(text)
        want = _general_or_error(text, str(path))
        got = _read_or_error(str(path))
        if isinstance(want, str):
            assert got == want
        else:
            assert not isinstance(got, str), got
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
            keep = ~np.isnan(want)
            _assert_within_ulps(got[keep], want[keep])


# ------------------------------------------------------------------------------ bounded reads


def test_open_bounded_reads_into_caller_buffers(tmp_path):
    path = tmp_path / "d.float"
    path.write_bytes(b"0123456789" * 10)
    with safe_io.open_bounded(str(path), safe_io.DUMP) as source:
        buffer = np.zeros(64, np.uint8)
        assert source.readinto(buffer) == 64 and buffer.tobytes() == (b"0123456789" * 7)[:64]
        assert source.readinto(buffer) == 36
        assert source.readinto(buffer) == 0
        assert source.readinto_at(memoryview(buffer)[:5], 93) == 5 and buffer[:5].tobytes() == b"34567"
        assert source.readinto_at(buffer, 100) == 0
    with pytest.raises(safe_io.FileReadError, match="100 bytes, more than the 99 bytes nnie-lsp reads from a dump"):
        safe_io.open_bounded(str(path), safe_io.DUMP, limit=99)
    with pytest.raises(safe_io.FileReadError, match="a folder"):
        safe_io.open_bounded(str(tmp_path), safe_io.DUMP)


def test_a_file_growing_past_the_bound_while_read_is_reported(tmp_path):
    path = tmp_path / "grow.float"
    path.write_bytes(b"x" * 100)
    with safe_io.open_bounded(str(path), safe_io.DUMP, limit=150) as source:
        with open(path, "ab") as more:
            more.write(b"y" * 100)
        with pytest.raises(safe_io.FileReadError, match="more than the 150 bytes"):
            while source.readinto(bytearray(64)):
                pass
        with pytest.raises(safe_io.FileReadError, match="more than the 150 bytes"):
            source.readinto_at(bytearray(64), 120)


def test_a_file_growing_while_parsed_is_read_whole(tmp_path, monkeypatch):
    """The fast path reads the size it saw at open; more bytes after it send the file to a whole read."""
    path = tmp_path / "grow.float"
    first = _savetxt([1.0, 2.0])
    path.write_bytes(first)
    real = fixed_e.parse_parts

    def parse_then_grow(*args, **kw):
        values = real(*args, **kw)
        with open(path, "ab") as more:
            more.write(_savetxt([3.0]))
        return values

    monkeypatch.setattr(fixed_e, "parse_parts", parse_then_grow)
    np.testing.assert_array_equal(read_text_floats(path), [1.0, 2.0, 3.0])
    assert os.path.getsize(path) > len(first)

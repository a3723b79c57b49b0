"""The compiled path of the ``%.18e`` reader (``nnie_lsp/readers/dumpio/fixed_e_jit.py``, numba): the same
values as the numpy path bit for bit, on the same hypothesis-generated inputs; every byte of a line
checked; a piece it refuses goes to the numpy piece parser, a bad line to the general tokeniser,
which names it.  When a process takes it: ``test_compiled_switch.py``.

Every test of ``test_text_float_fast_path.py`` also runs on both paths (its ``path`` fixture)."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nnie_lsp.readers.dumpio import compiled, fixed_e, readers
from nnie_lsp.readers.dumpio.readers import parse_text_floats

needs_numba = pytest.mark.skipif(fixed_e.compiled() is None, reason="numba does not load here")
pytestmark = needs_numba

LINE = re.compile(rb"-?[0-9]\.[0-9]{18}e[+-][0-9]{2}")


def _savetxt(values) -> bytes:
    buffer = io.BytesIO()
    np.savetxt(buffer, np.asarray(values, dtype=np.float64))
    return buffer.getvalue()


def _both(monkeypatch, data: bytes, threads: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(numpy path, compiled path) on the same text; the compiled one checked to be taken."""
    monkeypatch.setattr(compiled, "COMPILE_AFTER", None)
    numpy_path = parse_text_floats(data, threads=threads)
    monkeypatch.setattr(compiled, "COMPILE_AFTER", 0)
    calls = []
    kernel = fixed_e.compiled()
    monkeypatch.setattr(compiled, "_KERNELS", {"fixed_e": lambda *a: calls.append(1) or kernel(*a)})
    got = parse_text_floats(data, threads=threads)
    assert calls, "the compiled path was not taken"
    return numpy_path, got


def _within_2_ulp(got: np.ndarray, data: bytes) -> None:
    """The README's bound: within 2 ulp of a correctly rounded parse of each line."""
    want = np.array([float(x) for x in data.split()])
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    with np.errstate(over="ignore"):
        spacing = np.spacing(np.abs(want))
    finite = np.isfinite(want) & (want != 0)
    np.testing.assert_array_equal(got[~finite], want[~finite])
    assert np.all(np.abs(got[finite] - want[finite]) <= 2 * spacing[finite])


def _kernel(text: bytes, room: int | None = None) -> tuple[tuple[int, int], np.ndarray, int]:
    """The kernel alone on ``text`` in a fresh buffer: ((rest, lines), values, where the text begins)."""
    work = fixed_e._Work()
    begin = fixed_e._FRONT
    work.buf[begin - 1] = 10
    work.buf[begin : begin + len(text)] = np.frombuffer(text, np.uint8)
    out = np.full(room if room is not None else len(text) // 25 + 1, np.nan)
    got = fixed_e.compiled()(work.buf, work.at, begin, begin + len(text), out, 0, fixed_e._SCALE_DIV)
    return tuple(got), out, begin


# ------------------------------------------------------------------------------ property: the same bits


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e99, max_value=1e99), min_size=1,
                max_size=80), st.booleans())
def test_savetxt_values_give_the_same_bits_on_both_paths(monkeypatch, values, final_newline):
    data = _savetxt(values)
    if not final_newline:
        data = data[:-1]
    numpy_path, got = _both(monkeypatch, data)
    np.testing.assert_array_equal(got.view(np.uint64), numpy_path.view(np.uint64))
    _within_2_ulp(got, data)


_DIGITS = st.text("0123456789", min_size=1, max_size=1)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.booleans(), _DIGITS, st.text("0123456789", min_size=18, max_size=18),
                          st.sampled_from("+-"), st.integers(0, 99)), min_size=1, max_size=60))
def test_any_digits_give_the_same_bits_on_both_paths(monkeypatch, lines):
    """Lines as %.18e lays them out but with any digits: a first digit 0, mantissas past 2^63
    (9.3e18 and more: the uint64 to float64 conversion), every exponent of two digits."""
    data = b"".join(f"{'-' if minus else ''}{d0}.{rest}e{sign}{e:02d}\n".encode()
                    for minus, d0, rest, sign, e in lines)
    numpy_path, got = _both(monkeypatch, data)
    np.testing.assert_array_equal(got.view(np.uint64), numpy_path.view(np.uint64))
    _within_2_ulp(got, data)


def test_mantissas_near_the_top_of_uint64():
    text = b"".join(f"{m[0]}.{m[1:]}e+00\n".encode() for m in (
        "9223372036854775807", "9223372036854775808", "9223372036854776833", "9999999999999999999",
        "9223372036854775296", "9223372036854776320", "1844674407370955161"))
    (rest, lines), out, begin = _kernel(text)
    assert (rest, lines) == (begin + len(text), 7)
    want = np.array([np.float64(np.uint64(x.replace(b".", b"").split(b"e")[0])) / 1e18 for x in text.split()])
    np.testing.assert_array_equal(out[:7], want)


def test_big_texts_and_threads_give_the_same_bits(monkeypatch):
    rng = np.random.default_rng(0)
    values = rng.normal(0, 50, 300_000) * rng.choice([1e-3, 1, 1e3], 300_000)
    values[::5] = -0.0
    data = _savetxt(values)
    for threads in (1, 3):
        monkeypatch.setattr(fixed_e, "CHUNK", 1 << 14)
        numpy_path, got = _both(monkeypatch, data, threads)
        np.testing.assert_array_equal(got.view(np.uint64), numpy_path.view(np.uint64))


def test_a_piece_with_a_three_digit_exponent_goes_to_the_numpy_piece_parser(monkeypatch):
    values = np.random.default_rng(1).normal(0, 1, 5000)
    values[4000] = 1e-150
    data = _savetxt(values)
    assert b"e-150" in data
    monkeypatch.setattr(fixed_e, "CHUNK", 4096)
    numpy_path, got = _both(monkeypatch, data)
    np.testing.assert_array_equal(got.view(np.uint64), numpy_path.view(np.uint64))
    _within_2_ulp(got, data)


# ------------------------------------------------------------------------------ every byte checked


def test_every_byte_of_a_line_is_checked():
    """The kernel alone: any byte of the third line changed to any other byte reads as ``float``
    reads the line when it is still %.18e with a 2-digit exponent, else refuses the piece."""
    lines = _savetxt([1.25, -3.5e-07, -9.87654321e42, 6.0]).split(b"\n")[:-1]
    for position in range(len(lines[2]) + 1):  # its newline too
        for byte in range(256):
            third = lines[2] + b"\n"
            third = third[:position] + bytes([byte]) + third[position + 1 :]
            text = lines[0] + b"\n" + lines[1] + b"\n" + third + lines[3] + b"\n"
            (rest, count), out, begin = _kernel(text)
            if all(LINE.fullmatch(line) for line in text.split(b"\n")[:-1]) and text.count(b"\n") == 4:
                assert (rest, count) == (begin + len(text), 4), (position, byte)
                _within_2_ulp(out[:4], text)
            else:
                assert (rest, count) == (-1, 0), (position, byte, text)


def test_lines_whose_newline_is_past_the_piece_are_left_for_the_next():
    text = _savetxt([1.0, -2.0, 3.0])
    for cut in range(len(text) + 1):
        (rest, count), out, begin = _kernel(text[:cut])
        full = text[:cut].count(b"\n")
        assert (rest, count) == (begin + text[:cut].rfind(b"\n") + 1, full)
        np.testing.assert_array_equal(out[:full], [1.0, -2.0, 3.0][:full])


def test_too_little_room_refuses():
    text = _savetxt([1.0, 2.0, 3.0])
    assert _kernel(text, room=2)[0] == (-1, 0)
    assert _kernel(text, room=3)[0][1] == 3


@pytest.mark.parametrize("bad", [b"1.5", b"+1.000000000000000000e+00", b"1.000000000000000000E+00",
                                 b"1.00000000000000000xe+00", b"--1.000000000000000000e+00",
                                 b"1.000000000000000000e,00", b"1.000000000000000000e+0x", b"nan", b""])
def test_a_bad_line_is_named_by_the_general_tokeniser(monkeypatch, tmp_path, bad):
    monkeypatch.setattr(compiled, "COMPILE_AFTER", 0)
    lines = _savetxt(np.random.default_rng(2).normal(0, 1, 3000)).split(b"\n")
    lines[1717] = bad
    text = b"\n".join(lines)
    path = tmp_path / "conv1_output0_caffe.linear.float"
    path.write_bytes(text)
    try:
        want = readers._parse_general(text, str(path))
    except ValueError as exc:
        want = str(exc)
    try:
        got = readers.read_text_floats(path, threads=1)
    except ValueError as exc:
        got = str(exc)
    if isinstance(want, str):
        assert got == want and f"token 1718 is not a number: {bad.split(b',')[0]!r}" in got
    else:
        np.testing.assert_array_equal(got, want)

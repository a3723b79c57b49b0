"""The compiled path of the short ``%g`` reader (``nnie_lsp/readers/dumpio/short_g_jit.py``, numba): the same
values as the numpy path bit for bit.  When a process takes it (and that it is never needed):
``test_compiled_switch.py``.

Every test of ``test_short_g.py`` also runs on both paths (its ``path`` fixture)."""

from __future__ import annotations

import numpy as np
import pytest

from nnie_lsp.readers.dumpio import compiled, short_g
from nnie_lsp.readers.dumpio.readers import read_text_floats
from nnie_lsp.readers.dumpio.writers import cpp_stream_text

needs_numba = pytest.mark.skipif(short_g.compiled() is None, reason="numba does not load here")


def _mapper_like(n: int, seed: int) -> np.ndarray:
    """float32 values as a mapper dump holds them, with every line shape: 8-bit grids of several
    clips, 16-bit-like values, zeros, -0, negatives, exponent forms, inf and nan."""
    rng = np.random.default_rng(seed)
    clips = 2.0 ** (rng.integers(-64, 97, n // 512 + 1) / 16)
    grid = np.repeat(clips, 512)[:n] * 2.0 ** (-rng.integers(0, 128, n) / 16)
    fine = np.abs(rng.normal(0, 1, n)) * np.repeat(clips, 512)[:n] / 3
    values = np.where(rng.random(n) < 0.5, grid, fine).astype(np.float32)
    values[rng.random(n) < 0.3] = 0
    values[rng.random(n) < 0.3] *= -1
    values[::97] *= np.float32(1e-6)
    values[3::101] *= np.float32(1e7)
    values[5::1009] = np.inf
    values[7::1013] = -np.inf
    values[11::1019] = np.nan
    return values


@needs_numba
def test_both_paths_give_the_same_bits(monkeypatch, tmp_path):
    data = cpp_stream_text(_mapper_like(300_000, seed=1))
    path = tmp_path / "conv2_input0_3_100_1000_anti_quant.float"
    path.write_bytes(data)
    monkeypatch.setattr(compiled, "COMPILE_AFTER", None)
    numpy_path = read_text_floats(path, threads=1)
    calls = []
    real = short_g._parse_stream_compiled
    monkeypatch.setattr(short_g, "_parse_stream_compiled", lambda *a: calls.append(1) or real(*a))
    monkeypatch.setattr(compiled, "COMPILE_AFTER", 0)
    for threads in (1, 2):
        got = read_text_floats(path, threads=threads)
        assert calls, "the compiled path was not taken"
        np.testing.assert_array_equal(got.view(np.uint64), numpy_path.view(np.uint64))
    assert np.isnan(numpy_path).any() and np.isinf(numpy_path).any() and np.signbit(numpy_path[numpy_path == 0]).any()
    assert (b"e-" in data) and (b"e+" in data) and (b"0.000" in data)


@needs_numba
@pytest.mark.parametrize("bad", [b"0.5x", b"1-2", b"--1", b"0..5", b"1e+5", b"0.1234567891", b"", b"+1"])
def test_a_bad_line_refuses_the_piece(monkeypatch, bad):
    """The kernel alone (no fallback): a bad line anywhere in a piece makes it answer (-1, 0)."""
    monkeypatch.setattr(compiled, "COMPILE_AFTER", 0)
    lines = cpp_stream_text(_mapper_like(500, seed=5)).split(b"\n")[:-1]
    kernel = short_g.compiled()
    for where in (0, 1, 250, 499):
        text = b"\n".join(lines[:where] + [bad] + lines[where + 1 :]) + b"\n"
        work = short_g._JitWork(len(text) + 64)
        begin = short_g._FRONT
        work.buf[begin - 1] = 10
        work.buf[begin : begin + len(text)] = np.frombuffer(text, np.uint8)
        out = np.empty(len(text))
        got = kernel(*work.text(), begin, begin + len(text), out, 0, *work.arrays(), *short_g._tables())
        assert tuple(got) == (-1, 0), (bad, where)
        good = b"\n".join(lines) + b"\n"
        work.buf[begin : begin + len(good)] = np.frombuffer(good, np.uint8)
        assert tuple(kernel(*work.text(), begin, begin + len(good), out, 0, *work.arrays(), *short_g._tables())) == (
            begin + len(good), 500)

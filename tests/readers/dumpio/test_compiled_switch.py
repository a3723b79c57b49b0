"""When a process switches its text readers to their compiled paths (``nnie_lsp/readers/dumpio/compiled.py``):
one rule for the mapper's six-digit text and ``%.18e``; numba is not touched before it says so, and
never needed (the numpy paths read everything where it does not load)."""

from __future__ import annotations

import io
import sys

import numpy as np
import pytest


from nnie_lsp.readers.dumpio import compiled, fixed_e, short_g
from nnie_lsp.readers.dumpio.readers import parse_text_floats
from nnie_lsp.readers.dumpio.writers import cpp_stream_text

needs_numba = pytest.mark.skipif(short_g.compiled() is None or fixed_e.compiled() is None,
                                 reason="numba does not load here")


def _mapper_text(n: int, seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    values = (2.0 ** (-rng.integers(0, 128, n) / 16)).astype(np.float32)
    values[rng.random(n) < 0.3] *= -1
    values[::7] *= np.float32(1e-6)
    return cpp_stream_text(values)


def _e18_text(n: int, seed: int) -> bytes:
    buffer = io.BytesIO()
    np.savetxt(buffer, np.random.default_rng(seed).normal(0, 50, n))
    return buffer.getvalue()


@pytest.fixture
def fresh(monkeypatch):
    """A process that has loaded no compiled path and read nothing yet."""
    monkeypatch.setattr(compiled, "_KERNELS", {})
    monkeypatch.setattr(compiled, "_SPENT", [0.0])


@pytest.fixture
def taken(monkeypatch):
    """Which compiled paths the texts took: a list of form names, one per text."""
    calls: list[str] = []
    real_g = short_g._parse_stream_compiled
    monkeypatch.setattr(short_g, "_parse_stream_compiled", lambda *a: calls.append("short_g") or real_g(*a))
    real_e = fixed_e.parse_stream

    def parse_stream(read, capacity, frac, kernel=None):
        if kernel is not None:
            calls.append("fixed_e")
        return real_e(read, capacity, frac, kernel)

    monkeypatch.setattr(fixed_e, "parse_stream", parse_stream)
    return calls


@needs_numba
def test_numpy_paths_until_their_estimated_cost_reaches_COMPILE_AFTER(monkeypatch, fresh, taken):
    g, e = _mapper_text(300, seed=1), _e18_text(300, seed=2)
    cost_g, cost_e = len(g) * short_g.NUMPY_NS_PER_BYTE * 1e-9, len(e) * fixed_e.NUMPY_NS_PER_BYTE * 1e-9
    monkeypatch.setattr(compiled, "COMPILE_AFTER", 2 * (cost_g + cost_e) + cost_g / 2)
    for _ in range(2):  # the bytes of both forms count, each at its numpy path's cost
        parse_text_floats(g)
        parse_text_floats(e)
        assert compiled._KERNELS == {} and not taken  # numba not touched
    parse_text_floats(g)
    assert compiled._KERNELS["short_g"] is not None and taken == ["short_g"]
    parse_text_floats(e)  # numba is in: the other form loads on its first text
    assert compiled._KERNELS["fixed_e"] is not None and taken == ["short_g", "fixed_e"]
    np.testing.assert_array_equal(parse_text_floats(b"0.25\n-1.5e-05\n"), [0.25, -1.5e-05])
    np.testing.assert_array_equal(parse_text_floats(b"2.500000000000000000e-01\n"), [0.25])
    assert taken[2:] == ["short_g", "fixed_e"], "once loaded, every text takes the compiled path"


@needs_numba
def test_other_digit_counts_never_take_the_compiled_path(monkeypatch, fresh, taken):
    monkeypatch.setattr(compiled, "COMPILE_AFTER", 0)
    buffer = io.BytesIO()
    np.savetxt(buffer, [1.5, -2.25], fmt="%.17e")
    np.testing.assert_array_equal(parse_text_floats(buffer.getvalue()), [1.5, -2.25])
    assert not taken and "fixed_e" not in compiled._KERNELS


def test_never_means_never(monkeypatch, fresh):
    monkeypatch.setattr(compiled, "COMPILE_AFTER", None)
    parse_text_floats(_mapper_text(3000, seed=3))
    parse_text_floats(_e18_text(3000, seed=3))
    assert compiled._KERNELS == {} and compiled._SPENT == [0.0]


def test_without_numba_the_numpy_paths_read_it(monkeypatch, fresh):
    for name in ("jit_words", "short_g_jit", "fixed_e_jit"):
        monkeypatch.setitem(sys.modules, f"nnie_lsp.readers.dumpio.{name}", None)  # "import" raises ImportError
        monkeypatch.delattr(sys.modules["nnie_lsp.readers.dumpio"], name, raising=False)
    monkeypatch.setattr(compiled, "COMPILE_AFTER", 0)
    g, e = _mapper_text(5000, seed=4), _e18_text(5000, seed=4)
    got_g, got_e = parse_text_floats(g), parse_text_floats(e)
    assert compiled._KERNELS == {"short_g": None, "fixed_e": None}
    np.testing.assert_array_equal(got_g, [float(x) for x in g.split()])
    np.testing.assert_allclose(got_e, [float(x) for x in e.split()], rtol=5e-16, atol=0)


def test_a_kernel_that_fails_its_check_is_not_used(monkeypatch, fresh):
    """The self-check on load: a kernel that misreads its check lines leaves the numpy path."""
    monkeypatch.setattr(compiled, "COMPILE_AFTER", 0)
    monkeypatch.setattr(fixed_e, "_CHECK", b"1.000000000000000000e+00\n-2.500000000000000000e-02\n")
    assert fixed_e.compiled() is None
    e = _e18_text(500, seed=5)
    np.testing.assert_allclose(parse_text_floats(e), [float(x) for x in e.split()], rtol=5e-16, atol=0)

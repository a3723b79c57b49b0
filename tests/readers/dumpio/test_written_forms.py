"""The writers produce the real tools' forms byte for byte (docs/field-facts.md §10, §16.5):

- the mapper's dequantized ``…_anti_quant[.linear].float``: C++ default stream output of each
  float32 value (``%g``, six significant digits): a real NNIE 1.1 file reads ``0.353553``,
  ``0.0743254``, ``0.25``, ``0``;
- ``%08x`` two's-complement words for every ``.hex`` output;
- RuyiStudio's Caffe side: numpy ``savetxt`` defaults (``%.18e``);
- the documented file names.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import re
from pathlib import Path

import numpy as np
import pytest

from nnie_lsp.readers.dumpio.readers import read_text_floats
from nnie_lsp.readers.dumpio.scan import scan_dumps
from nnie_lsp.readers.dumpio.writers import write_hex, write_inst, write_mapper_input
from nnie_lsp.readers.dumpio.writers import write_mapper_quant, write_ruyi_caffe
from nnie_lsp.readers.dumpio.writers import cpp_stream_text
from nnie_lsp.emulation.codes import clip_from_twin, decode_codes, read_codes, write_input_dumps

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "triage"
# what C++ `stream << float` can write: %g with at most six significant digits
STREAM_LINE = re.compile(rb"-?(inf|nan|\d+(\.\d+)?(e[-+]\d\d)?)")


def _significant_digits(line: bytes) -> int:
    mantissa = line.lstrip(b"-").split(b"e")[0].replace(b".", b"").lstrip(b"0")
    return len(mantissa)


def _check_stream_form(data: bytes, values: np.ndarray) -> None:
    """Every line is C++ stream output of the float32 value in the same place."""
    assert data.endswith(b"\n") and b"\r" not in data
    lines = data.split(b"\n")[:-1]
    f32 = np.asarray(values, dtype=np.float32).reshape(-1)
    assert len(lines) == f32.size
    for line, value in zip(lines, f32):
        assert STREAM_LINE.fullmatch(line), line
        assert _significant_digits(line) <= 6, line
        assert line == ("%.6g" % float(value)).encode() or np.isnan(value), (line, value)
    parsed = read_text_floats_bytes(data)
    finite = np.isfinite(f32)
    assert np.all(np.abs(parsed[finite] - f32[finite]) <= 5.0000001e-6 * np.abs(f32[finite].astype(np.float64)))


def read_text_floats_bytes(data: bytes) -> np.ndarray:
    from nnie_lsp.readers.dumpio.readers import parse_text_floats

    return parse_text_floats(data)


# ------------------------------------------------------------------------------ the C++ stream form


def test_the_literal_lines_of_a_real_dequantized_dump():
    """§16.5: levels clip·2^(-k/16) with clip 1.0 print as the real file prints them."""
    levels = np.float32([2 ** (-24 / 16), 2 ** (-60 / 16), 2 ** (-32 / 16), 0.0, 1.0, 2 ** (-127 / 16)])
    assert cpp_stream_text(levels) == b"0.353553\n0.0743254\n0.25\n0\n1\n0.00407919\n"


def test_small_large_and_non_finite_values():
    values = np.float32([1.5e-5, -7.62939e-6, 1234567.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45,
                         3.4028235e38, 0.0001, 9.999e-05, 123456.0, 1234565.0])
    assert cpp_stream_text(values).split(b"\n")[:-1] == [
        b"1.5e-05", b"-7.62939e-06", b"1.23457e+06", b"-0", b"inf", b"-inf", b"nan", b"-nan", b"1.4013e-45",
        b"3.40282e+38", b"0.0001", b"9.999e-05", b"123456", b"1.23456e+06"]  # 1234565: a tie, to even


def test_the_float64_input_is_printed_as_the_float32_the_mapper_holds():
    assert cpp_stream_text(np.array([0.1, 1 / 3])) == b"0.1\n0.333333\n"
    assert cpp_stream_text(np.array([16777217.0])) == b"1.67772e+07\n"  # float32(16777217) = 16777216


def test_glibc_printf_agrees(tmp_path):
    """The same bytes as the C library's ``%g`` (what libstdc++'s num_put calls) on random float32 bit
    patterns and on mapper-like values."""
    libc_name = ctypes.util.find_library("c")
    if libc_name is None:
        pytest.skip("no C library to compare with")
    libc = ctypes.CDLL(libc_name)
    buffer = ctypes.create_string_buffer(64)
    rng = np.random.default_rng(0)
    bits = rng.integers(0, 2**32, 20_000, dtype=np.uint64).astype(np.uint32)
    values = np.concatenate([bits.view(np.float32), (rng.normal(0, 1, 20_000) * 10.0 ** rng.integers(-7, 8, 20_000))
                             .astype(np.float32)])
    ours = cpp_stream_text(values).split(b"\n")[:-1]
    for value, line in zip(values, ours):
        libc.snprintf(buffer, 64, b"%g", ctypes.c_double(float(value)))
        assert buffer.value == line, (float(value), buffer.value, line)


def test_write_mapper_input_writes_the_stream_form(tmp_path):
    rng = np.random.default_rng(1)
    data = (rng.normal(0, 1, (3, 4, 5)) * 10.0 ** rng.integers(-6, 7, (3, 4, 5))).astype(np.float32)
    for linear, suffix in ((True, "_anti_quant.linear.float"), (False, "_anti_quant.float")):
        path = Path(write_mapper_input(tmp_path / str(linear), "conv1", data, 0, linear=linear))
        assert path.name == "conv1_input0_3_4_5" + suffix
        _check_stream_form(path.read_bytes(), data)
        (tensor,) = scan_dumps(str(path.parent)).tensors
        assert (tensor.fmt, tensor.key, tensor.role, tensor.shape) == ("mapper-input", "conv1", "input", (3, 4, 5))


def test_emulated_twins_are_the_real_form_and_still_give_the_clip(tmp_path):
    rng = np.random.default_rng(3)
    x = np.maximum(rng.normal(0.426, 1.0, (2, 256, 10, 10)), 0.0)
    x = x / x.max()
    code_file, twin = write_input_dumps(tmp_path, "conv6_2", 0, x, clip=1.0)
    assert twin.name == "conv6_2_input0_256_10_10_anti_quant.float"
    lines = twin.read_bytes().split(b"\n")[:-1]
    assert len(lines) == 51200
    assert {b"0.353553", b"0.0743254", b"0.25", b"0", b"1"} <= set(lines)
    assert all(STREAM_LINE.fullmatch(line) and _significant_digits(line) <= 6 for line in set(lines))
    codes, bits = read_codes(code_file)
    check = clip_from_twin(codes, read_text_floats(twin), bits)
    assert check.clip == 1.0 and check.agrees
    # each line is the float32 level the mapper holds, to six significant digits
    levels = decode_codes(codes, 1.0, bits).astype(np.float32)
    _check_stream_form(twin.read_bytes(), levels)
    # a clip above 1: values printed with fewer decimals still agree with their codes
    clip = 2.0 ** (21 / 16)
    code_file, twin = write_input_dumps(tmp_path, "conv3", 1, x * 1.3, clip=clip)
    codes, bits = read_codes(code_file)
    assert clip_from_twin(codes, read_text_floats(twin), bits).agrees
    assert not clip_from_twin(codes, read_text_floats(twin) * 1.0001, bits).agrees


def test_emulate_input_dumps_write_the_real_form(tmp_path):
    """``nnie-triage emulate --input-dumps``: every ``…_anti_quant.float`` line is C++ stream output
    (the §16.5 real file's form), on the 8-bit grid of its code file."""
    from nnie_lsp.cli.triage import main

    cfg = EXAMPLES / "quant_noise" / "sim.cfg"
    assert main(["emulate", "--cfg", str(cfg), "--input-dumps", "-o", str(tmp_path / "sim")]) == 0
    twins = sorted((tmp_path / "sim").glob("*_anti_quant.float"))
    assert twins
    for twin in twins:
        data = twin.read_bytes()
        lines = data.split(b"\n")[:-1]
        assert all(STREAM_LINE.fullmatch(line) and _significant_digits(line) <= 6 for line in set(lines)), twin
        assert not any(b"e+" in line and len(line) > 12 for line in lines)
        code_file = twin.with_name(twin.name.replace("_anti_quant.float", "_quant.nonlinear.hex"))
        if twin.name.startswith("conv1_input0_"):  # the net's input: its data, no code file (emulate.py)
            assert not code_file.exists()
            continue
        codes, bits = read_codes(code_file)
        assert clip_from_twin(codes, read_text_floats(twin), bits).agrees, twin


# ------------------------------------------------------------------------------ hex and Caffe forms


def test_hex_words_are_08x_twos_complement(tmp_path):
    values = np.array([0.0, 1.0, -1.0 / 4096, -1.0, 0.5, 524287.999755859375, -524288.0, 1e9, -1e9])
    path = Path(write_hex(tmp_path / "x.hex", values))
    assert path.read_bytes() == (b"00000000\n00001000\nffffffff\nfffff000\n00000800\n7fffffff\n80000000\n"
                                 b"7fffffff\n80000000\n")
    inst = Path(write_inst(tmp_path, 0, 38, values[:2]))
    assert inst.name == "seg0_layer38_output0_inst.linear.hex" and inst.read_bytes() == b"00000000\n00001000\n"
    quant = Path(write_mapper_quant(tmp_path, "conv6_2", np.ones((2, 1, 1)), 0))
    assert quant.name == "conv6_2_output0_2_1_1_quant.linear.hex" and quant.read_bytes() == b"00001000\n" * 2


def test_caffe_side_keeps_numpy_savetxt_defaults(tmp_path):
    value = np.float32([0.1, -2.5, 0.0]).reshape(3, 1, 1)
    path = Path(write_ruyi_caffe(tmp_path, "conv1/a", value))
    assert path.name == "conv1_a_output0_3_1_1_caffe.linear.float"
    assert path.read_bytes() == (b"1.000000014901161194e-01\n-2.500000000000000000e+00\n"
                                 b"0.000000000000000000e+00\n")

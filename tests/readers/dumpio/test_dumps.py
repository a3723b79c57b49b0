"""Every dump writer/reader pair round-trips; names parse in all documented forms."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from nnie_lsp.readers.dumpio.readers import parse_text_floats, read_hex_words, read_text_floats
from nnie_lsp.readers.dumpio.scan import scan_dumps
from nnie_lsp.readers.dumpio.tensor import resolve_layout
from nnie_lsp.readers.dumpio.writers import write_bin, write_inst, write_mapper_input, write_mapper_quant, write_npy, write_npz, write_ruyi_caffe, write_text
from nnie_lsp.readers.dumpio.names import DumpName, is_ignored_file, normalize_name, parse_dump_name

FIX_MAX = (2**31 - 1) / 4096
shapes = st.sampled_from([(2, 3, 4), (3, 5), (7,), (1,), (1, 2, 2, 3)])
finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False, width=64)
fixed = st.floats(-FIX_MAX, FIX_MAX, allow_nan=False, allow_infinity=False)
HS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _arr(shape, elems):
    return arrays(np.float64, shape, elements=elems)


@HS
@given(data=st.data(), shape=shapes)
def test_ruyi_round_trip(tmp_path, data, shape):
    a = data.draw(_arr(shape, finite | st.sampled_from([0.0, -0.0, 1e-30, -3.5e5])))
    item = a[0] if a.ndim == 4 else a
    d = tmp_path / f"r{abs(hash(a.tobytes()))}"
    p = write_ruyi_caffe(d, "blk/conv:1", item)
    (t,) = scan_dumps(str(d)).tensors
    assert t.fmt == "ruyi-caffe" and t.key == "blk_conv:1" and t.index == 0
    expected_shape = None if item.shape == (1,) else item.shape
    assert t.shape == expected_shape
    back = t.load()
    np.testing.assert_allclose(back.reshape(-1), item.reshape(-1), rtol=4e-16, atol=0)
    assert os.path.basename(p).endswith("_caffe.linear.float")


@HS
@given(data=st.data(), shape=st.sampled_from([(2, 3, 4), (3, 5), (6,)]), order=st.sampled_from(["CHW", "WHC"]))
def test_mapper_quant_round_trip(tmp_path, data, shape, order):
    a = data.draw(_arr(shape, fixed))
    q = np.clip(np.round(a * 4096), -(2**31), 2**31 - 1) / 4096
    d = tmp_path / f"m{abs(hash(a.tobytes()))}{order}"
    write_mapper_quant(d, "conv/1", a, 5, dims_order=order)
    (t,) = scan_dumps(str(d)).tensors
    assert (t.fmt, t.key, t.index, t.role) == ("mapper-quant", "conv_1", 5, "output")
    want = tuple(reversed(shape)) if order == "WHC" else shape
    assert t.shape == want
    arr, note = resolve_layout(t, shape if len(shape) == 3 else None)
    np.testing.assert_array_equal(arr.reshape(-1), q.reshape(-1))
    if len(shape) == 3:
        assert arr.shape == shape
        assert ("W_H_C" in note) == (order == "WHC")


def test_hex_encoding_is_exact_twos_complement(tmp_path):
    p = write_inst(tmp_path, 0, 38, np.array([-1 / 4096, 1.0, -1.0, 0.0, FIX_MAX, -524288.0]))
    assert os.path.basename(p) == "seg0_layer38_output0_inst.linear.hex"
    assert Path(p).read_text().split() == ["ffffffff", "00001000", "fffff000", "00000000", "7fffffff", "80000000"]
    np.testing.assert_array_equal(read_hex_words(p), [-1 / 4096, 1.0, -1.0, 0.0, FIX_MAX, -524288.0])
    assert read_hex_words(p, frac_bits=0)[1] == 4096


def test_hex_fallback_forms(tmp_path):
    p = tmp_path / "x.hex"
    p.write_bytes(b"0x1000\r\nFFFFF000\n  800\n")
    np.testing.assert_array_equal(read_hex_words(p), [1.0, -1.0, 0.5])
    p.write_bytes(b"00001000\nzz\n")
    with pytest.raises(ValueError, match="not hexadecimal"):
        read_hex_words(p)


@HS
@given(data=st.data(), shape=st.sampled_from([(2, 3, 4), (5,)]))
def test_inst_round_trip(tmp_path, data, shape):
    a = data.draw(_arr(shape, fixed))
    d = tmp_path / f"i{abs(hash(a.tobytes()))}"
    write_inst(d, 2, 3605, a)
    (t,) = scan_dumps(str(d)).tensors
    assert (t.fmt, t.seg, t.node, t.index, t.shape) == ("inst", 2, 3605, 0, None)
    np.testing.assert_allclose(t.load(), a.reshape(-1), atol=0.5 / 4096 + 1e-12)


def test_generic_formats_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    a = rng.normal(size=(3, 4, 5)).astype(np.float32)
    write_npy(tmp_path, "res2a/branch1", a)
    write_npz(tmp_path / "all.npz", {"fc:0": a[0], "prob": a[1, 1]})
    write_bin(tmp_path, "conv1_1", a)
    write_text(tmp_path, "t_space", a, sep=" ")
    write_text(tmp_path, "t_comma", a, sep=",", with_shape=False)
    s = scan_dumps(str(tmp_path))
    T = {t.key: t for t in s.tensors}
    assert set(T) == {"res2a_branch1", "fc:0", "prob", "conv1_1", "t_space", "t_comma"}, s.warnings
    np.testing.assert_array_equal(T["res2a_branch1"].load(), a)
    np.testing.assert_array_equal(T["fc:0"].load(), a[0])
    assert T["conv1_1"].shape == (3, 4, 5) and T["conv1_1"].file_dtype == "float32"
    assert isinstance(T["conv1_1"].load_raw(), np.memmap)
    np.testing.assert_array_equal(T["conv1_1"].load(), a)
    np.testing.assert_allclose(T["t_space"].load(), a, rtol=1e-7)
    assert T["t_space"].shape == (3, 4, 5)
    np.testing.assert_allclose(T["t_comma"].load(), a.reshape(-1), rtol=1e-7)
    assert s.kind == "generic"


def test_bin_u8_image_and_ambiguous_names(tmp_path):
    img = np.arange(3 * 4 * 4, dtype=np.uint8).reshape(3, 4, 4)
    img.tofile(tmp_path / "test_input_img_3_4_4.bin")
    (t,) = scan_dumps(str(tmp_path)).tensors
    assert t.file_dtype == "uint8" and t.key == "test_input_img" and t.shape == (3, 4, 4)
    np.testing.assert_array_equal(t.load(), img)
    np.zeros((1, 2, 2, 2), np.float32).tofile(tmp_path / "conv1_1_2_2_2.bin")
    t2 = [x for x in scan_dumps(str(tmp_path)).tensors if x.key != "test_input_img"][0]
    assert t2.key == "conv1_1" and t2.shape == (2, 2, 2) and "conv1" in t2.alt_keys  # other reading kept


@pytest.mark.parametrize(
    "fname,fmt,name,index,shape",
    [
        ("conv1_output0_64_56_56_caffe.linear.float", "ruyi-caffe", "conv1", 0, (64, 56, 56)),
        ("fc6_output1_4096_1_caffe.linear.float", "ruyi-caffe", "fc6", 1, (4096, 1)),
        ("prob_output0_1000_caffe.linear.float", "ruyi-caffe", "prob", 0, (1000,)),
        ("loss_output0_caffe.linear.float", "ruyi-caffe", "loss", 0, None),
        ("x_output3_output0_8_caffe.linear.float", "ruyi-caffe", "x_output3", 0, (8,)),
        ("res2a_branch2a_output0_56_56_64_quant.linear.hex", "mapper-quant", "res2a_branch2a", 0, (56, 56, 64)),
        ("comp2:NET:conv1_output7_3_4_4_quant.linear.hex", "mapper-quant", "comp2:NET:conv1", 7, (3, 4, 4)),
        ("conv2_input1_32_8_8_anti_quant.linear.float", "mapper-input", "conv2", 1, (32, 8, 8)),
        ("seg0_layer38_output0_inst.linear.hex", "inst", "seg0_layer38", 0, None),
    ],
)
def test_name_forms(fname, fmt, name, index, shape):
    parsed = parse_dump_name(fname)
    assert (parsed.fmt, parsed.name, parsed.index, parsed.shape) == (fmt, name, index, shape)


def test_skips_and_warnings(tmp_path):
    (tmp_path / "conv1_weight.hex").write_text("00000001\n")
    (tmp_path / "conv1_input0_3_2_2_quant.nonlinear.hex").write_text("01\n")
    (tmp_path / "cnn_net_tree.dot").write_text("digraph{}")
    (tmp_path / "notes.xyz").write_text("?")
    s = scan_dumps(str(tmp_path))
    assert s.tensors == () and s.kind == "empty"
    w = " ".join(s.warnings)
    assert "nonlinear" in w and "notes.xyz" in w and "no dump tensors" in w and "cnn_net_tree" not in w
    with pytest.raises(FileNotFoundError):
        scan_dumps(str(tmp_path / "missing"))


def test_subfolders_kind_and_duplicates(tmp_path):
    a = np.ones((2, 2, 2))
    write_ruyi_caffe(tmp_path, "data", a)
    write_mapper_quant(tmp_path / "mapper_quant", "conv1", a, 1)
    write_mapper_quant(tmp_path / "copy", "conv1", a, 1)
    s = scan_dumps(str(tmp_path))
    assert s.kind == "mixed" and len(s.tensors) == 2
    assert any("duplicate" in w for w in s.warnings)


def test_mindspore_variants(tmp_path):
    (tmp_path / "seg0_layer0_input(data)_inst.linear.hex").write_text("data 4 1 2 2 1\n0.5 0.25\n1 2\n")
    (tmp_path / "fseg0(3,38)_conv5.txt").write_text("1.5 2.5 3.5\n")
    s = scan_dumps(str(tmp_path))
    T = {t.raw_name: t for t in s.tensors}
    assert T["data"].role == "input" and T["data"].shape == (1, 2, 2)
    np.testing.assert_array_equal(T["data"].load().reshape(-1), [0.5, 0.25, 1, 2])
    assert T["conv5"].seg == 0 and T["conv5"].node == 38
    np.testing.assert_array_equal(T["conv5"].load(), [1.5, 2.5, 3.5])


@pytest.mark.parametrize(
    "text,want",
    [
        (b"1.0\n2.5\n", [1.0, 2.5]),
        (b"1, 2,3\n", [1, 2, 3]),
        (b"1\t-2e3 ;4\r\n", [1, -2000, 4]),
        (b"\n\n7\n", [7.0]),
        (b"nan\ninf\n-inf\n", [np.nan, np.inf, -np.inf]),
        (b"1.000000000000000000e+00\n-2.500000000000000000e-01", [1.0, -0.25]),
        # the mapper's dequantized text: C++ stream output, six significant digits (§16.5)
        (b"0.353553\n0.0743254\n0.25\n0\n-0\n1.5e-05\n-1.23457e+06\n", [0.353553, 0.0743254, 0.25, 0, -0.0,
                                                                        1.5e-05, -1.23457e+06]),
        (b"", []),
    ],
)
def test_text_float_forms(text, want):
    np.testing.assert_array_equal(parse_text_floats(text), np.array(want, dtype=float))


def test_text_fast_path_matches_loadtxt_on_extremes(tmp_path):
    v = np.array([0.0, -0.0, 1e300, -1e-300, 5e-324, 1.7976931348623157e308, 123.456, -9.999999999999999e-5])
    rng = np.random.default_rng(2)
    v = np.concatenate([v, rng.normal(0, 1e4, 5000), rng.normal(0, 1e-8, 5000)])
    p = tmp_path / "x.float"
    np.savetxt(p, v)
    got = read_text_floats(p)
    ref = np.loadtxt(p)
    np.testing.assert_allclose(got, ref, rtol=5e-16, atol=0)
    p.write_bytes(p.read_bytes().replace(b"\n", b"\n", 1) + b"oops\n")
    with pytest.raises(ValueError, match="not a number"):
        read_text_floats(p)


def test_normalize_name():
    assert normalize_name("conv1/bn") == "conv1_bn"
    assert normalize_name("conv1_hp") == "conv1"
    assert normalize_name("yolo_out_report") == "yolo_out"
    assert normalize_name("rpn_cpu") == "rpn"
    assert normalize_name("comp2:NET:conv1_hp_report") == "comp2:NET:conv1"
    assert normalize_name("_hp") == "_hp"


# ------------------------------------------------------------------------------------------
# the name grammar as a typed record
@pytest.mark.parametrize(
    "fname,want",
    [
        ("seg1_layer7_input(data)_inst.linear.hex",
         DumpName(fmt="inst", name="data", role="input", index=0, seg=1, node=7)),
        ("seg0_layer3_input2_inst.linear.hex",
         DumpName(fmt="inst", name="seg0_layer3", role="input", index=2, seg=0, node=3)),
        ("fseg0(3,38)_conv5.txt", DumpName(fmt="text", name="conv5", seg=0, node=38)),
        ("ms/seg2(1,9)_prob.txt", DumpName(fmt="text", name="prob", seg=2, node=9)),
        ("res.npy", DumpName(fmt="npy", name="res")),
        ("all.NPZ", DumpName(fmt="npz", name="all")),
        ("img_1x3x4x4.bin", DumpName(fmt="bin", name="img_1x3x4x4", readings=(("img", (1, 3, 4, 4)),))),
        ("a_2_3.hex", DumpName(fmt="text-hex", name="a_2_3", readings=(("a", (2, 3)), ("a_2", (3,)), ("a_2_3", ())))),
        ("x.csv", DumpName(fmt="text", name="x", readings=(("x", ()),))),
    ],
)
def test_name_records(fname, want):
    assert parse_dump_name(fname) == want


def test_real_nnie11_input_form_without_linear(tmp_path):
    """Real NNIE 1.1 folders write ``<layer>_input<k>_C_H_W_anti_quant.float`` (no ``.linear``):
    a dequantized layer input, like the documented form, not a generic text tensor."""
    parsed = parse_dump_name("conv6_2_input0_256_10_10_anti_quant.float")
    assert (parsed.fmt, parsed.name, parsed.role, parsed.index, parsed.shape) == (
        "mapper-input", "conv6_2", "input", 0, (256, 10, 10))
    a = np.arange(2 * 3 * 3, dtype=float).reshape(2, 3, 3) / 8
    written = write_mapper_input(tmp_path, "conv6_2", a, 0, linear=False)
    assert written.endswith("conv6_2_input0_2_3_3_anti_quant.float")
    (t,) = scan_dumps(str(tmp_path)).tensors
    assert (t.fmt, t.key, t.role, t.shape) == ("mapper-input", "conv6_2", "input", (2, 3, 3))
    np.testing.assert_array_equal(t.load(), a)


def test_position_prefixed_caffe_form_keeps_the_plain_name_as_alternative(tmp_path):
    """A public C++ dump program writes ``layer<i>_<layer>_output0_..._caffe.linear.float``."""
    parsed = parse_dump_name("layer3_conv2_output0_8_4_4_caffe.linear.float")
    assert (parsed.name, parsed.alt_names, parsed.shape, parsed.position) == ("layer3_conv2", ("conv2",), (8, 4, 4), 3)
    assert parse_dump_name("conv2_output0_8_caffe.linear.float").alt_names == ()
    plain = parse_dump_name("layer12_output0_8_caffe.linear.float")  # no prefix: a name
    assert (plain.alt_names, plain.position) == ((), None)
    write_ruyi_caffe(tmp_path, "layer3_conv2/a", np.ones((2, 2, 2)))
    (t,) = scan_dumps(str(tmp_path)).tensors
    assert t.key == "layer3_conv2_a" and t.alt_keys == ("conv2_a",) and t.position == 3


def test_skip_records_and_ignored_files():
    nonlinear = parse_dump_name("conv1_input0_3_2_2_quant.nonlinear.hex")
    weights = parse_dump_name("comp2:NET:conv_fold_blob0_weight.float")
    assert nonlinear.fmt == "skip" and "nonlinear" in nonlinear.skip_reason
    assert weights.fmt == "skip" and "weights" in weights.skip_reason
    assert parse_dump_name("notes.xyz") is None
    assert is_ignored_file("out/cnn_net_tree_gv.dot") and is_ignored_file("mapper_run.log")
    assert not is_ignored_file("conv1_output0_caffe.linear.float")


@HS
@given(
    name=st.from_regex(r"[A-Za-z][A-Za-z0-9_:/\-]{0,12}[A-Za-z]", fullmatch=True),
    shape=st.lists(st.integers(1, 300), min_size=0, max_size=3).map(tuple),
    number=st.integers(0, 40),
)
def test_written_names_parse_back(name, shape, number):
    """Every writer's file name parses back to the name, number and dims it was built from."""
    from nnie_lsp.readers.dumpio import names

    key = normalize_name(name)
    cases = [
        (names.ruyi_caffe_file_name(name, number, shape), "ruyi-caffe", "output"),
        (names.mapper_quant_file_name(name, number, shape), "mapper-quant", "output"),
        (names.mapper_input_file_name(name, number, shape), "mapper-input", "input"),
    ]
    for file_name, fmt, role in cases:
        parsed = parse_dump_name(file_name)
        assert (parsed.fmt, parsed.name, parsed.key, parsed.role, parsed.index, parsed.shape) == (
            fmt, names.safe_name(name), key, role, number, shape or None), file_name
    parsed = parse_dump_name(names.inst_file_name(2, number + 3, 0))
    assert (parsed.fmt, parsed.seg, parsed.node, parsed.index) == ("inst", 2, number + 3, 0)

"""The compact exact form of Caffe dumps (nnie_lsp/readers/dumpio/compact.py): float32 round-trips bit for
bit through the writer, the folder scan and the reader; the name is RuyiStudio's with ``.npz``;
the reference writes it by default and RuyiStudio's text on request; damaged files are named."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from nnie_lsp.readers.dumpio import compact
from nnie_lsp.readers.dumpio.names import parse_dump_name
from nnie_lsp.readers.dumpio.scan import scan_dumps
from nnie_lsp.readers.dumpio.writers import write_ruyi_caffe
from nnie_lsp.readers.dumpio.names import is_caffe_dump_name, ruyi_caffe_file_name

# any float32 bit pattern: NaN payloads, signed zeros, subnormals, infinities
FLOAT32_BITS = hnp.arrays(np.uint32, hnp.array_shapes(min_dims=1, max_dims=3, max_side=9),
                          elements=st.integers(0, 2**32 - 1))


@settings(max_examples=60, deadline=None)
@given(bits=FLOAT32_BITS, item=st.integers(0, 3))
def test_float32_round_trips_bit_for_bit_through_the_folder_scan(tmp_path_factory, bits, item):
    values = bits.view(np.float32)
    folder = tmp_path_factory.mktemp("dumps")
    path = write_ruyi_caffe(folder, "conv1/relu", values, n=item, form="compact")
    named = () if values.shape == (1,) else values.shape   # RuyiStudio names a one-value item without dims
    assert Path(path).name == ruyi_caffe_file_name("conv1/relu", item, named, "compact")
    (tensor,) = scan_dumps(folder).tensors
    assert (tensor.fmt, tensor.storage, tensor.key, tensor.index) == ("ruyi-caffe", "compact", "conv1_relu", item)
    assert tensor.shape == (named or None)
    back = tensor.load_raw()
    assert back.dtype == np.float32 and np.array_equal(back.view(np.uint32), bits.reshape(-1))
    # load() is float64 of the same values, in the name's shape
    assert np.array_equal(tensor.load().reshape(-1), values.astype(np.float64).reshape(-1), equal_nan=True)


@settings(max_examples=30, deadline=None)
@given(bits=FLOAT32_BITS)
def test_the_threaded_writer_writes_the_same_bytes(tmp_path_factory, bits):
    values = bits.view(np.float32)
    folder = tmp_path_factory.mktemp("threads")
    with compact.CompactWriter(threads=2) as writer:
        threaded = writer.write(str(folder / "a.npz"), values)
        values = values.copy()
        values.view(np.uint32)[...] = 0     # the writer kept its own copy
    assert Path(threaded).read_bytes() == compact.to_bytes(bits.view(np.float32))


def test_zero_heavy_activations_take_a_tenth_of_the_text_bytes(tmp_path):
    rng = np.random.default_rng(0)
    relu = np.maximum(rng.standard_normal((16, 60, 80)).astype(np.float32), 0)   # half zeros
    text = Path(write_ruyi_caffe(tmp_path / "t", "conv", relu))
    small = Path(write_ruyi_caffe(tmp_path / "c", "conv", relu, form="compact"))
    assert small.stat().st_size * 10 <= text.stat().st_size
    # values with no zeros are stored, not deflated for nothing: 4 bytes a value and the header
    dense = rng.standard_normal(20000).astype(np.float32)
    stored = compact.to_bytes(dense)
    with zipfile.ZipFile(__import__("io").BytesIO(stored)) as archive:
        assert archive.getinfo("value.npy").compress_type == zipfile.ZIP_STORED
    assert len(stored) < 4 * dense.size + 400


def test_the_name_grammar_reads_both_forms():
    text = parse_dump_name("conv1_output0_8_4_4_caffe.linear.float")
    small = parse_dump_name("conv1_output0_8_4_4_caffe.linear.npz")
    assert (text.fmt, text.storage) == ("ruyi-caffe", "text")
    assert (small.fmt, small.storage, small.shape, small.key) == ("ruyi-caffe", "compact", (8, 4, 4), "conv1")
    assert is_caffe_dump_name("a_output0_caffe.linear.npz") and is_caffe_dump_name("a_output0_caffe.linear.float")
    assert not is_caffe_dump_name("a_output0_quant.linear.hex")
    assert parse_dump_name("conv1.npz").fmt == "npz"   # other archives stay the generic form


@pytest.mark.parametrize("damage", ["not a zip", "no member", "float64", "truncated"])
def test_a_damaged_compact_dump_is_named_not_a_traceback(tmp_path, damage):
    path = tmp_path / "conv1_output0_4_caffe.linear.npz"
    good = compact.to_bytes(np.arange(4, dtype=np.float32))
    if damage == "not a zip":
        path.write_bytes(b"1.0\n2.0\n")
    elif damage == "no member":
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("other.npy", b"")
    elif damage == "float64":
        np.savez(path, value=np.arange(4, dtype=np.float64))
    else:
        path.write_bytes(good[: len(good) // 2])
    (tensor,) = scan_dumps(tmp_path).tensors
    with pytest.raises(compact.CompactDumpError, match=path.name):
        tensor.load_raw()

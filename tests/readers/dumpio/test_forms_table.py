"""The dump forms table (``nnie_lsp/readers/dumpio/forms.py``): every form the name grammar answers
has one record, each record names a reader, a scan step and a writer that exist, the scan and the
loader take every written form through its record, and ``docs/formats.md`` lists every form."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nnie_lsp.readers.dumpio import forms, names, scan, tensor, writers
from nnie_lsp.readers.dumpio.forms import FORMS, LOOKS_IN, NUMBERS, form_of
from nnie_lsp.readers.prototxt.layers import MARK_SUFFIXES

ROOT = Path(__file__).resolve().parents[3]


def test_one_record_per_key_and_known_properties():
    keys = [form.key for form in FORMS]
    assert len(keys) == len(set(keys))
    assert names.FORMATS == tuple(keys)
    for form in FORMS:
        assert form.numbers in NUMBERS and form.looks_in in LOOKS_IN
        assert form.writer is None or callable(getattr(writers, form.writer))
    assert set(NUMBERS) == set(tensor._READERS)
    assert set(LOOKS_IN) == set(scan._LOOK_IN)


def test_parsed_names_have_a_form():
    """Every answer of the name grammar is a form, or one of its two non-form answers."""
    samples = ["conv1_output0_3_4_4_caffe.linear.float", "conv1_output0_3_4_4_caffe.linear.npz",
               "conv1_output0_3_4_4_quant.linear.hex", "conv1_input0_3_4_4_anti_quant.float",
               "seg0_layer3_output0_inst.linear.hex", "seg0_layer3_input(data)_inst.linear.hex",
               "fseg0(1,3)_conv1.txt", "a.npy", "b.npz", "c_2_3.bin", "d_4.txt", "e.hex",
               "conv1_input0_3_4_4_quant.nonlinear.hex", "conv1_weight.hex"]
    for name in samples:
        parsed = names.parse_dump_name(name)
        assert parsed is not None, name
        if parsed.fmt != forms.SKIP:
            assert form_of(parsed.fmt).key in names.FORMATS
    with pytest.raises(KeyError):
        form_of("skip")


def test_families_are_the_scan_kinds():
    assert {form.family for form in FORMS} == {"ruyi-caffe", "mapper_quant", "inst-sim", "generic"}


@pytest.mark.parametrize("write, args, fmt", [
    (writers.write_ruyi_caffe, ("conv1",), "ruyi-caffe"),
    (writers.write_mapper_quant, ("conv1",), "mapper-quant"),
    (writers.write_mapper_input, ("conv1",), "mapper-input"),
    (writers.write_npy, ("conv1",), "npy"),
    (writers.write_bin, ("conv1",), "bin"),
    (writers.write_text, ("conv1",), "text"),
])
def test_each_written_form_scans_to_its_record_and_loads(tmp_path, write, args, fmt):
    a = np.arange(24, dtype=np.float64).reshape(2, 3, 4) / 8
    write(str(tmp_path), *args, a)
    found = scan.scan_dumps(tmp_path)
    (t,) = found.tensors
    assert t.fmt == fmt and found.kind == form_of(fmt).family
    np.testing.assert_allclose(t.load_raw(), a.reshape(-1), atol=1e-6)


def test_inst_form_by_its_record(tmp_path):
    a = np.arange(12, dtype=np.float64) / 16
    writers.write_inst(str(tmp_path), 0, 7, a)
    (t,) = scan.scan_dumps(tmp_path).tensors
    assert form_of(t.fmt).node_numbers and t.node == 7
    np.testing.assert_array_equal(t.load_raw(), a)


def test_unknown_format_is_a_value_error(tmp_path):
    path = tmp_path / "x.txt"
    path.write_text("1\n")
    with pytest.raises(ValueError, match="unknown dump format"):
        tensor.DumpTensor(key="x", raw_name="x", path=str(path), fmt="nope").load_raw()


def test_name_marks_are_the_prototxt_suffixes():
    """The name key strips the suffixes the prototxt reader knows; the dump names keep their own copy
    (no reader imports another)."""
    assert set(names.NAME_MARKS) == set(MARK_SUFFIXES)


_NUMBERS = {"text": "decimal text", "hex": "`%08x` words (int32 / 4096)", "npy": "a numpy array",
            "npz": "numpy arrays", "bin": "raw values"}


def forms_table() -> str:
    """The table of ``docs/formats.md``, made from the records."""
    rows = ["| form (`fmt`) | file names | numbers | the name's dims | folder kind | written by | what it is |",
            "|---|---|---|---|---|---|---|"]
    rows += [f"| `{f.key}` | `{f.pattern}` | {_NUMBERS[f.numbers]} | {f.layout} | `{f.family}` | `{f.writer}` | "
             f"{f.what} |" for f in FORMS]
    return "\n".join(rows) + "\n"


def test_docs_table_is_made_from_the_records():
    """``docs/formats.md`` holds the table as :func:`forms_table` makes it (regenerate it from there)."""
    text = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
    assert forms_table() in text

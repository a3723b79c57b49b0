"""Key table tests: coverage of the key table in docs/field-facts.md §3.1 (the vendor table as the project
retells it; nnie_lsp/readers/cfg/keys.py holds the same facts as data), table consistency, check_value boundaries."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nnie_lsp.readers.cfg.keys import ATC_KEYS, KEYS, PER_INPUT_KEYS, lookup, suggest
from nnie_lsp.readers.cfg.values import check_value
from nnie_lsp.readers.cfg.keys import FLT_MAX, all_specs, is_known_any, is_null_path

REFERENCE = Path(__file__).resolve().parents[3] / "nnie_lsp" / "docs" / "field-facts.md"
_CJK = re.compile(r"[\u4e00-\u9fff]")


def _reference_rows() -> list[tuple[list[str], list[str]]]:
    """(key names in the first cell, all cells) for each row of the §3.1 table."""
    text = REFERENCE.read_text(encoding="utf-8")
    section = text.split("### 3.1", 1)[1].split("### 3.2", 1)[0]
    rows = []
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows.append((re.findall(r"`([A-Za-z_]+)`", cells[0]), cells))
    assert len(rows) >= 20, "could not find the §3.1 table"
    return rows


def test_every_reference_key_is_in_the_table():
    names = [n for ns, _ in _reference_rows() for n in ns]
    assert "instructions_name" in names and "instruction_name" in names
    missing = [n for n in names if n not in KEYS]
    assert missing == []
    for n in names:
        assert KEYS[n].status in ("vendor", "spelling-variant"), n


def test_look_alikes_of_section_3_4():
    section = REFERENCE.read_text(encoding="utf-8").split("### 3.4", 1)[1].split("## 4.", 1)[0]
    for name in ("gfpq_param_file", "align_bytes", "marked_prototxt", "output_wk_name"):
        assert f"`{name}`" in section
    assert KEYS["gfpq_param_file"].status == "ruyistudio"
    for name in ("align_bytes", "marked_prototxt", "output_wk_name"):
        assert KEYS[name].status == "unverified"


def _int_list(cell: str) -> list[str] | None:
    if re.fullmatch(r"\d+(, \d+)+", cell):
        return cell.split(", ")
    return None


def test_choices_ranges_and_defaults_match_reference():
    checked = 0
    for names, cells in _reference_rows():
        values, default = cells[1], cells[2]
        for name in names:
            spec = KEYS[name]
            listed = _int_list(values)
            m = re.fullmatch(r"(\d+) ?[–…] ?(\d+)", values)  # "0–5" or "0 … 5"
            if listed:
                assert list(spec.choices) == listed, name
                checked += 1
            elif m:
                lo, hi = int(m.group(1)), int(m.group(2))
                if spec.kind == "enum":
                    assert list(spec.choices) == [str(i) for i in range(lo, hi + 1)], name
                else:
                    assert (spec.minimum, spec.maximum) == (lo, hi), name
                    assert spec.min_inclusive and spec.max_inclusive
                checked += 1
            elif values == "path":
                assert spec.kind == "path", name
                checked += 1
            d = re.match(r"`?([\w.]+)`?", default)
            if default in ("–", "none listed"):
                assert spec.default is None, name
            elif d:
                assert spec.default is not None, name
                assert check_value(spec, spec.default).parsed == check_value(spec, d.group(1)).parsed
    assert checked >= 18


def test_data_scale_and_rgb_order_rows():
    ds = KEYS["data_scale"]
    assert ds.minimum == 1 / 4096 and not ds.min_inclusive
    assert ds.maximum == FLT_MAX and not ds.max_inclusive
    assert ds.default == "0.00390625"
    assert KEYS["RGB_order"].choices == ("RGB", "BGR") and KEYS["RGB_order"].default == "BGR"
    assert KEYS["instruction_name"].max_length == 119
    assert KEYS["instructions_name"].alias_of == "instruction_name"


def test_structural_flags():
    assert set(PER_INPUT_KEYS) == {"image_list", "image_type", "norm_type", "mean_file",
                                   "RGB_order", "data_scale"}
    assert [s.name for s in all_specs() if s.per_roi_layer] == ["roi_coordinate_file"]
    assert {s.name for s in all_specs() if s.required} == {
        "prototxt_file", "caffemodel_file", "image_list", "image_type", "norm_type", "mean_file"}
    assert [s.name for s in all_specs() if s.allows_null] == ["mean_file"]
    for s in all_specs():
        assert s.repeatable == (s.per_input or s.per_roi_layer), s.name


@pytest.mark.parametrize("spec", all_specs(), ids=lambda s: s.name)
def test_every_spec_is_documented(spec):
    assert spec.doc_en and spec.source
    assert _CJK.search(spec.doc_zh), "doc_zh must be Chinese"
    assert spec.snippet.startswith(f"[{spec.preferred}] ")
    if spec.kind == "enum" or spec.value_docs:
        assert set(spec.value_docs) == set(spec.choices)
        for en, zh in spec.value_docs.values():
            assert en and _CJK.search(zh)
    if spec.default is not None:
        assert check_value(spec, spec.default).ok
    if spec.choices and spec.snippet:
        assert spec.snippet.endswith("${1|" + ",".join(spec.choices) + "|}")
    assert spec.default is not None or spec.default_note or spec.status != "vendor" \
        or spec.kind == "path"


def test_norm_type_snippet():
    assert KEYS["norm_type"].snippet == "[norm_type] ${1|0,1,2,3,4,5|}"


def test_atc_keys_are_separate():
    assert {"insert_op_conf", "input_shape", "out_nodes", "input_type", "output_type"} <= set(ATC_KEYS)
    assert not set(ATC_KEYS) & set(KEYS)
    for fk in ATC_KEYS.values():
        assert "nnie_mapper" in fk.doc_en and _CJK.search(fk.doc_zh)
    assert lookup("insert_op_conf") is None
    assert is_known_any("insert_op_conf") and is_known_any("RGB_ORDER")
    assert not is_known_any("metadata")


def test_lookup_is_case_sensitive():
    assert lookup("RGB_order") is KEYS["RGB_order"]
    assert lookup("rgb_order") is None


@pytest.mark.parametrize("key, expected", [
    ("rgb_order", "RGB_order"),
    ("RGB_ORDER", "RGB_order"),
    ("compile_mod", "compile_mode"),
    ("Compile_Mode", "compile_mode"),
    ("instructions_name", "instruction_name"),
    ("instrution_name", "instruction_name"),
    ("image_lists", "image_list"),
    ("norm_typ", "norm_type"),
    ("meanfile", "mean_file"),
    ("is_simulate", "is_simulation"),
    ("norm_type", None),
    ("insert_op_conf", None),
    ("metadata", None),
    ("xyz", None),
])
def test_suggest(key, expected):
    assert suggest(key) == expected


@pytest.mark.parametrize("key, text, ok, parsed", [
    ("data_scale", "0.000244140625", False, None),  # exactly 1/4096: exclusive
    ("data_scale", "0.00024414063", True, 0.00024414063),
    ("data_scale", "0.0039062", True, 0.0039062),
    ("data_scale", "1", True, 1.0),
    ("data_scale", "1e-3", True, 0.001),
    ("data_scale", "3.4028234663852886e38", False, None),  # FLT_MAX: exclusive
    ("data_scale", "3.4e38", True, 3.4e38),
    ("data_scale", "1e39", False, None),
    ("data_scale", "-1", False, None),
    ("data_scale", "nan", False, None),
    ("data_scale", "inf", False, None),
    ("data_scale", "1_000", False, None),
    ("batch_num", "0", True, 0),
    ("batch_num", "256", True, 256),
    ("batch_num", "257", False, None),
    ("batch_num", "-1", False, None),
    ("batch_num", "1.0", False, None),
    ("sparse_rate", "0", True, 0.0),
    ("sparse_rate", "1", True, 1.0),
    ("sparse_rate", "0.5", True, 0.5),
    ("sparse_rate", "1.0001", False, None),
    ("sparse_rate", "-0.1", False, None),
    ("max_roi_frame_cnt", "1", True, 1),
    ("max_roi_frame_cnt", "0", False, None),
    ("max_roi_frame_cnt", "5000", True, 5000),
    ("max_roi_frame_cnt", "5001", False, None),
    ("recurrent_tmax", "1024", True, 1024),
    ("recurrent_tmax", "1025", False, None),
    ("internal_stride", "16", True, 16),
    ("internal_stride", "32", True, 32),
    ("internal_stride", "24", False, None),
    ("image_type", "0", True, 0),
    ("image_type", "2", False, None),
    ("image_type", "5", True, 5),
    ("image_type", "6", False, None),
    ("norm_type", "5", True, 5),
    ("norm_type", "6", False, None),
    ("norm_type", "x", False, None),
    ("net_type", "2", True, 2),
    ("net_type", "3", False, None),
    ("compile_mode", "2", True, 2),
    ("compress_mode", "2", False, None),
    ("log_level", "3", True, 3),
    ("log_level", "4", False, None),
    ("is_simulation", "1", True, 1),
    ("is_check_prototxt", "1", True, 1),
    ("RGB_order", "RGB", True, "RGB"),
    ("RGB_order", "bgr", False, None),
    ("RGB_order", "RBG", False, None),
    ("instruction_name", "a" * 119, True, "a" * 119),
    ("instruction_name", "a" * 120, False, None),
    ("mean_file", "null", True, "null"),
    ("mean_file", "", False, None),
    ("prototxt_file", "C:\\My Models\\a b.prototxt", True, "C:\\My Models\\a b.prototxt"),
    ("gfpq_param_file", "", True, ""),
])
def test_check_value_boundaries(key, text, ok, parsed):
    chk = check_value(KEYS[key], text)
    assert chk.ok is ok, chk
    assert chk.parsed == parsed
    if ok:
        assert chk.message == "" and chk.message_zh == ""
    else:
        assert key in chk.message
        shown = f"{len(text)} characters" if KEYS[key].kind == "string" else text
        assert (f"got {shown}" in chk.message) if text else ("has no value" in chk.message)
        assert chk.message_en == chk.message
        assert _CJK.search(chk.message_zh) and key in chk.message_zh


def test_exact_messages():
    chk = check_value(KEYS["data_scale"], "0")
    assert chk.message == "data_scale must be a float > 1/4096 (0.000244140625); got 0"
    assert chk.message_zh == "data_scale 必须是大于 1/4096 (0.000244140625) 的浮点数；当前值为 0"
    assert check_value(KEYS["data_scale"], "1e39").message.startswith(
        "data_scale must be a float < FLT_MAX")
    assert check_value(KEYS["batch_num"], "257").message == \
        "batch_num must be an integer from 0 to 256; got 257"
    assert check_value(KEYS["norm_type"], "6").message == \
        "norm_type must be one of 0, 1, 2, 3, 4, 5; got 6"
    assert check_value(KEYS["internal_stride"], "24").message == \
        "internal_stride must be 16 or 32; got 24"
    assert check_value(KEYS["internal_stride"], "24").message_zh == \
        "internal_stride 的取值必须是 16 或 32；当前值为 24"
    assert check_value(KEYS["norm_type"], "6").message_zh == \
        "norm_type 的取值必须是 0、1、2、3、4、5 之一；当前值为 6"
    assert check_value(KEYS["RGB_order"], "bgr").message == \
        "RGB_order must be RGB or BGR (upper case); got bgr"
    assert check_value(KEYS["norm_type"], "").message == "norm_type has no value"
    assert check_value(KEYS["instruction_name"], "a" * 130).message == \
        "instruction_name must be shorter than 120 characters; got 130 characters"


def test_suggestions_for_quick_fixes():
    assert check_value(KEYS["RGB_order"], "bgr").suggestion == "BGR"
    assert check_value(KEYS["data_scale"], "1/256").suggestion == "0.00390625"
    assert check_value(KEYS["batch_num"], "1.0").suggestion == "1"
    assert check_value(KEYS["norm_type"], "3.0").suggestion == "3"
    assert check_value(KEYS["norm_type"], "7.0").suggestion is None
    assert check_value(KEYS["data_scale"], "1/0").suggestion is None


def test_default_values_parse():
    assert KEYS["data_scale"].default_value() == 0.00390625
    assert KEYS["batch_num"].default_value() == 256
    assert KEYS["RGB_order"].default_value() == "BGR"
    assert KEYS["net_type"].default_value() is None


def test_null_paths():
    assert is_null_path("null") and is_null_path(" NULL ") and is_null_path("ignore")
    assert not is_null_path("./mean.txt")

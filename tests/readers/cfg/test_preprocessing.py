"""The one preprocessing reading (nnie_lsp/readers/cfg/preprocessing.py): the norm_type table, defaults,
"no mean file" placeholders, per-input values, and lint and triage reading the SAME values and
files for every real cfg and for multi-input cfgs."""
from __future__ import annotations

import os
from pathlib import Path
from types import MappingProxyType

import numpy as np
import pytest

from nnie_lsp.testing.shared_files import shared_dir
from nnie_lsp.lint.driver import lint_files
from nnie_lsp.readers.cfg import preprocessing as cfg_preprocessing
from nnie_lsp.readers.cfg.keys import KEYS, NULL_PATH_VALUES, is_null_path
from nnie_lsp.readers.cfg.paths import cfg_bases, resolve_written
from nnie_lsp.readers.cfg.preprocessing import (
    CHANNEL_MEAN,
    DEFAULT_DATA_SCALE,
    DEFAULT_DATA_SCALE_TEXT,
    IMAGE_TYPES,
    MEAN_IMAGE,
    NO_MEAN,
    NORM_TYPES,
    NormType,
    mean_file_kind,
    norm_type_for,
    parse_channel_means,
)
from nnie_lsp.project.project import load_project
from nnie_lsp.reference.preprocess import (
    PreprocessError,
    Preprocessing,
    preprocessing_from_cfg,
    read_mean_file,
)
from nnie_lsp.project.settings import settings_from_mapping
from nnie_lsp.triage.report.bundle import cfg_files
from nnie_lsp.triage.diagnose.preprocess_fit import _cfg_side, fit_preprocessing

SHARED = shared_dir()
REAL_CFGS = sorted((SHARED / "corpus" / "real").glob("*.cfg"))


# ------------------------------------------------------------------ the tables


def test_norm_type_table_is_the_vendor_table():
    # docs/field-facts.md §3.3: mean first, then scale
    expected = {0: (NO_MEAN, False), 1: (MEAN_IMAGE, False), 2: (CHANNEL_MEAN, False),
                3: (NO_MEAN, True), 4: (MEAN_IMAGE, True), 5: (CHANNEL_MEAN, True)}
    assert {n: (row.mean_kind, row.scales) for n, row in NORM_TYPES.items()} == expected
    assert tuple(str(n) for n in NORM_TYPES) == KEYS["norm_type"].choices
    for row in NORM_TYPES.values():
        assert norm_type_for(row.mean_kind, row.scales) == row.value


def test_key_docs_describe_the_table():
    """The hover docs of norm_type values (key table) say what the table says."""
    docs = KEYS["norm_type"].value_docs
    for n, row in NORM_TYPES.items():
        en = docs[str(n)][0]
        assert ("binaryproto" in en or "mean image" in en) == (row.mean_kind == MEAN_IMAGE), en
        assert ("channel" in en) == (row.mean_kind == CHANNEL_MEAN), en
        assert ("data_scale" in en) == row.scales, en


def test_image_types_match_the_key_table():
    assert tuple(str(t) for t in IMAGE_TYPES) == KEYS["image_type"].choices
    assert not IMAGE_TYPES[0].is_image and IMAGE_TYPES[0].norm_types == (0,)
    assert all(IMAGE_TYPES[t].is_image and len(IMAGE_TYPES[t].norm_types) == 6 for t in (1, 3, 5))


def test_defaults_come_from_the_key_table():
    assert DEFAULT_DATA_SCALE == KEYS["data_scale"].default_value() == 1 / 256
    assert DEFAULT_DATA_SCALE_TEXT == KEYS["data_scale"].default
    assert Preprocessing().data_scale == DEFAULT_DATA_SCALE
    assert Preprocessing().rgb_order == KEYS["RGB_order"].default == "BGR"


@pytest.mark.parametrize("value", ["null", "NULL", " none ", "ignore", "nil", ""])
def test_one_set_of_no_mean_placeholders(value):
    assert value.strip().lower() in NULL_PATH_VALUES and is_null_path(value)
    assert mean_file_kind(value) == NO_MEAN
    assert resolve_written(value, ["/nonexistent"], os.path.exists).is_null


def test_mean_file_kind_by_form():
    assert mean_file_kind("./mean.binaryproto") == MEAN_IMAGE
    assert mean_file_kind('"./Mean.BinaryProto"') == MEAN_IMAGE
    assert mean_file_kind("./mean.txt") == CHANNEL_MEAN


def test_channel_mean_text_errors_have_a_line():
    assert parse_channel_means("104\n\n117, 123\n").values == (104.0, 117.0, 123.0)
    bad = parse_channel_means("104\nabc\n")
    assert bad.values is None and bad.error_line == 1 and "line 2" in bad.error


# ------------------------------------------------------------------ the table drives every consumer


def _lint(cfg: Path, code: str) -> list[str]:
    res = lint_files([str(cfg)], settings=settings_from_mapping({"select": [code]}))
    return [d.code for d in res.diagnostics]


def test_the_table_drives_rules_reference_and_fit(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mean.txt").write_text("1\n2\n3\n")
    (tmp_path / "list.txt").write_text("")
    cfg = tmp_path / "net.cfg"
    cfg.write_text("[image_list] ./list.txt\n[image_type] 1\n[norm_type] 3\n[mean_file] ./mean.txt\n")
    # as the vendor says: norm_type 3 ignores the mean file
    assert _lint(cfg, "NN102") == ["NN102"]
    assert not Preprocessing(norm_type=3).uses_mean
    assert preprocessing_from_cfg(cfg).mean is None
    # a table where 3 subtracts channel means: every consumer follows it
    patched = dict(NORM_TYPES)
    patched[3] = NormType(3, CHANNEL_MEAN, scales=True)
    monkeypatch.setattr(cfg_preprocessing, "NORM_TYPES", MappingProxyType(patched))
    assert _lint(cfg, "NN102") == [] and _lint(cfg, "NN103") == []
    assert Preprocessing(norm_type=3).uses_mean and Preprocessing(norm_type=3).uses_scale
    assert list(preprocessing_from_cfg(cfg).mean) == [1.0, 2.0, 3.0]
    assert load_project(cfg_path=str(cfg)).preprocessing[0].uses_mean
    assert norm_type_for(CHANNEL_MEAN, True) == 3  # the fit's suggestions come from it too


# ------------------------------------------------------------------ lint and triage agree


def _triage_views(cfg: Path, k: int):
    """What each triage/reference entry point reads for input k."""
    side, _ = _cfg_side(cfg, k)
    try:
        numeric = preprocessing_from_cfg(cfg, k)
    except PreprocessError as exc:
        numeric = exc
    return side.input, numeric


def _assert_same(cfg: Path):
    lint = load_project(cfg_path=str(cfg))  # the lint's project (prototxt included)
    assert lint.cfg is not None
    for prep in lint.preprocessing:
        seen, numeric = _triage_views(cfg, prep.index)
        assert seen == prep  # the same object: values, entries, resolved files
        if isinstance(numeric, PreprocessError):
            assert str(cfg) in str(numeric) or cfg.name in str(numeric)  # a position, not a traceback
            continue
        assert numeric.norm_type == prep.norm_type
        if prep.data_scale is not None:
            assert numeric.data_scale == prep.data_scale
        if prep.rgb_order is not None:
            assert numeric.rgb_order == prep.rgb_order
        if prep.uses_mean:
            assert numeric.mean_file == prep.mean_file.resolved
            facts = lint.mean_for(prep.entry("mean_file"))
            if facts is not None and facts.values is not None:
                assert tuple(float(v) for v in numeric.mean) == facts.values
        else:
            assert numeric.mean is None
        assert numeric.images == lint.calibration_images(prep)
    return lint


@pytest.mark.skipif(not REAL_CFGS, reason="shared corpus not available")
@pytest.mark.parametrize("cfg", REAL_CFGS, ids=lambda p: p.name)
def test_lint_and_triage_read_the_same_preprocessing_of_real_cfgs(cfg, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    lint = _assert_same(cfg)
    files = cfg_files(str(cfg), [])
    images, mean = files.images, files.mean_file
    first = lint.input_preprocessing(0)
    if first is not None:
        assert images == lint.calibration_images(first)
        assert mean == (first.mean_file.resolved if first.uses_mean and first.mean_file else None)


def test_real_cfg_with_its_mean_file_is_read_alike(tmp_path, monkeypatch):
    """ENet's real cfg with its real channel-mean file and prototxt laid out as the cfg names
    them (the corpus stores them under flattened names)."""
    real = SHARED / "corpus" / "real"
    cfg_src = real / "Strand2013__NNIE-lite__Converter-ENet-model_inst.cfg"
    if not cfg_src.is_file():
        pytest.skip("shared corpus not available")
    proj = tmp_path / "enet"
    (proj / "caffe_model").mkdir(parents=True)
    cfg = proj / "model_inst.cfg"
    cfg.write_bytes(cfg_src.read_bytes())
    (proj / "mean.txt").write_bytes((real / "Strand2013__NNIE-lite__Converter-ENet-mean.txt").read_bytes())
    (proj / "caffe_model" / "bn_conv_merged_model.prototxt").write_bytes(
        (real / "Strand2013__NNIE-lite__Converter-ENet-caffe_model-bn_conv_merged_model.prototxt").read_bytes())
    monkeypatch.chdir(tmp_path)
    lint = _assert_same(cfg)
    (prep,) = lint.preprocessing
    assert prep.norm_type == 5 and prep.data_scale == 1.0 and prep.mean_file.resolved == str(proj / "mean.txt")
    assert list(preprocessing_from_cfg(cfg).mean) == [0.0, 0.0, 0.0]


MULTI = """\
[prototxt_file] ./net.prototxt
[RGB_order] RGB
[data_scale] 0.0078125
[image_list] ./a.txt
[image_type] 1
[norm_type] 5
[mean_file] ./mean_a.txt
[image_list] ./b.txt
[image_type] 1
[norm_type] 1
[mean_file] ./mean_b.binaryproto
[image_list] ./c.txt
[image_type] 0
[mean_file] null
"""


def _multi(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "mean_a.txt").write_text("10\n20\n30\n")
    for name in ("a.txt", "b.txt", "c.txt"):
        (proj / name).write_text("")
    cfg = proj / "multi.cfg"
    cfg.write_text(MULTI)
    return cfg


def test_multi_input_cfg_per_input_values(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cfg = _multi(tmp_path)
    inputs = load_project(cfg_path=str(cfg)).preprocessing
    assert [p.norm_type for p in inputs] == [5, 1, None]  # the third has none: not the last value
    assert inputs[2].semantics is None and not inputs[2].uses_mean
    assert [p.rgb_order for p in inputs] == ["RGB"] * 3  # written once: every input
    assert not any(p.rgb_order_defaulted for p in inputs)
    assert [p.data_scale for p in inputs] == [0.0078125] * 3 and not any(p.data_scale_defaulted for p in inputs)
    assert [p.image_type for p in inputs] == [1, 1, 0] and inputs[2].is_feature_map
    assert [p.mean_file_kind for p in inputs] == [CHANNEL_MEAN, MEAN_IMAGE, NO_MEAN]
    assert inputs[0].mean_file.resolved == str(cfg.parent / "mean_a.txt")
    assert inputs[1].mean_file.resolved is None  # the .binaryproto does not exist
    assert [p.entry("norm_type").line if p.entry("norm_type") else None for p in inputs] == [5, 9, None]
    _assert_same(cfg)


def test_multi_input_missing_key_is_an_error_with_a_position_in_triage(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cfg = _multi(tmp_path)
    with pytest.raises(PreprocessError, match=r"multi\.cfg: input 2 has no \[norm_type\]"):
        preprocessing_from_cfg(cfg, 2)
    with pytest.raises(PreprocessError, match=r"multi\.cfg:11: \[mean_file\] \./mean_b\.binaryproto not found"):
        preprocessing_from_cfg(cfg, 1)
    with pytest.raises(PreprocessError, match="3 input"):
        preprocessing_from_cfg(cfg, 3)
    prep = preprocessing_from_cfg(cfg, 0)
    assert prep.norm_type == 5 and prep.data_scale == 0.0078125 and prep.rgb_order == "RGB"
    assert list(prep.mean) == [10.0, 20.0, 30.0]


def test_fit_edits_name_the_fitted_inputs_own_line(tmp_path, monkeypatch):
    """The mean is not subtracted on the simulator side: the norm_type edit of input 2 adds a
    line (input 2 has no [norm_type]); it must not rewrite input 1's line."""
    monkeypatch.chdir(tmp_path)
    cfg = _multi(tmp_path)
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, size=(3, 8, 8)).astype(np.float64)
    ref, sim = x - 100.0, x
    fit2 = fit_preprocessing(ref, sim, cfg_path=cfg, input_index=2)
    edits2 = {e.key: e for e in fit2.edits}
    assert "norm_type" in edits2 and edits2["norm_type"].line is None and edits2["norm_type"].old_value is None
    assert edits2["mean_file"].line == 13  # input 2's own `[mean_file] null`
    fit1 = fit_preprocessing(ref, sim, cfg_path=cfg, input_index=0)
    assert all(e.line != 9 for e in fit1.edits)  # never input 1's norm_type line


# ------------------------------------------------------------------ one path resolution order


def _two_means(tmp_path: Path) -> tuple[Path, Path]:
    work, proj = tmp_path / "work", tmp_path / "proj"
    work.mkdir()
    proj.mkdir()
    (work / "mean.txt").write_text("1\n2\n3\n")   # in the working directory
    (proj / "mean.txt").write_text("4\n5\n6\n")   # beside the cfg
    (proj / "list.txt").write_text("")
    cfg = proj / "net.cfg"
    cfg.write_text("[image_list] ./list.txt\n[image_type] 1\n[norm_type] 5\n[mean_file] ./mean.txt\n")
    return work, cfg


def test_relative_mean_file_resolves_beside_the_cfg_first_in_lint_and_triage(tmp_path, monkeypatch):
    work, cfg = _two_means(tmp_path)
    monkeypatch.chdir(work)
    beside = str(cfg.parent / "mean.txt")
    lint = load_project(cfg_path=str(cfg))
    prep = lint.preprocessing[0]
    assert prep.mean_file.resolved == beside
    assert prep.mean_file.candidates[:2] == (beside, str(work / "mean.txt"))  # documented order
    assert lint.mean_for(prep.entry("mean_file")).values == (4.0, 5.0, 6.0)
    numeric = preprocessing_from_cfg(cfg)
    assert numeric.mean_file == beside and list(numeric.mean) == [4.0, 5.0, 6.0]
    side, fit_prep = _cfg_side(cfg, 0)
    assert side.input.mean_file.resolved == beside and list(fit_prep.mean) == [4.0, 5.0, 6.0]
    assert cfg_files(str(cfg), []).mean_file == beside
    # lint on the cfg: no finding about a missing or ignored mean file
    assert _lint(cfg, "NN101") == [] and _lint(cfg, "NN103") == []


def test_then_the_working_directory_then_folders_above(tmp_path, monkeypatch):
    work, cfg = _two_means(tmp_path)
    monkeypatch.chdir(work)
    (cfg.parent / "mean.txt").unlink()
    assert load_project(cfg_path=str(cfg)).preprocessing[0].mean_file.resolved == str(work / "mean.txt")
    assert preprocessing_from_cfg(cfg).mean_file == str(work / "mean.txt")
    (work / "mean.txt").unlink()
    (tmp_path / "mean.txt").write_text("7\n8\n9\n")  # the folder above the cfg's
    assert load_project(cfg_path=str(cfg)).preprocessing[0].mean_file.resolved == str(tmp_path / "mean.txt")
    assert list(preprocessing_from_cfg(cfg).mean) == [7.0, 8.0, 9.0]
    assert cfg_bases(str(cfg), str(work))[:3] == [str(cfg.parent), str(work), str(tmp_path)]


def test_missing_mean_file_is_a_clear_error(tmp_path, monkeypatch):
    work, cfg = _two_means(tmp_path)
    monkeypatch.chdir(work)
    (cfg.parent / "mean.txt").unlink()
    (work / "mean.txt").unlink()
    with pytest.raises(PreprocessError, match=r"net\.cfg:4: \[mean_file\] \./mean\.txt not found \(looked in"):
        preprocessing_from_cfg(cfg)
    cfg.write_text(cfg.read_text().replace("./mean.txt", "nil"))
    with pytest.raises(PreprocessError, match="norm_type 5 subtracts a mean but input 0 has \\[mean_file\\] `nil`"):
        preprocessing_from_cfg(cfg)
    assert _lint(cfg, "NN101") == ["NN101"]


def test_bad_values_are_errors_with_positions(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "list.txt").write_text("")
    cfg = tmp_path / "bad.cfg"
    cfg.write_text("[image_list] ./list.txt\n[image_type] 1\n[norm_type] 3\n[mean_file] null\n[data_scale] 1/255\n")
    with pytest.raises(PreprocessError, match=r"bad\.cfg:5: \[data_scale\] 1/255 is not a valid scale"):
        preprocessing_from_cfg(cfg)
    cfg.write_text("[image_list] ./list.txt\n[image_type] 1\n[norm_type] 7\n[mean_file] null\n")
    with pytest.raises(PreprocessError, match=r"bad\.cfg:3: \[norm_type\] 7 is not one of 0-5"):
        preprocessing_from_cfg(cfg)
    cfg.write_text("[image_list] ./list.txt\n[image_type] 1\n[norm_type] 0\n[mean_file] null\n[RGB_order] rgb\n")
    with pytest.raises(PreprocessError, match=r"bad\.cfg:5: \[RGB_order\] rgb is not RGB or BGR"):
        preprocessing_from_cfg(cfg)
    with pytest.raises(PreprocessError, match="does not exist"):
        preprocessing_from_cfg(tmp_path / "nope.cfg")


def test_defaulted_data_scale_is_flagged(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "list.txt").write_text("")
    cfg = tmp_path / "d.cfg"
    cfg.write_text("[image_list] ./list.txt\n[image_type] 1\n[norm_type] 3\n[mean_file] null\n")
    prep = load_project(cfg_path=str(cfg)).preprocessing[0]
    assert prep.data_scale == DEFAULT_DATA_SCALE and prep.data_scale_defaulted
    assert prep.rgb_order == "BGR" and prep.rgb_order_defaulted
    numeric = preprocessing_from_cfg(cfg)
    assert numeric.data_scale == DEFAULT_DATA_SCALE and any("default" in n for n in numeric.notes)


def test_read_mean_file_follows_the_table(tmp_path):
    (tmp_path / "m.txt").write_text("1\nx\n")
    with pytest.raises(PreprocessError, match="line 2 is not a number"):
        read_mean_file(tmp_path / "m.txt", 5)
    with pytest.raises(PreprocessError, match="not a BlobProto|cannot read"):
        read_mean_file(tmp_path / "m.txt", 4)  # norm_type 4 wants a mean image

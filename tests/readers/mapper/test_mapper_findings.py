"""The mapper's own output as lint findings: NN401/NN402 from logs (what the messages say, where
the logs come from), NN304 from cnn_net_tree.dot, the hover's mapper view and the CLI options.

Logs and dot files are in the real shapes of docs/field-facts.md §16.2-§16.3 (the reader's test
data in tests/data/mapper is reused where it fits)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from nnie_lsp.lint.driver import discover_inputs, lint_files
from nnie_lsp.cli.lint import main as lint_main
from nnie_lsp.editor.hover import mapper_view_markdown, prototxt_hover
from nnie_lsp.lint import lint_project, project_for_file
from nnie_lsp.readers.mapper import output_files as discovery
from nnie_lsp.project.project import DiskProvider, load_project
from nnie_lsp.project.settings import settings_from_mapping
from nnie_lsp.core.text import Position

DATA = Path(__file__).resolve().parents[2] / "data" / "mapper"

CFG = """[prototxt_file] ./net.prototxt
[caffemodel_file] ./net.caffemodel
[image_list] ./images.txt
[image_type] 1
[norm_type] 0
[batch_num] 64
"""
PROTOTXT = """name: "mobilenet"
input: "data"
input_shape { dim: 1 dim: 3 dim: 32 dim: 32 }
layer { name: "DummyData1" type: "Convolution" bottom: "data" top: "d1" convolution_param { num_output: 4 kernel_size: 1 } }
layer { name: "crop1" type: "Crop" bottom: "d1" bottom: "data" top: "crop1" }
layer { name: "crop2" type: "Crop" bottom: "crop1" bottom: "data" top: "crop2" }
layer { name: "mobilenet0_conv5_group_15" type: "Convolution" bottom: "crop2" top: "c5" convolution_param { num_output: 4 kernel_size: 1 } }
"""
VERSION_LINE = "Mapper Version 1.1.2.0_B050 (NNIE_1.1) 1812171743151709\n"


def _settings(*codes: str):
    return settings_from_mapping({"select": list(codes) or ["NN4"]})


def _project_dir(tmp_path: Path, log_name: str | None = "mapper_error.log", log_text: str | None = None) -> Path:
    (tmp_path / "net.cfg").write_text(CFG, encoding="utf-8")
    (tmp_path / "net.prototxt").write_text(PROTOTXT, encoding="utf-8")
    if log_name:
        text = log_text if log_text is not None else (DATA / "mapper_error.log").read_text(encoding="utf-8")
        (tmp_path / log_name).write_text(text, encoding="utf-8")
    return tmp_path


def _lint(tmp_path: Path, *codes: str, lang: str = "en", mapper_logs=()):
    files = [str(tmp_path / "net.cfg"), str(tmp_path / "net.prototxt")]
    return lint_files(files, settings=_settings(*codes), lang=lang, mapper_logs=mapper_logs).diagnostics


def _last_run(diags):
    """The findings of the logs' last runs (an older run's cause is an info finding of its own)."""
    return [d for d in diags if not (d.code == "NN401" and d.severity.label == "info")]


def _line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").split("\n")) if needle in line)


# ---------------------------------------------------------------- NN401 / NN402 messages

def test_error_log_last_run_on_layer_type_and_layer(tmp_path):
    """The accumulated error log of §16.3: the last run (a Crop error and a warning) is placed;
    the Crop error is one finding on the first Crop layer with the second as related.  The first
    run's cause is one info finding on the log, said to be from an older run."""
    _project_dir(tmp_path)
    diags = _lint(tmp_path)
    assert sorted((d.code, d.severity.label) for d in diags) == [
        ("NN401", "error"), ("NN401", "info"), ("NN402", "warning")]
    older = next(d for d in diags if d.code == "NN401" and d.severity.label == "info")
    assert os.path.basename(older.path) == "mapper_error.log" and older.range.start.line == 4
    assert "older run (run 1 of 2 in this log)" in older.message and "DummyData1" in older.message
    assert "the last run failed" in older.message
    error = next(d for d in diags if d.code == "NN401" and d.severity.label == "error")
    assert os.path.basename(error.path) == "net.prototxt"
    assert error.range.start.line == _line_of(tmp_path / "net.prototxt", '"crop1"')
    assert "layer type Crop" in error.message and '"crop1", "crop2"' in error.message
    assert "layer type is not supported" in error.message
    assert "the run stopped here (RUN FAILURE, Return = -1)" in error.message
    assert "mapper_error.log:17, parseLayerType" in error.message
    assert "version not in the log" in error.message  # mapper_error.log holds no version line
    assert "DummyData1" not in error.message  # the first run's error is its own (info) finding
    related = [(os.path.basename(r.path), r.range.start.line) for r in error.related]
    assert related[0] == ("mapper_error.log", 16)  # the block in the log
    assert ("net.prototxt", _line_of(tmp_path / "net.prototxt", '"crop2"')) in related
    warning = next(d for d in diags if d.code == "NN402")
    assert warning.range.start.line == _line_of(tmp_path / "net.prototxt", "mobilenet0_conv5_group_15")
    assert "value[0.00000000000000004205] is too small" in warning.message
    assert dict(warning.data)["mapper_log"] == str(tmp_path / "mapper_error.log")


def test_version_in_message_and_chinese(tmp_path):
    log = VERSION_LINE + (DATA / "mapper_error.log").read_text(encoding="utf-8")
    _project_dir(tmp_path, log_text=log)
    diags = _lint(tmp_path, lang="zh")
    error = next(d for d in _last_run(diags) if d.code == "NN401")
    assert error.message.startswith("mapper 1.1.2.0_B050 (NNIE_1.1) 对层类型 Crop 报错误")
    assert "运行在此终止" in error.message


def test_layer_not_in_prototxt_stays_on_the_log_and_says_so(tmp_path):
    log = ("**********************************************************\n"
           "ERROR: file: Eltwise::checkShape  line: 120\n"
           "layer name: [plus0]. error: All inputs must have the same shape!\n")
    _project_dir(tmp_path, log_text=log)
    (error,) = _lint(tmp_path)
    assert os.path.basename(error.path) == "mapper_error.log" and error.range.start.line == 1
    assert error.message.endswith('layer "plus0" is not in net.prototxt')
    assert not error.related


def test_cfg_key_missing_and_path_missing_say_which_file(tmp_path):
    log = ("**********************************************************\n"
           "ERROR: file: fileCheck  line: 57\n"
           "../elsewhere/model.prototxt is not a file!\n")
    _project_dir(tmp_path, log_text=log)
    (error,) = _lint(tmp_path)
    assert os.path.basename(error.path) == "mapper_error.log"
    assert "no line of net.cfg names ../elsewhere/model.prototxt" in error.message


def test_every_message_form_of_the_reader_data_becomes_one_finding_per_block(tmp_path):
    """mapper_error_all_forms.log given as --mapper-log to a project without a prototxt: every
    block of its last run is one finding, never a traceback."""
    (tmp_path / "net.cfg").write_text(CFG, encoding="utf-8")
    log = DATA / "mapper_error_all_forms.log"
    diags = lint_files([str(tmp_path / "net.cfg")], settings=_settings(), mapper_logs=[str(log)]).diagnostics
    placed = _last_run(diags)
    assert [d.code for d in placed] == ["NN401"]
    assert 'layer "plus0" is not in the prototxt (none loaded)' in placed[0].message
    # every older run's cause once, on the log, as from an older run
    assert all("older run" in d.message and d.path == str(log) for d in diags if d not in placed)


def test_stale_log_says_it_is_older(tmp_path):
    _project_dir(tmp_path)
    old = (tmp_path / "net.prototxt").stat().st_mtime - 3600
    os.utime(tmp_path / "mapper_error.log", (old, old))
    diags = _lint(tmp_path)
    assert all("the log is older than net.cfg, net.prototxt" in d.message for d in diags), [d.message for d in diags]


def test_same_block_in_two_given_logs_is_reported_once(tmp_path):
    _project_dir(tmp_path, log_name=None)
    first = tmp_path / "a.log"
    second = tmp_path / "b.log"
    for path in (first, second):
        shutil.copy(DATA / "mapper_error.log", path)
    diags = _lint(tmp_path, mapper_logs=[str(first), str(second)])
    assert sorted((d.code, d.severity.label) for d in diags) == [("NN401", "error"), ("NN401", "info"),
                                                                  ("NN402", "warning")]
    assert all("a.log:" in d.message for d in diags)


# ---------------------------------------------------------------- where logs come from

def test_debug_log_is_preferred_to_the_error_log(tmp_path):
    _project_dir(tmp_path)  # mapper_error.log with a Crop error
    shutil.copy(DATA / "mapper_debug.log", tmp_path / "mapper_debug.log")  # a clean run, two warnings
    project = load_project(cfg_path=str(tmp_path / "net.cfg"))
    # the debug log's run completed: the error log's runs are all older ones (read, marked so)
    assert [(found.name, found.older_than) for found in project.mapper_logs] == [
        ("mapper_debug.log", ""), ("mapper_error.log", "mapper_debug.log")]
    diags = _lint(tmp_path)
    placed = _last_run(diags)
    assert [d.code for d in placed] == ["NN402"]  # the two identical warnings: one finding
    assert "mapper 1.1.2.2_B010_P002 (NNIE_1.1) warning: data containing only zeros" in placed[0].message
    older = [d for d in diags if d not in placed]  # the Crop and DummyData causes: info on the error log
    assert len(older) == 2 and all(os.path.basename(d.path) == "mapper_error.log" for d in older)
    assert all("mapper_debug.log beside it holds a later run, which completed" in d.message for d in older)
    # a debug log whose run failed holds the last run: the error log is left out
    failed = (tmp_path / "mapper_error.log").read_text(encoding="utf-8")
    (tmp_path / "mapper_debug.log").write_text(VERSION_LINE + failed, encoding="utf-8")
    out = discovery.mapper_output_beside(str(tmp_path / "net.cfg"), DiskProvider())
    assert out.skipped == ((str(tmp_path / "mapper_error.log"), "mapper_debug.log holds the last run"),)


def test_given_logs_replace_the_ones_beside_the_cfg(tmp_path):
    _project_dir(tmp_path)
    console = tmp_path / "saved_console.txt"
    shutil.copy(DATA / "ruyi_console.log", console)
    diags = _lint(tmp_path, mapper_logs=[str(console)])
    assert [(d.code, d.severity.label, os.path.basename(d.path)) for d in diags] == [
        ("NN401", "info", "saved_console.txt"), ("NN402", "warning", "saved_console.txt")]
    assert all("Crop" not in d.message for d in diags)
    # the first run's error (it failed; the last one completed) is from an older run, on the log
    assert "older run (run 1 of 2 in this log)" in diags[0].message and "the last run completed" in diags[0].message


def test_ruyi_log_of_another_cfg_is_left_out(tmp_path):
    _project_dir(tmp_path, log_name="mapper_debug.log",
                 log_text=(DATA / "ruyi_console.log").read_text(encoding="utf-8"))  # runs for face.cfg
    project = load_project(cfg_path=str(tmp_path / "net.cfg"))
    assert project.mapper_logs == ()
    (tmp_path / "face.cfg").write_text(CFG, encoding="utf-8")
    assert [f.name for f in load_project(cfg_path=str(tmp_path / "face.cfg")).mapper_logs] == ["mapper_debug.log"]


def test_no_logs_without_a_cfg_or_for_the_triage(tmp_path):
    _project_dir(tmp_path)
    assert load_project(prototxt_path=str(tmp_path / "net.prototxt")).mapper_logs == ()
    assert load_project(cfg_path=str(tmp_path / "net.cfg"), load_prototxt=False).mapper_logs == ()


def test_huge_log_is_not_read(tmp_path, monkeypatch):
    _project_dir(tmp_path)
    monkeypatch.setattr(discovery, "MAX_BYTES", 100)
    assert load_project(cfg_path=str(tmp_path / "net.cfg")).mapper_logs == ()


def test_garbage_log_gives_no_finding_and_no_error(tmp_path):
    garbage = "ERROR: file:\n\x00\x01 layer name: [\n" + "*" * 70 + "\nWARNING: file: x line: 99999999999999999999999\n"
    _project_dir(tmp_path, log_text=garbage)
    result = lint_files([str(tmp_path / "net.cfg"), str(tmp_path / "net.prototxt")], settings=_settings())
    assert not result.internal_errors
    assert all(d.code in ("NN401", "NN402") and os.path.basename(d.path) == "mapper_error.log"
               for d in result.diagnostics)


# ---------------------------------------------------------------- the CLI

def test_cli_mapper_log_option_json(tmp_path, capsys):
    _project_dir(tmp_path, log_name=None)
    log = tmp_path / "run.log"
    shutil.copy(DATA / "mapper_error.log", log)
    code = lint_main([str(tmp_path / "net.cfg"), str(tmp_path / "net.prototxt"), "--mapper-log", str(log),
                      "--select", "NN4", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and sorted((item["code"], item["severity"]) for item in out) == [
        ("NN401", "error"), ("NN401", "info"), ("NN402", "warning")]


def test_cli_missing_mapper_log_is_a_usage_error(tmp_path, capsys):
    _project_dir(tmp_path, log_name=None)
    code = lint_main([str(tmp_path / "net.cfg"), "--mapper-log", str(tmp_path / "nope.log")])
    assert code == 2 and "--mapper-log" in capsys.readouterr().err


def test_cli_unrecognised_mapper_log_is_said(tmp_path, capsys):
    _project_dir(tmp_path, log_name=None)
    other = tmp_path / "notes.log"
    other.write_text("just some text\n", encoding="utf-8")
    lint_main([str(tmp_path / "net.cfg"), "--mapper-log", str(other), "--select", "NN4"])
    assert "nothing to read" in capsys.readouterr().err


def test_cli_log_given_among_the_paths_is_read_not_linted(tmp_path, capsys):
    _project_dir(tmp_path, log_name=None)
    log = tmp_path / "mapper_error.log"
    shutil.copy(DATA / "mapper_error.log", log)
    code = lint_main([str(log), "--select", "NN4,NN011,NN010"])
    captured = capsys.readouterr()
    # alone: every finding stays on the log (no project), none of them a prototxt syntax error
    assert code == 1 and "NN010" not in captured.out and "NN011" not in captured.out
    assert captured.out.count("NN40") == 3 and "0 file(s) and 1 mapper log(s) checked" in captured.err


def test_folder_mode_does_not_lint_logs_as_files(tmp_path, capsys):
    _project_dir(tmp_path)
    shutil.copy(DATA / "ruyi_console.log", tmp_path / "console.log")
    found = discover_inputs([str(tmp_path)])
    assert sorted(os.path.basename(f) for f in found.files) == ["net.cfg", "net.prototxt"]
    assert found.mapper_logs == [] and found.lone_logs == []  # read beside their cfg, not given
    code = lint_main([str(tmp_path), "--select", "NN4,NN010,NN011", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and sorted((item["code"], os.path.basename(item["path"])) for item in out) == [
        ("NN401", "mapper_error.log"), ("NN401", "net.prototxt"), ("NN402", "net.prototxt")]


# ---------------------------------------------------------------- cnn_net_tree.dot: NN304 and hover

SSD_PROTOTXT = """name: "ssd"
input: "data"
input_shape { dim: 1 dim: 3 dim: 300 dim: 300 }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" convolution_param { num_output: 64 kernel_size: 3 stride: 2 pad: 1 } }
layer { name: "conv4_3" type: "Convolution" bottom: "conv1" top: "conv4_3" convolution_param { num_output: 512 kernel_size: 3 stride: 4 pad: 1 } }
layer { name: "conv4_3_norm" type: "Normalize" bottom: "conv4_3" top: "conv4_3_norm" norm_param { across_spatial: false channel_shared: false } }
layer { name: "conv4_3_norm_mbox_loc" type: "Convolution" bottom: "conv4_3_norm" top: "conv4_3_norm_mbox_loc" convolution_param { num_output: 16 kernel_size: 3 pad: 1 } }
layer { name: "up" type: "Upsample" bottom: "conv4_3_norm_mbox_loc" top: "up" upsample_param { scale: 2 } }
"""


def _ssd_dir(tmp_path: Path, dot: str | None = None) -> Path:
    (tmp_path / "ssd.cfg").write_text(CFG.replace("./net.prototxt", "./ssd.prototxt"), encoding="utf-8")
    (tmp_path / "ssd.prototxt").write_text(SSD_PROTOTXT, encoding="utf-8")
    text = dot if dot is not None else (DATA / "nnie11_ssd_cnn_net_tree.dot").read_text(encoding="utf-8")
    (tmp_path / "cnn_net_tree.dot").write_text(text, encoding="utf-8")
    return tmp_path


def test_nn304_reports_the_inserted_node_the_dot_shows(tmp_path):
    _ssd_dir(tmp_path)
    diags = lint_files([str(tmp_path / "ssd.cfg"), str(tmp_path / "ssd.prototxt")],
                       settings=_settings("NN304")).diagnostics
    by_line = {d.range.start.line: d for d in diags}
    norm = by_line[_line_of(tmp_path / "ssd.prototxt", '"conv4_3_norm" type')]
    assert "cnn_net_tree.dot: the mapper inserted `permute_0` (Permute (batch), 512×38×38)" in norm.message
    assert len(diags) == 2  # Normalize from the dot (once), Upsample from the layer table
    upsample = by_line[_line_of(tmp_path / "ssd.prototxt", '"up"')]
    assert "rewrites Upsample" in upsample.message


def test_nn304_reports_an_inserted_node_after_a_type_the_table_does_not_list(tmp_path):
    dot = """digraph cnn_tree {
data [shape=box, label="data\\n net segment id: 0\\n id: 0  type: 23\\ntype name: Preprocess\\n output size: 3*300*300\\n data_bit_mode: 0"];
conv1 [shape=box, label="conv1\\n net segment id: 0\\n id: 1  type: 0\\ntype name: Convolution\\n output size: 64*150*150\\n data_bit_mode: 0"];
permute_3 [shape=box, label="permute_3\\n net segment id: 0\\n id: 2  type: 19\\ntype name: Permute (batch)\\n output size: 64*150*150\\n data_bit_mode: 2"];
data -> conv1;
conv1 -> permute_3;
}
"""
    _ssd_dir(tmp_path, dot)
    diags = lint_files([str(tmp_path / "ssd.cfg"), str(tmp_path / "ssd.prototxt")],
                       settings=_settings("NN304")).diagnostics
    lines = sorted(d.range.start.line for d in diags)
    prototxt = tmp_path / "ssd.prototxt"
    assert lines == sorted([_line_of(prototxt, '"conv1" type'), _line_of(prototxt, '"conv4_3_norm" type'),
                            _line_of(prototxt, '"up"')])
    conv1 = next(d for d in diags if d.range.start.line == _line_of(prototxt, '"conv1" type'))
    assert "`permute_3` (Permute (batch), 64×150×150)" in conv1.message and "Convolution \"conv1\"" in conv1.message


def test_hover_shows_the_mappers_view(tmp_path):
    _ssd_dir(tmp_path)
    project = project_for_file(str(tmp_path / "ssd.prototxt"), settings=_settings())
    assert project.net_tree is not None
    doc, graph = project.prototxt, project.graph
    line = _line_of(tmp_path / "ssd.prototxt", '"conv4_3_norm" type')
    column = doc.line_index.line_text(line).index("conv4_3_norm") + 2
    markdown, _ = prototxt_hover(doc, graph, Position(line, column), "en", net_tree=project.net_tree)
    assert "The mapper's view (`cnn_net_tree.dot`)" in markdown
    assert "Segment 0" in markdown and "Output size: 512 × 38 × 38" in markdown
    assert "data_bit_mode 0 (raw value: its meaning is undocumented)" in markdown
    assert "Followed by mapper-inserted node `permute_0` (Permute (batch); 512 × 38 × 38; data_bit_mode 2" in markdown
    without, _ = prototxt_hover(doc, graph, Position(line, column), "en")
    assert "mapper's view" not in without


def test_hover_view_of_a_layer_missing_from_the_dot_and_of_a_report_point():
    from nnie_lsp.readers.mapper.nettree import read_net_tree
    tree = read_net_tree(DATA / "nnie12_yolo_cnn_net_tree.dot")
    absent = mapper_view_markdown(tree, "relu_fused", lang="zh")
    assert "没有名为 `relu_fused` 的节点" in absent
    head = mapper_view_markdown(tree, "head", tops=["head"])
    assert "Reported as `head_report_0_0` (segment 0)" in head and "Node `head`: Convolution" in head


def test_project_without_dot_has_no_tree_and_nn304_is_unchanged(tmp_path):
    _ssd_dir(tmp_path)
    os.remove(tmp_path / "cnn_net_tree.dot")
    project = project_for_file(str(tmp_path / "ssd.cfg"), settings=_settings("NN304"))
    assert project.net_tree is None
    diags = lint_project(project).diagnostics
    assert sorted(d.message.split(" ")[3] for d in diags) == ["Normalize", "Upsample"]


@pytest.mark.parametrize("name", ["mapper_debug.log", "mapper_error.log"])
def test_is_mapper_log_file_by_name_or_content(tmp_path, name):
    named = tmp_path / name
    named.write_text("", encoding="utf-8")
    assert discovery.is_mapper_log_file(str(named))
    saved = tmp_path / "console.txt"
    saved.write_text("some words\n" + VERSION_LINE, encoding="utf-8")
    assert discovery.is_mapper_log_file(str(saved))
    plain = tmp_path / "images.txt"
    plain.write_text("images/a.jpg\n", encoding="utf-8")
    assert not discovery.is_mapper_log_file(str(plain))


def test_a_rewritten_log_is_read_again_and_an_editor_buffer_wins(tmp_path):
    _project_dir(tmp_path)
    cfg = str(tmp_path / "net.cfg")
    first = load_project(cfg_path=cfg)
    assert [b.form_id for b in first.mapper_logs[0].log.blocks] == ["value_too_small", "type_not_supported"]
    assert load_project(cfg_path=cfg).mapper_logs[0].log is first.mapper_logs[0].log  # unchanged: not re-read
    (tmp_path / "mapper_error.log").write_text(
        "**********************************************************\n"
        "ERROR: file: NetParser::parseInput  line: 77\ninput layer has no input param!\n", encoding="utf-8")
    assert [b.form_id for b in load_project(cfg_path=cfg).mapper_logs[0].log.blocks] == ["no_input_param"]
    buffer = VERSION_LINE + "begin net parsing....\n.end net parsing\n"
    log_path = str(tmp_path / "mapper_error.log")
    edited = load_project(cfg_path=cfg, provider=DiskProvider({log_path: buffer}))
    assert edited.mapper_logs[0].log.blocks == () and edited.mapper_logs[0].log.version is not None


# ---------------------------------------------------------------- issue 18: cut logs, crashes, completed runs

def test_cut_console_log_reports_the_cause_and_the_earlier_crash(tmp_path):
    """The issue's console log, cut after the last frame's header at every line: no finding names
    a stack frame, the _inputEdges cause is the last run's error, the crash of the run before it
    is an info finding as from an older run."""
    _project_dir(tmp_path, log_name=None)
    text = (DATA / "console_crash_then_error.log").read_text(encoding="utf-8")
    start = text.index("_inputEdges") + len("_inputEdges  line: 216\n")
    log = tmp_path / "console.txt"
    for cut in [i + 1 for i, ch in enumerate(text) if ch == "\n" and i >= start] + [len(text) - 8]:
        log.write_text(text[:cut], encoding="utf-8")
        result = lint_files([str(tmp_path / "net.cfg")], settings=_settings(), mapper_logs=[str(log)])
        assert not result.internal_errors
        errors = [d for d in result.diagnostics if d.severity.label == "error"]
        assert len(errors) == 1 and "Number of edges expected should match" in errors[0].message, cut
        assert "error: main" not in errors[0].message and "NetParser::parse" not in errors[0].message.split("(")[0]
        (crash,) = [d for d in result.diagnostics if d.severity.label == "info"]
        assert "older run (run 1 of 2 in this log)" in crash.message and "Segmentation fault" in crash.message
        assert crash.range.start.line == 2


def test_completed_debug_log_makes_the_error_log_an_older_run(tmp_path):
    """S20: mapper_debug.log ends 'Compiler process complete!'; mapper_error.log's batch_num error
    is from an older run: info on the log, never on the cfg's [batch_num] line."""
    _project_dir(tmp_path, log_text=(DATA / "sfd_error.log").read_text(encoding="utf-8"))
    shutil.copy(DATA / "sfd_debug.log", tmp_path / "mapper_debug.log")
    diags = _lint(tmp_path)
    (older,) = diags
    assert older.severity.label == "info" and os.path.basename(older.path) == "mapper_error.log"
    assert "Cannot find a piece of available memory" in older.message
    assert "mapper_debug.log beside it holds a later run, which completed" in older.message
    # without the debug log the same error log's last run is the one that counts: on [batch_num]
    (tmp_path / "mapper_debug.log").unlink()
    (error,) = _lint(tmp_path)
    assert error.severity.label == "error" and os.path.basename(error.path) == "net.cfg"

"""mapper_error.log / mapper_debug.log / RuyiStudio console logs (field facts §8, §16.3), on small
files in the real shapes (tests/data/mapper)."""
from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings, strategies as st

from nnie_lsp.readers.mapper.log import looks_like_mapper_log, parse_mapper_log, read_mapper_log
from nnie_lsp.core.text import LineIndex, Position, Range

DATA = Path(__file__).resolve().parents[2] / "data" / "mapper"
STARS = "*" * 58


def _text_at(log, rng: Range) -> str:
    index = log.line_index
    return log.text[index.offset(rng.start):index.offset(rng.end)]


def test_error_log_two_runs_last_counts():
    log = read_mapper_log(DATA / "mapper_error.log")
    assert log.kind == "error" and len(log.runs) == 2
    first, last = log.runs
    # rule (3): a block after the unwinding chain starts the next run
    assert [b.form_id for b in first.blocks] == ["value_too_small", "no_bottom"]
    assert [b.form_id for b in last.blocks] == ["value_too_small", "type_not_supported"]
    assert log.blocks == last.blocks and len(log.all_blocks) == 4
    assert first.status == last.status == log.status == "failed"
    assert log.version is None  # the error log holds no version line
    cause = last.cause
    assert cause is not None and cause.kind == "ERROR"
    assert (cause.function, cause.source_line) == ("parseLayerType", 341)
    assert cause.message == "layer type:[Crop], error: layer type is not supported!"
    assert (cause.target.kind, cause.target.name) == ("layer_type", "Crop")
    assert _text_at(log, cause.target.range) == "Crop"
    assert _text_at(log, cause.header_range) == "ERROR: file: parseLayerType  line: 341"
    assert _text_at(log, cause.message_range) == cause.message
    # the two RUN FAILURE blocks are folded into the cause, in order, and kept
    assert [(u.function, u.failure.line, u.failure.code, u.failure.code_number) for u in cause.unwinding] == [
        ("NetParser::parseLayers", 498, "-1", -1), ("Mapper::run", 80, "-1", -1)]
    assert all(u.is_unwinding and u.run == 1 for u in cause.unwinding)
    assert _text_at(log, cause.unwinding[0].failure.range) == "ERROR: RUN FAILURE in line 498. Return = -1"
    assert log.block_at(cause.unwinding[1].header_range.start) is cause
    warning = last.warnings[0]
    assert (warning.target.kind, warning.target.name, warning.target.how) == (
        "layer", "mobilenet0_conv5_group_15", "layer[X]")
    assert first.cause.target.name == "DummyData1" and first.cause.run == 0


def test_repeated_error_starts_a_new_run():
    """Rule (4): each run writes the same errors again, even without unwinding blocks."""
    block = f"{STARS}\nERROR: file: parsePermutePara  line: 6149\nlayer name: [Transpose_174]. error:Permute can only support (0,1,2,3) -> (0,2,3,1) order!\n"
    log = parse_mapper_log(block + block + block)
    assert len(log.runs) == 3 and len(log.blocks) == 1
    assert log.blocks[0].target.name == "Transpose_174" and log.blocks[0].form_id == "permute_order"
    # warnings repeat inside one run (the real debug log shows the zeros warning twice): no split
    warn = f"{STARS}\nWARNING: file: Inference::computeNonlinearQuantizationDelta  line: 92\ndata containing only zeros; set max value to 1e-6.\n"
    assert len(parse_mapper_log(warn + warn).runs) == 1


def test_debug_log_phases_and_success():
    log = read_mapper_log(DATA / "mapper_debug.log")
    assert log.kind == "debug" and len(log.runs) == 1
    version = log.version
    assert (version.version, version.generation, version.build, version.nnie_generation, version.family) == (
        "1.1.2.2_B010_P002", "NNIE_1.1", "1904031504157241", "1.1", "NNIE")
    assert version.label == "mapper 1.1.2.2_B010_P002 (NNIE_1.1)"
    assert version.range == Range.of(0, 0, 0, len(log.line_index.line_text(0)))
    run = log.last_run
    names = [p.name for p in run.phases]
    assert names == ["net parsing", "prev optimizing", "net quantalizing(CPU)", "optimizing",
                     "NNIE[0] mem allocation", "NNIE[0] instruction generating", "parameter compressing",
                     "compress index generating", "binary code generating", "quant files writing"]
    by_name = {p.name: p for p in run.phases}
    assert by_name["net quantalizing(CPU)"].end_name == "quantalizing"
    assert by_name["NNIE[0] mem allocation"].end_name == "NNIE[0] memory allocating"
    assert all(p.ended for p in run.phases)
    assert run.status == "succeeded" and run.finished_successfully
    # the star line glued to the progress dots opens a block; the dots line after it ends the message
    assert [b.message for b in run.blocks] == ["data containing only zeros; set max value to 1e-6."] * 2
    assert all(b.kind == "WARNING" and b.target.kind == "log" and b.form_id == "zeros_only" for b in run.blocks)


def test_debug_log_cut_short_is_unfinished():
    text = (DATA / "mapper_debug.log").read_text()
    cut = text[: text.index("begin optimizing")] + "begin optimizing....\n"
    assert parse_mapper_log(cut).status == "unfinished"
    assert parse_mapper_log(text[: text.index("begin quant files writing")]).status == "unknown"


def test_ruyi_console_log_two_runs():
    log = read_mapper_log(DATA / "ruyi_console.log")
    assert log.kind == "console" and log.newline == "\r\n" and len(log.runs) == 2
    failed, ok = log.runs
    assert failed.status == "failed" and ok.status == "succeeded"
    assert failed.ruyi.time == "2019-07-23 10:41:02" and ok.ruyi.time == "2019-07-23 10:48:17"
    assert ok.ruyi.tool == "RuyiStudio Wk NNIE Mapper" and ok.ruyi.project == "face"
    assert ok.ruyi.cfg_path == r"E:\ws\RuyiStudio-2.0.31\workspace\face\face.cfg"
    assert ok.ruyi_status.endswith("Successfully!") and ok.version.version == "1.1.2.0_B050"
    cause = failed.cause
    assert (cause.target.kind, cause.target.name, cause.form_id) == ("path", "../model.prototxt", "not_a_file")
    assert len(cause.unwinding) == 1 and _text_at(log, cause.target.range) == "../model.prototxt"
    # only the last run counts: one warning, no error
    assert [b.kind for b in log.blocks] == ["WARNING"]
    assert log.runs[0].range.end.line < log.runs[1].range.start.line


def test_atc_pico_version_line():
    log = parse_mapper_log("Mapper Version 1.0.0.0_B010 (PICO_1.0) 2110161033840e0d952(CPU) (INST_2.0.9)\n")
    version = log.version
    assert (version.version, version.generation, version.family, version.nnie_generation) == (
        "1.0.0.0_B010", "PICO_1.0", "PICO", None)
    assert (version.build, version.extra) == ("2110161033840e0d952", "(CPU) (INST_2.0.9)")


def test_version_line_starts_a_run():
    text = ("Mapper Version 1.2.0.9_B020 (NNIE_1.2) 2008131745441612\nbegin net parsing....\n"
            f"{STARS}\nERROR: file: NetParser::checkInput  line: 77\ninput layer has no input param!\n"
            "Mapper Version 1.2.0.9_B020 (NNIE_1.2) 2008131745441612\nbegin net parsing....\n.end net parsing\n")
    log = parse_mapper_log(text)
    assert len(log.runs) == 2 and log.version.nnie_generation == "1.2"
    assert log.runs[0].status == "failed" and log.runs[0].blocks[0].target.name == "Input"
    assert log.blocks == () and log.status == "unknown"


def test_orphan_unwinding_and_bare_failure_line():
    text = f"{STARS}\nERROR: RUN FAILURE in line 12. Return = 0x10\n"
    log = parse_mapper_log(text)
    (block,) = log.blocks
    assert block.is_unwinding and block.function == "" and block.failure.line == 12
    assert block.failure.code == "0x10" and block.failure.code_number == 16
    assert log.status == "failed"


def test_multi_line_message_cfg_echo():
    text = (f"{STARS}\nERROR: file: read_lang_file  line: 231\n[image_list] ./test_image_paths.txt\n"
            "file error: the file in the image_list should be a featuremap file, of which the data seperate symbol should be space or comma.\n"
            f"{STARS}\nERROR: file: Mapper::run  line: 88\nERROR: RUN FAILURE in line 80. Return = -1\n")
    log = parse_mapper_log(text)
    (block,) = log.blocks
    assert block.message.splitlines()[0] == "[image_list] ./test_image_paths.txt"
    assert block.range.start == Position(1, 0) and block.range.end.line == 3
    assert block.form_id == "cfg_file_error"
    target = block.target
    assert (target.kind, target.name, target.value) == ("cfg_entry", "image_list", "./test_image_paths.txt")
    assert _text_at(log, target.value_range) == "./test_image_paths.txt"


def test_sniffing():
    assert looks_like_mapper_log((DATA / "mapper_error.log").read_text())
    assert looks_like_mapper_log((DATA / "ruyi_console.log").read_text())
    assert looks_like_mapper_log("Mapper Version 1.1.2.0_B050 (NNIE_1.1) 1812171743151709")
    assert not looks_like_mapper_log("[image_list] ./a.txt\n[norm_type] 0\n")
    assert not looks_like_mapper_log("")


def test_empty_and_unrelated_text():
    assert parse_mapper_log("").runs == () and parse_mapper_log("").status == "unknown"
    log = parse_mapper_log("hello\nworld\n")
    assert log.blocks == () and log.version is None


# ---------------------------------------------------------------- never raises, ranges inside

_FRAGMENTS = [
    STARS, "....." + STARS, "ERROR: file: Mapper::run  line: 88", "WARNING: file: f  line: 9", "ERROR: file: g",
    "ERROR: RUN FAILURE in line 80. Return = -1", "RUN FAILURE in line 99999999999999999999999", "begin net parsing....",
    ".end net parsing", "end", "begin", "Mapper Version 1.1.2.0_B050 (NNIE_1.1) 1812171743151709",
    "Start [RuyiStudio Wk NNIE Mapper] [a.cfg] p (2019-07-23 10:48:17)", "=====a.cfg Successfully!=====",
    "layer name: [x]. error: no bottom error!", "layer[]", "layer type:[ ]", "[image_list]", "x is not a file!",
    "Cannot find a piece of available memory for current layer, caused by bigger batch_num or deeper network.",
    "", "  ", "\r", "....", "\t\x0b\x0c", "\u2028", "ERROR: file: " + "9" * 5000 + " line: " + "9" * 5000,
]


def _assert_inside(rng: Range, index: LineIndex) -> None:
    assert rng.start <= rng.end
    for pos in (rng.start, rng.end):
        assert 0 <= pos.line < index.line_count
        assert 0 <= pos.character <= len(index.line_text(pos.line))


def _check(text: str) -> None:
    log = parse_mapper_log(text)
    index = log.line_index
    for run in log.runs:
        _assert_inside(run.range, index)
        assert run.status in ("succeeded", "failed", "unfinished", "unknown")
        for phase in run.phases:
            _assert_inside(phase.begin_range, index)
        for block in run.blocks:
            for item in (block, *block.unwinding):
                for rng in (item.range, item.header_range, item.message_range, item.target.range,
                            item.target.value_range, item.failure.range if item.failure else None):
                    if rng is not None:
                        _assert_inside(rng, index)
    assert isinstance(looks_like_mapper_log(text), bool)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_arbitrary_text_never_raises(text):
    _check(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_FRAGMENTS), st.text(max_size=12)), max_size=25),
       st.sampled_from(["\n", "\r\n"]))
def test_log_shaped_text_never_raises(parts, newline):
    _check(newline.join(parts))


def test_pathological_lines_stay_linear():
    """Long odd lines (a pasted binary, a runaway progress line) must not stall the reader."""
    import time

    n = 60_000
    lines = ["begin x" + " ." * n + "y", "ERROR: file: f" + " " * n + "x", "Mapper Version 1 (NNIE_1.1) " + " " * n + "x",
             "=== " + "=" * n + "x", "." * n + "x", "[k]" + " " * n + "x", "a" + " " * n + "is not a file x",
             "RUN FAILURE in line 1" + " " * n + ". x", "layer name: [" + "a" * n, "Start [a] [b]" + " (" * n,
             "WARNING: file: g  line: 1", "[k]" + " " * n + "x", "a" + " " * n + "is not a file x"]
    text = "\n".join(lines + ["....", "...."] * 2000)
    began = time.perf_counter()
    log = parse_mapper_log(text)
    looks_like_mapper_log("\n" + "....\n" * n)
    assert time.perf_counter() - began < 10
    assert log.runs


# ---------------------------------------------------------------- issue 18: causes, cuts, completed runs
# Real shapes (docs/field-facts.md §16.3): sfd_error.log / sfd_debug.log are S20's logs (the debug
# log shortened), hitext_debug.log is S21's; console_crash_then_error.log is a saved console of two
# runs, the first killed by a signal, the second failing in _inputEdges.

REAL_SHAPES = ["mapper_error.log", "ruyi_console.log", "sfd_error.log", "sfd_debug.log", "hitext_debug.log",
               "console_crash_then_error.log", "mapper_debug.log", "mapper_error_all_forms.log"]


def test_completed_debug_log_is_one_succeeded_run():
    log = read_mapper_log(DATA / "sfd_debug.log")
    (run,) = log.runs
    assert run.status == "succeeded" and run.complete_range.start.line == 16
    assert [(p.name, p.ended) for p in run.phases] == [("parse prototxt to net process", True)]
    assert looks_like_mapper_log((DATA / "sfd_debug.log").read_text())


def test_compiler_version_line_starts_a_run():
    log = read_mapper_log(DATA / "hitext_debug.log")
    (run,) = log.runs
    assert log.version.version == "V100R001C003B0031805151500142770" and log.version.label.startswith("mapper V100R")
    assert log.version.nnie_generation is None
    assert run.cause.function == "main" and run.cause.message == "real path error, [ssd_inst.cfg]!"


def test_crash_line_ends_a_run_and_is_its_cause():
    log = read_mapper_log(DATA / "console_crash_then_error.log")
    crashed, failed = log.runs
    assert crashed.status == failed.status == "failed"
    assert crashed.cause is crashed.crash and crashed.cause.message == "Segmentation fault (core dumped)"
    assert crashed.errors == () and crashed.cause.form_id == "crash"
    assert failed.cause.function == "_inputEdges" and failed.crash is None
    assert [u.function for u in failed.cause.unwinding] == ["NetParser::parse", "main"]
    # a crash after an error: the error stays the cause
    text = f"{STARS}\nERROR: file: f  line: 1\nsome error\nSegmentation fault\n"
    (run,) = parse_mapper_log(text).runs
    assert run.cause.function == "f" and run.crash.message == "Segmentation fault"
    # sentences that start with a signal word are not crash lines
    assert parse_mapper_log("Killed 3 processes\nAborted by user request\n").runs == ()


def test_log_cut_inside_the_stack_keeps_the_cause():
    """The issue's console log: cut after the last frame's header, the cause is still _inputEdges
    (never the empty "main" frame) and the run is not split."""
    text = (DATA / "console_crash_then_error.log").read_text()
    for cut in (text.rindex("ERROR: RUN"), text.rindex("ERROR: RUN") + 9, text.rindex("main") + 2):
        log = parse_mapper_log(text[:cut])
        assert len(log.runs) == 2, cut
        cause = log.last_run.cause
        assert cause.function == "_inputEdges" and cause.unwinding[-1].is_unwinding
        assert all(not b.frame for b in log.last_run.blocks)


def test_cut_header_repeating_the_cause_is_the_next_run():
    text = (DATA / "sfd_error.log").read_text()
    again = text + f"{STARS}\nERROR: file: MemInfo::memoryManager  line: 2027\n"
    log = parse_mapper_log(again)
    assert len(log.runs) == 2 and log.last_run.cause.message == ""


def _full_causes(text: str) -> set[int]:
    """Lines of the blocks that state a cause in the uncut log (ERROR blocks that are no stack
    frame, crash lines)."""
    log = parse_mapper_log(text)
    out = set()
    for run in log.runs:
        out |= {b.header_range.start.line for b in run.blocks if b.is_error and not b.is_unwinding}
        if run.crash is not None:
            out.add(run.crash.range.start.line)
    return out


def _assert_causes_from_cause_blocks(text: str, cut: int) -> None:
    allowed = _full_causes(text)
    log = parse_mapper_log(text[:cut])
    for run in log.runs:
        cause = run.cause
        if cause is not None:
            assert cause.header_range.start.line in allowed, (cut, cause.function, cause.message)
            assert not cause.is_unwinding
        for block in run.blocks:
            if block.is_error and not block.is_unwinding:
                assert block.header_range.start.line in allowed, (cut, block.function)


def test_every_line_cut_of_real_shapes_never_takes_a_frame_for_a_cause():
    for name in REAL_SHAPES:
        text = (DATA / name).read_text(encoding="utf-8")
        offsets = [i + 1 for i, ch in enumerate(text) if ch == "\n"]
        for cut in offsets + [len(text)]:
            _assert_causes_from_cause_blocks(text, cut)
            _check(text[:cut])


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(REAL_SHAPES), st.floats(min_value=0, max_value=1))
def test_random_byte_cut_of_real_shapes_never_takes_a_frame_for_a_cause(name, where):
    data = (DATA / name).read_bytes()
    cut_bytes = data[: int(len(data) * where)]
    text = cut_bytes.decode("utf-8", "ignore")
    full = data.decode("utf-8")
    assert full.startswith(text)
    _assert_causes_from_cause_blocks(full, len(text))
    _check(text)

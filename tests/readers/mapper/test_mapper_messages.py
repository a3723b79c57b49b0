"""Every message form of field facts §16.3 (and the two of §7.5) is recognised, with its target."""
from __future__ import annotations

from pathlib import Path

import pytest

from nnie_lsp.readers.mapper.messages import MESSAGE_FORMS, message_form
from nnie_lsp.readers.mapper.log import parse_mapper_log, read_mapper_log

DATA = Path(__file__).resolve().parents[2] / "data" / "mapper"
STARS = "*" * 58

# (kind, function, line, message lines, form id, target kind, target name, target value)
FORMS = [
    ("ERROR", "NetParser::checkBottom", 1203, ["layer name: [DummyData1]. error: no bottom error!"],
     "no_bottom", "layer", "DummyData1", None),
    ("ERROR", "parseLayerType", 341, ["layer type:[Crop], error: layer type is not supported!"],
     "type_not_supported", "layer_type", "Crop", None),
    ("WARNING", "Inference::convBnParamProcess", 816,
     ["layer[mobilenet0_conv5_group_15] value[0.00000000000000004205] is too small"],
     "value_too_small", "layer", "mobilenet0_conv5_group_15", None),
    ("WARNING", "Inference::computeNonlinearQuantizationDelta", 92,
     ["data containing only zeros; set max value to 1e-6."], "zeros_only", "log", "", None),
    ("ERROR", "fileCheck", 57, ["../model.prototxt is not a file!"], "not_a_file", "path", "../model.prototxt", None),
    ("ERROR", "fileCheck", 57, [r"D:\nnie models\yolo v3.caffemodel is not a file!"], "not_a_file", "path",
     r"D:\nnie models\yolo v3.caffemodel", None),
    ("ERROR", "read_lang_file", 231,
     ["[image_list] ./test_image_paths.txt",
      "file error: the file in the image_list should be a featuremap file, of which the data seperate symbol "
      "should be space or comma."],
     "cfg_file_error", "cfg_entry", "image_list", "./test_image_paths.txt"),
    ("ERROR", "MemInfo::memoryManager", 402,
     ["Cannot find a piece of available memory for current layer, caused by bigger batch_num or deeper network."],
     "out_of_memory", "cfg_key", "batch_num", None),
    ("ERROR", "_inputEdges", 64, ["Number of edges expected should match the number of input names."],
     "edges_mismatch", "log", "", None),
    ("ERROR", "NetParser::parseInput", 77, ["input layer has no input param!"], "no_input_param", "layer_type",
     "Input", None),
    ("ERROR", "parsePermutePara", 6149,
     ["layer name: [Transpose_174]. error:Permute can only support (0,1,2,3) -> (0,2,3,1) order!"],
     "permute_order", "layer", "Transpose_174", None),
    ("ERROR", "parsePermutePara", 6149, ["error:Permute can only support (0,1,2,3) -> (0,2,3,1) order!"],
     "permute_order", "layer_type", "Permute", None),
    ("ERROR", "Eltwise::checkShape", 120, ["layer name: [plus0]. error: All inputs must have the same shape!"],
     "inputs_same_shape", "layer", "plus0", None),
]


@pytest.mark.parametrize("kind,function,line,message,form_id,target_kind,name,value", FORMS,
                         ids=[f"{row[4]}-{row[5]}" for row in FORMS])
def test_message_form(kind, function, line, message, form_id, target_kind, name, value):
    text = "\n".join([STARS, f"{kind}: file: {function}  line: {line}", *message, ""])
    log = parse_mapper_log(text)
    (block,) = log.blocks
    assert (block.kind, block.function, block.source_line) == (kind, function, line)
    assert block.message == "\n".join(message)
    assert block.form_id == form_id
    target = block.target
    assert (target.kind, target.name, target.value) == (target_kind, name, value)
    if target_kind == "log":
        assert target.range is None
    else:
        index = log.line_index
        named = text[index.offset(target.range.start):index.offset(target.range.end)]
        assert named.lower() == name.lower() or (name == "Input" and named.lower() == "input")


def test_every_known_form_is_exercised():
    assert {row[4] for row in FORMS} | {"run_failure"} == {form.id for form in MESSAGE_FORMS}


def test_unknown_message_names_nothing():
    log = parse_mapper_log(f"{STARS}\nERROR: file: Foo::bar  line: 1\nsomething new went wrong\n")
    (block,) = log.blocks
    assert block.form is None and block.target.kind == "log"
    assert message_form("ERROR: RUN FAILURE in line 3. Return = -1").id == "run_failure"


def test_error_log_with_every_form():
    """One accumulated error log holding every form: each ERROR chain is its own run, every block
    keeps its form and target, and only the last run counts."""
    log = read_mapper_log(DATA / "mapper_error_all_forms.log")
    causes = [b for b in log.all_blocks]
    assert [(b.form_id, b.target.kind, b.target.name) for b in causes] == [(r[4], r[5], r[6]) for r in FORMS]
    assert all(len(b.unwinding) == 2 for b in causes if b.kind == "ERROR")
    assert all(not b.unwinding for b in causes if b.kind == "WARNING")
    # warnings join the run of the error after them; each ERROR chain ends its run
    assert len(log.runs) == sum(1 for r in FORMS if r[0] == "ERROR")
    assert [b.form_id for b in log.blocks] == ["inputs_same_shape"] and log.status == "failed"

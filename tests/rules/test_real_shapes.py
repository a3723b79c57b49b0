"""Prototxt rules on small files in the shapes of real projects (issue 8): BVLC train_val nets,
py-faster-rcnn test nets, an LRCN net whose Reshape hard-codes the batch, ShuffleNet channel
shuffles, a net with one missing blob read by many layers.  The TOML cases check codes and
positions; these tests check messages, related locations and fixes."""

from __future__ import annotations

from pathlib import Path

import pytest

from nnie_lsp.lint.driver import fix_files, lint_files
from nnie_lsp.project.settings import settings_from_mapping

EVERY_RULE = settings_from_mapping({"select": ["ALL", "NN303"]})

# BVLC-style train_val: a TRAIN/TEST pair of data layers with the same name, and TRAIN-only
# layers that would each break a rule if they were part of the TEST net.
TRAIN_VAL = """name: "CaffeNet"
layer {
  name: "data"
  type: "Data"
  top: "data"
  top: "label"
  include { phase: TRAIN }
  transform_param { mirror: true crop_size: 227 mean_file: "imagenet_mean.binaryproto" }
  data_param { source: "ilsvrc12_train_lmdb" batch_size: 256 backend: LMDB }
}
layer {
  name: "data"
  type: "Input"
  top: "data"
  include { phase: TEST }
  input_param { shape { dim: 1 dim: 3 dim: 227 dim: 227 } }
}
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" convolution_param { num_output: 96 kernel_size: 11 stride: 4 } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "relu1" }
layer { name: "conv1" type: "Permute" bottom: "relu1" top: "perm" permute_param { order: 0 order: 3 order: 1 order: 2 } include { phase: TRAIN } }
layer { name: "up" type: "Upsample" bottom: "relu1" top: "up" upsample_param { scale: 4 } include { phase: TRAIN } }
layer { name: "bad" type: "Reshape" bottom: "relu1" top: "bad" reshape_param { shape { dim: 7 dim: -1 dim: -1 } } exclude { phase: TEST } }
layer { name: "lost" type: "ReLU" bottom: "nowhere" top: "lost" include { phase: TRAIN } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "relu1" bottom: "label" top: "loss" include { phase: TRAIN } }
layer { name: "noshape" type: "Input" top: "extra" include { phase: TRAIN } }
layer { name: "fc_in" type: "Concat" bottom: "relu1" bottom: "relu1" top: "cat0" concat_param { axis: 0 } include { phase: TRAIN } }
layer { name: "proposal" type: "Python" bottom: "relu1" top: "rois" python_param { module: "rpn.proposal_layer" layer: "ProposalLayer" } include { stage: "train" } }
layer { name: "acc" type: "Accuracy" bottom: "relu1" bottom: "label" top: "acc" include { phase: TEST } }
"""

FASTER_RCNN_TEST = """name: "VGG_CNN_M_1024"
input: "data"
input_shape { dim: 1 dim: 3 dim: 224 dim: 224 }
input: "im_info"
input_shape { dim: 1 dim: 3 }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" convolution_param { num_output: 18 kernel_size: 7 stride: 2 } }
layer { name: "rpn_cls_score_reshape" type: "Reshape" bottom: "conv1" top: "rpn_cls_score_reshape" reshape_param { shape { dim: 0 dim: 2 dim: -1 dim: 0 } } }
layer { name: "rpn_cls_prob" type: "Softmax" bottom: "rpn_cls_score_reshape" top: "rpn_cls_prob" }
layer { name: 'rpn_cls_prob_reshape' type: 'Reshape' bottom: 'rpn_cls_prob' top: 'rpn_cls_prob_reshape' reshape_param { shape { dim: 0 dim: 18 dim: -1 dim: 0 } } }
layer {
  name: 'proposal'
  type: 'Python'
  bottom: 'rpn_cls_prob_reshape'
  bottom: 'conv1'
  bottom: 'im_info'
  top: 'rois'
  python_param {
    module: 'rpn.proposal_layer'
    layer: 'ProposalLayer'
    param_str: "'feat_stride': 16"
  }
}
layer { name: "drop" type: "Python" bottom: "conv1" top: "drop" python_param { module: "spatial_dropout" layer: "SpatialDropout" } }
layer { name: "mine" type: "Python" bottom: "conv1" top: "mine" python_param { module: "my_layers" layer: "MyLayer" } }
"""

LRCN = """name: "lrcn"
input: "data"
input_shape { dim: 16 dim: 3 dim: 32 dim: 32 }
layer { name: "fc6" type: "InnerProduct" bottom: "data" top: "fc6" inner_product_param { num_output: 40960 } }
layer { name: "reshape-data" type: "Reshape" bottom: "fc6" top: "fc6-reshape" reshape_param { shape { dim: 16 dim: 10 dim: 4096 } } }
layer { name: "lstm1" type: "LSTM" bottom: "fc6-reshape" top: "lstm1" recurrent_param { num_output: 256 } }
"""


def _shuffle_net(blocks: int) -> str:
    lines = ['name: "shufflenet_v2"', 'input: "data"', "input_shape { dim: 1 dim: 116 dim: 28 dim: 28 }"]
    prev = "data"
    for k in range(1, blocks + 1):
        lines += [
            f'layer {{ name: "view{2 * k - 1}" type: "Reshape" bottom: "{prev}" top: "view{2 * k - 1}" '
            "reshape_param { shape { dim: 1 dim: 2 dim: 58 dim: 28 dim: 28 } } }",
            f'layer {{ name: "transpose{k}" type: "Permute" bottom: "view{2 * k - 1}" top: "transpose{k}" '
            "permute_param { order: 0 order: 2 order: 1 order: 3 order: 4 } }",
            f'layer {{ name: "view{2 * k}" type: "Reshape" bottom: "transpose{k}" top: "view{2 * k}" '
            "reshape_param { shape { dim: 1 dim: 116 dim: 28 dim: 28 } } }",
        ]
        prev = f"view{2 * k}"
    return "\n".join(lines) + "\n"


def _missing_blob_net(readers: int) -> str:
    lines = ['name: "retinaface_cut"', 'input: "data"', "input_shape { dim: 1 dim: 3 dim: 64 dim: 64 }",
             'layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" convolution_param { num_output: 8 kernel_size: 1 } }']
    for k in range(readers):
        lines.append(f'layer {{ name: "head{k}" type: "Convolution" bottom: "fpn_out" top: "head{k}" '
                     "convolution_param { num_output: 4 kernel_size: 1 } }")
    return "\n".join(lines) + "\n"


def _lint(tmp_path: Path, text: str, settings=EVERY_RULE, name="net.prototxt", lang=None):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    if lang:
        settings = settings_from_mapping({"select": ["ALL", "NN303"], "lang": lang})
    return path, lint_files([str(path)], settings=settings).diagnostics


def _layer_lines(text: str, names: set[str]) -> set[int]:
    """0-based lines of the layers named ``names`` (layers written one per line or as blocks)."""
    lines = text.splitlines()
    out, current, depth = set(), None, 0
    start = 0
    for i, line in enumerate(lines):
        if depth == 0 and line.startswith("layer"):
            start, current = i, None
        for token in ('name: "', "name: '"):
            if current is None and token in line:
                current = line.split(token, 1)[1].split(token[-1], 1)[0]
        depth += line.count("{") - line.count("}")
        if depth == 0 and line.startswith(("layer", "}")) and current is not None:
            if current in names:
                out.update(range(start, i + 1))
            current = None
    return out


# -- phases ------------------------------------------------------------------------------------

def test_no_rule_reports_a_layer_the_test_net_excludes(tmp_path):
    _, diags = _lint(tmp_path, TRAIN_VAL)
    excluded_names = {"conv1_perm", "up", "bad", "lost", "loss", "noshape", "fc_in", "proposal"}
    # the TRAIN data layer and the TRAIN-only "conv1" Permute share names with TEST layers: use lines
    excluded_lines = _layer_lines(TRAIN_VAL, excluded_names) | set(range(1, 10)) | {19}
    assert TRAIN_VAL.splitlines()[19].startswith('layer { name: "conv1" type: "Permute"')
    assert excluded_lines == set(range(1, 10)) | set(range(19, 27))
    for d in diags:
        if d.code in ("NN010", "NN011", "NN012", "NN020"):
            continue
        assert d.range.start.line not in excluded_lines, (d.code, d.message)
        for rel in d.related:
            assert rel.range.start.line not in excluded_lines, (d.code, rel.message)
    codes = sorted(d.code for d in diags)
    assert codes.count("NN020") == 1
    assert "NN014" not in codes  # "data" and "conv1" are each used once in the TEST net
    assert codes.count("NN015") == 1  # only the TEST Accuracy


def test_the_ignored_layers_are_said_once_with_their_reasons(tmp_path):
    path, diags = _lint(tmp_path, TRAIN_VAL)
    (note,) = [d for d in diags if d.code == "NN020"]
    assert note.message.startswith("judged: the TEST net nnie_mapper converts (phase: TEST, level 0, no stages); "
                                   "9 layers are not part of it")
    assert 'include { phase: TRAIN } ×7' in note.message and "exclude { phase: TEST }" in note.message
    assert 'include { stage: "train" }' in note.message
    assert (note.range.start.line, note.range.start.character) == (2, 8)  # the TRAIN data layer's name
    # the TEST Accuracy reads "label", which only the TRAIN data layer makes: said here, not as NN013
    assert 'nothing in it produces "label" (made only by "data", outside it)' in note.message
    assert note.severity.label == "warning"
    assert len(note.related) == 9
    assert note.related[0].message == 'layer "conv1": include { phase: TRAIN }'
    assert {r.range.start.line for r in note.related[:8]} == set(range(19, 27))
    assert note.related[8].message == 'layer "acc" reads "label"'
    assert not [d for d in diags if d.code == "NN013"]
    _, zh = _lint(tmp_path, TRAIN_VAL, lang="zh")
    assert "不属于该网络" in next(d for d in zh if d.code == "NN020").message


def test_v1_layers_outside_the_test_net_are_not_reported_as_legacy(tmp_path):
    text = ('name: "old"\ninput: "data"\ninput_shape { dim: 1 dim: 1 dim: 4 dim: 4 }\n'
            'layers { name: "loss" type: SOFTMAX_LOSS bottom: "data" bottom: "label" top: "loss" include { phase: TRAIN } }\n'
            'layers { name: "relu" type: RELU bottom: "data" top: "relu" }\n')
    _, diags = _lint(tmp_path, text)
    assert [(d.code, d.range.start.line) for d in diags if d.code == "NN016"] == [("NN016", 4)]
    assert [d.code for d in diags if d.code == "NN020"] == ["NN020"]


# -- Python layers -----------------------------------------------------------------------------

def test_python_layers_get_the_advice_of_their_class(tmp_path):
    _, diags = _lint(tmp_path, FASTER_RCNN_TEST)
    by_line = {d.range.start.line: d.message for d in diags if d.code == "NN015"}
    proposal, dropout, mine = by_line[11], by_line[22], by_line[23]
    assert 'Python layer "ProposalLayer"' in proposal
    assert "`Proposal` layer" in proposal and "`[net_type] 1`" in proposal
    assert "delete" not in proposal and "training" not in proposal
    assert 'Python layer "SpatialDropout"' in dropout and "delete it" in dropout
    assert 'Python layer "MyLayer"' in mine and "Custom" in mine and '"mine_cpu"' in mine
    _, zh = _lint(tmp_path, FASTER_RCNN_TEST, lang="zh")
    zh_proposal = next(d.message for d in zh if d.code == "NN015" and d.range.start.line == 11)
    assert "`Proposal` 层" in zh_proposal and "`[net_type] 1`" in zh_proposal


# -- NN017's fix and NN021 -------------------------------------------------------------------------

def test_lrcn_batch_has_no_fix_and_names_the_layer(tmp_path):
    """Batch 1 alone would break the Reshape (NN021 would report 655360 elements from 40960): no
    fix is offered, and the message says which layer must change first."""
    path, diags = _lint(tmp_path, LRCN)
    (batch,) = [d for d in diags if d.code == "NN017"]
    assert batch.fix is None
    assert 'Reshape "reshape-data" hard-codes the batch in its shape (16×10×4096)' in batch.message
    assert "Caffe refuses" in batch.message and "change that layer for batch 1 first" in batch.message
    fixed = fix_files([str(path)], unsafe=True, settings=settings_from_mapping({"select": ["NN017"]}))
    assert fixed.fixed == {}


def test_plain_net_batch_fix_stays_safe(tmp_path):
    text = LRCN.replace("reshape_param { shape { dim: 16 dim: 10 dim: 4096 } }",
                        "reshape_param { shape { dim: 0 dim: 10 dim: 4096 } }").replace(
        'layer { name: "lstm1" type: "LSTM" bottom: "fc6-reshape" top: "lstm1" recurrent_param { num_output: 256 } }\n', "")
    assert "LSTM" not in text
    _, diags = _lint(tmp_path, text)
    (batch,) = [d for d in diags if d.code == "NN017"]
    assert batch.fix.is_safe and "not a safe fix" not in batch.message


def test_two_inputs_of_one_batch_are_fixed_together(tmp_path):
    text = ('name: "two_stream"\ninput: "rgb"\ninput_shape { dim: 8 dim: 3 dim: 16 dim: 16 }\n'
            'input: "flow"\ninput_shape { dim: 8 dim: 3 dim: 16 dim: 16 }\n'
            'layer { name: "sum" type: "Eltwise" bottom: "rgb" bottom: "flow" top: "sum" }\n')
    path, diags = _lint(tmp_path, text)
    fixes = [d.fix for d in diags if d.code == "NN017"]
    assert len(fixes) == 2 and all(f.is_safe and len(f.edits) == 2 for f in fixes)
    fixed = fix_files([str(path)], unsafe=False, settings=EVERY_RULE).fixed[str(path)][1]
    assert fixed.count("dim: 1 dim: 3 dim: 16") == 2


def test_input_layer_without_input_param(tmp_path):
    text = 'name: "onnx"\nlayer {\n  name: "input"\n  type: "Input"\n  top: "input"\n}\n'
    _, diags = _lint(tmp_path, text)
    (d,) = [d for d in diags if d.code == "NN021"]
    assert 'Input layer "input" has no input_param' in d.message and "input layer has no input param!" in d.message
    assert (d.range.start.line, d.range.start.character) == (3, 8)


@pytest.mark.parametrize("shape,words", [
    ("dim: 0 dim: 7 dim: -1 dim: 0", ["300 elements", "not divisible by 70"]),
    ("dim: 0 dim: -1 dim: -1", ["dim 3 is a second -1"]),
    ("dim: 0 dim: 0 dim: 0 dim: 0 dim: 0", ["dim 5 is 0 (copy input axis 4)", "only 4 axes"]),
    ("dim: 0 dim: 3 dim: 10 dim: 11", ["1×3×10×11 = 330 elements from 1×3×10×10 = 300"]),
])
def test_inconsistent_reshape_messages_give_the_counts(tmp_path, shape, words):
    text = ('name: "r"\ninput: "data"\ninput_shape { dim: 1 dim: 3 dim: 10 dim: 10 }\n'
            f'layer {{ name: "r" type: "Reshape" bottom: "data" top: "r" reshape_param {{ shape {{ {shape} }} }} }}\n')
    _, diags = _lint(tmp_path, text)
    (d,) = [d for d in diags if d.code == "NN021"]
    assert d.severity.label == "error"
    for w in words:
        assert w in d.message, d.message


# -- one finding per cause ---------------------------------------------------------------------

def test_one_missing_blob_read_by_many_layers_is_one_finding(tmp_path):
    text = _missing_blob_net(51)
    _, diags = _lint(tmp_path, text)
    (d,) = [d for d in diags if d.code == "NN013"]
    assert 'bottom "fpn_out" of layer "head0"' in d.message
    assert "also read by 50 more" in d.message and '"head1", "head2"' in d.message
    assert len(d.related) == 50
    lines = text.splitlines()
    for k, rel in enumerate(d.related, start=1):
        line = lines[rel.range.start.line]
        assert f'name: "head{k}"' in line
        assert line[rel.range.start.character:rel.range.end.character] == '"fpn_out"'
        assert rel.message == f'layer "head{k}" also reads "fpn_out"'


def test_channel_shuffle_blocks_are_one_finding_per_limit(tmp_path):
    text = _shuffle_net(16)
    _, diags = _lint(tmp_path, text)
    limits = sorted((d for d in diags if d.code == "NN018"), key=lambda d: d.range.start.line)
    assert len(limits) == 3  # 5-D Reshape, Permute order, Reshape with batch 1: 48 places before
    lines = text.splitlines()
    for d in limits:
        assert len(d.related) == 15 and "(the same in 15 more:" in d.message
        first = lines[d.range.start.line][d.range.start.character:d.range.end.character]
        for rel in d.related:
            other = lines[rel.range.start.line][rel.range.start.character:rel.range.end.character]
            layer = rel.message.removeprefix('the same in layer "').removesuffix('"')
            assert f'name: "{layer}"' in lines[rel.range.start.line]
            if first.startswith('"view'):  # the 5-D Reshape is reported on the layer's name
                assert other == f'"{layer}"'
            else:  # the same field in each block, exact range
                assert other == first


# -- unknown stays unknown (issue 18) ------------------------------------------------------------

CONVERTER_UPSAMPLE = """layer { name: "images" type: "Input" top: "images" input_param { shape { dim: 1 dim: 3 dim: 160 dim: 160 } } }
layer { name: "Conv_100" type: "Convolution" bottom: "images" top: "236" convolution_param { num_output: 18 kernel_size: 1 stride: 8 } }
layer { name: "Conv_110" type: "Convolution" bottom: "images" top: "205" convolution_param { num_output: 18 kernel_size: 1 stride: 4 } }
layer {
  name: "Resize_120"
  type: "Upsample"
  bottom: "236"
  top: "242"
  upsample_param {
    height_scale: 2
    width_scale: 2
    mode: NEAREST
  }
}
layer { name: "Concat_121" type: "Concat" bottom: "242" bottom: "205" top: "243" concat_param { axis: 1 } }
layer { name: "Resize_130" type: "Upsample" bottom: "243" top: "252" upsample_param { height_scale: 2 width_scale: 2 mode: NEAREST } }
layer { name: "Conv_140" type: "Convolution" bottom: "252" top: "260" convolution_param { num_output: 18 kernel_size: 1 } }
layer { name: "Reshape_150" type: "Reshape" bottom: "260" top: "270" reshape_param { shape { dim: 1 dim: 3 dim: 6 dim: 80 dim: 80 } } }
layer { name: "Eltwise_151" type: "Eltwise" bottom: "260" bottom: "205" top: "271" }
"""


def test_a_field_the_schema_rejects_makes_the_shapes_after_it_unknown(tmp_path):
    path, diags = _lint(tmp_path, CONVERTER_UPSAMPLE)
    codes = sorted(d.code for d in diags)
    assert "NN021" not in codes  # no element count stated from a scale taken as 1
    assert not [d for d in diags if d.code == "NN018" and "Eltwise" in d.message]
    (stop,) = [d for d in diags if d.code == "NN022"]
    assert stop.range.start.line == 9  # the height_scale line, 0-based
    assert 'Upsample layer "Resize_120" (line 10)' in stop.message
    assert "upsample_param.height_scale is not in the schema" in stop.message
    assert 'also stops at "Resize_130"' in stop.message
    (rel,) = stop.related
    assert rel.range.start.line == 15 and "upsample_param.height_scale" in rel.message
    g_tops = _shapes(CONVERTER_UPSAMPLE)
    assert g_tops["236"] == (1, 18, 20, 20) and g_tops["205"] == (1, 18, 40, 40)
    assert all(g_tops[b] is None for b in ("242", "243", "252", "260", "270", "271"))
    _, zh = _lint(tmp_path, CONVERTER_UPSAMPLE, lang="zh")
    (stop_zh,) = [d for d in zh if d.code == "NN022"]
    assert "形状推断" in stop_zh.message and "Resize_120" in stop_zh.message


def _shapes(text: str):
    from nnie_lsp.readers.prototxt.graph import build_graph
    from nnie_lsp.readers.prototxt.reader import parse_prototxt
    return build_graph(parse_prototxt(text)).blob_shapes()


def test_concat_message_names_both_inputs_and_the_axis(tmp_path):
    text = ('name: "Darkent2Caffe"\ninput: "data"\ninput_shape { dim: 1 dim: 3 dim: 64 dim: 64 }\n'
            'layer { bottom: "data" top: "layer0-conv" name: "layer0-conv" type: "Convolution" '
            'convolution_param { num_output: 8 kernel_size: 3 pad: 1 stride: 2 } }\n'
            'layer { bottom: "layer0-conv" bottom: "data" top: "layer1-route" name: "layer1-route" type: "Concat" }\n')
    _, diags = _lint(tmp_path, text)
    (d,) = [d for d in diags if d.code == "NN021"]
    assert d.message.startswith('Concat "layer1-route" joins "data" 1×3×64×64 to "layer0-conv" 1×8×32×32 along axis 1, '
                                "but they differ on axis 2")


def test_reshape_rank_follows_axis_and_num_axes(tmp_path):
    text = ('name: "s"\ninput: "data"\ninput_shape { dim: 1 dim: 116 dim: 28 dim: 28 }\n'
            'layer { name: "split" type: "Reshape" bottom: "data" top: "split" '
            "reshape_param { axis: 1 num_axes: 1 shape { dim: 2 dim: 58 } } }\n"
            'layer { name: "m" type: "Mystery" bottom: "data" top: "m" }\n'
            'layer { name: "tail" type: "Reshape" bottom: "m" top: "tail" reshape_param { axis: 2 shape { dim: -1 } } }\n')
    _, diags = _lint(tmp_path, text)
    found = [d for d in diags if d.code == "NN018"]
    assert [d.message.split(":")[0] for d in found] == ["Reshape to 5 dims"]  # "tail": input rank unknown


def test_stride1_pool_with_unknown_input_says_so(tmp_path):
    text = ('name: "t"\ninput: "data"\ninput_shape { dim: 1 dim: 512 dim: 13 dim: 13 }\n'
            'layer { name: "m" type: "Mystery" bottom: "data" top: "m" }\n'
            'layer { name: "layer12-maxpool" type: "Pooling" bottom: "m" top: "layer12-maxpool" '
            "pooling_param { pool: MAX kernel_size: 2 stride: 1 pad: 0 } }\n")
    _, diags = _lint(tmp_path, text)
    (d,) = [d for d in diags if d.code == "NN019"]
    assert "one row and one column smaller" in d.message and "?" not in d.message


def test_dummy_data_input_batch_fix_keeps_the_shape(tmp_path):
    text = ('layer { name: "DummyData1" type: "DummyData" top: "DummyData1" '
            "dummy_data_param { shape { dim: 10 dim: 3 dim: 8 dim: 8 } } }\n"
            'layer { name: "fc" type: "InnerProduct" bottom: "DummyData1" top: "fc" inner_product_param { num_output: 4 } }\n'
            'layer { name: "r" type: "Reshape" bottom: "fc" top: "r" reshape_param { shape { dim: 10 dim: -1 } } }\n')
    _, diags = _lint(tmp_path, text)
    (d,) = [d for d in diags if d.code == "NN017"]
    assert 'input "DummyData1" declares batch 10' in d.message
    assert d.fix is None and 'Reshape "r" hard-codes the batch' in d.message   # batch 1 would break it


# a YOLOv3 deploy net whose input_shape holds a non-number (416.0): read as 1×3×416 it would make
# the Reshape's count (and everything after the input) wrong
BAD_INPUT_SHAPE = """name: "Darkent2Caffe"
input: "data"
input_shape {
  dim: 1
  dim: 3
  dim: 416.0
  dim: 416
}
input: "im_info"
input_shape { dim: 1 dim: 3 }
layer { name: "reshape" type: "Reshape" bottom: "data" top: "reshape" reshape_param { shape { dim: 1 dim: 3 dim: 416 dim: 416 } } }
layer { name: "conv" type: "Convolution" bottom: "reshape" top: "conv" convolution_param { num_output: 8 kernel_size: 3 } }
layer { name: "info" type: "Power" bottom: "im_info" top: "info" }
"""


def test_an_input_shape_the_reader_flags_makes_that_input_unknown(tmp_path):
    _, diags = _lint(tmp_path, BAD_INPUT_SHAPE)
    assert not [d for d in diags if d.code == "NN021"]  # no count from the 1×3×416 that was read
    (stop,) = [d for d in diags if d.code == "NN022"]
    assert stop.range.start.line == 1  # the `input: "data"` line, 0-based
    assert 'input "data" (line 2): input_shape.dim (line 6) has a value the schema rejects' in stop.message
    shapes = _shapes(BAD_INPUT_SHAPE)
    assert shapes["data"] is None and shapes["reshape"] is None and shapes["conv"] is None
    assert shapes["im_info"] == (1, 3) and shapes["info"] == (1, 3)  # the other input is read as written
    _, zh = _lint(tmp_path, BAD_INPUT_SHAPE, lang="zh")
    (stop_zh,) = [d for d in zh if d.code == "NN022"]
    assert "input_shape.dim（第 6 行）的值不被 schema 接受，该输入的形状无法读取" in stop_zh.message


@pytest.mark.parametrize("layer, en, zh", [
    ('layer { name: "conv2" type: "Convolution" bottom: "conv1" top: "conv2" convolution_param { kernel_size: 3 } }',
     "(num_output missing)", "（缺少 num_output）"),
    ('layer { name: "conv2" type: "Convolution" bottom: "fc" top: "conv2" convolution_param { num_output: 4 kernel_size: 1 } }',
     "(expected a 4-D input, got 2-D)", "（需要 4 维输入，实际为 2 维）"),
    ('layer { name: "conv2" type: "Convolution" bottom: "conv1" top: "conv2" convolution_param { num_output: 4 kernel_size: 11 } }',
     "(output size 1×4×-2×-2 is not positive)", "（输出尺寸 1×4×-2×-2 不为正）"),
])
def test_why_shape_inference_stopped_is_said_in_the_message_language(tmp_path, layer, en, zh):
    text = ('name: "t"\ninput: "data"\ninput_shape { dim: 1 dim: 3 dim: 10 dim: 10 }\n'
            'layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" convolution_param { num_output: 8 kernel_size: 3 } }\n'
            'layer { name: "fc" type: "InnerProduct" bottom: "conv1" top: "fc" inner_product_param { num_output: 4 } }\n'
            + layer + '\nlayer { name: "relu" type: "ReLU" bottom: "conv2" top: "relu" }\n')
    _, diags = _lint(tmp_path, text)
    (stop,) = [d for d in diags if d.code == "NN022"]
    assert en in stop.message
    _, diags_zh = _lint(tmp_path, text, lang="zh")
    (stop_zh,) = [d for d in diags_zh if d.code == "NN022"]
    assert zh in stop_zh.message and en not in stop_zh.message

"""Issue 18 points 5-7 in the shapes of real projects: advice keyed by what the file says (pycaffe
classes by module and class, a fork's BN type, DummyData inputs, training-only layers said once),
one finding per cause (did-you-mean only among names of the same kind, repeated identical findings
grouped wherever findings are shown) and certainty that matches the reference ([?] facts are
hedged warnings).  The TOML cases check codes and positions; these check messages, severities,
related locations and the faces."""

from __future__ import annotations

import json
from pathlib import Path

from nnie_lsp.core.diagnostics import Severity, group_repeated
from nnie_lsp.lint.driver import lint_files
from nnie_lsp.cli.output import render_json, render_text
from nnie_lsp.project.settings import settings_from_mapping

EVERY_RULE = settings_from_mapping({"select": ["ALL"]})


def _lint(tmp_path: Path, prototxt: str | None = None, cfg: str | None = None, lang: str = "en"):
    files = []
    if prototxt is not None:
        (tmp_path / "net.prototxt").write_text(prototxt, encoding="utf-8")
        files.append(str(tmp_path / "net.prototxt"))
    if cfg is not None:
        (tmp_path / "net.cfg").write_text(cfg, encoding="utf-8")
        files.append(str(tmp_path / "net.cfg"))
    settings = settings_from_mapping({"select": ["ALL"], "lang": lang})
    return lint_files(files, settings=settings).diagnostics


def _bn(name, bottom, top):
    return (f'layer {{ name: "{name}" type: "BN" bottom: "{bottom}" top: "{top}" '
            'param { lr_mult: 1 decay_mult: 1 } param { lr_mult: 1 decay_mult: 0 } '
            'bn_param { scale_filler { type: "constant" value: 1 } shift_filler { type: "constant" value: 0.001 } '
            'bn_mode: INFERENCE } }\n')


def _drop(name, bottom):
    return (f'layer {{ name: "{name}" type: "Python" bottom: "{bottom}" top: "{name}" python_param {{ '
            'module: "spatial_dropout" layer: "SpatialDropoutLayer" param_str: "{\'phase\': \'TEST\', \'p\': \'0.01\'}" } }\n')


ENET_DEPLOY = ('name: "ENet"\nlayer { name: "data" type: "Input" top: "data" input_param { shape { dim: 1 dim: 3 dim: 512 dim: 1024 } } }\n'
               'layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" convolution_param { num_output: 16 kernel_size: 3 pad: 1 } }\n'
               + _bn("bn1", "conv1", "bn1") + _drop("drop1", "bn1") + _bn("bn2", "drop1", "bn2") + _drop("drop2", "bn2")
               + _bn("bn3", "drop2", "bn3"))


# -- point 5: advice keyed by what the file says --------------------------------------------------

def test_enet_spatial_dropout_layers_are_deleted_not_made_custom(tmp_path):
    diags = _lint(tmp_path, ENET_DEPLOY)
    (drop,) = [d for d in diags if d.code == "NN015" and "Python" in d.message]
    assert 'Python layer "SpatialDropoutLayer"' in drop.message
    assert "dropout does nothing at inference: delete it" in drop.message and "Custom" not in drop.message
    assert "the same in 1 more" in drop.message and [r.message for r in drop.related] == ['layer "drop2": the same']


def test_fork_bn_is_one_finding_with_its_block_and_the_batchnorm_scale_answer(tmp_path):
    diags = _lint(tmp_path, ENET_DEPLOY)
    assert not [d for d in diags if d.code == "NN011"]  # bn_param is part of the BN finding
    (bn,) = [d for d in diags if d.code == "NN015" and '"BN"' in d.message]
    assert "BatchNorm + Scale" in bn.message and "fold it into the convolution" in bn.message
    assert "Custom" not in bn.message and "_cpu" not in bn.message
    assert bn.related[0].message.startswith("its `bn_param` block")
    assert [r.message for r in bn.related[1:]] == ['layer "bn2": the same', 'layer "bn3": the same']


def test_training_only_layers_are_said_once_per_net(tmp_path):
    text = ('name: "train"\nlayer { name: "data" type: "Data" top: "data" top: "label" data_param { source: "lmdb" batch_size: 8 } }\n'
            'layer { name: "fc" type: "InnerProduct" bottom: "data" top: "fc" inner_product_param { num_output: 2 } }\n'
            'layer { name: "loss" type: "SoftmaxWithLoss" bottom: "fc" bottom: "label" top: "loss" }\n'
            'layer { name: "acc" type: "Accuracy" bottom: "fc" bottom: "label" top: "acc" }\n'
            'layer { name: "pyloss" type: "Python" bottom: "fc" bottom: "label" top: "l2" '
            'python_param { module: "pyloss" layer: "EuclideanLossLayer" } loss_weight: 1 }\n')
    diags = _lint(tmp_path, text)
    (nn015,) = [d for d in diags if d.code == "NN015"]
    assert nn015.message.startswith('training-only layers ×4 in the judged net ("data", "loss", "acc", "pyloss")')
    assert "delete them from the deploy prototxt" in nn015.message
    assert [r.range.start.line for r in nn015.related] == [3, 4, 5]
    assert '(EuclideanLossLayer): it is a loss (training only)' in nn015.related[-1].message
    (note,) = [d for d in diags if d.code == "NN020"]
    assert "this file is a training net" in note.message and note.severity is Severity.INFO


def test_unknown_python_classes_are_judged_by_their_name_and_say_so(tmp_path):
    text = ('name: "x"\ninput: "data"\ninput_shape { dim: 1 dim: 3 dim: 8 dim: 8 }\n'
            'layer { name: "reg" type: "Python" bottom: "data" top: "reg" python_param { module: "mylosses" layer: "SmoothL1Loss" } }\n'
            'layer { name: "mine" type: "Python" bottom: "data" top: "mine" python_param { module: "custom" layer: "MyLayer" } }\n')
    diags = [d for d in _lint(tmp_path, text) if d.code == "NN015"]
    by_line = {d.range.start.line: d.message for d in diags}
    assert "training-only layer in the judged net" in by_line[3]
    mine = by_line[4]
    assert 'Python layer "MyLayer"' in mine and '"mine_cpu"' in mine


def test_dummydata_input_fix_is_unsafe_without_a_shape_and_absent_when_nothing_is_known(tmp_path):
    text = ('name: "d"\nlayer { name: "data" type: "DummyData" top: "data" }\n'
            'layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" convolution_param { num_output: 8 kernel_size: 3 } }\n')
    (d,) = [d for d in _lint(tmp_path, text) if d.code == "NN015"]
    assert d.fix is None and "its shape is not known" in d.message


# -- point 6: one finding per cause, did-you-mean of the same kind, grouping ----------------------

def test_concat_reading_six_missing_blobs_is_one_finding(tmp_path):
    bottoms = " ".join(f'bottom: "head{i}"' for i in range(6))
    text = ('name: "cut"\ninput: "data"\ninput_shape { dim: 1 dim: 3 dim: 8 dim: 8 }\n'
            f'layer {{ name: "cat" type: "Concat" {bottoms} top: "cat" }}\n'
            'layer { name: "cat2" type: "Concat" bottom: "head0" bottom: "data" top: "cat2" }\n')
    (d,) = [d for d in _lint(tmp_path, text) if d.code == "NN013"]
    assert d.message.startswith('bottoms "head0", "head1", "head2", "head3", "head4", … of layer "cat" are not produced')
    assert d.message.endswith('; also read by 1 more: "cat2"')
    assert len(d.related) == 6 and d.related[0].message == 'bottom "head1" of the same layer is not produced either'


def test_did_you_mean_only_among_names_of_the_same_kind(tmp_path):
    text = ('name: "x"\ninput: "data"\ninput_shape { dim: 1 dim: 3 dim: 8 dim: 8 }\n'
            'layer { name: "c" type: "Convolution" bottom: "data" top: "c" convolution_param { num_output: 8 kernel_size: 3 } '
            'quantization_param { bw_layer_in: 8 } }\n'
            'layer { name: "u" type: "Upsample" bottom: "c" top: "u" upsampe_param { scale: 2 } }\n'
            'layer { name: "r" type: "ReLU" botom: "u" top: "r" }\n'
            'layer { name: "d" type: "DenseImageData" top: "d2" }\n'
            'layer { name: "s" type: "Relu" bottom: "c" top: "s" }\n')
    diags = _lint(tmp_path, text)
    messages = {d.range.start.line: d.message for d in diags if d.code in ("NN011", "NN015")}
    assert "Did you mean" not in messages[3]  # not reduction_param
    assert 'Did you mean "upsample_param" (the Upsample layer\'s block)?' in messages[4]
    assert 'Did you mean "bottom"?' in messages[5]
    assert "ImageData" not in messages[6].replace("DenseImageData", "")
    assert '(did you mean "ReLU"?)' in messages[7]
    from nnie_lsp.readers.prototxt.schema import field_suggestion
    assert field_suggestion("caffe.LayerParameter", "bn_param", ["mvn_param", "bottom"]) is None
    assert field_suggestion("caffe.LayerParameter", "transpose_param", ["transform_param"]) is None


INT8 = ('name: "int8"\ninput: "data"\ninput_shape { dim: 1 dim: 3 dim: 8 dim: 8 }\n'
        + "".join(f'layer {{ name: "c{i}" type: "Convolution" bottom: "{"data" if i == 0 else f"c{i - 1}"}" top: "c{i}" '
                  'convolution_param { num_output: 8 kernel_size: 1 } quantization_param { bw_layer_in: 8 } }\n'
                  for i in range(5)))


def test_repeated_identical_findings_are_grouped_in_text_and_json(tmp_path):
    diags = [d for d in _lint(tmp_path, INT8) if d.code == "NN011"]
    assert len(diags) == 5  # the engine keeps every place (suppressions, --fix)
    text = render_text(diags)
    assert text.count("NN011") == 1 and "(the same in 4 more)" in text
    (item,) = json.loads(render_json(diags))
    assert [r["line"] for r in item["related"]] == [5, 6, 7, 8]
    assert all(r["message"] == "the same" for r in item["related"])


def test_grouping_keeps_findings_with_fixes_apart():
    from nnie_lsp.core.diagnostics import Applicability, Diagnostic, Fix
    from nnie_lsp.core.text import Range

    fix = Fix("f", Applicability.SAFE, ())
    a = Diagnostic("NN301", "m", "p", Range.point(0, 0), fix=fix)
    b = Diagnostic("NN301", "m", "p", Range.point(1, 0), fix=fix)
    c = Diagnostic("NN011", "m", "p", Range.point(2, 0))
    d = Diagnostic("NN011", "m", "q", Range.point(2, 0))  # another file
    assert group_repeated([a, b, c, d]) == [a, b, c, d]


def test_server_diagnostics_group_with_related_information(tmp_path):
    from nnie_lsp.server.convert import Encoder, to_lsp_diagnostics
    from nnie_lsp.core.text import LineIndex

    diags = [d for d in _lint(tmp_path, INT8) if d.code == "NN011"]
    index = LineIndex(INT8)
    (lsp_diag,) = to_lsp_diagnostics(diags, lambda _path: index, Encoder("utf-16"), {})
    assert lsp_diag.message.endswith("(the same in 4 more)")
    assert [r.location.range.start.line for r in lsp_diag.related_information] == [4, 5, 6, 7]


# -- point 7: certainty matches the reference ------------------------------------------------------

CFG = """[prototxt_file] ./net.prototxt
[caffemodel_file] ./net.caffemodel
[image_list] ./list.txt   ; thirty images
; an old setting
[image_type] 1
[norm_type] 0
[mean_file] null
"""


def test_semicolon_comments_are_hedged_warnings_like_nn007(tmp_path):
    diags = _lint(tmp_path, cfg=CFG)
    (value,) = [d for d in diags if d.code == "NN003"]
    assert value.severity is Severity.WARNING and "is not known" in value.message
    (line,) = [d for d in diags if d.code == "NN001"]
    assert line.severity is Severity.WARNING and "is not known" in line.message


def test_keys_required_only_by_inference_are_hedged_warnings(tmp_path):
    diags = _lint(tmp_path, cfg=CFG.replace("[image_type] 1\n", ""))
    (missing,) = [d for d in diags if d.code == "NN005"]
    assert missing.severity is Severity.WARNING and "(not documented)" in missing.message
    diags = _lint(tmp_path, cfg=CFG.replace("[image_list] ./list.txt   ; thirty images\n", ""))
    (missing,) = [d for d in diags if d.code == "NN005"]
    assert missing.severity is Severity.ERROR  # image_list is required by the vendor table [C]


def test_types_only_inferred_unsupported_are_hedged_warnings(tmp_path):
    text = ('name: "lm"\ninput: "words"\ninput_shape { dim: 1 dim: 1 }\n'
            'layer { name: "embed" type: "Embed" bottom: "words" top: "e" embed_param { num_output: 16 input_dim: 100 } }\n')
    (d,) = [d for d in _lint(tmp_path, text) if d.code == "NN015"]
    assert d.severity is Severity.WARNING and "probably not supported" in d.message

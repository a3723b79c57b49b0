"""The layer table and the schema helpers."""

from __future__ import annotations

import pytest

from nnie_lsp.readers.prototxt.graph import build_graph
from nnie_lsp.readers.prototxt import caffe_pb2, layers, schema
from nnie_lsp.readers.prototxt.reader import parse_prototxt
from nnie_lsp.readers.prototxt.layers import LAYERS, SUPPORT_VALUES

from .conftest import CORPUS, read


def test_table_is_consistent():
    lp = caffe_pb2.LayerParameter.DESCRIPTOR.fields_by_name
    assert len(LAYERS) >= 70
    for t, s in LAYERS.items():
        assert s.type == t
        assert s.support in SUPPORT_VALUES, t
        assert s.param_field is None or s.param_field in lp, (t, s.param_field)
        assert s.doc_en and s.doc_zh, t
        assert any("\u4e00" <= ch <= "\u9fff" for ch in s.doc_zh), t  # Chinese text
        assert s.source and s.tag in ("C", "C-u", "I", "?"), t
        if s.training_only:
            assert s.support == "unsupported"


def test_classification_facts():
    assert layers.lookup("Convolution").support == "supported"
    for t in ("ROIPooling", "PSROIPooling", "Normalize", "Upsample", "PassThrough", "Permute", "CReLU", "RReLU"):
        assert layers.lookup(t).support == "extension", t
    for t in ("Proposal", "Custom"):
        assert layers.is_cpu_layer(t)
    for t in ("PriorBox", "DetectionOutput", "Region", "Yolo", "Data", "SoftmaxWithLoss", "Accuracy"):
        assert layers.lookup(t).support == "unsupported", t
    assert layers.is_training_only("Data") and not layers.is_training_only("Input")
    # Normalize too: the mapper inserts a Permute (batch) after it (docs/field-facts.md §16.2)
    assert [t for t, s in LAYERS.items() if s.mapper_inserts_permute] == ["ROIPooling", "PSROIPooling", "Normalize",
                                                                          "Upsample"]
    assert layers.is_activation("ReLU") and layers.is_activation("PReLU") and not layers.is_activation("Scale")
    assert layers.is_inplace_capable("BatchNorm") and not layers.is_inplace_capable("Convolution")
    assert layers.is_data_layer("ImageData") and not layers.is_data_layer("Input")
    assert layers.param_field_for("Normalize") == "norm_param"
    assert "(0,2,3,1)" in layers.lookup("Permute").limits
    assert "ceil" in layers.lookup("Pooling").limits


def test_lookup_is_case_sensitive_with_suggestions():
    assert layers.lookup("relu") is None
    assert layers.suggest("relu") == "ReLU"
    assert layers.suggest("Convolutoin") == "Convolution"
    assert layers.suggest("ReLU") is None
    assert layers.suggest("Zzzzzz") is None


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name[:40])
def test_every_corpus_type_is_known_and_param_fields_match(path):
    g = build_graph(parse_prototxt(read(path)))
    for gl in g.layers:
        spec = layers.lookup(gl.type)
        assert spec is not None, gl.type
        for f, _ in gl.param.ListFields():
            if f.name.endswith("_param") and f.name not in ("transform_param", "loss_param"):
                assert f.name == spec.param_field, (gl.type, f.name)


def test_schema_fields_at_and_docs():
    names = [f.name for f in schema.fields_at(())]
    assert names[:3] == ["name", "input", "input_shape"] and "layer" in names
    conv = {f.name: f for f in schema.fields_at(("layer", "convolution_param"))}
    assert conv["num_output"].type_name == "uint32" and not conv["num_output"].repeated
    assert conv["kernel_size"].repeated and conv["group"].default == 1
    assert conv["weight_filler"].kind == "message" and conv["weight_filler"].type_name == "caffe.FillerParameter"
    assert conv["engine"].enum_values == ("DEFAULT", "CAFFE", "CUDNN")
    assert "outputs" in conv["num_output"].doc
    assert conv["weight_filler"].snippet() == "weight_filler {\n}"
    assert conv["num_output"].snippet() == "num_output: "
    assert schema.fields_at(("layer", "name")) == ()
    assert schema.fields_at(("nope",)) == ()
    assert schema.enum_values("caffe.EltwiseParameter", "operation") == ("PROD", "SUM", "MAX")
    assert schema.field_info("caffe.LayerParameter", "nope") is None
    assert "Blob" in schema.message_doc("caffe.BlobShape")
    assert schema.field_doc("caffe.LayerParameter", "bottom")
    assert schema.param_field_for_type("Convolution") == "convolution_param"
    assert schema.param_field_for_type("ShuffleChannel") == "shuffle_channel_param"
    assert schema.param_field_for_type("NoSuchLayer") is None
    assert set(schema.layer_types_for_param("convolution_param")) >= {"Convolution", "Deconvolution"}
    assert "upsample_param" in schema.layer_param_fields()


# Field numbers that must match BVLC caffe.proto (binary caffemodels depend on them) and the
# extension numbers documented in caffe.proto's header.
FIELD_NUMBERS = {
    "NetParameter": {"name": 1, "layers": 2, "input": 3, "input_dim": 4, "input_shape": 8, "layer": 100},
    "LayerParameter": {
        "name": 1, "type": 2, "bottom": 3, "top": 4, "loss_weight": 5, "param": 6, "blobs": 7,
        "phase": 10, "transform_param": 100, "convolution_param": 106, "pooling_param": 121,
        "inner_product_param": 117, "batch_norm_param": 139, "scale_param": 142, "input_param": 143,
        "crop_param": 144, "relu_param": 123, "eltwise_param": 110, "concat_param": 104,
        "reshape_param": 133, "flatten_param": 135, "softmax_param": 125, "prelu_param": 131,
        "clip_param": 148, "swish_param": 147, "recurrent_param": 146,
        "upsample_param": 149, "permute_param": 202, "prior_box_param": 203,
        "detection_output_param": 204, "norm_param": 206, "roi_pooling_param": 8266711,
        "psroi_pooling_param": 10002, "proposal_param": 201,
    },
    "ConvolutionParameter": {"num_output": 1, "bias_term": 2, "pad": 3, "kernel_size": 4, "group": 5,
                             "stride": 6, "weight_filler": 7, "bias_filler": 8, "pad_h": 9, "pad_w": 10,
                             "kernel_h": 11, "kernel_w": 12, "stride_h": 13, "stride_w": 14, "dilation": 18},
    "PoolingParameter": {"pool": 1, "kernel_size": 2, "stride": 3, "pad": 4, "global_pooling": 12,
                         "round_mode": 13},
    "BlobShape": {"dim": 1},
    "V1LayerParameter": {"bottom": 2, "top": 3, "name": 4, "type": 5, "convolution_param": 10},
    "PriorBoxParameter": {"min_size": 1, "max_size": 2, "aspect_ratio": 3, "step": 10, "offset": 13},
    "UpsampleParameter": {"scale": 1, "upsample_h": 6, "upsample_w": 7},
}


def test_field_numbers():
    for msg, fields in FIELD_NUMBERS.items():
        desc = getattr(caffe_pb2, msg).DESCRIPTOR
        for name, number in fields.items():
            assert desc.fields_by_name[name].number == number, (msg, name)

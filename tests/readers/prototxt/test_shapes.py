"""Shape inference: known values from the corpus and a cross-check against OpenCV."""

from __future__ import annotations

import pytest

from nnie_lsp.readers.prototxt.graph import build_graph
from nnie_lsp.readers.prototxt.reader import parse_prototxt
from nnie_lsp.readers.prototxt.shapes import conv_out, deconv_out, pool_out

from .conftest import CORPUS, SHARED_MODELS, corpus_file, read


def shapes_of(fragment):
    g = build_graph(parse_prototxt(read(corpus_file(fragment))))
    return g, g.blob_shapes()


def test_formulas():
    assert conv_out(416, 3, 1, 1) == 416
    assert conv_out(416, 3, 1, 2) == 208
    assert conv_out(64, 3, 2, 1, dilation=2) == 64
    assert deconv_out(20, 4, 1, 2) == 40
    assert pool_out(13, 2, 0, 1) == 12  # Caffe: no implicit padding
    assert pool_out(7, 3, 0, 2) == 3  # ceil((7-3)/2)+1
    assert pool_out(6, 3, 0, 2) == 3  # ceil(1.5)+1 = 3 (floor would give 2)
    assert pool_out(6, 3, 0, 2, ceil_mode=False) == 2
    assert pool_out(5, 2, 1, 2) == 3  # last window would start in the padding: dropped


def test_yolov3_heads():
    g, s = shapes_of("yolov3-nnie-model-yolov3")
    assert s["layer82-conv"] == (1, 255, 13, 13)
    assert s["layer94-conv"] == (1, 255, 26, 26)
    assert s["layer106-conv"] == (1, 255, 52, 52)
    ups = [l for l in g.layers if l.type == "Upsample"]
    assert [g.layer_shapes()[l.index][0][2:] for l in ups] == [(26, 26), (52, 52)]
    assert all(v is not None for v in s.values())


def test_yolov3_tiny_stride1_pool_is_12_in_caffe():
    # darknet's size-2 stride-1 maxpool keeps 13x13 by padding; stock Caffe pooling gives 12x12
    # so the route Concat joins the 24x24 upsample to the 26x26 layer9-conv: Caffe refuses it
    # ("All inputs must have the same shape, except at concat_axis."), and nothing after it is known
    g, s = shapes_of("yolov3-tiny")
    assert s["layer12-maxpool"] == (1, 512, 12, 12)
    assert s["layer16-conv"] == (1, 255, 12, 12)
    assert s["layer20-upsample"] == (1, 128, 24, 24) and s["layer9-conv"] == (1, 256, 26, 26)
    (problem,) = g.shape_inference().problems
    assert g.layers[problem.layer].name == "layer21-route" and problem.kind == "concat_shape"
    assert problem.details["at"] == 2 and problem.details["axis"] == 1
    assert s["layer21-route"] is None and s["layer23-conv"] is None


def test_mtcnn_and_other_known_values():
    _, s = shapes_of("det1")
    assert s["prob1"] == (1, 2, 1, 1) and s["conv4-2"] == (1, 4, 1, 1)
    _, s = shapes_of("det3")
    assert s["prob1"] == (1, 2) and s["conv6-3"] == (1, 10)
    _, s = shapes_of("ENet")
    assert s["deconv6_0_0"] == (1, 33, 512, 1024)
    _, s = shapes_of("hisi-yolov5")
    assert [s[b] for b in ("324", "338", "352")] == [(1, 30, 80, 80), (1, 30, 40, 40), (1, 30, 20, 20)]
    _, s = shapes_of("pfpld")
    assert s["landms"] == (1, 196) and s["pose"] == (1, 3)


def test_mnet_reshape_softmax_reshape():
    g, s = shapes_of("face-mnet")
    reshapes = [l for l in g.layers if l.type == "Reshape"]
    assert reshapes
    for l in reshapes:
        (out,) = g.layer_shapes()[l.index]
        assert out is not None and len(out) == 4
    assert s["face_rpn_bbox_pred_stride8"] == (1, 8, 80, 80)


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name[:40])
def test_every_corpus_file_infers(path):
    g = build_graph(parse_prototxt(read(path)))
    inf = g.shape_inference()
    roots = [(g.layers[s.layer].type, s.kind, s.detail) for s in inf.stops if s.kind != "problem"]
    # only DetectionOutput (no static output size in Caffe) may stop inference; the only layer
    # Caffe refuses is yolov3-tiny's route Concat (see test_yolov3_tiny_stride1_pool_is_12_in_caffe)
    assert all(t == "DetectionOutput" for t, _, _ in roots), roots
    assert [p.kind for p in inf.problems] == (["concat_shape"] if "yolov3-tiny" in path.name else [])


def test_unknown_layers_do_not_stop_inference():
    text = """input: "data" input_shape { dim: 1 dim: 3 dim: 16 dim: 16 }
layer { name: "x" type: "Mystery" bottom: "data" top: "m" }
layer { name: "c" type: "Convolution" bottom: "m" top: "c" convolution_param { num_output: 2 kernel_size: 1 } }
layer { name: "d" type: "Convolution" bottom: "data" top: "d" convolution_param { num_output: 2 kernel_size: 3 stride: 2 } }
layer { name: "cu" type: "Custom" bottom: "d" top: "e" top: "f" custom_param { shape { dim: 1 dim: 5 } shape { dim: 7 } } }
layer { name: "p" type: "Permute" bottom: "d" top: "p" permute_param { order: 0 order: 2 order: 3 order: 1 } }
layer { name: "f" type: "Flatten" bottom: "p" top: "fl" }
layer { name: "s" type: "Slice" bottom: "d" top: "s1" top: "s2" slice_param { axis: 1 } }
layer { name: "u" type: "Upsample" bottom: "d" top: "u" upsample_param { scale: 2 } }
layer { name: "r" type: "Reorg" bottom: "u" top: "r" reorg_param { stride: 2 } }
layer { name: "pb" type: "PriorBox" bottom: "d" bottom: "data" top: "pb"
  prior_box_param { min_size: 10 max_size: 20 aspect_ratio: 2 flip: true } }
layer { name: "g" type: "Pooling" bottom: "data" top: "g" pooling_param { pool: AVE global_pooling: true } }
layer { name: "rs" type: "Reshape" bottom: "d" top: "rs" reshape_param { shape { dim: 0 dim: -1 } } }
"""
    g = build_graph(parse_prototxt(text))
    s = g.blob_shapes()
    assert s["m"] is None and s["c"] is None
    assert s["d"] == (1, 2, 7, 7)
    assert s["e"] == (1, 5) and s["f"] == (7,)
    assert s["p"] == (1, 7, 7, 2) and s["fl"] == (1, 98)
    assert s["s1"] == (1, 1, 7, 7)
    assert s["u"] == (1, 2, 14, 14) and s["r"] == (1, 8, 7, 7)
    assert s["pb"] == (1, 2, 7 * 7 * 4 * 4)  # priors: 1, 2, 1/2 for min_size + one for max_size
    assert s["g"] == (1, 3, 1, 1)
    assert s["rs"] == (1, 98)


def _opencv_cases():
    return [
        ("mtcnn/det1.prototxt", "mtcnn/det1.caffemodel"),
        ("mtcnn/det2.prototxt", "mtcnn/det2.caffemodel"),
        ("mtcnn/det3.prototxt", "mtcnn/det3.caffemodel"),
        ("yufacedetectnet-v1/yufacedetectnet-open-v1.prototxt",
         "yufacedetectnet-v1/yufacedetectnet-open-v1.caffemodel"),
    ]


@pytest.mark.parametrize("proto,model", _opencv_cases(), ids=lambda x: x.split("/")[-1])
def test_shapes_match_opencv(proto, model):
    cv2 = pytest.importorskip("cv2")
    weights = SHARED_MODELS / model
    if not weights.exists():
        pytest.skip(f"weights not available: {weights}")
    text = read(corpus_file(proto.split("/")[-1]))
    net = cv2.dnn.readNetFromCaffe(str(corpus_file(proto.split("/")[-1])), str(weights))
    net.enableFusion(False)
    net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    g = build_graph(parse_prototxt(text))
    ours = g.layer_shapes()
    ids, _ins, outs = net.getLayersShapes(list(g.inputs[0].shape))
    names = net.getLayerNames()
    compared = 0
    for lid, out in zip(ids, outs):
        if lid <= 0:
            continue  # the input layer
        gl = g.layer(names[lid - 1])
        assert gl is not None, names[lid - 1]
        theirs = tuple(tuple(int(v) for v in o.ravel()) for o in out)
        if gl.type == "DetectionOutput":
            assert ours[gl.index] == (None,)  # Caffe sizes it at run time; OpenCV uses keep_top_k
            continue
        assert ours[gl.index] == theirs, (gl.name, gl.type)
        compared += 1
    assert compared >= len(g.layers) - 1


def _reshape(in_shape, param):
    dims = " ".join(f"dim: {d}" for d in in_shape)
    text = (f'input: "x" input_shape {{ {dims} }}\n'
            f'layer {{ name: "r" type: "Reshape" bottom: "x" top: "y" reshape_param {{ {param} }} }}\n')
    inference = build_graph(parse_prototxt(text)).shape_inference()
    return inference.blobs["y"], inference.problems


@pytest.mark.parametrize("in_shape,param,out", [
    # the examples of caffe.proto's ReshapeParameter: a 2x8 blob becomes 2x2x4 in four ways
    ((2, 8), "shape { dim: 2 dim: 2 dim: 4 }", (2, 2, 4)),
    ((2, 8), "shape { dim: 0 dim: 2 dim: 4 }", (2, 2, 4)),
    ((2, 8), "shape { dim: 0 dim: 2 dim: -1 }", (2, 2, 4)),
    ((2, 8), "shape { dim: 0 dim: -1 dim: 4 }", (2, 2, 4)),
    # axis / num_axes: replace part of the input shape (axis -1 = after the last axis)
    ((2, 3, 8), "axis: 1 num_axes: 1 shape { dim: 1 dim: 3 }", (2, 1, 3, 8)),
    ((2, 3, 8), "axis: -1 shape { dim: 1 }", (2, 3, 8, 1)),
    ((2, 3, 8), "axis: 1 num_axes: 0 shape { dim: 1 }", (2, 1, 3, 8)),
    ((2, 3, 8), "axis: -2 shape { dim: 2 dim: 4 }", (2, 3, 2, 4)),
    ((2, 3, 8), "axis: 1 shape { dim: -1 }", (2, 24)),
    # dim: 0 copies the input axis at its own position (axis + k), also after axis
    ((2, 3, 8), "axis: 1 shape { dim: 0 dim: 2 dim: -1 }", (2, 3, 2, 4)),
    # py-faster-rcnn's rpn_cls_score_reshape
    ((1, 18, 14, 14), "shape { dim: 0 dim: 2 dim: -1 dim: 0 }", (1, 2, 126, 14)),
])
def test_reshape_follows_caffe(in_shape, param, out):
    shape, problems = _reshape(in_shape, param)
    assert shape == out and problems == []


@pytest.mark.parametrize("in_shape,param,kind,details", [
    ((1, 40960), "shape { dim: 16 dim: 10 dim: 4096 }", "count", {"count": 40960, "output_count": 655360}),
    ((1, 3, 10, 10), "shape { dim: 0 dim: 7 dim: -1 dim: 0 }", "not_divisible", {"count": 300, "known": 70}),
    ((1, 3, 10, 10), "shape { dim: 0 dim: -1 dim: -1 }", "two_inferred", {"dim": 2}),
    ((1, 3, 10, 10), "shape { dim: 0 dim: 0 dim: 0 dim: 0 dim: 0 }", "copy_missing", {"dim": 4, "axis": 4}),
    ((1, 3, 10, 10), "axis: 1 shape { dim: 0 dim: 0 dim: 0 dim: 0 }", "copy_missing", {"dim": 3, "axis": 4}),
    ((1, 3, 10, 10), "shape { dim: 0 dim: -3 dim: 10 dim: 10 }", "negative_dim", {"dim": 1, "value": -3}),
    ((1, 3, 10, 10), "axis: 5 shape { dim: 1 }", "axis", {"axis": 5}),
    ((1, 3, 10, 10), "axis: -6 shape { dim: 1 }", "axis", {"axis": -6}),
    ((1, 3, 10, 10), "axis: 2 num_axes: 3 shape { dim: 1 }", "num_axes", {"num_axes": 3}),
    ((1, 3, 10, 10), "num_axes: -2 shape { dim: 1 }", "num_axes", {"num_axes": -2}),
])
def test_inconsistent_reshape_is_a_problem_with_the_numbers(in_shape, param, kind, details):
    shape, problems = _reshape(in_shape, param)
    assert shape is None
    (problem,) = problems
    assert problem.kind == kind and problem.layer == 0
    for key, value in details.items():
        assert problem.details[key] == value


def test_two_minus_ones_are_a_problem_even_without_an_input_shape():
    text = ('input: "x"\nlayer { name: "r" type: "Reshape" bottom: "x" top: "y" '
            'reshape_param { shape { dim: -1 dim: -1 } } }\n')
    inference = build_graph(parse_prototxt(text)).shape_inference()
    assert [p.kind for p in inference.problems] == ["two_inferred"]
    # an unknown input is not a problem of the Reshape itself
    text = text.replace("dim: -1 dim: -1", "dim: 0 dim: -1")
    assert build_graph(parse_prototxt(text)).shape_inference().problems == []


def test_input_shapes_override_the_declared_inputs():
    from nnie_lsp.readers.prototxt.shapes import infer_shapes
    text = """input: "data" input_shape { dim: 16 dim: 3 dim: 8 dim: 8 }
layer { name: "in2" type: "Input" top: "aux" input_param { shape { dim: 16 dim: 4 } } }
layer { name: "c" type: "Convolution" bottom: "data" top: "c" convolution_param { num_output: 2 kernel_size: 1 } }
layer { name: "r" type: "Reshape" bottom: "aux" top: "r" reshape_param { shape { dim: 16 dim: 2 dim: 2 } } }
"""
    g = build_graph(parse_prototxt(text))
    assert g.blob_shapes()["r"] == (16, 2, 2)
    changed = infer_shapes(g, {"data": (1, 3, 8, 8), "aux": (1, 4)})
    assert changed.blobs["c"] == (1, 2, 8, 8)
    assert changed.blobs["r"] is None and [p.kind for p in changed.problems] == ["count"]
    assert g.blob_shapes()["c"] == (16, 2, 8, 8)  # the graph's own inference is untouched


def test_unread_parameters_and_unknown_types_stop_inference_with_a_reason():
    from nnie_lsp.readers.prototxt.shapes import infer_shapes
    text = """input: "data" input_shape { dim: 1 dim: 18 dim: 20 dim: 20 }
layer { name: "up" type: "Upsample" bottom: "data" top: "up" upsample_param { height_scale: 2 width_scale: 2 } }
layer { name: "r" type: "Reshape" bottom: "up" top: "r" reshape_param { shape { dim: 1 dim: 3 dim: 6 dim: 80 dim: 80 } } }
layer { name: "bn" type: "BN" bottom: "data" top: "bn" }
layer { name: "sum" type: "Eltwise" bottom: "data" bottom: "bn" top: "sum" }
layer { name: "ok" type: "ReLU" bottom: "data" top: "ok" }
layer { name: "py" type: "Python" bottom: "ok" top: "py" python_param { module: "m" layer: "L" } }
layer { name: "d" type: "Data" top: "d" top: "label" }
"""
    g = build_graph(parse_prototxt(text))
    inf = infer_shapes(g)
    assert inf.blobs["up"] is None and inf.blobs["r"] is None and inf.problems == []
    assert inf.blobs["sum"] is None and inf.blobs["ok"] == (1, 18, 20, 20)
    kinds = [(s.kind, g.layers[s.layer].name, s.detail, s.reached) for s in inf.stops]
    assert kinds == [("unread", "up", "upsample_param.height_scale", True),
                     ("unknown_type", "bn", "BN", True),
                     ("python", "py", "m.L", False),
                     ("data", "d", "Data", False)]
    assert inf.stops[0].code == "NN011" and inf.stops[0].range.start.line == 1


def test_input_declaring_layers_and_overrides():
    from nnie_lsp.readers.prototxt.shapes import declared_inputs, infer_shapes
    text = """layer { name: "a" type: "DummyData" top: "a" top: "b" dummy_data_param { shape { dim: 4 dim: 3 dim: 8 dim: 8 } shape { dim: 4 dim: 1 } } }
layer { name: "c" type: "DummyData" top: "c" dummy_data_param { num: 2 channels: 3 height: 5 width: 5 } }
layer { name: "m" type: "MemoryData" top: "m" top: "label" memory_data_param { batch_size: 6 channels: 1 height: 28 width: 28 } }
layer { name: "n" type: "DummyData" top: "n" }
"""
    g = build_graph(parse_prototxt(text))
    s = g.blob_shapes()
    assert s["a"] == (4, 3, 8, 8) and s["b"] == (4, 1) and s["c"] == (2, 3, 5, 5)
    assert s["m"] == (6, 1, 28, 28) and s["label"] == (6, 1, 1, 1) and s["n"] is None
    assert [(d.name, d.shape) for d in declared_inputs(g)][:3] == [("a", (4, 3, 8, 8)), ("b", (4, 1)), ("c", (2, 3, 5, 5))]
    assert infer_shapes(g, {"a": (1, 3, 8, 8)}).blobs["a"] == (1, 3, 8, 8)


@pytest.mark.parametrize("shapes,kind", [
    (((1, 8, 32, 32), (1, 3, 64, 64)), "concat_shape"),
    (((1, 8, 32, 32), (1, 8)), "concat_axes"),
])
def test_concat_checks_every_other_axis(shapes, kind):
    from nnie_lsp.readers.prototxt.shapes import infer_shapes
    decl = "".join(f'input: "x{k}" input_shape {{ {" ".join(f"dim: {d}" for d in s)} }}\n' for k, s in enumerate(shapes))
    text = decl + 'layer { name: "cat" type: "Concat" bottom: "x0" bottom: "x1" top: "cat" }\n'
    inf = infer_shapes(build_graph(parse_prototxt(text)))
    (p,) = inf.problems
    assert p.kind == kind and p.details["bottom"] == 1 and inf.blobs["cat"] is None


@pytest.mark.parametrize("declared, kind, code, line", [
    ("input_shape { dim: 1 dim: 3 dim: 416 dim: 416 layout: 1 }\n", "unread_input", "NN011", 2),
    ("input_shape {\n dim: 1\n dim: 3\n dim: abc\n dim: 416\n}\n", "unread_input", "NN012", 5),
    ("input_shape { dim: 1 dim: 3 dim: -1 dim: 416 }\n", "bad_input_shape", "", None),
    ("input_dim: 1\ninput_dim: 3\ninput_dim: 4x\ninput_dim: 416\n", "unread_input", "NN012", 4),
])
def test_a_top_level_input_read_in_part_is_unknown(declared, kind, code, line):
    from nnie_lsp.readers.prototxt.shapes import infer_shapes
    second = ("input_dim: 1\ninput_dim: 2\ninput_dim: 1\ninput_dim: 1\n" if "input_dim" in declared
              else "input_shape { dim: 1 dim: 2 }\n")
    text = (f'input: "data"\n{declared}input: "b"\n{second}'
            'layer { name: "conv" type: "Convolution" bottom: "data" top: "conv" convolution_param { num_output: 8 kernel_size: 3 } }\n'
            'layer { name: "relu" type: "ReLU" bottom: "b" top: "rb" }\n')
    inf = infer_shapes(build_graph(parse_prototxt(text)))
    assert inf.blobs["data"] is None and inf.blobs["conv"] is None
    (stop,) = inf.stops
    assert (stop.kind, stop.blob, stop.layer, stop.code, stop.reached) == (kind, "data", None, code, True)
    assert stop.range.start.line == 0 and dict(stop.params).get("line") == line
    if "input_dim" in declared:  # the bad value shifts the dims of every later input: unknown too
        assert inf.blobs["b"] is None and inf.blobs["rb"] is None
    else:
        assert inf.blobs["rb"] == (1, 2)

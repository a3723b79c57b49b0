"""``hp-plan`` plans from the `_hp` layers the `.wk` beside the cfg built at 16 bit, not from the names."""

from __future__ import annotations

import pytest

from nnie_lsp.project.project import load_project
from nnie_lsp.testing.wk_files import Blob, Node, Segment, WkSpec, write_wk
from nnie_lsp.triage.hp_plan.built import built_bits

PROTOTXT = """name: "two"
input: "data"
input_shape { dim: 1 dim: 3 dim: 32 dim: 32 }
layer { name: "conv1_hp" type: "Convolution" bottom: "data" top: "conv1" convolution_param { num_output: 8 kernel_size: 3 stride: 2 pad: 1 } }
layer { name: "conv2_hp" type: "Convolution" bottom: "conv1" top: "conv2" convolution_param { num_output: 8 kernel_size: 3 stride: 2 pad: 1 } }
layer { name: "conv3" type: "Convolution" bottom: "conv2" top: "out" convolution_param { num_output: 4 kernel_size: 1 } }
"""


def _project(tmp_path, blobs, mode="2"):
    (tmp_path / "net.prototxt").write_text(PROTOTXT)
    (tmp_path / "net.cfg").write_text(f"[prototxt_file] ./net.prototxt\n[compile_mode] {mode}\n[image_type] 1\n"
                                      "[instruction_name] ./inst\n")
    seg = Segment((Node("data", 32, 32, 3),), (Node("out", 8, 8, 4),))
    (tmp_path / "inst.wk").write_bytes(write_wk(WkSpec(segments=(seg,), blobs=tuple(blobs))))
    project = load_project(cfg_path=str(tmp_path / "net.cfg"))
    return str(tmp_path / "net.cfg"), project.graph


def test_an_8_bit_build_applied_no_hp_name(tmp_path):
    cfg, graph = _project(tmp_path, [Blob(32, 32, 3, 1, op=0x2C), Blob(16, 16, 8, 1), Blob(8, 8, 8, 1),
                                     Blob(8, 8, 4, 4, op=0x2D, output=True)], mode="0")
    built = built_bits(cfg, graph)
    assert built.verdict == "8-bit" and built.eight == {"conv1_hp", "conv2_hp"} and built.applied == frozenset()
    assert "ran at 8 bit there (the mark was not applied)" in built.note()


def test_a_mixed_build_places_each_hp_layer_by_its_output_size(tmp_path):
    # conv1 (16 × 16) 2-byte: built 16-bit; conv2 (8 × 8) only 1-byte records: the mark not applied
    cfg, graph = _project(tmp_path, [Blob(32, 32, 3, 1, op=0x2C), Blob(16, 16, 8, 2), Blob(8, 8, 8, 1),
                                     Blob(8, 8, 4, 4, op=0x2D, output=True)])
    built = built_bits(cfg, graph)
    assert built.verdict == "mixed" and built.sixteen == {"conv1_hp"} and built.eight == {"conv2_hp"}
    assert built.applied == {"conv1_hp"} and "[I: memory-plan records matched" in built.note()


def test_a_size_with_both_widths_is_not_known(tmp_path):
    cfg, graph = _project(tmp_path, [Blob(32, 32, 3, 1, op=0x2C), Blob(16, 16, 8, 2), Blob(16, 16, 8, 1),
                                     Blob(8, 8, 8, 1), Blob(8, 8, 4, 4, op=0x2D, output=True)])
    built = built_bits(cfg, graph)
    assert built.unknown == {"conv1_hp"} and built.applied is None


def test_no_wk_no_reading(tmp_path):
    cfg, graph = _project(tmp_path, [Blob(32, 32, 3, 1)])
    (tmp_path / "inst.wk").unlink()
    assert built_bits(cfg, graph) is None


def test_the_oracle_runs_unapplied_hp_names_at_8_bit(tmp_path):
    pytest.importorskip("cv2")
    from nnie_lsp.reference.caffe_forward import prepare_inputs
    from nnie_lsp.reference.net import load_net
    from nnie_lsp.testing.hp_synthetic import DeepNetSpec, prototxt_text, write_project
    from nnie_lsp.triage.hp_plan.oracle import HpOracle

    spec = DeepNetSpec(depth=6, channels=6, size=16, bottlenecks={4: 100.0}, images=1)
    paths = write_project(tmp_path, spec)
    text = prototxt_text(spec).replace('name: "conv4"', 'name: "conv4_hp"')
    paths["prototxt"].write_text(text)
    net = load_net(paths["prototxt"], paths["caffemodel"])
    assert any(layer.name == "conv4_hp" for layer in net.layers)

    from nnie_lsp.reference.run_inputs import load_run_inputs

    inputs = load_run_inputs(str(paths["cfg"]), count=1)
    prepared = [prepare_inputs(net, image.sources, inputs.preprocessing) for image in inputs.images]
    named = HpOracle.build(net, prepared)
    as_built = HpOracle.build(net, prepared)
    as_built.applied_hp = frozenset()
    assert "conv4_hp" not in named.candidates() and "conv4_hp" in as_built.candidates()
    # the bottleneck at conv4 is lost at 8 bit: the build without the mark scores lower
    assert as_built.score(()).similarity < named.score(()).similarity
    assert as_built.score({"conv4_hp"}).similarity == pytest.approx(named.score(()).similarity)

"""The `_hp` plan's cost: the share of the net's multiply-accumulates at 16 bit, from the prototxt's
shapes — checked against numbers computed by hand on a tiny net."""
from __future__ import annotations

import pytest

from nnie_lsp.triage.hp_plan.cost import mac_share, prototxt_macs

TINY = """name: "tiny"
input: "data"
input_shape { dim: 1 dim: 3 dim: 8 dim: 8 }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
  convolution_param { num_output: 4 kernel_size: 3 pad: 1 } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer { name: "pool1" type: "Pooling" bottom: "conv1" top: "pool1"
  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "conv2" type: "Convolution" bottom: "pool1" top: "conv2"
  convolution_param { num_output: 4 kernel_size: 1 group: 2 } }
layer { name: "up" type: "Deconvolution" bottom: "conv2" top: "up"
  convolution_param { num_output: 2 kernel_size: 2 stride: 2 } }
layer { name: "fc" type: "InnerProduct" bottom: "up" top: "fc"
  inner_product_param { num_output: 10 } }
"""

# by hand, per image:
CONV1 = 4 * 8 * 8 * 3 * 3 * 3  # C_out · H_out · W_out · C_in · k · k = 6912 (pad 1 keeps 8×8)
CONV2 = 4 * 4 * 4 * (4 // 2) * 1 * 1  # on the 4×4 pooled map, 2 input channels per group = 128
UP = 4 * 4 * 4 * 2 * 2 * 2  # C_in · H_in · W_in · C_out · k · k = 512 (to 2×8×8)
FC = (2 * 8 * 8) * 10  # 128 inputs · 10 outputs = 1280
TOTAL = CONV1 + CONV2 + UP + FC  # 8832


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.prototxt"
    path.write_text(TINY, encoding="utf-8")
    return path


def test_macs_per_layer_by_hand(tiny):
    macs = prototxt_macs(tiny)
    assert macs.by_layer == {"conv1": CONV1, "conv2": CONV2, "up": UP, "fc": FC}
    assert macs.total == TOTAL and macs.unknown == ()


def test_macs_follow_the_images_size(tiny):
    """The run's images set the size: 16×16 instead of the declared 8×8 is 4× every spatial layer."""
    macs = prototxt_macs(tiny, {"data": (1, 3, 16, 16)})
    assert macs.by_layer["conv1"] == 4 * CONV1 and macs.by_layer["fc"] == 4 * FC


def test_share_of_the_hp_chains(tiny):
    macs = prototxt_macs(tiny)
    chains = [("conv1", ["conv1", "relu1"]), ("pool1", ["pool1"]), ("conv2", ["conv2"]), ("up", ["up"]),
              ("fc", ["fc"])]
    share = mac_share(chains, macs, {"conv1"})
    assert (share.macs_16bit, share.total) == (CONV1, TOTAL)
    assert share.share == pytest.approx(6912 / 8832)
    assert mac_share(chains, macs, {"pool1"}).share == 0.0  # pooling has no MACs
    assert mac_share(chains, macs, [name for name, _ in chains]).share == 1.0
    assert mac_share(chains, macs, {"conv2", "fc"}).to_dict() == {"share": round((128 + 1280) / 8832, 7),
                                                                   "macs_16bit": 1408, "total": 8832}
    # a layer named `_hp` in the prototxt is 16-bit already
    renamed = [("conv1_hp", ["conv1_hp", "relu1"])] + chains[1:]
    macs_renamed = type(macs)({("conv1_hp" if k == "conv1" else k): v for k, v in macs.by_layer.items()})
    assert mac_share(renamed, macs_renamed, ()).macs_16bit == CONV1


def test_the_plan_reports_its_share(tmp_path):
    """On the generated net of the other tests (12 3×3 convolutions of 8 channels on 24×24, a 1×1
    head of 4): conv9 alone is 8·24·24·8·9 of the whole."""
    pytest.importorskip("cv2")
    import numpy as np

    from nnie_lsp.reference.caffe_forward import prepare_inputs
    from nnie_lsp.reference.net import load_net
    from nnie_lsp.reference.preprocess import Preprocessing
    from nnie_lsp.testing.hp_synthetic import DeepNetSpec, write_project
    from nnie_lsp.triage.hp_plan.oracle import HpOracle
    from nnie_lsp.triage.hp_plan.planner import plan_hp

    paths = write_project(tmp_path, DeepNetSpec(depth=12, bottlenecks={9: 100.0}, images=1))
    net = load_net(paths["prototxt"], paths["caffemodel"])
    prep = Preprocessing(norm_type=5, data_scale=0.0078125, mean=np.array([128.0] * 3, np.float32))
    oracle = HpOracle.build(net, [prepare_inputs(net, [str(paths["root"] / "image0.png")], [prep])])
    plan = plan_hp(oracle, 0.99)
    assert plan.layers == ("conv9",)
    conv, first, head = 8 * 24 * 24 * 8 * 9, 8 * 24 * 24 * 3 * 9, 4 * 24 * 24 * 8
    assert (plan.cost.macs_16bit, plan.cost.total) == (conv, first + 11 * conv + head)
    assert plan.curve[0].cost.share == 0.0

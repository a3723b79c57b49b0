"""The `_hp` planner on nets with known answers (``nnie_lsp.testing.hp_synthetic``): a deterministic
stack of convolutions where one chosen convolution carries a BN-style weight outlier, so its 8-bit
quantization flushes its other weights — that layer, and no other, is the bottleneck."""
from __future__ import annotations

import numpy as np
import pytest

from nnie_lsp.reference.caffe_forward import prepare_inputs
from nnie_lsp.reference.net import load_net
from nnie_lsp.reference.preprocess import Preprocessing
from nnie_lsp.testing import hp_strategies as strategies
from nnie_lsp.triage.hp_plan.oracle import HpOracle
from nnie_lsp.triage.hp_plan.planner import PlanError, plan_hp
from nnie_lsp.testing.hp_synthetic import DeepNetSpec, write_project

PREP = Preprocessing(norm_type=5, data_scale=0.0078125, mean=np.array([128.0] * 3, np.float32))


def _oracle(folder, spec: DeepNetSpec) -> HpOracle:
    pytest.importorskip("cv2")
    paths = write_project(folder, spec)
    net = load_net(paths["prototxt"], paths["caffemodel"])
    return HpOracle.build(net, [prepare_inputs(net, [str(p)], [PREP]) for p in sorted(paths["root"].glob("image*.png"))])


@pytest.fixture(scope="module")
def one_bottleneck(tmp_path_factory):
    return _oracle(tmp_path_factory.mktemp("one"), DeepNetSpec(depth=10, bottlenecks={7: 100.0}))


@pytest.fixture(scope="module")
def two_bottlenecks(tmp_path_factory):
    # conv8's outlier is 100x, conv4's 30x: conv8 loses more although the guide reaches conv4 first
    return _oracle(tmp_path_factory.mktemp("two"), DeepNetSpec(depth=10, bottlenecks={4: 30.0, 8: 100.0}))


def test_the_bottleneck_is_ranked_and_picked_first(one_bottleneck):
    plan = plan_hp(one_bottleneck, 0.99)
    assert plan.baseline.similarity < 0.99 <= plan.similarity
    assert plan.ranking[0].layer == "conv7"
    assert plan.ranking[0].gain > 10 * max(r.gain for r in plan.ranking[1:])
    assert plan.layers == ("conv7",) and plan.stopped == "target" and plan.reaches_target
    assert [p.added for p in plan.curve] == [None, "conv7", plan.next_layers()[0].added]
    assert plan.next_layers()[0].similarity > plan.similarity  # the lookahead pick, if the run falls short


def test_a_later_bigger_bottleneck_comes_first_and_the_target_decides_the_size(two_bottlenecks):
    small = plan_hp(two_bottlenecks, 0.99)
    assert small.layers == ("conv8",)
    large = plan_hp(two_bottlenecks, 0.995)
    assert large.layers == ("conv8", "conv4") and large.stopped == "target"
    curve = [p.similarity for p in large.curve]
    assert curve == sorted(curve)  # each pick raised the final similarity
    assert large.curve[1].similarity < 0.995 <= large.curve[2].similarity


def test_budget_stops_the_plan(two_bottlenecks):
    one = plan_hp(two_bottlenecks, 0.995, budget=1)
    assert one.layers == ("conv8",) and one.stopped == "budget" and not one.reaches_target
    assert not one.next_layers()  # no lookahead past the budget
    none = plan_hp(two_bottlenecks, 0.995, budget=0)
    assert none.layers == () and none.stopped == "budget"


def test_target_already_met_or_out_of_reach(two_bottlenecks):
    already = plan_hp(two_bottlenecks, 0.9)
    assert already.layers == () and already.stopped == "already"
    assert two_bottlenecks.score(two_bottlenecks.candidates()).similarity < 1.0
    impossible = plan_hp(two_bottlenecks, 1.0)
    assert not impossible.reachable and not impossible.reaches_target
    assert impossible.stopped in ("no_gain", "exhausted")
    assert any("no `_hp` set reaches it" in note for note in impossible.notes)


def test_bad_target_or_budget(one_bottleneck):
    for target in (0.0, 1.5, -0.2):
        with pytest.raises(PlanError, match="target"):
            plan_hp(one_bottleneck, target)
    with pytest.raises(PlanError, match="budget"):
        plan_hp(one_bottleneck, 0.99, budget=-1)


def test_mapper_runs_of_each_strategy(one_bottleneck, two_bottlenecks):
    """The guide walks from conv1 to the bottleneck, bisection halves the prefixes, ours confirms
    its plan with one run."""
    def mapper_of(oracle):
        return lambda layers: oracle.score(layers).similarity

    order = one_bottleneck.candidates()
    mapper = mapper_of(one_bottleneck)
    guide = strategies.guide(mapper, order, 0.99)
    assert guide.runs == 7 and guide.layers == tuple(order[:7])
    bisection = strategies.bisection(mapper, order, 0.99)
    assert bisection.layers == guide.layers and bisection.runs == 4  # 11 prefixes: 5, 8, 6, 7
    ours = strategies.ours(mapper, lambda aim: plan_hp(one_bottleneck, aim), 0.99)
    assert ours.runs == 1 and ours.layers == ("conv7",)
    two = strategies.ours(mapper_of(two_bottlenecks), lambda aim: plan_hp(two_bottlenecks, aim), 0.995)
    assert two.runs == 1 and two.layers == ("conv8", "conv4")
    assert strategies.guide(mapper_of(two_bottlenecks), two_bottlenecks.candidates(), 0.995).runs == 8


def test_ours_aims_higher_when_the_mapper_gives_less(one_bottleneck):
    """A mapper that gives 0.006 less than the emulation on every set: the known 8-bit run shows
    it, the plan aims 0.006 higher (conv7 alone no longer does) and still needs one run."""
    def pessimistic(layers):
        return one_bottleneck.score(layers).similarity - 0.006

    ours = strategies.ours(pessimistic, lambda aim: plan_hp(one_bottleneck, aim, lookahead=3), 0.99)
    assert ours.reached and ours.runs == 1 and ours.similarity >= 0.99
    assert len(ours.layers) > 1 and ours.layers[0] == "conv7"

"""The `_hp` planner's oracle IS the emulation: every evaluation of a `_hp` set equals
``reference.emulate.emulate`` / ``emulate_images`` with the same ``hp_layers`` (same chains, same
CPU-side cut, same clips over several images), even though it restarts runs half-way."""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from nnie_lsp.reference.caffe_forward import prepare_inputs
from nnie_lsp.emulation.emulate import EmulationOptions, emulate, emulate_images
from nnie_lsp.reference.net import load_net
from nnie_lsp.reference.preprocess import load_image
from nnie_lsp.testing.scenarios import MTCNN_PREP
from nnie_lsp.triage.hp_plan.oracle import HpOracle
from nnie_lsp.testing.hp_synthetic import DeepNetSpec, write_project
from nnie_lsp.triage.measure.metrics import cosine

HERE = Path(__file__).resolve()
DET1 = HERE.parents[2] / "data" / "triage" / "mtcnn"  # real MTCNN P-Net weights, 48x48 input
IMAGE = HERE.parents[3] / "examples" / "triage" / "test1.jpg"


@pytest.fixture(scope="module")
def det1():
    pytest.importorskip("cv2")
    net = load_net(DET1 / "det1.prototxt", DET1 / "det1.caffemodel")
    raw = load_image(IMAGE, (3, 48, 48), MTCNN_PREP)
    second = np.ascontiguousarray(raw[:, ::-1, :]) * 0.7 + 20  # a darker, flipped second image
    images = [prepare_inputs(net, [raw], [MTCNN_PREP]), prepare_inputs(net, [second], [MTCNN_PREP])]
    return net, images


@pytest.fixture(scope="module")
def deep(tmp_path_factory):
    pytest.importorskip("cv2")
    spec = DeepNetSpec(depth=8, channels=6, size=16, bottlenecks={5: 100.0}, images=3)
    paths = write_project(tmp_path_factory.mktemp("deep"), spec)
    from nnie_lsp.reference.preprocess import Preprocessing

    prep = Preprocessing(norm_type=5, data_scale=0.0078125, mean=np.array([128.0] * 3, np.float32))
    net = load_net(paths["prototxt"], paths["caffemodel"])
    images = [prepare_inputs(net, [str(p)], [prep]) for p in sorted(paths["root"].glob("image*.png"))]
    return net, images


def _sets(candidates: list[str], count: int, seed: int) -> list[frozenset[str]]:
    rng = random.Random(seed)
    sets = [frozenset(), frozenset(candidates)] + [frozenset({c}) for c in candidates]
    sets += [frozenset(rng.sample(candidates, rng.randint(2, len(candidates)))) for _ in range(count)]
    rng.shuffle(sets)  # evaluations restart from whatever ran before
    return sets


def _assert_same_as_emulation(net, images, oracle: HpOracle, hp: frozenset[str]) -> None:
    runs = emulate_images(net, images, EmulationOptions(hp_layers=hp))
    got = oracle.blobs(hp)
    for image, run in enumerate(runs):
        for out in run.outputs:
            np.testing.assert_array_equal(got[image][out.top], out.value, err_msg=f"{sorted(hp)} {out.top}")
    score = oracle.score(hp)
    floats = emulate_images(net, images, EmulationOptions(quantize_weights=False, quantize_activations=False))
    for output in score.outputs:
        expected = []
        for image, (run, float_run) in enumerate(zip(runs, floats)):
            # the float reference is the unrounded blob: compare with the emulation's 20.12 output
            reference = oracle.float_blobs[image][output.top]
            np.testing.assert_allclose(reference, float_run.by_top()[output.top], atol=1 / 4096)
            expected.append(cosine(reference, run.by_top()[output.top]))
        assert output.per_image == pytest.approx(tuple(expected), abs=1e-12)


def test_every_set_equals_the_emulation_of_one_image(det1):
    net, images = det1
    oracle = HpOracle.build(net, images[:1])
    for hp in _sets(oracle.candidates(), 6, seed=1):
        run = emulate(net, images[0], EmulationOptions(hp_layers=hp))
        got = oracle.blobs(hp)[0]
        for out in run.outputs:
            np.testing.assert_array_equal(got[out.top], out.value, err_msg=f"{sorted(hp)} {out.top}")


def test_every_set_equals_the_emulation_of_several_images(det1, deep):
    for net, images in (det1, deep):
        oracle = HpOracle.build(net, images)
        for hp in _sets(oracle.candidates(), 4, seed=2):
            _assert_same_as_emulation(net, images, oracle, hp)


def test_a_blob_read_at_two_precisions(det1):
    """conv3's output feeds conv4-1 and conv4-2: `_hp` on conv4-1 must not change what conv4-2 reads
    (the emulation's quantization cache is per bit width)."""
    net, images = det1
    plain = emulate(net, images[0]).by_top()
    mixed = emulate(net, images[0], EmulationOptions(hp_layers=frozenset({"conv4-1"}))).by_top()
    np.testing.assert_array_equal(mixed["conv4-2"], plain["conv4-2"])
    assert not np.array_equal(mixed["conv4-1"], plain["conv4-1"])
    oracle = HpOracle.build(net, images[:1])
    assert oracle.score({"conv4-1"}).outputs[0].per_image == oracle.score(()).outputs[0].per_image  # conv4-2


def test_candidates_final_outputs_and_cache(det1):
    net, images = det1
    oracle = HpOracle.build(net, images[:1])
    assert oracle.candidates() == ["conv1", "pool1", "conv2", "conv3", "conv4-1", "conv4-2", "prob1"]
    assert oracle.final_tops == ["conv4-2", "prob1"]  # the tops no NNIE layer reads
    before = oracle.evaluations
    first = oracle.score({"conv2"})
    assert oracle.score(["conv2"]) is first and oracle.evaluations == before + 1  # a set is emulated once
    assert 0.99 < oracle.score(()).similarity < oracle.score(oracle.candidates()).similarity <= 1.0


def test_cpu_side_layers_are_no_candidates(tmp_path):
    """A DetectionOutput-like tail runs on the CPU: neither a candidate nor a final output; what
    feeds it is the final output of the NNIE segment."""
    pytest.importorskip("cv2")
    spec = DeepNetSpec(depth=3, channels=4, size=8, bottlenecks={}, images=1)
    paths = write_project(tmp_path, spec)
    text = paths["prototxt"].read_text()
    text += 'layer { name: "tail_cpu" type: "ReLU" bottom: "head" top: "tail" }\n'
    paths["prototxt"].write_text(text)
    net = load_net(paths["prototxt"], paths["caffemodel"])
    from nnie_lsp.reference.preprocess import Preprocessing

    image = prepare_inputs(net, [str(paths["root"] / "image0.png")], [Preprocessing()])
    oracle = HpOracle.build(net, [image])
    assert "tail_cpu" not in oracle.candidates() and oracle.final_tops == ["head"]
    assert [name for name, _ in oracle.skipped] == ["tail_cpu"]


# ---------------------------------------------------------------- calibration over the list, other clips

def test_calibration_images_and_clip_offsets_equal_the_emulation(deep):
    """The planner's oracle scores the last image with clips over the whole list (the other images'
    float maxima) and, corrected, with moved clips: every set still equals ``emulate_images`` with
    the same ``calibration_max`` and ``clip_offsets``."""
    from nnie_lsp.emulation.emulate import float_read_maxima
    from nnie_lsp.emulation.quant import seeded_clip_offsets

    net, images = deep
    maxima = float_read_maxima(net, images[:-1])
    alone = HpOracle.build(net, images[-1:])
    listed = HpOracle.build(net, images[-1:], calibration=images[:-1])
    assert listed.calibration_images == 2 and listed.calibration_max == maxima
    # the list's clips cover the other images: never below the last image's own
    own, over_list = alone.clips(()), listed.clips(())
    assert over_list.keys() == own.keys() and all(over_list[k] >= own[k] for k in own)
    assert any(over_list[k] > own[k] for k in own)
    offsets = seeded_clip_offsets(sorted({t for layer in net.layers for t in layer.tops}), seed=7)
    shifted = listed.with_clip_offsets(offsets)
    assert listed.with_clip_offsets(offsets) is shifted  # one oracle per set of offsets
    for oracle, options in ((listed, {}), (shifted, {"clip_offsets": offsets})):
        for hp in _sets(oracle.candidates(), 3, seed=4):
            (run,) = emulate_images(net, images[-1:], EmulationOptions(hp_layers=hp, calibration_max=maxima, **options))
            got = oracle.blobs(hp)[0]
            for out in run.outputs:
                np.testing.assert_array_equal(got[out.top], out.value, err_msg=f"{sorted(hp)} {out.top}")


def test_clip_mismatch_mode_is_deterministic(deep):
    """``seeded_clip_offsets``: ±1…3 steps of 2^(1/16) per blob and width, the same for the same
    seed whatever the order or the other blobs, another draw for another seed; the emulation's
    clips move by exactly those steps."""
    from nnie_lsp.emulation.quant import seeded_clip_offsets

    net, images = deep
    blobs = sorted({t for layer in net.layers for t in layer.tops})
    first = seeded_clip_offsets(blobs, seed=11)
    assert first == seeded_clip_offsets(list(reversed(blobs)), seed=11)
    assert {k: v for k, v in first.items() if k[0] in blobs[:3]} == seeded_clip_offsets(blobs[:3], seed=11)
    assert set(first) == {(b, w) for b in blobs for w in (8, 16)}
    assert {round(abs(v) * 16) for v in first.values()} <= {1, 2, 3}
    assert {v > 0 for v in first.values()} == {True, False}
    assert first != seeded_clip_offsets(blobs, seed=12)
    assert seeded_clip_offsets(blobs, seed=11, steps=(2, 2), widths=(8,)).keys() == {(b, 8) for b in blobs}
    oracle = HpOracle.build(net, images)
    eight_bit = {k: v for k, v in first.items() if k[1] == 8}
    moved = oracle.with_clip_offsets(eight_bit)
    # the first quantized read (conv2 reads conv1) sees the same values either way: its clip moves
    # by exactly the offset
    first_read = ("conv1", 8)
    assert first_read in oracle.clips(())
    ratio = np.log2(moved.clips(())[first_read] / oracle.clips(())[first_read]) * 16
    assert ratio == pytest.approx(eight_bit[first_read] * 16)
    again = oracle.with_clip_offsets(dict(seeded_clip_offsets(blobs, seed=11, widths=(8,))))
    assert again is moved and again.score(()).similarity == moved.score(()).similarity

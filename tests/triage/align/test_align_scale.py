"""The alignment at scale: thousands of tensors per side are paired right (not timed: the time is
benchmarks/bench_triage.py's scale row), and the fast value matching gives exactly the pairs of the
all-pairs greedy it replaces."""

from __future__ import annotations

import numpy as np
import pytest

from nnie_lsp.readers.dumpio.writers import write_inst, write_mapper_quant, write_ruyi_caffe
from nnie_lsp.readers.dumpio.scan import scan_dumps
from nnie_lsp.triage.align import value_match
from nnie_lsp.triage.align.common import sample_cosine, sample_cosines
from nnie_lsp.triage.align.driver import align
from fake_graphs import FakeGraph

SHAPES = ((2, 3, 3), (4, 2, 2), (3, 4, 4), (8,))


def _brute_greedy(score: np.ndarray) -> list[tuple]:
    """The greedy the values pass always had: every (score, i, j) high first, one-to-one; the
    runner-up is the best other score of the row and the column."""
    rows, cols = score.shape
    taken_s, taken_r, out = set(), set(), []
    for sc, i, j in sorted(((score[i, j], i, j) for i in range(rows) for j in range(cols)), reverse=True):
        if i in taken_s or j in taken_r:
            continue
        taken_s.add(i)
        taken_r.add(j)
        others = [score[i, k] for k in range(cols) if k != j] + [score[k, j] for k in range(rows) if k != i]
        out.append((i, j, float(sc), float(max(others)) if others else None))
    return out


def test_sample_cosines_is_sample_cosine_of_every_pair():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(7, 20)), rng.normal(size=(5, 20))
    a[1] = 0
    b[2] = 0
    a[3, 4] = np.nan
    b[4, 0] = np.inf
    a[5] *= 1e-300
    b[0] *= 1e300
    want = np.array([[sample_cosine(x, y) for y in b] for x in a])
    assert np.allclose(sample_cosines(a, b), want, atol=1e-12, rtol=0)


@pytest.mark.parametrize("seed", range(4))
def test_the_heap_greedy_gives_the_pairs_of_the_all_pairs_greedy(seed, monkeypatch):
    """Small integer samples (many ties, zero rows), small blocks and short kept lists: every row
    re-scored, ties broken as before, the same runner-ups."""
    rng = np.random.default_rng(seed)
    for _ in range(150):
        rows, cols, m = (int(x) for x in rng.integers(1, 18, 3))
        monkeypatch.setattr(value_match, "KEEP", int(rng.integers(1, 4)))
        monkeypatch.setattr(value_match, "MAX_TIED", int(rng.integers(0, 3)))
        monkeypatch.setattr(value_match, "BLOCK_ENTRIES", int(rng.integers(1, 40)))
        sims = rng.integers(-2, 3, size=(rows, m)).astype(float)
        refs = rng.integers(-2, 3, size=(cols, m)).astype(float)
        score = np.round(np.array([[sample_cosine(r, s) for r in refs] for s in sims]), value_match.DIGITS)
        got = [(x.sim, x.ref, x.score, x.runner_up)
               for x in value_match.greedy_matches(value_match.Scores(sims, {}, refs, [None] * cols))]
        assert got == _brute_greedy(score)


def test_the_hwc_reading_wins_by_the_margin_only():
    rng = np.random.default_rng(3)
    chw = (2, 3, 4)
    ref = rng.normal(size=(3, 24))
    stored = ref + rng.normal(0, 0.01, ref.shape)
    # sim 0 holds ref 0 in (H, W, C) order, sim 1 ref 1 as stored, sim 2 ref 2 in (H, W, C)
    hwc = [ref[k].reshape(chw).transpose(1, 2, 0).reshape(-1) for k in range(3)]
    sims = np.array([hwc[0], stored[1], hwc[2]])
    from nnie_lsp.triage.align.common import hwc_positions

    permuted = {chw: sims[:, hwc_positions(np.arange(24), chw)]}
    matches = value_match.greedy_matches(value_match.Scores(sims, permuted, ref, [chw, chw, None]))
    got = {(m.sim, m.ref): m.hwc for m in matches}
    assert got[(0, 0)] is True and got[(1, 1)] is False
    assert (2, 2) in got and got[(2, 2)] is False   # ref 2 has no (C, H, W): only read as stored


def _chain_graph(n: int) -> FakeGraph:
    layers = [("data", "Input", [], ["data"])]
    shapes = {"data": (1,) + SHAPES[0]}
    for k in range(n):
        layers.append((f"conv{k}", "Convolution", [f"b{k - 1}" if k else "data"], [f"b{k}"]))
        shapes[f"b{k}"] = (1,) + SHAPES[k % len(SHAPES)]
    return FakeGraph(layers, ["data"], shapes)


def test_two_thousand_named_tensors_per_side_pair_by_name(tmp_path):
    """1,000 layers of the prototxt and 1,000 dumps named outside it on each side (plus one of
    each side alone, of different sizes): every pair by its name, none by values, the strays
    listed unmatched."""
    rng = np.random.default_rng(11)
    graph = _chain_graph(1000)
    ref, sim = tmp_path / "ref", tmp_path / "sim"
    for k in range(1000):
        a = rng.normal(size=SHAPES[k % len(SHAPES)])
        write_ruyi_caffe(ref, f"b{k}", a)
        write_mapper_quant(sim, f"conv{k}", a + rng.normal(0, 0.01, a.shape), 0)
    for k in range(1000):
        a = rng.normal(size=SHAPES[k % len(SHAPES)])
        write_ruyi_caffe(ref, f"extra_{k}", a)
        write_mapper_quant(sim, f"extra_{k}", a + rng.normal(0, 0.01, a.shape), 0)
    write_ruyi_caffe(ref, "only_caffe", rng.normal(size=SHAPES[0]))
    write_mapper_quant(sim, "only_nnie", rng.normal(size=SHAPES[1]), 0)
    al = align(scan_dumps(str(ref)), scan_dumps(str(sim)), graph)
    assert len(al.pairs) == 2000
    for p in al.pairs:
        if p.sim.key.startswith("conv"):
            assert p.blob == "b" + p.sim.key[4:] and p.matched_by == "graph", (p.sim.key, p.blob)
        else:
            assert p.ref.key == p.sim.key and p.matched_by == "name", (p.sim.key, p.ref.key)
            assert p.confidence <= 0.8 and "not a layer or blob of the prototxt" in p.note
    assert [t.key for t in al.unmatched_ref] == ["only_caffe"]
    assert [t.key for t in al.unmatched_sim] == ["only_nnie"]
    # network order: the prototxt's layers first, in order
    assert [p.blob for p in al.pairs[:3]] == ["b0", "b1", "b2"]


def test_two_thousand_nameless_tensors_pair_by_values(tmp_path):
    """Instruction-simulator dumps with shuffled node numbers: each of 2,000 finds its Caffe blob
    by its values, in groups of 500 tensors of one size."""
    rng = np.random.default_rng(12)
    ref, sim = tmp_path / "ref", tmp_path / "inst"
    nodes = rng.permutation(np.arange(10, 2010))
    want = {}
    for k in range(2000):
        a = rng.normal(size=SHAPES[k % len(SHAPES)])
        write_ruyi_caffe(ref, f"blob{k}", a)
        write_inst(sim, 0, int(nodes[k]), a + rng.normal(0, 0.01, a.shape))
        want[int(nodes[k])] = f"blob{k}"
    al = align(scan_dumps(str(ref)), scan_dumps(str(sim)))
    assert {p.sim.node: p.ref.key for p in al.pairs} == want
    assert all(p.matched_by == "values" and p.confidence >= 0.5 for p in al.pairs)
    assert al.unmatched_ref == () and al.unmatched_sim == ()

"""Alignment on a small realistic net: a numpy forward pass of a conv / relu(in-place) / pool /
concat / upsample / BN+Scale / fc net, dumped in every real format with faults of alignment kind."""
# ruff: noqa: E402
from __future__ import annotations

import os
from types import SimpleNamespace

import numpy as np
import pytest

from nnie_lsp.readers.dumpio.writers import write_inst, write_mapper_input, write_mapper_quant, write_npz, write_ruyi_caffe
from nnie_lsp.readers.dumpio.scan import scan_dumps
from nnie_lsp.readers.mapper.nettree import parse_net_tree
from nnie_lsp.testing.shared_files import corpus_dir
from nnie_lsp.triage.align.driver import iter_pairs, load_pair
from nnie_lsp.triage.measure.metrics import compare_arrays
from nnie_lsp.triage.progress import Reporter
from nnie_lsp.triage.align.driver import align
from fake_graphs import FakeGraph


def conv(x, w, b, pad):
    c, h, wd = x.shape
    o, _, k, _ = w.shape
    xp = np.pad(x, ((0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - k + 1, wd + 2 * pad - k + 1
    out = np.zeros((o, oh, ow))
    for i in range(k):
        for j in range(k):
            out += np.einsum("oc,chw->ohw", w[:, :, i, j], xp[:, i : i + oh, j : j + ow])
    return out + b[:, None, None]


def maxpool2(x):
    c, h, w = x.shape
    return x.reshape(c, h // 2, 2, w // 2, 2).max(axis=(2, 4))


LAYERS = [
    # name, type, bottoms, tops
    ("data", "Input", [], ["data"]),
    ("conv1", "Convolution", ["data"], ["conv1"]),
    ("relu1", "ReLU", ["conv1"], ["conv1"]),
    ("pool1", "Pooling", ["conv1"], ["pool1"]),
    ("conv2", "Convolution", ["pool1"], ["conv2"]),
    ("relu2", "ReLU", ["conv2"], ["conv2"]),
    ("conv3", "Convolution", ["conv2"], ["conv3"]),
    ("concat", "Concat", ["pool1", "conv3"], ["concat"]),
    ("up", "Upsample", ["concat"], ["up"]),
    ("conv4", "Convolution", ["up"], ["conv4"]),
    ("bn4", "BatchNorm", ["conv4"], ["bn4"]),
    ("sc4", "Scale", ["bn4"], ["bn4"]),
    ("fc", "InnerProduct", ["bn4"], ["fc"]),
]

SHAPES = {
    "data": (1, 3, 8, 8), "conv1": (1, 4, 8, 8), "pool1": (1, 4, 4, 4), "conv2": (1, 8, 4, 4),
    "conv3": (1, 8, 4, 4), "concat": (1, 12, 4, 4), "up": (1, 12, 8, 8), "conv4": (1, 6, 8, 8),
    "bn4": (1, 6, 8, 8), "fc": (1, 10),
}


class TinyGraph(FakeGraph):
    def __init__(self):
        super().__init__(LAYERS, ["data"], SHAPES)


def forward(seed=0):
    """Returns (per-layer outputs, per-blob final values)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 1, (3, 8, 8))
    P = {
        "conv1": (rng.normal(0, 0.5, (4, 3, 3, 3)), rng.normal(0, 0.1, 4)),
        "conv2": (rng.normal(0, 0.3, (8, 4, 3, 3)), rng.normal(0, 0.1, 8)),
        "conv3": (rng.normal(0, 0.4, (8, 8, 1, 1)), rng.normal(0, 0.1, 8)),
        "conv4": (rng.normal(0, 0.4, (6, 12, 1, 1)), rng.normal(0, 0.1, 6)),
        "fc": (rng.normal(0, 0.1, (10, 6 * 8 * 8)), rng.normal(0, 0.1, 10)),
    }
    L = {}
    L["data"] = x
    L["conv1"] = conv(x, *P["conv1"], 1)
    L["relu1"] = np.maximum(L["conv1"], 0)
    L["pool1"] = maxpool2(L["relu1"])
    L["conv2"] = conv(L["pool1"], *P["conv2"], 1)
    L["relu2"] = np.maximum(L["conv2"], 0)
    L["conv3"] = conv(L["relu2"], *P["conv3"], 0)
    L["concat"] = np.concatenate([L["pool1"], L["conv3"]], axis=0)
    L["up"] = L["concat"].repeat(2, axis=1).repeat(2, axis=2)
    L["conv4"] = conv(L["up"], *P["conv4"], 0)
    mean, var = rng.normal(0, 0.2, 6), rng.uniform(0.5, 2, 6)
    L["bn4"] = (L["conv4"] - mean[:, None, None]) / np.sqrt(var[:, None, None] + 1e-5)
    g, beta = rng.uniform(0.5, 1.5, 6), rng.normal(0, 0.2, 6)
    L["sc4"] = L["bn4"] * g[:, None, None] + beta[:, None, None]
    L["fc"] = P["fc"][0] @ L["sc4"].reshape(-1) + P["fc"][1]
    blobs = {
        "data": L["data"], "conv1": L["relu1"], "pool1": L["pool1"], "conv2": L["relu2"], "conv3": L["conv3"],
        "concat": L["concat"], "up": L["up"], "conv4": L["conv4"], "bn4": L["sc4"], "fc": L["fc"],
    }
    return L, blobs


# ------------------------------------------------------------------------------------------
def _noise(a, rng, rel=1e-3):
    return a + rng.normal(0, rel * (np.abs(a).max() + 1e-9), np.shape(a))


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    L, blobs = forward()
    root = tmp_path_factory.mktemp("dumps")
    ref = root / "caffe"
    for b, v in blobs.items():
        write_ruyi_caffe(ref, b, v)
    # mapper_quant: per layer; relu2 has no dump (fused), bn4/sc4 folded into conv4
    rng = np.random.default_rng(1)
    mq = root / "sim" / "mapper_quant"
    per_layer = {
        "data": L["data"], "conv1": L["conv1"], "relu1": L["relu1"], "pool1": L["pool1"], "conv2": L["relu2"],
        "conv3": L["conv3"], "concat": L["concat"], "conv4": L["sc4"], "fc": L["fc"],
    }
    for i, (n, v) in enumerate(per_layer.items()):
        write_mapper_quant(mq, n, _noise(v, rng), i, dims_order="WHC" if n == "conv3" else "CHW")
    # Upsample behind a mapper Permute: values stored (H, W, C)
    up_hwc = _noise(L["up"], rng).transpose(1, 2, 0)
    write_mapper_quant(mq, "up", up_hwc.reshape(-1), 8)
    os.rename(mq / "up_output8_768_quant.linear.hex", mq / "up_output8_12_8_8_quant.linear.hex")
    write_mapper_quant(mq, "mystery_layer", rng.normal(size=(5, 3, 3)), 99)
    write_mapper_input(mq, "conv1", L["data"], 0)
    # instruction simulator: shuffled node ids, no names
    inst = root / "inst"
    order = ["data", "conv1", "pool1", "conv2", "conv3", "concat", "up", "conv4", "bn4", "fc"]
    node_ids = [907, 12, 455, 3, 38, 771, 1604, 250, 91, 3605]
    for b, node in zip(order, node_ids):
        if b == "conv4":
            continue  # folded: no own node
        write_inst(inst, 0, node, _noise(blobs[b], rng))
    write_inst(inst, 1, 5000, rng.normal(size=(7,)))  # extra with a size nothing has
    return SimpleNamespace(root=root, ref=str(ref), mq=str(root / "sim"), inst=str(inst), L=L, blobs=blobs,
                           inst_ids=dict(zip(order, node_ids)))


def _by_sim(al):
    return {p.sim.raw_name: p for p in al.pairs}


def test_mapper_quant_alignment_through_graph(net):
    al = align(scan_dumps(net.ref), scan_dumps(net.mq), TinyGraph())
    P = _by_sim(al)
    # in-place chain: relu1 is the last writer of blob conv1 -> exact; conv1 is an intermediate
    assert P["relu1"].blob == "conv1" and P["relu1"].matched_by == "graph" and P["relu1"].confidence == 1.0
    assert "inplace-intermediate" in P["conv1"].flags and P["conv1"].confidence < 0.9
    assert "relu1" in P["conv1"].note
    # relu2 has no dump: fused into conv2
    assert "fused-chain" in P["conv2"].flags and P["conv2"].blob == "conv2"
    # BN + Scale folded into conv4 -> compared with blob bn4
    assert P["conv4"].blob == "bn4" and "folded-bn" in P["conv4"].flags
    # W_H_C name dims
    assert "whc-name" in P["conv3"].flags
    # permuted Upsample detected
    assert P["up"].layout == "HWC" and "permute-layout" in P["up"].flags and "Upsample" in P["up"].note
    # unmatched
    assert [t.raw_name for t in al.unmatched_sim] == ["mystery_layer"]
    assert {t.raw_name for t in al.unmatched_ref} == {"conv4"}
    # network order
    names = [p.sim.raw_name for p in al.pairs]
    assert names.index("data") < names.index("conv1") < names.index("relu1") < names.index("pool1") < names.index("up") < names.index("fc")
    assert [p.order for p in al.pairs] == list(range(len(al.pairs)))
    # every pair compares well once loaded in the decided layout (except the in-place intermediate)
    for p, r, s in iter_pairs(al):
        m = compare_arrays(r, s)
        if "inplace-intermediate" in p.flags:
            assert m.cosine < 0.99
        else:
            assert m.cosine > 0.999, (p.name, m.cosine)


def test_inst_dumps_aligned_by_shape_and_values(net):
    al = align(scan_dumps(net.ref), scan_dumps(net.inst), TinyGraph())
    got = {p.sim.node: p.blob for p in al.pairs}
    want = {node: b for b, node in net.inst_ids.items() if b != "conv4"}
    assert got == want
    P = {p.blob: p for p in al.pairs}
    # conv2 and conv3 both hold 128 values: told apart by values
    assert P["conv2"].matched_by == "values" and P["conv3"].matched_by == "values"
    assert P["conv2"].confidence >= 0.5
    assert P["fc"].matched_by in ("shape-order", "values")
    assert P["up"].layout == "CHW"  # inst dumps are NCHW
    assert [t.node for t in al.unmatched_sim] == [5000]
    assert any("do not follow the network order" in n for n in al.notes)
    for p, r, s in iter_pairs(al):
        assert compare_arrays(r, s).cosine > 0.999


def test_inst_without_value_check_is_a_flagged_guess(net):
    al = align(scan_dumps(net.ref), scan_dumps(net.inst), TinyGraph(), value_check=False)
    P = {p.sim.node: p for p in al.pairs}
    same = [P[net.inst_ids["conv2"]], P[net.inst_ids["conv3"]]]
    for p in same:
        assert "index-guess" in p.flags and p.confidence < 0.5 and "position" in p.note
    assert P[net.inst_ids["fc"]].confidence >= 0.5  # unique size


def test_permuted_sim_is_found_by_values_for_unnamed_dumps(net, tmp_path):
    rng = np.random.default_rng(3)
    write_inst(tmp_path, 0, 7, _noise(net.blobs["up"], rng).transpose(1, 2, 0))
    write_inst(tmp_path, 0, 8, _noise(net.blobs["concat"], rng))
    al = align(scan_dumps(net.ref), scan_dumps(str(tmp_path)), TinyGraph())
    P = {p.sim.node: p for p in al.pairs}
    assert P[7].blob == "up" and P[7].layout == "HWC"
    r, s, note = load_pair(P[7])
    assert compare_arrays(r, s).cosine > 0.999 and "transposed" in note


def test_no_graph_name_only_and_loose_names(net, tmp_path):
    rng = np.random.default_rng(4)
    sim = tmp_path / "npz"
    write_npz(sim / "out.npz", {"conv3_hp": _noise(net.blobs["conv3"], rng), "pool1": _noise(net.blobs["pool1"], rng),
                                   "nothing": np.zeros(3)})
    al = align(scan_dumps(net.ref), scan_dumps(str(sim / "out.npz")))
    P = {p.sim.raw_name: p for p in al.pairs}
    assert P["conv3_hp"].blob == "conv3" and P["pool1"].blob == "pool1"
    assert all(p.matched_by == "name" for p in al.pairs)
    assert [t.raw_name for t in al.unmatched_sim] == ["nothing"]
    assert any("no prototxt" in n for n in al.notes)


def test_name_match_with_wrong_size_is_not_paired(net, tmp_path):
    write_mapper_quant(tmp_path, "pool1", np.ones((4, 2, 2)), 3)
    al = align(scan_dumps(net.ref), scan_dumps(str(tmp_path)), TinyGraph())
    assert al.pairs == () and len(al.unmatched_sim) == 1
    assert any("not paired" in n for n in al.notes)


def test_dot_maps_rewritten_nodes(net, tmp_path):
    """SPP-like rewrite: the mapper replaced 'concat' by its own node 'concat_rw' (dot shows it
    feeding 'up'); instruction node numbers in the dot name the layers."""
    rng = np.random.default_rng(5)
    write_mapper_quant(tmp_path, "concat_rw", _noise(net.blobs["concat"], rng), 0)
    write_mapper_quant(tmp_path, "spp_pool_a", rng.normal(size=(3, 2, 2)), 1)
    write_inst(tmp_path, 0, 77, _noise(net.blobs["pool1"], rng))
    dot = parse_net_tree(
        'digraph net { n1 [label="type name: Pooling\\nname: pool1 id: 77"]; concat_rw [label="name: concat_rw"]; '
        'up [label="name: up\\nmergedOps: Permute;"]; spp_pool_a -> concat_rw -> up; n1 -> concat_rw }'
    )
    al = align(scan_dumps(net.ref), scan_dumps(str(tmp_path)), TinyGraph(), dot=dot)
    P = {p.sim.raw_name: p for p in al.pairs}
    assert P["concat_rw"].blob == "concat" and P["concat_rw"].matched_by == "dot"
    assert P["seg0_layer77"].blob == "pool1" and P["seg0_layer77"].matched_by == "dot"
    assert [t.raw_name for t in al.unmatched_sim] == ["spp_pool_a"]
    assert any("cnn_net_tree.dot used" in n for n in al.notes)


def test_batch_items_and_duplicate_reference(net, tmp_path):
    ref = tmp_path / "ref"
    write_ruyi_caffe(ref, "pool1", net.blobs["pool1"], n=0)
    write_ruyi_caffe(ref, "pool1", net.blobs["pool1"] * 2, n=1)
    write_mapper_quant(tmp_path / "sim", "pool1", net.blobs["pool1"], 0)
    al = align(scan_dumps(str(ref)), scan_dumps(str(tmp_path / "sim")), TinyGraph())
    assert len(al.pairs) == 1 and al.pairs[0].ref.index == 0
    assert [t.index for t in al.unmatched_ref] == [1]
    assert any("batch items" in n for n in al.notes)


def test_position_prefixed_reference_dumps_found_through_layer_names(tmp_path):
    """A public C++ dump program names Caffe dumps ``layer<i>_<layer>_output0_...``: the layer name
    after the prefix leads to the blob the layer writes, also when the top is named differently."""
    graph = FakeGraph(
        [("conv_a", "Convolution", ["data"], ["feat"]), ("pool", "Pooling", ["feat"], ["pooled"])],
        ["data"], {"data": (1, 2, 4, 4), "feat": (1, 3, 4, 4), "pooled": (1, 3, 2, 2)})
    rng = np.random.default_rng(8)
    feat, pooled = rng.normal(size=(3, 4, 4)), rng.normal(size=(3, 2, 2))
    write_ruyi_caffe(tmp_path / "ref", "layer1_conv_a", feat)
    write_ruyi_caffe(tmp_path / "ref", "layer2_pool", pooled)
    write_mapper_quant(tmp_path / "sim", "conv_a", _noise(feat, rng), 0)
    write_mapper_quant(tmp_path / "sim", "pool", _noise(pooled, rng), 1)
    al = align(scan_dumps(str(tmp_path / "ref")), scan_dumps(str(tmp_path / "sim")), graph)
    assert {p.sim.raw_name: p.blob for p in al.pairs} == {"conv_a": "feat", "pool": "pooled"}
    assert al.unmatched_ref == () and al.unmatched_sim == ()


# ------------------------------------------------------------------------------------------
# the passes one by one (explicit inputs and outputs)
def _passes_setup(net, sim_dir):
    from nnie_lsp.triage.align.common import ReferenceTable

    graph = TinyGraph()
    ref = scan_dumps(net.ref)
    refs = ReferenceTable.build([t for t in ref.tensors if t.role == "output"], graph)
    sims = [t for t in scan_dumps(sim_dir).tensors if t.role == "output"]
    return graph, refs, sims


def test_name_pass_pairs_named_dumps_and_leaves_the_rest(net):
    from nnie_lsp.triage.align.names import NamePass

    graph, refs, sims = _passes_setup(net, net.mq)
    result = NamePass(graph, refs).run(sims)
    assert {d.sim.raw_name for d in result.drafts} == {"data", "conv1", "relu1", "pool1", "conv2", "conv3", "concat",
                                                       "conv4", "up", "fc"}
    assert [t.raw_name for t in result.pending] == ["mystery_layer"]
    by_sim = {d.sim.raw_name: d for d in result.drafts}
    assert by_sim["conv4"].blob == "bn4" and by_sim["conv4"].matched_by == "graph"
    assert "inplace-intermediate" in by_sim["conv1"].flags
    # unnamed instruction-simulator dumps are not the name pass's business
    _, _, inst = _passes_setup(net, net.inst)
    left = NamePass(graph, refs).run(inst)
    assert left.drafts == [] and len(left.pending) == len(inst)


def test_dot_pass_uses_node_numbers(net):
    from nnie_lsp.triage.align.dot_nodes import DotPass

    graph, refs, sims = _passes_setup(net, net.inst)
    pool_node = net.inst_ids["pool1"]
    dot = parse_net_tree(f'digraph g {{ n{pool_node} [label="name: pool1 id: {pool_node}"]; }}')
    result = DotPass(dot, graph, refs).run(sims)
    assert [(d.sim.node, d.blob, d.matched_by, d.confidence) for d in result.drafts] == [(pool_node, "pool1", "dot", 0.8)]
    assert len(result.pending) == len(sims) - 1
    assert result.notes and "cnn_net_tree.dot used" in result.notes[-1]


def test_value_pass_and_layout_pass(net):
    from nnie_lsp.triage.align.values import LayoutPass, ValuePass

    graph, refs, sims = _passes_setup(net, net.inst)
    free = list(refs.for_blob.values())
    result = ValuePass(graph, refs, value_check=True).run(sims, free)
    got = {d.sim.node: d.blob for d in result.drafts}
    assert got == {node: b for b, node in net.inst_ids.items() if b != "conv4"}
    assert [t.node for t in result.pending] == [5000]
    assert all(d.matched_by in ("values", "shape-order") and d.value_cosine > 0.99 for d in result.drafts)
    seen = []

    class Seen(Reporter):
        silent = False

        def step(self, stage, done, total, item=""):
            seen.append(done)

    pairs = LayoutPass(graph, value_check=True).run(result.drafts, progress=Seen())
    assert len(pairs) == len(result.drafts) and seen[-1] == len(pairs)
    assert all(p.layout == "CHW" for p in pairs)


def test_value_pass_tries_hwc_only_with_dims_of_the_right_size(net, tmp_path):
    """A reference tensor whose blob (through its name) has another size than its file: the
    (H, W, C) reading uses the dims that hold the file's values, never indexes past its end."""
    from nnie_lsp.triage.align.common import ReferenceTable
    from nnie_lsp.triage.align.values import ValuePass

    rng = np.random.default_rng(11)
    pooled = net.blobs["pool1"]  # 4x4x4 = 64 values
    write_ruyi_caffe(tmp_path / "ref", "odd", pooled)
    write_mapper_quant(tmp_path / "sim", "mystery", _noise(pooled, rng), 0)
    graph = TinyGraph()
    (ref,) = scan_dumps(str(tmp_path / "ref")).tensors
    refs = ReferenceTable.build([ref], graph, {id(ref): "conv1"})  # conv1 is 4x8x8: 256 values
    (sim,) = scan_dumps(str(tmp_path / "sim")).tensors
    result = ValuePass(graph, refs).run([sim], [ref])
    assert [d.blob for d in result.drafts] == ["conv1"] and result.drafts[0].value_cosine > 0.99


def test_position_numberings_follow_caffe_splits_and_the_input_layer():
    """Caffe runs an ``input`` layer for top-level inputs and a ``<blob>_<layer>_<k>_split`` layer
    after a blob version read twice; the C++ dump program's numbers index net.blobs()."""
    from nnie_lsp.triage.align.positions import numberings

    layer = lambda name, type_, bottoms, tops: (name, type_, bottoms, tops)  # noqa: E731
    graph = FakeGraph(
        [layer("conv1", "Convolution", ["data"], ["conv1"]), layer("relu1", "ReLU", ["conv1"], ["conv1"]),
         layer("branch_a", "Convolution", ["conv1"], ["a"]), layer("branch_b", "Convolution", ["conv1"], ["b"]),
         layer("cat", "Concat", ["a", "b"], ["cat"])],
        ["data"], {})
    blob_index, prototxt, runtime = (n.slots for n in numberings(graph))
    assert prototxt == {1: ("conv1", "conv1"), 2: ("relu1", "conv1"), 3: ("branch_a", "a"), 4: ("branch_b", "b"),
                        5: ("cat", "cat")}
    assert runtime == {1: ("input", "data"), 2: ("conv1", "conv1"), 3: ("relu1", "conv1"),
                       4: ("conv1_relu1_0_split", "conv1"), 5: ("branch_a", "a"), 6: ("branch_b", "b"), 7: ("cat", "cat")}
    # blobs: data, conv1, two split copies of conv1, a, b, cat — named after the layer at the same index
    assert blob_index == {1: ("input", "data"), 2: ("conv1", "conv1"), 3: ("relu1", "conv1"),
                          4: ("conv1_relu1_0_split", "conv1"), 5: ("branch_a", "a"), 6: ("branch_b", "b"),
                          7: ("cat", "cat")}


def test_without_shapes_the_numbering_is_chosen_by_names_and_said(tmp_path):
    """No shapes in the graph: the run-time order and the blob index name files alike; the blob
    index (the program seen in the wild) is taken and the note says the dims were not checked."""
    from nnie_lsp.triage.align.positions import read_positions

    layer = lambda name, type_, bottoms, tops: (name, type_, bottoms, tops)  # noqa: E731
    graph = FakeGraph(
        [layer("conv1", "Convolution", ["data"], ["conv1"]), layer("relu1", "ReLU", ["conv1"], ["conv1"]),
         layer("pool1", "Pooling", ["conv1"], ["pool1"])],
        ["data"], {})
    for i, name in enumerate(["input", "conv1", "relu1"], start=1):
        write_ruyi_caffe(tmp_path, f"layer{i}_{name}", np.ones((2, 2, 2)))
    tensors = list(scan_dumps(str(tmp_path)).tensors)
    reading = read_positions(tensors, graph)
    assert reading.numbering.startswith("blob index")
    assert sorted(reading.blob_of.values()) == ["conv1", "data", "pool1"]
    assert "3 without a known blob shape, agreeing by name only" in reading.notes[0]


def test_blob_index_numbering_with_a_caffe_split(net, tmp_path):
    """The C++ program on TinyGraph: pool1 is read twice, so Caffe runs pool1_pool1_0_split and
    net.blobs() holds two copies of pool1; every file is named after the layer at its blob's index."""
    files = [("data", "data"), ("conv1", "conv1"), ("relu1", "pool1"), ("pool1", "pool1"),
             ("pool1_pool1_0_split", "pool1"), ("conv2", "conv2"), ("relu2", "conv3"), ("conv3", "concat"),
             ("concat", "up"), ("up", "conv4"), ("conv4", "bn4"), ("bn4", "fc")]
    for i, (name, blob) in enumerate(files, start=1):
        write_ruyi_caffe(tmp_path / "ref", f"layer{i}_{name}", net.blobs[blob])
    al = align(scan_dumps(str(tmp_path / "ref")), scan_dumps(net.mq), TinyGraph())
    notes = " | ".join(al.notes)
    assert "read by blob index" in notes and "12 of 12" in notes
    assert "2 prefixed file(s) hold a blob another file already holds" in notes
    # the two copies, and conv4's own blob (the mapper folded bn4/sc4 into conv4: compared with bn4)
    assert sorted(t.label.split("_output")[0] for t in al.unmatched_ref) == [
        "layer10_up", "layer4_pool1", "layer5_pool1_pool1_0_split"]
    by_sim = _by_sim(al)
    assert by_sim["pool1"].ref.label.startswith("layer3_relu1_") and by_sim["conv3"].ref.label.startswith("layer7_relu2_")
    assert by_sim["concat"].ref.label.startswith("layer8_conv3_")
    assert by_sim["fc"].blob == "fc" and by_sim["fc"].ref.label.startswith("layer12_bn4_")


def test_prototxt_numbering_wins_when_the_files_follow_it(tmp_path):
    """Files numbered by prototxt position (no input layer counted) with in-place layers: the
    prototxt numbering explains every file; the blob index would not."""
    L, blobs = forward()
    files = {1: ("conv1", "conv1"), 3: ("pool1", "pool1"), 4: ("conv2", "conv2"), 7: ("concat", "concat")}
    for position, (name, blob) in files.items():
        write_ruyi_caffe(tmp_path / "ref", f"layer{position + 1}_{name}", blobs[blob])  # Input layer is #1
    al = align(scan_dumps(str(tmp_path / "ref")), scan_dumps(str(tmp_path / "ref")), TinyGraph())
    assert any("read by prototxt layer order: 4 of 4" in n for n in al.notes)
    assert {p.blob for p in al.pairs} == {"conv1", "pool1", "conv2", "concat"}


def test_sample_cosine_is_metrics_cosine_with_no_evidence_as_one():
    from nnie_lsp.triage.align.common import sample_cosine
    from nnie_lsp.triage.measure.metrics import cosine

    a, b = np.array([1.0, 2.0, np.nan, -3.0]), np.array([1.5, 1.0, 4.0, -2.0])
    assert sample_cosine(a, b) == cosine(a, b)
    assert sample_cosine(np.array([np.nan, np.inf]), np.array([1.0, 2.0])) == 1.0
    assert sample_cosine(np.zeros(0), np.zeros(0)) == 1.0
    assert sample_cosine(np.zeros(3), np.ones(3)) == 0.0


# ------------------------------------------------------------------------------------------
# real net: MTCNN det1 (PNet) through the prototxt graph, Caffe side from OpenCV's dnn
MTCNN = str(corpus_dir("models") / "mtcnn")


@pytest.fixture(scope="module")
def pnet(tmp_path_factory):
    cv2 = pytest.importorskip("cv2")
    from nnie_lsp.readers.prototxt.graph import build_graph
    from nnie_lsp.readers.prototxt.reader import parse_prototxt

    proto = os.path.join(MTCNN, "det1.prototxt")
    with open(proto) as f:
        graph = build_graph(parse_prototxt(f.read(), proto))
    net = cv2.dnn.readNetFromCaffe(proto, os.path.join(MTCNN, "det1.caffemodel"))
    net.enableFusion(False)
    net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    img = cv2.imread(os.path.join(MTCNN, "test1.jpg"))
    blob = cv2.dnn.blobFromImage(cv2.resize(img, (12, 12)), 0.0078125, (12, 12), (127.5, 127.5, 127.5))
    net.setInput(blob)
    names = list(net.getLayerNames())
    outs = dict(zip(names, (o[0].astype(np.float64) for o in net.forward(names))))
    outs["data"] = blob[0].astype(np.float64)
    root = tmp_path_factory.mktemp("pnet")
    # Caffe side per blob: in-place blobs hold the chain's last value
    per_blob = {"data": outs["data"], "conv1": outs["PReLU1"], "pool1": outs["pool1"], "conv2": outs["PReLU2"],
                "conv3": outs["PReLU3"], "conv4-1": outs["conv4-1"], "conv4-2": outs["conv4-2"], "prob1": outs["prob1"]}
    for b, v in per_blob.items():
        write_ruyi_caffe(root / "caffe", b, v)
    rng = np.random.default_rng(7)
    for i, (n, v) in enumerate(outs.items()):
        write_mapper_quant(root / "sim" / "mapper_quant", n, _noise(v, rng, 2e-3), i)
    ids = rng.permutation(np.arange(10, 1000))[: len(per_blob)]
    for (b, v), node in zip(per_blob.items(), ids):
        write_inst(root / "inst", 0, int(node), _noise(v, rng, 2e-3))
    return SimpleNamespace(root=root, graph=graph, outs=outs, per_blob=per_blob, ids=dict(zip(per_blob, map(int, ids))))


def test_pnet_mapper_quant(pnet):
    al = align(scan_dumps(str(pnet.root / "caffe")), scan_dumps(str(pnet.root / "sim")), pnet.graph)
    P = {p.sim.raw_name: p for p in al.pairs}
    assert set(P) == set(pnet.outs)  # every mapper layer paired (data too)
    for layer in ("conv1", "conv2", "conv3"):
        assert "inplace-intermediate" in P[layer].flags and P[layer].blob == layer
    for layer, blob in (("PReLU1", "conv1"), ("PReLU2", "conv2"), ("PReLU3", "conv3")):
        assert P[layer].blob == blob and P[layer].confidence == 1.0 and P[layer].matched_by == "graph"
    assert P["conv4-1"].matched_by == "name" and P["conv4-1"].expected_shape == (2, 1, 1)
    assert [p.sim.raw_name for p in al.pairs][:3] == ["data", "conv1", "PReLU1"]
    assert al.unmatched_ref == () and al.unmatched_sim == ()
    for p, r, s in iter_pairs(al):
        c = compare_arrays(r, s).cosine
        assert (c < 0.99) if "inplace-intermediate" in p.flags else (c > 0.999), (p.name, c)


def test_pnet_inst_by_values(pnet):
    al = align(scan_dumps(str(pnet.root / "caffe")), scan_dumps(str(pnet.root / "inst")), pnet.graph)
    got = {p.sim.node: p.blob for p in al.pairs}
    for b in ("data", "conv1", "pool1", "conv2", "conv3", "conv4-2"):
        assert got[pnet.ids[b]] == b
    assert {got[pnet.ids["conv4-1"]], got[pnet.ids["prob1"]]} == {"conv4-1", "prob1"}
    assert al.unmatched_sim == ()

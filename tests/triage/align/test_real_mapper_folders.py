"""Triage on dump folders in the shapes real users have (issue 8; ``docs/field-facts.md`` §16.1,
§16.2): NNIE 1.1 mapper_quant names, output numbers, Permute dims, position-prefixed Caffe names and
the mapper's own node names from cnn_net_tree.dot. Folders are written by ``real_folders.build``."""

from __future__ import annotations

import json

import numpy as np
import pytest

from nnie_lsp.cli.triage import main
from nnie_lsp.readers.dumpio.scan import scan_dumps
from nnie_lsp.readers.mapper.nettree import read_net_tree
from nnie_lsp.triage.align.driver import load_pair
from nnie_lsp.triage.align.driver import align
from nnie_lsp.triage.inputs.load import load_graph
from fake_graphs import FakeGraph
from real_folders import BLOBS, PROTOTXT, build


def _graph(prototxt=PROTOTXT):
    return load_graph(prototxt)


def _compare(folder, capsys, *extra: str) -> dict:
    code = main(["compare", "--reference", str(folder.caffe), "--sim", str(folder.mapper_quant),
                 "--cfg", str(folder.cfg), "--prototxt", str(folder.prototxt), "--format", "json", *extra])
    assert code == 0
    return json.loads(capsys.readouterr().out)


# the rows compare lists, in network order (the Slice's two outputs are two rows of layer slice1)
NET_ORDER = ["data", "conv1", "pool1", "conv4_3_norm", "slice1", "slice1", "conv6_2", "conv7_2",
             "conv7_2_mbox_conf", "conv7_2_mbox_conf_perm", "conv7_2_mbox_conf_flat"]


# ------------------------------------------------------------------------------------------
# 1. input dumps: the data tensor comes from `conv1_input0_…_anti_quant[.linear].float`
@pytest.mark.parametrize("input_linear", [False, True], ids=["nnie11-anti_quant.float", "anti_quant.linear.float"])
def test_channel_swap_is_case1_from_the_real_input_dump(tmp_path, capsys, input_linear):
    folder = build(tmp_path, input_linear=input_linear)
    doc = _compare(folder, capsys)
    assert doc["case"] == 1
    edits = doc["preprocessing"]["edits"]
    assert [(e["key"], e["new_value"]) for e in edits] == [("RGB_order", "RGB")]
    data = doc["layers"][0]
    assert data["name"] == "data" and data["cosine"] < 0.999
    assert [row["name"] for row in doc["layers"]] == NET_ORDER
    assert any("input dump of layer 'conv1'" in note for note in doc["alignment_notes"])
    assert doc["unmatched"] == {"reference": [], "sim": []}


# ------------------------------------------------------------------------------------------
# 2. output numbers: every single-output layer is output0, the Slice output0/output1
def test_every_output0_folder_aligns_and_the_slice_outputs_are_its_tops(tmp_path):
    folder = build(tmp_path, swap_channels=False)
    al = align(scan_dumps(folder.caffe), scan_dumps(folder.mapper_quant), _graph())
    by_file = {p.sim.label: p for p in al.pairs}
    assert by_file["slice1_output0_2_5_5_quant.linear.hex"].blob == "slice_a"
    assert by_file["slice1_output1_2_5_5_quant.linear.hex"].blob == "slice_b"
    assert by_file["conv6_2_output0_6_5_5_quant.linear.hex"].blob == "conv6_2"
    assert sorted(p.blob for p in al.pairs) == sorted(BLOBS)
    assert al.unmatched_sim == () and al.unmatched_ref == ()
    for pair in al.pairs:  # each pair holds the same tensor on both sides (8-bit-free: on the 20.12 grid)
        ref = pair.ref.load().reshape(-1)
        sim = np.asarray(pair.sim.load_raw(), dtype=float).reshape(-1)
        if pair.layout == "CHW":
            np.testing.assert_allclose(sim, ref, atol=2e-3, err_msg=pair.name)


def test_emulate_writes_the_output_number_not_a_layer_id(tmp_path):
    """nnie-triage emulate names files as the mapper does: output0 for single-output layers,
    output0/output1 for a two-output layer (a Split here: the numpy forward runs no Slice); the
    folder aligns back to the right tops."""
    from nnie_lsp.readers.dumpio.writers import write_ruyi_caffe
    from nnie_lsp.emulation.emulate import EmulationOptions, emulate, write_sim_dumps
    from nnie_lsp.reference.net import load_net

    proto = tmp_path / "split.prototxt"
    proto.write_text(
        'name: "s"\ninput: "data"\ninput_shape { dim: 1 dim: 4 dim: 6 dim: 6 }\n'
        'layer { name: "pool1" type: "Pooling" bottom: "data" top: "pool1" '
        'pooling_param { pool: MAX kernel_size: 2 stride: 2 } }\n'
        'layer { name: "fork" type: "Split" bottom: "pool1" top: "branch_a" top: "branch_b" }\n'
        'layer { name: "relu_b" type: "ReLU" bottom: "branch_b" top: "branch_b" }\n'
        'layer { name: "pool2" type: "Pooling" bottom: "branch_b" top: "pool2" '
        'pooling_param { pool: AVE kernel_size: 3 stride: 3 } }\n')
    net = load_net(proto)
    data = np.random.default_rng(3).normal(size=(1, 4, 6, 6)).astype(np.float32)
    run = emulate(net, {"data": data}, EmulationOptions(noise=0.0))
    written = sorted(p.name for p in write_sim_dumps(run, tmp_path / "sim"))
    assert written == [
        "fork_output0_4_3_3_quant.linear.hex",
        "fork_output1_4_3_3_quant.linear.hex",
        "pool1_input0_4_6_6_anti_quant.float",  # the net's input, as the mapper has it (no data layer)
        "pool1_output0_4_3_3_quant.linear.hex",
        "pool2_output0_4_1_1_quant.linear.hex",
    ]
    for blob, value in run.by_top().items():
        write_ruyi_caffe(tmp_path / "caffe", blob, value[0])
    al = align(scan_dumps(tmp_path / "caffe"), scan_dumps(tmp_path / "sim"), _graph(proto))
    assert {p.sim.label: p.blob for p in al.pairs if p.sim.key == "fork"} == {
        "fork_output0_4_3_3_quant.linear.hex": "branch_a", "fork_output1_4_3_3_quant.linear.hex": "branch_b"}


def test_output_numbers_are_not_trusted_when_the_dims_tell(tmp_path):
    """Another tool's numbers (a layer id in both names) do not decide: the only top with the
    file's dims does."""
    folder = build(tmp_path, swap_channels=False)
    graph = _graph()
    # a Slice whose two tops differ in size: numbering in reverse order of the tops
    from nnie_lsp.readers.dumpio.writers import write_mapper_quant, write_ruyi_caffe

    small, big = folder.ref["slice_a"][:1], folder.ref["slice_b"]
    uneven = FakeGraph([("cut", "Slice", ["x"], ["one", "rest"])], ["x"],
                       {"x": (1, 3, 5, 5), "one": (1, 1, 5, 5), "rest": (1, 2, 5, 5)})
    write_ruyi_caffe(tmp_path / "ref", "one", small)
    write_ruyi_caffe(tmp_path / "ref", "rest", big)
    write_mapper_quant(tmp_path / "sim", "cut", big, 7)
    write_mapper_quant(tmp_path / "sim", "cut", small, 9)
    al = align(scan_dumps(tmp_path / "ref"), scan_dumps(tmp_path / "sim"), uneven)
    assert {p.sim.index: p.blob for p in al.pairs} == {7: "rest", 9: "one"}
    assert all("the only top with its dims" in p.note for p in al.pairs)
    assert graph is not None


# ------------------------------------------------------------------------------------------
# 3. Permute: dumped with its permuted dims (H_W_C) — no false dip, no W_H_C reading
def test_permute_output_with_permuted_dims_compares_clean(tmp_path, capsys):
    folder = build(tmp_path, swap_channels=False)
    al = align(scan_dumps(folder.caffe), scan_dumps(folder.mapper_quant), _graph())
    (perm,) = [p for p in al.pairs if p.blob == "conv7_2_mbox_conf_perm"]
    assert perm.sim.shape == (5, 5, 2) and perm.expected_shape == (5, 5, 2) and perm.layout == "CHW"
    assert "whc-name" not in perm.flags and "permute-output" in perm.flags
    assert "permuted dims of its input 2×5×5" in perm.note
    doc = _compare(folder, capsys)
    rows = {row["blob"]: row for row in doc["layers"]}
    assert rows["conv7_2_mbox_conf_perm"]["cosine"] > 0.9999
    assert rows["conv7_2_mbox_conf_perm"]["shape"] == [5, 5, 2]
    assert doc["case"] != 3 and not doc["dips"]
    assert not any("W_H_C" in (row.get("note") or "") for row in doc["layers"])


# ------------------------------------------------------------------------------------------
# 4. position prefixes on the Caffe side
def test_prefixed_caffe_names_keep_the_data_pair_and_the_net_order(tmp_path, capsys):
    folder = build(tmp_path, reference="prefixed")
    doc = _compare(folder, capsys)
    assert doc["case"] == 1
    assert [(e["key"], e["new_value"]) for e in doc["preprocessing"]["edits"]] == [("RGB_order", "RGB")]
    assert [row["name"] for row in doc["layers"]] == NET_ORDER
    assert [row["blob"] for row in doc["layers"]] == list(BLOBS)
    assert doc["unmatched"] == {"reference": [], "sim": []}
    notes = " | ".join(doc["alignment_notes"])
    assert "read by blob index" in notes and "11 of 11" in notes
    # the drift after the in-place ReLU is named, not hidden
    assert "layer3_relu1_output0_4_5_5_caffe.linear.float → 'pool1'" in notes


def test_prefixed_pairs_hold_the_right_blobs(tmp_path):
    folder = build(tmp_path, reference="prefixed", swap_channels=False)
    al = align(scan_dumps(folder.caffe), scan_dumps(folder.mapper_quant), _graph())
    by_blob = {p.blob: p for p in al.pairs}
    assert by_blob["pool1"].ref.label.startswith("layer3_relu1_")
    assert by_blob["conv4_3_norm"].ref.label.startswith("layer4_pool1_")
    assert by_blob["slice_b"].ref.label.startswith("layer6_slice1_")
    assert by_blob["data"].ref.label.startswith("layer1_input_")
    for pair in al.pairs:
        if pair.layout == "CHW":
            np.testing.assert_allclose(np.asarray(pair.sim.load_raw(), dtype=float).reshape(-1),
                                       pair.ref.load().reshape(-1), atol=2e-3, err_msg=pair.name)


def test_a_prefix_that_disagrees_is_not_stripped(tmp_path):
    folder = build(tmp_path, reference="prefixed", swap_channels=False)
    # renumber one file: position 7 is not conv7_2 in any numbering
    wrong = next(folder.caffe.glob("layer8_conv7_2_output0_*"))
    wrong.rename(wrong.with_name(wrong.name.replace("layer8_", "layer2_")))
    al = align(scan_dumps(folder.caffe), scan_dumps(folder.mapper_quant), _graph())
    notes = " | ".join(al.notes)
    assert "10 of 11" in notes
    assert "1 prefixed file(s) disagree" in notes and "layer2_conv7_2_output0_4_5_5" in notes
    (pair,) = [p for p in al.pairs if p.blob == "conv7_2" or p.ref.label.startswith("layer2_conv7_2")]
    assert pair.matched_by in ("values", "shape-order")  # found by its values, not by a stripped name


def test_prefixes_without_a_prototxt_are_kept_and_said(tmp_path):
    folder = build(tmp_path, reference="prefixed", swap_channels=False)
    al = align(scan_dumps(folder.caffe), scan_dumps(folder.mapper_quant))
    assert any("without a prototxt N cannot be checked" in n for n in al.notes)
    assert not any(p.matched_by == "name" and p.ref.label.startswith("layer") for p in al.pairs)


# ------------------------------------------------------------------------------------------
# 5. dumps named after the mapper's own nodes, through cnn_net_tree.dot
def test_mapper_node_dumps_align_through_the_dot(tmp_path, capsys):
    folder = build(tmp_path, swap_channels=False, mapper_nodes=True)
    graph = _graph()
    without = align(scan_dumps(folder.caffe), scan_dumps(folder.mapper_quant), graph)
    assert sorted(t.key for t in without.unmatched_sim) == ["conv6_2_report_0_0", "permute_0"]

    al = align(scan_dumps(folder.caffe), scan_dumps(folder.mapper_quant), graph, dot=read_net_tree(folder.dot))
    assert al.unmatched_sim == ()
    by_key = {p.sim.key: p for p in al.pairs}
    permute, report = by_key["permute_0"], by_key["conv6_2_report_0_0"]
    assert (permute.blob, permute.layer, permute.matched_by) == ("conv4_3_norm", "conv4_3_norm", "dot")
    assert "mapper-inserted" in permute.flags and "after 'conv4_3_norm'" in permute.note
    assert "Permute (batch)" in permute.note
    assert (report.blob, report.matched_by) == ("conv6_2", "dot") and "report-node" in report.flags
    assert "reports top 'conv6_2'" in report.note
    order = [p.sim.key for p in al.pairs]
    assert order.index("permute_0") == order.index("conv4_3_norm") + 1  # right after the layer it follows
    assert order.index("conv6_2_report_0_0") == order.index("conv6_2") + 1

    doc = _compare(folder, capsys, "--dot", str(folder.dot))
    rows = [row for row in doc["layers"] if row["matched_by"] == "dot"]
    assert sorted(row["blob"] for row in rows) == ["conv4_3_norm", "conv6_2"]
    assert all(row["cosine"] > 0.9999 for row in rows)
    assert doc["unmatched"]["sim"] == []


def test_board_dump_of_a_report_node_found_by_its_dot_id(tmp_path):
    """Board / instruction-simulator dumps are named by node id (``seg0_layer11_output0_…``): id 11
    is the Reportop ``conv6_2_report_0_0`` in the dot, so the dump is conv6_2's output."""
    from nnie_lsp.readers.dumpio.writers import write_inst

    folder = build(tmp_path, swap_channels=False)
    write_inst(tmp_path / "board", 0, 11, folder.sim["conv6_2"])
    write_inst(tmp_path / "board", 0, 4, folder.sim["conv4_3_norm"])  # permute_0
    al = align(scan_dumps(folder.caffe), scan_dumps(tmp_path / "board"), _graph(), dot=read_net_tree(folder.dot))
    by_node = {p.sim.node: p for p in al.pairs}
    assert (by_node[11].blob, by_node[11].matched_by) == ("conv6_2", "dot") and "report-node" in by_node[11].flags
    assert (by_node[4].blob, by_node[4].matched_by) == ("conv4_3_norm", "dot") and "mapper-inserted" in by_node[4].flags
    for pair in al.pairs:
        ref, sim, _note = load_pair(pair)
        np.testing.assert_allclose(sim, ref, atol=2e-3, err_msg=pair.name)

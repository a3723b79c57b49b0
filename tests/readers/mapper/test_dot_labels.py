"""The dot reader's reading of node labels in any format (the alignment's view of the dot): names,
types, numbers and merged operators from ATC-style, record and NNIE labels."""

from __future__ import annotations

from pathlib import Path

from nnie_lsp.readers.dumpio.names import normalize_name
from nnie_lsp.readers.mapper.nettree import parse_net_tree, read_net_tree

SSD = Path(__file__).resolve().parents[2] / "data" / "mapper" / "nnie11_ssd_cnn_net_tree.dot"

ATC_LIKE = r'''strict digraph "net" {
  // comment
  graph [rankdir=TB]; node [shape=record];
  "conv1" [label="type name: Convolution\nname: conv1\nmergedOps: "];
  "up/perm" [label=<<b>name: up</b><br/>type: Upsample<br/>mergedOps: Permute;Reshape;>];
  n38 [label="{Pooling|pool1}"];
  node_12 [label="layer_name=fc id=12 type=InnerProduct"];
  subgraph cluster_a { x-1 -> y }
  "conv1" -> "up/perm" -> n38 [color=red];
  n38 -> node_12;
  /* block
     comment */
}
'''


def test_atc_like_labels(tmp_path):
    p = tmp_path / "cnn_net_tree.dot"
    p.write_text(ATC_LIKE)
    g = read_net_tree(p)
    N = {name: node.reading for name, node in g.nodes.items()}
    assert set(N) == {"conv1", "up/perm", "n38", "node_12", "x-1", "y"}
    assert (N["conv1"].name, N["conv1"].type) == ("conv1", "Convolution")
    assert (N["up/perm"].name, N["up/perm"].type, N["up/perm"].merged_ops) == ("up", "Upsample", ("Permute", "Reshape"))
    assert (N["n38"].name, N["n38"].type) == ("pool1", "Pooling")
    assert (N["node_12"].name, N["node_12"].type, N["node_12"].number) == ("fc", "InnerProduct", 12)
    edges = [(e.source, e.target) for e in g.edges]
    assert ("conv1", "up/perm") in edges and ("up/perm", "n38") in edges and ("x-1", "y") in edges
    assert g.successors("n38") == ["node_12"] and g.predecessors("n38") == ["up/perm"]
    order = g.topo_order()
    assert order.index("conv1") < order.index("up/perm") < order.index("n38") < order.index("node_12")
    assert g.by_key(normalize_name)["up"].name == "up/perm" and g.by_number()[12].reading.name == "fc"
    d = g.describe_labels()
    assert "6 nodes" in d and "4 edges" in d and "mergedOps" in d and "label name:" in d


def test_garbage_never_raises():
    for text in ["", "not a dot file at all ][", "digraph { a -> ; [ }", "digraph { a -> b -> a }", "\x00\x01 {"]:
        g = parse_net_tree(text)
        assert isinstance(g.nodes, dict)
    g = parse_net_tree("digraph { a -> b -> a }")
    assert sorted(g.topo_order()) == ["a", "b"]  # cycle tolerated
    assert parse_net_tree("").warnings == ("no nodes found",)


def test_reading_of_nnie_labels():
    tree = read_net_tree(SSD)
    node = tree.nodes["permute_0"]
    assert (node.reading.name, node.reading.type, node.reading.number, node.segment) == ("permute_0", "Permute (batch)", 4, 0)
    # the numeric id, not the "net segment id: 0" that the generic label reading used to take
    assert tree.by_number()[12].reading.name == "mbox_loc_report_0_0"
    keys = tree.by_key(normalize_name)
    assert keys["mbox_loc"].name == "mbox_loc" and keys["mbox_loc_report_0_0"].reading.type == "Reportop"
    assert "names from NNIE label" in tree.describe_labels()

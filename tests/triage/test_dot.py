from __future__ import annotations

from pathlib import Path

from nnie_lsp.triage.align.dot_view import parse_dot, read_dot

SSD = Path(__file__).resolve().parent.parent / "data" / "mapper" / "nnie11_ssd_cnn_net_tree.dot"

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
    g = read_dot(p)
    N = g.nodes
    assert set(N) == {"conv1", "up/perm", "n38", "node_12", "x-1", "y"}
    assert (N["conv1"].name, N["conv1"].type) == ("conv1", "Convolution")
    assert (N["up/perm"].name, N["up/perm"].type, N["up/perm"].merged_ops) == ("up", "Upsample", ("Permute", "Reshape"))
    assert (N["n38"].name, N["n38"].type) == ("pool1", "Pooling")
    assert (N["node_12"].name, N["node_12"].type, N["node_12"].number) == ("fc", "InnerProduct", 12)
    assert ("conv1", "up/perm") in g.edges and ("up/perm", "n38") in g.edges and ("x-1", "y") in g.edges
    assert g.successors("n38") == ["node_12"] and g.predecessors("n38") == ["up/perm"]
    order = g.topo_order()
    assert order.index("conv1") < order.index("up/perm") < order.index("n38") < order.index("node_12")
    assert g.by_key()["up"].id == "up/perm" and g.by_number()[12].name == "fc"
    d = g.describe()
    assert "6 nodes" in d and "4 edges" in d and "mergedOps" in d and "label name:" in d


def test_garbage_never_raises():
    for text in ["", "not a dot file at all ][", "digraph { a -> ; [ }", "digraph { a -> b -> a }", "\x00\x01 {"]:
        g = parse_dot(text)
        assert isinstance(g.nodes, dict)
    g = parse_dot("digraph { a -> b -> a }")
    assert sorted(g.topo_order()) == ["a", "b"]  # cycle tolerated
    assert parse_dot("").warnings == ("no nodes found",)


def test_triage_view_of_nnie_labels():
    graph = read_dot(SSD)
    node = graph.nodes["permute_0"]
    assert (node.name, node.type, node.number, node.segment) == ("permute_0", "Permute (batch)", 4, 0)
    # the numeric id, not the "net segment id: 0" that the generic label reading used to take
    assert graph.by_number()[12].name == "mbox_loc_report_0_0"
    keys = graph.by_key()
    assert keys["mbox_loc"].id == "mbox_loc" and keys["mbox_loc_report_0_0"].type == "Reportop"
    assert "names from NNIE label" in graph.describe()

"""cnn_net_tree.dot in the NNIE label format (field facts §16.2): NNIE 1.1 and 1.2 style files in
tests/data/mapper, the DOT statement reader, and the reading of the same labels the alignment uses."""
from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings, strategies as st

from nnie_lsp.readers.dumpio.names import normalize_name
from nnie_lsp.readers.mapper.nettree import parse_dims, parse_net_tree, read_net_tree
from nnie_lsp.readers.mapper.dot import parse_dot_syntax, tokenize_dot
from nnie_lsp.core.text import Range

DATA = Path(__file__).resolve().parents[2] / "data" / "mapper"
SSD = DATA / "nnie11_ssd_cnn_net_tree.dot"
YOLO = DATA / "nnie12_yolo_cnn_net_tree.dot"


def test_nnie11_node_fields():
    tree = read_net_tree(SSD)
    assert tree.is_nnie_format and tree.graph_name == "cnn_tree" and tree.warnings == ()
    assert len(tree.nodes) == 13 and len(tree.edges) == 13 and tree.segments == (0,)
    conv = tree.nodes["conv1"]
    assert (conv.label_name, conv.segment, conv.node_id, conv.type_code, conv.type_name) == (
        "conv1", 0, 1, 0, "Convolution")
    assert conv.input_sizes == ((3, 300, 300),) and conv.output_sizes == ((64, 150, 150),)
    assert (conv.kernel, conv.stride, conv.pad) == ((3, 3), (2, 2), (1, 1))
    assert conv.pad_sides == (1, -1, 1, -1)  # "pad_up: 1 pad_down -1" (no colon) read too
    assert (conv.report_flag, conv.bond_type, conv.data_bit_mode, conv.data_delta) == (0, 1, "0", 0.0)
    assert conv.field("aligned_output_data_size") == "1440000" and conv.field("net segment id") == "0"
    assert conv.range is not None and conv.range.start.line == 2
    data = tree.nodes["data"]
    assert data.type_name == "Preprocess" and data.kernel is None and not data.is_mapper_inserted
    concat = tree.nodes["mbox_loc"]
    assert concat.type_name == "Concat" and concat.data_delta == (0.0625, 0.03125)
    assert concat.data_delta_raw == "(0.0625, 0.03125)"
    user_permute = tree.nodes["conv4_3_norm_mbox_loc_perm"]
    assert user_permute.type_name == "Permute" and not user_permute.is_mapper_inserted


def test_mapper_inserted_permutes_follow_normalize():
    tree = read_net_tree(SSD)
    inserted = tree.inserted_nodes()
    assert [n.name for n in inserted] == ["permute_0", "permute_1"]
    assert all(n.type_name == "Permute (batch)" and n.base_type == "Permute" and n.type_qualifier == "batch"
               for n in inserted)
    assert [tree.followed_layer(n.name).name for n in inserted] == ["conv4_3_norm", "fc7_norm"]
    assert {tree.followed_layer(n.name).type_name for n in inserted} == {"Normalize"}
    assert [n.name for n in tree.inserted_after("conv4_3_norm")] == ["permute_0"]
    assert tree.inserted_after("conv1") == []
    assert tree.nodes["permute_0"].data_bit_mode == "2"


def test_reportop_names():
    tree = read_net_tree(SSD)
    report = tree.nodes["mbox_loc_report_0_0"]
    assert report.type_name == "Reportop" and report.report_flag == 1
    point = report.report_point
    assert (point.top, point.segment, point.k) == ("mbox_loc", 0, 0)
    assert tree.followed_layer(report.name).name == "mbox_loc"
    assert tree.nodes["mbox_loc"].report_point is None
    yolo = read_net_tree(YOLO)
    assert [(n.report_point.top, n.report_point.segment) for n in yolo.report_nodes()] == [("head", 0), ("fc6", 1)]


def test_nnie12_segments_and_layer_view():
    tree = read_net_tree(YOLO)
    assert tree.segments == (0, 1) and tree.nodes["fc6"].segment == 1
    assert tree.successors("conv1") == ["relu1", "res2a"] and tree.predecessors("res2a") == ["relu1", "conv1"]
    view = tree.view_of("res2a_norm")
    assert view.segments == (0,) and view.node_types == ("Normalize", "Permute (batch)")
    text = "\n".join(view.describe())
    assert "segment 0" in text and "Normalize → Permute (batch)" in text and "64×319×319" in text
    assert "data_bit_mode: 0 (meaning undocumented)" in text and "permute_0" in text
    head = tree.view_of("head", tops=["head"])
    assert [r.name for r in head.reports] == ["head_report_0_0"] and head.inserted == ()
    assert tree.view_of("no_such_layer") is None


def test_find_by_name_forms():
    tree = parse_net_tree('digraph cnn_tree { "conv1_1/relu" [label="conv1_1/relu\\n net segment id: 0\\ntype name: ReLU"]; }')
    assert tree.find("conv1_1/relu").type_name == "ReLU"
    assert tree.find("conv1_1_relu").name == "conv1_1/relu"
    assert tree.find("CONV1_1/RELU") is None
    assert tree.find("CONV1_1/RELU", key=str.lower).name == "conv1_1/relu"


def test_huge_numbers_are_dropped_not_raised():
    huge = "9" * 5000
    tree = parse_net_tree(f'digraph {{ a [label="a\\n net segment id: {huge}\\n id: {huge}  type: 1\\n input size: {huge}*2\\n output size: 4*4"]; }}')
    node = tree.nodes["a"]
    assert (node.segment, node.node_id, node.type_code) == (None, None, 1)
    assert node.input_sizes == () and node.output_sizes == ((4, 4),)


def test_parse_dims():
    assert parse_dims("3*640*640") == ((3, 640, 640),)
    assert parse_dims("256*10*10, 256*10*10") == ((256, 10, 10), (256, 10, 10))
    assert parse_dims("1024") == ((1024,),) and parse_dims("…") == ()


def test_dot_statements_with_ranges():
    text = 'digraph g {\n  a [label="x"];\n  a -> b:p -> "c d" [color=red];\n  e [label="1" + "2"]\n}\n'
    syntax = parse_dot_syntax(text)
    assert syntax.graph_name == "g" and syntax.directed
    assert list(syntax.nodes) == ["a", "b", "c d", "e"]
    assert syntax.nodes["a"].range == Range.of(1, 2, 1, 15) and syntax.nodes["a"].attr("label") == "x"
    assert syntax.nodes["e"].attr("label") == "12"
    assert [(e.source, e.target) for e in syntax.edges] == [("a", "b"), ("b", "c d")]
    assert syntax.edges[0].range == Range.of(2, 2, 2, 8)
    assert [t.kind for t in tokenize_dot("a -> b")] == ["id", "edge", "id"]


_DOT_FRAGMENTS = ["digraph", "cnn_tree", "{", "}", "[", "]", ";", ",", "=", "->", "--", ":", "+", '"', "<", ">",
                  "label", '"a\\n net segment id: 0\\n id: 1  type: 0\\ntype name: Permute (batch)"',
                  '"x\\n input size: 3*9*9\\n data_delta: (1, 2)\\n pad_up: 0 pad_down -1"', "/*", "*/", "//", "#",
                  "\n", "permute_0", "a_report_0_1", "9" * 5000, '"\\n input size: ' + "9" * 5000 + '"']


def _check_tree(text: str) -> None:
    tree = parse_net_tree(text)
    index = tree.line_index
    for node in tree.nodes.values():
        rng = node.range
        assert rng.start <= rng.end
        for pos in (rng.start, rng.end):
            assert 0 <= pos.line < index.line_count and 0 <= pos.character <= len(index.line_text(pos.line))
        node.is_mapper_inserted, node.report_point, node.describe_bit_mode()
        tree.followed_layer(node.name), tree.followed_layer(node.name, reading=True), tree.view_of(node.name)
    tree.describe()
    tree.topo_order(), tree.describe_labels(), tree.by_key(normalize_name), tree.by_number()


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_arbitrary_text_never_raises(text):
    _check_tree(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_DOT_FRAGMENTS), st.text(max_size=8)), max_size=30))
def test_dot_shaped_text_never_raises(parts):
    _check_tree(" ".join(parts))


def test_pathological_labels_stay_linear():
    import time

    n = 60_000
    label = "\\n".join(["x", "a" * n, "id: " + "b" * n, "k:" + " " * n + "v", "p: 0 " + "c" * n, "q " * n + ": 1: 2",
                        "input size: " + "1*" * n, "type name: " + "(" * n])
    text = f'digraph {{ a [label="{label}"]; ' + "<a" * n + " }"
    began = time.perf_counter()
    tree = parse_net_tree(text)
    tree.describe_labels()  # every label read in any format too
    assert time.perf_counter() - began < 10
    assert "a" in tree.nodes


def test_a_report_index_of_thousands_of_digits_is_no_report_point():
    """Found by the property test above: int() refuses a 5,001-digit string (ValueError)."""
    from nnie_lsp.readers.mapper.nettree import report_point_of

    assert report_point_of("a_report_0_" + "9" * 5001, None) is None
    assert report_point_of("a_report_0_1", None) is not None

"""The de-inplace fix (NN301/NN302/NN303) must leave the computed graph unchanged."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from nnie_lsp.rules.fixes import deinplace_edits
from nnie_lsp.readers.prototxt.graph import build_graph
from nnie_lsp.readers.prototxt.reader import parse_prototxt
from nnie_lsp.core.text import apply_edits


def dataflow(text: str):
    """For every layer (by name), which layer (or input) produced each of its bottoms."""
    g = build_graph(parse_prototxt(text))
    last = {i.name: f"input:{i.name}" for i in g.inputs}
    flow = {}
    for l in g.layers:
        flow[l.name] = tuple(last.get(b, f"undefined:{b}") for b in l.bottoms)
        for t in l.tops:
            last[t] = l.name
    return flow, g


def render(layers):
    out = ['input: "data"', "input_shape { dim: 1 dim: 3 dim: 8 dim: 8 }"]
    for name, typ, bottoms, tops in layers:
        body = " ".join([f'name: "{name}"', f'type: "{typ}"', *(f'bottom: "{b}"' for b in bottoms),
                         *(f'top: "{t}"' for t in tops)])
        out.append("layer { " + body + " }")
    return "\n".join(out) + "\n"


@st.composite
def nets(draw):
    blobs = ["data"]
    layers = []
    n = draw(st.integers(3, 14))
    for i in range(n):
        kind = draw(st.sampled_from(["conv", "inplace", "inplace", "concat", "rewrite"]))
        name = f"l{i}"
        if kind == "inplace" and len(blobs) > 1:
            b = draw(st.sampled_from(blobs[1:]))
            layers.append((name, draw(st.sampled_from(["ReLU", "Scale", "BatchNorm"])), [b], [b]))
        elif kind == "concat" and len(blobs) >= 2:
            a, b = draw(st.lists(st.sampled_from(blobs), min_size=2, max_size=2))
            blobs.append(name)
            layers.append((name, "Concat", [a, b], [name]))
        elif kind == "rewrite" and len(blobs) > 2:
            # a non-in-place layer writing an existing blob name again (legal in Caffe)
            src = draw(st.sampled_from(blobs))
            dst = draw(st.sampled_from([b for b in blobs[1:] if b != src] or [name]))
            layers.append((name, "Convolution", [src], [dst]))
            if dst not in blobs:
                blobs.append(dst)
        else:
            src = draw(st.sampled_from(blobs))
            blobs.append(name)
            layers.append((name, "Convolution", [src], [name]))
    return layers


@settings(max_examples=150, deadline=None)
@given(nets(), st.data())
def test_deinplace_keeps_dataflow(layers, data):
    text = render(layers)
    flow, g = dataflow(text)
    doc = parse_prototxt(text)
    candidates = [l for l in g.layers if l.in_place]
    if not candidates:
        return
    target = data.draw(st.sampled_from(candidates))
    new_blob, edits = deinplace_edits(doc, g, target)
    fixed = apply_edits(text, edits)
    flow2, g2 = dataflow(fixed)
    assert flow2 == flow
    layer = g2.layer(target.name)
    assert not layer.in_place and new_blob in layer.tops
    assert not parse_prototxt(fixed).errors


def test_chain_and_stop_at_rewrite():
    text = render([
        ("a", "Concat", ["data", "data"], ["cat"]),
        ("r1", "ReLU", ["cat"], ["cat"]),
        ("s1", "Scale", ["cat"], ["cat"]),
        ("c1", "Convolution", ["cat"], ["x"]),
        ("w", "Convolution", ["x"], ["cat"]),     # rewrites "cat": references after it stay
        ("c2", "Convolution", ["cat"], ["y"]),
    ])
    doc = parse_prototxt(text)
    g = build_graph(doc)
    new, edits = deinplace_edits(doc, g, g.layer("r1"))
    fixed = apply_edits(text, edits)
    assert new == "r1"
    assert 'name: "r1" type: "ReLU" bottom: "cat" top: "r1"' in fixed
    assert 'name: "s1" type: "Scale" bottom: "r1" top: "r1"' in fixed
    assert 'name: "c1" type: "Convolution" bottom: "r1" top: "x"' in fixed
    assert 'name: "c2" type: "Convolution" bottom: "cat" top: "y"' in fixed
    assert dataflow(fixed)[0] == dataflow(text)[0]


# ---------------------------------------------------------------- in-place chains, through --fix

INPLACE_TYPES = ["ReLU", "Scale", "BatchNorm", "Dropout", "PReLU", "Sigmoid", "TanH", "Bias", "Power"]


@st.composite
def chained_nets(draw):
    """Nets with in-place chains: a producer (Convolution, Concat or InnerProduct), then 1-5
    in-place layers on its blob, readers of the blob before, inside and after the chain, and
    sometimes a layer that writes the blob's name again (Caffe allows it)."""
    blobs = ["data"]
    layers = []
    for block in range(draw(st.integers(1, 4))):
        producer = draw(st.sampled_from(["Convolution", "Concat", "InnerProduct"]))
        name = f"p{block}"
        bottoms = ([draw(st.sampled_from(blobs)), draw(st.sampled_from(blobs))] if producer == "Concat"
                   else [draw(st.sampled_from(blobs))])
        layers.append((name, producer, bottoms, [name]))
        blobs.append(name)
        for k in range(draw(st.integers(1, 5))):
            layers.append((f"{name}_ip{k}", draw(st.sampled_from(INPLACE_TYPES)), [name], [name]))
            if draw(st.booleans()):  # a reader inside the chain
                reader = f"{name}_r{k}"
                layers.append((reader, "Convolution", [name], [reader]))
                blobs.append(reader)
        if draw(st.integers(0, 4)) == 0:  # the blob's name written again by another layer
            layers.append((f"{name}_w", "Convolution", [draw(st.sampled_from(blobs))], [name]))
        tail = f"{name}_t"
        layers.append((tail, "Convolution", [name], [tail]))
        blobs.append(tail)
    return layers


@settings(max_examples=60, deadline=None)
@given(chained_nets())
def test_every_safe_deinplace_fix_together_keeps_dataflow(layers):
    """nnie-lint --fix with the three in-place rules: every in-place layer it fixes writes a new
    blob, every reader still reads the value it read before, and a second --fix changes nothing."""
    import os
    import tempfile

    from nnie_lsp.lint.driver import fix_files
    from nnie_lsp.project.settings import settings_from_mapping

    text = render(layers)
    flow, _graph = dataflow(text)
    chosen = settings_from_mapping({"select": ["NN301", "NN302", "NN303"]})
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "net.prototxt")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        result = fix_files([path], settings=chosen, cwd=folder)
        fixed = result.fixed[path][1] if path in result.fixed else text
        assert not parse_prototxt(fixed).errors
        flow2, graph2 = dataflow(fixed)
        assert flow2 == flow
        assert [layer.name for layer in graph2.layers] == [layer[0] for layer in layers]
        left = {d.code for d in result.diagnostics if d.fix is not None and d.fix.is_safe}
        assert not left, f"safe in-place fixes left after --fix: {left}"
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(fixed)
        assert fix_files([path], settings=chosen, cwd=folder).fixed == {}


def test_layer_in_place_on_two_blobs():
    """Found by tests/test_properties_lint.py (NN303 crashed with 'too many values to unpack'):
    a layer in place on two blobs is fixed one blob at a time, the dataflow kept."""
    text = render([("p", "Convolution", ["data"], ["p"]), ("q", "Convolution", ["data"], ["q"]),
                   ("both", "ReLU", ["p", "q"], ["p", "q"]), ("cat", "Concat", ["p", "q"], ["cat"])])
    doc = parse_prototxt(text)
    graph = build_graph(doc)
    new_blob, edits = deinplace_edits(doc, graph, graph.layer("both"))
    fixed = apply_edits(text, edits)
    assert new_blob == "both" and 'name: "both" type: "ReLU" bottom: "p" bottom: "q" top: "both" top: "q"' in fixed
    assert dataflow(fixed)[0] == dataflow(text)[0]

"""Structural matching where names do not help (a PyTorch export's numbered tensors against a
Caffe net with names of its own): the Caffe layers that together stand for one ONNX node, and the
ONNX nodes a converter dropped before a layer.

- :func:`function_group`: a converter writes one ONNX element-wise node as several Caffe layers
  (HardSwish as Power, Clip, Power and Eltwise PROD).  Matched by name, the group is the unmatched
  layers before the one whose top is the node's tensor; matched by structure, the group is found
  by what it computes: the shortest run of element-wise layers from the node's input whose
  composite function equals the node's on the probes (:mod:`.functions`).  Layers with weights
  (PReLU, Scale) are never grouped this way: the weights are not read while matching.
- :func:`past_dropped`: a layer that is no element-wise function (a Convolution) whose input feeds
  no ONNX node it can be, while one node further, past a chain of single-input element-wise nodes,
  there is exactly one: those nodes have no Caffe layer (the converter dropped them).
"""

from __future__ import annotations

import numpy as np

from nnie_lsp.conversion.functions import NotElementwise, caffe_eval, onnx_eval

#: largest run of Caffe layers grouped for one ONNX node, and of dropped nodes looked past
MAX_GROUP = 6
MAX_DROPPED = 3
TOL = 1e-4


def _channels(og, tensor: str) -> int:
    shape = og.shape(tensor)
    return shape[1] if shape and len(shape) >= 2 else 1


def _same(og, nodes, x: str, layers, blob: str) -> bool:
    channels = _channels(og, x)
    try:
        theirs = onnx_eval(og, nodes, x, channels)
        ours = caffe_eval(layers, blob, channels, lambda name: [])
    except (NotElementwise, ValueError, FloatingPointError, KeyError):
        return False
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.nan_to_num(np.abs(np.asarray(ours, np.float64) - np.asarray(theirs, np.float64)), nan=np.inf)
    return bool(diff.size) and float(diff.max()) <= TOL * max(1.0, float(np.max(np.abs(theirs))))


def function_group(og, graph, position: int, nodes, x: str, elementwise: frozenset[str]) -> list | None:
    """The Caffe layers from ``graph.layers[position]`` on (two or more, the last one standing for
    the node) that compute what the element-wise ONNX ``nodes`` compute on ``x``; None when the
    first layer alone does, or no run does."""
    layers = graph.layers
    first = layers[position]
    if not first.bottoms or _same(og, nodes, x, [first], first.bottoms[0]):
        return None
    blob = first.bottoms[0]
    run, produced = [first], {blob, *first.tops}
    for cand in layers[position + 1: position + 1 + 2 * MAX_GROUP]:
        if len(run) >= MAX_GROUP:
            break
        if cand.type not in elementwise or not cand.bottoms or not all(b in produced for b in cand.bottoms):
            continue
        run.append(cand)
        produced.update(cand.tops)
        inner = {t for g in run[:-1] for t in g.tops} - set(run[-1].tops)
        members = {id(g) for g in run}
        if any(id(c) not in members for t in inner for c in graph.consumers(t)):
            continue  # an intermediate top is read outside the run: not one function
        if _same(og, nodes, x, run, blob):
            return run
    return None


def past_dropped(og, tensor: str, used: set[int], fits, elementwise_ops) -> list | None:
    """[dropped nodes…, node] when, following element-wise nodes (``elementwise_ops``) from
    ``tensor`` (each its input's only reader), exactly one unused node that ``fits(node)`` reads
    the tensor reached; None otherwise."""
    skipped = []
    t = tensor
    for _ in range(MAX_DROPPED):
        readers = og.consumers.get(t, [])
        if len(readers) != 1:
            return None
        node = og.nodes[readers[0]]
        data = [i for i in node.inputs if i and i not in og.constants]
        source = og.node_of(t)
        # one input, or a gate on what made it: SiLU's Mul(x, Sigmoid(x)) after a kept Sigmoid
        gated = source is not None and set(data) <= {t, *source.inputs}
        if node.index in used or node.op not in elementwise_ops or t not in data or not gated:
            return None
        skipped.append(node)
        t = node.outputs[0]
        found = [og.nodes[i] for i in og.consumers.get(t, []) if i not in used and fits(og.nodes[i])]
        if len(found) == 1:
            return skipped + found
        if found:
            return None
    return None

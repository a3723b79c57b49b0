"""A node's label in any format, read for a name, a type, a node number and merged operators.

:mod:`.nettree` reads labels in the NNIE format (``docs/field-facts.md §16.2``) field by field.
Other tools write other labels: ATC-style ``type name: <Type>`` / ``name: X`` /
``mergedOps: Permute;Reshape;`` lines, ``key=value`` pairs, record labels ``{a|b}``, free text.
:func:`read_label` reads those defensively, for whatever they give; :attr:`TreeNode.reading
<nnie_lsp.readers.mapper.nettree.TreeNode.reading>` uses it for every node whose label is not in the NNIE
format (for NNIE labels the reading comes from the fields).  The triage's dot pass pairs dumps
with nodes through it (:mod:`nnie_lsp.triage.align.dot_nodes`).
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["LabelReading", "NAME_SOURCES", "KNOWN_TYPES", "read_label"]

# where a node's name came from, most informative first
NAME_SOURCES = ("NNIE label", "label name:", "label", "id")


class LabelReading(NamedTuple):
    """What a node's label says, in any format.  ``name``: the layer (or blob) name the node stands
    for — the label's, else the node id; ``source``: one of :data:`NAME_SOURCES`."""

    name: str
    type: str | None
    merged_ops: tuple[str, ...]
    number: int | None  # a node number in the label or id (an instruction simulator's node id)
    source: str


KNOWN_TYPES = frozenset(
    "Convolution Deconvolution DepthwiseConv ConvolutionDepthwise Pooling ReLU PReLU Sigmoid TanH InnerProduct Concat "
    "Eltwise Upsample Permute Reshape Flatten Softmax BatchNorm BN Scale Bias ROIPooling PSROIPooling Slice Split Data "
    "Input Dropout LRN Power Proposal Normalize Crop Reorg MatMul Threshold ArgMax Interp Exp Log Abs Lstm LSTM RNN "
    "Dense Conv Conv2D Pool Relu Add Mul".split()
)

_NAME_RE = re.compile(r"(?:^|[\s\\|{,;])(?:layer[_ ]?)?name\s*[:=]\s*([^\s\\|{}\";,]+)", re.IGNORECASE)
_TYPE_RE = re.compile(r"(?:^|[\s\\|{,;])(?:type(?:\s+name)?|op(?:_?type)?)\s*[:=]\s*([A-Za-z][\w.]*)", re.IGNORECASE)
_MERGED_RE = re.compile(r"merged_?ops\s*[:=]\s*([\w;, ]*)", re.IGNORECASE)


def read_label(node_id: str, label: str, type_attr: str | None = None) -> LabelReading:
    """Read a label in any format; ``type_attr``: the node's DOT ``type`` attribute, the type when
    the label gives none.  Never raises."""
    lab = label.replace("\\n", "\n").replace("\\l", "\n").replace("\\r", "\n")
    name = typ = None
    src = "id"
    for m in _NAME_RE.finditer(lab):
        if re.search(r"type\s*$", lab[: m.start()].rstrip() + lab[m.start() : m.start(1)].split("name")[0], re.IGNORECASE):
            continue
        name, src = m.group(1), "label name:"
        break
    m = _TYPE_RE.search(lab)
    if m:
        typ = m.group(1)
    merged: tuple[str, ...] = ()
    m = _MERGED_RE.search(lab)
    if m:
        merged = tuple(x.strip() for x in re.split(r"[;,]", m.group(1)) if x.strip())
    if name is None and lab.strip():
        # record labels {a|b|c} or free text: first field that looks like an identifier
        fields = [f.strip() for f in re.split(r"[|{}\n]", lab) if f.strip()]
        if len(fields) >= 2 and fields[0].split()[0] in KNOWN_TYPES:
            typ = typ or fields[0].split()[0]
            fields = fields[1:]
        for f in fields:
            if ":" in f and re.match(r"^\w+\s*:", f):
                continue  # "key: value" pairs that are not names
            tok = f.split()[0]
            if re.match(r"^[\w/.:\-]+$", tok):
                name, src = tok, "label"
                break
    if name is None:
        name = node_id
    num = None
    m = re.search(r"(?:node|layer|id)\s*[:=_ ]?\s*([0-9]+)", lab + " " + node_id, re.IGNORECASE)
    if m:
        num = _number(m.group(1))
    elif node_id.isascii() and node_id.isdigit():
        num = _number(node_id)
    if type_attr and not typ:
        typ = type_attr
    return LabelReading(name, typ, merged, num, src)


def _number(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:  # more digits than Python converts
        return None

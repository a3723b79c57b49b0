"""nnie-triage: per-layer comparison of a Caffe reference run with NNIE mapper / simulator / board
dumps (issue 4). Dump readers/writers and names: :mod:`nnie_lsp.dumpio`; metrics and thresholds:
:mod:`.metrics`; alignment: :mod:`.align` (passes); ``cnn_net_tree.dot``: :mod:`.dot`; the
guide's decision tree: :mod:`.diagnose`, one module per case (:mod:`.preprocess_findings`,
:mod:`.quantization_findings`, :mod:`.layer_matching_findings`, :mod:`.postprocess`) writing engine
Diagnostics through :mod:`.findings`; orchestration and the JSON report: :mod:`.compare`."""

from .align import AlignedPair, Alignment, align, iter_pairs, load_pair
from .dot import DotGraph, DotNode, parse_dot, read_dot
from ..dumpio import (
    DumpSet,
    DumpTensor,
    read_hex_words,
    read_text_floats,
    resolve_layout,
    scan_dumps,
    write_bin,
    write_inst,
    write_mapper_input,
    write_mapper_quant,
    write_npy,
    write_npz,
    write_ruyi_caffe,
    write_text,
)
from .metrics import Metrics, Thresholds, compare_arrays
from ..dumpio.names import normalize_name

__all__ = [
    "AlignedPair", "Alignment", "align", "iter_pairs", "load_pair",
    "DotGraph", "DotNode", "parse_dot", "read_dot",
    "DumpSet", "DumpTensor", "read_hex_words", "read_text_floats", "resolve_layout", "scan_dumps",
    "write_bin", "write_inst", "write_mapper_input", "write_mapper_quant", "write_npy", "write_npz",
    "write_ruyi_caffe", "write_text",
    "Metrics", "Thresholds", "compare_arrays", "normalize_name",
]

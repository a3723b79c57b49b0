"""The board checks, in the order the board code runs (docs/field-facts.md §20):

1. **repeatability** -- two runs of one input must hold the same values, node by node (a stale
   cache, an output read before the forward finished, a second thread writing the buffer);
2. **the input** (when dumped) -- :mod:`.input_check`: row stride, HWC fed as planar, channel order;
3. **each output** -- every reading of the file (each output of a size it fits, each row stride
   from W to the blob's) against that output's tensor -- the simulator's, else Caffe's --: the row
   stride the values lie at, which output they are (a swap; outputs whose names agree in their first
   31 characters), and, on the reading that agrees, the scale by its magnitude (never the cosine:
   ×4096 has the cosine of the right values);
4. when none fires, how close each output is to the simulator (bit-exact, nearly, close) and to
   Caffe.

:func:`check_board` returns a :class:`BoardReport`; :mod:`.stage` turns it into findings and the
verdict.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from nnie_lsp.readers.dumpio.board import BoardValues, read_board_file
from nnie_lsp.readers.wk.contract import ContractNode
from nnie_lsp.readers.wk.model import DESTINATION, SOURCE
from nnie_lsp.triage.board.folder import BoardFile, BoardFolder
from nnie_lsp.triage.board.input_check import InputFinding, check_input
from nnie_lsp.triage.board.readings import (BoardThresholds, Closeness, as_tensor, best_scale, closeness, compare, coverage,
                       scale_name)


@dataclass
class Truth:
    """What a node's board tensor should be: the simulator's and Caffe's tensors of its blob."""

    blob: str
    caffe: np.ndarray | None = None
    sim: np.ndarray | None = None
    sim_cosine: float | None = None      # simulator against Caffe (the main comparison's row)

    @property
    def tensor(self) -> np.ndarray | None:
        return self.sim if self.sim is not None else self.caffe

    @property
    def against(self) -> str:
        return "simulator" if self.sim is not None else "Caffe"


@dataclass
class Issue:
    """One board mistake found: its T-code, message id and parameters, the node and file."""

    code: str
    kind: str
    node: ContractNode | None
    file: BoardFile | None
    params: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"code": self.code, "kind": self.kind, "node": self.node.blob_name if self.node else None,
                "file": self.file.name if self.file else None,
                "params": {k: v for k, v in self.params.items() if isinstance(v, (str, int, float, bool, type(None)))}}


@dataclass
class OutputCheck:
    """One output file read: what it was taken for and how it reads best."""

    file: BoardFile
    named: ContractNode | None          # the node its name says
    node: ContractNode | None           # the node its values are (the best agreeing reading)
    stride: int | None = None           # the row stride (values) of the best reading
    expected_stride: int | None = None  # the one the file's form and size imply
    cosine: float | None = None         # the best reading against its node's tensor
    cosine_as_read: float | None = None
    against: str = "simulator"
    scale: float | None = None
    scale_kind: str | None = None
    sim: Closeness | None = None        # the reading against the simulator (no mistake found)
    caffe_cosine: float | None = None
    values: np.ndarray | None = field(default=None, repr=False)   # the best reading, scale as in the file
    as_read: np.ndarray | None = field(default=None, repr=False)  # the reading its name and form imply
    note: str | None = None

    def to_json(self) -> dict:
        def num(x):
            return x if isinstance(x, (int, float)) and math.isfinite(x) else None
        return {"file": self.file.name, "run_folder": self.file.path.rsplit("/", 2)[-2] if "/" in self.file.path else "",
                "form": self.file.form, "named": self.named.blob_name if self.named else None,
                "named_by": self.file.named_by, "node": self.node.blob_name if self.node else None,
                "stride": self.stride, "expected_stride": self.expected_stride, "cosine": num(self.cosine),
                "cosine_as_read": num(self.cosine_as_read), "against": self.against, "scale": num(self.scale),
                "scale_kind": self.scale_kind, "simulator": self.sim.to_json() if self.sim else None,
                "caffe_cosine": num(self.caffe_cosine), "note": self.note}


@dataclass
class BoardReport:
    folder: BoardFolder
    issues: list[Issue] = field(default_factory=list)
    outputs: list[OutputCheck] = field(default_factory=list)
    input: InputFinding | None = None
    input_node: ContractNode | None = None
    repeat: dict | None = None          # runs compared, nodes that differ
    notes: list[str] = field(default_factory=list)
    thresholds: BoardThresholds = field(default_factory=BoardThresholds)
    truths: dict = field(default_factory=dict, repr=False)   # output blob -> Truth (what was compared)

    @property
    def mistakes(self) -> list[Issue]:
        return [i for i in self.issues if i.code not in ("T607", "T608")]


# ------------------------------------------------------------------ reading files

def _element_size(node: ContractNode | None) -> int | None:
    if node is None:
        return None
    return node.blob.element_size


def _load(f: BoardFile, report: BoardReport) -> BoardValues | None:
    try:
        return read_board_file(f.path, _element_size(f.node))
    except (ValueError, OSError) as exc:
        report.issues.append(Issue("T608", "unreadable", f.node, f, {"file": f.name, "error": str(exc)}))
        return None


# ------------------------------------------------------------------ 1. repeatability

def _values_only(values: np.ndarray, node: ContractNode | None) -> np.ndarray:
    """The values of a file without the padding after each row (which the chip never writes: it
    holds whatever the memory held, and may differ from run to run)."""
    if node is None:
        return values
    b = node.blob
    rows = b.channels * b.height
    if node.stride_words > b.width and values.size == rows * node.stride_words:
        return values.reshape(rows, node.stride_words)[:, : b.width].reshape(-1)
    return values


def _repeat(folder: BoardFolder, loaded: dict[str, BoardValues], truths: dict[str, Truth],
            report: BoardReport) -> None:
    if len(folder.runs) < 2:
        return
    first = folder.first
    differ, compared = [], 0
    for f in first.files:
        base = loaded.get(f.path)
        if base is None:
            continue
        for run in folder.runs[1:]:
            twin = next((g for g in run.files if g.stem == f.stem and g.form == f.form), None)
            if twin is None:
                continue
            other = loaded.get(twin.path)
            if other is None:
                other = _load(twin, report)
                if other is None:
                    continue
                loaded[twin.path] = other
            compared += 1
            if other.count != base.count:
                differ.append((f, run.label, 1.0, float("nan"), False))
                continue
            a, b = _values_only(base.values, f.node), _values_only(other.values, f.node)
            bad = ~((a == b) | (np.isnan(a) & np.isnan(b)))
            if bad.any():
                truth = truths.get(f.node.blob_name) if f.node is not None else None
                ref = truth.tensor if truth is not None else None
                limit = float(np.nanmax(np.abs(ref))) if ref is not None and ref.size else float(np.nanmax(np.abs(a)))
                wild = bool(np.nanmax(np.abs(np.concatenate([a[bad], b[bad]]))) > 8 * max(limit, 1e-12))
                differ.append((f, run.label, float(bad.mean()), float(np.nanmax(np.abs(a[bad] - b[bad]))), wild))
    report.repeat = {"runs": [r.label for r in folder.runs], "compared": compared,
                     "differ": [{"file": f.name, "run": run, "share": share, "max_difference": diff if math.isfinite(diff) else None,
                                 "far_above_range": wild} for f, run, share, diff, wild in differ]}
    if differ:
        f, run, share, diff, wild = max(differ, key=lambda d: d[2])
        names = ", ".join(sorted({d[0].name for d in differ}))
        report.issues.append(Issue("T606", "wild" if any(d[4] for d in differ) else "differ", f.node, f, {
            "files": names, "count": len(differ), "compared": compared, "first": folder.first.label, "run": run,
            "share": f"{100 * share:.1f}%", "difference": f"{diff:.6g}" if math.isfinite(diff) else "the size"}))


# ------------------------------------------------------------------ 3. outputs

def _counts(node: ContractNode) -> tuple[int, int]:
    b = node.blob
    return b.channels * b.height * b.width, b.channels * b.height * node.stride_words


def _fits(size: int, node: ContractNode) -> bool:
    return size in _counts(node)


def _expected_stride(size: int, node: ContractNode) -> int:
    packed, padded = _counts(node)
    return node.stride_words if size == padded and padded != packed else node.blob.width


def _bar(truth: Truth, th: BoardThresholds) -> float:
    if truth.sim is not None:
        return th.agree
    if truth.sim_cosine is not None and math.isfinite(truth.sim_cosine):
        return max(0.0, min(th.agree_caffe, truth.sim_cosine - th.caffe_slack))
    return th.agree_caffe


def _readings(values: np.ndarray, node: ContractNode, truth: Truth, th: BoardThresholds):
    """(stride, cosine, cover) of every row stride from W to the blob's the file covers enough."""
    b = node.blob
    tensor = truth.tensor
    if tensor is None or tensor.size != b.channels * b.height * b.width:
        return []
    out = []
    for s in range(b.width, node.stride_words + 1):
        cover = coverage(values.size, b.channels * b.height, b.width, s)
        if cover < th.min_coverage:
            continue
        reading = as_tensor(values, b.channels, b.height, b.width, s)
        out.append((s, compare(reading, tensor), cover))
    return out


def _output(f: BoardFile, bv: BoardValues, outputs: list[ContractNode], truths: dict[str, Truth],
            th: BoardThresholds) -> OutputCheck:
    size = bv.count
    check = OutputCheck(file=f, named=f.node if f.node is not None and f.node.role == DESTINATION else None,
                        node=None)
    candidates = [n for n in outputs if _fits(size, n) and truths.get(n.blob_name) is not None]
    scored = []
    for n in candidates:
        truth = truths[n.blob_name]
        for s, cos, cover in _readings(bv.values, n, truth, th):
            if math.isfinite(cos):
                scored.append((n, s, cos, cover))
    named = check.named
    as_read = None
    if named is not None and _fits(size, named):
        exp = _expected_stride(size, named)
        check.expected_stride = exp
        b = named.blob
        check.as_read = as_tensor(bv.values, b.channels, b.height, b.width, exp)
        as_read = next((x for x in scored if x[0] is named and x[1] == exp), None)
        check.cosine_as_read = as_read[2] if as_read else None
    if not scored:
        return check
    best = max(scored, key=lambda x: (x[2], x[0] is named, -abs(x[1] - _expected_stride(size, x[0]))))
    n, s, cos, _cover = best
    truth = truths[n.blob_name]
    if cos < _bar(truth, th):
        check.cosine, check.against = cos, truth.against
        return check
    base = as_read[2] if as_read is not None else -1.0
    # against the simulator a right reading is exact: one at the cosine of equal words beats an
    # as-read one below it whatever the gain; against Caffe (8-bit loss) only by ``gain``
    exact = truth.sim is not None and cos >= th.close and base < th.close
    if as_read is not None and (best is as_read or (cos < base + th.gain and not exact)):
        n, s, cos = as_read[0], as_read[1], as_read[2]
        truth = truths[n.blob_name]
    check.node, check.stride, check.cosine, check.against = n, s, cos, truth.against
    if check.expected_stride is None:
        check.expected_stride = _expected_stride(size, n)
    b = n.blob
    reading = as_tensor(bv.values, b.channels, b.height, b.width, s)
    check.values = reading
    check.scale = best_scale(reading, truth.tensor)
    check.scale_kind = scale_name(check.scale, th)
    return check


def _output_issues(checks: list[OutputCheck], contract, report: BoardReport) -> None:
    wrong = [c for c in checks if c.node is not None and c.named is not None and c.node is not c.named]
    paired: set[int] = set()
    for c in wrong:
        if id(c) in paired:
            continue
        back = next((d for d in wrong if d is not c and d.node is c.named and d.named is c.node), None)
        if back is not None:
            paired |= {id(c), id(back)}
            report.issues.append(Issue("T605", "swap", c.named, c.file, {
                "file": c.file.name, "other_file": back.file.name, "node": c.named.blob_name,
                "other": c.node.blob_name, "index": c.named.index, "other_index": c.node.index,
                "cosine": f"{c.cosine:.4f}", "cosine_as_read": _cos(c.cosine_as_read)}))
            continue
        kind = "collision" if c.node.name_bytes == c.named.name_bytes else "wrong_output"
        report.issues.append(Issue("T605", kind, c.named, c.file, {
            "file": c.file.name, "node": c.named.blob_name, "other": c.node.blob_name, "index": c.named.index,
            "other_index": c.node.index, "cut": c.named.name, "cosine": f"{c.cosine:.4f}",
            "cosine_as_read": _cos(c.cosine_as_read)}))
    # a file named by a 31-character name several outputs share: the dump holds one of them
    for c in checks:
        if c.file.ambiguous and c.node is not None:
            shared = c.file.ambiguous
            others = [n for n in shared if n is not c.node]
            first = shared[0]
            report.issues.append(Issue("T605", "collision_file", c.node, c.file, {
                "file": c.file.name, "cut": first.name, "nodes": ", ".join(n.blob_name for n in shared),
                "count": len(shared), "node": c.node.blob_name, "others": ", ".join(n.blob_name for n in others),
                "which": "first" if c.node is first else "last" if c.node is shared[-1] else "one",
                "cosine": f"{c.cosine:.4f}"}))
    for c in checks:
        if c.node is None or c in wrong:
            continue
        if c.stride is not None and c.expected_stride is not None and c.stride != c.expected_stride:
            n = c.node
            report.issues.append(Issue("T601", "output", n, c.file, {
                "file": c.file.name, "node": n.blob_name, "w": n.blob.width, "read_bytes": c.expected_stride * 4,
                "true_bytes": c.stride * 4, "blob_stride": n.blob.stride, "shape": _dims(n), "against": c.against,
                "cosine": f"{c.cosine:.4f}", "cosine_as_read": _cos(c.cosine_as_read)}))
    for c in checks:
        if c.node is not None and c.scale_kind is not None:
            k = c.scale or float("nan")
            words = c.file.form in ("raw", "hex")
            kind = {"x4096": "x4096", "/4096": "twice"}.get(c.scale_kind, "factor")
            report.issues.append(Issue("T602", kind + ("_words" if words else ""), c.node, c.file, {
                "file": c.file.name, "node": c.node.blob_name, "scale": f"{k:.6g}",
                "octaves": f"{math.log2(k):.2f}" if k > 0 else "?", "against": c.against}))


def _cos(x: float | None) -> str:
    return f"{x:.4f}" if x is not None and math.isfinite(x) else "—"


def _dims(n: ContractNode) -> str:
    b = n.blob
    return f"{b.channels}×{b.height}×{b.width}"


# ------------------------------------------------------------------ 4. closeness

def _closeness(checks: list[OutputCheck], truths: dict[str, Truth]) -> None:
    for c in checks:
        if c.node is None or c.values is None:
            continue
        truth = truths.get(c.node.blob_name)
        values = c.values
        if c.scale_kind is not None and c.scale:
            values = values / c.scale
        if truth is not None and truth.sim is not None:
            c.sim = closeness(values, truth.sim)
        if truth is not None and truth.caffe is not None and truth.caffe.size == values.size:
            c.caffe_cosine = compare(values, truth.caffe)


# ------------------------------------------------------------------ the whole

def check_board(folder: BoardFolder, truths: dict[str, Truth], input_truths: dict[str, Truth],
                th: BoardThresholds | None = None) -> BoardReport:
    """Every board check on ``folder`` (its first run; the others for repeatability).  ``truths``:
    by output blob; ``input_truths``: by input blob (the data tensors)."""
    th = th or BoardThresholds()
    report = BoardReport(folder=folder, thresholds=th, truths=truths)
    contract = folder.contract
    run = folder.first
    loaded: dict[str, BoardValues] = {}
    for f in run.files:
        bv = _load(f, report)
        if bv is not None:
            loaded[f.path] = bv
            if bv.note:
                report.notes.append(f"{f.name} {bv.note}")
    _repeat(folder, loaded, {**truths, **input_truths}, report)
    # 2. the input
    for f in run.files:
        node = f.node
        if node is None or node.role != SOURCE or f.path not in loaded:
            continue
        _input(f, node, loaded[f.path], input_truths, th, report)
    # 3. outputs
    outputs = list(contract.outputs)
    checks = []
    for f in run.files:
        if f.path not in loaded or (f.node is not None and f.node.role == SOURCE):
            continue
        c = _output(f, loaded[f.path], outputs, truths, th)
        checks.append(c)
        if c.node is None and c.cosine is None and f.node is not None and _fits(loaded[f.path].count, f.node) \
                and truths.get(f.node.blob_name) is None:
            report.notes.append(f"{f.name}: no reference or simulator tensor of {f.node.blob_name}: not compared")
        elif c.node is None and c.cosine is None:
            want = (f"{_counts(f.node)[0]} (C·H·W) or {_counts(f.node)[1]} (with the stride padding)"
                    if f.node is not None else None)
            report.issues.append(Issue("T608", "size" if want else "no_node", f.node, f, {
                "file": f.name, "count": loaded[f.path].count, "want": want or "",
                "node": f.node.blob_name if f.node else "",
                "outputs": ", ".join(f"{n.blob_name} {_dims(n)}" for n in outputs[:6]) or "none known"}))
    report.outputs = checks
    _output_issues(checks, contract, report)
    _closeness(checks, truths)
    if not any(c.node is not None or c.cosine is not None for c in checks) and report.input is None \
            and not any(i.code != "T608" for i in report.issues):
        names = ", ".join(f.name for f in run.files[:6]) + (" …" if len(run.files) > 6 else "")
        report.issues.append(Issue("T608", "nothing", None, None, {"files": names}))
    return report


def _input(f: BoardFile, node: ContractNode, bv: BoardValues, input_truths: dict[str, Truth],
           th: BoardThresholds, report: BoardReport) -> None:
    b = node.blob
    report.input_node = node
    if b.blob_type != "U8":
        report.notes.append(f"{f.name}: a {b.blob_type} input is not checked (only U8 image inputs are)")
        return
    truth = input_truths.get(node.blob_name)
    if truth is None or truth.tensor is None or truth.tensor.size != b.channels * b.height * b.width:
        report.notes.append(f"{f.name}: no data tensor of {node.blob_name} to check the board's input against")
        return
    found = check_input(bv.values, (b.channels, b.height, b.width), node.stride_words, truth.tensor, truth.against, th)
    if found is None:
        report.issues.append(Issue("T608", "size", node, f, {
            "file": f.name, "count": bv.count, "node": node.blob_name, "outputs": "",
            "want": f"{b.channels * b.height * b.width} (C·H·W) or {b.channels * b.height * node.stride_words} "
                    "(with the stride padding)"}))
        return
    report.input = found
    params = {"file": f.name, "node": node.blob_name, "w": b.width, "shape": _dims(node), "against": found.against,
              "r2": f"{found.r2:.4f}", "r2_as_read": f"{found.expected_r2:.4f}", "blob_stride": b.stride,
              "read_bytes": found.expected_stride, "true_bytes": found.stride}
    if found.r2 < th.input_r2:
        report.issues.append(Issue("T607", "input_differs", node, f, params))
        return
    if found.stride_wrong:
        report.issues.append(Issue("T601", "input", node, f, params))
    if found.layout == "HWC" or found.transposed:
        report.issues.append(Issue("T603", "hwc" if found.layout == "HWC" else "transposed", node, f, params))
    if found.swapped:
        perm = found.permutation
        report.issues.append(Issue("T604", "rgb_bgr" if perm == [2, 1, 0] else "permuted", node, f,
                                   {**params, "permutation": ", ".join(map(str, perm))}))

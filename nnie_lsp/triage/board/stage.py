"""The stage **board** of the verdict: the board checks (:mod:`.checks`) on ``compare --board DIR``
and what they do to the result.

- A board mistake (T601-T606, or a board input that is not the simulator's image, T607) → the
  verdict ``board: <the first mistake, in the order the board code runs>``, ``case`` null,
  ``next_step`` **7** (fix the board code the finding names, dump again, compare again); the guide's
  verdict of the Caffe → NNIE comparison is kept in the reason; case 4's T401 is left out (the
  post-processing is not next while the board reads its outputs wrong).
- No mistake: each output against the simulator (bit-exact, nearly, close) and Caffe → T607 (info)
  and the guide's verdict stands; an output that differs from the simulator with no reading to
  explain it → ``board: the board's outputs differ from the simulator's``, next step 7 (T607,
  warning).
- Without a simulator side (``compare --reference DIR --board DIR``): the board against Caffe
  alone (:func:`board_only_result`): every output ≥ ``good`` → case 4; else the stage cannot be
  placed, next step 1 (make the simulator's dumps).

The truth the board is read against: the simulator's tensor of each output's blob (aligned with
the Caffe reference as the comparison aligns them), else Caffe's; the image is the last pair of
the comparison (the one the mapper dumps).
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING

import numpy as np

from nnie_lsp.readers.dumpio.names import normalize_name
from nnie_lsp.readers.wk.model import SOURCE
from nnie_lsp.triage.board.checks import BoardReport, OutputCheck, Truth, check_board
from nnie_lsp.triage.board.findings import ASSIGNMENT, CHANNELS, LAYOUT, REPEAT, SCALE, STRIDE, VERSUS
from nnie_lsp.triage.board.folder import BoardFolder, board_contract, instruction_wk, read_board_folders
from nnie_lsp.triage.board.readings import BoardThresholds

if TYPE_CHECKING:
    from nnie_lsp.triage.diagnose.builder import Sources

NEXT_STEP = 7
NEXT_TEXT = "step 7 (the board): fix the board code the finding names, dump the board again and compare again"
NO_SIM_TEXT = ("step 1: compare layer by layer — make the simulator's dumps (nnie_mapper's mapper_quant/, the "
               "instruction simulator, or nnie-triage emulate), compare them with Caffe, then the board with them")
VERDICT = "board: "
_INPUT_ORDER = {STRIDE: 0, LAYOUT: 1, CHANNELS: 2, VERSUS: 3}
_OUTPUT_ORDER = {STRIDE: 0, ASSIGNMENT: 1, SCALE: 2, VERSUS: 3}
AGAINST_ZH = {"simulator": "仿真", "Caffe": "Caffe"}


# ------------------------------------------------------------------ truths

def _reference_tensors(folder: str) -> dict[str, object]:
    from nnie_lsp.readers.dumpio.scan import scan_dumps

    out: dict[str, object] = {}
    for t in scan_dumps(str(folder)).tensors:
        if t.role == "output" and t.index == 0:
            out.setdefault(normalize_name(t.key), t)
    return out


def _sim_tensors(reference: str, sim: str | None, graph, dot) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Blob key → (Caffe, simulator) arrays of every aligned pair (the comparison's alignment)."""
    if sim is None:
        return {}
    from nnie_lsp.triage.align.driver import align
    from nnie_lsp.triage.inputs.load import scan_folder

    ref_set = scan_folder(reference, "reference dump folder")
    sim_set = scan_folder(sim, "simulator dump folder")
    dot_graph = None
    if dot is not None and os.path.isfile(dot):
        from nnie_lsp.readers.mapper.nettree import parse_net_tree
        from nnie_lsp.core.text import read_text

        dot_graph = parse_net_tree(read_text(str(dot)).text, path=str(dot))
    al = align(ref_set, sim_set, graph, dot_graph)
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for pair in al.pairs:
        blob = getattr(pair, "blob", None)
        if not blob or pair.ref is None or pair.sim is None:
            continue
        out.setdefault(normalize_name(blob), (pair, None))
    return out


def _load_truths(contract, reference: dict, sim_pairs: dict, rows) -> tuple[dict[str, Truth], dict[str, Truth]]:
    from nnie_lsp.triage.align.driver import load_pair

    cos_by_blob = {normalize_name(r.blob): r.cosine for r in rows or () if r.blob and r.metrics is not None}
    outputs: dict[str, Truth] = {}
    inputs: dict[str, Truth] = {}
    for node in contract.nodes:
        if node.role == SOURCE and node.segment > 0:
            continue
        key = normalize_name(node.blob_name)
        target = inputs if node.role == SOURCE else outputs
        if node.blob_name in target:
            continue
        truth = Truth(node.blob_name)
        t = reference.get(key)
        if t is not None:
            try:
                truth.caffe = np.asarray(t.load(), dtype=np.float64)
            except (OSError, ValueError):
                truth.caffe = None
        hit = sim_pairs.get(key)
        if hit is not None:
            try:
                ref, sim, _note = load_pair(hit[0])
                truth.sim = np.asarray(sim, dtype=np.float64)
                if truth.caffe is None:
                    truth.caffe = np.asarray(ref, dtype=np.float64)
            except (OSError, ValueError):
                truth.sim = None
        c = cos_by_blob.get(key)
        truth.sim_cosine = c if c is not None and math.isfinite(c) else None
        if truth.caffe is not None or truth.sim is not None:
            for attr in ("caffe", "sim"):
                arr = getattr(truth, attr)
                b = node.blob
                if arr is not None and arr.size == b.channels * b.height * b.width:
                    setattr(truth, attr, arr.reshape(b.channels, b.height, b.width))
            target[node.blob_name] = truth
    return outputs, inputs


def _image_types(sources: Sources | None) -> dict[int, int]:
    out: dict[int, int] = {}
    project = sources.project if sources is not None else None
    if project is None:
        return out
    for k in range(8):
        prep = project.input_preprocessing(k)
        if prep is None:
            break
        if prep.image_type is not None:
            out[k] = prep.image_type
    return out


def run_board_checks(boards, *, reference: str, sim: str | None, cfg: str | None, wk: str | None, graph, dot,
                     sources: Sources | None, rows=None, thresholds: BoardThresholds | None = None) -> BoardReport:
    """The board folders read against the reference (and the simulator) of one image."""
    ref_tensors = _reference_tensors(reference)
    stems = []
    for folder in boards:
        if os.path.isdir(folder):
            stems += [os.path.splitext(n)[0] for n in sorted(os.listdir(folder))]
    wk_path = wk or instruction_wk(cfg)
    contract = board_contract(wk=wk_path, graph=graph, reference=ref_tensors, image_types=_image_types(sources),
                              named=stems)
    folder: BoardFolder = read_board_folders(boards, contract)
    sim_pairs = _sim_tensors(reference, sim, graph, dot)
    truths, input_truths = _load_truths(contract, ref_tensors, sim_pairs, rows)
    report = check_board(folder, truths, input_truths, thresholds)
    report.notes[:0] = list(contract.notes) + list(folder.warnings)
    _inferred_input(report, cfg, truths)
    return report


_INFERRED = {"hwc": ("T603", "hwc_inferred"), "rgb": ("T604", "rgb_bgr_inferred"), "input_stride": ("T601", "input_inferred")}


def _inferred_input(report: BoardReport, cfg: str | None, truths: dict) -> None:
    """No input dumped, no board mistake found and every output disagreeing with the simulator:
    the input mistakes tried by emulation (:mod:`.input_mistakes`)."""
    from nnie_lsp.triage.board.checks import Issue

    inputs = report.folder.contract.inputs
    named = [c for c in report.outputs if c.named is not None]
    if (not cfg or report.mistakes or report.input_node is not None or len(inputs) != 1 or not named
            or inputs[0].blob.blob_type != "U8"):
        return
    disagree = [c for c in named if (c.node is None and c.cosine is not None)
                or (c.node is not None and c.sim is not None and c.sim.level(report.thresholds) == "differs")]
    if not disagree:
        return
    from nnie_lsp.triage.board.input_mistakes import infer_from_outputs

    try:
        found = infer_from_outputs(report, cfg, node=inputs[0], truths=truths)
    except (ImportError, OSError, ValueError) as exc:   # no OpenCV, no caffemodel, an image that cannot be read
        report.notes.append(f"the input mistakes were not tried from the outputs: {exc}")
        return
    if found is None:
        return
    mistake, params = found
    code, kind = _INFERRED[mistake]
    node = inputs[0]
    b = node.blob
    report.issues.append(Issue(code, kind, node, None, {
        "node": node.blob_name, "shape": f"{b.channels}×{b.height}×{b.width}", "w": b.width,
        "blob_stride": b.stride, **params}))


# ------------------------------------------------------------------ findings and verdict

def _place(sources: Sources, node) -> tuple | None:
    if node is None or sources is None:
        return None
    blob = node.blob_name
    if node.role == SOURCE:
        return sources.input_place(blob)
    graph = sources.graph
    chain = graph.chain_of(blob) if graph is not None else None
    if chain is not None:
        return sources.layer_place(chain.head.name)
    return sources.layer_place(blob)


def _layer(sources: Sources, node) -> str | None:
    if node is None:
        return None
    graph = sources.graph if sources is not None else None
    chain = graph.chain_of(node.blob_name) if graph is not None and node.role != SOURCE else None
    return chain.head.name if chain is not None else node.blob_name


def rank(issue) -> tuple[int, int]:
    """The order the board code runs (the first mistake in it names the verdict): the runs, the input
    (its stride, layout, channel order), then the outputs (stride, which output, scale)."""
    if issue.code == REPEAT:
        return (0, 0)
    if (issue.node is not None and issue.node.role == SOURCE) or issue.kind == "input_differs":
        return (1, _INPUT_ORDER.get(issue.code, 4))
    return (2, _OUTPUT_ORDER.get(issue.code, 4))


def _short(issue) -> str:
    p = issue.params
    node = p.get("node", "?")
    return {
        ("T601", "output"): f"{node} read with a row stride of {p.get('read_bytes')} bytes, not {p.get('true_bytes')}",
        ("T601", "input"): f"input {node} written with a row stride of {p.get('true_bytes')} bytes, not {p.get('blob_stride')}",
        ("T602", "x4096"): f"{node} not divided by 4096 (×4096)",
        ("T602", "twice"): f"{node} divided by 4096 twice",
        ("T603", "hwc"): f"input {node} fed as packed H,W,C into the planar C,H,W blob",
        ("T603", "transposed"): f"input {node} fed with H and W swapped",
        ("T604", "rgb_bgr"): f"input {node}'s channels swapped (RGB/BGR)",
        ("T604", "permuted"): f"input {node}'s channels permuted",
        ("T605", "swap"): f"outputs {node} and {p.get('other')} swapped",
        ("T605", "wrong_output"): f"{p.get('file')} holds {p.get('other')}'s values, not {node}'s",
        ("T605", "collision"): f"31-character name collision: {p.get('file')} holds {p.get('other')}'s values",
        ("T605", "collision_file"): f"31-character name collision: {p.get('cut')} stands for {p.get('count')} outputs",
        ("T606", "differ"): "two runs of one input differ (cache or an unfinished forward)",
        ("T606", "wild"): "two runs of one input differ (another thread writing the buffer)",
        ("T607", "input_differs"): f"the board's input {node} is not the simulator's image",
        ("T601", "input_inferred"): f"input {node} written with a row stride of {p.get('w')} bytes, not "
                                    f"{p.get('blob_stride')} (inferred from the outputs)",
        ("T603", "hwc_inferred"): f"input {node} fed as packed H,W,C (inferred from the outputs)",
        ("T604", "rgb_bgr_inferred"): f"input {node}'s channels swapped (RGB/BGR; inferred from the outputs)",
    }.get((issue.code, issue.kind), f"{node} off by ×{p.get('scale')}" if issue.code == "T602" else issue.kind)


def _summary(report: BoardReport, th: BoardThresholds) -> tuple[str, list[OutputCheck]]:
    """"2 outputs bit-exact (prob1, conv4-2); Caffe cosine ≥ 0.9912" and the outputs that differ."""
    levels: dict[str, list[str]] = {}
    differ = []
    caffe = []
    for c in report.outputs:
        if c.node is None:
            continue
        if c.sim is not None:
            level = c.sim.level(th)
            levels.setdefault(level, []).append(c.node.blob_name)
            if level == "differs":
                differ.append(c)
        if c.caffe_cosine is not None and math.isfinite(c.caffe_cosine):
            caffe.append(c.caffe_cosine)
    parts = []
    for level in ("bit-exact", "nearly bit-exact", "close", "similar", "differs"):
        names = levels.get(level)
        if names:
            extra = ""
            if level != "bit-exact":
                worst = max((c.sim.max_lsb or 0) for c in report.outputs if c.node is not None and c.sim is not None
                            and c.node.blob_name in names)
                extra = f", up to {worst:g} steps of 1/4096" if worst else ""
            parts.append(f"{len(names)} output{'s' if len(names) != 1 else ''} {level} ({', '.join(names)}{extra})")
    if caffe:
        parts.append(f"against Caffe cosine ≥ {min(caffe):.4f}")
    return "; ".join(parts) or "no output compared", differ


def apply(diag, report: BoardReport, sources: Sources, *, has_sim: bool) -> None:
    """The board's findings and, when a check fires, the verdict (module doc)."""
    from nnie_lsp.triage.diagnose.builder import FindingBuilder
    from nnie_lsp.triage.diagnose.postprocessing import CHECK_POSTPROCESSING

    th = report.thresholds
    builder = FindingBuilder(sources)
    lang = sources.lang if sources is not None else "en"
    for issue in report.issues:
        params = dict(issue.params)
        if "against" in params and lang == "zh":
            params["against"] = AGAINST_ZH.get(params["against"], params["against"])
        if issue.code in (STRIDE, ASSIGNMENT):
            params["contract"] = builder.text(issue.code, "contract")
        if issue.code == CHANNELS:
            params["hedge"] = builder.text(CHANNELS, "hedge") if issue.params.get("against") == "Caffe" else ""
        if issue.kind == "collision_file":
            params["which"] = builder.text(ASSIGNMENT, params.get("which", "one"))
        builder.add(issue.code, issue.kind, place=_place(sources, issue.node), layer=_layer(sources, issue.node),
                    **params)
    mistakes = sorted(report.mistakes + [i for i in report.issues if i.code == VERSUS], key=rank)
    summary, differ = _summary(report, th)
    before = f"{diag.verdict} (case {diag.case})" if diag.case and "(case" not in diag.verdict else diag.verdict
    if mistakes:
        diag.verdict = VERDICT + _short(mistakes[0])
        diag.reason = "; ".join(_short(i) for i in mistakes) + (
            f"; the Caffe → NNIE comparison alone says: {before}" if has_sim else "")
        diag.case, diag.next_step = None, NEXT_STEP
        diag.findings = builder.items + [f for f in diag.findings if f.code != CHECK_POSTPROCESSING]
        return
    if differ:
        for c in differ:
            builder.add(VERSUS, "differs", severity=_warning(), place=_place(sources, c.node),
                        layer=_layer(sources, c.node), file=c.file.name, node=c.node.blob_name,
                        how=f"cosine {c.sim.cosine:.6f}" + (f", up to {c.sim.max_lsb:g} steps of 1/4096"
                                                           if c.sim.max_lsb is not None else ""))
        diag.verdict = VERDICT + "the board's outputs differ from the simulator's"
        diag.reason = f"{summary}; the Caffe → NNIE comparison alone says: {before}"
        diag.case, diag.next_step = None, NEXT_STEP
        diag.findings = builder.items + [f for f in diag.findings if f.code != CHECK_POSTPROCESSING]
        return
    unread = [c for c in report.outputs if c.node is None and c.cosine is not None]
    if unread and has_sim:
        for c in unread:
            builder.add(VERSUS, "differs", severity=_warning(), place=_place(sources, c.named), layer=_layer(sources, c.named),
                        file=c.file.name, node=c.named.blob_name if c.named else c.file.stem,
                        how=f"best reading's cosine {c.cosine:.4f}")
        diag.verdict = VERDICT + "the board's outputs differ from the simulator's"
        diag.reason = f"no reading of {', '.join(c.file.name for c in unread)} agrees with the simulator; {summary}"
        diag.case, diag.next_step = None, NEXT_STEP
        diag.findings = builder.items + [f for f in diag.findings if f.code != CHECK_POSTPROCESSING]
        return
    if any(c.node is not None for c in report.outputs) and has_sim:
        builder.add(VERSUS, "same", summary=summary)
        diag.reason = f"{diag.reason}; the board computes what the simulator computes: {summary}"
    diag.findings = builder.items + diag.findings


def _warning():
    from nnie_lsp.core.diagnostics import Severity
    return Severity.WARNING


def board_json(report: BoardReport, folders) -> dict:
    """The result's ``board`` section (docs/triage-schema.md, "The board")."""
    contract = report.folder.contract
    return {
        "folders": [str(f) for f in folders],
        "runs": [{"label": r.label, "folder": r.folder, "files": [f.name for f in r.files], "ignored": list(r.ignored)}
                 for r in report.folder.runs],
        "contract": {"source": contract.source, "path": contract.path,
                     "nodes": [n.to_json() for n in contract.nodes]},
        "files": [{"file": f.name, "form": f.form, "node": f.node.blob_name if f.node else None,
                   "named_by": f.named_by, "ambiguous": [n.blob_name for n in f.ambiguous]}
                  for f in report.folder.first.files],
        "input": report.input.to_json() if report.input is not None else None,
        "outputs": [c.to_json() for c in report.outputs],
        "repeat": report.repeat,
        "issues": [i.to_json() for i in report.issues],
        "mistakes": [{"code": i.code, "kind": i.kind, "summary": _short(i)} for i in
                     sorted(report.mistakes + [i for i in report.issues if i.code == VERSUS], key=rank)],
        "notes": report.notes,
        "thresholds": report.thresholds.to_json(),
    }


# ------------------------------------------------------------------ the pipeline's entries

def _graph(prototxt: str | None):
    from nnie_lsp.triage.inputs.load import TriageInputError, load_graph

    if not prototxt:
        return None
    try:
        return load_graph(prototxt)
    except TriageInputError:
        return None   # the comparison says so (T007)


def board_stage(request, pairs, result) -> None:
    """``compare --board`` with a simulator side: the board checks on the last image pair, their
    findings and the verdict in ``result`` (a :class:`~nnie_lsp.triage.result.TriageResult`)."""
    from nnie_lsp.triage.inputs.load import TriageInputError, read_sources

    pair = pairs[-1]
    graph = _graph(request.prototxt)
    sources = read_sources(request.cfg, graph, request.lang)
    rows = result.rows if len(pairs) == 1 else None
    try:
        report = run_board_checks(request.board, reference=str(pair.reference), sim=str(pair.sim), cfg=request.cfg,
                                  wk=request.wk, graph=graph, dot=request.dot, sources=sources, rows=rows)
    except ValueError as exc:
        raise TriageInputError(str(exc)) from exc
    apply(result.diagnosis, report, sources, has_sim=True)
    result.inputs["board"] = [str(b) for b in request.board]
    result.board = board_json(report, request.board)
    if result.diagnosis.next_step == NEXT_STEP:
        result.board["next_step_text"] = NEXT_TEXT


def board_only_result(request, progress=None):
    """``compare --reference DIR --board DIR`` without a simulator side: the board checks against
    Caffe and a result whose rows are the board's outputs against Caffe (module doc)."""
    import time

    from nnie_lsp.triage.diagnose.tree import Diagnosis
    from nnie_lsp.triage.inputs.image_sets import DumpFolder
    from nnie_lsp.triage.measure.metrics import Thresholds, compare_arrays
    from nnie_lsp.triage.inputs.load import TriageInputError, read_sources
    from nnie_lsp.triage.measure.rows import LayerRow
    from nnie_lsp.triage.result import TriageResult, row_places

    t0 = time.perf_counter()
    th = request.thresholds or Thresholds()
    if not os.path.exists(request.reference):
        raise TriageInputError(f"reference dump folder {request.reference} does not exist")
    folder = DumpFolder.read(request.reference)
    reference = str(folder.images[-1].path) if folder.images else request.reference
    graph = _graph(request.prototxt)
    sources = read_sources(request.cfg, graph, request.lang)
    try:
        report = run_board_checks(request.board, reference=reference, sim=None, cfg=request.cfg, wk=request.wk,
                                  graph=graph, dot=request.dot, sources=sources)
    except ValueError as exc:
        raise TriageInputError(str(exc)) from exc
    diag = Diagnosis(case=None, next_step=1, verdict="", reason="", first_divergence=None)
    rows = []
    for k, c in enumerate(report.outputs):
        node = c.node or c.named
        if node is None:
            continue
        row = LayerRow(name=_layer(sources, node) or node.blob_name, order=k, metrics=None, blob=node.blob_name,
                       matched_by="board", confidence=1.0, is_output=True, note=f"board file {c.file.name}")
        if c.node is not None and c.values is not None:
            values = c.values / c.scale if c.scale_kind and c.scale else c.values
            truth = _caffe_of(report, c)
            if truth is not None:
                row.metrics = compare_arrays(truth.reshape(-1), values.reshape(-1))
                row.shape = tuple(truth.shape)
        rows.append(row)
    apply(diag, report, sources, has_sim=False)
    if not report.mistakes:
        compared = [r for r in rows if r.metrics is not None]
        summary, _ = _summary(report, report.thresholds)
        from nnie_lsp.triage.diagnose.builder import FindingBuilder

        builder = FindingBuilder(sources)
        if compared and all(r.cosine >= th.good for r in compared):
            builder.add(VERSUS, "caffe", summary=summary)
            diag.case, diag.next_step = 4, 5
            diag.verdict = "post-processing (case 4)"
            diag.reason = (f"every board output ≥ {th.good} against Caffe ({summary}); the NNIE side was not compared "
                           "layer by layer (no simulator dumps)")
        else:
            low = [r for r in rows if r.metrics is None or r.cosine < th.good]
            for r in low:
                c = next(x for x in report.outputs if (x.node or x.named) is not None and (x.node or x.named).blob_name == r.blob)
                builder.add(VERSUS, "caffe_differs", severity=_warning(), place=_place(sources, c.node or c.named),
                            layer=r.name, file=c.file.name, node=r.blob,
                            how=f"cosine {r.cosine:.4f}" if r.metrics is not None else "no reading agrees")
            diag.verdict = VERDICT + "the board's outputs differ from Caffe"
            diag.reason = (f"{len(low)} of {len(rows)} board outputs below {th.good} against Caffe and no board-code "
                           "mistake explains it; without the simulator's dumps the loss cannot be placed")
            diag.next_step = 1
        diag.findings = builder.items + diag.findings
    result = TriageResult(
        diagnosis=diag, rows=rows, rows16=None, unmatched_ref=[], unmatched_sim=[], notes=[], warnings=[],
        inputs={"reference": str(request.reference), "sim": None, "sim_16bit": None,
                "cfg": str(request.cfg) if request.cfg else None,
                "prototxt": str(request.prototxt) if request.prototxt else None,
                "dot": str(request.dot) if request.dot else None, "postprocess": None,
                "board": [str(b) for b in request.board],
                "reference_kind": None, "sim_kind": None, "working_directory": os.getcwd()},
        thresholds=th, elapsed_s=time.perf_counter() - t0, places=row_places(rows, sources))
    result.board = board_json(report, request.board)
    if diag.next_step == NEXT_STEP:
        result.board["next_step_text"] = NEXT_TEXT
    elif diag.next_step == 1:
        result.board["next_step_text"] = NO_SIM_TEXT
    return result


def _caffe_of(report: BoardReport, check: OutputCheck) -> np.ndarray | None:
    truth = report.truths.get(check.node.blob_name) if check.node is not None else None
    return truth.caffe if truth is not None else None

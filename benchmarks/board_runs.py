"""The board row of ``bench_verdicts.py``: board dumps of the real models, faithful or with ONE
board-code mistake (docs/field-facts.md §20), through ``nnie-triage compare --board``.

Every model runs as a user runs it: a cfg with its real preprocessing, ``nnie-triage reference``
and ``nnie-triage emulate`` (the CLI, in process); the board dumps are what a board program writes
(``nnie_lsp.testing.board_dumps``: the forms of ``board_code/nnie_board_dump.c``) of the
emulation's outputs -- the chip's values, on the planes the chip reads: for an input mistake the
emulation runs on the input the board fed.  The faults and nets are the benchmark's own (other
nets, sizes, outputs and seeds than ``tests/triage/cases/board.toml``):

- MTCNN det1 at 36×36 (two 13×13 outputs: 52 bytes per row, 64 on the board; a 36-wide U8 input,
  48 on the board), det2 (24×24, vector outputs), det3 (48×48, three vector outputs),
  yufacedetectnet (320×240 BGR, the SSD's two flattened NNIE outputs);
- mistakes: ``stride`` (an output's rows read W values apart: printed, or kept as S32 words),
  ``x4096`` (printed without /4096), ``twice`` (divided twice), ``hwc`` (a packed H,W,C Mat copied
  into the planes), ``rgb`` (channels 0 and 2 exchanged), ``input_stride`` (the input's rows copied
  W bytes apart), ``swap`` (two outputs exchanged), ``collision`` (det1 with its outputs renamed so
  that their first 31 characters agree: ``strncmp`` finds the first for both) and
  ``collision_file`` (dumped by the shared 31-character name), ``stale`` and ``thread`` (two runs
  of one input that differ: rows of another image, words far above the range);
- faithful boards in every form (the blob memory .bin with and without the input, .txt, .hex).

Right: a mistake's run gets the verdict ``board: …`` whose first mistake is that one (its T-code
and kind); a faithful run gets the guide's verdict of its healthy simulator (case 4) and no board
mistake.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Callable

TRUTHS = ("board", "board-faithful")

#: (fault, the first mistake the board checks must name: T-code, kind)
NAMED = {
    "stride": ("T601", "output"), "x4096": ("T602", "x4096"), "twice": ("T602", "twice"),
    "hwc": ("T603", "hwc"), "rgb": ("T604", "rgb_bgr"), "input_stride": ("T601", "input"),
    "swap": ("T605", "swap"), "collision": ("T605", "collision"), "collision_file": ("T605", "collision_file"),
    "stale": ("T606", "differ"), "thread": ("T606", "wild"),
}
#: det1's outputs renamed so that the .wk would keep the same 31 characters for both
COLLIDING = {"prob1": "pnet_face_classification_output_prob", "conv4-2": "pnet_face_classification_output_bbox"}


def board_column(doc: dict | None) -> str | None:
    """The column of a report with the stage board (``None``: not that stage)."""
    if doc is not None and str(doc.get("verdict") or "").startswith("board:"):
        return "board"
    return None


def _first_mistake(doc: dict) -> tuple[str, str] | None:
    mistakes = (doc.get("board") or {}).get("mistakes") or []
    return (mistakes[0]["code"], mistakes[0]["kind"]) if mistakes else None


#: an input mistake with no input dumped: inferred from the outputs (the emulation fed that way)
INFERRED = {"hwc": ("T603", "hwc_inferred"), "rgb": ("T604", "rgb_bgr_inferred"),
            "input_stride": ("T601", "input_inferred")}


def expect_board(fault: str, expect_cls, with_input: bool = True):
    code, kind = NAMED[fault] if with_input or fault not in INFERRED else INFERRED[fault]

    def check(doc: dict) -> tuple[bool, str]:
        if board_column(doc) is None:
            return False, f"not the stage board: {doc.get('verdict')}"
        first = _first_mistake(doc)
        ok = first == (code, kind)
        return ok, "" if ok else f"named {first} instead of {(code, kind)}"
    return expect_cls(f"board: {code} {kind}", check)


def expect_faithful(expect_cls):
    def check(doc: dict) -> tuple[bool, str]:
        if board_column(doc) is not None or _first_mistake(doc):
            return False, f"false alarm: {doc.get('verdict')}"
        if doc.get("case") != 4:
            return False, f"case {doc.get('case')} on a healthy run"
        t607 = [f for f in doc.get("findings") or [] if f.get("code") == "T607"]
        ok = bool(t607) and "bit-exact" in (t607[0].get("message") or "")
        return ok, "" if ok else "no T607 saying the board equals the simulator"
    return expect_cls("case 4, board = simulator", check)


def _rename_tops(text: str, names: dict[str, str]) -> str:
    for old, new in names.items():
        text = re.sub(rf'(\b(?:top|bottom)\s*:\s*")({re.escape(old)})(")', rf"\g<1>{new}\3", text)
    return text


def board_runs(r, model, expect_cls, *, faults: list[tuple], faithful: list[tuple], outputs=None) -> None:
    """The board runs of one model (``r`` a ``bench_verdicts.Runner``): each ``(fault, nodes, form,
    input, quick)`` and each faithful ``(form, input, quick)``."""
    from nnie_lsp.testing.board_dumps import board_from_cfg

    cfg = r.cfg("net")
    ref = lambda: r.reference(cfg)  # noqa: E731
    sim = lambda: r.emulate(cfg, "sim8")  # noqa: E731

    def compare(board: Path, cfg_path: Path, ref_dir: Path, sim_dir: Path) -> dict:
        out = r.root / f"report{r.commands}.json"
        r._run(["compare", "--reference", str(ref_dir), "--sim", str(sim_dir), "--cfg", str(cfg_path),
                "--board", str(board), "--format", "json", "--output", str(out), "--progress", "none"])
        doc = json.loads(out.read_text(encoding="utf-8"))
        doc["_bench"] = {"board": {k: (doc.get("board") or {}).get(k) for k in ("mistakes", "notes")}}
        return doc

    for form, with_input, quick in faithful:
        def build(form=form, with_input=with_input):
            board = r.root / f"board_ok_{form}{'_in' if with_input else ''}"
            shutil.rmtree(board, ignore_errors=True)
            ref_dir, sim_dir = ref(), sim()
            board_from_cfg(str(cfg), str(board), form=form, with_input=with_input, transpose=model.transpose,
                           outputs=outputs)
            return compare(board, cfg, ref_dir, sim_dir)
        r.case("board-faithful", f"faithful board, {form}{' + input' if with_input else ''}", expect_faithful(expect_cls),
               build, quick=quick)
    for fault, nodes, form, with_input, quick in faults:
        def build(fault=fault, nodes=nodes, form=form, with_input=with_input):
            c, ref_dir, sim_dir, outs = cfg, ref(), sim(), outputs
            if fault.startswith("collision"):
                proto = r.root / "colliding.prototxt"
                proto.write_text(_rename_tops(model.prototxt.read_text(encoding="utf-8"), COLLIDING), encoding="utf-8")
                c = r.cfg("colliding", prototxt=proto)
                ref_dir, sim_dir = r.reference(c, "ref_colliding"), r.emulate(c, "sim_colliding")
                nodes = tuple(COLLIDING[n] for n in nodes)
                outs = None
            board = r.root / f"board_{fault}_{form}"
            shutil.rmtree(board, ignore_errors=True)
            board_from_cfg(str(c), str(board), fault=fault, nodes=nodes, form=form, with_input=with_input,
                           transpose=model.transpose, seed=7, outputs=outs)
            return compare(board, c, ref_dir, sim_dir)
        label = f"{fault}{' on ' + ', '.join(nodes) if nodes else ''} ({form}{', input dumped' if with_input else ''})"
        r.case("board", label, expect_board(fault, expect_cls, with_input), build, quick=quick)


def run_board(root: Path, quick: bool, *, runner_cls, model_fns: dict[str, Callable], expect_cls):
    """Every model's board runs (``model_fns``: key -> a ``bench_verdicts.Model`` factory or None)."""
    records, models = [], []
    plan = {
        "det1": dict(faults=[("stride", ("prob1",), "txt", True, True), ("stride", ("conv4-2",), "bin", False, False),
                             ("x4096", ("prob1",), "txt", True, True), ("twice", ("conv4-2",), "txt", False, False),
                             ("hwc", (), "bin", True, True), ("rgb", (), "bin", True, False),
                             ("hwc", (), "txt", False, False), ("rgb", (), "bin", False, True),
                             ("input_stride", (), "bin", True, True), ("swap", ("prob1", "conv4-2"), "bin", False, True),
                             ("collision", ("prob1", "conv4-2"), "bin", False, True),
                             ("collision_file", ("prob1", "conv4-2"), "bin", False, False),
                             ("stale", (), "bin", False, True), ("thread", (), "txt", False, False)],
                     faithful=[("bin", True, True), ("txt", False, False), ("hex", False, False)]),
        "det2": dict(faults=[("x4096", ("conv5-2",), "txt", False, False), ("twice", ("prob1",), "txt", False, False),
                             ("hwc", (), "bin", True, False), ("rgb", (), "bin", True, False),
                             ("input_stride", (), "bin", True, False), ("input_stride", (), "bin", False, False),
                             ("swap", ("prob1", "conv5-2"), "bin", False, False),
                             ("stale", (), "bin", False, False)],
                     faithful=[("bin", True, False), ("txt", False, False)]),
        "det3": dict(faults=[("x4096", ("conv6-3",), "txt", False, False), ("hwc", (), "bin", True, False),
                             ("rgb", (), "bin", True, False), ("swap", ("conv6-2", "conv6-3"), "bin", False, False),
                             ("thread", (), "bin", False, False)],
                     faithful=[("txt", True, False), ("hex", False, False)]),
        "yuface": dict(faults=[("x4096", ("mbox_conf_flatten",), "txt", False, False), ("hwc", (), "bin", True, False),
                               ("rgb", (), "bin", True, False), ("rgb", (), "bin", False, False),
                               ("hwc", (), "bin", False, False),
                               ("swap", ("mbox_loc", "mbox_conf_flatten"), "bin", False, False),
                               ("stale", (), "bin", False, False)],
                       faithful=[("bin", True, False)], outputs=("mbox_loc", "mbox_conf_flatten")),
    }
    for key, spec in plan.items():
        model = model_fns[key](root / key)
        if model is None:
            continue
        model.key = f"board-{key}"
        r = runner_cls(model, root / key, quick)
        board_runs(r, model, expect_cls, **spec)
        records += r.records
        models.append(model)
    return models, records

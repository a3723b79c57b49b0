"""The "cfg-only loop" row of bench_verdicts.py: the Caffe reference AND the emulation both made from the
cfg under test, as a user runs the product's own loop (``nnie-triage reference --cfg``, ``emulate --cfg``,
``compare --cfg``), with and without a model card (docs/field-facts.md §19).

- **without a card**: both sides share the cfg's preprocessing, so the mistake cannot show.  Right: the
  product says so (T100 among the findings, ``reference_source.independent`` false) -- a silent
  "healthy" is the miss this row measures;
- **with a card** (``nnie.toml`` beside the cfg, the model's true preprocessing): right is case 1 with
  the finding about the wrong key; its own fix applied (the JSON's edits), the NNIE side made again
  (``compare --regenerate``; for a transpose, which no cfg key expresses: ``emulate --transpose``, the
  images fed transposed) and compared again after the result stored as the editor stores it: case 4 and
  "Confirmed fixed" for that code (a transpose has no edit to confirm: case 4 is enough).

The faults: yufacedetectnet (BGR, mean 104/117/123, scale 1) with ``[RGB_order] RGB``, a wrong mean,
a wrong data_scale; MTCNN det1 (RGB, (x − 127.5) × 1/128, transposed) with the images not transposed and
``[RGB_order] BGR``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from nnie_lsp.testing import faults
from nnie_lsp.testing.faults import Prep

TRUTH = "cfg-only loop"


def card_text(model, prep: Prep) -> str:
    """The model's training preprocessing as a card (its prep and transpose are the truth)."""
    mean = prep.mean if prep.norm_type in (1, 2, 4, 5) and prep.mean else (0.0,)
    scale = prep.data_scale if prep.norm_type in (3, 4, 5) and prep.data_scale else 1.0
    return (f'[[model]]\nprototxt = "{model.prototxt}"\nchannel_order = "{prep.rgb_order}"\n'
            f"mean = [{', '.join(f'{v:g}' for v in mean)}]\nscale = {scale!r}\n"
            f"transpose = {'true' if model.transpose else 'false'}\n")


def _apply(fix: dict) -> None:
    """A fix of the JSON (1-based edits, paths relative to the working folder; a missing file is created)."""
    by_path: dict[str, list] = {}
    for e in fix["edits"]:
        by_path.setdefault(os.path.abspath(e["path"]), []).append(e)
    for path, edits in by_path.items():
        text = Path(path).read_text(encoding="utf-8") if os.path.exists(path) else ""
        starts = [0]
        for line in text.split("\n")[:-1]:
            starts.append(starts[-1] + len(line) + 1)

        def offset(line: int, col: int) -> int:
            return min(len(text), (starts[line - 1] if line - 1 < len(starts) else len(text)) + col - 1)
        for e in sorted(edits, key=lambda e: (e["line"], e["column"]), reverse=True):
            a, b = offset(e["line"], e["column"]), offset(e["end_line"], e["end_column"])
            text = text[:a] + e["new_text"] + text[b:]
        Path(path).write_text(text, encoding="utf-8")


def _store(cfg: Path, ref: Path, sim: Path, prototxt: Path, doc: dict) -> None:
    """The result stored beside the cfg as the editor stores it (what --previous auto reads)."""
    from nnie_lsp.triage import store

    record = store.new_record(str(cfg), doc, cfg=str(cfg), prototxt=str(prototxt),
                              inputs={"reference": {"path": str(ref)}, "sim": {"path": str(sim)}})
    store.save(record)


class Loop:
    def __init__(self, runner, key: str, prep: Prep, *, card: bool, transpose_fault: bool = False):
        self.r, self.prep, self.card, self.transpose_fault = runner, prep, card, transpose_fault
        self.folder = runner.root / key
        self.folder.mkdir(parents=True, exist_ok=True)
        self.cfg = faults.write_cfg(self.folder / "net.cfg", prototxt=runner.m.prototxt, caffemodel=runner.m.caffemodel,
                                    prep=prep, image_list=str(runner.root / "images.txt"))
        self.ref, self.sim = self.folder / "output", self.folder / "mapper_quant"
        self.steps: list[str] = []

    def emulate(self, transpose: bool) -> None:
        self.r._run(["emulate", "--cfg", str(self.cfg), "-o", str(self.sim), "--progress", "none"]
                    + (["--transpose"] if transpose else []))

    def compare(self, *extra: str) -> dict:
        out = self.folder / f"report{len(self.steps)}.json"
        self.r._run(["compare", "--cfg", str(self.cfg), "--reference", str(self.ref), "--sim", str(self.sim),
                     "--format", "json", "--output", str(out), "--progress", "none", *extra])
        doc = json.loads(out.read_text(encoding="utf-8"))
        self.steps.append(f"{doc.get('verdict')} [{', '.join(f['code'] for f in doc.get('findings') or [])}]")
        return doc

    def run(self, fix_codes: tuple[str, ...], true_prep: Prep) -> dict:
        if self.card:
            (self.folder / "nnie.toml").write_text(card_text(self.r.m, true_prep), encoding="utf-8")
        self.r._run(["reference", "--cfg", str(self.cfg), "-o", str(self.ref), "--progress", "none"])
        # the NNIE side is fed the images as the list holds them: transposed when the user knows the net
        # was trained so (the card says it) and transposes them -- not in the transpose fault
        self.emulate(self.card and self.r.m.transpose and not self.transpose_fault)
        first = self.compare("--previous", "none")
        loop = {"card": self.card, "first_case": first.get("case"), "first_codes": [f["code"] for f in first["findings"]],
                "independent": (first.get("reference_source") or {}).get("independent")}
        if not self.card or first.get("case") != 1:
            first["_loop"] = loop
            first["_bench"] = {"steps": self.steps}
            return first
        _store(self.cfg, self.ref, self.sim, self.r.m.prototxt, first)
        finding = next((f for f in first["findings"] if f["code"] in fix_codes), None)
        loop["fixed"] = finding["code"] if finding else None
        if self.transpose_fault:
            self.emulate(True)            # the fix is outside the cfg: the images fed transposed
            final = self.compare()
        elif finding is not None and finding.get("fix"):
            _apply(finding["fix"])
            final = self.compare("--regenerate")
        else:
            final = first
        loop.update(final_case=final.get("case"),
                    confirmed=[e.get("code") for e in final.get("confirmed_fixed") or []],
                    awaiting=[e.get("code") for e in final.get("awaiting_confirmation") or []])
        final["_loop"] = loop
        final["_bench"] = {"steps": self.steps}
        return final


def expect(Expect, card: bool, codes: tuple[str, ...], transpose_fault: bool = False):
    if not card:
        def check(doc: dict) -> tuple[bool, str]:
            loop = doc.get("_loop") or {}
            said = "T100" in loop.get("first_codes", []) and loop.get("independent") is False
            return said, ("T100: the reference shares the cfg's preprocessing" if said
                          else f"silent: {doc.get('verdict')} without the caveat")
        return Expect("the caveat (T100): the mistake cannot show", check)

    def check(doc: dict) -> tuple[bool, str]:
        loop = doc.get("_loop") or {}
        if loop.get("first_case") != 1:
            return False, f"first run: case {loop.get('first_case')} ({', '.join(loop.get('first_codes', []))})"
        if loop.get("fixed") not in codes:
            return False, f"case 1 without {'/'.join(codes)}: {loop.get('first_codes')}"
        if loop.get("final_case") != 4:
            return False, f"{loop['fixed']} applied: then case {loop.get('final_case')}"
        if transpose_fault:
            return True, f"{loop['fixed']} -> emulate --transpose -> case 4 (no cfg edit to confirm)"
        if loop["fixed"] not in loop.get("confirmed", []):
            return False, (f"{loop['fixed']} applied, regenerated: case 4 but not confirmed "
                           f"(awaiting {loop.get('awaiting') or '-'})")
        return True, f"{loop['fixed']} applied, regenerated: case 4, Confirmed fixed"
    return Expect(f"case 1 ({'/'.join(codes)}) -> fix -> case 4" + ("" if transpose_fault else ", confirmed"), check)


def loop_runs(r, faults_list: list[tuple], true_prep: Prep, Expect) -> None:
    """One record per fault and per side of the card: ``faults_list`` = (label, cfg prep, codes of the
    finding whose fix is applied, transpose fault)."""
    for i, (label, prep, codes, transpose_fault) in enumerate(faults_list):
        for card in (False, True):
            def build(i=i, prep=prep, codes=codes, card=card, transpose_fault=transpose_fault):
                key = f"loop{i}_{'card' if card else 'nocard'}"
                return Loop(r, key, prep, card=card, transpose_fault=transpose_fault).run(codes, true_prep)
            r.case(TRUTH, f"{label} ({'with' if card else 'without'} a card)",
                   expect(Expect, card, codes, transpose_fault), build, quick=i == 0)


def yuface_faults(true: Prep) -> list[tuple]:
    return [
        ("[RGB_order] RGB (trained BGR)", Prep("RGB", 2, true.mean), ("T102",), False),
        ("mean 128, 128, 128 (trained 104, 117, 123)", Prep("BGR", 2, (128.0, 128.0, 128.0)), ("T104",), False),
        ("[data_scale] 1/256 (trained unscaled)", Prep("BGR", 5, true.mean, 1 / 256), ("T103",), False),
    ]


def mtcnn_faults(true: Prep) -> list[tuple]:
    return [
        ("images not transposed (trained transposed)", true, ("T105",), True),
        ("[RGB_order] BGR (trained RGB)", Prep("BGR", 5, true.mean, true.data_scale), ("T102",), False),
    ]

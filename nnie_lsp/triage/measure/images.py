"""Triage over several images of the image list: each image compared and diagnosed on its own, then
each layer's cosine reported as min and median over the images and the case decided on the
distribution of the per-image cases.

NNIE calibrates on the whole image list but dumps only its last image (docs/field-facts.md §5.6,
§10.1): one image can hide a problem the others show, or show one the others do not. Decision:

- the case is the one most images show (a tie goes to the case of the list's last image -- the one
  the mapper dumps -- when it is among the tied, else to the earliest guide step);
- its findings and fixes are those of a representative image: the last image showing that case;
- every other case is said with its images -- "on one image only" when one image shows it.

Dump folders with several images are the layout of :mod:`nnie_lsp.triage.inputs.image_sets`; a
folder of one image (the mapper's ``mapper_quant/``, RuyiStudio's ``output/``) pairs with the list's
last image.  :func:`nnie_lsp.triage.pipeline.triage` pairs the images, runs each and calls
:func:`combine`.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from nnie_lsp.triage.inputs.image_sets import DumpFolder, ImagePair
from nnie_lsp.triage.measure.rows import ends

#: Short names of the guide's cases for the sentences about the images.
CASE_NAMES = {1: "case 1 (preprocessing)", 2: "case 2 (quantization)", 3: "case 3 (layer matching)",
              4: "case 4 (post-processing)", "decoding": "a decoding fault (the NNIE dumps read with the wrong scale)",
              "bad_dumps": "bad dumps (NaN/Inf values, or data layers of different sizes)",
              None: "an inconclusive result"}
#: Order of the outcomes when images tie: the guide's cases, then a decoding fault, bad dumps, inconclusive.
_ORDER = {1: 1, 2: 2, 3: 3, 4: 4, "decoding": 5, "bad_dumps": 6, None: 7}


def _outcome(result) -> int | str | None:
    """An image's outcome: its guide case, ``"decoding"`` (T006) or ``"bad_dumps"`` (T003/T010: no
    case of the guide, but not inconclusive either), or None."""
    diag = result.diagnosis
    if diag.case is None and getattr(diag, "decoding", None):
        return "decoding"
    if diag.case is None and getattr(diag, "bad_dumps", None):
        return "bad_dumps"
    return diag.case


def sixteen_bit_by_image(sim16, pairs: list[ImagePair]) -> dict[int, Path]:
    """The 16-bit run's folder for each pair (by image line); a single-image 16-bit folder goes with
    the last image (the mapper's)."""
    if sim16 is None:
        return {}
    folder = DumpFolder.read(sim16)
    if not folder.several and folder.images[0].index is None:
        return {len(pairs) - 1: folder.images[0].path}
    by_index = {img.index: img.path for img in folder.images}
    return {k: by_index[p.index] for k, p in enumerate(pairs) if p.index in by_index}


def _end_cosine(result) -> float | None:
    rows = ends(result.rows)
    values = [r.cosine for r in rows if r.metrics is not None]
    return min(values) if values else None


def _headline(cases: list[int | str | None]) -> int | str | None:
    counts = Counter(cases)
    best = max(counts.values())
    tied = [c for c in counts if counts[c] == best]
    if cases[-1] in tied:
        return cases[-1]
    return min(tied, key=_ORDER.__getitem__)


def combine(pairs: list[ImagePair], results: list, notes: list[str], reference, sim):
    """One result for several images: the representative image's diagnosis, every layer's cosine
    per image (min / median in the JSON), and the cases of all images."""
    count = len(results)
    cases = [_outcome(r) for r in results]
    headline = _headline(cases)
    rep_index = max(i for i, c in enumerate(cases) if c == headline)
    rep = results[rep_index]
    per_image = [{(r.name, r.blob): r.cosine for r in res.rows if r.metrics is not None} for res in results]
    for row in rep.rows:
        row.cosine_images = tuple(m.get((row.name, row.blob)) for m in per_image)
    same = cases.count(headline)
    summary = [f"{CASE_NAMES[headline]} on {'all ' + str(count) if same == count else f'{same} of {count}'} images"]
    for case in sorted({c for c in cases if c != headline}, key=_ORDER.__getitem__):
        which = [i for i, c in enumerate(cases) if c == case]
        shown = ", ".join(_image_name(pairs[i], results[i]) for i in which)
        summary.append(f"{CASE_NAMES[case]} on one image only: {shown}" if len(which) == 1
                       else f"{CASE_NAMES[case]} on {len(which)} of {count} images: {shown}")
    diag = rep.diagnosis
    diag.verdict = f"{diag.verdict} — on {'all ' + str(count) if same == count else f'{same} of {count}'} images"
    if same != count:
        diag.reason = f"{diag.reason}; " + "; ".join(summary[1:])
    rep.images = {
        "count": count,
        "representative": rep_index,
        "case_counts": {str(c): n for c, n in Counter(cases).items()},
        "summary": summary,
        "cases": [{"index": p.index, "image": p.label, "reference": str(p.reference), "sim": str(p.sim),
                   "case": res.diagnosis.case, "verdict": res.diagnosis.verdict,
                   "first_divergence": res.diagnosis.first_divergence, "end_cosine": _end_cosine(res)}
                  for p, res in zip(pairs, results)],
    }
    rep.inputs = dict(rep.inputs, reference=str(reference), sim=str(sim))
    rep.notes = notes + rep.notes
    seen = set(rep.warnings)
    for pair, res in zip(pairs, results):
        for w in res.warnings:
            if w not in seen:
                seen.add(w)
                rep.warnings.append(f"image {pair.index}: {w}")
    rep.elapsed_s = sum(r.elapsed_s for r in results)
    return rep


def _image_name(pair: ImagePair, result) -> str:
    end = _end_cosine(result)
    where = f"image {pair.index}" if pair.index is not None else "the image"
    return f"{where} ({Path(str(pair.label)).name}{f', end cosine {end:.4f}' if end is not None else ''})"

"""Before planning on the emulation, check it against real mapper runs (8-bit and compile_mode 1).

The mapper dumps the LAST image of the image list (docs/field-facts.md §10.1, §5.6), so the
emulation's run of that image is compared with the real dumps, layer by layer, through the
triage's own alignment (:func:`nnie_lsp.triage.align.driver.align`, the prototxt graph): for every layer
the real run's cosine against the float run, the emulation's, and the two runs against each other.

The question is whether the emulation reproduces the real 8-bit *loss* at the final outputs —
the planner trusts its gains.  The loss ratio (emulated loss / real loss, loss = 1 − cosine):

- within ``[1/AGREE_RATIO, AGREE_RATIO]``, or both losses at most ``NEGLIGIBLE_LOSS``: agrees;
- within ``[1/ROUGH_RATIO, ROUGH_RATIO]``: roughly (the plan is made, with a warning);
- outside: disagrees — the real loss has another cause or another size (preprocessing, layer
  matching, a quantizer the emulation does not model), and no plan is made on it.

A real data layer below the guide's ``data_layer`` threshold means the real run was fed other
numbers (guide step 2 first); a real compile_mode 1 run whose final similarity is below the target
means no `_hp` set can reach it.  Both stop the plan too.  These limits are the project's own [I].
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from nnie_lsp.triage.hp_plan.oracle import HpOracle
from nnie_lsp.triage.measure.metrics import Thresholds, cosine

NEGLIGIBLE_LOSS = 1e-4
AGREE_RATIO = 2.0
ROUGH_RATIO = 4.0
BLOCKING = ("disagrees", "unreachable", "input_differs")


@dataclass(frozen=True)
class LayerAgreement:
    layer: str
    blob: str
    real_8bit: float  # real run vs the float run
    emulated_8bit: float
    real_vs_emulated_8bit: float
    agrees: bool
    is_output: bool = False
    is_data: bool = False
    real_16bit: float | None = None
    emulated_16bit: float | None = None

    def to_dict(self) -> dict:
        out = {"layer": self.layer, "blob": self.blob, "is_data": self.is_data, "is_output": self.is_output,
               "real_8bit": _round(self.real_8bit), "emulated_8bit": _round(self.emulated_8bit),
               "real_vs_emulated_8bit": _round(self.real_vs_emulated_8bit), "agrees": self.agrees}
        if self.real_16bit is not None:
            out.update(real_16bit=_round(self.real_16bit), emulated_16bit=_round(self.emulated_16bit))
        return out


@dataclass
class Agreement:
    verdict: str  # agrees | roughly | disagrees | input_differs | unreachable | unmatched
    message: str
    image: str | None
    layers: list[LayerAgreement] = field(default_factory=list)
    real_final_8bit: float | None = None
    emulated_final_8bit: float | None = None
    real_final_16bit: float | None = None
    emulated_final_16bit: float | None = None
    loss_ratio: float | None = None
    first_disagreement: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def blocks_plan(self) -> bool:
        return self.verdict in BLOCKING

    def to_dict(self) -> dict:
        return {"verdict": self.verdict, "message": self.message, "blocks_plan": self.blocks_plan,
                "image": self.image,
                "final": {"real_8bit": _round(self.real_final_8bit), "emulated_8bit": _round(self.emulated_final_8bit),
                          "loss_ratio": _round(self.loss_ratio), "real_16bit": _round(self.real_final_16bit),
                          "emulated_16bit": _round(self.emulated_final_16bit)},
                "first_disagreement": self.first_disagreement,
                "layers": [row.to_dict() for row in self.layers], "notes": list(self.notes)}


def _round(value: float | None):
    if value is None or not np.isfinite(value):
        return None
    return round(float(value), 7)


def loss_ratio(emulated: float, real: float) -> float | None:
    """Emulated loss / real loss; None when both are negligible."""
    emulated_loss, real_loss = max(0.0, 1.0 - emulated), max(0.0, 1.0 - real)
    if emulated_loss <= NEGLIGIBLE_LOSS and real_loss <= NEGLIGIBLE_LOSS:
        return None
    return emulated_loss / max(real_loss, NEGLIGIBLE_LOSS / 10)


def _within(ratio: float | None, bound: float) -> bool:
    return ratio is None or 1.0 / bound <= ratio <= bound


def check_agreement(oracle: HpOracle, prototxt: str | Path, sim: str | Path, sim16: str | Path | None,
                    target: float, image: str | None = None,
                    thresholds: Thresholds | None = None) -> Agreement:
    """Compare the emulation of the oracle's LAST image with real dumps (``sim``: 8-bit,
    ``sim16``: compile_mode 1)."""
    thresholds = thresholds or Thresholds()
    last = len(oracle.images) - 1
    reference = oracle.float_blobs[last]
    emulated8 = oracle.blobs(())[last]
    emulated16 = oracle.blobs(oracle.all_layers())[last] if sim16 is not None else None
    notes: list[str] = []
    rows = _compare(oracle, prototxt, reference, sim, emulated8, notes)
    rows16 = {r.blob: r for r in _compare(oracle, prototxt, reference, sim16, emulated16, notes)} if sim16 else {}
    finals = set(oracle.final_tops)
    layers = []
    for r in rows:
        r16 = rows16.get(r.blob)
        layers.append(LayerAgreement(
            layer=r.layer, blob=r.blob, real_8bit=r.real, emulated_8bit=r.emulated,
            real_vs_emulated_8bit=r.between, agrees=r.is_data or _within(loss_ratio(r.emulated, r.real), ROUGH_RATIO),
            is_output=r.blob in finals, is_data=r.is_data,
            real_16bit=r16.real if r16 is not None else None, emulated_16bit=r16.emulated if r16 is not None else None))
    result = Agreement(verdict="", message="", image=image, layers=layers, notes=notes)
    result.first_disagreement = next((row.layer for row in layers if not row.agrees), None)
    return _verdict(result, target, thresholds, sim16 is not None)


def _verdict(result: Agreement, target: float, thresholds: Thresholds, with16: bool) -> Agreement:
    finals = [row for row in result.layers if row.is_output]
    data = [row for row in result.layers if row.is_data]
    if data and min(row.real_8bit for row in data) < thresholds.data_layer:
        worst = min(row.real_8bit for row in data)
        result.verdict = "input_differs"
        result.message = (f"the real run's data layer is at {worst:.6f} against the cfg's preprocessing "
                          f"(below {thresholds.data_layer:g}): it was fed other numbers; fix the "
                          "preprocessing first (guide step 2, `nnie-triage compare`)")
        return result
    if not finals:
        result.verdict = "unmatched"
        result.message = ("no final output of the real run could be paired with the emulation's: the "
                          "emulation is not checked (the plan rests on it unchecked)")
        return result
    result.real_final_8bit = min(row.real_8bit for row in finals)
    result.emulated_final_8bit = min(row.emulated_8bit for row in finals)
    with_16 = [row for row in finals if row.real_16bit is not None]
    if with16 and with_16:
        result.real_final_16bit = min(row.real_16bit for row in with_16)
        result.emulated_final_16bit = min(row.emulated_16bit for row in with_16)
    ratio = loss_ratio(result.emulated_final_8bit, result.real_final_8bit)
    result.loss_ratio = ratio
    real, emulated = result.real_final_8bit, result.emulated_final_8bit
    where = f" (the runs part ways at layer {result.first_disagreement!r})" if result.first_disagreement else ""
    if result.real_final_16bit is not None and result.real_final_16bit < target:
        result.verdict = "unreachable"
        result.message = (f"the real compile_mode 1 run ends at {result.real_final_16bit:.6f}, below the target "
                          f"{target:g}: no `_hp` set can reach it; the loss is not (only) quantization")
    elif _within(ratio, AGREE_RATIO):
        result.verdict = "agrees"
        result.message = (f"the emulation agrees with the real 8-bit run: final similarity {emulated:.6f} "
                          f"emulated, {real:.6f} real")
    elif _within(ratio, ROUGH_RATIO):
        result.verdict = "roughly"
        result.message = (f"the emulation agrees only roughly with the real 8-bit run: final similarity "
                          f"{emulated:.6f} emulated, {real:.6f} real (loss ratio {ratio:.2f}){where}; "
                          "confirm the plan with one mapper run before relying on it")
    else:
        result.verdict = "disagrees"
        side = "more" if ratio is not None and ratio > 1 else "less"
        result.message = (f"the emulation disagrees with the real 8-bit run: final similarity {emulated:.6f} "
                          f"emulated, {real:.6f} real — it loses {side} than the real run (loss ratio "
                          f"{ratio:.2f}){where}; no plan is made on it (run `nnie-triage compare` on the "
                          "real dumps to find the other cause)")
    return result


@dataclass(frozen=True)
class _Row:
    layer: str
    blob: str
    real: float
    emulated: float
    between: float
    is_data: bool


def _compare(oracle: HpOracle, prototxt: str | Path, reference: dict[str, np.ndarray], sim: str | Path,
             emulated: dict[str, np.ndarray], notes: list[str]) -> list[_Row]:
    """Pair the real dumps in ``sim`` with the float run's blobs and measure each pair."""
    from nnie_lsp.readers.dumpio.scan import scan_dumps
    from nnie_lsp.readers.dumpio.writers import write_npz
    from nnie_lsp.triage.align.driver import align, iter_pairs
    from nnie_lsp.triage.inputs.load import TriageInputError, load_graph

    from nnie_lsp.triage.inputs.image_sets import DumpFolder

    folder = Path(sim)
    if not folder.exists():
        raise TriageInputError(f"dump folder {folder} does not exist")
    dumped = DumpFolder.read(folder)
    if dumped.several:  # nnie-triage's per-image folders: the last image is the one the mapper dumps
        notes.append(f"{folder.name}: {len(dumped.images)} images; compared: the last, {dumped.images[-1].label}")
    real = scan_dumps(str(dumped.images[-1].path))
    if not len(real):
        raise TriageInputError(f"dump folder {folder}: no dump files found ({'; '.join(real.warnings) or 'empty'})")
    graph = load_graph(prototxt)
    inputs = set(oracle.images[0])
    rows: list[_Row] = []
    with tempfile.TemporaryDirectory(prefix="nnie-hp-plan-") as tmp:
        arrays = {blob: value[0] for blob, value in reference.items() if blob in emulated}
        npz = write_npz(Path(tmp) / "float_run.npz", arrays)
        alignment = align(scan_dumps(npz), real, graph=graph)
        notes.extend(f"{folder.name}: {note}" for note in alignment.notes)
        for pair, ref_values, real_values in iter_pairs(alignment):
            blob = pair.blob if pair.blob in arrays else None
            if blob is None:
                continue
            emu_values = np.asarray(emulated[blob][0], dtype=np.float64).reshape(ref_values.shape)
            if real_values.size != ref_values.size:
                notes.append(f"{folder.name}: {pair.name}: {real_values.size} values against {ref_values.size}; "
                             "not compared")
                continue
            rows.append(_Row(layer=pair.layer or blob, blob=blob, real=cosine(ref_values, real_values),
                             emulated=cosine(ref_values, emu_values), between=cosine(emu_values, real_values),
                             is_data=blob in inputs))
    return rows

"""Case 2 (guide step 3): a good start decaying to a bad end → quantization.

- A 16-bit (compile_mode 1) run confirms it (T202) or rejects it (T203).
- `_hp` candidates are ranked by single-layer loss — how much a layer loses against its own inputs —
  with the first convolution first (the guide's advice); each is a T204 with a rename fix.
- The plan (T207) is ONE fix: the first convolution plus every layer whose own loss exceeds the
  guide's whole-net margin (``good − decay_end``) renamed ``_hp``, and ``[compile_mode] 2``.

Layer roles (which types carry weights, which are convolutions) come from the layer table.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...diagnostics import FileEdit
from ...fixes import HP_SUFFIX, hp_plan_edits, hp_rename_edits
from ...output import rel
from ...prototxt import layers as layer_table
from .builder import FindingBuilder, Place
from ..measure.metrics import Thresholds
from ..measure.rows import LayerRow, ends, finite, measured_body, start

CANDIDATES_REPORTED = 5  # T204 findings (the JSON's hp_candidates lists up to CANDIDATES_RANKED)
CANDIDATES_RANKED = 8


def carries_weights(layer_type: str | None) -> bool:
    """Convolution-like and fully connected layers: what `_hp` makes 16-bit (unknown type: yes)."""
    if layer_type is None:
        return True
    spec = layer_table.lookup(layer_type)
    return spec is not None and spec.category == "conv"


def is_convolution(layer_type: str | None) -> bool:
    """A convolution (not InnerProduct) — the guide's "first convolution" (unknown type: yes)."""
    if layer_type is None:
        return True
    spec = layer_table.lookup(layer_type)
    return spec is not None and spec.category == "conv" and spec.param_field == "convolution_param"


@dataclass
class HpCandidate:
    layer: str
    rank: int
    single_layer_loss: float
    cosine: float
    input_cosine: float
    reason: str  # English, for the report
    rename: str
    first_convolution: bool = False
    in_plan: bool = False
    place: Place | None = None

    def to_dict(self) -> dict:
        out = {"rank": self.rank, "layer": self.layer, "single_layer_loss": self.single_layer_loss,
               "cosine": self.cosine, "input_cosine": self.input_cosine, "reason": self.reason,
               "rename": self.rename, "in_plan": self.in_plan}
        if self.place is not None:
            path, rng = self.place
            out.update(path=rel(path), line=rng.start.line + 1, column=rng.start.character + 1)
        return out


def _input_cosine(r: LayerRow, by_name: dict[str, LayerRow], rows: list[LayerRow]) -> float:
    vals = [by_name[p].cosine for p in r.producers if p in by_name and by_name[p].metrics is not None]
    vals = [v for v in vals if finite(v)]
    if vals:
        return min(vals)
    prev = [x for x in rows if x.order < r.order and x.metrics is not None and finite(x.cosine)]
    return prev[-1].cosine if prev else 1.0


def rank_hp_candidates(rows: list[LayerRow], th: Thresholds | None = None, builder: FindingBuilder | None = None,
                       limit: int = CANDIDATES_RANKED) -> list[HpCandidate]:
    """The first convolution, then the layers by single-layer loss (at least ``hp_min_loss``)."""
    th = th or Thresholds()
    by_name = {r.name: r for r in rows}
    pool = [r for r in measured_body(rows) if carries_weights(r.layer_type)]
    scored = [(max(0.0, _input_cosine(r, by_name, rows) - r.cosine), _input_cosine(r, by_name, rows), r)
              for r in pool]
    first_conv = next((r for r in pool if is_convolution(r.layer_type)), None)
    out: list[HpCandidate] = []
    if first_conv is not None:
        loss, inc, _ = next(t for t in scored if t[2] is first_conv)
        out.append(_candidate(first_conv, loss, inc, builder, first=True))
    for loss, inc, r in sorted(scored, key=lambda t: -t[0]):
        if r is first_conv or loss <= th.hp_min_loss:
            continue
        out.append(_candidate(r, loss, inc, builder, first=False))
        if len(out) >= limit:
            break
    for rank, c in enumerate(out, 1):
        c.rank = rank
        c.in_plan = c.first_convolution or c.single_layer_loss >= th.decay_margin
    return out


def _candidate(r: LayerRow, loss: float, inc: float, builder: FindingBuilder | None, *, first: bool) -> HpCandidate:
    reason = ("the guide's advice: a high-precision first convolution (8-bit error there reaches every later "
              "layer)" if first else f"drops {loss:.4f} below its inputs' similarity ({inc:.4f} → {r.cosine:.4f})")
    rename = f'layer "{r.name}" → name: "{r.name}{HP_SUFFIX}" (top unchanged: "{r.blob or r.name}")'
    place = builder.sources.layer_place(r.name) if builder is not None else None
    return HpCandidate(layer=r.name, rank=0, single_layer_loss=round(loss, 6), cosine=r.cosine, input_cosine=inc,
                       reason=reason, rename=rename, first_convolution=first, place=place)


def sim16_verdict(rows: list[LayerRow], rows16: list[LayerRow] | None, th: Thresholds,
                  builder: FindingBuilder) -> tuple[bool | None, dict | None]:
    """(True = quantization confirmed, False = rejected, None = no 16-bit data; the JSON's `sim16`)."""
    if not rows16:
        return None, None
    ends16 = ends(rows16)
    if not ends16:
        return None, None
    e8 = min(r.cosine for r in ends(rows))
    e16 = min(r.cosine for r in ends16)
    first16 = next((r.name for r in rows16 if not r.is_data and r.metrics is not None and r.cosine < th.good), None)
    sim16 = {"end_cosine_8bit": e8, "end_cosine_16bit": e16, "first_divergence_16bit": first16,
             "layers": {r.name: r.cosine for r in rows16 if r.metrics is not None}}
    if e16 >= th.good or (e16 >= th.decay_end and e16 - e8 >= th.sim16_gain):
        sim16["verdict"] = "confirmed"
        builder.add("T202", "confirmed", end16=f"{e16:.4f}", end8=f"{e8:.4f}")
        return True, sim16
    sim16["verdict"] = "rejected"
    builder.add("T203", "rejected", place=builder.sources.layer_place(first16), layer=first16,
                end16=f"{e16:.4f}", end8=f"{e8:.4f}")
    return False, sim16


def quantization_findings(rows: list[LayerRow], th: Thresholds, builder: FindingBuilder) -> list[HpCandidate]:
    """T201, T206, the plan T207 and the T204 candidates. Returns the ranked candidates."""
    src = builder.sources
    end = min(ends(rows), key=lambda r: r.cosine)
    first = start(rows)
    builder.add("T201", "decay", place=src.layer_place(end.name), layer=end.name,
                start=f"{first.cosine:.4f}", end=f"{end.cosine:.4f}")
    body = measured_body(rows)
    drops = [(body[i - 1].cosine - body[i].cosine, body[i]) for i in range(1, len(body))]
    if drops:
        big, at = max(drops, key=lambda t: t[0])
        if big > th.sudden_drop:
            builder.add("T206", "drop", place=src.layer_place(at.name), layer=at.name, drop=f"{big:.3f}")
    candidates = rank_hp_candidates(rows, th, builder)
    _plan_finding([c for c in candidates if c.in_plan], builder)
    for c in candidates[:CANDIDATES_REPORTED]:
        layer = src.layer(c.layer)
        edits = hp_rename_edits(src.prototxt, [layer]) if layer is not None and src.prototxt is not None else []
        fix = builder.fix("T204", "fix", [FileEdit(src.prototxt.path, e) for e in edits], safe=False, layer=c.layer)
        r = next(x for x in rows if x.name == c.layer)
        params = {"rank": c.rank, "layer": c.layer, "top": r.blob or r.name}
        if c.first_convolution:
            builder.add("T204", "first", place=c.place, fix=fix, **params)
        else:
            builder.add("T204", "drop", place=c.place, fix=fix, loss=f"{c.single_layer_loss:.4f}",
                        input=f"{c.input_cosine:.4f}", cosine=f"{c.cosine:.4f}", **params)
    return candidates


def _plan_finding(plan: list[HpCandidate], builder: FindingBuilder) -> None:
    """T207: rename the plan's layers `_hp` and set [compile_mode] 2 — one fix."""
    src = builder.sources
    mode = src.config.compile_mode if src.config is not None else None
    names = [c.layer for c in plan if not c.layer.endswith(HP_SUFFIX)]
    if not names and (src.cfg is None or mode == 2):
        return
    layers = [gl for gl in (src.layer(n) for n in names) if gl is not None]
    edits = hp_plan_edits(src.prototxt, layers, src.cfg, src.config)
    renames = any(fe.path == (src.prototxt.path if src.prototxt is not None else None) for fe in edits)
    sets_mode = any(fe.path == src.cfg_path for fe in edits)
    quoted = ", ".join(f'"{n}"' for n in names)
    title = "fix" if renames and sets_mode else ("fix_renames" if renames else "fix_mode")
    fix = builder.fix("T207", title, edits, safe=False, layers=quoted)
    related = tuple(rel for n in names for rel in builder.related("T207", "rename", src.layer_place(n), layer=n))
    entry = src.cfg_entry("compile_mode")
    mode_text = entry.value if entry is not None else (builder.unset("T207", "compile_mode") if src.cfg else "")
    if src.cfg is None:
        msg_id = "plan_no_cfg"
    elif not names:
        msg_id = "mode_only"
    else:
        msg_id = "plan_mode_ok" if mode == 2 else "plan"
    place = src.cfg_place("compile_mode") or src.cfg_home() or (src.layer_place(names[0]) if names else None)
    builder.add("T207", msg_id, place=place, cfg_key="compile_mode" if src.cfg is not None else None, fix=fix,
                related=related, layers=quoted, mode=mode_text)

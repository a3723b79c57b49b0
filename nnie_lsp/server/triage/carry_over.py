"""A stored triage result carried over to the texts being edited, and its words (no LSP types).

A run's findings point at the cfg and the prototxt *as the run read them* (the stored texts,
:mod:`nnie_lsp.triage.store`).  The editor shows them on the current texts:

- :class:`~.line_map.LineMap` carries positions over from the run's text to the current one, line by line
  (the common head and tail directly, difflib on the changed middle): a place on a line that has
  not changed moves with it; a place on a changed line is found again by its layer name
  (prototxt) or its cfg key (cfg), else put after the nearest unchanged line above it;
- a fix is carried over only when every line it edits is unchanged — otherwise it is dropped (it
  was computed for other text; run triage again);
- :func:`fix_all` chooses the fixes "apply all triage fixes" applies: each finding's fix in report
  order, never an alternative, never a single ``_hp`` candidate (T204: the T207 plan already
  chooses among them), none that overlaps one taken before;
- :func:`summary`, :func:`next_step_text`, :func:`lens_titles`: the words of the notification and
  the code lens; :func:`dumps_predate_cfg` and :func:`remake`: the one action when the NNIE dumps
  are older than the cfg ("Regenerate and triage again", or the words "re-run nnie_mapper …");
  :func:`confirmed_text`: "Confirmed fixed: …".
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from nnie_lsp.core import i18n
from nnie_lsp.readers.cfg.reader import parse_cfg
from nnie_lsp.core.diagnostics import Diagnostic, FileEdit, Fix, Severity, non_overlapping_fixes
from nnie_lsp.project.project import cached_prototxt
from nnie_lsp.core.text import LineIndex, Position, Range
from nnie_lsp.triage.line_map import LineMap, line_map  # noqa: F401  (LineMap: imported from here too)
from nnie_lsp.server.triage.annotations import finding_diagnostics
from nnie_lsp.triage.fixed_since_run import FixState, fix_state

#: Findings whose fix is offered one at a time and never in "apply all": a single `_hp`
#: candidate (the T207 plan is the set to apply).
NOT_IN_FIX_ALL = frozenset({"T204"})

CurrentText = Callable[[str], "str | None"]    # absolute path -> the text now (editor or disk), or None

#: The inputs a stored result records and the editor object lists (docs/editor-protocol.md):
#: the dump folders, the net tree and ``framework``, the ONNX side of the conversion stage
#: (``compare --framework``), whose folder and model make a result stale too
#: (:func:`nnie_lsp.triage.store.changed_inputs`: ``framework``, ``onnx``), and ``board``, the board
#: program's dumps (``compare --board``).
INPUT_ROLES = ("reference", "sim", "sim16", "dot", "framework", "board")


# ------------------------------------------------------------------ findings on the current text

@dataclass(frozen=True)
class Placed:
    """The findings of a result on the current texts."""

    diagnostics: tuple[Diagnostic, ...]
    carried: bool        # some text changed since the run (positions and fixes were carried over)


def _clamp(rng: Range, text: str) -> Range:
    index = LineIndex(text)
    last = max(index.line_count - 1, 0)
    if rng.start.line <= last:
        return rng if rng.end.line <= last else Range(rng.start, Position(last, len(index.line_text(last))))
    return Range(Position(last, 0), Position(last, len(index.line_text(last))))


def _moved_near(rng: Range, mapping: LineMap) -> Range:
    line = mapping.near(rng.start.line)
    return Range(Position(line, rng.start.character), Position(line + rng.end.line - rng.start.line, rng.end.character))


def _find_again(diagnostic: Diagnostic, text: str, old_line: int) -> Range | None:
    """A place on a changed line, found again by the layer name or the cfg key it is about."""
    data = dict(diagnostic.data)
    if diagnostic.path.lower().endswith(".cfg") and data.get("cfg_key"):
        entries = parse_cfg(text).get(data["cfg_key"])
        if entries:
            entry = min(entries, key=lambda e: abs(e.line - old_line))
            return entry.value_range
        return None
    if data.get("layer"):
        try:
            doc, _graph = cached_prototxt(text, diagnostic.path)   # the parse the lint made of this text
        except Exception:  # a half-typed prototxt: the place stays where it was
            return None
        for layer in doc.layers:
            if layer.name == data["layer"]:
                return layer.name_range
    return None


def _carry_fix(fix: Fix | None, maps: Mapping[str, LineMap]) -> Fix | None:
    if fix is None:
        return None
    edits = []
    for file_edit in fix.edits:
        mapping = maps.get(os.path.abspath(file_edit.path))
        if mapping is None:
            edits.append(file_edit)
            continue
        moved = mapping.range(file_edit.edit.range)
        if moved is None:
            return None
        edits.append(FileEdit(file_edit.path, file_edit.edit._replace(range=moved)))
    return fix._replace(edits=tuple(edits))


def place_findings(result: Mapping, run_texts: Mapping[str, str], current_text: CurrentText,
                   note: str = "", *, fixed: frozenset[int] = frozenset(), fixed_note: str = "") -> Placed:
    """Every placed finding of `result` on the current texts.  `run_texts` maps the absolute paths
    of the cfg and the prototxt to the texts the run read; `note` is appended to each message
    (the stale marker).  The findings whose index is in `fixed` (their fix is already in the
    text: :func:`fixes_in_texts`) get `fixed_note` instead, and no fix."""
    maps: dict[str, LineMap] = {}
    currents: dict[str, str] = {}
    for path, old in run_texts.items():
        now = current_text(path)
        if now is not None:
            maps[os.path.abspath(path)] = line_map(old, now)
            currents[os.path.abspath(path)] = now
    carried = any(not m.identical for m in maps.values())
    out = []
    for index, diagnostic in enumerate(finding_diagnostics(result)):
        path = os.path.abspath(diagnostic.path)
        mapping, now = maps.get(path), currents.get(path)
        rng = diagnostic.range
        if mapping is not None and now is not None and not mapping.identical:
            rng = (mapping.range(rng) or _find_again(diagnostic, now, rng.start.line)
                   or _clamp(_moved_near(rng, mapping), now))
        if index in fixed:   # done: a hint of what was fixed, no longer a problem to look at
            out.append(diagnostic._replace(range=rng, message=diagnostic.message + fixed_note, fix=None,
                                           alternatives=(), severity=Severity.HINT))
            continue
        out.append(diagnostic._replace(range=rng, message=diagnostic.message + note,
                           fix=_carry_fix(diagnostic.fix, maps),
                           alternatives=tuple(f for f in (_carry_fix(a, maps) for a in diagnostic.alternatives) if f)))
    return Placed(lead_with_cause(out, stale=bool(note)), carried)


def lead_with_cause(diagnostics: Sequence[Diagnostic], *, stale: bool = False) -> tuple[Diagnostic, ...]:
    """The severities the editor shows a result with, so that the cause comes first: the findings
    whose fix "apply all" takes (:func:`fix_all`: the diagnosed cause, e.g. T102 on the cfg's
    ``[RGB_order]`` line, the T207 ``_hp`` plan) are errors; beside such a cause the other errors
    are warnings (symptoms: the data layer that differs, T101); a finding fixed since the run is
    a hint (:func:`place_findings`); the per-layer notes are hints (:func:`.annotations.annotations`).
    An out-of-date result (`stale`) shows no error at all: only a new run can say what is wrong now."""
    cause = {id(d) for d, _fix in fix_all(diagnostics)} if not stale else set()
    out = []
    for d in diagnostics:
        if d.severity == Severity.HINT:
            out.append(d)
            continue
        if id(d) in cause:
            severity = Severity.ERROR
        elif d.severity == Severity.ERROR and (cause or stale):
            severity = Severity.WARNING
        else:
            severity = d.severity
        out.append(d if severity == d.severity else d.with_severity(severity))
    return tuple(out)


def fixes_in_texts(result: Mapping, run_texts: Mapping[str, str], current_text: CurrentText) -> FixState:
    """Which of `result`'s findings are fixed in the current texts (:mod:`.fixed_since_run`)."""
    return fix_state(finding_diagnostics(result), run_texts, current_text)


def fix_all(diagnostics: Sequence[Diagnostic]) -> list[tuple[Diagnostic, Fix]]:
    """The fixes "apply all triage fixes" applies, with the finding each comes from (module doc)."""
    candidates = [(d, d.fix) for d in diagnostics if d.fix is not None and d.code not in NOT_IN_FIX_ALL]
    kept = {id(fix) for fix in non_overlapping_fixes([fix for _d, fix in candidates])}
    return [(d, fix) for d, fix in candidates if id(fix) in kept]


def fix_counts(diagnostics: Sequence[Diagnostic]) -> dict[str, int]:
    chosen = fix_all(diagnostics)
    return {"total": sum(1 for d in diagnostics if d.fix is not None),
            "applicable": len(chosen), "safe": sum(1 for _d, fix in chosen if fix.is_safe)}


# ------------------------------------------------------------------ words

def next_step_text(result: Mapping, lang: str = "en", remake: Mapping | None = None) -> str:
    """The guide's next step; when the NNIE dumps predate the cfg (`remake`, :func:`remake`), making
    them again comes first."""
    if remake:
        return i18n.t("triage.step.regenerate" if remake.get("action") == "regenerate" else "triage.remap", lang)
    bad = result.get("bad_dumps")
    if isinstance(bad, Mapping) and f"triage.step.bad_dumps.{bad.get('kind')}" in i18n.UI:
        return i18n.t(f"triage.step.bad_dumps.{bad.get('kind')}", lang)   # step 1 in other words than decoding's
    step = result.get("next_step")
    key = f"triage.step.{step}"
    return i18n.t(key, lang) if key in i18n.UI else str(step or "")


def _old_dumps_summary(result: Mapping, lang: str) -> str | None:
    """For a result whose first finding is T008: "The NNIE dumps were made with the old cfg
    (RGB_order: BGR → RGB); the findings describe the old cfg"."""
    findings = [f for f in result.get("findings") or [] if isinstance(f, Mapping)]
    if not findings or findings[0].get("code") != "T008":
        return None
    what = i18n.t("triage.old_dumps", lang)
    changes = re.search(r"[(（]([^()（）]+?)[)）][:：]", str(findings[0].get("message") or ""))
    if changes:
        what += f"（{changes.group(1)}）" if i18n.is_zh(lang) else f" ({changes.group(1)})"
    return i18n.t("triage.summary_old_dumps", lang, what=what)


def summary(result: Mapping, lang: str = "en") -> str:
    """One line for a notification: the case, the verdict and the first divergence (first of all:
    the NNIE dumps predate the cfg, T008)."""
    old = _old_dumps_summary(result, lang)
    if old is not None:
        return old
    verdict = str(result.get("verdict") or "")
    case = result.get("case")
    first = result.get("first_divergence")
    # the verdict names its case itself ("preprocessing mismatch (case 1)", "inconclusive: …"): the
    # line says it once
    verdict = re.sub(r"\s*\(case \d\)", "", verdict)
    inconclusive = re.match(r"^inconclusive(: |$)", verdict) is not None or not verdict
    verdict = re.sub(r"^inconclusive(: |$)", "", verdict).strip()
    if case:
        text = i18n.t("triage.summary_case", lang, case=case, verdict=verdict)
    elif not inconclusive:  # a verdict outside the guide's cases names itself ("decoding: …")
        text = verdict[:1].upper() + verdict[1:]
    elif verdict:
        text = i18n.t("triage.summary_inconclusive", lang, verdict=verdict)
    else:
        text = i18n.t("triage.summary_inconclusive_bare", lang)
    if first:
        text += i18n.t("triage.summary_first", lang, layer=first)
    from nnie_lsp.triage.diagnose.reference_source import caveat

    said = caveat(dict(result), lang)   # beside every verdict whose reference shares the cfg's preprocessing
    if said:
        text += i18n.t("triage.summary_caveat", lang, caveat=said)
    return text


def stale_reasons(roles: Sequence[str], lang: str = "en") -> list[str]:
    """Why a result is stale, from the roles :func:`nnie_lsp.triage.store.changed_inputs` gives."""
    return [i18n.t("triage.stale_reason", lang, what=i18n.t(f"triage.what.{role}", lang)) for role in roles]


def fixed_reason(count: int, lang: str = "en") -> str:
    """The stale reason when every change since the run is one of its own fixes."""
    return i18n.t("triage.fixed_reason", lang, count=count)


def fixed_note(lang: str = "en") -> str:
    return i18n.t("triage.fixed_note", lang)


def stale_note(reasons: Sequence[str], lang: str = "en") -> str:
    return i18n.t("triage.stale", lang, reasons="; ".join(reasons)) if reasons else ""


def lens_titles(result: Mapping, *, stale: bool, applicable: int, lang: str = "en",
                remake: Mapping | None = None) -> dict[str, str]:
    """The code lens titles: ``report`` always, ``apply`` when fixes apply; when the NNIE dumps
    predate the cfg (`remake`) ``regenerate`` (an emulation nnie-triage wrote) or ``remap`` (the
    mapper's dumps: words only, no command can make them), else ``rerun`` when stale."""
    title = i18n.t("triage.lens", lang, summary=summary(result, lang), step=next_step_text(result, lang, remake))
    titles = {"report": (i18n.t("triage.lens_stale", lang) if stale else "") + title}
    if applicable and not stale and not remake:
        titles["apply"] = i18n.t("triage.lens_apply", lang, count=applicable)
    if remake and remake.get("action") == "regenerate":
        titles["regenerate"] = i18n.t("triage.regenerate", lang)
    elif remake:
        titles["remap"] = i18n.t("triage.lens_remap", lang, remap=i18n.t("triage.remap", lang))
    elif stale:
        titles["rerun"] = i18n.t("triage.lens_rerun", lang)
    return titles


def dumps_predate_cfg(result: Mapping, changed: Sequence[str], run_cfg: str | None, now_cfg: str | None) -> bool:
    """The NNIE dumps of a stored result were made with another cfg (or prototxt) than the current
    one: the result says so (T008), or the cfg (a key that changes what the net computes) or the
    prototxt changed after the run while the dumps did not (`changed`: the roles of
    :func:`nnie_lsp.triage.store.changed_inputs`, before any is explained by a fix)."""
    from nnie_lsp.triage.diagnose.staleness import IRRELEVANT_KEYS, cfg_values

    if "sim" in changed:
        return False      # the dumps were made again after the run: triage again says what now
    if any(isinstance(f, Mapping) and f.get("code") == "T008" for f in result.get("findings") or []):
        return True
    if "prototxt" in changed:
        return True
    if "cfg" in changed and run_cfg is not None and now_cfg is not None:
        def keys(text: str) -> dict:
            return {k: v for k, v in cfg_values(text).items() if k not in IRRELEVANT_KEYS}
        return keys(run_cfg) != keys(now_cfg)
    return False


def remake(*, regenerable: bool, arguments: Mapping, lang: str = "en") -> dict:
    """The editor's one action when the dumps predate the cfg: ``regenerate`` (``nnie.triage``
    with `arguments` and ``regenerate: true``) for an emulation nnie-triage wrote; else ``mapper``
    (no command: nnie_mapper runs outside the editor)."""
    if regenerable:
        return {"action": "regenerate", "title": i18n.t("triage.regenerate", lang),
                "command": "nnie.triage", "arguments": {**arguments, "regenerate": True}}
    return {"action": "mapper", "title": i18n.t("triage.remap", lang), "command": None, "arguments": None}


def confirmed_text(result: Mapping, lang: str = "en") -> str | None:
    """"Confirmed fixed: T102 <title> (sim.cfg:7 [RGB_order] RGB)" from the result's
    ``confirmed_fixed`` (the engine decided, :mod:`nnie_lsp.triage.confirmation`), or None."""
    from nnie_lsp.triage.confirmation import describe

    items = [describe(e) for e in result.get("confirmed_fixed") or [] if isinstance(e, Mapping)]
    return i18n.t("triage.confirmed", lang, items="; ".join(items)) if items else None


def editor_info(record, *, stale_reasons: Sequence[str], counts: Mapping[str, int], text_report: str | None,
                lang: str = "en", fixed: int = 0, remake: Mapping | None = None) -> dict:
    """The ``editor`` object the ``nnie.triage`` command adds to the compare JSON
    (docs/editor-protocol.md); `record` is a :class:`nnie_lsp.triage.store.StoredTriage`."""
    paths = record.paths
    return {
        "version": 1,
        "summary": summary(record.result, lang),
        "next_step": next_step_text(record.result, lang, remake),
        "remake": dict(remake) if remake else None,
        "confirmed": confirmed_text(record.result, lang),
        "cfg": record.cfg,
        "prototxt": record.prototxt,
        "inputs": {role: record.inputs.get(role) for role in INPUT_ROLES},
        "report": {"html": paths.html if paths and os.path.exists(paths.html) else None,
                   "text": paths.text if paths and os.path.exists(paths.text) else None,
                   "json": paths.json if paths and os.path.exists(paths.json) else None},
        "text_report": text_report,
        "fixes": dict(counts),
        "ran_at": record.saved_at,
        "stale": bool(stale_reasons),
        "stale_reasons": list(stale_reasons),
        "fixed": fixed,
    }

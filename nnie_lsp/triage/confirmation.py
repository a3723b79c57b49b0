"""An earlier finding confirmed fixed by a later run: the engine's side of the loop
verdict → fix → dumps made again → "Confirmed fixed: T102 …".

A run that follows an earlier result for the same cfg (the record the editor stores,
:mod:`.store`: it holds the cfg and prototxt texts that run read) looks at each of that result's
findings whose fix (or one of its alternatives) is in the texts now (:mod:`nnie_lsp.editor.
triage.fixed_since_run`: the applied fix, not an unrelated edit), and at the fixes the earlier
result itself still waited for (``awaiting_confirmation``).  Such a fix is

- **confirmed fixed** when the NNIE dumps were made again after it, and this run no longer shows
  it: no T008 (the dumps do not predate the cfg), the dump folder changed since the earlier run
  (its stamp), every other file the fix edited (the prototxt) is older than the newest dump, the
  run reaches one of the guide's cases, and no finding of the fix's code — nor of its case (T1xx
  for a case-1 fix) — remains;
- **awaiting confirmation** while the dumps were not made again (T008, or the same dumps as the
  earlier run): never claimed fixed, carried to the next run;
- dropped when the dumps are new and the finding, or its case, is still there (the fix did not
  cure it; the new findings say what now).

The words are :func:`lines` (the CLI's text and markdown reports, the editor's output channel);
the editor's notification takes the same objects (docs/triage-schema.md, "Confirmed fixed").
"""

from __future__ import annotations

import os
from typing import Callable, Mapping

from nnie_lsp.core.diagnostics import Diagnostic, Fix
from nnie_lsp.core.text import apply_edits, split_lines
from nnie_lsp.triage.diagnose.quantization import FIX_PART_OF
from nnie_lsp.triage.diagnose.staleness import is_stale, newest_dump_mtime
from nnie_lsp.triage.store import StoredTriage, StoreError, folder_stamp, load, run_texts as texts_of

CurrentText = Callable[[str], "str | None"]   # absolute path -> the text now, or None
#: A dump must be at least this recent against a file the fix edited (file times, seconds).
MTIME_MARGIN_S = 2.0


def read_previous(path: str, cfg: str | None) -> StoredTriage | None:
    """The earlier result at `path` when it is one for `cfg`: a stored record (:mod:`.store`) or
    the output of ``compare --format json``; a file that is neither raises ValueError with the
    reason (`--previous` names it)."""
    try:
        record = load(path)
    except StoreError as exc:
        record = _from_compare_output(path)
        if record is None:
            raise ValueError(f"--previous: {exc} (give a `compare --format json` output, or the record stored "
                             "beside the cfg, .nnie-triage/<cfg stem>.json)") from None
    if cfg is None or record.cfg is None or os.path.abspath(record.cfg) != os.path.abspath(cfg):
        return None
    return record


def _from_compare_output(path: str) -> StoredTriage | None:
    """A ``compare --format json`` output as an earlier result (its inputs and their stamps, no
    texts: its fixes are found by their ``fix_lines``), or None when the file is not one."""
    import json

    try:
        with open(path, encoding="utf-8") as handle:
            doc = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("tool") != "nnie-triage" or not isinstance(doc.get("inputs"), dict) \
            or "findings" not in doc:
        return None
    inputs = doc["inputs"]
    base = inputs.get("working_directory") if isinstance(inputs.get("working_directory"), str) else \
        os.path.dirname(os.path.abspath(path))
    where = {role: inputs.get(key) for role, key in (("reference", "reference"), ("sim", "sim"),
                                                      ("sim16", "sim_16bit"), ("dot", "dot"))}
    roles = {role: ({"path": _absolute(p, base), "origin": "given", "rule": None} if isinstance(p, str) and p else None)
             for role, p in where.items()}
    stamps = inputs.get("stamps") if isinstance(inputs.get("stamps"), dict) else {}
    cfg = _absolute(inputs["cfg"], base) if isinstance(inputs.get("cfg"), str) and inputs["cfg"] else None
    prototxt = _absolute(inputs["prototxt"], base) if isinstance(inputs.get("prototxt"), str) and inputs["prototxt"] \
        else None
    owner = cfg or os.path.abspath(path)
    return StoredTriage(owner, doc, cfg, prototxt, roles, {k: v for k, v in stamps.items() if isinstance(v, dict)},
                        {}, "", None)


def fix_lines(doc: dict, current_text: CurrentText | None = None) -> None:
    """Give each finding with a fix its ``fix_lines`` (path relative to the working directory ->
    the lines the fix writes and those it removes, on the files as the run read them), so that a
    later ``--previous`` of this very output can tell the fix applied (:func:`applied_fixes`)."""
    current_text = current_text or _disk_text
    base = (doc.get("inputs") or {}).get("working_directory") or os.getcwd()
    for raw in doc.get("findings") or []:
        finding = _decoded(raw, base)
        if finding is None or finding.fix is None:
            continue
        paths = {os.path.abspath(fe.path) for fe in finding.fix.edits}
        texts = {p: (current_text(p) if os.path.exists(p) else "") for p in paths}
        if any(t is None for t in texts.values()):
            continue
        changes = _changed_lines(texts, finding.fix)
        if changes:
            raw["fix_lines"] = {_relative(p, base): c for p, c in changes.items()}


def _disk_text(path: str) -> str | None:
    from nnie_lsp.core.text import read_text
    try:
        return read_text(path).text
    except (OSError, ValueError):
        return None


def _lines(text: str) -> list[str]:
    return [line.rstrip("\r") for line in split_lines(text)]


def _changed_lines(texts: Mapping[str, str], fix: Fix) -> dict[str, dict[str, list[str]]] | None:
    """path -> the lines the fix writes and those it removes (on `texts`, the run's text of each path)."""
    from nnie_lsp.triage.line_map import line_map

    by_path: dict[str, list] = {}
    for file_edit in fix.edits:
        by_path.setdefault(os.path.abspath(file_edit.path), []).append(file_edit.edit)
    out = {}
    for path, edits in by_path.items():
        text = texts.get(path)
        if text is None:
            return None
        try:
            fixed = apply_edits(text, edits)
        except (ValueError, IndexError):
            return None
        forward = line_map(text, fixed)
        kept = {forward.line(n) for n in range(forward.old_count)}
        new, before = _lines(fixed), _lines(text)
        out[path] = {"written": [new[n] for n in range(forward.new_count) if n not in kept and n < len(new)],
                     "removed": [before[n] for n in range(forward.old_count) if forward.line(n) is None
                                 and n < len(before)]}
    return out


def _still_in(changes: Mapping[str, Mapping[str, list[str]]], current_text: CurrentText) -> bool:
    """Every line the fix wrote is in the text now, and every line it removed is gone."""
    for path, change in changes.items():
        now = current_text(path)
        if now is None:
            return False
        lines = set(_lines(now))
        written = list(change.get("written") or [])
        if not all(line in lines for line in written):
            return False
        if any(line in lines and line not in written for line in change.get("removed") or []):
            return False
    return bool(changes)


def _title(code: str, lang: str) -> tuple[str, str]:
    from nnie_lsp.core.lang import pick
    from nnie_lsp.core.catalogue import get_rule

    rule = get_rule(code)
    return (rule.name, pick(rule.summary, lang)) if rule is not None else ("", "")


def _entry(finding: Diagnostic, changes: dict, base: str, current_text: CurrentText, lang: str) -> dict:
    """The engine object of one applied fix: where it is now (the first line it wrote, the cfg's first)."""
    name, title = _title(finding.code, lang)
    paths = sorted(changes, key=lambda p: (not p.lower().endswith(".cfg"), p))
    where, line_no, line_text = paths[0], None, None
    now = current_text(where) or ""
    written = changes[where]["written"]
    if written:
        lines = _lines(now)
        if written[0] in lines:
            line_no, line_text = lines.index(written[0]) + 1, written[0]
    return {"code": finding.code, "name": name, "title": title, "path": _relative(where, base), "line": line_no,
            "cfg_line": line_text.strip() if line_text is not None else None,
            "changes": {_relative(p, base): dict(c) for p, c in changes.items()}}


def _relative(path: str, base: str) -> str:
    try:
        return os.path.relpath(path, base)
    except ValueError:
        return path


def _absolute(path: str, base: str) -> str:
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(base, path))


def _decoded(raw, base: str | None) -> Diagnostic | None:
    from nnie_lsp.core.diagnostic_json import decode_diagnostic

    if not isinstance(raw, Mapping) or not raw.get("path") or not raw.get("line"):
        return None
    try:
        return decode_diagnostic(raw, base)
    except (KeyError, ValueError, TypeError, AttributeError):
        return None


def _covers(fix: Fix, texts: Mapping[str, str]) -> bool:
    return all(os.path.abspath(fe.path) in texts for fe in fix.edits)


def applied_fixes(previous: StoredTriage, base: str, current_text: CurrentText, lang: str = "en") -> list[dict]:
    """The earlier result's fixes that are in the texts now (and those it still waited for).  With
    the run's texts (a stored record) a fix is looked for in place (:func:`fix_in_texts`); a bare
    ``compare --format json`` result has no texts, only each fix's ``fix_lines`` (the lines it writes
    and removes), looked for in the files now."""
    from nnie_lsp.triage.fixed_since_run import fix_in_texts

    run_texts = texts_of(previous)
    old_base = (previous.result.get("inputs") or {}).get("working_directory") or previous.base
    found: list[dict] = []
    for raw in previous.result.get("findings") or []:
        finding = _decoded(raw, old_base)
        if finding is None:
            continue
        for fix in (finding.fix, *finding.alternatives):
            if fix is None:
                continue
            if _covers(fix, run_texts):
                if not fix_in_texts(fix, run_texts, current_text):
                    continue
                changes = _changed_lines(run_texts, fix)
            elif fix is finding.fix and isinstance(raw.get("fix_lines"), Mapping):
                changes = {_absolute(p, old_base): c for p, c in raw["fix_lines"].items() if isinstance(c, Mapping)}
                if not _still_in(changes, current_text):
                    continue
            else:
                continue
            if changes:
                found.append(_entry(finding, changes, base, current_text, lang))
            break
    old_base = (previous.result.get("inputs") or {}).get("working_directory") or previous.base
    for waiting in previous.result.get("awaiting_confirmation") or []:
        if not isinstance(waiting, Mapping) or not isinstance(waiting.get("changes"), Mapping):
            continue
        changes = {_absolute(p, old_base): c for p, c in waiting["changes"].items() if isinstance(c, Mapping)}
        if _still_in(changes, current_text):
            entry = dict(waiting, changes={_relative(p, base): dict(c) for p, c in changes.items()})
            found.append(entry)
    codes = {e["code"] for e in found}
    unique, seen = [], set()
    for entry in found:
        key = (entry["code"], entry.get("path"), entry.get("cfg_line"))
        if key in seen or FIX_PART_OF.get(entry["code"]) in codes:
            continue
        seen.add(key)
        unique.append(entry)
    return unique


def _dumps_made_again(previous: StoredTriage, doc: Mapping, sim: str | None, entry: Mapping, base: str) -> bool:
    """The NNIE dumps were made after the fix (module doc): never guessed.  An emulation whose
    manifest records its inputs by content is exact: no T008 means it was made with every file as
    it is now, the fixed ones included; the mapper's dumps must be newer than each file the fix
    edited besides the cfg (the cfg is T008's: the earlier triage's record of the inputs)."""
    if is_stale(doc.get("findings")):
        return False
    if not sim or not os.path.exists(sim):
        return False
    before = previous.stamps.get("sim")
    if before is None or folder_stamp(sim) == before:
        return False   # the same dumps as the earlier run (or unknown): not made again
    from nnie_lsp.triage.inputs.image_sets import read_manifest

    manifest = read_manifest(sim) if os.path.isdir(sim) else None
    if manifest is not None and isinstance(manifest.get("inputs_record"), Mapping):
        return True
    newest = newest_dump_mtime(sim)
    for path in entry.get("changes") or {}:
        absolute = _absolute(path, base)
        if absolute == os.path.abspath(previous.cfg or ""):
            continue   # the cfg: T008 compares it with the dumps (the records of its inputs)
        try:
            if newest is None or os.stat(absolute).st_mtime > newest + MTIME_MARGIN_S:
                return False
        except OSError:
            return False
    return True


def _still_shown(doc: Mapping, code: str) -> bool:
    codes = [f.get("code") for f in doc.get("findings") or [] if isinstance(f, Mapping)]
    case = code[1] if len(code) == 4 and code[1] in "123" else None
    if code in codes or (case is not None and any(isinstance(c, str) and c[1:2] == case for c in codes)):
        return True
    return case is not None and doc.get("case") == int(case)


def assess(previous: StoredTriage | None, doc: Mapping, *, sim: str | None, lang: str = "en",
           current_text: CurrentText | None = None) -> dict:
    """``{"confirmed_fixed": [...], "awaiting_confirmation": [...]}`` for the result `doc` that
    follows `previous` (the earlier result for the same cfg); ``{}`` without one."""
    if previous is None:
        return {}
    current_text = current_text or _disk_text
    base = (doc.get("inputs") or {}).get("working_directory") or os.getcwd()
    confirmed, awaiting = [], []
    for entry in applied_fixes(previous, base, current_text, lang):
        if not _dumps_made_again(previous, doc, sim, entry, base):
            awaiting.append(entry)
        elif doc.get("case") in (1, 2, 3, 4) and not _still_shown(doc, entry["code"]):
            confirmed.append(entry)
    return {"confirmed_fixed": confirmed, "awaiting_confirmation": awaiting}


def describe(entry: Mapping) -> str:
    """``T102 <title> (sim.cfg:7 [RGB_order] RGB)``."""
    where = ""
    if entry.get("path"):
        where = os.path.basename(str(entry["path"])) + (f":{entry['line']}" if entry.get("line") else "")
        if entry.get("cfg_line"):
            where += f" {entry['cfg_line']}"
    title = str(entry.get("title") or entry.get("name") or "")
    return f"{entry.get('code')} {title}".strip() + (f" ({where})" if where else "")


def lines(doc: Mapping) -> list[str]:
    """The report's lines: ``Confirmed fixed: …`` once per run, ``Awaiting confirmation: …``."""
    out = []
    confirmed = [e for e in doc.get("confirmed_fixed") or [] if isinstance(e, Mapping)]
    awaiting = [e for e in doc.get("awaiting_confirmation") or [] if isinstance(e, Mapping)]
    if confirmed:
        out.append("Confirmed fixed: " + "; ".join(describe(e) for e in confirmed))
    if awaiting:
        out.append("Awaiting confirmation (the NNIE dumps were not made again after the fix): "
                   + "; ".join(describe(e) for e in awaiting))
    return out

"""Which of a triage result's fixes are already in the texts being edited.

A result's fixes were made on the texts the run read.  Once the user applies one (a quick fix, "apply
all"), the cfg or prototxt no longer matches the run, and the result is out of date -- but not in
the way an unrelated edit makes it: the finding is *fixed*, and only a new run can confirm that the
fix helped.  So the editor says so instead of "the cfg changed after the run".

A fix is in the current text when applying it to the run's text writes lines that are all in the
current text, unchanged and in place, and every line it removed is gone.  Lines are matched with
:class:`~nnie_lsp.triage.line_map.LineMap` (local diffs: cheap on a big prototxt).  When every
difference between the run's texts and the current ones is such a fix, the change is *explained*.
"""

from __future__ import annotations

import os
from typing import Callable, Mapping, NamedTuple, Sequence

from nnie_lsp.core.diagnostics import Diagnostic, Fix, non_overlapping_fixes
from nnie_lsp.core.text import TextEdit, apply_edits
from nnie_lsp.triage.line_map import LineMap, line_map

CurrentText = Callable[[str], "str | None"]    # absolute path -> the text now, or None


class FixState(NamedTuple):
    """``fixed``: indexes (in the result's finding order) of findings whose fix, or one of its
    alternatives, is in the current texts; ``explained``: the run's texts changed, and every change
    is one of those fixes; ``applied``: how many fixes that is, as the user applied them -- one per
    distinct change, a fix whose edits are all part of another applied fix not counted (the T207
    `_hp` plan holds the renames of the T204 candidates it chose: "Apply Fixes (1)" applies one
    fix, even though four findings are fixed by it)."""

    fixed: frozenset[int] = frozenset()
    explained: bool = False
    applied: int = 0


def _by_path(fix: Fix) -> dict[str, list[TextEdit]]:
    out: dict[str, list[TextEdit]] = {}
    for file_edit in fix.edits:
        out.setdefault(os.path.abspath(file_edit.path), []).append(file_edit.edit)
    return out


def _in_text(old: str, edits: Sequence[TextEdit], now: str) -> bool:
    """Applying ``edits`` to ``old`` gives lines all present in ``now``, and removes lines gone from it."""
    try:
        fixed = apply_edits(old, edits)
    except (ValueError, IndexError):
        return False
    if fixed == old:
        return False            # a fix that changes nothing cannot be told from no fix
    if fixed == now:
        return True
    forward = line_map(old, fixed)      # which of the run's lines the fix kept, and where
    kept = {forward.line(n) for n in range(forward.old_count)}
    written = [n for n in range(forward.new_count) if n not in kept]
    to_now = line_map(fixed, now)
    if any(to_now.line(n) is None for n in written):
        return False
    back = line_map(old, now)
    removed = [n for n in range(forward.old_count) if forward.line(n) is None]
    return all(back.line(n) is None for n in removed)


def _may_be_in(back: LineMap, edits: Sequence[TextEdit], now: str) -> bool:
    """A cheap test that lets most fixes out before :func:`_in_text` (which applies and diffs the
    whole text): a fix that replaces text is in ``now`` only if the lines it replaced changed, and
    one that inserts text only if ``now`` holds that text."""
    for edit in edits:
        rng = edit.range
        if rng.start != rng.end:
            if all(back.line(n) is not None for n in range(rng.start.line, rng.end.line + 1)):
                return False     # every replaced line is still there, unchanged
        elif edit.new_text.strip() and edit.new_text.strip() not in now:
            return False
    return True


def fix_in_texts(fix: Fix, run_texts: Mapping[str, str], current_text: CurrentText,
                 maps: dict[str, LineMap] | None = None) -> bool:
    """Is ``fix`` (made on ``run_texts``, absolute path -> text) in the current texts?  ``maps``
    keeps each file's run -> current :class:`LineMap` between calls."""
    by_path = _by_path(fix)
    if not by_path:
        return False
    maps = {} if maps is None else maps
    texts = []
    for path, edits in by_path.items():
        old, now = run_texts.get(path), current_text(path)
        if old is None or now is None:
            return False
        back = maps.get(path)
        if back is None:
            back = maps[path] = line_map(old, now)
        if not _may_be_in(back, edits, now):
            return False
        texts.append((old, edits, now))
    return all(_in_text(old, edits, now) for old, edits, now in texts)


def fix_state(findings: Sequence[Diagnostic], run_texts: Mapping[str, str], current_text: CurrentText) -> FixState:
    """The :class:`FixState` of a result's findings (as the run placed them) on the current texts."""
    run_texts = {os.path.abspath(p): t for p, t in run_texts.items()}
    changed = {p for p, t in run_texts.items() if current_text(p) not in (None, t)}
    if not changed:
        return FixState()
    fixed: set[int] = set()
    applied: list[Fix] = []
    maps: dict[str, LineMap] = {}
    for index, finding in enumerate(findings):
        for fix in (finding.fix, *finding.alternatives):
            if (fix is not None and set(_by_path(fix)) <= changed
                    and fix_in_texts(fix, run_texts, current_text, maps)):
                fixed.add(index)
                applied.append(fix)
                break
    if not applied:
        return FixState()
    # explained: the run's texts with every applied fix (once each) are the current texts
    together: dict[str, list[TextEdit]] = {}
    for fix in non_overlapping_fixes(applied):
        for path, edits in _by_path(fix).items():
            together.setdefault(path, []).extend(edits)
    try:
        explained = all(path in together and apply_edits(run_texts[path], together[path]) == current_text(path)
                        for path in changed)
    except (ValueError, IndexError):
        explained = False
    return FixState(frozenset(fixed), explained, _distinct(applied))


def _edit_keys(fix: Fix) -> frozenset:
    return frozenset((os.path.abspath(fe.path), fe.edit.range, fe.edit.new_text) for fe in fix.edits)


def _distinct(fixes: Sequence[Fix]) -> int:
    """How many of `fixes` are changes of their own: equal ones count once, and one whose edits
    are all among another's edits counts as part of that one."""
    keys = list({_edit_keys(fix) for fix in fixes if fix.edits})
    return sum(1 for k in keys if not any(k < other for other in keys))

"""Which of a triage result's fixes are already in the edited texts (nnie_lsp/triage/fixed_since_run.py)."""

from __future__ import annotations

from nnie_lsp.core.diagnostics import Applicability, Diagnostic, FileEdit, Fix
from nnie_lsp.triage.fixed_since_run import fix_in_texts, fix_state
from nnie_lsp.core.text import Range, TextEdit

CFG = "/p/sim.cfg"
RUN = "[prototxt_file] ./det1.prototxt\n[RGB_order] BGR\n[norm_type] 3\n[data_scale] 1\n"


def _fix(*edits: tuple[int, int, int, str]) -> Fix:
    return Fix("fix", Applicability.UNSAFE,
               tuple(FileEdit(CFG, TextEdit(Range.of(line, a, line, b), text)) for line, a, b, text in edits))


def _finding(fix: Fix, *alternatives: Fix) -> Diagnostic:
    return Diagnostic("T102", "m", CFG, Range.of(1, 0, 1, 1), fix=fix, alternatives=alternatives)


RGB = _fix((1, 12, 15, "RGB"))                          # [RGB_order] BGR -> RGB
NORM = _fix((2, 12, 13, "5"))                           # [norm_type] 3 -> 5
DROP_SCALE = _fix((3, 0, 15, ""))                      # empties the [data_scale] line


def _now(text):
    return lambda path: text if path == CFG else None


def test_a_fix_in_the_text_is_found_and_explains_the_change():
    now = RUN.replace("BGR", "RGB")
    assert fix_in_texts(RGB, {CFG: RUN}, _now(now))
    state = fix_state([_finding(RGB), _finding(NORM)], {CFG: RUN}, _now(now))
    assert state.fixed == {0} and state.explained


def test_fixes_plus_another_edit_are_fixed_but_do_not_explain_it():
    now = RUN.replace("BGR", "RGB").replace("[norm_type] 3", "[norm_type] 5") + "[log_level] 0\n"
    state = fix_state([_finding(RGB), _finding(NORM)], {CFG: RUN}, _now(now))
    assert state.fixed == {0, 1} and not state.explained


def test_the_line_moved_by_an_edit_above_is_still_fixed():
    now = "# a comment added above\n" + RUN.replace("BGR", "RGB")
    state = fix_state([_finding(RGB)], {CFG: RUN}, _now(now))
    assert state.fixed == {0} and not state.explained


def test_an_unrelated_or_different_edit_is_not_the_fix():
    assert fix_state([_finding(RGB)], {CFG: RUN}, _now(RUN.replace("BGR", "RBG"))).fixed == frozenset()
    assert fix_state([_finding(RGB)], {CFG: RUN}, _now(RUN + "[log_level] 0\n")).fixed == frozenset()
    assert fix_state([_finding(RGB)], {CFG: RUN}, _now(RUN)) == fix_state([], {}, _now(RUN))  # nothing changed


def test_an_alternative_that_was_applied_counts():
    state = fix_state([_finding(NORM, RGB)], {CFG: RUN}, _now(RUN.replace("BGR", "RGB")))
    assert state.fixed == {0} and state.explained


def test_a_deleting_fix():
    now = RUN.replace("[data_scale] 1\n", "\n")
    state = fix_state([_finding(DROP_SCALE)], {CFG: RUN}, _now(now))
    assert state.fixed == {0} and state.explained
    # the line is still there: not fixed
    assert fix_state([_finding(DROP_SCALE)], {CFG: RUN}, _now(RUN + "\n")).fixed == frozenset()


def test_the_same_edit_in_two_findings_is_applied_once():
    state = fix_state([_finding(RGB), _finding(RGB)], {CFG: RUN}, _now(RUN.replace("BGR", "RGB")))
    assert state.fixed == {0, 1} and state.explained
    assert state.applied == 1


def test_applied_counts_the_fixes_the_user_applied_not_the_findings():
    """A plan that holds other findings' fixes (T207 and its T204 candidates) is one fix applied,
    as "Apply Fixes (1)" said; two independent fixes are two."""
    plan = _fix((1, 12, 15, "RGB"), (2, 12, 13, "5"))
    now = RUN.replace("BGR", "RGB").replace("[norm_type] 3", "[norm_type] 5")
    state = fix_state([_finding(plan), _finding(RGB), _finding(NORM)], {CFG: RUN}, _now(now))
    assert state.fixed == {0, 1, 2} and state.explained and state.applied == 1
    state = fix_state([_finding(RGB), _finding(NORM)], {CFG: RUN}, _now(now))
    assert state.fixed == {0, 1} and state.applied == 2

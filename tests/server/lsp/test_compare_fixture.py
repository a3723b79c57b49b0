"""tests/data/triage/compare_result.json (the editor clients' unit-test fixture) is what
`nnie-triage compare --format json` prints today, and the server's features read it."""

from __future__ import annotations

import json
import math

from nnie_lsp.server.triage import carry_over
from nnie_lsp.server.triage.annotations import finding_diagnostics

from .make_compare_fixture import FIXTURE, PROJECT, compare_result


def _differences(expected, actual, where="$") -> list[str]:
    if isinstance(expected, dict) and isinstance(actual, dict):
        out = [f"{where}.{k}: missing" for k in expected.keys() - actual.keys()]
        out += [f"{where}.{k}: new" for k in actual.keys() - expected.keys()]
        for key in expected.keys() & actual.keys():
            out += _differences(expected[key], actual[key], f"{where}.{key}")
        return out
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return [f"{where}: {len(expected)} items, now {len(actual)}"]
        return [d for i, (e, a) in enumerate(zip(expected, actual)) for d in _differences(e, a, f"{where}[{i}]")]
    if isinstance(expected, float) and isinstance(actual, (int, float)) and not isinstance(actual, bool):
        return [] if math.isclose(expected, actual, rel_tol=1e-9, abs_tol=1e-12) else [f"{where}: {expected} -> {actual}"]
    return [] if expected == actual else [f"{where}: {expected!r} -> {actual!r}"]


def test_fixture_is_what_the_cli_prints():
    stored = json.loads(FIXTURE.read_text(encoding="utf-8"))
    differences = _differences(stored, compare_result())
    assert not differences, ("tests/data/triage/compare_result.json is out of date; regenerate it with "
                             "`.venv/bin/python tests/server/lsp/make_compare_fixture.py`:\n  " + "\n  ".join(differences[:20]))


def test_fixture_is_a_case_2_result_the_editor_reads():
    stored = json.loads(FIXTURE.read_text(encoding="utf-8"))
    assert stored["schema_version"] == 2 and stored["case"] == 2 and stored["sim16"]["verdict"] == "confirmed"
    assert carry_over.summary(stored).startswith("Case 2: ") and stored["first_divergence"]
    stored["inputs"]["working_directory"] = str(PROJECT)
    findings = finding_diagnostics(stored)
    # the demo's NNIE side carries noise no quantization makes: hp-plan (the one `_hp` planner)
    # refuses to plan on it, so T207 says why and the result offers no change to apply
    plan = next(d for d in findings if d.code == "T207")
    assert plan.fix is None and "hp-plan --cfg" in plan.message and not stored["hp_plan"]["made"]
    assert [d.code for d, _fix in carry_over.fix_all(findings)] == []


def test_summary_names_the_case_once():
    """The verdict already says "(case N)" or "inconclusive: …": the notification line says it once."""
    for verdict, case, want in [
        ("preprocessing mismatch (case 1)", 1, "Case 1: preprocessing mismatch; first divergence: conv1"),
        ("quantization error (case 2) — confirmed by the 16-bit run", 2,
         "Case 2: quantization error — confirmed by the 16-bit run; first divergence: conv1"),
        ("inconclusive: not quantization", None, "Inconclusive: not quantization; first divergence: conv1"),
        ("inconclusive", None, "Inconclusive; first divergence: conv1"),
    ]:
        assert carry_over.summary({"verdict": verdict, "case": case, "first_divergence": "conv1"}) == want
    assert carry_over.summary({"verdict": "post-processing (case 4)", "case": 4}, "zh") == "情形 4：post-processing"

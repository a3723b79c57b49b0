"""Every T-code is a registered rule, registered by the triage module that emits it: nnie-lint
explains it in English and Chinese and lists it; linting a project never produces one (only
nnie-triage and the editor's triage do)."""
from __future__ import annotations

import ast
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from nnie_lsp.lint.driver import lint_files
from nnie_lsp.cli.lint import main as lint_main
from nnie_lsp.core.catalogue import all_rules, get_rule
from nnie_lsp.core.rule_index import RULES
from nnie_lsp.project.settings import LintSettings

ROOT = Path(__file__).resolve().parents[2]
CJK = re.compile(r"[\u4e00-\u9fff]")

CODES = sorted(code for code in RULES if code.startswith("T"))

#: T-codes whose Diagnostic is made outside their registering module, and where: T005 is the
#: editor's note on a layer whose row status (nnie_lsp.triage.measure.rows) is low/poor/bad
#: (annotations.py names it as ``SIMILARITY_CODE``).
EMITTED_ELSEWHERE = {"T005": "nnie_lsp.server.triage.annotations"}
#: registering modules whose codes other modules build: the board's T-codes are registered in
#: board.findings (which loads no numpy) and built by the checks that need numpy; T204/T207 are
#: registered beside case 2 and built from the planner's answer
BUILT_BY = {"nnie_lsp.triage.board.findings": {"nnie_lsp.triage.board.checks", "nnie_lsp.triage.board.stage"},
            # the `_hp` plan's codes are worded from hp-plan's answer by the compare's plan stage
            "nnie_lsp.triage.diagnose.quantization": {"nnie_lsp.triage.hp_plan.for_compare"}}


def _module_path(module: str) -> Path:
    return Path(importlib.util.find_spec(module).origin)


def _codes_passed_to_calls(module: str) -> set[str]:
    """The T-codes `module` passes to a call other than its registrations (``builder.add("T102",
    ...)``, ``builder.fix("T204", ...)``, ``_key_finding("T102", ...)``), or binds to a name for one
    (``code, msg_id = ("T403", "same") if ... else ("T402", "differs")``)."""
    tree = ast.parse(_module_path(module).read_text(encoding="utf-8"))
    registrations = {id(n) for node in ast.walk(tree) if isinstance(node, ast.Call)
                     and getattr(node.func, "id", None) == "register_finding" for n in ast.walk(node)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in registrations or not isinstance(node, (ast.Call, ast.Assign)):
            continue
        for sub in ast.walk(node):
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and re.fullmatch(r"T\d{3}", sub.value):
                found.add(sub.value)
    return found


def test_every_t_code_is_registered_by_the_triage_module_that_emits_it():
    assert len(CODES) >= 25
    registered = {r.code for r in all_rules() if r.code.startswith("T")}
    assert registered == set(CODES)
    for code in CODES:
        module = RULES[code][0]
        assert module.startswith("nnie_lsp.triage."), (code, module)
        assert get_rule(code).check.__module__ == module, code
        emitter = EMITTED_ELSEWHERE.get(code, module)
        assert code in _codes_passed_to_calls(emitter), f"{code} is registered in {module}; {emitter} never emits it"


def test_a_t_code_is_emitted_only_by_its_registering_module():
    """No triage module builds a finding whose code another module registers."""
    triage = ROOT / "nnie_lsp" / "triage"
    for path in sorted(triage.rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        if module.endswith(".__init__"):
            continue
        for code in _codes_passed_to_calls(module):
            home = RULES.get(code, ("?",))[0]
            assert home == module or module in BUILT_BY.get(home, ()), f"{module} emits {code}, registered in {RULES.get(code)}"


def test_registering_the_t_codes_loads_no_numpy():
    """The language server and `nnie-lint --explain` import the registering modules."""
    modules = sorted({RULES[code][0] for code in CODES})
    probe = ("import sys\n" + "".join(f"import {m}\n" for m in modules)
             + "print(' '.join(m for m in sys.modules if m == 'numpy' or m.startswith('numpy.')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr[-600:]
    assert done.stdout.split() == [], modules


@pytest.mark.parametrize("code", CODES)
def test_explain_in_english_and_chinese(code, capsys):
    assert lint_main(["--explain", code]) == 0
    en = capsys.readouterr().out
    assert en.startswith(f"# {code} (")
    for section in ("## What it finds", "## Why", "## Example", "## Fix"):
        body = en.split(section, 1)[1].split("\n## ", 1)[0]
        assert body.strip(), (code, section)
    rule = next(r for r in all_rules() if r.code == code)
    if code.startswith("T6"):  # the board stage comes after the guide's six steps
        assert re.search(r"\bboard\b", en.split("## Why", 1)[1]), f"{code}: Why must name the board"
        assert rule.group == "Triage (the board, after the guide's steps)"
        return
    assert re.search(r"step [1-6]", en.split("## Why", 1)[1]), f"{code}: Why must name the guide step"
    assert rule.group.startswith("Triage (guide step") and rule.step in range(1, 6)
    if rule.fix:  # the docs say whether the fix is safe
        assert rule.fix in en.split("## Fix", 1)[1].lower()
    assert lint_main(["--explain", code, "--lang", "zh"]) == 0
    zh = capsys.readouterr().out
    assert "## 说明" in zh and CJK.search(zh.split("## 说明", 1)[1].split("## ", 1)[0])
    assert CJK.search(zh.splitlines()[2])  # the summary line, in Chinese


def test_list_rules_shows_triage_codes(capsys):
    assert lint_main(["--list-rules", "--format", "json"]) == 0
    listed = {r["code"]: r for r in json.loads(capsys.readouterr().out)}
    for code in CODES:
        assert code in listed and CJK.search(listed[code]["summary_zh"])
    assert listed["T102"]["fix"] == "unsafe" and listed["T301"]["fix"] == "safe"


def test_layer_similarity_note_has_the_editors_messages():
    """T005 carries the texts the editor's per-layer note is made of (en, zh)."""
    rule = get_rule("T005")
    assert rule.name == "layer-similarity-low" and rule.step == 1
    low_en, low_zh = rule.messages["low"]
    assert low_en.format(cosine="0.7900", threshold="0.9", status="bad", hint=rule.messages["first"][0]) == \
        "cosine 0.7900 against Caffe is below 0.9 (bad): first divergence"
    assert "{cosine}" in low_zh and "{hint}" in low_zh and CJK.search(rule.messages["first"][1])


def test_lint_never_reports_a_triage_code(scenario_dirs, tmp_path):
    """Even with every code selected, nnie-lint produces no T-code: they come from nnie-triage."""
    p = scenario_dirs("quant_noise")
    for settings in (LintSettings(), LintSettings(select=("ALL",)), LintSettings(select=("T",))):
        diags = lint_files([str(p["cfg"]), str(p["prototxt"])], settings=settings).diagnostics
        assert not [d for d in diags if d.code.startswith("T")]

"""Every T-code the diagnosis can produce is a registered rule: nnie-lint explains it in English and
Chinese and lists it; linting a project never produces one (only nnie-triage does)."""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from nnie_lsp.lint_paths import lint_files
from nnie_lsp.cli.lint import main as lint_main
from nnie_lsp.rules.catalogue import all_rules
from nnie_lsp.settings import LintSettings

TRIAGE = Path(__file__).resolve().parents[2] / "nnie_lsp" / "triage"
CJK = re.compile(r"[\u4e00-\u9fff]")


def _codes_in_use() -> set[str]:
    """The T-codes the triage modules pass to the findings builder (`builder.add("T102", ...)`)."""
    codes = set()
    for path in TRIAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and re.fullmatch(r"T\d{3}", node.value):
                codes.add(node.value)
    return codes


USED = sorted(_codes_in_use())


def test_codes_in_use_are_registered():
    registered = {r.code for r in all_rules() if r.code.startswith("T")}
    assert len(USED) >= 20 and set(USED) <= registered
    assert registered <= set(USED), "a registered T-code that nothing produces"


@pytest.mark.parametrize("code", USED)
def test_explain_in_english_and_chinese(code, capsys):
    assert lint_main(["--explain", code]) == 0
    en = capsys.readouterr().out
    assert en.startswith(f"# {code} (")
    for section in ("## What it finds", "## Why", "## Example", "## Fix"):
        body = en.split(section, 1)[1].split("\n## ", 1)[0]
        assert body.strip(), (code, section)
    assert re.search(r"step [1-6]", en.split("## Why", 1)[1]), f"{code}: Why must name the guide step"
    rule = next(r for r in all_rules() if r.code == code)
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
    for code in USED:
        assert code in listed and CJK.search(listed[code]["summary_zh"])
    assert listed["T102"]["fix"] == "unsafe" and listed["T301"]["fix"] == "safe"


def test_lint_never_reports_a_triage_code(scenario_dirs, tmp_path):
    """Even with every code selected, nnie-lint produces no T-code: they come from nnie-triage."""
    p = scenario_dirs("quant_noise")
    for settings in (LintSettings(), LintSettings(select=("ALL",)), LintSettings(select=("T",))):
        diags = lint_files([str(p["cfg"]), str(p["prototxt"])], settings=settings).diagnostics
        assert not [d for d in diags if d.code.startswith("T")]

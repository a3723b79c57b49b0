"""The registry is the single source: docs sections, both languages, rules.md (the docs site's rules reference) in sync."""

from __future__ import annotations

import re
import string
import subprocess
import sys
from pathlib import Path

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.core.catalogue import all_rules, get_rule
from nnie_lsp.core.registry import DOC_SECTIONS, Rule

ROOT = Path(__file__).resolve().parents[2]


def _fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


def test_codes_are_stable_and_unique():
    codes = [r.code for r in all_rules()]
    assert len(codes) == len(set(codes))
    assert all(re.fullmatch(r"NN\d{3}|T\d{3}", c) for c in codes), codes  # lint rules, triage findings
    names = [r.name for r in all_rules()]
    assert len(names) == len(set(names))
    expected = {f"NN00{i}" for i in range(1, 8)} | {f"NN01{i}" for i in range(0, 9)} | \
        {f"NN1{i:02d}" for i in range(1, 12)} | {"NN201", "NN202", "NN203"} | {f"NN30{i}" for i in range(1, 7)}
    assert expected <= set(codes)


def test_every_rule_has_all_doc_sections():
    for r in all_rules():
        for s in DOC_SECTIONS:
            assert r.docs.get(s, "").strip(), f"{r.code} lacks '{s}'"


def test_message_catalogue_has_both_languages_with_same_placeholders():
    """One catalogue: every message and fix title of every code in English and Simplified Chinese."""
    cjk = re.compile(r"[\u4e00-\u9fff]")
    for r in all_rules():
        assert r.summary[0] and cjk.search(r.summary[1]), r.code
        assert r.messages, r.code
        for key, (en, zh) in r.messages.items():
            assert en.strip() and zh.strip(), (r.code, key)
            assert _fields(en) == _fields(zh), (r.code, key, en, zh)
            # the Chinese text is Chinese unless it is a pure pass-through such as "{message}"
            if re.search(r"[A-Za-z]", re.sub(r"\{[^}]*\}", "", en)):
                assert cjk.search(zh), (r.code, key, zh)


def test_rules_reference_is_generated_from_registry():
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_docs.py"), "--check"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    reference = (ROOT / "nnie_lsp" / "docs" / "rules.md").read_text(encoding="utf-8")
    for r in all_rules():
        assert f"| {r.code} | {r.name} |" in reference and f'<a id="{r.code.lower()}"></a>' in reference


def test_fix_kind_is_declared_for_rules_that_fix():
    """A rule that offers fixes says so (the rules reference's fix column)."""
    import inspect
    for r in all_rules():
        src = inspect.getsource(r.check) if not r.meta else ""
        if "ctx.fix(" in src or "_deinplace_fix(" in src:
            assert r.fix, f"{r.code} builds fixes but declares none"


def test_every_rule_has_chinese_docs():
    cjk = re.compile(r"[\u4e00-\u9fff]")
    for r in all_rules():
        assert cjk.search(r.docs_zh or ""), f"{r.code} has no Chinese explanation (docs_zh= at its registration)"
        assert "## 说明" in r.explain("zh")


def test_meta_codes_are_registered_by_the_catalogue_and_never_run_as_checks():
    meta = {r.code for r in all_rules() if r.meta}
    assert meta == {"NN000", "NN901", "NN902", "NN903"}
    assert {get_rule(c).group for c in meta} == {"Lint meta"}


def test_rule_group_names_the_guide_step():
    def make(code, step):
        return Rule(code=code, name="x", severity=Severity.INFO, step=step, summary=("a", "b"),
                    messages={}, check=lambda project, ctx: ())
    assert make("NN001", None).group == "Config and schema"
    assert make("NN101", 2).group == "Data layer (guide step 2)"
    assert make("NN201", 3).group == "Quantization (guide step 3)"
    assert make("NN301", 4).group == "Layer matching (guide step 4)"
    assert make("T105", 5).group == "Triage (guide step 5)"
    assert make("T101", 2).group == "Triage (guide step 2)"
    assert get_rule("NN301").group == "Layer matching (guide step 4)"


def test_rule_index_matches_every_rule_module():
    """The generated index (nnie_lsp/core/rule_index.py) names, for every code, the module that
    registers it (full dotted path: lint rules in nnie_lsp.rules, T-codes in the triage module that
    emits them) and what the rule needs; importing that module alone registers the code."""
    import subprocess as sp

    from nnie_lsp.core.catalogue import import_every_rule_module
    from nnie_lsp.core.rule_index import RULES
    from nnie_lsp.core.registry import NEEDS, TRIAGE, registered_rules

    import_every_rule_module()
    assert {r.code: r.needs for r in registered_rules()} == {code: needs for code, (_m, needs) in RULES.items()}
    assert set(needs for _m, needs in RULES.values()) <= set(NEEDS)
    for r in registered_rules():
        module = RULES[r.code][0]
        if r.meta:
            assert module == "nnie_lsp.rules.meta", r.code
        else:
            assert r.check.__module__ == module, r.code
        home = "nnie_lsp.triage." if r.needs == TRIAGE else "nnie_lsp.rules."
        assert module.startswith(home) and r.code.startswith("T") == (r.needs == TRIAGE), (r.code, module)
    by_module: dict[str, list[str]] = {}
    for code, (module, _needs) in RULES.items():
        by_module.setdefault(module, []).append(code)
    for module, codes in sorted(by_module.items()):
        probe = (f"import {module}; from nnie_lsp.core.registry import registered_rule; "
                 f"missing = [c for c in {codes!r} if registered_rule(c) is None]; assert not missing, missing")
        done = sp.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
        assert done.returncode == 0, (module, done.stderr[-400:])


def _cfg_less_projects():
    from nnie_lsp.project.project import load_project
    from nnie_lsp.project.settings import LintSettings

    settings = LintSettings().merged(select=("NN",))
    # the repository's own prototxts, the shared corpus among them (NNIE_SHARED: another copy too)
    from nnie_lsp.testing.shared_files import shared_dir

    files = sorted({*ROOT.glob("tests/**/*.prototxt"), *ROOT.glob("examples/**/*.prototxt"),
                    *(shared_dir() / "corpus").glob("**/*.prototxt")})
    assert len(files) >= 15
    return [load_project(prototxt_path=str(f), settings=settings) for f in files]


def test_a_rule_that_needs_a_cfg_finds_nothing_without_one():
    """``needs="cfg"`` lets the lint skip the rule (and its module) for a prototxt alone: sound
    only if the rule would find nothing there anyway.  Run each such rule's check directly."""
    from nnie_lsp.core.catalogue import all_rules
    from nnie_lsp.rules.context import RuleContext

    projects = _cfg_less_projects()
    needing = [r for r in all_rules() if r.needs == "cfg"]
    assert len(needing) >= 20
    for r in needing:
        for project in projects:
            ctx = RuleContext(code=r.code, messages=dict(r.messages), settings=project.settings, lang="en",
                              default_severity=r.severity)
            assert list(r.check(project, ctx)) == [], (r.code, project.prototxt_path)


def test_the_lint_runs_the_same_rules_whatever_modules_are_loaded(tmp_path):
    """rules_for filters by needs itself: a cfg-less project gets no cfg rule even when every rule
    module is already imported (the language server imports them all)."""
    from nnie_lsp.core.catalogue import all_rules, rules_for

    all_rules()
    codes = {r.code for r in rules_for(frozenset())}
    assert "NN010" in codes and "NN001" not in codes and not any(c.startswith("T") for c in codes)
    assert "NN001" in {r.code for r in rules_for(frozenset({"cfg"}))}

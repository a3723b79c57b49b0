"""No fix of nnie-lint may produce a finding of nnie-lint.

Every rule case (tests/rules/cases/*.toml) and every bundled example project is linted with every
rule on (the off-by-default ones too); then each fix and each alternative of each finding is
applied alone, and the project is linted again.  A finding the fixed text has and the original
did not (counted per file and code) fails: NN503's `round_mode: FLOOR` once drew NN018's "the
NNIE wk always rounds up… delete it"; NN017's batch 1 drew NN021 on an LRCN Reshape; NN111's
norm_type 0 drew NN105; NN005's `[mean_file] null` drew NN110 on a two-input cfg; the de-inplace
fixes drew NN501 on a BatchNorm + Scale of the conversion check.
"""

from __future__ import annotations

import os
import re
import shutil
from collections import Counter
from pathlib import Path

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

import pytest

from nnie_lsp.lint.driver import Overlay, lint_files
from nnie_lsp.core.catalogue import all_rules
from nnie_lsp.project.settings import settings_from_mapping
from nnie_lsp.core.text import apply_edits

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "rules" / "cases"
EVERY_RULE = [r.code for r in all_rules() if not r.code.startswith("T")]
#: example projects: (folder, the files named on the command line, relative to it)
EXAMPLES = [("examples/project", ["."]), ("examples/triage/channel_swap", ["sim.cfg"]),
            ("examples/triage/quant_noise", ["sim.cfg"]), ("examples/conversion", ["det1.prototxt", "det1.cfg"]),
            ("examples/conversion/inplace", ["det1.prototxt"]), ("examples/conversion/reexported", ["det1.cfg"])]


def _cases():
    out = []
    for f in sorted(CASES.glob("*.toml")):
        for i, case in enumerate(tomllib.loads(f.read_text(encoding="utf-8")).get("case", [])):
            if "xfail_reason" in case:
                continue
            out.append(pytest.param(case, id=f"{f.stem}-{i}"))
    return out


def _settings(extra: dict):
    return settings_from_mapping({"select": EVERY_RULE, **extra})


#: codes that are one concept split by context: an in-place layer is NN301, NN302 or NN303 by
#: the type of the layer that wrote its blob, which a de-inplace fix of the layer before changes
FAMILY = {"NN301": "NN30x", "NN302": "NN30x", "NN303": "NN30x"}
#: fixes after which other rules see a value for the first time (what they find was in the file,
#: unseen): NN003 turns an unreadable value into the one it meant (`3.0` -> `3`, `3 ; scale only`
#: -> `3`), so the rules that read that key run; NN009 points the cfg at another file, whose own
#: findings come with it.  Only findings of other files or of rules reading that value are spared.
REVEALS = {"NN003", "NN009"}


#: the cross-checks of a `.wk` against the cfg and the prototxt it was built from: after a fix edits
#: those, the `.wk` on disk is an older build by construction, and what these say ("built from
#: another version …; run nnie_mapper again") is the fix's next step, not a new problem.  Spared
#: only when the fix edited a cfg or a prototxt.
REBUILD = {"NN601", "NN602", "NN603", "NN604"}


def _revealed(fixed, found, linted: set[str], fix) -> bool:
    """Whether ``found`` (after the fix of ``fixed``) is one that fix only reveals (:data:`REVEALS`)
    or the rebuild it calls for (:data:`REBUILD`)."""
    if found.code in REBUILD and any(fe.path.endswith((".cfg", ".prototxt")) for fe in fix.edits):
        return True
    if fixed.code == "NN009":
        return os.path.basename(found.path) not in linted
    if fixed.code == "NN003":
        key = re.match(r"\[(\w+)\]", fixed.message)
        return key is not None and key.group(1) in found.message and found.path == fixed.path
    return False


def _key(d) -> tuple[str, str]:
    """Findings are counted per file and code: a fix that de-inplaces one layer of a chain renames
    the blob the others' findings quote, and those are the same findings."""
    if d.code.startswith("NN4"):  # a mapper log's finding sits on the line it names, else on the log
        return ("", d.code)
    return (os.path.basename(d.path), FAMILY.get(d.code, d.code))


def _fixes(diags):
    for d in diags:
        for fix in ((d.fix,) if d.fix is not None else ()) + tuple(d.alternatives):
            if fix.edits:
                yield d, fix


def _drawn(files: list[str], settings, cwd: str) -> list[str]:
    before = lint_files(files, settings=settings, cwd=cwd)
    base = Counter(_key(d) for d in before.diagnostics)
    said = {(_key(d), d.message) for d in before.diagnostics}
    problems = []
    linted = {os.path.basename(x.path) for x in before.diagnostics} | {os.path.basename(f) for f in files}
    for d, fix in _fixes(before.diagnostics):
        provider = Overlay()
        by_path: dict[str, list] = {}
        for fe in fix.edits:
            by_path.setdefault(os.path.abspath(fe.path), []).append(fe.edit)
        for path, edits in by_path.items():
            dec = provider.read_text(path)  # None: a file the fix creates (NN122's channel_mean.txt)
            provider.overlay[path] = apply_edits(dec.text if dec is not None else "", edits)
        diags = [x for x in lint_files(files, settings=settings, cwd=cwd, provider=provider).diagnostics
                 if not _revealed(d, x, linted, fix)]
        new = Counter(_key(x) for x in diags) - base
        if new:
            texts = [x.message for x in diags if _key(x) in new and (_key(x), x.message) not in said]
            problems.append(f"{d.code} fix {fix.message!r} draws {dict(new)}: " + " | ".join(texts))
    return problems


@pytest.mark.parametrize("case", _cases())
def test_no_fix_of_a_rule_case_draws_a_finding(case, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    files = _write(tmp_path, case)
    problems = _drawn(files, _settings(case.get("settings", {})), str(tmp_path))
    assert not problems, problems


@pytest.mark.parametrize("folder,names", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_no_fix_of_an_example_draws_a_finding(folder, names, tmp_path, monkeypatch):
    src = ROOT / folder
    if not src.is_dir():
        pytest.skip(f"{folder} is not in this checkout")
    shutil.copytree(ROOT / "examples", tmp_path / "examples")   # relative paths between examples hold
    work = tmp_path / folder
    monkeypatch.chdir(work)
    problems = _drawn([str(work / n) for n in names], _settings({}), str(work))
    assert not problems, problems


def _write(tmp: Path, case: dict) -> list[str]:
    """The case's files, written as the rule-case runner writes them (its own function)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("rule_case_runner", CASES.parent / "test_rule_cases.py")
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    return runner._write(tmp, case)


CORPUS = sorted([*(ROOT / "tests" / "data").glob("cfg/*.cfg"), *(ROOT / "tests" / "data").glob("prototxt/real/*.prototxt"),
                 *(ROOT / "tests" / "data").glob("prototxt/models/*/*.prototxt")])


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_no_fix_on_a_real_corpus_file_draws_a_finding(path, tmp_path, monkeypatch):
    work = tmp_path / path.name
    work.write_bytes(path.read_bytes())
    monkeypatch.chdir(tmp_path)
    problems = _drawn([str(work)], _settings({}), str(tmp_path))
    assert not problems, problems

"""No behaviour change where it is cheap to check on every run: nnie-lint's JSON on the examples and
the repository's test nets equals the snapshot `scripts/behaviour_snapshot.py` took before the triage
redesign (tests/data/behaviour/, normalised the same way).  The whole snapshot (lint, compare,
hp-plan, reference, emulate, bundle: 88 commands, about a minute) is run by hand:
`python scripts/behaviour_snapshot.py check --against DIR`.  A deliberate change of lint output
updates these files in the same commit: `NNIE_UPDATE_GOLDENS=1 pytest tests/test_behaviour_snapshot.py`
rewrites them (then read the diff)."""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "data" / "behaviour"


def _script():
    spec = importlib.util.spec_from_file_location("behaviour_snapshot", ROOT / "scripts" / "behaviour_snapshot.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CASES = sorted(GOLDEN.glob("lint--*.json"))


def _argument(slug: str) -> str:
    """The path a golden file's slug names (``lint--examples_project_model.prototxt``)."""
    places = [ROOT / "examples", *(ROOT / "examples").rglob("*"), *(ROOT / "tests" / "data").rglob("*")]
    candidates = [p for p in places if "lint--" + re.sub(r"[^\w.-]+", "_", p.relative_to(ROOT).as_posix()) == slug]
    assert len(candidates) == 1, (slug, candidates)
    return candidates[0].relative_to(ROOT).as_posix()


def test_every_golden_names_one_path():
    assert len(CASES) >= 10
    for case in CASES:
        _argument(case.name.removesuffix(".json"))


@pytest.mark.parametrize("golden", CASES, ids=lambda p: p.stem.removeprefix("lint--"))
def test_lint_json_is_unchanged(golden, tmp_path):
    script = _script()
    snap = script.Snapshot(tmp_path, tmp_path)
    slug = golden.name.removesuffix(".json")
    snap.run(slug, "nnie-lint", "--format", "json", "--exit-zero", _argument(slug), cwd=ROOT)
    now = (tmp_path / golden.name).read_text(encoding="utf-8")
    if os.environ.get("NNIE_UPDATE_GOLDENS") == "1":
        golden.write_text(now, encoding="utf-8")
    assert now == golden.read_text(encoding="utf-8")

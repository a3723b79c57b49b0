"""Every real corpus file is read without a crash and gives the reviewed findings.

The expectation file `tests/data/corpus_expect.txt` was generated with
`NNIE_UPDATE_EXPECT=1 pytest tests/test_corpus.py` and then reviewed line by line (see the
comments at its top); a change in findings fails here until the file is reviewed again.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nnie_lsp.lint import lint_project, project_for_file
from nnie_lsp.settings import LintSettings

DATA = Path(__file__).parent / "data"
EXPECT = DATA / "corpus_expect.txt"
FILES = sorted([*DATA.glob("cfg/*.cfg"), *DATA.glob("prototxt/real/*.prototxt"),
                *DATA.glob("prototxt/models/*/*.prototxt")])
SETTINGS = LintSettings(extend_select=("NN303",))


def _lint(path: Path) -> list[str]:
    project = project_for_file(str(path), settings=SETTINGS)
    out = lint_project(project, paths=[str(path)])
    assert not out.errors, out.errors           # no rule crashed
    assert all(d.code != "NN000" for d in out.diagnostics)
    rel = path.relative_to(DATA).as_posix()
    return [f"{rel}:{d.range.start.line + 1}:{d.range.start.character + 1} {d.code}" for d in out.diagnostics]


def _expected() -> list[str]:
    return [l for l in EXPECT.read_text(encoding="utf-8").splitlines() if l and not l.startswith("#")]


def test_corpus_is_there():
    assert len(FILES) >= 8 + 8 + 4


def test_corpus_findings_match_review(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # relative cfg paths must not resolve against the repo
    got = []
    for f in FILES:
        got += _lint(f)
    if os.environ.get("NNIE_UPDATE_EXPECT"):
        header = [l for l in EXPECT.read_text(encoding="utf-8").splitlines() if l.startswith("#")] if EXPECT.exists() else []
        EXPECT.write_text("\n".join(header + got) + "\n", encoding="utf-8")
    assert got == _expected()


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_corpus_fixes_are_idempotent(path, tmp_path, monkeypatch):
    """Applying all fixes twice gives the same text as applying them once, and the result parses."""
    from nnie_lsp.lint_paths import fix_files
    from nnie_lsp.prototxt.reader import parse_prototxt
    monkeypatch.chdir(tmp_path)
    work = tmp_path / path.name
    work.write_bytes(path.read_bytes())
    res = fix_files([str(work)], unsafe=True, settings=SETTINGS)
    if str(work) in res.fixed:
        work.write_text(res.fixed[str(work)][1], encoding="utf-8")
        again = fix_files([str(work)], unsafe=True, settings=SETTINGS)
        assert again.fixed == {}
        if work.suffix == ".prototxt":
            assert not parse_prototxt(work.read_text(encoding="utf-8")).errors

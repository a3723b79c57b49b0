"""One definition of overlapping fixes: `nnie-lint --fix` (batch) and the editor's fix-all
(features.actions) keep the same fixes from the same candidates."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from nnie_lsp.lint.driver import choose_fixes, lint_files
from nnie_lsp.core.diagnostics import Applicability, Diagnostic, FileEdit, Fix, non_overlapping_fixes
from nnie_lsp.editor import actions
from nnie_lsp.project.settings import LintSettings
from nnie_lsp.core.text import Range, TextEdit, apply_edits, ranges_conflict

ROOT = Path(__file__).resolve().parents[2]


def _fix(path, title, *ranges, safe=True):
    edits = tuple(FileEdit(path, TextEdit(Range.of(*r), title)) for r in ranges)
    return Fix(title, Applicability.SAFE if safe else Applicability.UNSAFE, edits)


def test_ranges_conflict():
    assert ranges_conflict(Range.of(0, 0, 0, 3), Range.of(0, 1, 0, 2))        # inside
    assert ranges_conflict(Range.of(0, 0, 0, 3), Range.of(0, 2, 0, 5))        # crossing
    assert ranges_conflict(Range.of(0, 0, 0, 3), Range.of(0, 0, 0, 3))        # identical
    assert ranges_conflict(Range.point(0, 2), Range.point(0, 2))              # two insertions, one point
    assert ranges_conflict(Range.point(1, 0), Range.of(1, 0, 2, 0))           # insertion where a deletion starts
    assert ranges_conflict(Range.point(0, 1), Range.of(0, 0, 0, 3))           # insertion inside a replacement
    assert not ranges_conflict(Range.of(0, 0, 0, 3), Range.of(0, 3, 0, 5))    # touching
    assert not ranges_conflict(Range.of(0, 0, 0, 3), Range.point(0, 3))       # insertion at the end
    assert not ranges_conflict(Range.of(0, 0, 0, 3), Range.of(1, 0, 1, 3))


def test_cli_and_fix_all_choose_the_same_fixes(tmp_path):
    path = str(tmp_path / "net.prototxt")
    other = str(tmp_path / "net.cfg")
    candidates = [
        ("NN1", _fix(path, "a", (0, 0, 0, 3))),
        ("NN2", _fix(path, "b", (0, 0, 0, 0))),             # insertion where a starts
        ("NN3", _fix(path, "c", (0, 1, 0, 2))),             # inside a
        ("NN4", _fix(path, "d", (0, 3, 0, 5))),             # touches a
        ("NN5", _fix(path, "e", (0, 5, 0, 5))),             # insertion at the end of d
        ("NN6", _fix(path, "f", (0, 5, 0, 5))),             # second insertion at the same point
        ("NN7", _fix(path, "g", (1, 0, 1, 4), safe=False)),  # unsafe: neither applies it
        ("NN8", _fix(path, "h", (2, 0, 2, 1), (0, 4, 0, 4))),  # one of two edits inside d
        ("NN9", _fix(path, "i", (2, 0, 3, 0), (5, 0, 5, 0))),
        ("NN10", _fix(path, "j", (4, 0, 4, 0))),
    ]
    diags = [Diagnostic(code, "m", path, Range.point(0, 0), fix=fix) for code, fix in candidates]
    by_cli = [fix.message for fix in choose_fixes(diags, unsafe=False)]
    fix_all = actions.fix_all(diags, path)
    assert by_cli == ["a", "d", "e", "i", "j"]
    assert [dict(candidates)[code].message for code in fix_all.codes] == by_cli
    # and they produce the same text
    text = "abcdefgh\nline1\nline2\nline3\nline4\nline5\n"
    cli_edits = [fe.edit for fix in choose_fixes(diags, unsafe=False) for fe in fix.edits]
    assert apply_edits(text, fix_all.edits[os.path.abspath(path)]) == apply_edits(text, cli_edits)
    # a fix that also edits another file: the same choice for the file's part
    spread = Diagnostic("NN11", "m", path, Range.point(0, 0),
                        fix=Fix("k", Applicability.SAFE, (FileEdit(other, TextEdit(Range.point(0, 0), "k")),
                                                          FileEdit(path, TextEdit(Range.point(0, 0), "k")))))
    assert [f.message for f in choose_fixes([*diags, spread], unsafe=False)] == by_cli
    # edits in different files never conflict
    assert [f.message for f in non_overlapping_fixes([_fix(path, "x", (0, 0, 0, 3)),
                                                      _fix(other, "y", (0, 0, 0, 3))])] == ["x", "y"]


def test_same_choice_on_a_real_project(tmp_path):
    """The example project: every safe fix `--fix` takes in the prototxt is what fix-all takes."""
    project = tmp_path / "project"
    shutil.copytree(ROOT / "examples" / "project", project)
    files = sorted(str(p) for p in project.iterdir() if p.suffix in (".cfg", ".prototxt"))
    diags = lint_files(files, settings=LintSettings()).diagnostics
    for path in files:
        mine = [d for d in diags if os.path.abspath(d.path) == path]
        fix_all = actions.fix_all(mine, path)
        only_here = [d for d in mine if d.fix is not None
                     and all(os.path.abspath(fe.path) == path for fe in d.fix.edits)]
        chosen = choose_fixes(only_here, unsafe=False)
        assert chosen, path  # the example has safe fixes in both files
        assert fix_all is not None and list(fix_all.codes) == [d.code for d in only_here if d.fix in chosen]

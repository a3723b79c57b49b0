"""Data-driven rule tests (sqlfluff style): each `cases/*.toml` lists inputs, the expected codes
and lines, and the text after fixing.  They double as examples in the docs.

Case keys:
  name          what the case shows
  cfg           text of `net.cfg` (optional)          prototxt   text of `net.prototxt` (optional)
  files         {relative path = text} extra files (mean files, image lists, images)
  logs          [relative paths] of `files` given as mapper logs (`nnie-lint --mapper-log`)
  hex_files     {relative path = hex digits} binary extra files (a .binaryproto mean image)
  onnx, caffemodel   names of binary files in tests/data/onnx/ (built by its build.py) copied beside
                the prototxt as `net.onnx` / `net.caffemodel` (the NN5xx conversion cases)
  copy          {relative path = path under tests/data} real files copied in (binary ones too: `.wk`)
  replace       {relative path = [[old, new], ...]} text edits made to a copied file (each old once)
  damage        {relative path = "truncate:N" | "flip:0xN" | "append:N" | "lfs"} what a copy of a `.wk` suffers
  mtimes        {relative path = seconds} added to a file's modification time (after writing)
  lint          relative paths linted besides net.cfg / net.prototxt (a copied cfg)
  lint_wk       relative paths of `.wk` files named on the command line (alone, or with a cfg)
  select        codes to enable (default: the file's rule code)
  settings      extra [tool.nnie-lint] options (e.g. source-framework)
  expect        ["NN301 net.prototxt:12:15 safe-fix", ...]: code, file, 1-based line and column where
                the finding starts, then `safe-fix` / `unsafe-fix` when it offers a fix (nothing when it
                offers none); the exact list, in any order; [] = clean
  fixed_cfg / fixed_prototxt   text after `--fix` (or `--fix --unsafe-fixes` with unsafe = true)
"""

from __future__ import annotations

import os
import re
from pathlib import Path

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

import pytest

from nnie_lsp.lint.driver import fix_files, lint_files
from nnie_lsp.project.settings import LintSettings, settings_from_mapping

CASES = Path(__file__).parent / "cases"


def _load():
    out = []
    for f in sorted(CASES.glob("*.toml")):
        data = tomllib.loads(f.read_text(encoding="utf-8"))
        for i, case in enumerate(data.get("case", [])):
            marks = [pytest.mark.xfail(reason=case["xfail_reason"], strict=True)] if "xfail_reason" in case else []
            out.append(pytest.param(f.stem, case, id=f"{f.stem}-{i}-{case.get('name', '')[:40]}", marks=marks))
    return out


def _write(tmp: Path, case: dict) -> list[str]:
    files = []
    if "cfg" in case:
        (tmp / "net.cfg").write_text(case["cfg"], encoding="utf-8")
        files.append(str(tmp / "net.cfg"))
    if "prototxt" in case:
        (tmp / "net.prototxt").write_text(case["prototxt"], encoding="utf-8")
        files.append(str(tmp / "net.prototxt"))
    for key in ("onnx", "caffemodel"):  # binary: copied from tests/data/onnx/
        if key in case:
            data = (Path(__file__).parents[1] / "data" / "onnx" / f"{case[key]}.{key}").read_bytes()
            (tmp / f"net.{key}").write_bytes(data)
    for rel, text in case.get("files", {}).items():
        p = tmp / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    data = Path(__file__).parents[1] / "data"
    for rel, src in case.get("copy", {}).items():
        p = tmp / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes((data / src).read_bytes())
    for rel, pairs in case.get("replace", {}).items():
        text = (tmp / rel).read_text(encoding="utf-8")
        for old, new in pairs:
            assert old in text, f"{rel}: {old!r} not in the copied file"
            text = text.replace(old, new, 1)
        (tmp / rel).write_text(text, encoding="utf-8")
    for rel, how in case.get("damage", {}).items():
        (tmp / rel).write_bytes(_damaged((tmp / rel).read_bytes(), how))
    for rel, seconds in case.get("mtimes", {}).items():
        st = os.stat(tmp / rel)
        os.utime(tmp / rel, (st.st_atime + seconds, st.st_mtime + seconds))
    files += [str(tmp / rel) for rel in case.get("lint", [])]
    for rel, digits in case.get("hex_files", {}).items():
        (tmp / rel).write_bytes(bytes.fromhex(digits))
    return files


def _damaged(data: bytes, how: str) -> bytes:
    from nnie_lsp.testing.wk_files import flip, lfs_pointer_for

    kind, _, arg = how.partition(":")
    if kind == "truncate":
        return data[:int(arg, 0)]
    if kind == "flip":
        return flip(data, int(arg, 0))
    if kind == "append":
        return data + bytes(int(arg, 0))
    if kind == "lfs":
        return lfs_pointer_for(data)
    raise ValueError(f"unknown damage {how!r}")


def _settings(code: str, case: dict) -> LintSettings:
    base = settings_from_mapping({"select": case.get("select", [code]), **case.get("settings", {})})
    return base


EXPECT = re.compile(r"(?:NN|T)\d{3} \S+:\d+:\d+(?: (?:safe|unsafe)-fix)?")


def _label(d, tmp: Path) -> str:
    """`CODE file:line:column [safe-fix|unsafe-fix]`, as the cases' `expect` lists write it."""
    start = d.range.start
    fix = f" {d.fix.applicability.value}-fix" if d.fix is not None else ""
    return f"{d.code} {os.path.relpath(d.path, tmp)}:{start.line + 1}:{start.character + 1}{fix}"


def _found(diags, tmp: Path) -> list[str]:
    return sorted(_label(d, tmp) for d in diags)


@pytest.mark.parametrize("code,case", _load())
def test_case(code, case, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    files = _write(tmp_path, case)
    settings = _settings(code, case)
    malformed = [e for e in case["expect"] if not EXPECT.fullmatch(e)]
    assert not malformed, f"expect entries must read 'CODE file:line:column [safe-fix|unsafe-fix]': {malformed}"
    wk = [str(tmp_path / rel) for rel in case.get("lint_wk", [])]
    res = lint_files(files, settings=settings, wk_files=wk, named_wk=wk,
                     mapper_logs=[str(tmp_path / p) for p in case.get("logs", [])])
    assert _found(res.diagnostics, tmp_path) == sorted(case["expect"]), [d.message for d in res.diagnostics]
    for d in res.diagnostics:
        assert d.message and not re.search(r"\{[A-Za-z_]\w*\}", d.message), d.message  # placeholders filled
    if "fixed_cfg" in case or "fixed_prototxt" in case:
        unsafe = case.get("unsafe", False)
        fixed = fix_files(files, unsafe=unsafe, settings=settings)
        texts = {os.path.basename(p): new for p, (_, new) in fixed.fixed.items()}
        for key, name in (("fixed_cfg", "net.cfg"), ("fixed_prototxt", "net.prototxt")):
            if key in case:
                assert texts.get(name, case.get(key.replace("fixed_", ""))) == case[key]
        # idempotent: fixing the fixed text changes nothing more
        for p, (_, new) in fixed.fixed.items():
            Path(p).write_text(new, encoding="utf-8")
        again = fix_files(files, unsafe=unsafe, settings=settings)
        assert again.fixed == {}
        # and the fixed code no longer reports the fixed findings
        fixed_codes = {d.code for d in again.diagnostics if d.fix is not None and (unsafe or d.fix.is_safe)}
        assert not fixed_codes


def test_every_rule_has_cases():
    from nnie_lsp.core.catalogue import all_rules
    have = {f.stem for f in CASES.glob("*.toml")}
    # NN000 needs a crashing rule, NN903 a file past a size bound (tests/test_hostile_files.py,
    # tests/server/lsp/test_big_documents.py); T-codes come from nnie-triage comparisons (tests/triage),
    # never from a lint run, so they have no lint cases
    missing = [r.code for r in all_rules()
               if r.code not in have and r.code not in ("NN000", "NN903") and not r.code.startswith("T")]
    assert not missing, f"rules without data-driven cases: {missing}"


def test_expect_entries_need_column_and_fix_kind_words():
    assert EXPECT.fullmatch("NN301 net.prototxt:7:15 safe-fix")
    assert EXPECT.fullmatch("NN002 net.cfg:2:2")
    assert EXPECT.fullmatch("T105 net.prototxt:4:15 unsafe-fix")
    assert not EXPECT.fullmatch("NN301 net.prototxt:7")           # no column
    assert not EXPECT.fullmatch("NN301 net.prototxt:7:15 safe")   # applicability spelled out

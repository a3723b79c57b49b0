"""Data-driven triage tests: each `cases/*.toml` names a dump set (a recipe, built by
:mod:`nnie_lsp.testing.triage_cases`), the cfg / prototxt / other files, and what
`nnie-triage compare --format json` must say — the codes with their homes and fixes, exactly.
They run the CLI's own `main` in-process and read only its JSON, so they hold whatever the
modules behind it are called.

Case keys (the TOML is the source of truth; the runner only builds and compares):
  name          what the case shows
  recipe        the dump set: {kind = "model" | "tensors" | "folder", …} (nnie_lsp/testing/triage_cases.py)
  cfg           text of `net.cfg` (optional)          prototxt   text of `net.prototxt` (optional; a model
                recipe copies its model's prototxt there when the case gives none)
  files         {relative path = text} extra files (mean files, image lists, post-processing modules); those
                under a dump folder (`caffe/…`, e.g. the manifest `nnie-triage reference` writes) after it is built
  args          extra `compare` arguments (e.g. ["--threshold", "good=0.995"], ["--postprocess", "pp.py:run"]);
                `{checkout}` in them (and in `compare`) is the repository's folder
  compare       the whole argument list after `compare`, instead of the default
                `--reference caffe --sim nnie [--sim-16bit nnie16] [--cfg net.cfg] [--prototxt net.prototxt]`
  expect        ["T102 cfg:7:13 unsafe-fix", "T401 -", …]: code, home, then `safe-fix` / `unsafe-fix` when
                the finding carries a fix. The home is `cfg:LINE:COL` / `prototxt:LINE:COL` (the cfg and
                prototxt the triage read), `<relative path>:LINE:COL` for another file, `-` for a finding
                with no place. The exact list, in any order.
  guide_case, next_step, first_divergence       the JSON's `case`, `next_step`, `first_divergence`
                ("none" for null)
  layers        {layer = status}: those rows' `status` (ok, low, poor, bad, nan, unmeasured)
  [[case.fix]]  one finding's fix: `of` = its `CODE HOME` as in expect; `edits` = ['cfg:7:13-7:16 "RGB"', …]
                (file, 1-based start-end, the new text as a JSON string; exactly, any order);
                `after` = {file = text}: files after applying it (same file keys as homes);
                `expect_after` = the codes after applying it and building the dump set again (a model
                recipe's NNIE side follows the fixed cfg)
  cfg_newer     seconds: the cfg's file time set that long after the newest dump (a cfg touched after
                the mapper ran: file times only, T009)
  editor        ["T005 prototxt:53:9", …]: the diagnostics the editor makes from the result's rows on the
                prototxt the triage read (one per layer whose status is low/poor/bad, on its name); exact
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

import pytest

from nnie_lsp.testing.triage_cases import RecipeUnavailable, build_dumps, model_prototxt

CASES = Path(__file__).parent / "cases"
CHECKOUT = Path(__file__).resolve().parents[2]
KEYS = {"name", "recipe", "cfg", "prototxt", "files", "args", "compare", "expect", "guide_case", "next_step",
        "first_divergence", "layers", "fix", "editor", "xfail_reason", "cfg_newer"}
FIX_KEYS = {"of", "edits", "after", "expect_after"}
EXPECT = re.compile(r"T\d{3} (?:-|\S+:\d+:\d+)(?: (?:safe|unsafe)-fix)?")
EDIT = re.compile(r'(\S+):(\d+):(\d+)-(\d+):(\d+) (".*")')


def _load_files() -> list[tuple[str, dict]]:
    return [(f.stem, tomllib.loads(f.read_text(encoding="utf-8"))) for f in sorted(CASES.glob("*.toml"))]


def _params():
    out = []
    for stem, data in _load_files():
        for i, case in enumerate(data.get("case", [])):
            marks = [pytest.mark.xfail(reason=case["xfail_reason"], strict=True)] if "xfail_reason" in case else []
            out.append(pytest.param(case, id=f"{stem}-{i}-{case.get('name', '')[:40]}", marks=marks))
    return out


# ----------------------------------------------------------------------------- building and running

def _write_case(case: dict, root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    recipe = case["recipe"]
    if "cfg" in case:
        (root / "net.cfg").write_text(case["cfg"], encoding="utf-8")
    if "prototxt" in case:
        (root / "net.prototxt").write_text(case["prototxt"], encoding="utf-8")
    elif recipe.get("kind", "model") == "model":
        shutil.copy(model_prototxt(recipe), root / "net.prototxt")
    for rel, text in case.get("files", {}).items():
        if rel.split("/")[0] in SIDES:
            continue   # into a dump folder: written once the recipe built it (_build)
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


#: the dump folders a recipe builds; a case's `files` under them (a manifest) are written after it
SIDES = ("caffe", "nnie", "nnie16", "onnx")


def _build(case: dict, root: Path) -> list[str]:
    try:
        _write_case(case, root)
        sides = build_dumps(case["recipe"], root)
    except RecipeUnavailable as exc:
        pytest.skip(str(exc))
    for rel, text in case.get("files", {}).items():
        if rel.split("/")[0] in SIDES:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
    if "cfg_newer" in case:
        newest = max(p.stat().st_mtime for p in root.rglob("*") if p.is_file() and p.name != "net.cfg")
        t = newest + float(case["cfg_newer"])
        os.utime(root / "net.cfg", (t, t))
    return sides


def _argv(case: dict, root: Path, sides: list[str]) -> list[str]:
    if "compare" in case:
        argv = ["compare", *case["compare"]]
    else:
        argv = ["compare", "--reference", "caffe", "--sim", "nnie"]
        if "nnie16" in sides:
            argv += ["--sim-16bit", "nnie16"]
        if (root / "net.cfg").is_file():
            argv += ["--cfg", "net.cfg"]
        if (root / "net.prototxt").is_file():
            argv += ["--prototxt", "net.prototxt"]
    argv += case.get("args", [])
    return [a.replace("{checkout}", str(CHECKOUT)) for a in argv] + ["--format", "json"]


def _run(case: dict, root: Path, sides: list[str], capsys, monkeypatch) -> dict:
    from nnie_lsp.cli.triage import main

    monkeypatch.chdir(root)
    capsys.readouterr()
    code = main(_argv(case, root, sides))
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


# ----------------------------------------------------------------------------- labels

class Homes:
    """File keys as the cases write them: `cfg`, `prototxt` (those the triage read), else the path
    relative to the case folder."""

    def __init__(self, doc: dict, root: Path):
        self.root = root
        inputs = doc.get("inputs") or {}
        self.roles = {self._abs(inputs[k]): k for k in ("cfg", "prototxt") if inputs.get(k)}

    def _abs(self, path: str) -> str:
        return os.path.normpath(os.path.join(self.root, path))

    def key(self, path: str) -> str:
        full = self._abs(path)
        return self.roles.get(full) or Path(os.path.relpath(full, self.root)).as_posix()

    def path(self, key: str) -> Path:
        by_role = {v: k for k, v in self.roles.items()}
        return Path(by_role.get(key) or self.root / key)

    def label(self, f: dict) -> str:
        home = f"{self.key(f['path'])}:{f['line']}:{f['column']}" if f.get("path") else "-"
        fix = f" {f['fix']['applicability']}-fix" if f.get("fix") else ""
        return f"{f['code']} {home}{fix}"

    def edit(self, e: dict) -> str:
        return (f"{self.key(e['path'])}:{e['line']}:{e['column']}-{e['end_line']}:{e['end_column']} "
                f"{json.dumps(e['new_text'], ensure_ascii=False)}")


def _offset(lines: list[str], line: int, column: int) -> int:
    """1-based line/column → offset in the text (the column counts UTF-16 units, as nnie-lint's JSON)."""
    if line - 1 >= len(lines):
        return sum(len(x) for x in lines)
    text = lines[line - 1]
    units = 0
    for i, ch in enumerate(text):
        if units >= column - 1:
            return sum(len(x) for x in lines[:line - 1]) + i
        units += 2 if ord(ch) > 0xFFFF else 1
    return sum(len(x) for x in lines[:line - 1]) + len(text)


def _apply(text: str, edits: list[dict]) -> str:
    lines = text.splitlines(keepends=True)
    spans = sorted(((_offset(lines, e["line"], e["column"]), _offset(lines, e["end_line"], e["end_column"]),
                     e["new_text"]) for e in edits), reverse=True)
    for (start, end, _), (next_start, _, _) in zip(spans[1:], spans):
        assert end <= next_start, "overlapping edits in one fix"
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def _apply_fix(fix: dict, homes: Homes) -> dict[str, str]:
    by_key: dict[str, list[dict]] = {}
    for e in fix["edits"]:
        by_key.setdefault(homes.key(e["path"]), []).append(e)
    out = {}
    for key, edits in by_key.items():
        path = homes.path(key)
        old = path.read_text(encoding="utf-8") if path.is_file() else ""
        out[key] = _apply(old, edits)
    return out


# ----------------------------------------------------------------------------- the test

def _check_keys(case: dict) -> None:
    assert not set(case) - KEYS, f"unknown case keys {sorted(set(case) - KEYS)}"
    malformed = [e for e in case["expect"] + case.get("editor", [])
                 + [x for fx in case.get("fix", []) for x in fx.get("expect_after", [])] if not EXPECT.fullmatch(e)]
    assert not malformed, f"expect entries read 'CODE file:line:column [safe-fix|unsafe-fix]' or 'CODE -': {malformed}"
    for fx in case.get("fix", []):
        assert not set(fx) - FIX_KEYS, f"unknown fix keys {sorted(set(fx) - FIX_KEYS)}"
        bad = [e for e in fx.get("edits", []) if not EDIT.fullmatch(e)]
        assert not bad, f"edits read 'file:line:col-line:col \"new text\"': {bad}"


@pytest.mark.parametrize("case", _params())
def test_case(case, tmp_path, capsys, monkeypatch):
    _check_keys(case)
    root = tmp_path / "case"
    sides = _build(case, root)
    doc = _run(case, root, sides, capsys, monkeypatch)
    homes = Homes(doc, root)
    found = sorted(homes.label(f) for f in doc["findings"])
    messages = [f"{f['code']}: {f['message']}" for f in doc["findings"]]
    assert found == sorted(case["expect"]), messages
    for f in doc["findings"]:
        assert f["message"] and not re.search(r"\{[A-Za-z_]\w*\}", f["message"]), f["message"]
        if f.get("fix"):
            assert f["fix"]["edits"], f"{f['code']}: a fix without edits"
    for key, field in (("guide_case", "case"), ("next_step", "next_step"), ("first_divergence", "first_divergence")):
        if key in case:
            want = None if case[key] == "none" else case[key]
            assert doc[field] == want, (field, doc[field], doc["verdict"], doc["reason"])
    if "layers" in case:
        status = {r["name"]: r["status"] for r in doc["layers"]}
        assert {k: status.get(k) for k in case["layers"]} == case["layers"], status
    if "editor" in case:
        assert sorted(_editor_labels(doc, homes)) == sorted(case["editor"])
    for fx in case.get("fix", []):
        _check_fix(fx, case, doc, homes, tmp_path, capsys, monkeypatch)


def _editor_labels(doc: dict, homes: Homes) -> list[str]:
    """What the editor shows on the prototxt from the result's rows (the per-layer notes with a
    message: T005), labelled like the findings."""
    from nnie_lsp.server.triage.annotations import annotations
    from nnie_lsp.readers.prototxt.reader import parse_prototxt

    path = homes.path("prototxt")
    parsed = parse_prototxt(path.read_text(encoding="utf-8"), str(path))
    out = []
    for note in annotations(doc, parsed, only_flagged=True):
        assert note.message and not re.search(r"\{[A-Za-z_]\w*\}", note.message), note.message
        start = note.range.start
        out.append(f"{getattr(note, 'code', None)} prototxt:{start.line + 1}:{start.character + 1}")
    return out


def _check_fix(fx: dict, case: dict, doc: dict, homes: Homes, tmp_path: Path, capsys, monkeypatch) -> None:
    chosen = [f for f in doc["findings"] if homes.label(f).startswith(fx["of"] + " ") and f.get("fix")]
    assert len(chosen) == 1, f"{fx['of']}: {len(chosen)} findings with a fix there"
    fix = chosen[0]["fix"]
    if "edits" in fx:
        assert sorted(homes.edit(e) for e in fix["edits"]) == sorted(fx["edits"])
    new = _apply_fix(fix, homes)
    for key, text in fx.get("after", {}).items():
        assert new.get(key) == text, f"{key} after the {fx['of']} fix"
    if "expect_after" in fx:
        fixed = dict(case)
        files = dict(case.get("files", {}))
        for key, text in new.items():
            if key == "cfg":
                fixed["cfg"] = text
            elif key == "prototxt":
                fixed["prototxt"] = text
            else:
                files[key] = text
        fixed["files"] = files
        root = tmp_path / "fixed"
        sides = _build(fixed, root)
        again = _run(fixed, root, sides, capsys, monkeypatch)
        homes2 = Homes(again, root)
        found = sorted(homes2.label(f) for f in again["findings"])
        assert found == sorted(fx["expect_after"]), [f"{f['code']}: {f['message']}" for f in again["findings"]]


# ----------------------------------------------------------------------------- coverage

def _covered() -> set[str]:
    codes = set()
    for _stem, data in _load_files():
        for case in data.get("case", []):
            if "xfail_reason" in case:
                continue
            codes.update(e.split()[0] for e in case.get("expect", []))
            codes.update(e.split()[0] for fx in case.get("fix", []) for e in fx.get("expect_after", []))
            codes.update(e.split()[0] for e in case.get("editor", []))
    return codes


def test_every_triage_code_has_a_case():
    from nnie_lsp.core.catalogue import all_rules

    registered = {r.code for r in all_rules() if r.code.startswith("T")}
    missing = sorted(registered - _covered())
    assert not missing, f"T-codes without a triage case in tests/triage/cases: {missing}"


def test_cases_name_only_registered_codes():
    from nnie_lsp.core.catalogue import all_rules

    registered = {r.code for r in all_rules() if r.code.startswith("T")}
    assert _covered() <= registered, sorted(_covered() - registered)


def test_labels_and_edits_read_as_documented():
    assert EXPECT.fullmatch("T102 cfg:7:13 unsafe-fix") and EXPECT.fullmatch("T401 -")
    assert EXPECT.fullmatch("T104 channel_mean.txt:1:1")
    assert not EXPECT.fullmatch("T102 cfg:7 unsafe-fix") and not EXPECT.fullmatch("T102 cfg:7:13 unsafe")
    assert EDIT.fullmatch('cfg:7:13-7:16 "RGB"') and not EDIT.fullmatch("cfg:7:13 RGB")
    assert _apply("a\nbcd\n", [{"line": 2, "column": 2, "end_line": 2, "end_column": 4, "new_text": "X"},
                               {"line": 1, "column": 1, "end_line": 1, "end_column": 1, "new_text": ">"}]) == ">a\nbX\n"

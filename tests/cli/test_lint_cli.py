"""nnie-lint command line: formats, exit codes, stdin, --fix/--diff with encodings, errors."""

from __future__ import annotations

import codecs
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from nnie_lsp.cli.lint import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "project"


@pytest.fixture
def project(tmp_path, monkeypatch):
    dst = tmp_path / "project"
    shutil.copytree(EXAMPLE, dst)
    monkeypatch.chdir(tmp_path)
    return dst


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_text_output_and_exit_1(project, capsys):
    code, out, err = run(capsys, "project")
    assert code == 1
    lines = out.splitlines()
    assert any(l.startswith("project/model.prototxt:") and " NN301 " in l for l in lines)
    # path:line:col: CODE message, 1-based
    first = next(l for l in lines if " NN301 " in l)
    path, line, col, rest = first.split(":", 3)
    assert int(line) == 174 and int(col) == 9
    assert "file(s) checked" in err


def test_json_schema(project, capsys):
    code, out, _ = run(capsys, "project", "--format", "json")
    data = json.loads(out)
    assert code == 1 and data
    keys = {"path", "code", "name", "severity", "message", "line", "column", "end_line", "end_column", "fix"}
    for d in data:
        assert keys <= set(d)
        assert d["line"] >= 1 and d["column"] >= 1
    nn301 = next(d for d in data if d["code"] == "NN301")
    assert nn301["name"] == "inplace-activation-after-concat"
    assert nn301["fix"]["applicability"] == "safe"
    e = nn301["fix"]["edits"][0]
    assert {"line", "column", "end_line", "end_column", "new_text"} <= set(e)


def test_sarif_and_github(project, capsys, monkeypatch):
    code, out, _ = run(capsys, "project", "--format", "sarif")
    sarif = json.loads(out)
    assert sarif["version"] == "2.1.0"
    results = sarif["runs"][0]["results"]
    assert any(r["ruleId"] == "NN301" and r["locations"][0]["physicalLocation"]["region"]["startLine"] == 174
               for r in results)
    code, out, _ = run(capsys, "project", "--format", "github")
    assert any(l.startswith("::warning title=NN301") and "line=174" in l for l in out.splitlines())
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code, out, _ = run(capsys, "project")
    assert out.startswith("::")


def test_select_ignore_exit_zero(project, capsys):
    code, out, _ = run(capsys, "project", "--select", "NN3", "--ignore", "NN302,NN304")
    codes = {l.split()[1] for l in out.splitlines()}
    assert codes == {"NN301"}
    code, out, _ = run(capsys, "project", "--select", "NN304")
    assert code == 0 and " NN304 " in out  # info findings do not fail
    code, _, _ = run(capsys, "project", "--exit-zero")
    assert code == 0


def test_extend_select_enables_off_by_default(project, capsys):
    _, out, _ = run(capsys, "project", "--select", "NN303")
    assert " NN303 " in out
    _, out, _ = run(capsys, "project")
    assert " NN303 " not in out


def test_fix_applies_safe_fixes_only(project, capsys):
    code, out, _ = run(capsys, "project", "--fix")
    proto = (project / "model.prototxt").read_text()
    assert 'top: "layer10-act"' in proto and 'bottom: "layer10-act"' in proto
    assert "input_shape {" in proto
    cfg = (project / "tiny_face_inst.cfg").read_text()
    assert "[RGB_order] BGR" in cfg  # NN108's fix is unsafe: untouched
    assert "[data_scale] 0.00390625" in cfg
    # remaining findings are reported after fixing, and fixing again changes nothing
    assert " NN301 " not in out and " NN108 " in out
    before = {p: p.read_bytes() for p in project.iterdir() if p.is_file()}
    run(capsys, "project", "--fix")
    assert before == {p: p.read_bytes() for p in project.iterdir() if p.is_file()}


def test_unsafe_fixes(project, capsys):
    run(capsys, "project", "--fix", "--unsafe-fixes")
    cfg = (project / "tiny_face_inst.cfg").read_text()
    assert "[RGB_order] RGB" in cfg
    assert 'name: "layer1-conv_hp"' in (project / "model.prototxt").read_text()


def test_diff_does_not_write(project, capsys):
    before = (project / "model.prototxt").read_bytes()
    code, out, _ = run(capsys, "project", "--diff")
    assert code == 1
    assert out.startswith("--- a/") and '+  top: "layer10-act"' in out
    assert (project / "model.prototxt").read_bytes() == before


def test_fix_keeps_encoding_bom_and_crlf(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cfg = ("# 海思 NNIE 配置\r\n[prototxt_file] ./net.prototxt\r\n[image_type] 1\r\n"
           "[norm_type] 3   # 只缩放\r\n[mean_file] null\r\n")
    (tmp_path / "gbk.cfg").write_bytes(cfg.encode("gb18030"))
    (tmp_path / "bom.cfg").write_bytes(codecs.BOM_UTF8 + cfg.encode("utf-8"))
    (tmp_path / "net.prototxt").write_text('input: "data"\ninput_shape { dim: 1 dim: 3 dim: 8 dim: 8 }\n')
    run(capsys, "gbk.cfg", "bom.cfg", "--fix", "--unsafe-fixes", "--select", "NN007,NN106")
    gbk = (tmp_path / "gbk.cfg").read_bytes()
    text = gbk.decode("gb18030")
    assert "\r\n# 只缩放\r\n[norm_type] 3\r\n" in text
    assert "[data_scale] 0.00390625\r\n" in text
    assert "\n" not in text.replace("\r\n", "")  # no bare LF introduced
    bom = (tmp_path / "bom.cfg").read_bytes()
    assert bom.startswith(codecs.BOM_UTF8)
    assert bom[3:].decode("utf-8") == text
    assert not list(tmp_path.glob(".nnie-lint-*"))  # temp files cleaned up


def test_stdin(project, capsys, monkeypatch):
    import io
    text = (project / "model.prototxt").read_text()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    code, out, _ = run(capsys, "-", "--stdin-filename", "project/model.prototxt", "--select", "NN301")
    assert code == 1
    assert out.splitlines()[0].startswith("project/model.prototxt:174:9: NN301")


def test_explain_and_list_rules(capsys):
    code, out, _ = run(capsys, "--explain", "nn301")
    assert code == 0
    for section in ("## What it finds", "## Why", "## Example", "## Fix"):
        assert section in out
    code, out, _ = run(capsys, "--explain", "NN301", "--lang", "zh")
    assert "原位" in out
    code, out, _ = run(capsys, "--list-rules")
    assert "| NN301 |" in out
    code, _, err = run(capsys, "--explain", "NN999")
    assert code == 2 and "unknown rule code" in err


def test_usage_errors_are_messages_not_tracebacks(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "missing.prototxt")
    assert code == 2 and "no such file" in err and "Traceback" not in err
    (tmp_path / "pyproject.toml").write_text('[tool.nnie-lint]\nselect = 3\n')
    (tmp_path / "a.prototxt").write_text('name: "x"\n')
    code, _, err = run(capsys, "a.prototxt")
    assert code == 2 and "select must be a list" in err
    (tmp_path / "pyproject.toml").write_text('[tool.nnie-lint]\nbogus = 1\n')
    code, _, err = run(capsys, "a.prototxt")
    assert code == 2 and "unknown option" in err


def test_pyproject_settings(tmp_path, capsys, monkeypatch):
    shutil.copytree(EXAMPLE, tmp_path / "p")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.nnie-lint]\nignore = ["NN304"]\nsource-framework = "caffe"\n'
        '[tool.nnie-lint.per-file-ignores]\n"*.cfg" = ["NN007"]\n[tool.nnie-lint.severity]\nNN016 = "error"\n')
    _, out, _ = run(capsys, "p", "--format", "json")
    data = json.loads(out)
    codes = {d["code"] for d in data}
    assert "NN304" not in codes and "NN108" not in codes and "NN007" not in codes
    assert next(d for d in data if d["code"] == "NN016")["severity"] == "error"


def test_setup_cfg_is_skipped(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "setup.cfg").write_text("[metadata]\nname = x\n\n[options]\npackages = find:\n")
    code, out, _ = run(capsys, "setup.cfg", ".")
    assert code == 0 and out == ""


def test_console_script_runs():
    exe = Path(sys.executable).with_name("nnie-lint")
    if not exe.exists():
        pytest.skip("console script not installed")
    p = subprocess.run([str(exe), "--list-rules"], capture_output=True, text=True)
    assert p.returncode == 0 and "NN001" in p.stdout


def test_internal_errors_are_one_line(project, capsys, monkeypatch):
    import nnie_lsp.cli.lint as cli

    def boom(*a, **k):
        raise RuntimeError("simulated bug")
    monkeypatch.setattr(cli, "lint", boom)
    code, _, err = run(capsys, "project")
    assert code == 2 and "internal error: RuntimeError: simulated bug" in err and "Traceback" not in err


def _codes(out: str) -> set[str]:
    return {d["code"] for d in json.loads(out)}


def test_config_file(project, capsys, tmp_path):
    conf = tmp_path / "conf.toml"
    conf.write_text('[tool.nnie-lint]\nignore = ["NN304", "NN007"]\n')
    _, out, _ = run(capsys, "project", "--format", "json")
    assert {"NN304", "NN007"} <= _codes(out)
    _, out, _ = run(capsys, "project", "--format", "json", "--config", str(conf))
    assert not {"NN304", "NN007"} & _codes(out) and _codes(out)
    conf.write_text('[tool.nnie-lint]\nignore = ["NN304"\nselect = 1\n')
    code, _, err = run(capsys, "project", "--config", str(conf))
    assert code == 2 and "conf.toml: not valid TOML" in err and "line 3" in err and "Traceback" not in err
    conf.write_text('[tool]\nnnie-lint = 3\n')
    code, _, err = run(capsys, "project", "--config", str(conf))
    assert code == 2 and "[tool.nnie-lint] must be a table" in err
    code, _, err = run(capsys, "project", "--config", str(tmp_path / "missing.toml"))
    assert code == 2 and "missing.toml: no such file" in err


PY310_TOML = """
import sys
sys.modules["tomllib"] = None  # as on Python 3.10: no tomllib in the standard library
from nnie_lsp.core import toml
from nnie_lsp.cli import lint
assert toml.toml_module().__name__ == "tomli", toml.toml_module()  # what lint and settings read TOML with
sys.exit(lint.main(sys.argv[1:]))
"""


def test_config_and_pyproject_without_tomllib_use_tomli(project, tmp_path):
    """Python 3.10 has no tomllib: --config and pyproject discovery read TOML with tomli."""
    def nnie_lint(*args):
        return subprocess.run([sys.executable, "-c", PY310_TOML, *args], capture_output=True, text=True,
                              cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)})
    conf = tmp_path / "conf.toml"
    conf.write_text('[tool.nnie-lint]\nignore = ["NN304"]\n')
    p = nnie_lint("project", "--format", "json", "--config", str(conf))
    assert p.returncode == 1 and "NN304" not in _codes(p.stdout) and "NN007" in _codes(p.stdout), p.stderr
    conf.write_text('[tool.nnie-lint]\nignore = [\n')
    p = nnie_lint("project", "--config", str(conf))
    assert p.returncode == 2 and "not valid TOML" in p.stderr and "Traceback" not in p.stderr, p.stderr
    (project / "pyproject.toml").write_text('[tool.nnie-lint]\nignore = ["NN007"]\n')
    p = nnie_lint("project", "--format", "json")
    assert p.returncode == 1 and "NN007" not in _codes(p.stdout) and "NN304" in _codes(p.stdout), p.stderr

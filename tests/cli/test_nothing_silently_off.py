"""Nothing is switched off in silence: an unknown code in --select / --ignore / --extend-select, in
pyproject's select, ignore, extend-select, per-file-ignores or severity is exit 2 with a
did-you-mean; a pyproject.toml that names nnie-lint but is not valid TOML (or not UTF-8) is exit 2
with its position; the editor shows the same message."""

from __future__ import annotations

import os
import shutil

import pytest

from nnie_lsp.cli.lint import main
from nnie_lsp.project.settings import SettingsError, check_codes, load_settings, settings_from_mapping

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, "examples", "project")


@pytest.fixture
def project(tmp_path):
    dest = tmp_path / "project"
    shutil.copytree(EXAMPLE, dest)
    return dest


def _run(capsys, *args):
    code = main([*args, "--no-color"])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("option, value, hint", [
    ("--select", "NN3O1", "(did you mean NN301?)"),          # a letter O for a zero
    ("--select", "XYZ", ""),
    ("--ignore", "NN3O", "(did you mean NN30?)"),
    ("--extend-select", "NN3O3", "(did you mean NN303?)"),
    ("--select", "NN1,T1O2", "(did you mean T102?)"),
])
def test_an_unknown_code_on_the_command_line_is_exit_2(project, capsys, option, value, hint):
    code, out, err = _run(capsys, str(project), option, value)
    bad = [v for v in value.split(",") if v not in ("NN1",)][0]
    assert code == 2 and out == ""
    assert f"nnie-lint: {option}: unknown rule code or prefix {bad!r}" in err and hint in err
    assert "--list-rules" in err


def test_codes_prefixes_and_all_are_accepted(project, capsys):
    for value in ("NN301", "NN3", "nn30", "T", "T102", "ALL", "NN"):
        code, _out, err = _run(capsys, str(project), "--select", value, "--exit-zero")
        assert code == 0, (value, err)


@pytest.mark.parametrize("toml, words", [
    ('[tool.nnie-lint]\nselect = ["NN3O1"]\n', "select: unknown rule code or prefix 'NN3O1' (did you mean NN301?)"),
    ('[tool.nnie-lint]\nextend-select = ["NN3O3"]\n', "extend-select: unknown rule code or prefix 'NN3O3'"),
    ('[tool.nnie-lint]\nignore = ["XYZ"]\n', "ignore: unknown rule code or prefix 'XYZ'"),
    ('[tool.nnie-lint.per-file-ignores]\n"*.prototxt" = ["NN0l6"]\n',
     "per-file-ignores.*.prototxt: unknown rule code or prefix 'NN0L6' (did you mean NN016?)"),
    ('[tool.nnie-lint.severity]\nNN1O6 = "error"\n', "severity: unknown rule code or prefix 'NN1O6' (did you mean NN106?)"),
    ('[tool.nnie-lint]\nselect = ["NN301"\nignore = 3\n', "not valid TOML: Unclosed array (at line 3, column 1)"),
    ('[tool.nnie-lint]\nselect = "NN301\n', "not valid TOML: "),
])
def test_pyproject_typos_and_broken_toml_are_exit_2_with_where(project, capsys, toml, words):
    (project / "pyproject.toml").write_text(toml)
    code, out, err = _run(capsys, str(project))
    assert code == 2 and out == ""
    assert f"nnie-lint: {project / 'pyproject.toml'}: {words}" in err
    if "TOML" in words:
        assert "(at line" in err and "settings cannot be read" in err


def test_pyproject_not_utf8_and_other_tools_broken_toml(project, capsys):
    (project / "pyproject.toml").write_bytes(b'[tool.nnie-lint]\n# \xff\xfe\nselect = ["NN3"]\n')
    code, _out, err = _run(capsys, str(project))
    assert code == 2 and "not UTF-8 text (line 2, byte 20)" in err
    # a broken pyproject that never names nnie-lint holds no settings of ours: linted with defaults
    (project / "pyproject.toml").write_text('[tool.black]\nline-length = \n')
    code, out, _err = _run(capsys, str(project), "--exit-zero")
    assert code == 0 and "NN301" in out


def test_the_settings_api_and_the_editor_settings_check_codes_too(tmp_path):
    assert check_codes(("NN301", "NN3", "ALL"), "x") == ("NN301", "NN3", "ALL")
    with pytest.raises(SettingsError, match=r"editor settings: select: unknown rule code or prefix 'NN3O1' "
                                            r"\(did you mean NN301\?\)"):
        settings_from_mapping({"select": ["NN3O1"]}, origin="editor settings")
    (tmp_path / "pyproject.toml").write_text('[tool.nnie-lint]\nselect = ["NN301"\n')
    with pytest.raises(SettingsError, match=r"Unclosed array \(at the end of the file, line 2\)"):
        load_settings(str(tmp_path))
    (tmp_path / "pyproject.toml").write_text('[tool.nnie-lint]\nselect = ["NN301"]\n')
    assert load_settings(str(tmp_path)).select == ("NN301",)

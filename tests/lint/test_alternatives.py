"""Alternative fixes (Diagnostic.alternatives): offered to the user, never applied by --fix."""

import json
import subprocess
import sys

CFG = """[prototxt_file] ./net.prototxt
[image_type] 1
[norm_type] 3
[mean_file] null
"""


def _run(tmp_path, *args):
    return subprocess.run([sys.executable, "-m", "nnie_lsp.cli.lint", *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)


def _project(tmp_path):
    (tmp_path / "net.cfg").write_text(CFG, encoding="utf-8")
    (tmp_path / "net.prototxt").write_text('input: "data"\ninput_shape { dim: 1 dim: 3 dim: 8 dim: 8 }\n',
                                           encoding="utf-8")


def test_nn106_offers_1_255_as_an_unsafe_alternative(tmp_path):
    _project(tmp_path)
    out = _run(tmp_path, "net.cfg", "--select", "NN106", "--format", "json")
    (finding,) = json.loads(out.stdout)
    assert finding["fix"]["applicability"] == "safe"
    assert finding["fix"]["edits"][0]["new_text"].endswith("[data_scale] 0.00390625")
    (alt,) = finding["alternatives"]
    assert alt["applicability"] == "unsafe"
    assert alt["edits"][0]["new_text"].endswith("[data_scale] 0.0039215686")
    sarif = json.loads(_run(tmp_path, "net.cfg", "--select", "NN106", "--format", "sarif").stdout)
    fixes = sarif["runs"][0]["results"][0]["fixes"]
    assert [f["description"]["text"].split()[0] for f in fixes] == ["Write", "Set"]


def test_fix_never_applies_an_alternative(tmp_path):
    _project(tmp_path)
    _run(tmp_path, "net.cfg", "--select", "NN106", "--fix", "--unsafe-fixes")
    text = (tmp_path / "net.cfg").read_text(encoding="utf-8")
    assert "[data_scale] 0.00390625" in text and "0.0039215686" not in text

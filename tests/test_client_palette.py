"""The VS Code client's copy of the triage report's palette is generated from
nnie_lsp/triage/report/palette.py and up to date; the report itself reads the palette.

Regenerates ``palette.ts`` in memory with ``scripts/gen_client_palette.py`` and compares it with the
file on disk; a failure means: run ``python scripts/gen_client_palette.py``.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
import types

from nnie_lsp.triage.report import palette, render, svg_plot

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PALETTE_TS = os.path.join(ROOT, "vscode-client", "src", "triage", "report", "palette.ts")


def _load_generator():
    spec = importlib.util.spec_from_file_location(
        "gen_client_palette", os.path.join(ROOT, "scripts", "gen_client_palette.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


generator = _load_generator()


def _ts() -> str:
    with open(PALETTE_TS, encoding="utf-8") as fh:
        return fh.read()


def test_the_client_palette_matches_the_report_palette():
    assert generator.stale_paths() == [], "run `python scripts/gen_client_palette.py`: palette.ts is out of date"


def test_the_client_palette_holds_every_colour_of_the_report():
    ts = _ts()
    for status, colour in palette.STATUS_COLOUR.items():
        assert re.search(rf"^  {status}: '{colour}',$", ts, re.M), status
    for key, label, colour, dash in palette.THRESHOLD_LINES:
        numbers = ", ".join(dash.split())
        assert f"{{ key: '{key}', label: '{label}', colour: '{colour}', dash: [{numbers}] }}" in ts, key
    for name in ("LINE_COLOUR", "FRAMEWORK_COLOUR", "DIVERGENCE_COLOUR"):
        assert f"export const {name} = '{getattr(palette, name)}';" in ts, name


def test_a_changed_palette_makes_the_client_copy_stale():
    changed = types.SimpleNamespace(**{name: getattr(palette, name) for name in dir(palette) if name.isupper()})
    changed.STATUS_COLOUR = {**palette.STATUS_COLOUR, "ok": "#000000"}
    assert generator.stale_paths(changed) == [os.path.join("vscode-client", "src", "triage", "report", "palette.ts")]
    assert "ok: '#000000'," in generator.palette_ts_text(changed)


def test_the_report_draws_and_colours_with_the_palette():
    assert svg_plot.STATUS_COLOUR is palette.STATUS_COLOUR
    assert svg_plot.THRESHOLD_LINES is palette.THRESHOLD_LINES
    assert palette.status_css() in render._CSS
    assert palette.status_css() == (".ok{color:#1a7f37}.low{color:#9a6700}.poor{color:#bc4c00}"
                                    ".bad{color:#cf222e}.nan{color:#8250df}")


def test_check_mode_reports_a_stale_copy(tmp_path, monkeypatch, capsys):
    stale = tmp_path / "palette.ts"
    stale.write_text("// an old hand-written palette\n", encoding="utf-8")
    monkeypatch.setattr(generator, "PALETTE_TS", str(stale))
    assert generator.main(["--check"]) == 1
    assert "out of date" in capsys.readouterr().err
    assert stale.read_text(encoding="utf-8") == "// an old hand-written palette\n"

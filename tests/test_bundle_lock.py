"""The VS Code bundle is pinned: ``vscode-client/bundle.lock.json`` holds every package of the
universal and the linux-x64 bundle (pip's wheel too) with its version and sha256, per CPython
version, made for the requirements pyproject.toml declares now (a change of them says "refresh the
lock" here, before any bundle is built)."""

from __future__ import annotations

import importlib.util
import json
import re
from importlib.metadata import requires
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "vscode-client" / "bundle.lock.json"


def _bundler():
    spec = importlib.util.spec_from_file_location("bundle_server", ROOT / "vscode-client" / "scripts" / "bundle_server.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_lock_pins_every_package_with_its_hash():
    bundler = _bundler()
    lock = json.loads(LOCK.read_text(encoding="utf-8"))
    assert lock["lock_version"] == bundler.LOCK_VERSION
    assert re.fullmatch(r"[0-9a-f]{64}", lock["pip"]["sha256"]) and lock["pip"]["name"] == "pip"
    assert set(lock["targets"]) >= {"universal", "linux-x64"}
    assert lock["targets"]["linux-x64"]["extras"] == list(bundler.DEFAULT_EXTRAS)
    assert lock["targets"]["universal"]["extras"] == []
    for target, entry in lock["targets"].items():
        assert set(entry["pythons"]) == set(bundler.DEFAULT_PYTHONS), target
        for version, pins in entry["pythons"].items():
            names = [bundler._canonical(p["name"]) for p in pins]
            assert len(names) == len(set(names)) and "nnie-lsp" not in names, (target, version)
            assert all(re.fullmatch(r"[0-9a-f]{64}", p["sha256"]) and p["version"] for p in pins)
            assert {"pygls", "lsprotocol", "lark", "protobuf"} <= set(names), (target, version)
            if target == "universal":
                assert not set(names) & bundler.NATIVE_ONLY, version
            else:
                assert {"numpy", "opencv-python-headless"} <= set(names), version


def test_the_lock_is_made_for_the_requirements_of_pyproject():
    """When this fails, pyproject.toml's dependencies changed: refresh the lock (the message of
    the bundle build says the same): python3 scripts/bundle_server.py --target T --update-lock."""
    bundler = _bundler()
    lock = json.loads(LOCK.read_text(encoding="utf-8"))
    declared = []
    for requirement in requires("nnie-lsp") or []:
        extra = re.search(r"""extra\s*==\s*["']([^"']+)["']""", requirement)
        if extra is None or extra.group(1) in bundler.BUNDLED_EXTRAS:
            declared.append(requirement)
    assert lock["requires"] == sorted(declared)


def test_the_wheel_holds_the_committed_package_and_not_testing(tmp_path):
    """A wheel with a file the checkout does not commit (what a stale build/ leaves) or with
    testing/ is refused; the committed package files alone pass."""
    import subprocess
    import zipfile

    bundle = _bundler()
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files", "nnie_lsp"], capture_output=True, text=True)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout: the wheel check is skipped there too")
    shipped = [p for p in tracked.stdout.split() if not p.startswith("nnie_lsp/testing/")]

    def wheel(names):
        path = tmp_path / f"w{len(names)}.whl"
        with zipfile.ZipFile(path, "w") as z:
            for n in names:
                z.writestr(n, "")
        return path

    bundle.check_wheel_files(wheel(shipped + ["nnie_lsp-0.1.0.dist-info/METADATA"]))
    for bad in (shipped + ["nnie_lsp/features/hover.py"], shipped + ["nnie_lsp/testing/faults.py"], shipped[1:]):
        with pytest.raises(bundle.BundleError, match="differs from the checkout"):
            bundle.check_wheel_files(wheel(bad))

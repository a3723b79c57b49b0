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

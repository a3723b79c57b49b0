#!/usr/bin/env python3
"""Put the nnie-lsp server and its Python dependencies inside the extension (``bundled/``).

The layout follows microsoft/vscode-python-tools-extension-template's ``bundled/libs``: the VSIX
carries the libraries and the user's own Python (3.10 or newer) runs them, so installing the
extension is enough.  Native wheels (numpy, protobuf's upb, opencv) differ per platform and numpy
also per CPython minor version, hence one VSIX per VS Code target and, inside it, one folder per
CPython version for what is not shared::

    bundled/tool/launch.py         starts the server (source, checked in)
    bundled/libs/                  everything identical for every CPython version
    bundled/libs-cp311/ ...        what differs (numpy, tomli on 3.10), one folder per version
    bundled/wheels/nnie_lsp-*.whl  the server's wheel: `python -m pip install <it>` where the
                                   bundle cannot run (the message the extension shows says so)
    bundled/wheels/pip-*.whl       pip, run from the wheel (`python pip-*.whl/pip install --target`):
                                   the extension installs a missing package (numpy on the universal
                                   VSIX, an extra) into its own folder with any Python, also one
                                   without pip (packageInstall.ts)
    bundled/manifest.json          target, Python versions, package versions, the requirement of
                                   each module the extension may have to install

Usage (from vscode-client/, needs pip >= 23 and the package index; pip's cache makes reruns fast)::

    python3 scripts/bundle_server.py --target linux-x64            # numpy and OpenCV for Linux x86-64
    python3 scripts/bundle_server.py --target linux-x64 --extras '' # numpy only (no extra)
    python3 scripts/bundle_server.py --target universal            # pure Python only (no numpy)
    python3 scripts/bundle_server.py --target win32-x64 --python 3.11,3.12

**Pinned** (``bundle.lock.json`` beside this folder's package.json): every bundled package, pip's
wheel included, is installed at the version and with the sha256 the lock holds, for each target,
extras and CPython version (``pip install --no-deps --require-hashes``), so two builds of one
commit bundle the same bytes.  The lock also records the nnie-lsp wheel's requirements it was made
for; when pyproject.toml's dependencies change, the build stops and says to refresh the lock::

    python3 scripts/bundle_server.py --target linux-x64 --update-lock   # resolve anew, write the lock
    python3 scripts/bundle_server.py --target universal --update-lock

A platform target bundles the extra ``reference`` (OpenCV: reference and emulation) by default
(``--extras``; ``--with-onnx`` adds onnx and onnxruntime, about 150 MiB more); ``universal`` runs
the language server anywhere.  What a VSIX lacks (numpy on universal, an extra) the extension
offers to install into its own folder.  Only wheels are used (``--only-binary=:all:``): nothing is compiled.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CLIENT = Path(__file__).resolve().parent.parent
REPO = CLIENT.parent
DEFAULT_PYTHONS = ("3.10", "3.11", "3.12", "3.13", "3.14")

#: VS Code target -> pip --platform tags (pip also accepts older glibc/macOS tags than these).
PLATFORMS: dict[str, tuple[str, ...]] = {
    "linux-x64": ("manylinux_2_28_x86_64", "manylinux2014_x86_64"),
    "linux-arm64": ("manylinux_2_28_aarch64", "manylinux2014_aarch64"),
    "darwin-x64": ("macosx_11_0_x86_64", "macosx_10_13_x86_64"),
    "darwin-arm64": ("macosx_11_0_arm64",),
    "win32-x64": ("win_amd64",),
    "universal": ("any",),
}
#: Dependencies that have no pure-Python wheel: left out of the universal bundle.
NATIVE_ONLY = {"numpy", "numba", "llvmlite", "opencv-python-headless", "onnx", "onnxruntime"}
#: Extras a platform VSIX carries unless told otherwise (``--extras``).
#: onnx is not among them: onnx + onnxruntime add about 150 MiB compressed (onnxruntime is one 25 MiB
#: wheel per CPython version), which would make the linux-x64 VSIX about 285 MiB instead of 130;
#: the extension installs them into its own folder on first use instead (packageInstall.ts).
DEFAULT_EXTRAS = ("reference",)
#: Modules the extension may have to install (``manifest.json`` "module_requirements"), by the
#: distribution that provides them: numpy and protobuf (triage), the extras' modules.
MODULE_DISTS = {"numpy": "numpy", "google.protobuf": "protobuf", "cv2": "opencv-python-headless",
                "onnx": "onnx", "onnxruntime": "onnxruntime"}


LOCK = CLIENT / "bundle.lock.json"
SOURCE_DATE_EPOCH = "315532800"   # 1980-01-01, the earliest time a zip entry holds
LOCK_VERSION = 1


class BundleError(RuntimeError):
    pass


def log(message: str) -> None:
    print(f"bundle: {message}", flush=True)


def run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    shown = " ".join(cmd)
    proc = subprocess.run(cmd, text=True, capture_output=True, **kwargs)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-25:])
        raise BundleError(f"command failed ({proc.returncode}): {shown}\n{tail}")
    return proc


def pip(python: str, *args: str, **kwargs) -> subprocess.CompletedProcess:
    return run([python, "-m", "pip", "--disable-pip-version-check", "--no-input", *args], **kwargs)


def build_wheel(python: str, out: Path) -> Path:
    """The nnie-lsp wheel of this checkout."""
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("nnie_lsp-*.whl"):
        old.unlink()
    # setuptools builds in the checkout's build/ and keeps what an earlier build left there: a
    # module since moved or deleted would ship again.  It is setuptools' own (git-ignored) folder.
    shutil.rmtree(REPO / "build", ignore_errors=True)
    with tempfile.TemporaryDirectory(prefix="nnie-wheel-") as scratch:
        # the wheel's zip entries get this time, not the files' (two builds of one commit: one wheel)
        pip(python, "wheel", "--quiet", "--no-deps", "--wheel-dir", scratch, str(REPO),
            env={**os.environ, "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH})
        wheels = list(Path(scratch).glob("nnie_lsp-*-py3-none-any.whl"))
        if len(wheels) != 1:
            raise BundleError(f"expected one nnie_lsp wheel, got {[w.name for w in wheels]}")
        check_wheel_files(wheels[0])
        return Path(shutil.copy2(wheels[0], out / wheels[0].name))


def check_wheel_files(wheel: Path) -> None:
    """The wheel holds the package's committed files and nothing else (testing/ is not shipped);
    skipped outside a git checkout."""
    import zipfile

    proc = subprocess.run(["git", "-C", str(REPO), "ls-files", "nnie_lsp"], capture_output=True, text=True)
    if proc.returncode != 0:
        return
    tracked = {p for p in proc.stdout.split() if not p.startswith("nnie_lsp/testing/")}
    with zipfile.ZipFile(wheel) as z:
        shipped = {n for n in z.namelist() if n.startswith("nnie_lsp/")}
    extra, missing = sorted(shipped - tracked), sorted(tracked - shipped)
    if extra or missing:
        raise BundleError(f"the nnie_lsp wheel differs from the checkout: not committed {extra[:5]}, "
                          f"missing {missing[:5]}")


def download_pip(python: str, out: Path, pin: dict | None = None) -> tuple[Path, dict]:
    """pip's own wheel (pure Python), which the extension runs as ``python pip-*.whl/pip``: the
    locked one (`pin`: name, version, sha256), else the newest (its pin is returned for the lock)."""
    for old in out.glob("pip-*.whl"):
        old.unlink()
    if pin is not None:
        with tempfile.TemporaryDirectory(prefix="nnie-pip-") as scratch:
            req = Path(scratch) / "pip.txt"
            req.write_text(f"pip=={pin['version']} --hash=sha256:{pin['sha256']}\n", encoding="utf-8")
            pip(python, "download", "--quiet", "--no-deps", "--only-binary=:all:", "--require-hashes",
                "--dest", str(out), "-r", str(req))
    else:
        pip(python, "download", "--quiet", "--no-deps", "--only-binary=:all:", "--dest", str(out), "pip>=24")
    wheels = sorted(out.glob("pip-*-py3-none-any.whl"))
    if len(wheels) != 1:
        raise BundleError(f"expected one pip wheel, got {[w.name for w in wheels]}")
    digest = hashlib.sha256(wheels[0].read_bytes()).hexdigest()
    return wheels[0], {"name": "pip", "version": wheels[0].name.split("-")[1], "sha256": digest}


def module_requirements(wheel: Path) -> dict[str, str]:
    """{module: requirement} for :data:`MODULE_DISTS`, as the nnie-lsp wheel declares them (its
    dependencies and extras): what the extension installs when a module is missing."""
    import zipfile
    requirement_class = _requirement_class()
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = archive.read(name).decode("utf-8", errors="replace")
    by_dist: dict[str, str] = {}
    for line in metadata.splitlines():
        if line.startswith("Requires-Dist:"):
            requirement = requirement_class(line.split(":", 1)[1].strip())
            spec = ",".join(sorted((str(s) for s in requirement.specifier), key=lambda s: (s[0] != ">", s)))
            by_dist.setdefault(_canonical(requirement.name), f"{requirement.name}{spec}")
    return {module: by_dist[_canonical(dist)] for module, dist in MODULE_DISTS.items() if _canonical(dist) in by_dist}


def platform_args(target: str, implementation: str) -> list[str]:
    args = ["--only-binary=:all:", "--implementation", implementation]
    for tag in PLATFORMS[target]:
        args += ["--platform", tag]
    return args


def _pins(report: Path) -> list[dict]:
    """name, version and sha256 of what a pip ``--report`` installs (nnie-lsp itself left out: it is
    built from this checkout)."""
    out = []
    for item in json.loads(report.read_text(encoding="utf-8"))["install"]:
        name, version = item["metadata"]["name"], item["metadata"]["version"]
        if _canonical(name) == "nnie-lsp":
            continue
        info = item.get("download_info", {}).get("archive_info", {})
        digest = (info.get("hashes") or {}).get("sha256") or (info.get("hash") or "").partition("sha256=")[2]
        if not digest:
            raise BundleError(f"pip reported no sha256 for {name} {version}: cannot lock it")
        out.append({"name": name, "version": version, "sha256": digest})
    return out


def resolve_pins(python: str, wheel: Path, extras: str, version: str, target: str) -> list[dict]:
    """Resolve anew (the package index as it is now) what the bundle of `target` holds for CPython
    `version`: the pins for the lock."""
    with tempfile.TemporaryDirectory(prefix="nnie-lock-") as scratch:
        stage = Path(scratch) / "stage"
        pins: dict[str, dict] = {}

        def record(report: Path) -> None:
            for pin in _pins(report):
                pins[_canonical(pin["name"])] = pin

        report = Path(scratch) / "report.json"
        if target != "universal":
            pip(python, "install", "--quiet", "--no-compile", "--ignore-installed", "--target", str(stage),
                "--report", str(report), "--python-version", version, *platform_args(target, "cp"), f"{wheel}{extras}")
            record(report)
            wanted_extras = set(extras.strip("[]").split(",")) if extras else set()
            implementation, skip = "cp", set()
        else:
            pip(python, "install", "--quiet", "--dry-run", "--ignore-installed", "--report", str(report),
                "--target", str(stage), "--python-version", version, *platform_args("linux-x64", "cp"), str(wheel))
            chosen = [p for p in _pins(report) if _canonical(p["name"]) not in NATIVE_ONLY]
            names = [f"{p['name']}=={p['version']}" for p in chosen]
            pip(python, "install", "--quiet", "--no-compile", "--ignore-installed", "--no-deps", "--target",
                str(stage), "--report", str(report), "--python-version", version, *platform_args(target, "py"),
                str(wheel), *names)
            record(report)   # the pure-Python wheels of those versions (their own hashes)
            wanted_extras, implementation, skip = set(), "py", NATIVE_ONLY
        for _round in range(5):
            missing = [m for m in missing_for_version(stage, version, wanted_extras)
                       if _canonical(re.split(r"[<>=!~ ]", m, 1)[0]) not in skip]
            if not missing:
                break
            pip(python, "install", "--quiet", "--no-compile", "--no-deps", "--target", str(stage), "--report",
                str(report), "--python-version", version, *platform_args(target, implementation), *missing)
            record(report)
        else:
            raise BundleError(f"Python {version}: requirements still missing after 5 rounds: {missing}")
        return sorted(pins.values(), key=lambda p: _canonical(p["name"]))


def install_locked(python: str, wheel: Path, pins: list[dict], version: str, target: str, stage: Path) -> list[str]:
    """The locked packages (exact versions, checked hashes, no resolution) and the nnie-lsp wheel."""
    implementation = "py" if target == "universal" else "cp"
    with tempfile.TemporaryDirectory(prefix="nnie-locked-") as scratch:
        req = Path(scratch) / "requirements.txt"
        req.write_text("".join(f"{p['name']}=={p['version']} --hash=sha256:{p['sha256']}\n" for p in pins),
                       encoding="utf-8")
        if pins:
            pip(python, "install", "--quiet", "--no-compile", "--ignore-installed", "--no-deps", "--require-hashes",
                "--target", str(stage), "--python-version", version, *platform_args(target, implementation),
                "-r", str(req))
    pip(python, "install", "--quiet", "--no-compile", "--ignore-installed", "--no-deps", "--target", str(stage),
        "--python-version", version, *platform_args(target, "py"), str(wheel))
    missing = [m for m in missing_for_version(stage, version, set())
               if target != "universal" or _canonical(re.split(r"[<>=!~ ]", m, 1)[0]) not in NATIVE_ONLY]
    if missing:
        raise BundleError(f"Python {version}: the lock lacks {', '.join(missing)}: refresh it ({_refresh(target)})")
    return sorted([f"{p['name']}=={p['version']}" for p in pins] + [f"nnie-lsp=={wheel.name.split('-')[1]}"])


#: The extras a bundle may carry: a change of the others (``test``, ``fast``) leaves the lock valid.
BUNDLED_EXTRAS = ("reference", "onnx")


def wheel_requires(wheel: Path) -> list[str]:
    """The nnie-lsp wheel's Requires-Dist lines a bundle can hold (the base requirements and those
    of :data:`BUNDLED_EXTRAS`): what the lock was made for."""
    import zipfile
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = archive.read(name).decode("utf-8", errors="replace")
    out = []
    for line in metadata.splitlines():
        if not line.startswith("Requires-Dist:"):
            continue
        requirement = line.split(":", 1)[1].strip()
        extra = re.search(r"""extra\s*==\s*["']([^"']+)["']""", requirement)
        if extra is None or extra.group(1) in BUNDLED_EXTRAS:
            out.append(requirement)
    return sorted(out)


def _refresh(target: str) -> str:
    return f"python3 scripts/bundle_server.py --target {target} --update-lock"


def read_lock(path: Path = LOCK) -> dict:
    if not path.exists():
        return {"lock_version": LOCK_VERSION, "requires": [], "targets": {}}
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("lock_version") != LOCK_VERSION:
        raise BundleError(f"{path.name}: lock_version {data.get('lock_version')!r}, expected {LOCK_VERSION}")
    return data


def locked_target(lock: dict, target: str, chosen: list[str], versions: list[str], requires: list[str]) -> dict:
    """The lock's entry for this build, or a BundleError saying how to refresh it."""
    if lock.get("requires") != requires:
        raise BundleError(f"{LOCK.name} was made for other nnie-lsp requirements (pyproject.toml changed): "
                          f"refresh it: {_refresh(target)}")
    entry = lock.get("targets", {}).get(target)
    if entry is None or sorted(entry.get("extras", [])) != sorted(chosen):
        raise BundleError(f"{LOCK.name} has no entry for {target} with extras {chosen or 'none'}: {_refresh(target)}")
    lacking = [v for v in versions if v not in entry.get("pythons", {})]
    if lacking:
        raise BundleError(f"{LOCK.name} has no {target} entry for Python {', '.join(lacking)}: {_refresh(target)}")
    return entry


def _requirement_class():
    try:
        from packaging.requirements import Requirement
    except ImportError:  # pip always carries a copy
        from pip._vendor.packaging.requirements import Requirement
    return Requirement


def _canonical(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def missing_for_version(stage: Path, version: str, extras: set[str]) -> list[str]:
    """Requirements whose environment markers hold on `version` but are not installed in `stage`.

    pip's ``--python-version`` only picks wheels: markers such as ``python_version < '3.11'``
    (tomli, exceptiongroup) are still evaluated for the Python running pip, so they are checked
    here again for the Python the bundle is for."""
    requirement_class = _requirement_class()
    installed: dict[str, Path] = {}
    for info in stage.glob("*.dist-info"):
        name = _canonical(info.name[: -len(".dist-info")].rsplit("-", 1)[0])
        installed[name] = info
    environment = {"python_version": version, "python_full_version": f"{version}.0",
                   "implementation_name": "cpython", "platform_python_implementation": "CPython"}
    wanted: list[str] = []
    for name, info in installed.items():
        metadata = (info / "METADATA").read_text(encoding="utf-8", errors="replace")
        for line in metadata.splitlines():
            if not line.startswith("Requires-Dist:"):
                continue
            requirement = requirement_class(line.split(":", 1)[1].strip())
            if _canonical(requirement.name) in installed:
                continue
            chosen = extras if name == "nnie-lsp" else set()
            if requirement.marker is None or any(
                    requirement.marker.evaluate({**environment, "extra": extra}) for extra in (chosen or {""})):
                wanted.append(str(requirement).split(";")[0].strip())
    return sorted(set(wanted))


def tree_digest(path: Path) -> str:
    """Content hash of a file or a folder (relative names and bytes)."""
    digest = hashlib.sha256()
    items = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    for item in items:
        digest.update(str(item.relative_to(path.parent)).encode())
        digest.update(item.read_bytes())
    return digest.hexdigest()


def split_common(stages: dict[str, Path], common: Path, per_version: dict[str, Path]) -> None:
    """Top-level entries identical in every stage go to `common`, the rest to each version's folder.
    Whole packages move (never single files), so no package is split across two folders."""
    names = set()
    for stage in stages.values():
        names.update(p.name for p in stage.iterdir())
    common.mkdir(parents=True)
    for folder in per_version.values():
        folder.mkdir(parents=True)
    for name in sorted(names):
        entries = {tag: stage / name for tag, stage in stages.items()}
        present = [p for p in entries.values() if p.exists()]
        shared = len(present) == len(stages) and len({tree_digest(p) for p in present}) == 1
        if shared:
            shutil.move(str(present[0]), str(common / name))
            continue
        for tag, entry in entries.items():
            if entry.exists():
                shutil.move(str(entry), str(per_version[tag] / name))


def prune(folder: Path) -> None:
    """No bytecode caches, no console scripts (they name the build machine's Python)."""
    for cache in list(folder.rglob("__pycache__")):
        shutil.rmtree(cache, ignore_errors=True)
    for pyc in folder.rglob("*.pyc"):
        pyc.unlink()
    shutil.rmtree(folder / "bin", ignore_errors=True)
    # pip records where it installed a local wheel from (a temporary path): not part of the bundle
    for direct in list(folder.glob("*.dist-info/direct_url.json")):
        record = direct.parent / "RECORD"
        direct.unlink()
        if record.exists():
            lines = record.read_text(encoding="utf-8").splitlines(keepends=True)
            record.write_text("".join(l for l in lines if not l.startswith(f"{direct.parent.name}/direct_url.json")),
                              encoding="utf-8")
    # numpy's own test suite (about 10 MB per CPython version) is never run from the bundle, nor
    # onnx's backend test data (about 9 MB)
    for package, pattern in (("numpy", "tests"), ("onnx", "backend/test/data")):
        if (folder / package).is_dir():
            for tests in list((folder / package).glob(pattern if "/" in pattern else f"**/{pattern}")):
                if tests.is_dir():
                    shutil.rmtree(tests, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", default="linux-x64", choices=sorted(PLATFORMS))
    ap.add_argument("--python", default=",".join(DEFAULT_PYTHONS),
                    help="CPython versions to bundle for, comma-separated (default %(default)s)")
    ap.add_argument("--extras", default=None,
                    help="nnie-lsp extras to bundle, comma-separated ('' for none); default: "
                         f"{','.join(DEFAULT_EXTRAS)} on a platform target, none on universal")
    ap.add_argument("--with-opencv", action="store_true",
                    help="add the extra reference (opencv-python-headless: reference and emulation; about 40 MiB compressed)")
    ap.add_argument("--with-onnx", action="store_true",
                    help="add the extra onnx (onnx, onnxruntime: the conversion stage; about 150 MiB compressed more)")
    ap.add_argument("--pip-python", default=sys.executable, help="Python whose pip does the work")
    ap.add_argument("--update-lock", action="store_true",
                    help=f"resolve the packages anew and write them, with their hashes, to {LOCK.name} "
                         "(for this target, extras and Python versions), then build with them")
    ap.add_argument("--out", default=str(CLIENT / "bundled"))
    args = ap.parse_args(argv)
    versions = [v.strip() for v in args.python.split(",") if v.strip()]
    for version in versions:
        major, _, minor = version.partition(".")
        if not (major == "3" and minor.isdigit() and int(minor) >= 10):
            ap.error(f"--python {version}: nnie-lsp needs Python 3.10 or newer")
    if args.extras is None:
        chosen = [] if args.target == "universal" else list(DEFAULT_EXTRAS)
    else:
        chosen = [e.strip() for e in args.extras.split(",") if e.strip()]
    for extra, wanted in (("reference", args.with_opencv), ("onnx", args.with_onnx)):
        if wanted and extra not in chosen:
            chosen.append(extra)
    if chosen and args.target == "universal":
        ap.error(f"extras {','.join(chosen)} need a platform target (no pure-Python wheels)")
    out = Path(args.out)
    started = time.monotonic()
    try:
        for old in [*out.glob("libs*"), out / "wheels", out / "manifest.json"]:
            if old.is_dir():
                shutil.rmtree(old)
            elif old.exists():
                old.unlink()
        wheel = build_wheel(args.pip_python, out / "wheels")
        log(f"built {wheel.name}")
        extras = f"[{','.join(chosen)}]" if chosen else ""
        requires = wheel_requires(wheel)
        lock = read_lock()
        if args.update_lock:
            if lock.get("requires") != requires:   # other requirements: the other targets' pins are void too
                lock = {"lock_version": LOCK_VERSION, "requires": requires, "targets": {}}
            pip_pin = download_pip(args.pip_python, out / "wheels")[1]
            previous = lock.get("targets", {}).get(args.target, {})
            pythons = dict(previous.get("pythons", {})) if sorted(previous.get("extras", [])) == sorted(chosen) else {}
            for version in versions:
                pythons[version] = resolve_pins(args.pip_python, wheel, extras, version, args.target)
                log(f"locked {args.target} Python {version}: {len(pythons[version])} packages")
            lock.setdefault("targets", {})[args.target] = {"extras": chosen, "pythons": pythons}
            lock["pip"] = pip_pin
            LOCK.write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n", encoding="utf-8")
            log(f"wrote {LOCK}")
        entry = locked_target(lock, args.target, chosen, versions, requires)
        if "pip" not in lock:
            raise BundleError(f"{LOCK.name} pins no pip wheel: {_refresh(args.target)}")
        pip_wheel, _pin = download_pip(args.pip_python, out / "wheels", lock["pip"])
        log(f"pip for installing into the extension's folder: {pip_wheel.name} (locked)")
        packages: dict[str, list[str]] = {}
        with tempfile.TemporaryDirectory(prefix="nnie-bundle-") as scratch:
            stages: dict[str, Path] = {}
            for version in versions:
                tag = "cp" + version.replace(".", "")
                stage = Path(scratch) / tag
                packages[tag] = install_locked(args.pip_python, wheel, entry["pythons"][version], version,
                                               args.target, stage)
                prune(stage)
                stages[tag] = stage
                log(f"{args.target} Python {version}: {', '.join(packages[tag])}")
            split_common(stages, out / "libs", {tag: out / f"libs-{tag}" for tag in stages})
        for folder in out.glob("libs*"):
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
        manifest = {
            "target": args.target,
            "nnie_lsp": wheel.name.split("-")[1],
            "wheel": f"wheels/{wheel.name}",
            "pythons": versions,
            "extras": chosen,
            "opencv": "reference" in chosen,
            "onnx": "onnx" in chosen,
            "pip_wheel": f"wheels/{pip_wheel.name}",
            "module_requirements": module_requirements(wheel),
            "packages": packages,
            "locked": LOCK.name,
            "per_version": sorted(p.name for p in out.glob("libs-cp*")),
        }
        (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    except BundleError as exc:
        print(f"bundle: FAILED: {exc}", file=sys.stderr)
        return 1
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    log(f"{args.target}: {out} holds {size / 2**20:.1f} MiB for Python {', '.join(versions)} "
        f"in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

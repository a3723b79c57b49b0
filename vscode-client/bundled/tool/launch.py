"""Start the nnie-lsp language server that ships inside the VS Code extension.

The extension runs ``<the user's python> launch.py`` (Python 3.10 or newer).  This script puts the
bundled libraries on the import path, ahead of the environment's own packages:

* ``../libs``          the packages identical for every CPython version (nnie_lsp, pygls, ...);
* ``../libs-cpXY``     the ones built for this CPython version (numpy ...), when the bundle has them.

* ``$NNIE_PACKAGES_ROOT/cpXY-<platform>``  the packages the extension installed for this Python
  (numpy on the universal VSIX, an extra such as OpenCV: packageInstall.ts), when it exists.

It also puts them in ``PYTHONPATH``, so the processes the server starts with ``sys.executable``
(``nnie-triage compare``, ``reference``, ``emulate``) import the same packages.  Then it runs
``python -m nnie_lsp`` with the remaining arguments.

``launch.py --check`` prints one JSON object instead and exits: the Python version, the bundle
folders used, the nnie_lsp that imports, the modules that do not import (``missing``) and the
folder the extension installs packages into for this Python (``packages_dir``).  The extension
reads it to decide whether the server can start and what to tell the user.

With ``NNIE_IMPORT_STRATEGY=fromEnvironment`` nothing is added: the environment's own nnie-lsp runs.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BUNDLED = os.path.dirname(HERE)
MINIMUM = (3, 10)
#: Modules the server (``nnie_lsp``) and the triage (``numpy``, ``google.protobuf``) import; ``cv2``
#: only ``nnie.reference`` needs.
CHECKED = ("nnie_lsp", "pygls", "lsprotocol", "lark", "numpy", "google.protobuf", "cv2")


def packages_dir():
    """The folder the extension installs packages into for this Python (``$NNIE_PACKAGES_ROOT/
    cp311-linux-x86_64``), or None without ``NNIE_PACKAGES_ROOT``.  One per CPython version and
    platform: their native wheels differ."""
    root = os.environ.get("NNIE_PACKAGES_ROOT")
    if not root:
        return None
    import sysconfig
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return os.path.join(root, "cp%d%d-%s" % (sys.version_info[0], sys.version_info[1], platform))


def bundle_paths():
    """The bundled folders for this CPython, most specific first, then the extension's installed
    packages; only those that exist."""
    tag = "cp%d%d" % sys.version_info[:2]
    candidates = [os.path.join(BUNDLED, "libs-" + tag), os.path.join(BUNDLED, "libs"), packages_dir()]
    return [path for path in candidates if path and os.path.isdir(path)]


def manifest():
    try:
        with open(os.path.join(BUNDLED, "manifest.json"), encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return {}


def use_bundle(paths):
    sys.path[0:0] = [p for p in paths if p not in sys.path]
    inherited = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(paths + ([inherited] if inherited else []))


def check(paths, strategy):
    import importlib
    if sys.version_info[:2] < MINIMUM:
        return {"python": "%d.%d.%d" % tuple(sys.version_info[:3]), "executable": sys.executable,
                "too_old": True, "missing": {}}
    info = manifest()
    report = {
        "python": "%d.%d.%d" % sys.version_info[:3],
        "executable": sys.executable,
        "strategy": strategy,
        "bundle_paths": paths,
        "bundle_target": info.get("target"),
        "bundle_pythons": info.get("pythons", []),
        "wheel": os.path.join(BUNDLED, info["wheel"]) if info.get("wheel") else None,
        "pip_wheel": os.path.join(BUNDLED, info["pip_wheel"]) if info.get("pip_wheel") else None,
        "packages_dir": packages_dir() if strategy == "useBundled" else None,
        "nnie_lsp": None,
        "nnie_lsp_file": None,
        "missing": {},
    }
    for name in CHECKED:
        try:
            module = importlib.import_module(name)
        except Exception as exc:  # ImportError, or a broken install raising anything
            report["missing"][name] = "%s: %s" % (type(exc).__name__, exc)
            continue
        if name == "nnie_lsp":
            report["nnie_lsp"] = getattr(module, "__version__", "")
            report["nnie_lsp_file"] = getattr(module, "__file__", None)
            try:
                import importlib.util
                if importlib.util.find_spec("nnie_lsp.__main__") is None:
                    report["missing"]["nnie_lsp.__main__"] = "this nnie_lsp has no language server"
            except Exception as exc:
                report["missing"]["nnie_lsp.__main__"] = "%s: %s" % (type(exc).__name__, exc)
    return report


def main(argv):
    strategy = os.environ.get("NNIE_IMPORT_STRATEGY", "useBundled")
    paths = bundle_paths() if strategy == "useBundled" else []
    if sys.version_info[:2] >= MINIMUM and paths:
        use_bundle(paths)
    if argv[:1] == ["--check"]:
        sys.stdout.write(json.dumps(check(paths, strategy)) + "\n")
        return 0
    if sys.version_info[:2] < MINIMUM:
        sys.stderr.write("nnie-lsp needs Python %d.%d or newer; this is %s (%s)\n"
                         % (MINIMUM + (sys.version.split()[0], sys.executable)))
        return 4
    import runpy
    sys.argv = ["nnie_lsp"] + list(argv)
    runpy.run_module("nnie_lsp", run_name="__main__", alter_sys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Write tests/data/triage/compare_result.json: a real `nnie-triage compare --format json` result
for the editor clients' unit tests (docs/editor-protocol.md).

    .venv/bin/python tests/server/lsp/make_compare_fixture.py

It is the case-2 demo (examples/triage/quant_noise, with its compile_mode 1 run) compared from the
project folder (`--no-record`: nothing is written into the repository; `--previous none`: no earlier
result is read), exactly as the CLI prints
it except for what depends on the machine: `elapsed_s` is 0, the dump folders' newest file times 0, `inputs.working_directory` is the folder relative to the repository, and the rules.md links
start with `file:///REPO/`.  `tests/server/lsp/test_compare_fixture.py` fails when the CLI's output no
longer matches the file.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
PROJECT = REPO / "examples" / "triage" / "quant_noise"
FIXTURE = REPO / "tests" / "data" / "triage" / "compare_result.json"
ARGUMENTS = ["compare", "--reference", "output", "--sim", "mapper_quant", "--sim-16bit", "compile_mode1/mapper_quant",
             "--cfg", "sim.cfg", "--prototxt", "../model/det1.prototxt", "--format", "json", "--no-record",
             "--previous", "none"]


def _normalized(value, repo_uri: str):
    if isinstance(value, dict):
        return {k: _normalized(v, repo_uri) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalized(v, repo_uri) for v in value]
    if isinstance(value, str) and value.startswith(repo_uri):
        return "file:///REPO/" + value[len(repo_uri):]
    return value


def compare_result() -> dict:
    """Run the CLI on the demo and return its JSON, normalized (module doc)."""
    run = subprocess.run([sys.executable, "-m", "nnie_lsp.cli.triage", *ARGUMENTS], cwd=PROJECT,
                         capture_output=True, text=True, timeout=300, check=True)
    doc = json.loads(run.stdout)
    doc["elapsed_s"] = 0
    doc["inputs"]["working_directory"] = PROJECT.relative_to(REPO).as_posix()
    for stamp in (doc["inputs"].get("stamps") or {}).values():   # file times differ per checkout
        if isinstance(stamp, dict):
            stamp["newest_mtime_ns"] = 0
    return _normalized(doc, REPO.as_uri() + "/")


def main() -> int:
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text(json.dumps(compare_result(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {FIXTURE.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

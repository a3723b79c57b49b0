"""Stand-in for `python -m nnie_lsp.cli.triage` (NNIE_LSP_TRIAGE_CMD): prints a result with the
real `compare --format json` schema fields the server reads.

With `--progress json` it writes progress lines to stderr as nnie-triage does (one JSON object a
line: stage, done, total, percent of the whole run), between two plain message lines:
`load` 4 steps, `align` 10, `measure` 10, `diagnose` 1, 0.04 s each.  A --reference path containing
"slow" writes its pid next to the reference folder after the first stage and sleeps (for the
cancel tests); "broken" fails with exit 2 after the first stage; "many" writes 5000 steps at once
(for the rate limit).  `--legacy` before the subcommand: a tool without `--progress` (argparse
rejects it, exit 2)."""

import argparse
import json
import os
import sys
import time

legacy = "--legacy" in sys.argv
if legacy:
    sys.argv.remove("--legacy")

ap = argparse.ArgumentParser()
ap.add_argument("cmd")
ap.add_argument("--reference", required=True)
ap.add_argument("--sim", required=True)
ap.add_argument("--cfg")
ap.add_argument("--prototxt")
ap.add_argument("--sim-16bit")
ap.add_argument("--dot")
ap.add_argument("--html")
ap.add_argument("--lang")
ap.add_argument("--format")
ap.add_argument("--no-record", action="store_true")
if not legacy:
    ap.add_argument("--progress", choices=["json"])
a = ap.parse_args()

STAGES = [("load", 4), ("align", 10), ("measure", 10), ("diagnose", 1)]
if "many" in a.reference:
    STAGES = [("align", 5000)]
ALL = sum(n for _, n in STAGES)


def progress_line(stage, done, total, finished):
    if getattr(a, "progress", None) == "json":
        print(json.dumps({"stage": stage, "done": done, "total": total, "percent": round(100.0 * finished / ALL, 2)}),
              file=sys.stderr, flush=True)


print("nnie-triage: comparing " + a.reference, file=sys.stderr, flush=True)
finished = 0
for number, (stage, total) in enumerate(STAGES):
    for done in range(1, total + 1):
        if "many" not in a.reference:
            time.sleep(0.04)
        finished += 1
        progress_line(stage, done, total, finished)
    if number == 0 and "slow" in a.reference:
        with open(os.path.join(a.reference, "pid"), "w") as fh:
            fh.write(str(os.getpid()))
        time.sleep(60)
    if number == 0 and "broken" in a.reference:
        print("nnie-triage compare: error: no dumps found in " + a.reference, file=sys.stderr)
        sys.exit(2)
if a.html:
    with open(a.html, "w") as fh:
        fh.write("<html><body>fake report</body></html>")
print("nnie-triage: 5 layers compared", file=sys.stderr, flush=True)
print(json.dumps({
    "schema_version": 1, "tool": "nnie-triage", "case": 2, "next_step": 3, "verdict": "quantization",
    "first_divergence": "layer10-route",
    "thresholds": {"data_layer": 0.999, "good": 0.99, "decay_end": 0.95, "middle_dip": 0.9},
    "inputs": {"reference": a.reference, "sim": a.sim, "cfg": a.cfg, "prototxt": a.prototxt},
    "layers": [
        {"name": "data", "blob": "data", "is_data": True, "cosine": 0.9999, "status": "ok"},
        {"name": "layer1-conv", "blob": "layer1-conv", "cosine": 0.9995, "status": "ok"},
        {"name": "layer10-route", "blob": "layer10-route", "cosine": 0.9731, "status": "low"},
        {"name": "layer14-fc", "blob": "layer14-fc", "cosine": 0.8012, "status": "bad"},
        {"name": "not-in-net", "blob": "zzz", "cosine": 0.5, "status": "bad"},
    ],
    "findings": [], "hp_candidates": [],
}))

"""Stand-in for `python -m nnie_lsp.cli.triage` (NNIE_LSP_TRIAGE_CMD): prints a result with the
real `compare --format json` schema fields the server reads.  A --reference path containing
"slow" sleeps (for the cancel test) after writing its pid next to the reference folder."""

import argparse
import json
import os
import sys
import time

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
a = ap.parse_args()
if a.html:
    with open(a.html, "w") as fh:
        fh.write("<html><body>fake report</body></html>")
if "slow" in a.reference:
    with open(os.path.join(a.reference, "pid"), "w") as fh:
        fh.write(str(os.getpid()))
    time.sleep(60)
if "broken" in a.reference:
    print("nnie-triage compare: error: no dumps found in " + a.reference, file=sys.stderr)
    sys.exit(2)
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

"""Triage under bad dumps (issue 11): every bad input gets a clear outcome in bounded memory.

Each case runs the real ``nnie-triage compare --format json`` in a child process that reports
its peak RSS (``VmHWM``); the outcome (a row left unmeasured with a note, a warning naming the
file, a finding) and the memory are checked.  The 2 GB file is sparse (no disk used).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from nnie_lsp.readers.dumpio.writers import write_mapper_quant, write_ruyi_caffe

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

CHILD = """
import json, sys
from nnie_lsp.cli.triage import main
code = main(["compare", "--reference", sys.argv[1], "--sim", sys.argv[2], "--format", "json"])
with open("/proc/self/status") as fh:
    peak = next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:"))
print(json.dumps({"code": code, "peak_kb": peak}), file=sys.stderr)
"""

# what an import of the triage code costs (numpy and friends) plus a loose margin: the cases
# below hold at most a few MB of values, so the peak must stay far below a whole-file read
MEMORY_BOUND_MB = 400


def _compare(ref, sim) -> tuple[dict, dict, str]:
    done = subprocess.run([sys.executable, "-c", CHILD, str(ref), str(sim)], capture_output=True, text=True,
                          timeout=600, env={**os.environ, "PYTHONPATH": ROOT})
    assert "Traceback" not in done.stderr, done.stderr
    status = json.loads(done.stderr.strip().splitlines()[-1])
    result = json.loads(done.stdout) if done.stdout.strip() else {}
    assert status["peak_kb"] < MEMORY_BOUND_MB * 1024, status
    return result, status, done.stderr


def _folders(tmp_path, layers=("conv1", "conv2", "conv3"), shape=(4, 8, 8)):
    ref, sim = tmp_path / "ref", tmp_path / "sim"
    ref.mkdir()
    sim.mkdir()
    rng = np.random.default_rng(0)
    for name in layers:
        values = rng.normal(size=shape)
        write_ruyi_caffe(str(ref), name, values)
        write_mapper_quant(str(sim), name, values + rng.normal(size=shape) * 0.01)
    return ref, sim


def _row(result: dict, name: str) -> dict:
    return next(row for row in result["layers"] if row["name"] == name)


def test_truncated_text_dump_mid_number(tmp_path):
    ref, sim = _folders(tmp_path)
    path = next(ref.glob("conv2_*"))
    path.write_bytes(path.read_bytes()[:300] + b"1.2345e")
    result, status, _ = _compare(ref, sim)
    assert status["code"] == 0
    row = _row(result, "conv2")
    assert row["status"] == "unmeasured"
    assert any(path.name in w and "is not a number" in w for w in result["warnings"]), result["warnings"]
    assert _row(result, "conv1")["status"] != "unmeasured" and _row(result, "conv3")["cosine"] > 0.99


def test_truncated_hex_dump(tmp_path):
    ref, sim = _folders(tmp_path)
    path = next(sim.glob("conv2_*"))
    path.write_bytes(path.read_bytes()[:9 * 12 + 4])  # 12 words and half of the 13th
    result, status, _ = _compare(ref, sim)
    assert status["code"] == 0
    row = _row(result, "conv2")
    # the cut word reads as a short hex word: 13 values; the row says the sizes differ
    assert row["status"] == "unmeasured" and "sizes differ: Caffe 256, NNIE 13" in row["note"]


def test_nan_and_inf(tmp_path):
    ref, sim = _folders(tmp_path)
    path = next(ref.glob("conv3_*"))
    lines = path.read_text().splitlines()
    lines[2], lines[4] = "nan", "inf"
    path.write_text("\n".join(lines) + "\n")
    result, status, _ = _compare(ref, sim)
    assert status["code"] == 0
    t003 = [f for f in result["findings"] if f["code"] == "T003"]
    assert t003 and "1 NaN / 1 Inf" in t003[0]["message"] and t003[0]["layer"] == "conv3"
    assert np.isfinite(_row(result, "conv3")["cosine"])


def test_shape_that_disagrees_with_the_name(tmp_path):
    ref, sim = _folders(tmp_path)
    # the Caffe dump holds 300 values under a 4_8_8 (256) name, the NNIE one 256
    path = next(ref.glob("conv1_*"))
    np.savetxt(path, np.random.default_rng(1).normal(size=300))
    result, status, _ = _compare(ref, sim)
    assert status["code"] == 0
    row = _row(result, "conv1")
    assert row["status"] == "unmeasured" and "sizes differ" in (row["note"] or "") + " ".join(result["warnings"])


def test_ten_thousand_files_in_one_folder(tmp_path):
    ref, sim = _folders(tmp_path, layers=[f"conv{i}" for i in range(20)], shape=(2, 2, 2))
    for i in range(10_000):  # other runs' dumps left in the same folder: nothing to pair them with
        (ref / f"old{i}_output0_2_2_2_caffe.linear.float").write_bytes(b"1.0\n" * 8)
    result, status, _ = _compare(ref, sim)
    assert status["code"] == 0
    measured = [row for row in result["layers"] if row.get("cosine") is not None]
    assert len(measured) == 20
    assert len(result["unmatched"]["reference"]) == 10_000 if isinstance(result["unmatched"], dict) else True


def test_a_2gb_dump_is_refused_without_reading_it(tmp_path):
    ref, sim = _folders(tmp_path)
    path = next(ref.glob("conv2_*"))
    try:
        with open(path, "r+b") as fh:
            fh.truncate(2 << 30)  # sparse: no disk used
    except OSError as exc:
        pytest.skip(f"cannot make a sparse 2 GB file here: {exc}")
    result, status, stderr = _compare(ref, sim)
    assert status["code"] == 0
    row = _row(result, "conv2")
    assert row["status"] == "unmeasured"
    assert any(path.name in w and "2048.0 MiB, more than the 1024.0 MiB" in w for w in result["warnings"]), result["warnings"]
    assert status["peak_kb"] < 300 * 1024  # never read into memory
    shutil.rmtree(ref)

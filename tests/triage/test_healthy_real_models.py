"""Issue 16: a healthy 8-bit run of a real model is never told "inconclusive" or "make a bundle".

The two runs of the issue's report, made as a user makes them — a cfg with the model's
preprocessing, ``nnie-triage reference`` (OpenCV), ``nnie-triage emulate`` (8-bit), ``nnie-triage
compare`` — on the real models of the shared corpus (skipped without it):

- yufacedetectnet-open-v1 with a BGR, norm_type 0 cfg: conv4_2's best scale 0.94 with a max error
  of 0.16 of its range is 8-bit clipping, not a decoding fault;
- MTCNN det2 with a BGR cfg on both sides (and ``--transpose``): conv5-1 holds 2 values, too few
  for its best scale to mean anything.

Both must come out as case 4.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from nnie_lsp.testing.faults import Prep, write_cfg
from nnie_lsp.testing.shared_files import corpus_dir

MODELS = corpus_dir("models")
MTCNN = MODELS / "mtcnn"
YUFACE = MODELS / "yufacedetectnet-v1"


def _triage(args: list[str]) -> str:
    from nnie_lsp.cli.triage import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(args)
    assert code == 0, out.getvalue()[-2000:]
    return out.getvalue()


def _healthy_run(root: Path, prototxt: Path, caffemodel: Path, prep: Prep, *, transpose: bool) -> dict:
    root.mkdir(parents=True, exist_ok=True)
    (root / "images.txt").write_text(f"{MTCNN / 'test1.jpg'}\n{MTCNN / 'test2.jpg'}\n", encoding="utf-8")
    cfg = write_cfg(root / "net.cfg", prototxt=prototxt, caffemodel=caffemodel, prep=prep)
    extra = ["--transpose"] if transpose else []
    _triage(["reference", "--cfg", str(cfg), "-o", str(root / "ref"), "--progress", "none", *extra])
    _triage(["emulate", "--cfg", str(cfg), "-o", str(root / "sim8"), "--progress", "none", "--bits", "8", *extra])
    report = root / "report.json"
    _triage(["compare", "--reference", str(root / "ref"), "--sim", str(root / "sim8"), "--cfg", str(cfg),
             "--format", "json", "--output", str(report), "--progress", "none"])
    return json.loads(report.read_text(encoding="utf-8"))


def _assert_healthy(doc: dict) -> None:
    codes = [f["code"] for f in doc["findings"]]
    assert doc["case"] == 4 and doc["next_step"] == 5, (doc["verdict"], doc["reason"])
    assert "T001" not in codes and "T006" not in codes and not doc["verdict"].startswith("inconclusive")


@pytest.mark.skipif(not (YUFACE / "yufacedetectnet-open-v1.caffemodel").is_file() or not (MTCNN / "test1.jpg").is_file(),
                    reason="the shared corpus's yufacedetectnet is not available")
def test_yufacedetectnet_norm_type_0_8bit_is_case4(tmp_path):
    doc = _healthy_run(tmp_path / "yuface", YUFACE / "yufacedetectnet-open-v1.prototxt",
                       YUFACE / "yufacedetectnet-open-v1.caffemodel", Prep("BGR", 0), transpose=False)
    _assert_healthy(doc)
    # the drift that used to raise the alarm is named in T401, as 8-bit loss
    (t401,) = [f for f in doc["findings"] if f["code"] == "T401"]
    assert "8-bit clipping" in t401["message"] or "every best scale is within" in t401["message"]
    # SSD's NNIE results read only by DetectionOutput are the ends judged
    outputs = {r["name"] for r in doc["layers"] if r["is_output"]}
    assert {"mbox_loc", "mbox_conf_flatten"} <= outputs


@pytest.mark.skipif(not (MTCNN / "det2.caffemodel").is_file(), reason="the shared corpus's MTCNN det2 is not available")
def test_mtcnn_det2_bgr_8bit_is_case4(tmp_path):
    doc = _healthy_run(tmp_path / "det2", MTCNN / "det2.prototxt", MTCNN / "det2.caffemodel",
                       Prep("BGR", 5, (127.5, 127.5, 127.5), 0.0078125), transpose=True)
    _assert_healthy(doc)
    tiny = next(r for r in doc["layers"] if r["name"] == "conv5-1")
    assert tiny["size"] == 2  # the layer the old rule tripped on: too few values for a scale

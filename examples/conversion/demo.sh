#!/usr/bin/env bash
# The chain ONNX -> Caffe -> NNIE on MTCNN det1 (made by make_example.py): the converter forgot
# `round_mode: FLOOR`, so Caffe's pool1 rounds up where the ONNX model rounds down.
#   1. nnie-lint --onnx: the static check names the layer (NN503) with the prototxt fix;
#   2. nnie-triage: the Caffe reference, the ONNX run on the same input, an emulated NNIE run,
#      then compare --framework: both hops side by side, and the verdict names the stage.
set -euo pipefail
cd "$(dirname "$0")"
BIN=${BIN:-../../.venv/bin}
export COLUMNS=${COLUMNS:-110}
echo "--- nnie-lint det1.prototxt --onnx det1.onnx ---"
"$BIN/nnie-lint" det1.prototxt --onnx det1.onnx --select NN5 --exit-zero
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo
echo "--- nnie-triage reference (Caffe), reference --onnx (ONNX Runtime), emulate (NNIE), then compare --framework ---"
"$BIN/nnie-triage" reference --cfg det1.cfg --transpose -o "$work/caffe" --progress none
"$BIN/nnie-triage" reference --cfg det1.cfg --transpose --onnx det1.onnx -o "$work/onnx" --progress none
"$BIN/nnie-triage" emulate --cfg det1.cfg --transpose -o "$work/nnie" --progress none
"$BIN/nnie-triage" compare --cfg det1.cfg --reference "$work/caffe" --sim "$work/nnie" --framework "$work/onnx" \
  --previous none --progress none

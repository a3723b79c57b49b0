#!/usr/bin/env bash
# The chain ONNX -> Caffe -> NNIE on MTCNN det1 (made by make_example.py): the converter forgot
# `round_mode: FLOOR`, so Caffe's pool1 rounds up where the ONNX model rounds down.
#   1. nnie-lint --onnx: the static check names the layer (NN503) and its prototxt fix (--diff);
#   2. nnie-triage: the Caffe reference, the ONNX run on the same input, an emulated NNIE run,
#      then compare --framework: both hops side by side, and the verdict names the stage;
#   3. the fix applied to a copy, converted net run again: every layer agrees with ONNX and the
#      guide's Caffe -> NNIE verdict stands.
set -euo pipefail
cd "$(dirname "$0")"
BIN=${BIN:-../../.venv/bin}
export COLUMNS=${COLUMNS:-110}
echo "--- 1. nnie-lint det1.prototxt --onnx det1.onnx (and --diff: the fix) ---"
"$BIN/nnie-lint" det1.prototxt --onnx det1.onnx --select NN5 --exit-zero
"$BIN/nnie-lint" det1.prototxt --onnx det1.onnx --select NN5 --diff --unsafe-fixes --exit-zero
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo
echo "--- 2. nnie-triage reference (Caffe), reference --onnx (ONNX Runtime), emulate (NNIE), then compare --framework ---"
"$BIN/nnie-triage" reference --cfg det1.cfg --transpose -o "$work/caffe" --progress none
"$BIN/nnie-triage" reference --cfg det1.cfg --transpose --onnx det1.onnx -o "$work/onnx" --progress none
"$BIN/nnie-triage" emulate --cfg det1.cfg --transpose -o "$work/nnie" --progress none
"$BIN/nnie-triage" compare --cfg det1.cfg --reference "$work/caffe" --sim "$work/nnie" --framework "$work/onnx" \
  --previous none --progress none
echo
echo "--- 3. the NN503 fix applied to a copy (nnie-lint --fix --unsafe-fixes), Caffe and NNIE run again ---"
mkdir -p "$work/fixed"
cp det1.prototxt det1.caffemodel det1.onnx det1.cfg det1_mean.txt "$work/fixed/"
echo "$(pwd)/../triage/test1.jpg" > "$work/fixed/images.txt"
"$BIN/nnie-lint" "$work/fixed/det1.prototxt" --onnx "$work/fixed/det1.onnx" --select NN5 --fix --unsafe-fixes \
  --exit-zero | tail -n 1
"$BIN/nnie-triage" reference --cfg "$work/fixed/det1.cfg" --transpose -o "$work/fixed/caffe" --progress none
"$BIN/nnie-triage" emulate --cfg "$work/fixed/det1.cfg" --transpose -o "$work/fixed/nnie" --progress none
"$BIN/nnie-triage" compare --cfg "$work/fixed/det1.cfg" --reference "$work/fixed/caffe" --sim "$work/fixed/nnie" \
  --framework "$work/onnx" --previous none --progress none

#!/usr/bin/env bash
# The chain ONNX -> Caffe -> NNIE on MTCNN det1 (made by make_example.py): the model was exported
# at 25×25 with PyTorch's max-pooling that rounds down, the converter did not write
# `round_mode: FLOOR`, so Caffe's pool1 rounds up where the ONNX model rounds down.
#   1. nnie-lint --onnx: the static check names the layer (NN503) -- also on inplace/, the same
#      fault as real files have it (numbered exporter tensors, every PReLU in place). No automatic
#      fix: round_mode: FLOOR would fix Caffe only, the NNIE wk always rounds up;
#   2. nnie-triage: the Caffe reference, the ONNX run on the same input, an emulated NNIE run,
#      then compare --framework: both hops side by side, and the verdict names the stage;
#   3. the lasting fix, reexported/: the model exported at 24×24, where both roundings give the
#      same pool1 -- lint clean, every layer agrees with ONNX, the guide's Caffe -> NNIE verdict stands.
# Writes only into demo-output/conversion/ (the dumps of each run; the example folder is read,
# never written); all output, stderr included, goes to stdout.
set -euo pipefail
exec 2>&1
cd "$(dirname "$0")"
ROOT=$(cd ../.. && pwd)
BIN=${BIN:-$ROOT/.venv/bin}
export COLUMNS=${COLUMNS:-110}
work=${DEMO_OUTPUT:-$ROOT/demo-output}/conversion
rm -rf "$work"
mkdir -p "$work"
echo "--- 1. nnie-lint det1.prototxt --onnx det1.onnx, and the in-place, exporter-named copy ---"
"$BIN/nnie-lint" det1.prototxt --onnx det1.onnx --exit-zero
"$BIN/nnie-lint" inplace/det1.prototxt --onnx inplace/det1.onnx --exit-zero
echo
echo "--- 2. nnie-triage reference (Caffe), reference --onnx (ONNX Runtime), emulate (NNIE), then compare --framework ---"
"$BIN/nnie-triage" reference --cfg det1.cfg --transpose -o "$work/caffe" --progress none
"$BIN/nnie-triage" reference --cfg det1.cfg --transpose --onnx det1.onnx -o "$work/onnx" --progress none
"$BIN/nnie-triage" emulate --cfg det1.cfg --transpose -o "$work/nnie" --progress none
"$BIN/nnie-triage" compare --cfg det1.cfg --reference "$work/caffe" --sim "$work/nnie" --framework "$work/onnx" \
  --previous none --no-record --html "$work/det1-conversion.html" --progress none
echo
echo "--- 3. the re-export at 24×24 (reexported/): lint, then both hops again ---"
fixed=reexported
"$BIN/nnie-lint" "$fixed/det1.prototxt" --onnx "$fixed/det1.onnx" --exit-zero | tail -n 1
"$BIN/nnie-triage" reference --cfg "$fixed/det1.cfg" --transpose -o "$work/fixed/caffe" --progress none
"$BIN/nnie-triage" reference --cfg "$fixed/det1.cfg" --transpose --onnx "$fixed/det1.onnx" -o "$work/fixed/onnx" --progress none
"$BIN/nnie-triage" emulate --cfg "$fixed/det1.cfg" --transpose -o "$work/fixed/nnie" --progress none
"$BIN/nnie-triage" compare --cfg "$fixed/det1.cfg" --reference "$work/fixed/caffe" --sim "$work/fixed/nnie" \
  --framework "$work/fixed/onnx" --previous none --no-record --html "$work/reexported-case4.html" --progress none

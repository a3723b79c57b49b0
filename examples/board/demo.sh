#!/usr/bin/env bash
# The board side (see README.txt): the board's own dumps checked before they are compared with the
# simulator and Caffe, and the board code's contract read from a real .wk.
# Writes only into demo-output/board/ (the example folder is read, never written); all output,
# stderr included, goes to stdout.
set -euo pipefail
exec 2>&1
cd "$(dirname "$0")"
ROOT=$(cd ../.. && pwd)
BIN=${BIN:-$ROOT/.venv/bin}
OUT=${DEMO_OUTPUT:-$ROOT/demo-output}/board
export COLUMNS=${COLUMNS:-110}
rm -rf "$OUT"
mkdir -p "$OUT"
WK="$ROOT/tests/data/wk/Strand2013__NNIE-lite__inst_mnist_cycle.wk"
echo "--- nnie-triage compare --cfg board/net.cfg (output/, mapper_quant/ and board/ found beside it) ---"
"$BIN/nnie-triage" compare --cfg net.cfg --no-record --html "$OUT/board-report.html" --progress none
echo
echo "--- the board code's contract of a real .wk (the SDK sample's LeNet): nnie-triage wk FILE.wk --board-contract ---"
"$BIN/nnie-triage" wk "$WK" --board-contract
"$BIN/nnie-triage" wk "$WK" --board-contract --format c > "$OUT/lenet_board_contract.h"
echo "(the same contract as a C header: $OUT/lenet_board_contract.h)"

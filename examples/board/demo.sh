#!/usr/bin/env bash
# The board side (see README.txt): the board's own dumps checked before they are compared with the
# simulator and Caffe, and the board code's contract read from a real .wk.
set -euo pipefail
cd "$(dirname "$0")"
BIN=${BIN:-../../.venv/bin}
export COLUMNS=${COLUMNS:-110}
echo "--- nnie-triage compare --cfg board/net.cfg (output/, mapper_quant/ and board/ found beside it) ---"
"$BIN/nnie-triage" compare --cfg net.cfg
echo
echo "--- the board code's contract of a real .wk (the SDK sample's LeNet): nnie-triage wk FILE.wk --board-contract ---"
"$BIN/nnie-triage" wk ../../tests/data/wk/Strand2013__NNIE-lite__inst_mnist_cycle.wk --board-contract

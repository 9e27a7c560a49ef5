#!/usr/bin/env bash
# Runs hone's VS Code extension end to end in a real VS Code: builds hone-server and the .vsix (with
# the server bundled), serves a copy of a tasks/ CPU example with code-server 4.100.3 and drives it
# from Debian's headless Chromium (extension/e2e/drive_vscode.mjs); on success the step
# screenshots replace docs/screenshots/. code-server is cached outside the repo (HONE_E2E_CACHE,
# default ~/.cache/hone-e2e). Usage: scripts/e2e-vscode.sh [KERNEL] (default tasks/tune_transpose.cpp
# with its task beside it). Env: HONE_E2E_BUILD (build folder, default build-e2e),
# HONE_E2E_KEEP=1 (keep the temp folder), HONE_E2E_PORT (default: a free port), HONE_E2E_TRACE=1
# (log the LSP traffic into the hone output log, kept with the other logs on failure).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
KERNEL_SRC=${1:-tasks/tune_transpose.cpp}
CACHE=${HONE_E2E_CACHE:-$HOME/.cache/hone-e2e}
BUILD=${HONE_E2E_BUILD:-build-e2e}
CODE_SERVER_VERSION=4.100.3

die() { echo "e2e-vscode: $*" >&2; exit 1; }
[ -f "$KERNEL_SRC" ] || die "no kernel $KERNEL_SRC (give a tasks/ CPU kernel as the first argument)"

# 1. Chromium (Debian) and code-server (npm, cached; ripgrep from Debian: its postinstall cannot download).
if [ ! -x /usr/bin/chromium ] || ! command -v rg >/dev/null || ! dpkg-query -W -f='${Status}' libkrb5-dev 2>/dev/null | grep -q "ok installed"; then
  echo "e2e-vscode: installing chromium, ripgrep, libkrb5-dev"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium ripgrep libkrb5-dev
fi
CODE_SERVER=$CACHE/node_modules/.bin/code-server
if [ ! -x "$CODE_SERVER" ] || [ "$("$CODE_SERVER" --version 2>/dev/null | head -1 | cut -d' ' -f1)" != "$CODE_SERVER_VERSION" ]; then
  echo "e2e-vscode: installing code-server $CODE_SERVER_VERSION into $CACHE (~2 min)"
  mkdir -p "$CACHE"
  RG=$(mktemp -d)
  mkdir -p "$RG/vscode-ripgrep-cache-1.15.11" "$RG/rg" && cp "$(command -v rg)" "$RG/rg/rg"
  tar czf "$RG/vscode-ripgrep-cache-1.15.11/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$RG/rg" rg
  [ -f "$CACHE/package.json" ] || echo '{"private": true}' > "$CACHE/package.json"
  (cd "$CACHE" && TMPDIR=$RG npm_config_yes=true npm_config_unsafe_perm=true npm_config_nodedir=/usr \
    npm install "code-server@$CODE_SERVER_VERSION" --foreground-scripts --no-audit --no-fund > "$CACHE/install.log" 2>&1) \
    || die "code-server install failed; see $CACHE/install.log"
  rm -rf "$RG"
fi

# 2. hone-server and the .vsix with it bundled.
echo "e2e-vscode: building hone-server in $BUILD"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHONE_BUILD_TESTS=OFF > /dev/null
cmake --build "$BUILD" -j 2 --target hone-server hone_share
[ -d node_modules ] || npm ci --no-audit --no-fund
HONE_BUILD=$BUILD npm run package > /dev/null
VSIX=$ROOT/extension/hone.vsix

# 3. A throwaway workspace with the kernel and its task, and a VS Code profile with hone's settings.
TMP=$(mktemp -d /tmp/hone-e2e.XXXXXX)
CS_PID=""
cleanup() {
  if [ -n "$CS_PID" ]; then kill "$CS_PID" 2>/dev/null || true; wait "$CS_PID" 2>/dev/null || true; fi
  if [ "${HONE_E2E_KEEP:-0}" = 1 ]; then echo "e2e-vscode: kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
WS=$TMP/workspace
mkdir -p "$WS" "$TMP/user/User" "$TMP/extensions" "$TMP/out"
KERNEL=$(basename "$KERNEL_SRC")
STEM=${KERNEL%.*}
cp "$KERNEL_SRC" "$WS/"
[ -f "$(dirname "$KERNEL_SRC")/$STEM.py" ] || die "no task $(dirname "$KERNEL_SRC")/$STEM.py beside $KERNEL_SRC"
cp "$(dirname "$KERNEL_SRC")/$STEM.py" "$WS/"
# A CPU-only project has no .cu file to activate the extension; hone.toml marks it (and pairs the kernel).
printf '# hone project file: which task each kernel is checked against\n[kernels]\n"%s" = "%s"\n' "$KERNEL" "$STEM.py" > "$WS/hone.toml"
cat > "$TMP/user/User/settings.json" <<JSON
{
  "hone.device": "cpu",
  "hone.python": "/usr/bin/python3",
  "hone.optimize.budgetMinutes": 3,
  "hone.optimize.samples": 3,
  "hone.optimize.rounds": 3,
  "hone.trace.server": "verbose",
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "security.workspace.trust.enabled": false,
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "editor.codeLens": true,
  "files.autoSave": "off"
}
JSON
PORT=${HONE_E2E_PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')}
printf 'bind-addr: 127.0.0.1:%s\nauth: none\ncert: false\n' "$PORT" > "$TMP/config.yaml"
CS_ARGS=(--config "$TMP/config.yaml" --user-data-dir "$TMP/user" --extensions-dir "$TMP/extensions")
"$CODE_SERVER" "${CS_ARGS[@]}" --install-extension "$VSIX" > "$TMP/install.log" 2>&1 || { cat "$TMP/install.log"; die "installing $VSIX failed"; }

# 4. Serve and drive. HONE_SERVER_PATH is unset so the extension uses the bundled server.
LOG_ARGS=(); [ "${HONE_E2E_TRACE:-0}" = 1 ] && LOG_ARGS=(--log trace)
env -u HONE_SERVER_PATH "$CODE_SERVER" "${CS_ARGS[@]}" "${LOG_ARGS[@]}" --disable-telemetry --disable-update-check \
  --disable-workspace-trust "$WS" > "$TMP/code-server.log" 2>&1 &
CS_PID=$!
for _ in $(seq 1 100); do
  curl -fs "http://127.0.0.1:$PORT/healthz" > /dev/null 2>&1 && break
  kill -0 "$CS_PID" 2>/dev/null || { cat "$TMP/code-server.log"; die "code-server exited"; }
  sleep 0.2
done
echo "e2e-vscode: code-server on port $PORT, workspace $WS, kernel $KERNEL"
status=0
HONE_E2E_URL=http://127.0.0.1:$PORT HONE_E2E_WORKSPACE=$WS HONE_E2E_KERNEL=$KERNEL HONE_E2E_OUT=$TMP/out \
  HONE_E2E_LOGS=$TMP/user/logs HONE_E2E_USER_DIR=$TMP/user HONE_E2E_EXTENSIONS=$TMP/extensions \
  node extension/e2e/drive_vscode.mjs || status=$?
if [ "$status" -eq 0 ]; then
  mkdir -p docs/screenshots
  rm -f docs/screenshots/*.png
  cp "$TMP"/out/*.png docs/screenshots/
  cp "$TMP/out/e2e-result.json" docs/screenshots/
  echo "e2e-vscode: passed; screenshots in docs/screenshots/"
else
  mkdir -p "$ROOT/build-e2e-logs" && rm -rf "$ROOT/build-e2e-logs"/*
  cp -r "$TMP/out" "$TMP/user/logs" "$TMP/code-server.log" "$ROOT/build-e2e-logs/" 2>/dev/null || true
  echo "e2e-vscode: FAILED; screenshots and logs in build-e2e-logs/" >&2
fi
exit "$status"

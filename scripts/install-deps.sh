#!/usr/bin/env bash
# Installs everything hone needs to build and test on Debian 12 (idempotent: re-running is cheap).
set -euo pipefail

PKGS=(
  build-essential cmake ninja-build ccache pkg-config git
  libboost1.81-dev nlohmann-json3-dev libcurl4-openssl-dev libsqlite3-dev libcli11-dev
  libgtest-dev libgmock-dev libtomlplusplus-dev
  libtorch-dev python3-torch python3-numpy python3-jsonschema
  pybind11-dev python3-dev
  bubblewrap libseccomp-dev
  libdtl-dev libkainjow-mustache-dev
  clang libclang-rt-14-dev
  neovim
)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all Debian packages present"
fi

if [ ! -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then
  echo "install-deps: warning: no CUDA toolkit found (nvcc); CUDA kernels cannot be built, CPU kernels can" >&2
fi

# The VS Code extension's npm packages (root package.json + lockfile): `npm ci` only when
# node_modules is missing or older than the lockfile.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "install-deps: warning: no node/npm; the VS Code extension (extension/) cannot be built" >&2
elif [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
  echo "install-deps: warning: node $(node --version) is older than 20; the VS Code extension needs node 20" >&2
else
  ROOT=$(cd "$(dirname "$0")/.." && pwd)
  if [ ! -f "$ROOT/node_modules/.package-lock.json" ] || [ "$ROOT/package-lock.json" -nt "$ROOT/node_modules/.package-lock.json" ]; then
    echo "install-deps: npm ci (extension)"
    (cd "$ROOT" && npm ci --no-audit --no-fund)
  else
    echo "install-deps: npm packages up to date"
  fi
  # The protocol's TypeScript generator/checks and the language server's end-to-end client.
  for dir in protocol/ts tests/lsp/e2e; do
    if [ ! -f "$ROOT/$dir/node_modules/.package-lock.json" ] || [ "$ROOT/$dir/package-lock.json" -nt "$ROOT/$dir/node_modules/.package-lock.json" ]; then
      echo "install-deps: npm ci ($dir)"
      (cd "$ROOT/$dir" && npm ci --no-audit --no-fund)
    fi
  done
fi

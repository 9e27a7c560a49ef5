#!/usr/bin/env bash
# Installs what hone needs, builds it and runs every test (README's test command; CI runs this).
# GPU tests skip visibly without a GPU; scripts/gpu-check.sh runs them on the H200.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DHONE_BUILD_FUZZERS=ON
cmake --build build -j "$(nproc)"
ctest --test-dir build --output-on-failure -j "$(nproc)"

# The VS Code extension: type-check, bundle, unit tests (npm packages from install-deps.sh).
npm run typecheck
npm run build
npm test

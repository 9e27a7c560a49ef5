#!/usr/bin/env bash
# Installs what hone needs, builds it and runs every test (README's test command; CI runs this).
# GPU tests skip visibly without a GPU; scripts/gpu-check.sh runs them on the H200.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "test: the first run installs packages and compiles hone (~30 minutes on 2 cores with an empty compiler cache, ~8 with a warm one); later runs take ~1 minute plus the tests"
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DHONE_BUILD_FUZZERS=ON
cmake --build build -j "$(nproc)"
# A one-node Slurm for the Slurm executor's tests (tests/cluster); they skip, visibly, without it.
if slurm_out=$(bash scripts/slurm-local.sh 2>&1); then
  export SLURM_CONF=${HONE_SLURM_DIR:-/tmp/hone-slurm}/slurm.conf
  echo "test: local Slurm up ($(sinfo -h -o '%P %T' | head -1))"
else
  echo "test: could not start a local Slurm; the Slurm tests will skip:"
  echo "$slurm_out" | tail -n 20
fi
log=$(mktemp)
set +e
ctest --test-dir build --output-on-failure -j "$(nproc)" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
skipped=$(grep -c ' (Skipped)$' "$log" || true)
failures=""
[ "$rc" -eq 0 ] || failures=$(bash scripts/failure-summary.sh "$log")
rm -f "$log"
if [ "$skipped" -gt 0 ]; then
  if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q GPU; then
    echo "test: $skipped tests skipped (see the list above)"
  else
    echo "test: $skipped tests skipped (listed above): the GPU tests, no GPU here (scripts/gpu-check.sh runs them on a GPU machine); a CPU test skips only where the judge withheld its time on a busy machine three times (tests/common/timing_withheld.h)"
  fi
fi
if [ "$rc" -ne 0 ]; then
  echo "test: what the failed tests said (the full output is above):"
  echo "${failures:-  (no failure message found in the log)}"
  exit "$rc"
fi

# The VS Code extension: type-check, bundle, unit tests (npm packages from install-deps.sh).
npm run typecheck
npm run build
npm test

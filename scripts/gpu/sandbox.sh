#!/usr/bin/env bash
# scripts/gpu/sandbox.sh: the sandbox on the H200 (Ubuntu 24.04, root, probably no bwrap): what
# detection finds there, the hostile suite, a CUDA program built and run confined, torch.cuda in
# a confined Python (GPU device nodes bound), the wrap overhead, and whether RLIMIT_AS/DATA caps
# leave CUDA working. Run by scripts/gpu-check.sh with HONE_BIN, PY and OUT set. Well under 3 min.
set -uo pipefail
cd "$(dirname "$0")/../.."
: "${HONE_BIN:?}" "${OUT:?}" "${PY:=python3}"
PYTHON=$(command -v "$PY")
fails=0
step() { printf '%-34s %s\n' "$1" "$2"; }

# CUDA creates /dev/nvidia-uvm on first use with a setuid helper, which a confined process cannot
# run: make sure it exists before the confined runs (hone's engine does the same at start).
$PYTHON -c 'import torch; torch.zeros(1, device="cuda"); torch.cuda.synchronize()' > "$OUT/sandbox-warmup.log" 2>&1
step "unconfined CUDA warm-up" "rc=$? $(ls /dev/nvidia* 2>/dev/null | tr '\n' ' ')"
ls -l /dev/nvidia* > "$OUT/sandbox-device-nodes.txt" 2>&1
command -v bwrap > /dev/null && step "bwrap" "present ($(bwrap --version))" || step "bwrap" "absent"

# Detection, every hostile candidate, nvcc builds, and the GPU tests (they skip without a GPU).
HONE_TEST_PYTHON=$PYTHON timeout 150 "$HONE_BIN/sandbox_tests" > "$OUT/sandbox_tests.log" 2>&1
rc=$?
[ $rc -eq 0 ] || fails=$((fails + 1))
step "sandbox_tests" "rc=$rc $(grep -E '^\[  (PASSED|FAILED|SKIPPED) *\] [0-9]+ tests?' "$OUT/sandbox_tests.log" | tr -s ' ' | tr '\n' ' ')"
grep -E '^sandbox: |^  (bwrap|namespaces|root):' "$OUT/sandbox_tests.log" | head -4
grep -E '^(GPU-OK|TORCH-CUDA)' "$OUT/sandbox_tests.log" | sort -u
grep -E '^\[  FAILED  \]|Failure$' "$OUT/sandbox_tests.log" | head -12

# The cost of confinement (budget: 50 ms per warm check).
timeout 60 "$HONE_BIN/sandbox_overhead" 100 "$PYTHON" > "$OUT/sandbox_overhead.txt" 2>&1
rc=$?
[ $rc -eq 0 ] || fails=$((fails + 1))
cat "$OUT/sandbox_overhead.txt"

# Evidence for the address-space policy: does torch.cuda start under RLIMIT_AS or RLIMIT_DATA?
for limit in as:64 as:512 data:32; do
  log="$OUT/sandbox-rlimit-${limit/:/-}G.log"
  prlimit "--${limit%%:*}=$((${limit##*:} << 30))" -- "$PYTHON" -c 'import torch; x = torch.ones(1 << 28, device="cuda"); torch.cuda.synchronize(); print("ok", x.sum().item())' > "$log" 2>&1
  step "torch.cuda under RLIMIT_${limit%%:*} ${limit##*:} GiB" "rc=$? $(tail -n 1 "$log" | cut -c1-100)"
done

step "sandbox section" "$([ $fails -eq 0 ] && echo PASS || echo "FAIL ($fails)")"
exit $fails

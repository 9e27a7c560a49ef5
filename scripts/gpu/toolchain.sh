#!/usr/bin/env bash
# scripts/gpu/toolchain.sh: the kernel toolchain on the H200 (run by scripts/gpu-check.sh with
# HONE_BUILD, HONE_BIN, PY and OUT set). 1) the toolchain tests that need the GPU machine: SASS
# facts through cuobjdump, the raw form built for the local GPU and run on it (with nvcc's front
# ends overlapped, and the overlap against one nvcc run), the cache's speed
# there; 2) `hone build` of a float4 kernel, text and JSON (SASS widths, occupancy); 3)
# bench/compile_latency: hone's raw and torch forms against load_inline, cold and cached, with
# hone's torch op checked on the GPU. Logs and JSON land in $OUT/toolchain/. About 3 minutes.
set -uo pipefail
cd "$(dirname "$0")/../.."
: "${HONE_BIN:?}" "${OUT:?}" "${PY:=python3}"
PYTHON=$(command -v "$PY")
mkdir -p "$OUT/toolchain"
export HONE_CACHE_DIR
HONE_CACHE_DIR=$(mktemp -d /tmp/hone-toolchain-cache.XXXXXX)
export HONE_PYTHON=$PYTHON
fails=0
step() { printf '%-34s %s\n' "$1" "$2"; }

echo "cuobjdump: $(command -v cuobjdump || echo none); nvidia-smi arch: $(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1)"

# 1. Tests. The CPU torch-form tests are left to the Debian machine (the torch form on the GPU is
# built, run and timed by the benchmark below); the LibTorch C++ test links Debian's LibTorch.
filter='KernelFactsTest.*:KernelForms.RawForm*:NvccOverlap.*:BuildCacheTest.HitIsFastAndHeaderEditInvalidates:Diagnostics.PtxasErrorPointsAtTheKernel:Diagnostics.NvccErrorsAndWarningWithUserLinesAndColumns'
timeout 240 "$HONE_BIN/toolchain_tests" --gtest_filter="$filter" --gtest_output="json:$OUT/toolchain/tests.json" \
  > "$OUT/toolchain/tests.log" 2>&1
rc=$?
step "toolchain_tests (GPU subset)" "rc=$rc $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/toolchain/tests.log" | tr '\n' ' ')"
[ $rc -eq 0 ] || { fails=$((fails + 1)); grep -E 'Failure|Expected|Which is|^\[  FAILED' "$OUT/toolchain/tests.log" | head -20; }
grep -q 'SKIPPED \].*KernelFactsTest' "$OUT/toolchain/tests.log" && echo "warning: SASS tests skipped"

# 2. hone build of a vectorised kernel for the local GPU (no --arch: nvidia-smi's answer).
WS=$(mktemp -d /tmp/hone-toolchain-gpu.XXXXXX)
cat > "$WS/copy4.cu" <<'EOF'
#include "hone.h"
__global__ void __launch_bounds__(256) copy4(const float4* __restrict__ x, float4* __restrict__ y, long n) {
  long i = blockIdx.x * 256L + threadIdx.x;
  if (i < n) y[i] = x[i];
}
void forward(hone::In<float> x, hone::Out<float> y, hone::Stream s) {
  long n = x.numel() / 4;
  copy4<<<(n + 255) / 256, 256, 0, s>>>(reinterpret_cast<const float4*>(x.data()), reinterpret_cast<float4*>(y.data()), n);
}
EOF
"$HONE_BIN/hone" build "$WS/copy4.cu" > "$OUT/toolchain/build_copy4.txt" 2>&1
rc=$?
"$HONE_BIN/hone" build "$WS/copy4.cu" --json > "$OUT/toolchain/build_copy4.json" 2>&1
step "hone build copy4.cu" "rc=$rc"
[ $rc -eq 0 ] || fails=$((fails + 1))
cat "$OUT/toolchain/build_copy4.txt"
grep -q "SASS  loads 128-bit" "$OUT/toolchain/build_copy4.txt" || { echo "expected 128-bit SASS loads"; fails=$((fails + 1)); }

# 3. Compile latency against load_inline (one run, same kernel).
timeout 420 "$PYTHON" bench/compile_latency --hone "$HONE_BIN/hone" --python "$PYTHON" \
  --arch "$(sed -n 's/.*"arch": "\(sm_[0-9a-z]*\)".*/\1/p' "$OUT/toolchain/build_copy4.json" | head -1)" \
  --json "$OUT/toolchain/compile_latency.json" > "$OUT/toolchain/compile_latency.txt" 2>&1
rc=$?
cat "$OUT/toolchain/compile_latency.txt"
step "bench/compile_latency" "rc=$rc"
[ $rc -eq 0 ] || fails=$((fails + 1))
grep -q "FAILED" "$OUT/toolchain/compile_latency.txt" && fails=$((fails + 1))

rm -rf "$WS" "$HONE_CACHE_DIR"
step "toolchain section" "$([ $fails -eq 0 ] && echo PASS || echo "FAIL ($fails)")"
[ $fails -eq 0 ]

#!/usr/bin/env bash
# scripts/gpu/lsp.sh: hone-server on the H200 (section of scripts/gpu-check.sh): the transcript
# tests through the real binary (nvcc diagnostics, lenses, hints, bad input), then
# bench/lsp_latency with 50 open CUDA kernels while their builds and a GPU check of relu.cu run:
# hover/lens/hint percentiles (p99 must stay under 20 ms) and the checked kernel's lens; the
# ServerCuda tests (any .cu file, projects, executeCommand, PTX and SASS views) and ServerCudaProfile
# (the SASS view's per-instruction counters after a profile).
set -uo pipefail
cd "$(dirname "$0")/../.."
rc=0

if [ -x "$HONE_BIN/lsp_transcript_tests" ]; then
  "$HONE_BIN/lsp_transcript_tests" --gtest_brief=1 > "$OUT/lsp_transcripts.log" 2>&1 || rc=1
  tail -n 3 "$OUT/lsp_transcripts.log"
else
  echo "lsp: no lsp_transcript_tests in $HONE_BIN (tests not built)"
fi

python_path=$(command -v "$PY")
# Issue 16: ordinary CUDA files and projects through the real server: nvcc diagnostics, facts
# (SASS load widths where cuobjdump is), compile_commands.json, executeCommand, the PTX and the
# SASS view (nvdisasm: ServerCuda.SassOfTheKernelUnderTheCursorMapsToItsSourceLines must pass here,
# not skip).
if [ -x "$HONE_BIN/lsp_tests" ]; then
  HONE_PYTHON="$python_path" timeout 300 "$HONE_BIN/lsp_tests" --gtest_filter='ServerCuda.*' > "$OUT/lsp_cuda.log" 2>&1 || rc=1
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[ +(OK|FAILED|SKIPPED) +\]" "$OUT/lsp_cuda.log" | tail -n 12
  # Issue 16 item 5: Profile of tasks/relu.cu through the server, then its SASS with the profile's
  # per-instruction counters (CUPTI SASS Metrics) beside the global load and store lines; must pass
  # here, not skip.
  HONE_PYTHON="$python_path" timeout 600 "$HONE_BIN/lsp_tests" --gtest_filter='ServerCudaProfile.*' \
    > "$OUT/lsp_sass_counters.log" 2>&1 || rc=1
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[ +(OK|FAILED|SKIPPED) +\]|Failure|Expected|Which is" "$OUT/lsp_sass_counters.log" | tail -n 20
  if grep -q "SKIPPED" "$OUT/lsp_sass_counters.log"; then echo "lsp: ServerCudaProfile skipped on the GPU machine"; rc=1; fi
fi
timeout 240 "$PY" bench/lsp_latency/lsp_latency.py --server "$HONE_BIN/hone-server" --device cuda \
  --python "$python_path" --docs 50 --requests 600 --json "$OUT/lsp_latency.json" > "$OUT/lsp_latency.log" 2>&1 || rc=1
cat "$OUT/lsp_latency.log" | tail -n 8
exit $rc

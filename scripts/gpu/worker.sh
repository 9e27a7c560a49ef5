#!/usr/bin/env bash
# GPU section of the eval worker (scripts/gpu-check.sh runs it on the H200): the worker's CPU-side
# unit, task and candidate-process tests under the GPU machine's torch (after the GPU suite), and
# tests/worker/gpu_suite.py: every CUDA adversarial case (tamperers in raw and torch form included,
# each followed by a plainly correct and a plainly wrong kernel in the same judge) and example
# through the real judge and its candidate processes (hone-runner, the python runner), an illegal
# address that ends only its candidate process, ReLU timing stability (call and device time), the
# torch.compile baseline. PASS: gpu_suite.py prints "all passed" and the unit tests pass.
# Full verdicts land in $OUT/worker/.
set -uo pipefail
cd "$(dirname "$0")/../.."
PYBIN=$(command -v "${PY:-python3}")
export HONE_TEST_PYTHON=$PYBIN
export HONE_WORKER_DIR=$PWD/server/worker
export HONE_TEST_CACHE=${HONE_TEST_CACHE:-/tmp/hone-worker-gpu-kernels}
export HONE_TEST_BUILD_FALLBACK=1
export HONE_TEST_ARCH=${HONE_TEST_ARCH:-sm_90}
# The judge's candidate processes: the native runner and the harness library of this build.
export HONE_RUNNER=${HONE_RUNNER:-$HONE_BIN/hone-runner}
export HONE_HARNESS_LIBRARY=${HONE_HARNESS_LIBRARY:-$HONE_BIN/../share/hone/lib/libhone_harness.so}
mkdir -p "$OUT/worker"
cd tests/worker

# One after the other: unit tests running beside the GPU suite load the CPUs and make its timing
# of launch-bound kernels noisy (2^20 floats: 6 us became 16 us in the run of 2026-12-01).
echo "== worker GPU suite"
# HONE_WORKER_STAGES="timing compile" runs only those stages of the suite; HONE_WORKER_UNITS=0
# skips the unit tests (a short call that re-reads one goal).
timeout 600 "$PYBIN" gpu_suite.py --stages ${HONE_WORKER_STAGES:-cases timing compile} 2> "$OUT/worker/gpu_suite.stderr"
rc_gpu=$?
[ $rc_gpu -eq 124 ] && echo "gpu_suite.py timed out"

rc_unit=0
if [ "${HONE_WORKER_UNITS:-1}" = 1 ]; then
  timeout 300 "$PYBIN" -m unittest test_units test_tasks test_candidates > "$OUT/worker/unittest.log" 2>&1
  rc_unit=$?
else
  echo "unit tests skipped (HONE_WORKER_UNITS=0)" > "$OUT/worker/unittest.log"
fi
echo "== worker unit and task tests (torch $("$PYBIN" -c 'import torch; print(torch.__version__)')): rc=$rc_unit"
tail -n 3 "$OUT/worker/unittest.log"
echo "worker section: unittests rc=$rc_unit, gpu suite rc=$rc_gpu"
[ $rc_unit -eq 0 ] && [ $rc_gpu -eq 0 ]

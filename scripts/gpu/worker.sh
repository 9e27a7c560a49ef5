#!/usr/bin/env bash
# GPU section of the eval worker (scripts/gpu-check.sh runs it on the H200): the worker's CPU-side
# unit and task tests under the GPU machine's torch (after the GPU suite), and
# tests/worker/gpu_suite.py: every CUDA adversarial case and example through the real worker, the
# restart after an illegal address, ReLU timing stability, the torch.compile baseline.
# Full verdicts land in $OUT/worker/.
set -uo pipefail
cd "$(dirname "$0")/../.."
PYBIN=$(command -v "${PY:-python3}")
export HONE_TEST_PYTHON=$PYBIN
export HONE_WORKER_DIR=$PWD/server/worker
export HONE_TEST_CACHE=${HONE_TEST_CACHE:-/tmp/hone-worker-gpu-kernels}
export HONE_TEST_BUILD_FALLBACK=1
export HONE_TEST_ARCH=${HONE_TEST_ARCH:-sm_90}
mkdir -p "$OUT/worker"
cd tests/worker

# One after the other: unit tests running beside the GPU suite load the CPUs and make its timing
# of launch-bound kernels noisy (2^20 floats: 6 us became 16 us in the run of 2026-12-01).
echo "== worker GPU suite"
timeout 420 "$PYBIN" gpu_suite.py 2> "$OUT/worker/gpu_suite.stderr"
rc_gpu=$?
[ $rc_gpu -eq 124 ] && echo "gpu_suite.py timed out"

timeout 150 "$PYBIN" -m unittest test_units test_tasks > "$OUT/worker/unittest.log" 2>&1
rc_unit=$?
echo "== worker unit and task tests (torch $("$PYBIN" -c 'import torch; print(torch.__version__)')): rc=$rc_unit"
tail -n 3 "$OUT/worker/unittest.log"
echo "worker section: unittests rc=$rc_unit, gpu suite rc=$rc_gpu"
[ $rc_unit -eq 0 ] && [ $rc_gpu -eq 0 ]

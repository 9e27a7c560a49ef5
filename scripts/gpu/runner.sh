#!/usr/bin/env bash
# scripts/gpu/runner.sh: hone-runner and libhone_harness on the H200 (run by scripts/gpu-check.sh
# with HONE_BIN, PY and OUT set): 1) runner_tests (the CPU protocol suite) there too; 2)
# runner_gpu_tests: the harness kernels called directly (read flush, hold released by a host write
# to registered memfd memory and its timeout, spin, marker), then hone-runner on cuda:0 with CUDA
# VMM arenas imported from POSIX fds: call, time mode call, time mode device held by the release
# word (and its timeout), records through CUPTI, launch and sticky errors; 3) the same GPU tests
# with the runner confined (new pid/mount/net/ipc/uts namespaces, fresh /proc, as nobody); 4)
# bench/runner_latency on the CPU and on cuda:0 (start to ready, call round trip, how many calls
# fit behind a held stream). Logs and JSON in $OUT/runner/. About a minute.
set -uo pipefail
cd "$(dirname "$0")/../.."
: "${HONE_BIN:?}" "${OUT:?}"
R=$OUT/runner
mkdir -p "$R"
fails=0
step() { printf '%-40s %s\n' "$1" "$2"; }
summary() { grep -E '^\[  (PASSED|FAILED|SKIPPED) *\] [0-9]+ tests?' "$1" | tr -s ' ' | tr '\n' ' '; }

run_suite() {  # name, log, skips (ok|fail), command...: on the GPU machine a GPU test that skips fails
  local name=$1 log=$2 skips=$3
  shift 3
  "$@" > "$log" 2>&1
  local rc=$?
  if [ $rc -eq 0 ] && { [ "$skips" = ok ] || ! grep -q '^\[  SKIPPED \]' "$log"; }; then
    step "$name" "PASS $(summary "$log")"
  elif [ $rc -eq 0 ]; then
    step "$name" "FAIL (tests skipped on the GPU machine) $(summary "$log")"
    fails=$((fails + 1))
  else
    step "$name" "FAIL rc=$rc $(summary "$log")"
    grep -E '^\[  FAILED  \]|Failure$|Which is|Expected' "$log" | head -20
    fails=$((fails + 1))
  fi
}

# The first CUDA use creates /dev/nvidia-uvm; a confined process cannot (see sandbox.sh).
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
run_suite "runner_tests (CPU protocol suite)" "$R/runner_tests.log" ok timeout 180 "$HONE_BIN/runner_tests"
run_suite "runner_gpu_tests (harness + cuda:0)" "$R/runner_gpu_tests.log" fail \
  timeout 300 "$HONE_BIN/runner_gpu_tests" --gtest_output="json:$R/runner_gpu_tests.json"
grep -E '^(hone-runner --device|mode (call|device):|\[prepared counters\])' "$R/runner_gpu_tests.log" | sed 's/^/  /'

confine="unshare --pid --net --mount --ipc --uts --fork --mount-proc setpriv --reuid=65534 --regid=65534 --clear-groups"
if [ "$(id -u)" = 0 ] && $confine true 2> "$R/confine_probe.err"; then
  HONE_RUNNER_WRAP=$confine run_suite "runner_gpu_tests, runner confined" "$R/runner_gpu_tests_confined.log" fail \
    timeout 300 "$HONE_BIN/runner_gpu_tests" --gtest_filter='GpuRunnerTest.*'
  grep -E '^(hone-runner --device|mode (call|device):)' "$R/runner_gpu_tests_confined.log" | sed 's/^/  /'
else
  step "runner_gpu_tests, runner confined" "FAIL (cannot confine here: $(tail -n 1 "$R/confine_probe.err"))"
  fails=$((fails + 1))
fi

for device in cpu cuda:0; do
  name=latency_${device/:/}
  if timeout 240 "$HONE_BIN/runner_latency" --device "$device" > "$R/$name.json" 2> "$R/$name.err"; then
    step "runner_latency --device $device" "PASS"
    ${PY:-python3} - "$R/$name.json" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
s, c, t = r["start_to_ready_ms"], r["call_round_trip_us"], r["time_100_calls_round_trip_ms"]
print(f"  start to ready p50 {s['p50']:.2f} ms (min {s['min']:.2f}); call round trip p50 {c['p50']:.1f} us "
      f"(p90 {c['p90']:.1f}); time op of 100 calls p50 {t['p50']:.2f} ms")
for d in r.get("held_depth", []):
    print(f"  held stream, {d['calls']} calls: enqueue {d['enqueue_ms']:.2f} ms, hold timed out: {d['spin_timed_out']}")
PYEOF
  else
    step "runner_latency --device $device" "FAIL $(tail -n 2 "$R/$name.err" | tr '\n' ' ')"
    fails=$((fails + 1))
  fi
done

step "runner section" "$([ $fails -eq 0 ] && echo PASS || echo "FAIL ($fails)")"
exit $fails

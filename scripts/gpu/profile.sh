#!/usr/bin/env bash
# The profile section of scripts/gpu-check.sh (issue 4) on the H200: libhone_cupti against known
# answers (vector add DRAM bytes, exact FMA FLOPs, 12.5% coalescing of a strided gather, kernel
# replay side effects; per-instruction SASS counts of the vector add; the coalescing, occupancy,
# bank-conflict, divergence, local-memory, tensor-core and small-grid suggestions), the DRAM bytes
# against ncu, the measured ceilings, `hone profile` end to end (suggestion source lines, SASS
# counters, the verdict against its schema) unconfined and inside hone's sandbox, and the
# profiling overhead. Gets HONE_BUILD, HONE_BIN, PY and OUT from
# the driver; prints a short summary with PASS/FAIL per check (tests/profile/gpu_checks.py); full
# JSON under $OUT/profile (fixtures/ holds recordings for tests/profile/fixtures: see its README.md).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
P=$OUT/profile
mkdir -p "$P/fixtures"
export PYTHONPATH=$HONE_BUILD/share/hone/worker
export HONE_CUPTI_LIBRARY=$HONE_BUILD/share/hone/lib/libhone_cupti.so
export HONE_CACHE_DIR=$P/cache
status=0
step() { echo "--- $1"; }

step "libhone_cupti: host pass counts (no GPU needed)"
timeout 120 "$HONE_BIN/cupti_host_tests" --gtest_brief=1 > "$P/cupti_host_tests.log" 2>&1 || status=1
tail -n 3 "$P/cupti_host_tests.log"

step "libhone_cupti on the GPU: known answers, suggestions, overhead"
# The SASS Metrics tests in a process of their own: on the H200 (2026-12-03) cuptiSassMetricsSetConfig
# answered CUPTI_ERROR_OUT_OF_MEMORY after the range-profiler tests had run in the same process,
# while `hone profile` (a fresh profiling child per profile) read the SASS counters fine.
HONE_PROFILE_OUT=$P/fixtures timeout 300 "$HONE_BIN/cupti_gpu_tests" --gtest_filter='-Sass.*' \
  --gtest_output="json:$P/cupti_gpu_tests.json" > "$P/cupti_gpu_tests.log" 2>&1 || status=1
HONE_PROFILE_OUT=$P/fixtures timeout 120 "$HONE_BIN/cupti_gpu_tests" --gtest_filter='Sass.*' \
  --gtest_output="json:$P/cupti_gpu_tests_sass.json" >> "$P/cupti_gpu_tests.log" 2>&1 || status=1
grep -E "^\[       OK \]|^\[  FAILED  \] [A-Za-z]+\.|^\[  SKIPPED \] [A-Za-z]+\.|^\[  (PASSED|FAILED) " "$P/cupti_gpu_tests.log" | head -n 40
# Counters set up ahead (issue 14): what the set-up costs off the critical path, what an idle
# prepared profiler costs the calls timed beside it, whether a second process can prepare.
grep -F "[prepared counters]" "$P/cupti_gpu_tests.log"
$PY "$ROOT/tests/profile/gpu_checks.py" cupti "$P" || status=1

step "DRAM bytes of the 2^26-float vector add: hone vs ncu --clock-control none"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
if [ -x "$NCU" ]; then
  timeout 240 "$NCU" --clock-control none --csv --page raw --print-units base \
    --metrics dram__bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum -k regex:vec_add \
    "$HONE_BIN/cupti_ncu_workload" > "$P/ncu_vec_add.csv" 2> "$P/ncu_vec_add.err" || status=1
else
  echo "ncu not found" > "$P/ncu_vec_add.err"
fi
$PY - "$P" <<'EOF' || status=1
import csv, io, json, os, sys
P = sys.argv[1]
try:
    ours = json.load(open(os.path.join(P, "fixtures", "vec_add_counters.json")))["dram_bytes"]
except Exception as e:
    print(f"no hone number for the vector add ({e})"); sys.exit(1)
text = open(os.path.join(P, "ncu_vec_add.csv")).read() if os.path.exists(os.path.join(P, "ncu_vec_add.csv")) else ""
lines = text.splitlines()
start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
if start is None:
    print("ncu gave no CSV:", open(os.path.join(P, "ncu_vec_add.err")).read()[-400:]); sys.exit(1)
rows = list(csv.DictReader(io.StringIO("\n".join(lines[start:]))))
rows = [r for r in rows if r.get("ID")]
ncu = float(rows[-1]["dram__bytes.sum"].replace(",", ""))
ratio = ours / ncu
compulsory = 12 * (1 << 26)
print(f"vec_add 2^26: hone {ours/1e6:.1f} MB, ncu {ncu/1e6:.1f} MB, hone/ncu {ratio:.4f}, hone/compulsory {ours/compulsory:.4f}"
      f" -> {'OK (within 5%)' if abs(ratio - 1) <= 0.05 else 'MISMATCH'}")
json.dump({"hone_dram_bytes": ours, "ncu_dram_bytes": ncu, "ratio": ratio}, open(os.path.join(P, "ncu_comparison.json"), "w"))
sys.exit(0 if abs(ratio - 1) <= 0.05 else 1)
EOF

step "measured ceilings (device-to-device copy, 8192^3 matmuls)"
timeout 180 $PY -m hone_worker.ceilings > "$P/ceilings.json" 2> "$P/ceilings.err" || status=1
$PY -c "
import json,sys
c=json.load(open('$P/ceilings.json'))
m=c['matmul_flops_per_s']
print('copy %.2f TB/s; matmul TFLOP/s: %s' % (c['dram_copy_bytes_per_s']/1e12, ', '.join('%s %.0f' % (k, v/1e12) for k, v in m.items())))
" 2>&1 || { status=1; tail -n 5 "$P/ceilings.err"; }
mkdir -p "$P/cache/ceilings" && $PY -c "
import json; c=json.load(open('$P/ceilings.json'))
import re; open('$P/cache/ceilings/'+re.sub(r'[^A-Za-z0-9]','_',c['device_name'])+'.json','w').write(json.dumps(c))" 2>/dev/null

step "hone profile end to end (vector add, strided gather unconfined; vector add in the sandbox)"
echo "driver: $(grep -E 'RmProfilingAdminOnly' /proc/driver/nvidia/params 2>/dev/null || echo 'RmProfilingAdminOnly not readable')"
for run in vec_add strided_gather vec_add_sandboxed; do
  k=${run%_sandboxed}
  # Only the first run profiles the reference too (its torch.compile baseline costs a minute here).
  case $run in
    vec_add) extra=(--no-sandbox) ;;
    strided_gather) extra=(--no-sandbox --no-baseline) ;;
    vec_add_sandboxed) extra=(--no-baseline) ;;
  esac
  start=$(date +%s.%N)
  timeout 240 "$HONE_BIN/hone" profile "$ROOT/tests/profile/gpu/$k.cu" --python "$(command -v $PY)" --json \
    --plot "$P/$run.roofline.svg" "${extra[@]}" > "$P/hone_profile_$run.json" 2> "$P/hone_profile_$run.err"
  rc=$?
  end=$(date +%s.%N)
  $PY "$ROOT/tests/profile/gpu_checks.py" verdict "$run" "$P/hone_profile_$run.json" "$rc" \
    "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" || status=1
  # The verdict against verdict.schema.json, whose profile field is a $ref to profile.schema.json.
  tail -n 1 "$P/hone_profile_$run.json" | $PY "$ROOT/tests/profile/validate_profile_verdict.py" "$ROOT/protocol/schema" \
    > "$P/schema_$run.log" 2>&1
  case $? in
    0) echo "  verdict schema: PASS" ;;
    2) echo "  verdict schema: skipped ($PY has no jsonschema; tests/profile validates a recorded verdict)" ;;
    *) echo "  verdict schema: FAIL: $(tail -n 2 "$P/schema_$run.log")"; status=1 ;;
  esac
done
echo "profile section: $([ $status -eq 0 ] && echo OK || echo 'FAILURES (see the logs under '$P')')"
exit $status

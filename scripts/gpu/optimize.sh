#!/usr/bin/env bash
# scripts/gpu/optimize.sh: the optimizer on the H200 (run by scripts/gpu-check.sh with HONE_BIN, PY
# and OUT set): the built-in tuner (no LLM) on the deliberately badly-tuned CUDA example
# tasks/tune_transpose.cu (at a GPU-sized 8192 x 4096 matrix) under a 60 s budget in a mode-700 folder (as root, candidates run as
# nobody), then `hone runs` and `hone export`. Prints the original and the re-verified best time,
# the speedups and candidates verified per minute; the JSON result, the export and the logs land in
# $OUT/optimize/. About 2 minutes. The tuner runs after one `hone check` of the kernel (the cached
# baselines a user has by then); that check's time is printed.
set -uo pipefail
cd "$(dirname "$0")/../.."
: "${HONE_BIN:?}" "${OUT:?}" "${PY:=python3}"
PYTHON=$(command -v "$PY")
mkdir -p "$OUT/optimize"
fails=0
step() { printf '%-30s %s\n' "$1" "$2"; }

# The tuner in a workspace WS (a copy of the example and its task) under a budget; sets rc.
run_tuner() {
  cp tasks/tune_transpose.cu tasks/tune_transpose.py "$1/"
  # At the example's own shape (1024 x 768, sized for CI's CPU) the kernel is launch-bound on the
  # H200 (12 us) and every configuration is within noise (1.008x in the run of 2026-12-01): the
  # GPU run uses a GPU-sized matrix, 8192 x 4096 (128 MB each way), where tuning matters.
  sed -i -e 's/^rows = .*/rows = 8192/' -e 's/^cols = .*/cols = 4096/' "$1/tune_transpose.py"
  # As a user does before pressing Optimize: one `hone check` of the kernel, which measures the
  # task's eager and torch.compile baselines once per (task, GPU, torch) and caches them (the
  # compile takes ~18 s on the H200). The tuner's rate below is then the search's own; the check's
  # seconds are printed beside it.
  check_start=$SECONDS
  (cd "$1" && timeout 90 "$HONE_BIN/hone" check tune_transpose.cu --device cuda --python "$PYTHON" --json \
    > "$OUT/optimize/check_first.json" 2> "$OUT/optimize/check_first.log")
  step "hone check first (baselines)" "rc=$? $((SECONDS - check_start))s"
  start=$SECONDS
  (cd "$1" && timeout 170 "$HONE_BIN/hone" optimize tune_transpose.cu --device cuda --no-llm --python "$PYTHON" \
    --budget "$2" --samples 4 --rounds 20 --json > "$OUT/optimize/tune_transpose.json" 2> "$OUT/optimize/progress.log")
  rc=$?
  wall=$((SECONDS - start))
  step "hone optimize (tuner, cuda)" "rc=$rc wall=${wall}s in $1 (mode $(stat -c %a "$1"))"
}

# First in a folder only root may enter (mktemp -d, as a user's private folder): candidates run as
# nobody and must still build and run (the sandbox stages the kernel's files). Should that fail,
# quickly (an environment error), once more in a world-readable folder so the tuner's numbers are
# measured anyway.
WS=$(mktemp -d /tmp/hone-optimize-gpu.XXXXXX)
run_tuner "$WS" 60s
if [ $rc -ne 0 ]; then
  fails=$((fails + 1))
  step "private folder (mode 700)" "FAILED: $(grep -m1 -i 'error' "$OUT/optimize/progress.log" | cut -c1-160)"
  cp "$OUT/optimize/progress.log" "$OUT/optimize/progress-private.log"
fi
if [ $rc -ne 0 ] && [ "$wall" -lt 40 ]; then
  rm -rf "$WS"
  WS=$(mktemp -d /tmp/hone-optimize-gpu-open.XXXXXX)
  chmod 755 "$WS"
  run_tuner "$WS" 90s
  [ $rc -eq 0 ] || fails=$((fails + 1))
elif [ $rc -eq 0 ]; then
  step "private folder (mode 700)" "ok (hone ran as $(id -un))"
fi
tail -n 5 "$OUT/optimize/progress.log"
cd "$WS"

"$PYTHON" - "$OUT/optimize/tune_transpose.json" <<'EOF'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print("no JSON result:", e)
    sys.exit(0)
def num(x, unit=""):
    return "?" if x is None else f"{x:.4g}{unit}"
if "error" in r:
    print("error:", r["error"], r.get("detail", ""))
    sys.exit(0)
b, best = r.get("baseline") or {}, r.get("best")
n, minutes = r.get("candidates", 0), max(r.get("elapsed_s", 0), 1e-9) / 60
verified = sum(v for k, v in r.get("counts", {}).items() if k not in ("pending", "no_code", "llm_error"))
print(f"status {r.get('status')} ({r.get('stop_reason')}), {r.get('rounds')} rounds, {n} candidates: {r.get('counts')}")
print(f"original kernel: {b.get('status')} p50 {num(b.get('p50_us'), ' us')} ({num((b.get('speedup') or {}).get('eager'), 'x')} eager)")
if best:
    s = best["speedup"]
    print(f"best: candidate {best['candidate']} p50 {num(best['p50_us'], ' us')} re-verified; "
          f"{num(s.get('kernel'), 'x')} the original, {num(s.get('eager'), 'x')} eager, {num(s.get('compile'), 'x')} torch.compile; "
          f"flags {best.get('flags')}")
else:
    print("best: none (no verified candidate beat the original)")
rate = verified / minutes
print(f"candidates verified per minute: {rate:.1f} ({verified} in {r.get('elapsed_s', 0):.0f} s); "
      f"issue 13 goal >= 60: {'PASS' if rate >= 60 else 'FAIL'}")
print("diff:\n" + (r.get("diff") or "(none)"))
gain = ((best or {}).get("speedup") or {}).get("kernel") or 0
print(f"tuner improvement over the badly-tuned start: {gain:.2f}x (goal >= 1.2x): {'PASS' if gain >= 1.2 else 'FAIL'}")
sys.exit(0 if gain >= 1.2 and rate >= 60 else 1)
EOF
[ $? -eq 0 ] || fails=$((fails + 1))

"$HONE_BIN/hone" runs > "$OUT/optimize/runs.txt" 2>&1
step "hone runs" "rc=$? $(sed -n 3p "$OUT/optimize/runs.txt" | cut -c1-80)"
"$HONE_BIN/hone" export 1 -o "$OUT/optimize/export.jsonl" 2> "$OUT/optimize/export.log"
rc=$?
step "hone export 1" "rc=$rc $(cat "$OUT/optimize/export.jsonl" 2>/dev/null | wc -l) lines"
[ $rc -eq 0 ] || fails=$((fails + 1))
cp "$WS/.hone/hone.db" "$OUT/optimize/hone.db" 2>/dev/null
cd / && rm -rf "$WS"
step "optimize section" "$([ $fails -eq 0 ] && echo PASS || echo "FAIL ($fails)")"
exit $fails

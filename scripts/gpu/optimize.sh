#!/usr/bin/env bash
# scripts/gpu/optimize.sh: the optimizer on the H200 (run by scripts/gpu-check.sh with HONE_BIN, PY
# and OUT set): the built-in tuner (no LLM) on the deliberately badly-tuned CUDA example
# tasks/tune_transpose.cu under a 100 s budget, then `hone runs` and `hone export`. Prints the
# original and the re-verified best time, the speedups and candidates verified per minute; the
# JSON result, the export and the logs land in $OUT/optimize/. About 2 minutes.
set -uo pipefail
cd "$(dirname "$0")/../.."
: "${HONE_BIN:?}" "${OUT:?}" "${PY:=python3}"
PYTHON=$(command -v "$PY")
mkdir -p "$OUT/optimize"
WS=$(mktemp -d /tmp/hone-optimize-gpu.XXXXXX)
cp tasks/tune_transpose.cu tasks/tune_transpose.py "$WS/"
fails=0
step() { printf '%-30s %s\n' "$1" "$2"; }

cd "$WS"
start=$SECONDS
timeout 170 "$HONE_BIN/hone" optimize tune_transpose.cu --device cuda --no-llm --python "$PYTHON" \
  --budget 100s --samples 4 --rounds 20 --json > "$OUT/optimize/tune_transpose.json" 2> "$OUT/optimize/progress.log"
rc=$?
wall=$((SECONDS - start))
step "hone optimize (tuner, cuda)" "rc=$rc wall=${wall}s"
[ $rc -eq 0 ] || fails=$((fails + 1))
tail -n 5 "$OUT/optimize/progress.log"

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
print(f"candidates verified per minute: {verified / minutes:.1f} ({verified} in {r.get('elapsed_s', 0):.0f} s)")
print("diff:\n" + (r.get("diff") or "(none)"))
EOF

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

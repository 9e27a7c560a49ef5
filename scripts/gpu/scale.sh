#!/usr/bin/env bash
# scripts/gpu/scale.sh: the GPU pool on the lent H200 (a section of scripts/gpu-check.sh, which sets
# HONE_BIN, PY and OUT; issue 19). 1) the pool's tests (fake GPUs: CPU judges, on 16 cores);
# 2) `hone check --gpus all --verify-on all` of tasks/relu.cu: the verdict names the real GPU
# (index, name, UUID); 3) bench/scale/scale.py on the GPU (verified candidates per hour, one GPU:
# the lent kind has one) and on fake GPUs (the pool's scaling with 4 CPU judges). Logs in
# $OUT/scale/. About 100 s.
set -uo pipefail
cd "$(dirname "$0")/../.."
: "${HONE_BIN:?}" "${OUT:?}" "${PY:=python3}"
PYTHON=$(command -v "$PY")
export HONE_PYTHON=$PYTHON
mkdir -p "$OUT/scale"
fails=0
step() { printf '%-44s %s\n' "$1" "$2"; }
nvidia-smi -L > "$OUT/scale/gpus.txt" 2>&1
step "GPUs" "$(grep -c '^GPU ' "$OUT/scale/gpus.txt")"

# 1. The pool's tests: spreading, a judge killed mid-check, verify-on per kind, same verdicts.
timeout 90 "$HONE_BIN/pool_tests" > "$OUT/scale/pool_tests.log" 2>&1
rc=$?
step "pool_tests (fake GPUs)" "rc=$rc $(grep -cE '^\[       OK' "$OUT/scale/pool_tests.log") ok"
[ $rc -eq 0 ] || { fails=$((fails + 1)); grep -E 'Failure|Which is|^\[  FAILED' "$OUT/scale/pool_tests.log" | head; }
grep -E "fake GPUs: " "$OUT/scale/pool_tests.log"

# 2. A real GPU in the pool: the verdict names it.
timeout 60 "$HONE_BIN/hone" check tasks/relu.cu --gpus all --verify-on all --baselines eager --json \
  > "$OUT/scale/verify_on.jsonl" 2> "$OUT/scale/verify_on.err"
rc=$?
step "hone check --gpus all --verify-on all" "rc=$rc"
[ $rc -eq 0 ] || { fails=$((fails + 1)); tail -n 5 "$OUT/scale/verify_on.err"; }
"$PYTHON" - "$OUT/scale/verify_on.jsonl" <<'PYEOF' || fails=$((fails + 1))
import json, sys
verdicts = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
for v in verdicts:
    d = v["device"]
    print(f"  {d.get('name')} index {d.get('index')} uuid {d.get('uuid')}: {v['status']}")
ok = verdicts and all(v["device"].get("uuid", "").startswith("GPU-") and "index" in v["device"] for v in verdicts)
print("  verdict names its GPU (index, name, UUID):", "yes" if ok else "NO")
sys.exit(0 if ok else 1)
PYEOF

# 3. Verified candidates per hour.
timeout 90 "$PYTHON" bench/scale/scale.py --hone "$HONE_BIN/hone" --device cuda --python "$PYTHON" --count "${HONE_SCALE_COUNT:-12}" \
  --json "$OUT/scale/scale_cuda.json" > "$OUT/scale/scale_cuda.log" 2>&1
rc=$?
step "bench/scale (cuda)" "rc=$rc"
[ $rc -eq 0 ] || fails=$((fails + 1))
tail -n 4 "$OUT/scale/scale_cuda.log"
timeout 90 "$PYTHON" bench/scale/scale.py --hone "$HONE_BIN/hone" --device cpu --python "$PYTHON" --count "${HONE_SCALE_COUNT:-12}" --fake 4 \
  --json "$OUT/scale/scale_fake.json" > "$OUT/scale/scale_fake.log" 2>&1
rc=$?
step "bench/scale (4 fake GPUs on the CPU)" "rc=$rc"
[ $rc -eq 0 ] || fails=$((fails + 1))
tail -n 4 "$OUT/scale/scale_fake.log"
exit $fails

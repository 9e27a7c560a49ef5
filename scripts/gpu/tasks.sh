#!/usr/bin/env bash
# scripts/gpu/tasks.sh: the quick smoke of a GPU call (a section of scripts/gpu-check.sh, which sets
# HONE_BIN, PY and OUT): `hone check` of every CUDA example in tasks/ (raw form in hone-runner,
# torch form in the python runner, both baselines timed by the python runner), each of which must
# be correct with a time, plus the adversarial side-stream cases, which must be rejected. About
# 2 minutes; the eval section does the same and much more when a call has the time.
set -uo pipefail
cd "$(dirname "$0")/../.."
: "${HONE_BIN:?}" "${OUT:?}" "${PY:=python3}"
mkdir -p "$OUT/tasks"
timeout "${HONE_TASKS_LIMIT:-150}" "$HONE_BIN/hone" check tasks/*.cu --device cuda --json \
  > "$OUT/tasks/checks.jsonl" 2> "$OUT/tasks/checks.err"
echo "hone check tasks/*.cu rc=$?"
A=tests/adversarial/cuda
timeout 90 "$HONE_BIN/hone" check $A/side_stream.cu $A/side_stream_torch.cu $A/slow_clock.cu --task tasks/relu.py \
  --device cuda --baselines none --json >> "$OUT/tasks/checks.jsonl" 2>> "$OUT/tasks/checks.err"
echo "hone check (cheats) rc=$?"
"$PY" - "$OUT/tasks/checks.jsonl" <<'PYEOF'
import json, sys
bad = 0
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
for v in lines:
    k = v.get("kernel")
    path = (k.get("path", "?") if isinstance(k, dict) else str(k))
    cheat = "/adversarial/" in path
    status = v.get("status") or "error: " + str(v.get("error", ""))[:200]
    t = v.get("timing") or {}
    dev = (t.get("device") or {}).get("p50_us")
    ok = status == "rejected" if cheat else (status == "correct" and bool(t))
    bad += not ok
    flags = ",".join(f.get("id", "") for f in v.get("flags") or [])
    print(f"  {'PASS' if ok else 'FAIL'} {path.split('/')[-1]}: {status} call p50 {t.get('p50_us') or 0:.2f} us"
          f" device p50 {dev or 0:.2f} us [{flags}]" + ("" if status == "correct" else f": {str(v.get('reason', ''))[:240]}"))
print(f"{len(lines)} verdicts, {bad} not as expected")
sys.exit(1 if bad or not lines else 0)
PYEOF

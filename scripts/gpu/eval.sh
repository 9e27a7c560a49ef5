#!/usr/bin/env bash
# scripts/gpu/eval.sh: the eval client, the engine and `hone check` on the H200 (a section of
# scripts/gpu-check.sh, which sets HONE_BIN, PY and OUT). 1) eager baselines of ten KernelBench
# level-1 tasks beside KernelBench's published H100 numbers (while the CUDA examples build in
# parallel); 2) `hone check` of every CUDA example in tasks/, JSON validated against the schema;
# 3) the engine's GPU tests and the raw-form CUDA cases of the adversarial manifest through the
# engine (the worker's section runs every case through the worker); 4) bench/check_latency.
# Logs and JSON land in $OUT/eval/. About 3 minutes.
set -uo pipefail
cd "$(dirname "$0")/../.."
: "${HONE_BIN:?}" "${OUT:?}" "${PY:=python3}"
PYTHON=$(command -v "$PY")
export HONE_PYTHON=$PYTHON
mkdir -p "$OUT/eval"
fails=0
step() { printf '%-40s %s\n' "$1" "$2"; }
KB=/work/shared/kernelbench
TASKS="1_Square_matrix_multiplication_ 9_Tall_skinny_matrix_multiplication_ 19_ReLU 23_Softmax 26_GELU_ 33_BatchNorm 36_RMSNorm_ 40_LayerNorm 47_Sum_reduction_over_a_dimension 95_CrossEntropyLoss"

# The CUDA examples build in the background (torch-form builds take ~40 s each on one core).
ls tasks/*.cu | xargs -P 8 -I{} "$HONE_BIN/hone" build {} --python "$PYTHON" > "$OUT/eval/prebuild.log" 2>&1 &
prebuild=$!

# 1. KernelBench level-1 eager baselines, one process (one worker) for all ten tasks.
kb_args=()
for t in $TASKS; do kb_args+=("$KB/level1/$t.py"); done
timeout 240 "$HONE_BIN/hone" task "${kb_args[@]}" --device cuda --time eager --json > "$OUT/eval/kernelbench_eager.jsonl" \
  2> "$OUT/eval/kernelbench_eager.err"
rc=$?
step "KernelBench level-1 eager baselines" "rc=$rc"
[ $rc -eq 0 ] || { fails=$((fails + 1)); tail -n 5 "$OUT/eval/kernelbench_eager.err"; }
"$PYTHON" - "$OUT/eval/kernelbench_eager.jsonl" "$KB/baselines/H100_Modal/baseline_time_torch.json" <<'EOF'
import json, os, sys
published = json.load(open(sys.argv[2]))["level1"]
print(f"{'task':<42} {'H200 hone p50':>14} {'H100 KernelBench':>17} {'ratio':>6}")
for line in open(sys.argv[1]):
    r = json.loads(line)
    name = os.path.basename(r.get("task", "?"))
    t = (r.get("reference") or {}).get("eager")
    h100 = published.get(name, {}).get("mean")
    ours = f"{t['p50_us'] / 1000:.3f} ms" if t else "n/a"
    ratio = f"{h100 / (t['p50_us'] / 1000):.2f}" if t and h100 else "-"
    print(f"{name:<42} {ours:>14} {(str(h100) + ' ms') if h100 else '-':>17} {ratio:>6}")
print("(KernelBench: mean of 100 CUDA-event trials, no L2 flush; hone: median, L2 flushed before each call)")
EOF
wait $prebuild
step "prebuild of tasks/*.cu" "rc=$?"

# 2. The CUDA examples: all must be correct; the verdicts must match the schema. torch.compile
# baselines for relu only (the others: eager), to keep the section short.
timeout 300 "$HONE_BIN/hone" check tasks/relu.cu --device cuda --json > "$OUT/eval/examples.jsonl" 2> "$OUT/eval/examples.err"
rc1=$?
others=$(ls tasks/*.cu | grep -v '^tasks/relu.cu$')
timeout 300 "$HONE_BIN/hone" check $others --device cuda --baselines eager --json >> "$OUT/eval/examples.jsonl" 2>> "$OUT/eval/examples.err"
rc2=$?
step "hone check tasks/*.cu" "rc=$rc1/$rc2"
[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] || { fails=$((fails + 1)); tail -n 5 "$OUT/eval/examples.err"; }
"$PYTHON" tests/eval/validate_verdict.py protocol/schema/verdict.schema.json < "$OUT/eval/examples.jsonl" \
  || fails=$((fails + 1))
"$PYTHON" - "$OUT/eval/examples.jsonl" <<'EOF'
import json, os, sys
for line in open(sys.argv[1]):
    v = json.loads(line)
    t, s, f = v.get("timing") or {}, v.get("speedup") or {}, v.get("floor") or {}
    fmt = lambda x: "-" if x is None else f"{x:.2f}x"
    print(f"{os.path.basename(v['kernel']['path']):<22} {v['status']:<14} p50 {t.get('p50_us', float('nan')):9.1f} us"
          f"  eager {fmt(s.get('eager'))}  compile {fmt(s.get('compile'))}  floor {f.get('floor_us', 0):.1f} us"
          f"  flags {[x['id'] for x in v.get('flags', [])]}  {v.get('reason', '')[:80]}")
EOF

# 3. Engine GPU tests and the raw-form CUDA adversarial cases through the engine.
timeout 200 "$HONE_BIN/engine_check_tests" --gtest_filter='EngineGpu.*' > "$OUT/eval/engine_gpu.log" 2>&1
rc=$?
step "engine_check_tests EngineGpu.*" "rc=$rc $(grep -cE '^\[       OK' "$OUT/eval/engine_gpu.log") ok"
[ $rc -eq 0 ] || { fails=$((fails + 1)); grep -E 'Failure|Which is|^\[  FAILED' "$OUT/eval/engine_gpu.log" | head; }
timeout 300 "$HONE_BIN/adversarial_tests" --gtest_filter='Manifest/*cuda*:-*torch*' > "$OUT/eval/adversarial_cuda.log" 2>&1
rc=$?
step "adversarial (raw-form CUDA cases)" "rc=$rc $(grep -cE '^\[       OK' "$OUT/eval/adversarial_cuda.log") ok"
[ $rc -eq 0 ] || { fails=$((fails + 1)); grep -E '^\[  FAILED|reason lacks|Which is' "$OUT/eval/adversarial_cuda.log" | head -20; }

# 4. The latency benchmark against a KernelBench-style evaluation (load_inline in a fresh process).
timeout 300 "$PYTHON" bench/check_latency/check_latency.py --hone "$HONE_BIN/hone" --device cuda --python "$PYTHON" \
  --json "$OUT/eval/check_latency.json" > "$OUT/eval/check_latency.log" 2>&1
rc=$?
step "bench/check_latency" "rc=$rc"
[ $rc -eq 0 ] || fails=$((fails + 1))
cat "$OUT/eval/check_latency.log" | tail -n 12

echo "eval section: $fails failing step(s)"
[ $fails -eq 0 ]

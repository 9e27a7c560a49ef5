#!/usr/bin/env bash
# scripts/gpu/attention.sh: the attention family (tasks/attention, issue 17) on the H200, run by
# scripts/gpu-check.sh with HONE_BIN, PY and OUT set. In a scratch workspace: every variant's
# kernel builds (registers, spills); is correct at the real shapes (`hone check`, eager and
# torch.compile baselines) and at the CPU twins' odd shapes (partial tiles, head_dim 64 and 128),
# while a kernel with the bias not multiplied by log2(e) is incorrect; the built-in tuner improves
# it (`hone optimize --no-llm`, re-verified); `hone profile` of some; the optimizer's prompt for
# relative_position carries the score_mod, the exp2 note, the H200's specs and profile counters
# (a local fake model server); then bench/attention/benchmark.py times eager, SDPA, compiled
# flex_attention and hone's start and tuned kernels. Prints PASS/FAIL per step, then the table.
# Settings: HONE_ATTN_VARIANTS (default: all seven), HONE_ATTN_BASELINES (the checks' --baselines: all),
# HONE_ATTN_TUNE_BUDGET (20s per variant),
# HONE_ATTN_PROFILE (variants to profile: causal), HONE_ATTN_REPS (10), HONE_ATTN_SKIP (steps left out
# to fit a call: any of probe, check, edge, sm90, tune, profile, prompt, bench; each is named SKIPPED in the
# results; with tune skipped, HONE_ATTN_TUNED_FROM names a folder of earlier `hone optimize --json`
# results, with check skipped HONE_ATTN_CHECKS_FROM a file of earlier `hone check --json` lines, both
# relative to the checkout, for the benchmark's rows). Each step prints the
# section's elapsed time. Logs and JSON in $OUT/attention/. About 6 to 7 minutes with the defaults,
# most of it torch.compile of the seven references (once, then cached) and the seven tuner runs.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
: "${HONE_BIN:?}" "${OUT:?}" "${PY:=python3}"
PYTHON=$(command -v "$PY")
HONE=$HONE_BIN/hone
A=$OUT/attention
mkdir -p "$A/tuned"
VARIANTS=${HONE_ATTN_VARIANTS:-relative_position alibi causal softcap sliding_window causal_fp32 prefix_lm}
BUDGET=${HONE_ATTN_TUNE_BUDGET:-20s}
PROFILE=${HONE_ATTN_PROFILE:-causal}
SECTION_START=$SECONDS
fails=0
results=()
record() {  # name PASS|FAIL detail
  results+=("$(printf '%-40s %s  %s' "$1" "$2" "$3")")
  printf '%-40s %s  %s\n' "$1" "$2" "$3"
  [ "$2" = PASS ] || fails=$((fails + 1))
}
elapsed() { echo "$((SECONDS - SECTION_START))s"; }
skipped() {  # step: true (and recorded) when HONE_ATTN_SKIP names it
  case " ${HONE_ATTN_SKIP:-} " in *" $1 "*) results+=("$(printf '%-40s %s' "$1" "SKIPPED (HONE_ATTN_SKIP)")"); return 0 ;; esac
  return 1
}

WS=$(mktemp -d /tmp/hone-attention.XXXXXX)
cp -r tasks/attention "$WS/attention"
cd "$WS"

# 0. The sm90 path's building blocks, each product alone (bench/probes/wgmma_probe.cu), on a 9.0 GPU.
if ! skipped probe && nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | grep -q '^9\.0'; then
  NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  "$NVCC" -gencode=arch=compute_90a,code=sm_90a -O2 -std=c++17 -I "$ROOT/tasks/attention" -I "$ROOT/server/include" \
    "$ROOT/bench/probes/wgmma_probe.cu" -o "$A/wgmma_probe" > "$A/wgmma_probe.log" 2>&1 \
    && timeout 60 "$A/wgmma_probe" >> "$A/wgmma_probe.log" 2>&1
  rc=$?
  cat "$A/wgmma_probe.log"
  record "wgmma probe (sm90 operand layouts)" "$([ $rc -eq 0 ] && echo PASS || echo FAIL)" "$(elapsed)"
  # When only the other reading of V's descriptor offsets matches, the sm90 step below runs with
  # the two offsets swapped in its copies (and says so), so one call shows whether that is all.
  if grep -q "O = P V .*LBO 1024 SBO .*MATCH" "$A/wgmma_probe.log" && ! grep -q "O = P V .*SBO 1024) .*MATCH" "$A/wgmma_probe.log"; then
    SM90_SWAP_V=1
  fi
fi

# 1. Builds: registers and spills of each head-dim instance.
build_summary=$("$PYTHON" - "$HONE" $VARIANTS <<'EOF'
import json, subprocess, sys
hone, names, bad = sys.argv[1], sys.argv[2:], 0
for n in names:
    r = subprocess.run([hone, "build", f"attention/{n}.cu", "--json"], capture_output=True, text=True)
    try:
        c = json.loads(r.stdout)["compile"]
    except Exception:
        print(f"  {n}: no build report: {r.stderr[-300:]}"); bad += 1; continue
    def label(name):  # attention_kernel<T, D, ...> (WMMA) or attention_kernel_sm90<D, ...> (wgmma)
        args = name.split('<')[1].split(',')
        return f"sm90 d{args[0].strip()}" if "_sm90<" in name else f"wmma d{args[1].strip()}"
    ks = ", ".join(f"{label(k['name'])}: {k['registers']} regs, "
                   f"{k['spill_store_bytes'] + k['spill_load_bytes']} B spilled" for k in c.get("kernels", []))
    print(f"  {n}: {'built' if c['ok'] else 'FAILED'} in {c['seconds']:.1f} s; {ks}")
    bad += not c["ok"]
sys.exit(bad)
EOF
)
rc=$?
echo "$build_summary"
record "build (nvcc, the GPU's arch)" "$([ $rc -eq 0 ] && echo PASS || echo FAIL)" "$(elapsed)"

# 2. The real shapes: verdicts, hone's own times, eager and torch.compile baselines (cached for
# the tuner, whose budget would otherwise go to compiling the reference).
kernels=""
for v in $VARIANTS; do kernels="$kernels attention/$v.cu"; done
if skipped check; then
  [ -n "${HONE_ATTN_CHECKS_FROM:-}" ] && cp "$ROOT/$HONE_ATTN_CHECKS_FROM" "$A/checks.jsonl" \
    && echo "checks from $HONE_ATTN_CHECKS_FROM"
else
timeout 600 "$HONE" check $kernels --json --baselines "${HONE_ATTN_BASELINES:-all}" > "$A/checks.jsonl" 2> "$A/checks.log"
"$PYTHON" - "$A/checks.jsonl" <<'EOF'
import json, sys
bad = 0
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
for v in lines:
    k = v.get("kernel")
    name = (k.get("path", "?") if isinstance(k, dict) else str(k)).split("/")[-1]
    if "error" in v:
        print(f"  {name}: error: {v['error'][:300]}"); bad += 1; continue
    t, s = v.get("timing") or {}, v.get("speedup") or {}
    err = max([x.get("max_abs_error") or 0 for x in (v.get("correctness") or {}).get("trials", [])] or [0])
    print(f"  {name}: {v['status']} {(t.get('p50_us') or 0) / 1e3:.3f} ms, {s.get('eager') or 0:.2f}x eager, "
          f"{s.get('compile') or 0:.2f}x torch.compile, max error {err:.3g}"
          + ("" if v["status"] == "correct" else f": {v.get('reason', '')[:300]}"))
    bad += v["status"] != "correct"
sys.exit(bad if lines else 1)
EOF
rc=$?
record "correct at the real shapes" "$([ $rc -eq 0 ] && echo PASS || echo FAIL)" "$(elapsed)"
fi

# 3. The CPU twins' shapes on the GPU (sequences of 197, 300, 400, 600: partial tiles), and the
# relative-position kernel with the bias added without log2(e), which must be incorrect.
if ! skipped edge; then
mkdir -p edge
edge=""
for v in $VARIANTS; do
  mkdir -p "edge/$v"
  cp "attention/$v.cu" attention/*.cuh "edge/$v/"
  cp "attention/cpu/$v.py" "edge/$v/"
  edge="$edge edge/$v/$v.cu"
done
mkdir -p edge/wrong
cp attention/*.cuh attention/cpu/relative_position.py edge/wrong/
sed 's/static_cast<float>(q_idx - kv_idx) \* hone_attention::kLog2e/static_cast<float>(q_idx - kv_idx)/' \
  attention/relative_position.cu > edge/wrong/relative_position.cu
timeout 300 "$HONE" check $edge edge/wrong/relative_position.cu --json --baselines none > "$A/edge.jsonl" 2> "$A/edge.log"
"$PYTHON" - "$A/edge.jsonl" <<'EOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
bad = 0
for v in lines:
    k = v.get("kernel")
    path = k.get("path", "?") if isinstance(k, dict) else str(k)
    want = "incorrect" if "/wrong/" in path else "correct"
    status = v.get("status") or "error: " + v.get("error", "")[:200]
    shape = "x".join(map(str, ((v.get("signature") or {}).get("outputs") or [{}])[0].get("shape", [])))
    print(f"  {'/'.join(path.split('/')[-2:])} {shape}: {status} (expected {want})"
          + (f": {v.get('reason', '')[:200]}" if status not in ("correct", "error") and "reason" in v else ""))
    bad += status != want
sys.exit(bad if lines else 1)
EOF
rc=$?
record "odd shapes correct, wrong bias incorrect" "$([ $rc -eq 0 ] && echo PASS || echo FAIL)" "$(elapsed)"
fi

# 3b. The other path of the bf16 variants on a 9.0 GPU (the files default to the sm90 path,
# WGMMA = true, since it passed on the H200 on 2026-12-05: this checks the WMMA kernel, WGMMA =
# false; a file set to false gets the sm90 path), at the real shapes and the odd ones, with its
# times beside the default kernel's from the check step.
if ! skipped sm90 && nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | grep -q '^9\.0'; then
sm90=""
for v in $VARIANTS; do
  grep -q 'WGMMA = \(true\|false\);' "attention/$v.cu" || continue
  for where in real odd; do
    mkdir -p "sm90/$where/$v"
    cp attention/*.cuh "sm90/$where/$v/"
    if [ -n "${SM90_SWAP_V:-}" ]; then  # V's descriptor: LBO 1024 (8-key groups), SBO the panel stride
      sed -i 's/descriptor(v_tile + kk \* 16 \* 128, kBlockN \* 128, 1024)/descriptor(v_tile + kk * 16 * 128, 1024, kBlockN * 128)/' \
        "sm90/$where/$v/flash_attention_sm90.cuh"
      grep -q 'kk \* 16 \* 128, 1024, kBlockN' "sm90/$where/$v/flash_attention_sm90.cuh" || echo "  (the swap did not apply)"
    fi
    if [ $where = real ]; then cp "attention/$v.py" "sm90/$where/$v/"; else cp "attention/cpu/$v.py" "sm90/$where/$v/"; fi
    sed 's/WGMMA = true;/WGMMA = @;/; s/WGMMA = false;/WGMMA = true;/; s/WGMMA = @;/WGMMA = false;/' "attention/$v.cu" > "sm90/$where/$v/$v.cu"
    sm90="$sm90 sm90/$where/$v/$v.cu"
  done
done
timeout 420 "$HONE" check $sm90 --json --baselines eager > "$A/sm90.jsonl" 2> "$A/sm90.log"
"$PYTHON" - "$A/sm90.jsonl" "$A/checks.jsonl" <<'EOF'
import json, os, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
wmma = {}
if os.path.exists(sys.argv[2]):
    for l in open(sys.argv[2]):
        if l.strip():
            v = json.loads(l)
            wmma[os.path.basename((v.get("kernel") or {}).get("path", ""))] = (v.get("timing") or {}).get("p50_us")
bad = 0
for v in lines:
    path = (v.get("kernel") or {}).get("path", "?")
    status = v.get("status") or "error: " + v.get("error", "")[:200]
    shape = "x".join(map(str, ((v.get("signature") or {}).get("outputs") or [{}])[0].get("shape", [])))
    names = [k.get("name", "") for k in ((v.get("compile") or {}).get("kernels") or [])]
    t = (v.get("timing") or {}).get("p50_us")
    base = wmma.get(os.path.basename(path)) if "/real/" in path else None
    note = f", {t / 1e3:.3f} ms" if t else ""
    note += f" (the default kernel {base / 1e3:.3f} ms: {base / t:.2f}x)" if t and base else ""
    eager = (v.get("speedup") or {}).get("eager")
    note += f", {eager:.2f}x eager" if eager else ""
    print(f"  {'/'.join(path.split('/')[-3:])} {shape}: {status}{note}; sm90 kernel built: "
          f"{any('_sm90<' in n for n in names)}" + (f": {v.get('reason', '')[:300]}" if status != "correct" else ""))
    bad += status != "correct"
sys.exit(bad if lines else 1)
EOF
rc=$?
record "the other path (WGMMA flipped) correct${SM90_SWAP_V:+ (with the V descriptor offsets swapped: fix the repo)}" \
  "$([ $rc -eq 0 ] && echo PASS || echo FAIL)" "$(elapsed)"
fi

# 4. The built-in tuner on each variant, re-verified on fresh seeds (or, with tune skipped, the
# results of an earlier run from HONE_ATTN_TUNED_FROM, for a benchmark that did not fit its call).
TUNE_VARIANTS=$VARIANTS
if skipped tune; then
  TUNE_VARIANTS=""
  if [ -n "${HONE_ATTN_TUNED_FROM:-}" ]; then
    cp "$ROOT/$HONE_ATTN_TUNED_FROM"/*.json "$A/tuned/"
    echo "tuned kernels from $HONE_ATTN_TUNED_FROM: $(cd "$A/tuned" && echo *.json)"
  fi
fi
for v in $TUNE_VARIANTS; do
  timeout 300 "$HONE" optimize "attention/$v.cu" --no-llm --budget "$BUDGET" --samples 4 --rounds 50 --json \
    > "$A/tuned/$v.json" 2> "$A/tuned/$v.log"
  line=$("$PYTHON" - "$A/tuned/$v.json" <<'EOF'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"FAIL no JSON result ({e})"); sys.exit()
b, best = r.get("baseline") or {}, r.get("best")
gain = ((best or {}).get("speedup") or {}).get("kernel") or 0
knobs = " ".join(l.split("//")[0].strip().replace("constexpr int ", "") for l in (best or {}).get("source", "").splitlines() if "hone: tune" in l)
# PASS: a re-verified gain above the run-to-run spread of millisecond device times (under 1%).
print(f"{'PASS' if gain >= 1.01 else 'FAIL'} {r.get('candidates')} candidates in {r.get('elapsed_s', 0):.0f} s; "
      f"start {(b.get('p50_us') or 0) / 1e3:.3f} ms, best {((best or {}).get('p50_us') or 0) / 1e3:.3f} ms re-verified = "
      f"{gain:.2f}x ({knobs} {' '.join((best or {}).get('flags') or [])})")
EOF
)
  record "tuner: $v" "${line%% *}" "${line#* } at $(elapsed)"
done

# 5. hone profile of some starting kernels: the counters the optimizer's prompt carries.
skipped profile && PROFILE=""
for v in $PROFILE; do
  timeout 180 "$HONE" profile "attention/$v.cu" --no-baseline --json > "$A/profile_$v.json" 2> "$A/profile_$v.log"
  rc=$?
  line=$("$PYTHON" - "$A/profile_$v.json" <<'EOF'
import json, sys
try:
    p = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"no JSON ({e})"); sys.exit()
prof = p.get("profile") or p
cand = prof.get("candidate") or {}
roof = cand.get("roofline") or {}
own = [k for k in cand.get("kernels", []) if k.get("own")]
d = (own[0].get("derived") or {}) if own else {}
keys = ("tensor_instructions", "achieved_occupancy_pct", "dram_bytes", "l2_hit_pct", "shared_wavefronts_per_request")
print(f"{roof.get('bound')}-bound, {roof.get('pct_of_roofline') or 0:.1f}% of roofline; "
      + ", ".join(f"{k} {d[k]:.4g}" for k in keys if isinstance(d.get(k), (int, float)))
      + "; suggestions: " + ", ".join(s.get("id", "?") for s in prof.get("suggestions", [])[:5]))
EOF
)
  record "profile: $v" "$([ $rc -eq 0 ] && echo PASS || echo FAIL)" "$line at $(elapsed)"
done

# 6. The optimizer's prompt on the GPU, captured by a local fake model server.
if ! skipped prompt; then
mkdir -p llm
"$PYTHON" - attention/relative_position.cu llm/script.json <<'EOF'
import json, sys
source = open(sys.argv[1]).read()
json.dump({"rules": [{"match": None, "response": {"content": "```cuda\n" + source + "```\n", "usage": True}}]},
          open(sys.argv[2], "w"))
EOF
"$PYTHON" "$ROOT/tests/optimize/fake_llm_server.py" llm/script.json llm/requests.jsonl > llm/port.txt 2> llm/server.log &
server=$!
for _ in $(seq 50); do grep -q PORT llm/port.txt 2>/dev/null && break; sleep 0.1; done
port=$(awk '/PORT/ {print $2}' llm/port.txt)
timeout 240 "$HONE" optimize attention/relative_position.cu --llm-url "http://127.0.0.1:$port/v1" --llm-model fake \
  --samples 1 --rounds 1 --budget 200s --json > "$A/llm_optimize.json" 2> "$A/llm_optimize.log"
kill "$server" 2>/dev/null
wait "$server" 2>/dev/null
cp llm/requests.jsonl "$A/llm_requests.jsonl" 2>/dev/null
line=$("$PYTHON" - llm/requests.jsonl "$A/llm_prompt.txt" <<'EOF'
import json, sys
try:
    prompt = json.loads(open(sys.argv[1]).readline())["body"]["messages"][-1]["content"]
except Exception as e:
    print(f"FAIL no request reached the model server ({e})"); sys.exit()
open(sys.argv[2], "w").write(prompt)
want = {"score_mod": "return score + (q_idx - kv_idx)", "exp2 note": "qk * qk_scale + (q_idx - kv_idx) * 1.44269504",
        "H200 specs": "## The GPU: ", "bf16 peak": "BF16 tensor", "profile": "## Profile"}
missing = [k for k, s in want.items() if s not in prompt]
counters = ("achieved_occupancy_pct", "dram_bytes", "tensor_instructions", "l2_hit_pct", "global_load_efficiency_pct")
want["counters"] = "kernel counters"
if not any(f" {c}: " in prompt for c in counters):
    missing.append("counters")
print(("PASS" if not missing else "FAIL") + f" {len(prompt)} characters; has " + ", ".join(k for k in want if k not in missing)
      + (f"; MISSING {', '.join(missing)}" if missing else ""))
EOF
)
record "prompt: score_mod, exp2, specs, counters" "${line%% *}" "${line#* } at $(elapsed)"
fi

# 7. The benchmark (the table is printed last).
if ! skipped bench; then
"$HONE" specs --json > "$A/specs.json" 2> /dev/null
if ! grep -q '"matmul_flops_per_s"' "$A/specs.json"; then timeout 120 "$HONE" specs --measure --json > "$A/specs.json" 2> "$A/specs.log"; fi
(cd "$ROOT/bench/attention" && timeout 600 "$PYTHON" benchmark.py --hone "$HONE" --out "$A" --tuned "$A/tuned" \
  --checks "$A/checks.jsonl" --specs "$A/specs.json" --variants "$(echo $VARIANTS | tr ' ' ',')" \
  --reps "${HONE_ATTN_REPS:-10}") > "$A/benchmark.log" 2>&1
rc=$?
grep -E "^[a-z_0-9]+: [0-9.]+ s$" "$A/benchmark.log"
record "benchmark (hone's kernels correct)" "$([ $rc -eq 0 ] && echo PASS || echo FAIL)" "$(elapsed)"
"$PYTHON" - "$A/attention_bench.json" <<'EOF'
import json, sys
try:
    rows = json.load(open(sys.argv[1]))["rows"]
except Exception as e:
    print(f"  no benchmark result ({e})"); sys.exit()
for r in rows:
    if r.get("correct") is False or r.get("error"):
        print(f"  note: {r['variant']} {r['contender']}: " + (r.get("error") or "output outside the task's tolerance"))
EOF
fi

cd / && rm -rf "$WS"
echo "=== attention: $([ $fails -eq 0 ] && echo PASS || echo "FAIL ($fails)") in $(elapsed)"
for r in "${results[@]}"; do echo "$r"; done
echo
[ -f "$A/benchmark.log" ] && { cat "$A/attention_table.md" 2>/dev/null || { echo "no table:"; tail -n 20 "$A/benchmark.log"; }; }
exit $fails

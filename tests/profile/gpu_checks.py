"""The checks scripts/gpu/profile.sh prints on the H200, one PASS/FAIL line each; exits 1 if any failed.
  gpu_checks.py cupti DIR                   the cupti_gpu_tests recordings and results under DIR
  gpu_checks.py verdict NAME FILE RC SECONDS  one `hone profile --json` run (NAME: vec_add,
                                            strided_gather, vec_add_sandboxed)"""
import json
import os
import sys

GTESTS = [
    ("Report.RegisterHeavyKernelGetsTheOccupancySuggestion", "register-heavy kernel gets occupancy_registers"),
    ("Report.GatherGetsTheCoalescingSuggestion", "strided gather gets uncoalesced_loads"),
    ("Report.TransposeGetsTheBankConflictSuggestion", "naive transpose gets bank_conflicts"),
    ("Report.DivergentLocalKernelGetsDivergenceAndLocalMemorySuggestions",
     "divergent local-memory kernel gets divergent_branches + local_memory"),
    ("Report.Bf16MatmulOnCudaCoresGetsTensorCoreAndSmallGridSuggestions",
     "bf16 matmul on CUDA cores gets tensor_cores_unused + small_grid"),
    ("Sass.VecAddCountsEveryInstructionOncePerWarpAndLeavesNothingBehind",
     "vector add SASS counts: each instruction once per warp, in every thread"),
]


def cupti(folder):
    ok = True
    try:
        with open(os.path.join(folder, "fixtures", "fma_loop_counters.json"), encoding="utf-8") as f:
            c = json.load(f)
        exact = c["flops"] == c["known_flops"]
        print(f"FMA loop FLOP count: counted {c['flops']:.0f}, known {c['known_flops']:.0f} -> "
              f"{'PASS (exact)' if exact else 'FAIL'}")
        ok &= exact
    except (OSError, KeyError, ValueError) as e:
        print(f"FMA loop FLOP count: FAIL (no recording: {e})")
        ok = False
    results = {}
    try:
        with open(os.path.join(folder, "cupti_gpu_tests.json"), encoding="utf-8") as f:
            for suite in json.load(f)["testsuites"]:
                for t in suite["testsuite"]:
                    results[f"{suite['name']}.{t['name']}"] = t
    except (OSError, KeyError, ValueError) as e:
        print(f"no gtest JSON: {e}")
    for name, what in GTESTS:
        t = results.get(name)
        passed = t is not None and not t.get("failures") and t.get("result") == "COMPLETED"
        print(f"{what}: {'PASS' if passed else 'FAIL' if t else 'FAIL (did not run)'}")
        ok &= passed
    return ok


def verdict(name, path, rc, seconds):
    try:
        with open(path, encoding="utf-8") as f:
            v = json.loads(f.read().strip().splitlines()[-1])
    except (OSError, ValueError, IndexError) as e:
        print(f"{name}: FAIL: no JSON (exit {rc}): {e}; see {path[:-5]}.err")
        return False
    if "error" in v:
        print(f"{name}: FAIL: exit {rc}: {v['error']}")
        return False
    p = v.get("profile") or {}
    cand = p.get("candidate") or {}
    own = [k for k in cand.get("kernels", []) if k.get("own")]
    dram = sum(k.get("derived", {}).get("dram_bytes", 0) for k in own)
    rl = cand.get("roofline") or {}
    counters = cand.get("counters") or {}
    mode = (v.get("sandbox") or {}).get("mode")
    print(f"{name}: exit {rc}, {v.get('status')}, sandbox {mode}, wall {seconds:.1f} s; own DRAM {dram / 1e6:.1f} MB, "
          f"{rl.get('bound')}-bound {rl.get('pct_of_roofline', 0):.1f}% of roofline; counters {counters.get('available')} "
          f"via {counters.get('source')} {counters.get('code', '')} {counters.get('message', '')[:200]}; "
          f"replay {p.get('overhead', {}).get('replay_seconds', 0):.2f} s")
    for s in p.get("suggestions", []):
        loc = s.get("location") or {}
        print(f"  suggestion {s['id']} at {os.path.basename(loc.get('file', '?'))}:{loc.get('line')} "
              f"({loc.get('scope')}, lines {loc.get('lines')})")
    for n in p.get("notes", []):
        print(f"  note: {n[:400]}")
    sass = p.get("sass") or {}
    rows = sum(len(k.get("instructions", [])) for k in sass.get("kernels", []))
    print(f"  per-instruction (SASS) counters: {sass.get('available')}, {rows} instructions of "
          f"{len(sass.get('kernels', []))} kernel(s), metrics {sass.get('metrics')} {sass.get('code', '')} "
          f"{sass.get('message', '')[:200]}")
    ok = rc == 0 and bool(p)
    if name == "vec_add":
        sass_ok = sass.get("available") is True and rows > 0
        print(f"  SASS counters unconfined: {'PASS' if sass_ok else 'FAIL'}")
        ok &= sass_ok
    if name == "strided_gather":
        s = next((s for s in p.get("suggestions", []) if s["id"] == "uncoalesced_loads"), None)
        loc = (s or {}).get("location") or {}
        line_ok = loc.get("scope") == "line" and loc.get("line") == 7 and loc.get("file", "").endswith("strided_gather.cu")
        print(f"  coalescing suggestion at the load's line (strided_gather.cu:7, PTX .loc): {'PASS' if line_ok else 'FAIL'}")
        ok &= line_ok
    if name == "vec_add_sandboxed":
        avail = counters.get("available") is True
        print(f"  counters inside the sandbox ({mode}): "
              f"{'PASS (available)' if avail else 'FAIL (' + str(counters.get('code')) + '; see the notes)'}")
        ok &= avail
    return ok


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "cupti":
        ok = cupti(sys.argv[2])
    elif len(sys.argv) == 6 and sys.argv[1] == "verdict":
        ok = verdict(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

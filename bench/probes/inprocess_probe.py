"""bench/probes/inprocess_probe.py (issue 14, call time within 10% of plain events): are hone's call
time and plain events the same method, once the process is the same? Across processes the H100
VM's host path moves up to 2x (affinity_probe, confine_probe: plain events from Python around one
relu read 15.6-28 us in fresh children, `hone task` 36-54 us), so comparing hone's runner with a
separate process's events measures the lottery as much as the method.

Here both are read in one process. The probe writes, per case, a task whose Model and a KernelBench
answer whose ModelNew (the same computation) each measure plain events around their own forward
when they are built and HONE_INPROCESS_OUT names a file (bench/probes/inprocess_hook.py: 300 calls
after 0.1 s of warm-up, read flush, the RNG state left as it was). `hone check ANSWER --task TASK --baselines eager
--no-sandbox` then builds ModelNew in the candidate's runner and Model in the reference's runner
(and in the judge) and times both with its own `time` ops in those same processes; a fresh child
builds Model once more (the cross-process number; the judge's own builds of Model measure nothing). Printed per case and round: hone's call p50
against the events of the runner that hone timed in (pid and argv tell them apart), and against
the fresh child's.

  python3 bench/probes/inprocess_probe.py --hone build/bin/hone --out /tmp/inprocess [--rounds 2] [--json F]
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from inprocess_hook import HOOK, environment, rows_of, where  # noqa: E402

INPUTS = '''def get_inputs():
    return [torch.randn({shape})]


def get_init_inputs():
    return []


def _compute(x):
    return {expression}
'''

TASK = INPUTS + '''

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        _plain_events(self, "Model", get_inputs)

    def forward(self, x):
        return _compute(x)
'''

ANSWER = INPUTS + '''

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        _plain_events(self, "ModelNew", get_inputs)

    def forward(self, x):
        return _compute(x)
'''

CASES = {"relu_2p16": ("64, 1024", "torch.relu(x)"), "relu_2p22": ("4096, 1024", "torch.relu(x)"),
         "relu_scale_256x2048": ("256, 2048", "torch.relu(x) * 1.5")}

CHILD = '''import importlib.util, sys
spec = importlib.util.spec_from_file_location("task", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
module.Model()
'''


def log(*parts) -> None:
    print(*parts, flush=True)


def write_case(work: str, name: str) -> tuple:
    shape, expression = CASES[name]
    task, answer = os.path.join(work, f"{name}.py"), os.path.join(work, f"{name}_answer.py")
    with open(task, "w") as f:
        f.write(HOOK + TASK.format(shape=shape, expression=expression))
    with open(answer, "w") as f:
        f.write(HOOK + ANSWER.format(shape=shape, expression=expression))
    return task, answer


def p50(summary) -> float:
    return float(summary["p50_us"]) if isinstance(summary, dict) and "p50_us" in summary else float("nan")


def one(args, work: str, name: str, k: int) -> dict:
    task, answer = write_case(work, name)
    out = os.path.join(work, f"{name}.{k}.rows")
    env = {**os.environ, **environment(out, args.device),
           "HONE_CACHE_DIR": os.path.join(work, f"cache-{name}-{k}")}
    started = time.perf_counter()
    p = subprocess.run([args.hone, "check", answer, "--task", task, "--device", args.device, "--baselines", "eager",
                        "--no-sandbox", "--json", "--python", args.python], capture_output=True, text=True, env=env,
                       timeout=240, stdin=subprocess.DEVNULL)
    verdict = next((json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")), {})
    subprocess.run([args.python, "-c", CHILD, task], env=env, timeout=120, capture_output=True)
    rows = rows_of(out)
    result = {"case": name, "round": k, "rc": p.returncode, "status": verdict.get("status"),
              "reason": verdict.get("reason"), "seconds": round(time.perf_counter() - started, 1),
              "hone_candidate_call": p50((verdict.get("timing") or {}).get("call")),
              "hone_candidate_device": p50((verdict.get("timing") or {}).get("device")),
              "hone_reference_call": p50(((verdict.get("baselines") or {}).get("eager") or {}).get("call")),
              "hone_reference_device": p50(((verdict.get("baselines") or {}).get("eager") or {}).get("device")),
              "rows": rows}
    if p.returncode not in (0, 1) or not verdict:
        result["stderr"] = p.stderr[-600:]
    return result


def events(rows: list, tag: str, place: str) -> list:
    return [r["p50_us"] for r in rows if r.get("tag") == tag and where(r) == place and "p50_us" in r]


def show(r: dict) -> None:
    rows = r["rows"]
    cand, ref, child = events(rows, "ModelNew", "runner"), events(rows, "Model", "runner"), events(rows, "Model", "child")
    fmt = lambda xs: "/".join(f"{x:.2f}" for x in xs) or "-"
    ratio = lambda a, xs: f"{a / xs[-1]:.2f}" if xs and a == a else "-"
    log(f"{r['case']} round {r['round']}: {r['status']} ({r['seconds']} s)")
    log(f"  candidate: hone call {r['hone_candidate_call']:.2f} us (device {r['hone_candidate_device']:.2f}); "
        f"plain events in its runner {fmt(cand)} -> {ratio(r['hone_candidate_call'], cand)}")
    log(f"  reference: hone call {r['hone_reference_call']:.2f} us (device {r['hone_reference_device']:.2f}); "
        f"plain events in its runner {fmt(ref)} -> {ratio(r['hone_reference_call'], ref)}")
    log(f"  plain events in a fresh child: {fmt(child)}")
    for row in rows:
        if "error" in row:
            log(f"  error in {where(row)} ({row.get('tag')}): {row['error']}")
    if r.get("stderr"):
        log("  stderr: " + r["stderr"].replace("\n", "\n    "))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hone", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--device", default="cuda", help="cuda, or cpu (the host clock around each call after a 64 MB host read, as hone times the CPU)")
    ap.add_argument("--cases", nargs="*", default=list(CASES))
    ap.add_argument("--json")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    results = []
    for k in range(1, args.rounds + 1):
        for name in args.cases:
            r = one(args, args.out, name, k)
            show(r)
            results.append(r)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

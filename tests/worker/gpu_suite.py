"""The judge's GPU checks, run by scripts/gpu/worker.sh on the H200: every CUDA case of the
adversarial manifest, raw and torch form, tamperers included (cheats caught, honest kernels and
flagged cases pass, and the kernels of each case's `then` list, checked right after it by the
same judge, get their verdicts), a sticky CUDA error that ends only its candidate process (the
judge goes on, no restart), and timing stability on ReLU tasks of 2^20, 2^24 and 2^28 floats
against the numbers in FACTS.md (the eager reference's device time in separate processes within
3%; its call time printed beside). Prints a summary; writes every verdict as
JSON under $OUT/worker/."""
import argparse
import concurrent.futures
import json
import os
import sys
import time
from pathlib import Path

from common import ADVERSARIAL, TASKS, case_statuses
from kernel_build import BuildError, build
from worker_client import WorkerClient

OUT = Path(os.environ.get("OUT", "/tmp/hone-gpu-out")) / "worker"
RELU_SIZES = {20: (256, 4096), 24: (4096, 4096), 28: (65536, 4096)}
FACTS_RELU_P50_US = {20: "6.05/6.18/6.24", 24: "36.13/36.29/36.29", 28: "509.8/509.3/509.4"}
PEAK_DRAM_BYTES_PER_S = 4.8e12
NOISY_SPREAD = 0.2  # hone_worker/timing.py's: a timing whose (p90 - p10) / p50 exceeds it is flagged noisy


class Session:
    def __init__(self) -> None:
        self.worker = WorkerClient()
        self.failures = []

    def fresh(self) -> WorkerClient:
        if self.worker.process.poll() is not None:
            self.worker = WorkerClient()
        return self.worker

    def save(self, name: str, data) -> None:
        path = OUT / f"{name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1))


def run_cases(session: Session, device: str) -> None:
    cases = [c for c in json.loads((ADVERSARIAL / "cases.json").read_text())["cases"] if c["device"] == device]
    started = time.perf_counter()
    follow_ups = sorted({t["file"] for c in cases for t in c.get("then", [])})
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        builds = {c["name"]: pool.submit(build, ADVERSARIAL / c["file"], device) for c in cases}
        builds.update({f: pool.submit(build, ADVERSARIAL / f, device) for f in follow_ups})
        concurrent.futures.wait(builds.values())
    print(f"built {len(cases)} {device} kernels in {time.perf_counter() - started:.0f} s")
    print(f"{'case':34} {'expected':14} {'got':14} {'p50 us':>9}  verdict")
    for case in cases:
        try:
            built = builds[case["name"]].result()
        except BuildError as exc:
            session.failures.append(case["name"])
            session.save(f"cases/{case['name']}", {"build_error": str(exc)})
            print(f"{case['name']:34} {'/'.join(case_statuses(case)):14} {'build error':14} {'':>9}  FAIL")
            continue
        worker = session.fresh()
        judge = worker.process.pid
        task = os.path.normpath(ADVERSARIAL / case["task"])
        reply = worker.call("check", {"task": task, "device": device, "kernel": built.kernel_params()}, timeout=300)
        result = reply.get("result", {})
        flags = [f["id"] for f in result.get("flags", [])]
        ok = (result.get("status") in case_statuses(case) and (result.get("status") == "correct" or case["reason"] in
                                                                result.get("reason", ""))
              and all(f in flags for f in case["flags"]) and not result.get("restart_required"))
        after = []
        for then in case.get("then", []):
            next_reply = worker.call("check", {"task": task, "device": device,
                                               "kernel": builds[then["file"]].result().kernel_params()}, timeout=300)
            got = next_reply.get("result", {})
            after.append({"file": then["file"], "status": got.get("status"), "reason": got.get("reason")})
            ok = ok and got.get("status") == then["status"] and then.get("reason", "") in (got.get("reason") or "")
        ok = ok and worker.process.poll() is None and worker.process.pid == judge  # the judge went on
        session.save(f"cases/{case['name']}", {"case": case, "reply": reply, "then": after,
                                               "stderr_tail": worker.stderr[-40:]})
        if not ok:
            session.failures.append(case["name"])
        p50 = result.get("timing", {}).get("p50_us")
        got = result.get("status") or reply.get("error", {}).get("code", "?")
        print(f"{case['name']:34} {'/'.join(case_statuses(case)):14} {got:14} {p50 if p50 is None else round(p50, 2)!s:>9}  "
              f"{'ok' if ok else 'FAIL'}  {(result.get('reason') or reply.get('error', {}).get('message', ''))[:110]}"
              f"{'  flags=' + ','.join(flags) if flags else ''}")
        for a in after:
            print(f"{'  then ' + os.path.basename(a['file']):34} {'':14} {a['status'] or '?':14} {'':>9}  "
                  f"{(a['reason'] or '')[:110]}")


def relu_task(power: int) -> Path:
    rows, cols = RELU_SIZES[power]
    path = OUT / "tasks" / f"relu_2_{power}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# ReLU over 2^{power} floats (KernelBench level1/19_ReLU's model, this size).\n"
                    "import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n"
                    "    def forward(self, x):\n        return torch.relu(x)\n\n\n"
                    f"def get_inputs():\n    return [torch.rand({rows}, {cols})]\n\n\n"
                    "def get_init_inputs():\n    return []\n")
    return path


def run_timing(session: Session, device: str) -> None:
    relu = build(TASKS / ("relu.cu" if device == "cuda" else "relu.cpp"), device)
    print("\nReLU timing stability (eager reference: 3 requests in one worker, + 1 in another worker for 2^24; "
          "hone's relu.cu; FACTS.md's torch.relu p50 with a 256 MB flush)")
    print(f"{'size':6} {'eager call p50 us (runs)':34} {'spread':>7} {'p10..p90 %':>10} {'relu.cu p50':>11} "
          f"{'floor us':>8} {'FACTS p50 us':>18}")
    for power in RELU_SIZES if device == "cuda" else [20]:
        task = relu_task(power)
        params = {"task": str(task), "device": device, "mode": "eager"}
        runs = [session.fresh().result("time_reference", params, timeout=300)["timing"] for _ in range(3)]
        if power == 24:  # and once from another process
            other = WorkerClient()
            runs.append(other.result("time_reference", params, timeout=300)["timing"])
            other.close()
        check = session.fresh().call("check", {"task": str(task), "device": device, "kernel": relu.kernel_params()},
                                     timeout=300)
        timing = check.get("result", {}).get("timing") or {}
        call, dev = timing.get("call") or {}, timing.get("device") or {}
        print(f"       relu.cu call p50 {call.get('p50_us', float('nan')):.2f} us (spread {call.get('spread', 0):.1%}), "
              f"device p50 {dev.get('p50_us', float('nan')):.2f} us (spread {dev.get('spread', 0):.1%}), "
              f"settled in {timing.get('settle_ms') or 0:.0f} ms, {timing.get('verified_calls')} of "
              f"{timing.get('timed_calls')} timed calls verified, bounds {timing.get('bounds')}")
        session.save(f"timing/relu_2_{power}", {"eager": runs, "relu_cu": check})
        p50s = [r["p50_us"] for r in runs]  # call time (the timing's top-level fields)
        spread = (max(p50s) - min(p50s)) / min(p50s)
        inner = max((r["p90_us"] - r["p10_us"]) / r["p50_us"] for r in runs)
        # What a user trusts is an unflagged number of the time speedups divide: on CUDA the device
        # time, whose unflagged runs in separate processes must agree within 3% where it is 5 us or
        # more (issue 14's bar across processes). The call time across processes is printed, not a
        # goal: its host path depends on the vCPU each process runs on (2^28 eager 730.51/767.25/
        # 765.10 us on the H100, 2026-12-06, 5.03% apart; docs/ARCHITECTURE.md). Flagged runs (a
        # busy machine) told the user so and are left out.
        basis = [r.get("device") or {} for r in runs] if device == "cuda" else [r for r in runs]
        quiet = [b["p50_us"] for b in basis if b.get("p50_us") and (b["p90_us"] - b["p10_us"]) / b["p50_us"] <= NOISY_SPREAD]
        quiet_spread = (max(quiet) - min(quiet)) / min(quiet) if len(quiet) >= 2 else 0.0
        result = check.get("result", {})
        candidate = result.get("timing", {}).get("p50_us")
        floor = 2 * 4 * (1 << power) / PEAK_DRAM_BYTES_PER_S * 1e6
        no_device = device == "cuda" and not all(b.get("p50_us") for b in basis)  # a CUDA time has one
        goal = device == "cuda" and bool(quiet) and min(quiet) >= 5.0  # the bar is for kernels of 5 us or more
        if result.get("status") != "correct" or no_device or (goal and quiet_spread > 0.03):
            session.failures.append(f"timing 2^{power}")
        print(f"2^{power:<4} {'/'.join(f'{p:.2f}' for p in p50s):34} {100 * spread:6.1f}% {100 * inner:9.1f}% "
              f"{candidate if candidate is None else round(candidate, 2)!s:>11} {floor:8.2f} {FACTS_RELU_P50_US[power]:>18}")
        if device == "cuda":
            print(f"       eager device p50 (unflagged runs): {'/'.join(f'{p:.2f}' for p in quiet) or 'none'} us, "
                  f"spread {100 * quiet_spread:.1f}% ({'goal <= 3%' if goal else 'under 5 us: no goal'}; "
                  f"{len(runs) - len(quiet)} of {len(runs)} runs flagged noisy"
                  f"{', a run without a device time' if no_device else ''})")


def run_compile_baseline(session: Session, device: str) -> None:
    if device != "cuda":
        return
    started = time.perf_counter()
    reply = session.fresh().call("time_reference", {"task": str(TASKS / "relu.py"), "device": "cuda",
                                                    "mode": "compile"}, timeout=400)
    session.save("timing/relu_compile", reply)
    if "result" in reply:
        print(f"\ntorch.compile baseline of tasks/relu.py: p50 {reply['result']['timing']['p50_us']:.2f} us "
              f"({time.perf_counter() - started:.0f} s including compilation)")
    else:
        session.failures.append("compile baseline")
        print(f"\ntorch.compile baseline of tasks/relu.py failed: {reply['error']['message'][:300]}")


STAGES = {"cases": run_cases, "timing": run_timing, "compile": run_compile_baseline}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda",
                        help="cpu: a dry run of the same flow with the CPU cases, for machines without a GPU")
    parser.add_argument("--stages", nargs="+", choices=sorted(STAGES), default=list(STAGES),
                        help="run only these stages (default: all, in this order: " + ", ".join(STAGES) + ")")
    args = parser.parse_args()
    device = args.device
    OUT.mkdir(parents=True, exist_ok=True)
    session = Session()
    hello = session.worker.result("hello")
    session.save("hello", hello)
    if device == "cuda" and not hello["devices"]:
        print("worker: no CUDA device visible to the worker")
        return 1
    gpu = hello["devices"][0] if hello["devices"] else {"name": "no GPU", "arch": "-"}
    print(f"worker: {gpu['name']} {gpu['arch']}, torch {hello['torch']} (CUDA {hello['torch_cuda']}), "
          f"python {hello['python']}, device {device}")
    for stage in (STAGES[name] for name in STAGES if name in args.stages):
        started = time.perf_counter()
        try:
            stage(session, device)
        except Exception as exc:  # noqa: BLE001 - report and go on with the next stage
            session.failures.append(f"{stage.__name__}: {type(exc).__name__}: {exc}")
            print(f"{stage.__name__} stopped: {type(exc).__name__}: {exc}")
        print(f"({stage.__name__}: {time.perf_counter() - started:.0f} s)")
    session.worker.close()
    print(f"\nworker GPU checks: {'all passed' if not session.failures else 'FAILED: ' + ', '.join(session.failures)}")
    return 0 if not session.failures else 1


if __name__ == "__main__":
    sys.exit(main())

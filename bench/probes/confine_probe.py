"""bench/probes/confine_probe.py (issue 14, call time within 10% of plain events): why does a
confined reference's call time read 2-3x plain events from Python? On the H100 (2026-12-06)
`hone task --time eager` read relu 2^22's call p50 71.04 us confined, 23.17 us with
HONE_SANDBOX=none, plain events 22.43 us; the issue's H200 table had 28.64 against 10.59 and 9.31.
A raw candidate, confined the same way, is not slowed (17.95 against 18.18 us).

Part 1, one confinement ingredient at a time: plain events from Python around torch.relu (2^16 and
2^22 elements, read flush, 300 calls after 0.1 s of warm-up) in a fresh child that is plain, under
`hone-confine --seccomp` (the filter alone), as nobody (setpriv: a non-root user's memlock and
capabilities), with a 64 KiB memlock (prlimit), and on one CPU; twice each, interleaved.
Part 2, the whole: `hone task --time eager` of --task confined and with HONE_SANDBOX=none, twice
each, interleaved, each with a cache of its own; meanwhile every process's CPU time is sampled
(which processes ran beside the timed reference) and the python runners' /proc status read
(threads, allowed CPUs, context switches, speculation mitigations, memlock).
Answer on the H100 (2026-12-06, docs/gpu-runs.md): no. Every ingredient's events fell inside the
same 15.6-28 us lottery as plain children, and `hone task` read 36.8 / 44.9 us confined against
36.2 / 53.8 us unconfined: the 71 against 23 was two processes' host paths, not the sandbox.

  python3 bench/probes/confine_probe.py --confine build/bin/hone-confine --hone build/bin/hone \
      --task tasks/relu.py --out /tmp/confine [--json F]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = (1 << 16, 1 << 22)
STATUS_KEYS = ("Uid", "Threads", "Cpus_allowed_list", "voluntary_ctxt_switches", "nonvoluntary_ctxt_switches",
               "Speculation_Store_Bypass", "SpeculationIndirectBranch", "Seccomp", "NoNewPrivs")


def child() -> int:
    """Plain events from Python around torch.relu, as JSON {size: p50 us}."""
    import torch

    sys.path.insert(0, HERE)
    from plain_events import plain_events_us, warm_calls, warm_clocks

    torch.set_grad_enabled(False)
    flush = torch.ones(64 << 18, device="cuda")
    sink = torch.zeros((), device="cuda")
    warm_clocks(flush)
    out = {}
    for n in SIZES:
        x = torch.randn(n, device="cuda")
        warm_calls(lambda: torch.relu(x))
        out[str(n)] = statistics.median(plain_events_us(lambda: torch.relu(x), flush, sink, 300))
    print(json.dumps(out), flush=True)
    return 0


def ingredients(args) -> dict:
    me = [sys.executable, os.path.abspath(__file__), "--child"]
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all"]
    ways = {"plain": me, "seccomp": [args.confine, "--seccomp", "--", *me], "nobody": [*nobody, *me],
            "memlock_64k": ["prlimit", "--memlock=65536:65536", *me], "cpu0": ["taskset", "-c", "0", *me]}
    rows = {}
    for k in range(2):
        for name, cmd in ways.items():
            if shutil.which(cmd[0]) is None and not os.path.exists(cmd[0]):
                rows.setdefault(name, []).append({"error": f"{cmd[0]} not found"})
                continue
            run = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd="/")
            try:
                r = json.loads(run.stdout.strip().splitlines()[-1])
            except (ValueError, IndexError):
                r = {"error": (run.stderr or run.stdout)[-300:]}
            rows.setdefault(name, []).append(r)
            print(f"events {name} {k + 1}: " + (" | ".join(f"relu {int(n).bit_length() - 1}: {v:.2f} us" for n, v in r.items())
                                                  if "error" not in r else r["error"]), flush=True)
    return rows


class Sampler(threading.Thread):
    """Every process's CPU time every 50 ms; the python runners' status once a second."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.stop = threading.Event()
        self.cpu = {}  # "comm pid": CPU seconds over the sampling
        self.runners = {}
        self._last = {}

    def run(self) -> None:
        tick = os.sysconf("SC_CLK_TCK")
        n = 0
        while not self.stop.is_set():
            for pid in os.listdir("/proc"):
                if not pid.isdigit():
                    continue
                try:
                    with open(f"/proc/{pid}/stat") as f:
                        stat = f.read()
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
                except OSError:
                    continue
                comm = stat[stat.index("(") + 1:stat.rindex(")")]
                fields = stat[stat.rindex(")") + 2:].split()
                used = (int(fields[11]) + int(fields[12])) / tick
                key = f"{comm} {pid}"
                if key in self._last:
                    self.cpu[key] = self.cpu.get(key, 0.0) + used - self._last[key]
                self._last[key] = used
                if "runner" in cmd and n % 20 == 0:
                    self.runners[key] = {"cmd": cmd[:160], **_status(pid)}
            n += 1
            time.sleep(0.05)


def _status(pid: str) -> dict:
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in STATUS_KEYS:
                    out[k] = " ".join(v.split())
        with open(f"/proc/{pid}/limits") as f:
            out["memlock"] = next((" ".join(line.split()[3:5]) for line in f if line.startswith("Max locked memory")), "?")
    except OSError as exc:
        out["error"] = str(exc)
    return out


def whole(args) -> dict:
    rows = {}
    for k in range(2):
        for name, sandbox in (("confined", None), ("unconfined", "none")):
            env = dict(os.environ, HONE_CACHE_DIR=os.path.join(args.out, f"cache-{name}-{k}"))
            env.pop("HONE_SANDBOX", None)
            if sandbox:
                env["HONE_SANDBOX"] = sandbox
            sampler = Sampler()
            sampler.start()
            started = time.perf_counter()
            run = subprocess.run([args.hone, "task", args.task, "--time", "eager", "--device", "cuda", "--json",
                                  "--python", args.python], capture_output=True, text=True, timeout=200, env=env)
            sampler.stop.set()
            sampler.join()
            t = {}
            for line in run.stdout.splitlines():
                if line.startswith("{"):
                    t = ((json.loads(line).get("reference") or {}).get("eager")) or {}
            call, device = (t.get("call") or {}).get("p50_us"), (t.get("device") or {}).get("p50_us")
            busy = sorted(sampler.cpu.items(), key=lambda kv: -kv[1])[:8]
            rows[f"{name} {k + 1}"] = {"call_p50_us": call, "device_p50_us": device, "rc": run.returncode,
                                       "seconds": time.perf_counter() - started, "cpu_s": dict(busy),
                                       "runners": sampler.runners}
            print(f"hone task {name} {k + 1}: call p50 {call} us, device p50 {device} us, rc {run.returncode}, "
                  f"{time.perf_counter() - started:.1f} s" + ("" if run.returncode == 0 else f": {run.stderr[-300:]}"),
                  flush=True)
            print("  CPU s: " + ", ".join(f"{key} {s:.2f}" for key, s in busy), flush=True)
            for key, st in sampler.runners.items():
                print(f"  {key}: " + "; ".join(f"{a} {b}" for a, b in st.items() if a != "cmd"), flush=True)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--confine", help="hone-confine")
    ap.add_argument("--hone", help="hone")
    ap.add_argument("--task", default="tasks/relu.py")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--out", default="/tmp/confine_probe")
    ap.add_argument("--json")
    args = ap.parse_args()
    if args.child:
        return child()
    os.makedirs(args.out, exist_ok=True)
    result = {"ingredients": ingredients(args), "whole": whole(args) if args.hone else {}}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

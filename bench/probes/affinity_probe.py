"""bench/probes/affinity_probe.py (issue 14, call time within 10% of plain events): does a call's
time depend on the CPU the calling process runs on? hone's call p50 of one raw relu swung between
two levels across five `hone check` processes (H100, 2026-12-06: 14.7/14.8 against 16.7-16.9 us),
and plain events from C in two processes read 15.4 and 17.5 us for the same kernel. A host of
more than one NUMA node (or a VM whose vCPUs sit on different sockets) launches slower from the
CPUs far from the GPU. This prints the GPU's place (its PCI device's numa_node and local_cpulist,
`nvidia-smi topo -m`), then, for each CPU the process may use, a fresh child pinned to it: the
medians of plain events from C around one relu (call_gap_probe.cu, 2^16 and 2^22 elements) and
from Python around torch.relu on 2^16 elements; and three unpinned children beside. With --hone and
--kernel, `hone check` of that kernel twice confined to the GPU's local CPUs and twice to the
others (taskset: the judge and its runners inherit it), each check's call and device p50.

  python3 bench/probes/affinity_probe.py --out /tmp/aff [--json F] [--hone build/bin/hone --kernel tasks/relu.cu]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

from call_gap_probe import build, raw_calls, summary
from plain_events import plain_events_us, warm_clocks

SIZES = (1 << 16, 1 << 22)


def gpu_place() -> dict:
    """The GPU's PCI device in sysfs: its NUMA node and the CPUs local to it."""
    place = {}
    try:
        bus = subprocess.run(["nvidia-smi", "--query-gpu=pci.bus_id", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=30).stdout.strip().splitlines()[0].lower()
        bus = bus[4:] if len(bus.split(":")[0]) == 8 else bus  # 00000000:19:00.0 -> 0000:19:00.0
        place["bus_id"] = bus
        for key in ("numa_node", "local_cpulist"):
            with open(f"/sys/bus/pci/devices/{bus}/{key}") as f:
                place[key] = f.read().strip()
    except (OSError, IndexError, subprocess.SubprocessError) as exc:
        place["error"] = str(exc)
    return place


def node_of(cpu: int) -> str:
    base = f"/sys/devices/system/cpu/cpu{cpu}"
    try:
        return ",".join(sorted(n[4:] for n in os.listdir(base) if n.startswith("node")))
    except OSError:
        return "?"


def child(out: str, cpu: int) -> int:
    import torch

    if cpu >= 0:
        os.sched_setaffinity(0, {cpu})
    c = build(out, child=True)
    result = {}
    for n in SIZES:
        times = raw_calls(c, n, False, None)
        result[f"c_{n}"] = summary(times)["p50_us"] if isinstance(times, list) else float("nan")
    torch.set_grad_enabled(False)
    x = torch.randn(1 << 16, device="cuda")
    flush = torch.ones(64 << 18, device="cuda")
    sink = torch.zeros((), device="cuda")
    warm_clocks(flush)
    for _ in range(20):
        torch.relu(x)
    result["py_relu_2p16"] = statistics.median(plain_events_us(lambda: torch.relu(x), flush, sink, 300))
    print(json.dumps(result), flush=True)
    return 0


def cpu_list(text: str) -> set:
    cpus = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        if lo.strip():
            cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


def pinned_checks(args, place: dict) -> dict:
    """`hone check` twice on the GPU's local CPUs (those the process may use) and twice on the rest."""
    mine = os.sched_getaffinity(0)
    local = cpu_list(place.get("local_cpulist", "")) & mine
    sets = {"local": local, "far": mine - local}
    out = {}
    for name, cpus in sets.items():
        if not cpus:
            print(f"hone check on the {name} CPUs: none of this process's CPUs are {name}", flush=True)
            continue
        for k in range(2):
            run = subprocess.run(["taskset", "-c", ",".join(map(str, sorted(cpus))), args.hone, "check", args.kernel,
                                  "--device", "cuda", "--baselines", "none", "--json", "--python", args.python],
                                 capture_output=True, text=True, timeout=120)
            t = {}
            for line in run.stdout.splitlines():
                if line.startswith("{") and '"timing"' in line:
                    t = json.loads(line).get("timing") or {}
            call, device = (t.get("call") or {}).get("p50_us"), (t.get("device") or {}).get("p50_us")
            out[f"{name} {k + 1}"] = {"call_p50_us": call, "device_p50_us": device, "rc": run.returncode}
            print(f"hone check on the {name} CPUs ({len(cpus)}), {k + 1}: call p50 {call} us, device p50 {device} us"
                  + ("" if run.returncode == 0 else f" rc {run.returncode}: {run.stderr[-200:]}"), flush=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--json")
    ap.add_argument("--hone", help="hone's binary: also time --kernel with `hone check` on each CPU set")
    ap.add_argument("--kernel", help="the kernel file --hone checks")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--cpu", type=int, help=argparse.SUPPRESS)  # the child: pinned to this CPU (-1: not pinned)
    args = ap.parse_args()
    if args.cpu is not None:
        return child(args.out, args.cpu)
    os.makedirs(args.out, exist_ok=True)
    build(args.out, child=False)
    place = gpu_place()
    print(f"GPU {place}", flush=True)
    topo = subprocess.run(["nvidia-smi", "topo", "-m"], capture_output=True, text=True, timeout=30).stdout
    print(topo, flush=True)
    lscpu = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=30).stdout
    print("\n".join(line for line in lscpu.splitlines() if any(k in line for k in ("NUMA", "Socket", "Model name", "MHz"))))
    rows = {}
    for cpu in sorted(os.sched_getaffinity(0)) + [-1, -1, -1]:
        run = subprocess.run([sys.executable, __file__, "--out", args.out, "--cpu", str(cpu)], capture_output=True,
                             text=True, timeout=120)
        try:
            r = json.loads(run.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            r = {"error": (run.stderr or run.stdout)[-200:]}
        name = f"cpu {cpu} (node {node_of(cpu)})" if cpu >= 0 else f"unpinned {len([k for k in rows if k.startswith('unpinned')]) + 1}"
        rows[name] = r
        print(f"{name} | " + " | ".join(f"{k} {v:.2f}" for k, v in r.items() if isinstance(v, float)) +
              (f" error {r['error']}" if "error" in r else ""), flush=True)
    checks = pinned_checks(args, place) if args.hone and args.kernel else {}
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"gpu": place, "rows": rows, "checks": checks}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""bench/probes/selftime_probe.py (issue 14, call time within 10% of plain events): the native
runner's call time of a raw candidate read 0.9-2.4 us above plain events from C in the bench's own
process, one CPU for both, another process's idle context beside the events (H100, 2026-12-07).
Is that hone's timing window, or the runner's process (the judge beside it, its inputs in the
judge's imported memory)? selftime_relu.cu, a raw candidate for tasks/relu.py, times its own relu
the plain way inside hone's runner on its first call, on buffers of its own and on hone's; built
as a lone program it times the same loop in a process of its own. All on one CPU, alternating:
lone, hone check (the runner's call p50 from the verdict, the plain events it measured inside),
lone. If the plain events inside the runner read as hone's call time does, the window is not the
gap; if they read as the lone process's, it is.

  python3 bench/probes/selftime_probe.py --hone build/bin/hone --out /tmp/selftime
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
LINES = "/tmp/hone_selftime.txt"  # where selftime_relu.cu appends (a path the unconfined runner can write)
LINE = re.compile(r"selftime (.+?): n (\d+) own buffers ([\d.-]+) us, (.+?) ([\d.-]+) us")


def read_lines(after: int):
    """The probe's lines appended since `after` bytes: (where, own, other)."""
    try:
        with open(LINES) as f:
            f.seek(after)
            text = f.read()
    except OSError:
        return []
    return [(m.group(1), float(m.group(3)), float(m.group(5))) for m in LINE.finditer(text)]


def size() -> int:
    return os.path.getsize(LINES) if os.path.exists(LINES) else 0


def hone_call(hone: str, pin: list, kernel: str) -> dict:
    """One `hone check --no-sandbox` of `kernel` against tasks/relu.py: its call and device p50."""
    cmd = pin + [hone, "check", "--no-sandbox", "--baselines", "none", "--task", os.path.join(ROOT, "tasks", "relu.py"),
                 kernel, "--json"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    for line in p.stdout.splitlines():
        try:
            v = json.loads(line)
        except json.JSONDecodeError:
            continue
        t = v.get("timing") or {}
        return {"status": v.get("status"), "call_us": (t.get("call") or {}).get("p50_us", t.get("p50_us")),
                "device_us": (t.get("device") or {}).get("p50_us")}
    print(f"hone check gave no verdict (rc {p.returncode}): {p.stderr.strip()[-400:]}", file=sys.stderr, flush=True)
    return {}


def lone_run(cmd: list) -> dict:
    """The lone program (it writes its own line); {} (its failure said on stderr) either way."""
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        print(f"the lone program failed (rc {p.returncode}): {p.stderr.strip()[-400:]}", file=sys.stderr, flush=True)
    return {}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hone", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pin-cpu", type=int, default=min(os.sched_getaffinity(0)))
    ap.add_argument("--json")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    source = os.path.join(HERE, "selftime_relu.cu")
    lone = os.path.join(args.out, "selftime")
    subprocess.run(["nvcc", "-O2", "-std=c++17", "-arch=native", "-DSELFTIME_MAIN", "-I",
                    os.path.join(ROOT, "server", "include"), "-o", lone, source], check=True)
    pin = ["taskset", "-c", str(args.pin_cpu)]
    rows = []
    for r in range(args.rounds):
        for what, run in (("lone", lambda: lone_run(pin + [lone])),
                          ("hone", lambda: hone_call(args.hone, pin, source)),
                          ("shipped", lambda: hone_call(args.hone, pin, os.path.join(ROOT, "tasks", "relu.cu")))):
            before = size()
            verdict = run()
            lines = read_lines(before)
            row = {"round": r, "what": what, "inside": lines, **verdict}
            rows.append(row)
            shown = " ".join(f"[plain events in {w}: own buffers {a:.2f}, then {b:.2f}]" for w, a, b in lines)
            call = f"hone call {row.get('call_us'):.2f} us, device {row.get('device_us') or 0:.2f} us " \
                if row.get("call_us") else ""
            print(f"round {r} {what}: {call}{shown}", flush=True)
    lone_us = [t for row in rows if row["what"] == "lone" for _, a, b in row["inside"] for t in (a, b)]
    inside_own = [a for row in rows if row["what"] == "hone" for _, a, _ in row["inside"]]
    inside_hone = [b for row in rows if row["what"] == "hone" for _, _, b in row["inside"]]
    calls = [row["call_us"] for row in rows if row["what"] == "hone" and row.get("call_us")]
    shipped = [row["call_us"] for row in rows if row["what"] == "shipped" and row.get("call_us")]

    def med(xs):
        return statistics.median(xs) if xs else float("nan")
    print(f"selftime_probe: lone process plain events {med(lone_us):.2f} us; inside hone's runner plain events "
          f"{med(inside_own):.2f} (own buffers) / {med(inside_hone):.2f} (hone's buffers); hone's call time of the "
          f"probe {med(calls):.2f}, of tasks/relu.cu {med(shipped):.2f}; hone call / plain inside "
          f"{med(calls) / med(inside_hone):.3f}, plain inside / lone {med(inside_hone) / med(lone_us):.3f}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""bench/probes/call_gap_probe.py (issue 14, call time within 10% of plain events): why does the
native runner's call time of a raw kernel sit 1.3-2.4 us above plain events issued from C around
the same library (H100, 2026-12-05: relu 2^16 9.28 vs 7.44 us), sandbox or not? Both flush the L2,
wait for the device to idle, then record an event, call, record an event. What differs: hone's
flush (hone_flush also evicts the SMs' instruction caches, so the timed kernel's code is fetched
cold), the wait (hone's runner synchronises the device, the bench its stream), and a second CUDA
context on the GPU (hone's judge holds one beside the candidate process; the bench's events run
alone). One relu kernel (call_gap_probe.cu, built here with nvcc) at 2^16, 2^19 and 2^22 elements,
200 calls per mode, the medians side by side:
  plain          the probe's read flush, cudaStreamSynchronize
  device_sync    the same, cudaDeviceSynchronize (hone's runner)
  hone_flush     libhone_harness's hone_flush (code eviction included), cudaStreamSynchronize
  hone_flush_l2  its hone_flush_l2 (the read alone: the call-time pass's flush since 2026-12-06)
  second_ctx     plain, while another process holds a CUDA context on the GPU
  third_ctx      plain, while two other processes hold one each (hone check's judge and the
                 pool's ready runner of the other kind, beside the timed candidate's own)
  hone_like      hone_flush, cudaDeviceSynchronize and a second context: all three
  beside_starts  plain, while other processes start one after another as a python runner does
                 (import torch, make a CUDA context): what hone's pool did beside its timing
                 until 2026-12-06
A mode that adds what the runner's call time adds over plain events names the cause.

Then the Python path (--no-python skips it): events around eager calls issued from Python (relu at
2^16, and addmm + relu at 256x1024x1024, three ops), each in a fresh process: three lone
processes one after another (how far apart lone processes' medians lie), one with gc disabled
and the process pinned to one CPU, each of those two alone, one with a second context resident,
one beside processes starting as python runners do. (A keep-alive warp of the
timed context's own beside the calls did not hide the other contexts: H100, 2026-12-06, it added
0.4-1.6 us itself; docs/gpu-runs.md.)

  python3 bench/probes/call_gap_probe.py --harness build/share/hone/lib/libhone_harness.so --out /tmp/cgap
"""
import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import threading
import time

from plain_events import plain_events_us, warm_clocks
from shared_object import build_and_load

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = (1 << 16, 1 << 19, 1 << 22)
CALLS = 200
FLUSH_BYTES = 256 << 20


def build(out: str, child: bool) -> ctypes.CDLL:
    """The probe's library: built by the parent, loaded as built by its children (several at once)."""
    c = ctypes.CDLL(os.path.join(out, "call_gap_probe.so")) if child else \
        build_and_load(os.path.join(HERE, "call_gap_probe.cu"), out)
    c.probe_calls.argtypes = [ctypes.c_size_t, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_void_p,
                              ctypes.POINTER(ctypes.c_float)]
    c.probe_calls.restype = ctypes.c_int
    c.probe_hold_context.argtypes = [ctypes.c_double]
    c.probe_hold_context.restype = ctypes.c_int
    return c


def raw_calls(c, n: int, device_sync: bool, flush_fn):
    """CALLS calls' events in microseconds, or the CUDA error code."""
    out = (ctypes.c_float * CALLS)()
    rc = c.probe_calls(n, FLUSH_BYTES, CALLS, int(device_sync), flush_fn, out)
    return rc if rc else list(out)


def calls(c, n: int, device_sync: bool, flush_fn) -> dict:
    times = raw_calls(c, n, device_sync, flush_fn)
    return summary(times) if isinstance(times, list) else {"error": f"CUDA error {times}"}


def summary(times) -> dict:
    t = sorted(times)
    return {"p50_us": statistics.median(t), "p10_us": t[len(t) // 10], "p90_us": t[len(t) * 9 // 10], "calls": len(t)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--harness", required=True, help="libhone_harness.so (hone_harness_flush)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--json")
    ap.add_argument("--no-python", action="store_true", help="skip the Python path's processes")
    ap.add_argument("--hold", type=float, help=argparse.SUPPRESS)  # the child: hold a context this long
    ap.add_argument("--python-child", help=argparse.SUPPRESS)  # the child: the Python path, with these knobs
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    c = build(args.out, child=bool(args.hold or args.python_child is not None))
    if args.hold:
        rc = c.probe_hold_context(0.0)  # the context made
        print("ready" if rc == 0 else f"CUDA error {rc}", flush=True)
        time.sleep(args.hold)
        return rc
    if args.python_child is not None:
        return python_child(c, args.python_child.split(","))
    harness = ctypes.CDLL(args.harness)
    hone_flush = ctypes.cast(harness.hone_harness_flush, ctypes.c_void_p).value
    hone_flush_l2 = ctypes.cast(harness.hone_harness_flush_l2, ctypes.c_void_p).value
    results = {}
    # (name, device-wide wait, flush function, other processes holding a context, others starting)
    modes = (("plain", False, None, 0, False), ("device_sync", True, None, 0, False),
             ("hone_flush", False, hone_flush, 0, False), ("hone_flush_l2", False, hone_flush_l2, 0, False),
             ("second_ctx", False, None, 1, False), ("third_ctx", False, None, 2, False),
             ("hone_like", True, hone_flush, 1, False), ("beside_starts", False, None, 0, True))
    for mode, device_sync, flush_fn, holders, starts in modes:
        with holding(args, holders), starting(starts) as st:
            if not starts:
                for n in SIZES:
                    results.setdefault(str(n), {})[mode] = calls(c, n, device_sync, flush_fn)
            else:  # rounds of every size until two processes have started (each start's every phase)
                pooled, began = {n: [] for n in SIZES}, time.monotonic()
                while st.count < 2 and time.monotonic() - began < 40:
                    for n in SIZES:
                        times = raw_calls(c, n, device_sync, flush_fn)
                        if isinstance(times, list):
                            pooled[n] += times
                for n in SIZES:
                    results.setdefault(str(n), {})[mode] = summary(pooled[n]) if pooled[n] else {"error": "no calls"}
    print("elements | " + " | ".join(m[0] for m in modes) + "   (p50 us of plain events around one relu call)")
    for n in SIZES:
        row = results[str(n)]
        print(f"{n} | " + " | ".join(f"{row[m[0]].get('p50_us', float('nan')):.2f}" for m in modes))
    if not args.no_python:
        results["python"] = python_path(args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


class holding:
    """`count` other processes, each holding a CUDA context, while the block runs."""

    def __init__(self, args, count: int) -> None:
        self.args, self.count, self.children = args, count, []

    def __enter__(self):
        self.children = [subprocess.Popen([sys.executable, __file__, "--harness", self.args.harness, "--out",
                                           self.args.out, "--hold", "120"], stdout=subprocess.PIPE, text=True)
                         for _ in range(self.count)]
        for child in self.children:  # each says so once its context is made
            line = child.stdout.readline().strip()
            if line != "ready":
                raise RuntimeError(f"a context holder did not start: {line!r}")
        return self

    def __exit__(self, *exc) -> None:
        for child in self.children:
            child.kill()
            child.wait()


class starting:
    """While the block runs (when `on`), a thread starts process after process that imports torch
    and makes a CUDA context, as the pool starts a python runner."""

    def __init__(self, on: bool) -> None:
        self.on, self.stop, self.count = on, threading.Event(), 0
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self.stop.is_set():
            subprocess.run([sys.executable, "-c", "import torch; torch.zeros(1, device='cuda'); torch.cuda.synchronize()"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120, check=False)
            self.count += 1

    def __enter__(self):
        if self.on:
            self.thread.start()
            time.sleep(1.0)  # the first one under way
        return self

    def __exit__(self, *exc) -> None:
        if self.on:
            self.stop.set()
            self.thread.join(130)
            print(f"  ({self.count} processes started beside)", flush=True)


# (name, other processes holding a context, processes starting beside, the child's knobs)
PY_RUNS = (("lone 1", 0, False, ""), ("lone 2", 0, False, ""), ("lone 3", 0, False, ""),
           ("gc off, one CPU", 0, False, "nogc,pin"), ("gc off", 0, False, "nogc"), ("one CPU", 0, False, "pin"),
           ("second_ctx", 1, False, ""), ("beside starts", 0, True, ""))


def python_path(args) -> dict:
    """Each of PY_RUNS in a fresh process; prints its medians and returns them."""
    out = {}
    for name, holders, starts, knobs in PY_RUNS:
        try:
            with holding(args, holders), starting(starts):
                run = subprocess.run([sys.executable, __file__, "--harness", args.harness, "--out", args.out,
                                      "--python-child", knobs], capture_output=True, text=True, timeout=120)
            out[name] = json.loads(run.stdout.strip().splitlines()[-1])
        except subprocess.TimeoutExpired:
            out[name] = {"error": "timed out after 120 s"}
        except (ValueError, IndexError):
            out[name] = {"error": (run.stderr or run.stdout)[-300:]}
    cases = sorted({k for r in out.values() for k in r if k != "error"})
    print("python path | " + " | ".join(cases) + "   (p50 us of events around the call; p10..p90 spread)")
    for name, r in out.items():
        print(f"{name} | " + " | ".join(f"{r[k]['p50_us']:.2f} ({100 * r[k]['spread']:.0f}%)" if k in r else "-"
                                        for k in cases) + (f"   error: {r['error']}" if "error" in r else ""))
    return out


def python_child(c, knobs) -> int:
    """Events around eager calls issued from Python (the bench's plain events' method)."""
    import gc

    import torch

    if "nogc" in knobs:
        gc.disable()
    if "pin" in knobs:
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    torch.set_grad_enabled(False)
    x = torch.randn(1 << 16, device="cuda")
    a, w, b = (torch.randn(256, 1024, device="cuda"), torch.randn(1024, 1024, device="cuda"),
               torch.randn(1024, device="cuda"))
    flush = torch.ones(64 << 18, device="cuda")  # 64 MiB
    sink = torch.zeros((), device="cuda")
    fns = {"relu_2p16": lambda: torch.relu(x), "addmm_relu": lambda: torch.relu(torch.addmm(b, a, w))}
    warm_clocks(flush)
    result = {}
    for name, fn in fns.items():
        for _ in range(20):
            fn()
        t = sorted(plain_events_us(fn, flush, sink, CALLS + 100))
        p50 = statistics.median(t)
        result[name] = {"p50_us": p50, "spread": (t[len(t) * 9 // 10] - t[len(t) // 10]) / p50}
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

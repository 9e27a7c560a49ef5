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
  second_ctx     plain, while another process holds a CUDA context on the GPU
  third_ctx      plain, while two other processes hold one each (hone check's judge and the
                 pool's ready runner of the other kind, beside the timed candidate's own)
  hone_like      hone_flush, cudaDeviceSynchronize and a second context: all three
A mode that adds what the runner's call time adds over plain events names the cause.

  python3 bench/probes/call_gap_probe.py --harness build/share/hone/lib/libhone_harness.so --out /tmp/cgap
"""
import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import time

from shared_object import build_and_load

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = (1 << 16, 1 << 19, 1 << 22)
CALLS = 200
FLUSH_BYTES = 256 << 20


def build(out: str) -> ctypes.CDLL:
    c = build_and_load(os.path.join(HERE, "call_gap_probe.cu"), out)
    c.probe_calls.argtypes = [ctypes.c_size_t, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_void_p,
                              ctypes.POINTER(ctypes.c_float)]
    c.probe_calls.restype = ctypes.c_int
    c.probe_hold_context.argtypes = [ctypes.c_double]
    c.probe_hold_context.restype = ctypes.c_int
    return c


def calls(c, n: int, device_sync: bool, flush_fn) -> dict:
    out = (ctypes.c_float * CALLS)()
    rc = c.probe_calls(n, FLUSH_BYTES, CALLS, int(device_sync), flush_fn, out)
    if rc:
        return {"error": f"CUDA error {rc}"}
    t = sorted(out)
    return {"p50_us": statistics.median(t), "p10_us": t[CALLS // 10], "p90_us": t[CALLS * 9 // 10]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--harness", required=True, help="libhone_harness.so (hone_harness_flush)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--json")
    ap.add_argument("--hold", type=float, help=argparse.SUPPRESS)  # the child: hold a context this long
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    c = build(args.out)
    if args.hold:
        return c.probe_hold_context(args.hold)
    harness = ctypes.CDLL(args.harness)
    hone_flush = ctypes.cast(harness.hone_harness_flush, ctypes.c_void_p).value
    results = {}
    # (name, device-wide wait, flush function, other processes holding a context)
    modes = (("plain", False, None, 0), ("device_sync", True, None, 0), ("hone_flush", False, hone_flush, 0),
             ("second_ctx", False, None, 1), ("third_ctx", False, None, 2), ("hone_like", True, hone_flush, 1))
    for mode, device_sync, flush_fn, holders in modes:
        children = [subprocess.Popen([sys.executable, __file__, "--harness", args.harness, "--out", args.out,
                                      "--hold", "60"]) for _ in range(holders)]
        if children:
            time.sleep(3.0)  # their contexts made
        try:
            for n in SIZES:
                results.setdefault(str(n), {})[mode] = calls(c, n, device_sync, flush_fn)
        finally:
            for child in children:
                child.kill()
                child.wait()
    print("elements | " + " | ".join(m[0] for m in modes) + "   (p50 us of plain events around one relu call)")
    for n in SIZES:
        row = results[str(n)]
        print(f"{n} | " + " | ".join(f"{row[m[0]].get('p50_us', float('nan')):.2f}" for m in modes))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

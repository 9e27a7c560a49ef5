"""bench/probes/spread_probe.py (issue 14, item 3): where does the within-check spread of a
µs-scale kernel's device time come from? One elementwise kernel (clamp_min into a preallocated
output) at several sizes, 300 calls each, its duration taken from CUPTI activity records
(libhone_cupti, 32 ns resolution, the judge's own method), under several ways of separating calls:

  plain       back to back, nothing between the calls (warm L2 where the data fits)
  read_flush  a read of a 2x-L2 buffer before each call (what hone's hone_flush does)
  write_flush a write of the same buffer before each call (dirty lines left in L2)
  flush_gap   read_flush plus a ~20 us spin between calls (an idle-ish GPU between calls)
  held        read_flush with every call enqueued behind a spin kernel (hone's device mode until 12-04)
  held_gap    held plus a ~20 us spin between each flush and its call (hone's device mode since:
              flush_gap_us)
  synced      read_flush, and the host waits for the GPU before and after each call (the kernel
              starts on an idle GPU, as under ncu's serialised replay): whether the records'
              duration of a µs kernel depends on what ran just before it (ncu reads ~1.1 µs more)
The synced modes below ask what of the cache state after the flush widens the spread (hone's
counted calls spread 3.5-7% per call on the H200 where ncu's own spread 1.6-3.2%):
  hone_synced     synced with libhone_harness's hone_flush (the kernel prologue's: read flush plus
                  the SMs' instruction caches evicted)
  discard_synced  synced, the read flush followed by discard.global.L2 over the flush buffer
                  (discard_l2.cu): the L2 left invalid, not full of clean lines, as ncu leaves it
  hone_discard    hone_flush, then the discard
  idle_synced     synced, plus 1 ms of the host asleep before each call (the memory system idle
                  for as long as ncu's replay leaves it)
  hone_slots      hone_synced with call i writing slot i % 24 of one region of 24 outputs, as a
                  raw candidate writes the judge's output slots (a different address every call);
                  hone_synced writes one output every call, as torch's allocator gives a reference.
                  On the H100 (2026-12-06) the raw candidates' counted calls spread more than ncu's
                  on 5 of 9 kernels and alternated (lag-1 -0.17..-0.57); the references' did not.
                  Its line adds the spread of the 24 slots' medians.

For each it prints p10/p50/p90, the spread (p90-p10)/p50, the medians of the first and the second
half (a trend: clocks), of even and odd calls (an alternation), and the lag-1 autocorrelation.
Also the flush kernel's own spread. Needs a CUDA GPU and libhone_cupti.so:

  HONE_CUPTI_LIBRARY=build/share/hone/lib/libhone_cupti.so python3 bench/probes/spread_probe.py
"""
import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from shared_object import build_and_load

HERE = os.path.dirname(os.path.abspath(__file__))
SLOTS = 24  # hone_slots: as many output slots as the judge's counted op uses calls
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


def load_cupti(path: str) -> ctypes.CDLL:
    lib = ctypes.CDLL(path)  # before torch: the one CUPTI of the process
    lib.hone_cupti_begin.argtypes = [ctypes.c_char_p]
    lib.hone_cupti_begin.restype = ctypes.c_char_p
    lib.hone_cupti_end.argtypes = []
    lib.hone_cupti_end.restype = ctypes.c_char_p
    return lib


def load_helpers(out_dir: str):
    """(libhone_harness or None, discard_l2.so built with nvcc or None)."""
    harness = None
    path = os.environ.get("HONE_HARNESS_LIBRARY", os.path.join(ROOT, "build", "share", "hone", "lib", "libhone_harness.so"))
    try:
        harness = ctypes.CDLL(path)
        harness.hone_harness_flush.argtypes = [ctypes.c_void_p] * 2 + [ctypes.c_size_t, ctypes.c_void_p]
    except OSError as exc:
        print(f"spread_probe: no libhone_harness ({exc}): hone_* modes skipped", file=sys.stderr)
    discard = None
    try:
        discard = build_and_load(os.path.join(HERE, "discard_l2.cu"), out_dir, "-O2", "-arch=sm_80")  # discard: sm_80+
        discard.probe_discard_l2.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
    except (OSError, subprocess.SubprocessError) as exc:
        print(f"spread_probe: discard_l2.cu not built ({exc}): discard modes skipped", file=sys.stderr)
    return harness, discard


def percentile(xs: list, q: float) -> float:
    s = sorted(xs)
    i = (len(s) - 1) * q
    lo = int(i)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (i - lo)


def summary(xs: list) -> dict:
    p10, p50, p90 = percentile(xs, 0.1), percentile(xs, 0.5), percentile(xs, 0.9)
    half = len(xs) // 2
    mean = statistics.fmean(xs)
    var = sum((x - mean) ** 2 for x in xs) or 1e-30
    lag1 = sum((xs[i] - mean) * (xs[i + 1] - mean) for i in range(len(xs) - 1)) / var
    return {"n": len(xs), "p10": p10, "p50": p50, "p90": p90, "spread": (p90 - p10) / p50,
            "first_half": statistics.median(xs[:half]), "second_half": statistics.median(xs[half:]),
            "even": statistics.median(xs[0::2]), "odd": statistics.median(xs[1::2]), "lag1": lag1,
            "min": min(xs), "max": max(xs)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cupti", default=os.environ.get("HONE_CUPTI_LIBRARY", os.path.join(ROOT, "build", "share", "hone", "lib", "libhone_cupti.so")))
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--sizes", default="16,20,22,24")
    ap.add_argument("--json")
    ap.add_argument("--modes", default="plain,read_flush,write_flush,flush_gap,held,held_gap,synced,hone_synced,"
                    "discard_synced,hone_discard,idle_synced,hone_slots")
    args = ap.parse_args()
    lib = load_cupti(args.cupti)
    import torch  # noqa: PLC0415

    if not torch.cuda.is_available():
        print("spread_probe: no CUDA device", file=sys.stderr)
        return 2
    dev = torch.device("cuda")
    l2 = torch.cuda.get_device_properties(dev).L2_cache_size
    flush = torch.empty(2 * l2 // 4, dtype=torch.float32, device=dev)
    flush.fill_(1.0)
    sink = torch.empty((), dtype=torch.float32, device=dev)  # what sum(dim=0) of a vector gives
    word = torch.zeros(1, dtype=torch.int32, device=dev)
    harness, discard = load_helpers(tempfile.mkdtemp(prefix="spread_probe."))
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)

    def hone_flush():
        harness.hone_harness_flush(stream, ctypes.c_void_p(flush.data_ptr()), flush.numel() * 4,
                                   ctypes.c_void_p(word.data_ptr()))

    def discard_flush():
        discard.probe_discard_l2(stream, ctypes.c_void_p(flush.data_ptr()), flush.numel() * 4)

    modes = [m for m in args.modes.split(",") if m and not (m.startswith("hone") and harness is None)
             and not ("discard" in m and discard is None)]
    cycles_20us = 40000  # torch.cuda._sleep spins this many clock cycles: ~20 us at the H200's 1.98 GHz
    results = {}
    for log2n in (int(s) for s in args.sizes.split(",")):
        n = 1 << log2n
        x = torch.randn(n, device=dev)
        y = torch.empty_like(x)
        slots = torch.empty(SLOTS, n, device=dev) if "hone_slots" in modes else None
        for mode in modes:
            for _ in range(20):  # warm the clocks and the code
                torch.clamp_min(x, 0.0, out=y)
            torch.cuda.synchronize()
            begun = json.loads(lib.hone_cupti_begin(json.dumps({"activity": True}).encode()))
            if not begun.get("ok"):
                print(f"hone_cupti_begin: {begun}", file=sys.stderr)
                return 1
            if mode in ("held", "held_gap"):
                torch.cuda._sleep(int(cycles_20us * 500))  # ~10 ms: every call below is enqueued behind it
            for call in range(args.calls):
                if mode in ("read_flush", "flush_gap", "held", "held_gap"):
                    torch.sum(flush, dim=0, out=sink)
                elif mode == "write_flush":
                    flush.fill_(0.5)
                if mode in ("flush_gap", "held_gap"):
                    torch.cuda._sleep(cycles_20us)
                if mode in ("synced", "discard_synced", "idle_synced"):
                    torch.sum(flush, dim=0, out=sink)
                if mode in ("hone_synced", "hone_discard", "hone_slots"):
                    hone_flush()
                if mode in ("discard_synced", "hone_discard"):
                    discard_flush()
                synced = mode in ("synced", "hone_synced", "discard_synced", "hone_discard", "idle_synced", "hone_slots")
                if synced:
                    torch.cuda.synchronize()
                if mode == "idle_synced":
                    time.sleep(0.001)
                torch.clamp_min(x, 0.0, out=slots[call % SLOTS] if mode == "hone_slots" else y)
                if synced:
                    torch.cuda.synchronize()
            torch.cuda.synchronize()
            ended = json.loads(lib.hone_cupti_end())
            kernels = sorted((ended.get("activity") or {}).get("kernels", []), key=lambda k: int(k["start_ns"]))
            ours = [(int(k["end_ns"]) - int(k["start_ns"])) / 1000.0 for k in kernels if "clamp" in k.get("name", "")]
            flushes = [(int(k["end_ns"]) - int(k["start_ns"])) / 1000.0 for k in kernels
                       if "clamp" not in k.get("name", "") and "spin" not in k.get("name", "")
                       and "discard" not in k.get("name", "")]
            if len(ours) != args.calls:
                print(f"2^{log2n} {mode}: {len(ours)} kernel records for {args.calls} calls", file=sys.stderr)
                continue
            s = summary(ours)
            if mode == "hone_slots":  # the slots' own medians: does the address set the time?
                by_slot = [statistics.median(ours[k::SLOTS]) for k in range(SLOTS)]
                s["slot_medians_spread"] = (max(by_slot) - min(by_slot)) / statistics.median(by_slot)
            f = summary(flushes) if len(flushes) > 10 else None
            results[f"2^{log2n} {mode}"] = {"kernel": s, "flush": f}
            print(f"2^{log2n:<2} {mode:<11} p50 {s['p50']:8.3f} us  p10 {s['p10']:8.3f}  p90 {s['p90']:8.3f}  "
                  f"spread {100 * s['spread']:5.1f}%  halves {s['first_half']:.3f}/{s['second_half']:.3f}  "
                  f"even/odd {s['even']:.3f}/{s['odd']:.3f}  lag1 {s['lag1']:+.2f}  min {s['min']:.3f} max {s['max']:.3f}"
                  + (f"  | flush p50 {f['p50']:.2f} spread {100 * f['spread']:.1f}%" if f else "")
                  + (f"  | slots' medians spread {100 * s['slot_medians_spread']:.1f}%" if "slot_medians_spread" in s else ""),
                  flush=True)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

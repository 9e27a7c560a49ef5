"""bench/probes/ncu_gap_probe.py (issue 14, item 2): why does hone's counted device time of a
µs kernel (the Range Profiler's gpu__time_duration.sum in the timed process, after hone's L2 read
flush) read 0.3-0.4 µs below ncu's (--clock-control none, its default --cache-control all) on
kernels under ~6 µs, and only ~0.1 µs below on larger ones? ncu flushes "all caches" before each
kernel; hone reads a 2x-L2 buffer. What ncu's flush leaves cold that a read does not is the
question: the SMs' instruction caches (hone's flush kernel is tiny, the timed kernel's code stays
cached), or the GPU's TLBs (the flush touches ~60 large pages; the kernel's own translations may
survive in the shared TLB levels), or the GPU's state after ncu's idle gap between replays.

One relu kernel (its own, compiled here with nvcc: the same code in every mode) at 2^16, 2^19,
2^22 elements, each call preceded by:
  plain      nothing
  read       the read flush (hone's: a 2x-L2 buffer read into a sink)
  read_code  the read flush, then a kernel whose ~200 KB of straight-line code runs on every SM
             (evicts the SMs' instruction caches)
  read_code_rotate  read_code, each call writing the next of 24 outputs (hone's calls each write
             their own slot: does that spread the counted time, p10..p90, beyond ncu's?)
  read_tlb   a sweep loading one word every 64 KiB over a 32 GiB buffer (evicts the TLBs' entries
             for the kernel's pages), then the read flush
  all        the sweep, the read flush and the code kernel
  read_idle  the read flush, the host synchronises and sleeps 2 ms (an idle GPU, as between ncu's
             replays), then the kernel
In-process (`counted`): libhone_cupti's Range Profiler, auto range, kernel replay (hone's counted
path), the relu kernel's range picked by position. Under ncu (`ncu-child`, run by the parent with
--clock-control none and -k probe_relu): ncu's own duration of the same kernel in each mode, with
its cache flush (the default) and without (--cache-control none). A mode whose counted time meets
ncu's (flush all) says what hone's flush leaves warm. Also: the Range Profiler's set-up seconds
by stage for several max_ranges (is cuptiRangeProfilerSetConfig's ~1 s the counter image's size?).

With --target linear the timed call is instead tasks/gemm_bias_relu's torch.nn.functional.linear
(64x256 by 256x128 fp32 with bias: cuBLAS's cutlass sgemm and its split-K reduce), each of its
kernels reported alone: does the sgemm's 0.4-0.5 us below ncu close with the code kernel or the
idle gap, as it does not with any L2 flush? Its modes add hone's own flushes, the kernel prologue
as a counted call arms it, six placements of the operands, and four of x alone and of W and b alone. Answer (H100, 2026-12-07,
docs/gpu-runs.md): the code eviction closes it to 0.06-0.16 us; the operands' placement moves the
sgemm 0.7 us under hone's count and ncu's alike.

  python3 bench/probes/ncu_gap_probe.py --cupti build/share/hone/lib/libhone_cupti.so --out /tmp/gap
"""
import argparse
import ctypes
import json
import os
import re
import statistics
import subprocess
import sys
import time

from ncu_csv import ncu_launches

SIZES = (16, 19, 22)
GAP_RANGE = re.compile(r"gap\|(\w+)\|(\w+)")  # ncu_child's NVTX ranges: gap|<size or linear>|<mode>
LINEAR = (64, 256, 128)  # tasks/gemm_bias_relu: batch, in_features, out_features
MODES = ("plain", "read", "read_code", "read_code_rotate", "read_tlb", "all", "read_idle")  # read_idle last
# linear: hone's own flushes too (libhone_harness): hone_flush_l2 (the read), hone_flush (the read
# with the code evicted in the same kernel), and the kernel prologue as a counted call arms it
# (hone_flush before each kernel of the call, from libhone_cupti's launch callback)
LINEAR_MODES = ("plain", "read", "read_code", "hone_l2", "hone_flush", "prologue", "read_idle")
# linear with the prologue, its x, W and b placed elsewhere in one 96 MiB buffer (other pages, other
# L2 slices): does an 8-block sgemm's time depend on where its operands live?
PLACEMENTS = 6
# place<i>: x, W and b at placement i; xplace<i>: x alone there (W and b where they were made);
# wplace<i>: W and b alone there. Which operand's placement moves the kernel says whether a timer
# that re-places only the inputs (a candidate's parameters are its own) would sample the spread.
PLACE_MODES = tuple(f"{who}place{i}" for who, n in (("", PLACEMENTS), ("x", 4), ("w", 4)) for i in range(n))
PREP = {"plain": (), "read": ("flush",), "read_code": ("flush", "code"), "read_code_rotate": ("flush", "code"),
        "read_tlb": ("tlb", "flush"), "all": ("tlb", "flush", "code"), "read_idle": ("flush", "idle"),
        "hone_l2": ("hone_l2",), "hone_flush": ("hone_flush",), "prologue": ()}
PREP.update({m: () for m in PLACE_MODES})
ROTATE = 24  # read_code_rotate: each call writes the next of this many outputs, as hone's calls write their own slots
CODE_STEPS = 4000  # ~3 instructions each: ~190 KB of SASS
TLB_BYTES, TLB_STRIDE = 32 << 30, 64 << 10

KERNELS = r'''
#include <cuda_runtime.h>
#include <cstdint>
extern "C" __global__ void probe_relu(const float* x, float* y, long n) {
  long i = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(x[i], 0.0f);
}
extern "C" __global__ void probe_flush(const uint4* b, size_t words, unsigned* sink) {
  unsigned acc = 0;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += size_t(gridDim.x) * blockDim.x) {
    uint4 w = b[i]; acc ^= w.x ^ w.y ^ w.z ^ w.w;
  }
  if (acc == 0x9e3779b9u) sink[0] = acc;
}
extern "C" __global__ void probe_tlb(const unsigned char* b, size_t bytes, size_t stride, unsigned* sink) {
  unsigned acc = 0;
  for (size_t o = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) * stride; o < bytes; o += size_t(gridDim.x) * blockDim.x * stride)
    acc += *(const volatile unsigned*)(b + o);
  if (acc == 0x9e3779b9u) sink[1] = acc;
}
extern "C" __global__ void probe_code(unsigned* sink, unsigned seed) {
  unsigned x = seed ^ threadIdx.x, y = seed * 0x85ebca6bu + blockIdx.x;
@@BODY@@
  if ((x ^ y) == 0x9e3779b9u) sink[2] = x;
}
extern "C" int probe_launch(int what, const void* a, void* b, long n, void* stream) {
  cudaStream_t s = (cudaStream_t)stream;
  int sms = 0; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  switch (what) {
    case 0: probe_relu<<<(n + 255) / 256, 256, 0, s>>>((const float*)a, (float*)b, n); break;
    case 1: probe_flush<<<sms * 8, 256, 0, s>>>((const uint4*)a, size_t(n) / 16, (unsigned*)b); break;
    case 2: probe_tlb<<<sms * 4, 256, 0, s>>>((const unsigned char*)a, size_t(n), %(stride)d, (unsigned*)b); break;
    case 3: probe_code<<<sms * 2, 32, 0, s>>>((unsigned*)b, 12345u); break;
  }
  return (int)cudaGetLastError();
}
'''


def code_body() -> str:
    lines = []
    for i in range(CODE_STEPS):
        c1, c2, r = (0x9E3779B1 * (i + 1)) & 0xFFFFFFFF, (0x7F4A7C15 * (i + 7)) & 0xFFFFFFFF, 1 + (i * 7) % 31
        lines.append(f"  x = __funnelshift_l(x, x, {r}) ^ 0x{c1:08x}u; y = y * 0x{c2 | 1:08x}u + x;")
    return "\n".join(lines)


def build(out: str, nvcc: str) -> str:
    src = os.path.join(out, "probe_kernels.cu")
    lib = os.path.join(out, "probe_kernels.so")
    with open(src, "w") as f:
        f.write(KERNELS.replace("@@BODY@@", code_body()).replace("%(stride)d", str(TLB_STRIDE)))
    started = time.perf_counter()
    subprocess.run([nvcc, "-O3", "-arch=sm_90", "-shared", "-Xcompiler", "-fPIC", "-o", lib, src], check=True)
    print(f"built {lib}: {os.path.getsize(lib)} bytes in {time.perf_counter() - started:.1f} s", flush=True)
    return lib


def labels(target: str) -> tuple:
    """What a run times: relu at each size, or the one linear."""
    return tuple(str(k) for k in SIZES) if target == "relu" else ("linear",)


def modes(target: str) -> tuple:
    return MODES if target == "relu" else LINEAR_MODES + PLACE_MODES


def hone_flushed(mode: str) -> bool:
    """Whether a mode's preparation is one of libhone_harness's flushes."""
    return bool(PREP[mode]) and PREP[mode][0].startswith("hone")


def armed(mode: str) -> bool:
    """Whether a counted mode runs with hone's kernel prologue armed around the call."""
    return mode == "prologue" or "place" in mode


class HoneFlush:
    """libhone_harness's flushes (the judge's own kernels) and its kernel prologue's arguments."""

    def __init__(self, path: str, buffer: int, size: int, sink: int) -> None:
        vp = ctypes.c_void_p
        self.lib = ctypes.CDLL(path)
        for name in ("hone_harness_flush", "hone_harness_flush_l2"):
            getattr(self.lib, name).argtypes = [vp, vp, ctypes.c_size_t, vp]
        self.buffer, self.size, self.sink = buffer, size, sink

        class Args(ctypes.Structure):
            _fields_ = [("buffer", vp), ("bytes", ctypes.c_size_t), ("sink", vp)]

        self.args = Args(buffer, size, sink)
        self.prologue = ctypes.cast(self.lib.hone_harness_flush_prologue, vp).value

    def launch(self, stream: int, evict_code: bool) -> None:
        fn = self.lib.hone_harness_flush if evict_code else self.lib.hone_harness_flush_l2
        rc = fn(stream or None, self.buffer, self.size, self.sink)
        if rc:
            raise RuntimeError(f"hone_harness_flush (evict_code {evict_code}) failed: cudaError {rc}")


class Probe:
    def __init__(self, lib_path: str, target: str = "relu", harness: str = ""):
        import torch

        self.torch = torch
        self.lib = ctypes.CDLL(lib_path)
        self.lib.probe_launch.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p]
        dev = torch.device("cuda")
        l2 = torch.cuda.get_device_properties(dev).L2_cache_size
        self.flush = torch.ones(2 * l2, dtype=torch.uint8, device=dev)
        self.tlb = torch.empty(TLB_BYTES, dtype=torch.uint8, device=dev)
        self.sink = torch.zeros(4, dtype=torch.int32, device=dev)
        self.stream = torch.cuda.current_stream().cuda_stream
        self.data = {str(k): (torch.randn(1 << k, device=dev), torch.empty(1 << k, device=dev)) for k in SIZES}
        self.rotated = {str(k): [torch.empty(1 << k, device=dev) for _ in range(ROTATE)] for k in SIZES}
        batch, fan_in, fan_out = LINEAR
        self.linear = (torch.randn(batch, fan_in, device=dev), torch.randn(fan_out, fan_in, device=dev),
                       torch.randn(fan_out, device=dev))
        self.placed = []
        if target == "linear":  # x, W, b copied to offsets ~4 MiB apart (256-byte aligned) in one buffer
            pool = torch.empty(96 << 18, device=dev)  # 96 MiB of floats
            for i in range(PLACEMENTS):
                at, views = (i * 4111 * 1024 + i * i * 37 * 256) // 4, []
                for t in self.linear:
                    v = pool[at:at + t.numel()].view(t.shape)
                    v.copy_(t)
                    views.append(v)
                    at += (t.numel() * 4 + 4096 + 255) // 256 * 64
                self.placed.append(tuple(views))
            self.pool = pool
        self.turn = 0
        self.hone = HoneFlush(harness, self.flush.data_ptr(), self.flush.numel(), self.sink.data_ptr() + 12) \
            if harness and os.path.isfile(harness) else None

    def launch(self, what: int, a, b, n: int) -> None:
        rc = self.lib.probe_launch(what, a, b, n, self.stream)
        if rc:
            raise RuntimeError(f"probe_launch({what}) failed: cudaError {rc}")

    def call(self, size: str, mode: str) -> int:
        """One call's preparation and the timed call (relu at 2^size, or the linear); returns how many
        preparation kernels it launched."""
        kernels = 0
        for step in PREP[mode]:
            if step == "flush":
                self.launch(1, self.flush.data_ptr(), self.sink.data_ptr(), self.flush.numel()); kernels += 1
            elif step == "tlb":
                self.launch(2, self.tlb.data_ptr(), self.sink.data_ptr(), self.tlb.numel()); kernels += 1
            elif step == "code":
                self.launch(3, 0, self.sink.data_ptr(), 0); kernels += 1
            elif step in ("hone_l2", "hone_flush"):
                self.hone.launch(self.stream, evict_code=step == "hone_flush"); kernels += 1
            elif step == "idle":
                self.torch.cuda.synchronize()
                time.sleep(0.002)
        if size == "linear":
            operands = self.linear
            if "place" in mode:
                who, i = mode.split("place")
                placed = self.placed[int(i)]
                operands = {"": placed, "x": (placed[0],) + self.linear[1:], "w": (self.linear[0],) + placed[1:]}[who]
            self.torch.nn.functional.linear(*operands)
            return kernels
        x, y = self.data[size]
        if mode == "read_code_rotate":
            y, self.turn = self.rotated[size][self.turn % ROTATE], self.turn + 1
        self.launch(0, x.data_ptr(), y.data_ptr(), x.numel())
        return kernels


def sm_clock() -> str:
    """nvidia-smi's SM clock now (the DVFS state the calls just ran in), or why not."""
    try:
        q = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm", "--format=csv,noheader"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=10)
        return q.stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        return f"unknown ({exc})"


def counted(args) -> dict:
    cupti = ctypes.CDLL(args.cupti)  # before torch: the one CUPTI of the process
    for name in ("hone_cupti_begin", "hone_cupti_prepare"):
        getattr(cupti, name).argtypes = [ctypes.c_char_p]
        getattr(cupti, name).restype = ctypes.c_char_p
    cupti.hone_cupti_end.argtypes = []
    cupti.hone_cupti_end.restype = ctypes.c_char_p
    probe = Probe(args.lib, args.target, args.harness)
    torch = probe.torch
    out = {"setup": {}, "counted": {}}
    cupti.hone_cupti_kernel_prologue.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    cupti.hone_cupti_kernel_prologue.restype = ctypes.c_char_p
    for size in labels(args.target):  # warm code and clocks
        for mode in modes(args.target)[:-1]:
            if hone_flushed(mode) and probe.hone is None:
                continue
            for _ in range(5):
                probe.call(size, mode)
    torch.cuda.synchronize()
    for ranges in (32, 256, 1024, 32):  # the set-up's cost against the counter image's size
        request = {"metrics": ["gpu__time_duration.sum"], "max_ranges": ranges, "max_passes": 1}
        begun = json.loads(cupti.hone_cupti_begin(json.dumps(request).encode()))
        probe.call(labels(args.target)[0], "read")
        torch.cuda.synchronize()
        ended = json.loads(cupti.hone_cupti_end())
        out["setup"][ranges] = (ended.get("seconds") or {}) if begun.get("ok") else begun
        print(f"set-up with max_ranges {ranges}: {json.dumps(out['setup'][ranges])}", flush=True)
    calls = args.calls
    for size in labels(args.target):
        for mode in modes(args.target):
            if (armed(mode) or hone_flushed(mode)) and probe.hone is None:
                print(f"{size} {mode}: skipped, no libhone_harness.so (--harness)", flush=True)
                continue
            prep_n = len(PREP[mode]) - PREP[mode].count("idle")
            request = {"metrics": ["gpu__time_duration.sum"], "max_ranges": calls * (prep_n + 8) + 8, "max_passes": 1}
            if armed(mode):  # as a counted call: hone_flush before each of the call's kernels
                request["kernel_prologue"] = True
            begun = json.loads(cupti.hone_cupti_begin(json.dumps(request).encode()))
            if not begun.get("ok"):
                print(f"{size} {mode}: begin failed {begun}", flush=True)
                continue
            for _ in range(calls):
                if armed(mode):
                    answer = json.loads(cupti.hone_cupti_kernel_prologue(probe.hone.prologue, ctypes.addressof(probe.hone.args)))
                    if not answer.get("ok"):
                        print(f"{size} {mode}: arming failed {answer}", flush=True)
                        break
                probe.call(size, mode)
                if armed(mode):
                    cupti.hone_cupti_kernel_prologue(None, ctypes.addressof(probe.hone.args))
            torch.cuda.synchronize()
            clock = sm_clock()
            ended = json.loads(cupti.hone_cupti_end())
            if armed(mode):
                print(f"{size} {mode}: {json.dumps(ended.get('kernel_prologue'))}", flush=True)
            ranges = (ended.get("metrics") or {}).get("ranges", [])
            per = len(ranges) // calls  # the preparation's kernels, then the call's (one relu; linear's cuBLAS kernels)
            if per <= prep_n or len(ranges) != calls * per:
                print(f"{size} {mode}: {len(ranges)} ranges for {calls} calls of {prep_n} preparation kernels", flush=True)
                continue
            prep = [sum(r["values"]["gpu__time_duration.sum"] for r in ranges[i * per:i * per + prep_n]) / 1000.0
                    for i in range(calls)]
            for k in range(prep_n, per):  # each kernel of the call alone (its position: the Range Profiler names none)
                us = [ranges[i * per + k]["values"]["gpu__time_duration.sum"] / 1000.0 for i in range(calls)]
                ordered = sorted(us)
                spread = (ordered[len(us) * 9 // 10] - ordered[len(us) // 10]) / statistics.median(us)
                key = f"{size}|{mode}" + (f"|{k - prep_n}" if per - prep_n > 1 else "")
                out["counted"][key] = {"p50": statistics.median(us), "min": min(us), "max": max(us),
                                       "spread": spread, "prep_p50": statistics.median(prep)}
                print(f"counted {key:<22} p50 {statistics.median(us):7.3f} us  min {min(us):7.3f}  max "
                      f"{max(us):7.3f}  p10..p90 {100 * spread:4.1f}%  (preparation {statistics.median(prep):8.2f} us)"
                      f"  SM clock after: {clock}", flush=True)
    return out


def ncu_child(args) -> None:
    probe = Probe(args.lib, args.target, args.harness)
    torch = probe.torch
    usable = [m for m in modes(args.target) if not (hone_flushed(m) and probe.hone is None)]
    for size in labels(args.target):
        for mode in usable[:-1]:
            probe.call(size, mode)
    torch.cuda.synchronize()
    for size in labels(args.target):
        for mode in usable:  # prologue: the call alone (ncu's flush stands before each kernel)
            torch.cuda.nvtx.range_push(f"gap|{size}|{mode}")
            for _ in range(args.ncu_calls):
                probe.call(size, mode)
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_pop()


def parse_ncu(text: str, target: str = "relu") -> dict:
    """ncu's median per nvtx range of the timed call's kernels (for linear: each cuBLAS kernel in
    launch order within a call, keyed like the counted ones); the preparation's kernels left out."""
    launches, names = ncu_launches(text, GAP_RANGE)
    found = {}
    for key, values in launches.items():
        position, first = 0, None
        for name, us in zip(names[key], values):
            if name.startswith(("probe_", "hone_")) and name != "probe_relu":
                continue
            if target == "linear":  # a call's kernels in launch order: its first kernel starts each call
                first = first or name
                position = 0 if name == first else position + 1
            found.setdefault(key + (f"|{position}" if target == "linear" else ""), []).append(us)
    return {k: statistics.median(v) for k, v in found.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", nargs="?", default="run", choices=["run", "counted", "ncu-child"])
    ap.add_argument("--cupti", default=os.environ.get("HONE_CUPTI_LIBRARY", "build/share/hone/lib/libhone_cupti.so"))
    ap.add_argument("--lib", default=None)
    ap.add_argument("--out", default="/tmp/ncu_gap")
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--calls", type=int, default=40)
    ap.add_argument("--ncu-calls", type=int, default=9)
    ap.add_argument("--target", choices=["relu", "linear"], default="relu")
    ap.add_argument("--harness", default=os.environ.get("HONE_HARNESS_LIBRARY", ""),
                    help="libhone_harness.so (default: beside --cupti's library)")
    args = ap.parse_args()
    if args.mode == "counted":
        print("COUNTED " + json.dumps(counted(args)), flush=True)
        return 0
    if args.mode == "ncu-child":
        ncu_child(args)
        return 0
    os.makedirs(args.out, exist_ok=True)
    args.harness = args.harness or os.path.join(os.path.dirname(os.path.abspath(args.cupti)), "libhone_harness.so")
    args.lib = build(args.out, args.nvcc)
    me = [sys.executable, os.path.abspath(__file__), "--lib", args.lib, "--cupti", args.cupti,
          "--calls", str(args.calls), "--ncu-calls", str(args.ncu_calls), "--target", args.target,
          "--harness", args.harness]
    p = subprocess.run(me[:2] + ["counted"] + me[2:], stdout=subprocess.PIPE, text=True, timeout=240)
    print("\n".join(line for line in p.stdout.splitlines() if not line.startswith("COUNTED ")), flush=True)
    result = next((json.loads(line[8:]) for line in p.stdout.splitlines() if line.startswith("COUNTED ")), {})
    timed = ["-k", "regex:probe_relu"] if args.target == "relu" else []  # linear: parse_ncu drops the preparation
    base = [args.ncu, "--clock-control", "none", "--metrics", "gpu__time_duration.sum", *timed,
            "--nvtx", "--csv", "--print-units", "base"]
    for label, extra in (("ncu", []), ("ncu_no_flush", ["--cache-control", "none"])):
        q = subprocess.run(base + extra + me[:2] + ["ncu-child"] + me[2:], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=300)
        result[label] = parse_ncu(q.stdout, args.target)
        if not result[label]:
            print(f"{label}: no rows; rc {q.returncode}: {q.stdout[-800:]}", flush=True)
    print("\ncall|mode[|kernel]            | counted | ncu (flush all) | ncu (no flush) | counted - ncu", flush=True)
    counted_p50 = {}
    for key, entry in (result.get("counted") or {}).items():
        parts = key.split("|")
        if armed(parts[1]) and len(parts) == 3:  # the prologue's flushes stand at the even positions
            if int(parts[2]) % 2 == 0:
                continue
            key = "|".join(parts[:2] + [str(int(parts[2]) // 2)])
        counted_p50[key] = entry["p50"]
    for key in sorted(set(counted_p50) | set(result.get("ncu", {}))):
        c = counted_p50.get(key, float("nan"))
        n, w = result.get("ncu", {}).get(key, float("nan")), result.get("ncu_no_flush", {}).get(key, float("nan"))
        print(f"{key:<28} | {c:7.3f} | {n:7.3f} | {w:7.3f} | {c - n:+.3f}", flush=True)
    with open(os.path.join(args.out, "ncu_gap.json"), "w") as f:
        json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

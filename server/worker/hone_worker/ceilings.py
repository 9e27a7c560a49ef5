"""The `measure_ceilings` method: the two roofline ceilings measured once per GPU (the C++ side
caches them): device-to-device copy bandwidth (read + write bytes counted) and a large matmul's
rate per dtype, each the median of CUDA-event-timed repetitions after a warm-up. Also runnable as
`python3 -m hone_worker.ceilings [--device cuda:0]`, which prints the JSON."""
import argparse
import datetime
import json
import statistics
import sys

from .channel import Request
from .errors import Unsupported

COPY_BYTES = 1 << 30  # 1 GiB each way: far beyond any L2
MATMUL_N = 8192
WARMUP, REPS = 3, 10
# precision name (server/profile/gpu_specs.h) -> torch dtype name and whether TF32 is allowed.
MATMULS = (("fp32", "float32", False), ("tf32_tensor", "float32", True), ("fp16_tensor", "float16", False),
           ("bf16_tensor", "bfloat16", False))


def handle_measure_ceilings(params: dict, request: Request) -> dict:
    from .devices import parse_device

    device = parse_device(params.get("device", "cpu"))
    if not device.is_cuda:
        raise Unsupported(f"ceilings are measured on CUDA devices, not {device}")
    return measure(device.index, lambda m: request.progress("ceilings", m))


def _median_seconds(torch, fn) -> tuple:
    """Median and spread ((max - min) / median) of REPS event-timed calls after WARMUP calls."""
    for _ in range(WARMUP):
        fn()
    times = []
    for _ in range(REPS):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    median = statistics.median(times)
    return median, (max(times) - min(times)) / median


def measure(index: int, progress=lambda m: None) -> dict:
    import torch

    torch.cuda.set_device(index)
    details = {"warmup": WARMUP, "reps": REPS}
    progress(f"device-to-device copy of {COPY_BYTES >> 20} MiB")
    src = torch.empty(COPY_BYTES, dtype=torch.uint8, device=f"cuda:{index}")
    dst = torch.empty_like(src)
    seconds, spread = _median_seconds(torch, lambda: dst.copy_(src))
    copy = 2 * COPY_BYTES / seconds
    details["copy"] = {"bytes_each_way": COPY_BYTES, "median_s": seconds, "spread": spread}
    del src, dst
    flops = {}
    tf32 = torch.backends.cuda.matmul.allow_tf32
    try:
        for precision, dtype_name, allow_tf32 in MATMULS:
            dtype = getattr(torch, dtype_name)
            progress(f"{MATMUL_N}^3 matmul, {precision}")
            torch.backends.cuda.matmul.allow_tf32 = allow_tf32
            a = torch.randn(MATMUL_N, MATMUL_N, device=f"cuda:{index}", dtype=dtype)
            b = torch.randn(MATMUL_N, MATMUL_N, device=f"cuda:{index}", dtype=dtype)
            out = torch.empty_like(a)
            seconds, spread = _median_seconds(torch, lambda: torch.matmul(a, b, out=out))
            flops[precision] = 2 * MATMUL_N ** 3 / seconds
            details[precision] = {"n": MATMUL_N, "median_s": seconds, "spread": spread}
            del a, b, out
    finally:
        torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.cuda.empty_cache()
    return {
        "device_name": torch.cuda.get_device_name(index),
        "torch_version": torch.__version__,
        "measured_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "dram_copy_bytes_per_s": copy,
        "matmul_flops_per_s": flops,
        "details": details,
    }


def main(argv) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m hone_worker.ceilings")
    parser.add_argument("--device", default="cuda:0")
    args = parser.parse_args(argv)
    from .devices import parse_device
    from .errors import WorkerError

    try:
        device = parse_device(args.device)
    except WorkerError as exc:
        print(exc.message, file=sys.stderr)
        return 2
    if not device.is_cuda:
        print(f"ceilings are measured on CUDA devices, not {device}", file=sys.stderr)
        return 2
    print(json.dumps(measure(device.index), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""bench/probes/plain_events.py: the plain-events instrument issued from Python, shared by the
benchmark and the probes: before each call the L2 read-flushed (a sum over a buffer larger than
it) and the device idle, then an event, the call, an event (KernelBench's method)."""


def warm_clocks(buffer, seconds: float = 0.3) -> None:
    """Work on the GPU for `seconds` (sums over `buffer`, a CUDA tensor), then waits for it: the
    clocks up before anything is timed or profiled."""
    import time

    import torch

    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        buffer.sum()
    torch.cuda.synchronize()


def warm_calls(fn, seconds: float = 0.1, least: int = 10) -> None:
    """Calls fn() for `seconds` and `least` times at least, then waits for the GPU: the caller's
    code paths warm before its events are read (ten calls alone left the first case of a process
    reading 95 us against 22, H100, 2026-12-06)."""
    import time

    import torch

    began, n = time.perf_counter(), 0
    while n < least or time.perf_counter() - began < seconds:
        fn()
        n += 1
    torch.cuda.synchronize()


def plain_events_us(fn, flush, sink, calls: int, ahead: bool = False) -> list:
    """Microseconds between the events around each of `calls` calls of fn(); `flush` a CUDA
    tensor of at least twice the L2, `sink` a scalar CUDA tensor the flush's sum goes into.
    KernelBench's method makes two torch events a call, and torch makes an event's CUDA event at
    its first record, so its end event's making lies inside the window it reads; `ahead` makes
    (and records once) every call's events before the first call, as hone's clock and a C caller
    (call_events.cu) make theirs."""
    import torch

    made = []
    if ahead:
        made = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(calls)]
        for pair in made:
            pair[0].record()
            pair[1].record()
        torch.cuda.synchronize()
    times = []
    for k in range(calls):
        torch.add(sink, flush.sum(), out=sink)  # the read flush
        torch.cuda.synchronize()
        start, end = made[k] if ahead else (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000.0)
    return times


def context_holder(python_cmd: list):
    """A process (python_cmd, e.g. [taskset, -c, 0, python3]) that makes a CUDA context and keeps
    it idle until its stdin closes, as hone's judge keeps its own beside the runners; None, said on
    stderr, if it did not start. The caller closes its stdin and waits for it."""
    import subprocess
    import sys

    code = ("import sys, torch; torch.zeros(1, device='cuda'); torch.cuda.synchronize(); "
            "print('ready', flush=True); sys.stdin.read()")
    p = subprocess.Popen(python_cmd + ["-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    if p.stdout.readline().strip() != "ready":
        p.kill()
        print("the context holder did not start: no idle CUDA context beside the events", file=sys.stderr, flush=True)
        return None
    return p


def host_clock_us(fn, flush, calls: int) -> list:
    """The CPU's counterpart: microseconds of the steady clock around each of `calls` calls of fn(),
    after a sum over `flush` (a CPU tensor larger than the last-level cache) and 10 warm-up calls."""
    import time

    for _ in range(10):
        fn()
    times = []
    for _ in range(calls):
        flush.sum()
        started = time.perf_counter_ns()
        fn()
        times.append((time.perf_counter_ns() - started) / 1000.0)
    return times

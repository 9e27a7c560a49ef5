"""Timing a call honestly: a cache flush (2x the L2 on the GPU, 2x the last-level cache on the
CPU) and an input change before every call, one CUDA event pair (or host clock pair) around each
call, warm-up and repetitions from time budgets (counting everything an iteration costs), and
percentiles of the samples."""
import math
import os
import random
import statistics
import time
from dataclasses import dataclass
from typing import Callable, List, Optional

import torch

from .devices import Device

NOISY_SPREAD = 0.2  # (p90 - p10) / p50 above which a timing is flagged noisy


@dataclass(frozen=True)
class Budget:
    warmup_ms: float
    rep_ms: float
    min_reps: int
    max_reps: int
    spot_checks: int


@dataclass
class Timing:
    """The samples of one timing run, in microseconds."""

    samples_us: List[float]
    warmup: int
    method: str
    spot_checks: int
    input_sets: int

    def percentile(self, q: float) -> float:
        ordered = sorted(self.samples_us)
        position = (len(ordered) - 1) * q
        low, high = math.floor(position), math.ceil(position)
        return ordered[low] + (ordered[high] - ordered[low]) * (position - low)

    @property
    def spread(self) -> float:
        """(p90 - p10) / p50."""
        p50 = self.percentile(0.5)
        return (self.percentile(0.9) - self.percentile(0.1)) / p50 if p50 > 0 else 0.0

    def to_json(self) -> dict:
        return {
            "p50_us": self.percentile(0.5),
            "p10_us": self.percentile(0.1),
            "p90_us": self.percentile(0.9),
            "mean_us": statistics.fmean(self.samples_us),
            "min_us": min(self.samples_us),
            "max_us": max(self.samples_us),
            "reps": len(self.samples_us),
            "warmup": self.warmup,
            "method": self.method,
            "spot_checks": self.spot_checks,
            "input_sets": self.input_sets,
        }


class CudaClock:
    """CUDA events on the current stream; flushes L2 by writing a buffer twice its size."""

    method = "cuda_events_l2_flush"

    def __init__(self, device: Device) -> None:
        self.device = device
        l2 = getattr(torch.cuda.get_device_properties(device.index), "L2_cache_size", 0) or (64 << 20)
        self._flush = torch.empty(2 * l2, dtype=torch.uint8, device=device.torch)

    def run(self, count: int, before: Callable[[int], None], call: Callable[[], object],
            after: Callable[[int, object], None]) -> List[float]:
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(count)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(count)]
        for i in range(count):
            before(i)
            self._flush.zero_()
            starts[i].record()
            out = call()
            ends[i].record()
            after(i, out)
            del out
        torch.cuda.synchronize()  # every stream of the device, before any clock is read
        return [s.elapsed_time(e) * 1000.0 for s, e in zip(starts, ends)]


class HostClock:
    """time.perf_counter around each call; flushes the caches by writing twice the last level."""

    method = "host_clock"

    def __init__(self, device: Device) -> None:
        self._flush = torch.empty(2 * _last_level_cache_bytes(), dtype=torch.uint8)

    def run(self, count: int, before: Callable[[int], None], call: Callable[[], object],
            after: Callable[[int, object], None]) -> List[float]:
        samples = []
        for i in range(count):
            before(i)
            self._flush.zero_()
            start = time.perf_counter()
            out = call()
            samples.append((time.perf_counter() - start) * 1e6)
            after(i, out)
            del out
        return samples


def make_clock(device: Device):
    return CudaClock(device) if device.is_cuda else HostClock(device)


def time_calls(clock, call: Callable[[], object], budget: Budget, vary: Callable[[], None], input_sets: int,
               spot_check: Optional[Callable[[int, int, object], None]] = None,
               prepare_spot: Optional[Callable[[], None]] = None, seed: int = 0) -> Timing:
    """Times `call`: `vary` runs before every call; `spot_check(i, n, outputs)` checks the outputs
    of a few randomly chosen timed calls and of the last (after `prepare_spot` before them)."""
    def nothing(i, out=None):
        return None

    def before(i):
        vary()

    # The budgets count what an iteration costs (input change, cache flush, call, and on the GPU
    # the device work of all three), not only the timed call: a 64 MB host flush before a 0.1 ms
    # call must not turn a 100 ms budget into seconds.
    started = time.perf_counter()
    call_ms = statistics.median(clock.run(3, before, call, nothing)) / 1000.0
    iteration_ms = max(call_ms, (time.perf_counter() - started) * 1000.0 / 3)
    warmup = _clamp(budget.warmup_ms / max(iteration_ms, 1e-6), 1, budget.max_reps)
    clock.run(warmup, before, call, nothing)
    reps = _clamp(budget.rep_ms / max(iteration_ms, 1e-6), budget.min_reps, budget.max_reps)
    chosen = set()
    if spot_check is not None and budget.spot_checks > 0:
        chosen = set(random.Random(seed).sample(range(reps), min(budget.spot_checks, reps)))
        chosen.add(reps - 1)

    def before_timed(i):
        vary()
        if i in chosen and prepare_spot is not None:
            prepare_spot()

    def after_timed(i, out):
        if i in chosen:
            spot_check(i, reps, out)

    samples = clock.run(reps, before_timed, call, after_timed)
    return Timing(samples, warmup, clock.method, len(chosen), input_sets)


def _clamp(value: float, low: int, high: int) -> int:
    return int(max(low, min(high, math.ceil(value))))


def _last_level_cache_bytes() -> int:
    base = "/sys/devices/system/cpu/cpu0/cache"
    best = 0
    try:
        for entry in os.listdir(base):
            try:
                with open(os.path.join(base, entry, "size")) as f:
                    text = f.read().strip()
            except OSError:
                continue
            units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
            value = int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)
            best = max(best, value)
    except (OSError, ValueError):
        pass
    return best or (32 << 20)

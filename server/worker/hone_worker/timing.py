"""Timing statistics: the samples of one measured time (call time or device time), their
percentiles and spread, the clamp of repetitions to a policy's bounds, and the cache size the
runner's flush must exceed. The calls themselves run in the candidate process (the `time` op);
hone_worker/timed_runs.py drives them."""
import math
import os
import statistics
from dataclasses import dataclass
from typing import List

NOISY_SPREAD = 0.2  # (p90 - p10) / p50 above which a timing is flagged noisy
MEDIAN_Z = 1.96  # the median's interval: 95%
# HONE_TIMING_SAMPLES=1: each time's summary also carries its samples, in the order the calls ran
# (`samples_us`), for whoever wants to see the distribution behind p10..p90 (bench/timing_truth).
SAMPLES_VARIABLE = "HONE_TIMING_SAMPLES"


def samples_asked() -> bool:
    return os.environ.get(SAMPLES_VARIABLE, "") not in ("", "0")


def median_interval(samples: List[float]) -> tuple:
    """The distribution-free 95% confidence interval of the median: the order statistics ranked
    (n - z sqrt(n)) / 2 and 1 + (n + z sqrt(n)) / 2 (the binomial's normal approximation); the
    whole range below 6 samples. It says how precisely p50 is known (issue 14: per-call jitter of
    a few percent is the GPU's; the median of hundreds of calls is far tighter), taking the calls
    as independent."""
    ordered = sorted(samples)
    n = len(ordered)
    if n < 6:
        return ordered[0], ordered[-1]
    half = MEDIAN_Z * math.sqrt(n)
    low = max(1, math.floor((n - half) / 2))
    high = min(n, math.ceil(1 + (n + half) / 2))
    return ordered[low - 1], ordered[high - 1]


@dataclass
class Timing:
    """The samples of one timing run, in microseconds."""

    samples_us: List[float]
    warmup: int
    method: str
    spot_checks: int
    input_sets: int
    calls_per_sample: int = 1  # each sample the mean of this many consecutive calls (counted device time)

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

    def summary(self) -> dict:
        """The verdict's `timing.call` / `timing.device` object (with the samples where
        HONE_TIMING_SAMPLES asks)."""
        low, high = median_interval(self.samples_us)
        out = {
            "p50_us": self.percentile(0.5),
            "p10_us": self.percentile(0.1),
            "p90_us": self.percentile(0.9),
            "p50_low_us": low,
            "p50_high_us": high,
            "mean_us": statistics.fmean(self.samples_us),
            "min_us": min(self.samples_us),
            "max_us": max(self.samples_us),
            "reps": len(self.samples_us),
            "spread": self.spread,
            "noisy": self.spread > NOISY_SPREAD,
            "method": self.method,
        }
        if self.calls_per_sample > 1:
            out["calls_per_sample"] = self.calls_per_sample
        if samples_asked():
            out["samples_us"] = list(self.samples_us)
        return out

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


def clamp(value: float, low: int, high: int) -> int:
    return int(max(low, min(high, math.ceil(value))))


def last_level_cache_bytes() -> int:
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

"""The judge's bounds on a candidate process's timing claims. The judge reads its own clock around
every `time` op (mode call: from sending it to the reply; mode device: from writing the release
word to the runner's `finished`, when the judge copies the output slots) and subtracts what the same loop costs with nothing in it (the `null` form,
measured in a clean process of the same runner kind on the same buffers: a fixed cost per op and
a cost per call). Claims far below what its clock allows are rejected with both numbers; so is a
device time above the call time."""
import time
from dataclasses import dataclass
from typing import Dict, Optional, Sequence, Tuple

RATIO = 3.0  # a claim this many times below the judge's estimate ...
MARGIN_US = 20.0  # ... and more than this many microseconds per call below it is rejected
# Of the null loop's cost per call: how much the loop's own cost may vary between the null
# measurement and a pass (CUDA: a read kernel's steady time; CPU: a pass over twice the
# last-level cache, memory-bound and shared with whatever else the machine runs: seen 40-80% off
# on a busy 2-core machine, also against a null loop measured just before the pass). On the CPU the
# bound so catches claims false by more than the flush's own cost (~2 ms per call on that machine),
# such as a clock slowed 50x on a kernel of a few milliseconds.
NOISE_SHARE = {True: 0.2, False: 1.0}
# A pass the bounds still reject after its retries, on a machine that other processes kept busy
# (machine_load.BUSY_SHARE) while it ran, by a gap the loop's own work explains if it ran up to this
# many times its null cost per call (beyond the op's allowance), is neither passed nor rejected: its time is withheld (the
# outputs stay verified). Under CI's load plus a concurrent job the CPU flush was seen 2.5x slower
# than a null loop measured just before the pass (memory bandwidth and SMT siblings are shared), so
# an honest kernel of 99 us was judged at 3555 us per call beyond a null loop of 2281 us; no timing
# claim is believed on such a machine, and a larger gap is still rejected.
BUSY_LOOP_SLOWDOWN = 3.0
DEVICE_OVER_CALL = 1.1  # device time may exceed call time by this factor (plus 1 us) before it is rejected
CACHE_S = 120.0  # how long one measurement of the null loop is reused for the same buffers
# CPU time the candidate's other threads may use in an op beyond the timed calls' time on each
# usable CPU: a fixed part per op and a share of the op's window.
CPU_SLACK_US, CPU_SLACK_SHARE = 500.0, 0.01


@dataclass(frozen=True)
class LoopCost:
    """The null form's loop on the judge's clock: `fixed_us` per op, `per_call_us` per call."""

    fixed_us: float
    per_call_us: float

    @staticmethod
    def from_two(calls_a: int, elapsed_a_us: float, calls_b: int, elapsed_b_us: float) -> "LoopCost":
        """From two null ops of different lengths (the difference is the per-call cost)."""
        per_call = max(0.0, (elapsed_b_us - elapsed_a_us) / max(1, calls_b - calls_a))
        return LoopCost(max(0.0, elapsed_a_us - calls_a * per_call), per_call)


@dataclass(frozen=True)
class Bound:
    """One `time` op's claims against the judge's clock (microseconds per call)."""

    mode: str
    calls: int
    claimed_us: float  # the mean of the claimed times
    judge_us: float  # the judge's clock per call, less the null loop's cost
    null_us: Optional[float]  # the null loop's cost per call (None: not measured)
    allowed_us: float  # how far below judge_us a claim may be without a reason

    def violation(self) -> Optional[str]:
        """Why the claims cannot be true, or None."""
        if self.judge_us > RATIO * self.claimed_us and self.judge_us - self.claimed_us > self.allowed_us:
            null = f", after subtracting the loop's own cost of {self.null_us:.1f} us per call" if self.null_us else ""
            return (f"timing claims are not what the judge's clock saw: the candidate process reported "
                    f"{self.claimed_us:.1f} us per call ({self.mode} time, mean of {self.calls} calls), but the "
                    f"judge's own clock measured {self.judge_us:.1f} us per call{null}; a candidate that slows "
                    "the clocks of its process (or hides work outside the timed calls) cannot be timed")
        return None

    def busy_excess_explained(self) -> bool:
        """Whether a machine busy with other processes could explain the whole gap between the
        judge's clock and the claims: the loop's own work taking up to BUSY_LOOP_SLOWDOWN times the
        null loop's cost per call (the judge's estimate has one null loop subtracted already), beyond
        the allowance (never without a measured null loop)."""
        if not self.null_us:
            return False
        return self.judge_us - self.claimed_us <= (BUSY_LOOP_SLOWDOWN - 1.0) * self.null_us + self.allowed_us

    @staticmethod
    def from_json(j: dict) -> "Bound":
        return Bound(j["mode"], j["calls"], j["claimed_us_per_call"], j["judge_us_per_call"], j["null_us_per_call"],
                     j["allowed_us"])

    def to_json(self) -> dict:
        return {"mode": self.mode, "calls": self.calls, "claimed_us_per_call": self.claimed_us,
                "judge_us_per_call": self.judge_us, "null_us_per_call": self.null_us, "allowed_us": self.allowed_us}


def bound(mode: str, claimed_us: Sequence[float], elapsed_us: float, null: Optional[LoopCost], cuda: bool,
          extra_us: float = 0.0) -> Bound:
    """The bound of one op: `elapsed_us` on the judge's clock for len(claimed_us) calls; `extra_us`
    per call is loop work the null form does not do (touching the output slot, copying a
    torch-form result into it)."""
    calls = max(1, len(claimed_us))
    fixed = null.fixed_us if null else 0.0
    per_call = null.per_call_us if null else 0.0
    judge = max(0.0, (elapsed_us - fixed) / calls - per_call)
    allowed = MARGIN_US + NOISE_SHARE[cuda] * per_call + extra_us
    return Bound(mode, calls, sum(claimed_us) / calls, judge, null.per_call_us if null else None, allowed)


def cpu_beyond_calls(claimed_us: Sequence[float], window_us: float, others_us: Optional[float],
                     cpus: int) -> Optional[str]:
    """Why the CPU time the candidate's other threads and processes (all but the runner's main
    thread, which runs the loop) used during a CPU op cannot be the calls', or None. Outside its
    timed calls the loop is the main thread's alone (the input copies, the flush); in them the
    candidate may use every CPU it can run on, so its other threads may use up to the calls' time on
    each of `cpus` (the usable CPUs, machine_load.usable_cpus: a container's cpuset, not the host's
    CPUs; and every one of them, since a main thread may sleep in join while its workers fill them,
    tests/adversarial/cpu/workers_relu.cpp). More is work done beside the loop: a thread that
    spins watching the inputs while the runner flushes the cache (tests/adversarial/cpu/
    precompute_during_flush.cpp; the runners write a call's inputs after its flush, so what such a
    thread computes the call waits for), or workers whose clock under-reports the calls
    (crowded_clock.cpp). Counted on the kernel's
    accounting of CPU time used, so a loaded machine changes nothing: a thread waiting for a CPU
    uses none. (The judge's clock alone could not tell: on a loaded machine the loop's thread
    waits while the hidden thread runs, and the op takes no longer than an honest one.)"""
    if others_us is None:
        return None
    allowed = sum(claimed_us) * max(1, cpus) + CPU_SLACK_US + CPU_SLACK_SHARE * window_us
    if others_us <= allowed:
        return None
    return (f"work beside the timed calls: the candidate's threads other than the timed loop's used {others_us:.0f} us "
            f"of CPU during an op of {sum(claimed_us):.0f} us of timed calls (claimed) on {cpus} CPUs, which allow "
            f"{allowed:.0f} us (the op took {window_us:.0f} us on the judge's clock). A kernel that computes outside "
            "its calls (while the runner flushes the cache) or whose clock under-reports its calls cannot be timed; "
            "worker threads that spin between calls count too (let idle threads sleep)")


def device_over_call(device_p50_us: float, call_p50_us: float) -> Optional[str]:
    """Why a device time above the call time cannot be true, or None."""
    if device_p50_us > DEVICE_OVER_CALL * call_p50_us + 1.0:
        return (f"timing claims contradict each other: the device time (p50 {device_p50_us:.2f} us) is above the "
                f"call time (p50 {call_p50_us:.2f} us), but a call's GPU work lies inside the call")
    return None


class LoopCostCache:
    """Null-loop measurements by (runner kind, device, mode, buffer sizes), reused for CACHE_S.
    Owned by the judge's main thread."""

    def __init__(self) -> None:
        self._entries: Dict[Tuple, Tuple[float, LoopCost]] = {}

    def get(self, key: Tuple) -> Optional[LoopCost]:
        found = self._entries.get(key)
        if found and time.monotonic() - found[0] < CACHE_S:
            return found[1]
        return None

    def put(self, key: Tuple, cost: LoopCost) -> None:
        self._entries[key] = (time.monotonic(), cost)


LOOP_COSTS = LoopCostCache()

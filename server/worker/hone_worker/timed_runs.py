"""Timing a loaded candidate (or the reference) in its process with `time` ops: the judge puts
its input sets and one output slot per timed call in shared memory, the runner settles the
device's clocks, warms up, then copies each call's scheduled input into the timed buffers, flushes
the cache and times the call (mode call: call time; mode device, CUDA: device time, the stream held
until the judge writes the release word). After every op the judge copies the slots out, checks
them (hone_worker/timed_checks.py), checks the inputs, and bounds the claimed times with its own
clock (hone_worker/bounds.py). A spread over 20% is measured again within a budget."""
import os
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Sequence, Tuple

import torch

from . import bounds as bounding
from . import kernel_counters, kernel_records
from .arena import bitwise_equal
from .candidate_session import CandidateSession
from .devices import Device
from .exchange import ArgBuffers, Region, SharedMemory, arg_specs, args_json
from .faults import CandidateFailure, TimingWithheld
from .machine_load import LoadWindow, usable_cpus
from .poison import poison_outputs
from .process_accounting import OpAccounting
from .policy import Policy
from .pool import quiet_pool
from .timed_checks import SlotChecker
from .timing import NOISY_SPREAD, Timing, clamp, last_level_cache_bytes
from .variation import MIXED_ROWS, Entry, InputSets

SETTLE_MS = {True: 2000.0, False: 25.0}  # the most settling may take (CUDA, CPU) when the policy says nothing
ESTIMATE_CALLS, ESTIMATE_WARMUP = 3, 2
# The two lengths of null ops that give the loop's fixed and per-call cost. The long one is as long
# as a pass's ops (about 50 calls): on the H200 (2026-12-03) the per-call cost extrapolated from
# ops of 2 and 12 calls ranged 124-215 us for the same buffers (each op's own jitter, +-300 us,
# divided by 10 calls), which rejected honest kernels of 8-19 us as "slower than claimed". On the
# CPU a call of the null loop is a flush of milliseconds, and the bound's noise share is 100%.
NULL_CALLS = {True: (4, 48), False: (2, 12)}  # CUDA, CPU
NULL_ROUNDS = 2  # after one op that pays the process's one-time costs
SLOT_BYTES = {True: 8 << 30, False: 512 << 20}  # output slots of one op at most (CUDA, CPU)
OPS_PER_PASS, MIN_CALLS_PER_OP = 3, 3  # a pass's calls are split over ops, each bounded on its own
# A held stream's launch queue holds about a thousand launches (250 one-kernel calls fit on the
# H200, 500 did not: bench/runner_latency); each call costs its input copies, the flush, two
# events and the candidate's own launches (KERNELS_PER_CALL assumed), and a queue that fills
# blocks the enqueue until the hold times out.
HELD_LAUNCHES, KERNELS_PER_CALL, MAX_HELD_CALLS = 800, 4, 200
# Device time is the call's busy time in the activity records (hone_worker/kernel_records.py); it
# may exceed the caller's events around the call by this factor (plus KERNEL_OVER_EVENTS_US)
# before the claims contradict each other: the events bracket all of the call's work.
KERNEL_OVER_EVENTS, KERNEL_OVER_EVENTS_US = 1.05, 1.0
# Device time is then counted again the way ncu counts it (hone_worker/kernel_counters.py): one op
# of COUNTER_CALLS samples' calls under the Range Profiler, COUNTER_RANGES kernels at most (a call's
# kernels plus hone's mixes, flush and marker). The op asks for exactly the ranges it expects: the
# profiler's start grows with its counter image (H100, 2026-12-05: 0.15 s for 32 ranges, 0.36 s for
# 256, 0.94 s for 1024), and a kernel beyond them is a dropped range, which the attribution refuses
# anyway. ncu's duration of a kernel counts
# the launch's front end, which the activity record leaves out: it exceeds the record, and may
# exceed the held stream's events (where launches overlap) by COUNTER_OVER_EVENTS_US per kernel;
# counters below COUNTERS_UNDER_RECORDS of the records contradict them.
COUNTER_CALLS, COUNTER_RANGES = 12, 1024
# A counted call's duration varies from call to call by the GPU's own few percent (ncu's per-call
# spread of the same kernels: 2-5% at 5-20 us on the H100 and the H200, 2026-12-06), more than the
# 3% a check's device time may spread (issue 14). So each device-time sample is the mean of up to
# COUNTER_BATCH consecutive counted calls (each still flushed before each kernel), COUNTER_CALLS
# samples, as long as the calls' ranges stay within COUNTER_BATCH_RANGES (the profiler's start
# grows with them) and the output slots hold them; the calls one by one stay beside
# (`device_per_call`), and the sample says how many calls it averages (`calls_per_sample`).
# Since the fifth session of 2026-12-06: 12 samples of up to 12 calls (24 of up to 6 before: the
# same calls, grouped in twice as many a sample). Re-read from the counted calls of two H100 runs,
# 24 samples of 3-5 calls spread over 3% on 2-3 of 18 rows a run (tasks/matmul's two sides
# 3.0-3.3%, tasks/layernorm's candidate 2.7-3.7%, ncu's own per-call spread there 4.4-6.9%); 12
# samples of 6-10 calls spread 2.6% at most on every row.
COUNTER_BATCH, COUNTER_BATCH_RANGES = 12, 512
SINGLE_CALLS = 24  # calls counted one a sample, where two a sample do not fit (many kernels, big outputs)
COUNTER_OVER_EVENTS_US, COUNTERS_UNDER_RECORDS = 1.5, 0.8
# The default on CUDA since 2026-12-05: ncu's own metric is the only device time that agrees with
# ncu to 0.3 us (the activity records read ~1 us a kernel below it: NVIDIA takes the two pairs of
# timestamps at different points). It costs the Range Profiler's set-up in every candidate process:
# its first begin's counter availability (0.07-0.55 s) and a start that grows with the ranges asked
# for (0.15 s for 32, 1.1 s for 1024: H100, 2026-12-05; the op asks for exactly what it expects).
# HONE_DEVICE_TIME=records keeps the records' time instead (no counters, each check that much faster).
# Like ncu's cache control, the counted calls flush the cache before each of their kernels (the
# kernel prologue: libhone_cupti runs hone_flush at each launch), so a call of several kernels
# counts each from a cold cache, as ncu's sum does (H100, 2026-12-05: flushing once per call put
# an eager call of 2-5 kernels 7-13% below ncu's sum: its later kernels found their inputs in L2).
# HONE_DEVICE_TIME=counters-call flushes once before each call instead: a call's kernels then
# share the cache as they do in the program, which ncu does not measure.
DEVICE_TIME_VARIABLE = "HONE_DEVICE_TIME"
# Device time takes half the call time's repetitions (at least min_reps): it is the GPU's own time,
# whose spread is a few percent where the call time's host jitter reaches 30% at microseconds, and
# each held op costs the activity records' collection (8-15 ms per 60 calls on the H200).
DEVICE_REPS_SHARE = 0.5
REMEASURE_S = 2.0  # at most this long re-measuring a noisy time, beyond the first pass ...
REMEASURES = 2  # ... and at most this many passes more, ...
# ... while they help: a pass whose spread is not below this share of the quietest one's says the
# spread is the call's own (host jitter around a call of microseconds: 34% in three passes in a
# row on the H200), and a third pass would cost as much and say the same.
REMEASURE_GAIN = 0.8
BOUND_RETRIES = 2  # a pass the bounds reject is taken again this many times, each after the null loop
SPIN_TIMEOUT_MS = 20_000.0
# The CPU flush reads twice the last-level cache, up to twice this: a VM with two cores of a
# server's 260 MiB L3 (this CI machine) would otherwise flush 520 MiB per call, 46 ms, whose own
# noise (the bounds allow 100% of it on the CPU) hides a clock slowed 50 times on a 37 ms kernel.
CPU_FLUSH_CAP = 32 << 20
# A GPU idle for COLD_AFTER_S or more idles its clocks: launch-bound calls agree from window to
# window while the SM clock is still low, so its settling keeps the device busy for COLD_SETTLE_MS
# at least (the 2026-12-02 H200 run saw 345 MHz after "settled"). When a judge last timed on a
# device is a file's mtime (shared by the judges of one user: each `hone check` starts its own).
COLD_AFTER_S, COLD_SETTLE_MS = 5.0, 300.0


def counted_plan(per_call: int, slot_count: int) -> Tuple[int, int]:
    """The counted op's calls and the calls each device-time sample averages, for calls of
    `per_call` ranges and `slot_count` output slots: COUNTER_CALLS samples of up to COUNTER_BATCH
    calls within COUNTER_BATCH_RANGES ranges, else as many single calls (SINGLE_CALLS at most) as
    COUNTER_RANGES and the slots allow."""
    most = min(COUNTER_RANGES // per_call, slot_count - 1)
    batch = min(COUNTER_BATCH, min(COUNTER_BATCH_RANGES // per_call, most) // COUNTER_CALLS)
    if batch < 2:  # no two calls a sample: single calls, as many as before the samples were averaged
        return min(most, SINGLE_CALLS), 1
    return COUNTER_CALLS * batch, batch


def batch_means(times: List[float], batch: int) -> List[float]:
    """The means of `batch` consecutive times (the last group may be shorter)."""
    return [statistics.fmean(times[i:i + batch]) for i in range(0, len(times), batch)]


def counters_asked() -> bool:
    """Whether device time is counted as ncu counts it (the default; HONE_DEVICE_TIME=records opts out)."""
    return os.environ.get(DEVICE_TIME_VARIABLE, "counters") != "records"


def flush_each_kernel() -> bool:
    """Whether the counted calls flush before each kernel, as ncu does (the default), not once
    before each call (HONE_DEVICE_TIME=counters-call)."""
    return os.environ.get(DEVICE_TIME_VARIABLE, "counters") != "counters-call"


@dataclass
class Pass:
    """One measured time: the claimed samples of its ops and their bounds."""

    mode: str
    samples_us: List[float] = field(default_factory=list)
    bounds: List[bounding.Bound] = field(default_factory=list)
    method: str = ""
    spin_timed_out: bool = False
    events_us: List[float] = field(default_factory=list)  # device mode: the caller's events around each call
    records_note: str = ""  # device mode: why the activity records gave no device time (events used)
    calls_per_sample: int = 1  # counted device time: the consecutive calls each sample averages
    kernels_per_call: Optional[int] = 0  # device mode: kernels of each call (records; None: not the same in every call)
    records_us: List[float] = field(default_factory=list)  # device mode: the records' times, once counters replace them
    kernel_names: List[str] = field(default_factory=list)  # device mode: the first call's kernels (records), in launch order

    def timing(self, warmup: int, spot_checks: int, input_sets: int) -> Timing:
        return Timing(self.samples_us, warmup, self.method, spot_checks, input_sets, self.calls_per_sample)


@dataclass
class Outcome:
    """The timing stage's result: call time, device time (None where not measured), settling."""

    call: Timing
    device: Optional[Timing]
    settle: dict
    verified_calls: int
    timed_calls: int
    bounds: dict
    extra: dict

    def to_json(self) -> dict:
        out = self.call.to_json()
        out["method"] = "cuda_events_l2_flush" if self.call.method == "cuda_events" else self.call.method
        out["spot_checks"] = self.verified_calls
        out["call"] = self.call.summary()
        out["device"] = self.device.summary() if self.device is not None else None
        out["settle_ms"] = self.settle.get("ms")
        out["settle"] = self.settle
        out["verified_calls"] = self.verified_calls
        out["timed_calls"] = self.timed_calls
        out["bounds"] = self.bounds
        out.update(self.extra)
        return out


class TimedRun:
    """One timing run in one session. `values`: forward's arguments (the judge's private copies;
    the first `n_inputs` vary between calls); `outputs`: (dtype, shape) of each output."""

    _wall_us = 0.0  # the judge's clock around the last op, waits for a CPU included
    _others_us: Optional[float] = None  # CPU time the candidate's threads beside the loop's used in it

    def __init__(self, session: CandidateSession, memory: SharedMemory, device: Device, sets: InputSets,
                 values: list, n_inputs: int, outputs: Sequence[tuple], policy: Policy, checker: SlotChecker,
                 progress: Callable[[str], None]) -> None:
        self.session, self.memory, self.device, self.sets = session, memory, device, sets
        self.policy, self.checker, self.progress = policy, checker, progress
        self.n_inputs = n_inputs
        self.params = list(values[n_inputs:])  # the inputs themselves are the caller's (and soon the sets')
        self.targets = ArgBuffers(memory, values)
        self.targets.write(values)
        self._set_regions = [memory.region(arg_specs(s)) for s in sets.sets]
        for region, values_k in zip(self._set_regions, sets.sets):
            _write([v for v in values_k if isinstance(v, torch.Tensor)], region.views)
        self.output_specs = [(dtype, list(shape), None) for dtype, shape in outputs]
        out_bytes = max(1, outputs_bytes(outputs))
        self.slot_count = int(clamp(SLOT_BYTES[device.is_cuda] / out_bytes, 2, policy.max_reps + 1))
        self.slot_region = memory.region(self.output_specs * self.slot_count)
        self.release = memory.release_word() if device.is_cuda else None
        regions = [self.targets.region, self.slot_region] + self._set_regions + ([self.release] if self.release else [])
        self.regions: List[Region] = regions
        session.map(regions)
        self.flush_bytes = (flush_l2_multiple() * _l2_bytes(device) if device.is_cuda
                            else 2 * min(last_level_cache_bytes(), CPU_FLUSH_CAP))
        self.sets_json = [self._set_json(k) for k in range(len(sets.sets))]
        self.settle = {}
        self.extra: dict = {}
        self.timed_calls = 0
        self._copy_us = 0.0  # the judge's copy of one slot out of shared memory (a torch-form loop copies it in)
        self._settle_min_ms = 0.0
        self.stages: dict = {}  # seconds of each part of the last run: settle, estimate, warmup, call, device, counters

    def _set_json(self, k: int) -> List[dict]:
        """Set k shaped like forward's arguments: its inputs in its own buffers, then the
        parameters' own timed buffers (the runner copies nothing onto itself)."""
        region = self._set_regions[k]
        buffers, t = [], 0
        for v in self.sets.sets[k]:
            buffers.append(region.buffers[t] if isinstance(v, torch.Tensor) else None)
            t += isinstance(v, torch.Tensor)
        inputs = args_json(buffers, self.sets.sets[k])
        return inputs + self.targets.json()[self.n_inputs:]

    def _slot_bufs(self, j: int) -> List[dict]:
        n = len(self.output_specs)
        return [b.to_json() for b in self.slot_region.buffers[j * n:(j + 1) * n]]

    def _slot_views(self, j: int) -> List[torch.Tensor]:
        n = len(self.output_specs)
        return self.slot_region.views[j * n:(j + 1) * n]

    def fields(self, mode: str, entries: Sequence[Entry], warmup: int, settle_ms: float, counters: int = 0,
               each_kernel: bool = False) -> dict:
        """A `time` op: entry i writes slot i + 1 (slot 0 takes the warm-up calls); `counters`: mode
        call with the kernel counters of at most that many kernels; `each_kernel`: flushed before
        each of their kernels."""
        out = {"mode": mode, "args": self.targets.json(), "sets": self.sets_json,
               "outputs": [self._slot_bufs(j) for j in range(len(entries) + 1)],
               "schedule": [e.to_json(i + 1) for i, e in enumerate(entries)], "warmup": warmup,
               "settle_ms": settle_ms, "settle_min_ms": min(self._settle_min_ms, settle_ms),
               "flush_bytes": self.flush_bytes, "release": None,
               "spin_timeout_ms": SPIN_TIMEOUT_MS}
        if mode == "device":
            out["release"] = self.release.buffers[0].to_json()
            out["kernel_records"] = True
        if counters:
            out["kernel_counters"] = counters
        if counters and each_kernel and self.flush_bytes:
            out["flush_each_kernel"] = True
        return out

    def run(self, loop_cost: Callable[[str, bool], Optional[bounding.LoopCost]]) -> Outcome:
        """Settles, estimates, warms, measures (call time; device time on CUDA) and re-measures
        noisy times. `loop_cost(mode, fresh)` is the null loop's cost (None: no bounds; fresh:
        measured again now). Raises CandidateFailure."""
        settle_ms = self.policy.settle_ms if self.policy.settle_ms is not None else SETTLE_MS[self.device.is_cuda]
        cold = self.device.is_cuda and _idle_s(self.device) >= COLD_AFTER_S
        self._settle_min_ms = COLD_SETTLE_MS if cold else 0.0  # only the settling op asks (settle_ms > 0)
        try:
            with quiet_pool(self.progress):  # no runner of the judge's starts beside the timed calls
                return self._run(settle_ms, loop_cost, cold)
        finally:
            if self.device.is_cuda:
                _mark_timed(self.device)

    def _run(self, settle_ms: float, loop_cost, cold: bool) -> Outcome:
        self.progress(f"settling the clocks (up to {settle_ms:.0f} ms), then timing with {len(self.sets.sets)} "
                      "input sets")
        clock = _StageClock(self.stages)
        reply, elapsed_us = self._op("call", [self.sets.draw()], ESTIMATE_WARMUP, settle_ms, None, "settling")
        clock.lap("settle")
        self.settle = {"ms": reply.get("settle_ms"), "calls": reply.get("settle_calls"),
                       "settled": reply.get("settled"), "judge_ms": elapsed_us / 1000.0,
                       "cold": cold, "min_ms": min(self._settle_min_ms, settle_ms)}
        # What one iteration (input copy, flush, call) costs on the judge's clock, settling done.
        # As many calls as the slots hold (two slots, one timed call, for an output of GiBs).
        estimate_calls = min(ESTIMATE_CALLS, self.slot_count - 1)
        reply, _ = self._op("call", [self.sets.draw() for _ in range(estimate_calls)], 0, 0.0, None, "estimate")
        claimed = _times(reply, estimate_calls)
        clock.lap("estimate")
        # Budgets are wall time (what the user waits), waits for a CPU included.
        iteration_ms = max(sorted(claimed)[len(claimed) // 2], self._wall_us / estimate_calls, 1.0) / 1000.0
        warmup = int(clamp(self.policy.warmup_ms / iteration_ms, 1, self.policy.max_reps))
        reps = int(clamp(self.policy.rep_ms / iteration_ms, self.policy.min_reps, self.policy.max_reps))
        self._op("call", [self.sets.draw()], warmup, 0.0, None, "warm-up")
        clock.lap("warmup")
        call = self._measured("call", reps, loop_cost)
        clock.lap("call")
        device_reps = max(self.policy.min_reps, int(reps * DEVICE_REPS_SHARE))
        device = self._measured("device", device_reps, loop_cost) if self.device.is_cuda else None
        clock.lap("device")
        if device is not None and not device.samples_us:
            device = None
        if device is not None and counters_asked():
            self._count_kernels(device)
            clock.lap("counters")
        timing_call = call.timing(warmup, self.policy.spot_checks, len(self.sets.sets))
        timing_device = device.timing(warmup, self.policy.spot_checks, len(self.sets.sets)) if device else None
        if timing_device is not None:
            why = bounding.device_over_call(timing_device.percentile(0.5), timing_call.percentile(0.5))
            if why:
                raise CandidateFailure("rejected", why, check="timing_bounded")
        return Outcome(timing_call, timing_device if self.device.is_cuda else _host_device_time(timing_call),
                       self.settle, self.checker.verified, self.timed_calls, self._bounds_json(call, device), self.extra)

    def _measured(self, mode: str, reps: int, loop_cost: Callable[[str, bool], Optional[bounding.LoopCost]]) -> Pass:
        """A pass of `reps` calls; measured again (within REMEASURE_S) while its spread is over
        the threshold; the quietest pass is kept. A pass the bounds reject is taken again (up to
        BOUND_RETRIES times) against the null loop measured again just before it: a machine that
        got busier since the null loop was measured slows the loop's own work (flush, copies),
        which is no claim of the candidate's; a candidate whose claims are false fails every pass.
        A pass that still fails its bounds (the last retry, or a re-measurement) on a machine other
        processes kept busy meanwhile, by a gap such a machine explains, raises TimingWithheld
        instead (_withheld)."""
        cost = loop_cost(mode, False)
        retries = 0
        while True:
            try:
                best = self._bounded_pass(mode, reps, cost, retries, last=retries == BOUND_RETRIES)
                break
            except CandidateFailure as failure:
                if (failure.check != "timing_bounded" or "cpu_beside_loop_us" in failure.evidence or cost is None
                        or retries == BOUND_RETRIES):
                    raise
                retries += 1
                self.progress(f"{mode} time below what the judge's clock allows: measuring the null loop and the "
                              f"pass again ({retries} of {BOUND_RETRIES})")
                self.session.note(f"{mode} time: pass out of bounds ({failure.reason}); null loop and pass "
                                  "measured again")
                cost = loop_cost(mode, True)
                if cost is None:  # no clean process to measure it in: the rejection stands
                    raise
        started, again_count = time.perf_counter(), 0
        while (_spread(best.samples_us) > NOISY_SPREAD and again_count < REMEASURES
               and time.perf_counter() - started < REMEASURE_S):
            again_count += 1
            self.progress(f"{mode} time noisy ({100 * _spread(best.samples_us):.0f}% spread): measuring again")
            again = self._bounded_pass(mode, reps, cost, 0, last=True)
            helped = _spread(again.samples_us) < REMEASURE_GAIN * _spread(best.samples_us)
            best = min(best, again, key=lambda p: _spread(p.samples_us))
            if not helped:
                break
        return best

    def _bounded_pass(self, mode: str, reps: int, cost: Optional[bounding.LoopCost], retries: int,
                      last: bool) -> Pass:
        """One pass; when it is the `last` try and its bounds reject it, the rejection becomes
        TimingWithheld where the machine's load during it explains the gap (_withheld). The load
        window leaves out the candidate's own tree (its work is what is measured)."""
        load = LoadWindow([self.session.process.pid])
        try:
            return self._pass(mode, reps, cost)
        except CandidateFailure as failure:
            withheld = self._withheld(mode, failure, load.finish(), retries) if last else None
            if withheld is not None:
                raise withheld from failure
            raise

    def _withheld(self, mode: str, failure: CandidateFailure, machine: Optional[dict],
                  retries: int) -> Optional[TimingWithheld]:
        """A pass's bound failure as TimingWithheld when the machine was busy during the pass
        (other processes took over machine_load.BUSY_SHARE of its CPUs) and the least violation's
        gap is at most what the loop's own work at BUSY_LOOP_SLOWDOWN times its null cost per call
        explains, beyond the op's allowance; None when the rejection stands (an idle machine, a larger gap, no numbers)."""
        numbers = failure.evidence.get("bound")
        if failure.check != "timing_bounded" or not isinstance(numbers, dict) or not machine or not machine.get("busy"):
            return None
        least = bounding.Bound.from_json(numbers)
        if not least.busy_excess_explained():
            return None
        again = f", taken again {retries} times against the null loop measured afresh each time" if retries else ""
        reason = (f"{mode} time withheld: the outputs of the timed calls were verified, but the judge's own clock "
                  f"measured {least.judge_us:.1f} us per call where the candidate process claimed "
                  f"{least.claimed_us:.1f} us per call (the closest of the pass's ops, all out of bounds{again}), "
                  f"after subtracting the null loop's own cost of {least.null_us:.1f} us per call; other processes kept "
                  f"{100 * machine['other_cpu_share']:.0f}% of the machine's {machine.get('cpus', '?')} CPUs busy "
                  "meanwhile, which slows the loop's own work (the cache flush, the input copies) by enough to "
                  f"explain the gap (the loop's work up to {bounding.BUSY_LOOP_SLOWDOWN:g}x its null cost), so the claims can "
                  "be neither bounded nor rejected and no time is shown: check again on a quieter machine")
        self.session.note(f"{mode} time withheld on a busy machine: {failure.reason}")
        return TimingWithheld(reason, {"bound": numbers, "machine_load": machine})

    def _held_calls(self) -> int:
        """How many calls one held op may queue: the launch queue divided by a call's launches."""
        row_mixed = 0 if self.sets.mode == "pool" else len(self.sets.tensor_indices) - len(self.sets.mixed)
        copies = len(self.sets.tensor_indices) + MIXED_ROWS * row_mixed  # a copy or hone_mix each, and mixed rows
        per_call = copies + 4 + KERNELS_PER_CALL  # + flush, two events, marker
        return max(MIN_CALLS_PER_OP, min(MAX_HELD_CALLS, HELD_LAUNCHES // per_call))

    def _pass(self, mode: str, reps: int, cost: Optional[bounding.LoopCost]) -> Pass:
        """`reps` calls in OPS_PER_PASS ops at least (more when the slots are short), each op
        bounded by the judge's clock; the pass is rejected when every op's claims are below
        what the clock allows (preemption only ever slows an op: the least disturbed one counts)."""
        result = Pass(mode)
        per_op = min(self.slot_count - 1, self._held_calls()) if mode == "device" else self.slot_count - 1
        ops = max(min(OPS_PER_PASS, reps // MIN_CALLS_PER_OP), -(-reps // per_op), 1)
        done = 0
        for k in range(ops):
            count = (reps - done) // (ops - k)
            entries = [self.sets.draw() for _ in range(count)]
            reply, elapsed_us = self._op(mode, entries, 0, 0.0, (done, reps), f"{mode} time, calls {done + 1}-"
                                         f"{done + count} of {reps}")
            claimed = _times(reply, count)
            if mode == "call" and not self.device.is_cuda:
                why = bounding.cpu_beyond_calls(claimed, self._wall_us, self._others_us, len(usable_cpus()))
                if why:  # kernel accounting, not the judge's clock: a loaded machine does not explain it
                    raise CandidateFailure("rejected", why, check="timing_bounded", evidence={
                        "cpu_beside_loop_us": self._others_us, "claimed_calls_us": sum(claimed),
                        "op_window_us": self._wall_us})
            result.method = str(reply.get("method", ""))
            if reply.get("spin_timed_out"):
                result.spin_timed_out = True
            if mode == "device":
                result.events_us += claimed
                result.samples_us += self._kernel_times(reply, claimed, result)
            else:
                result.samples_us += claimed
            if cost is not None:
                extra = 2 * self._copy_us
                result.bounds.append(bounding.bound(mode, claimed, elapsed_us, cost, self.device.is_cuda, extra))
            done += count
        reasons = [b.violation() for b in result.bounds]
        if reasons and all(reasons):
            least = min(range(len(reasons)), key=lambda i: result.bounds[i].judge_us - result.bounds[i].claimed_us)
            raise CandidateFailure("rejected", reasons[least], check="timing_bounded",
                                   evidence={"bound": result.bounds[least].to_json()})
        if result.spin_timed_out:
            self.session.note("the device-time hold timed out before every call was queued: no device time")
            result.samples_us = []
        if mode == "device" and result.samples_us and not result.records_note:
            result.method = "cupti_kernel_records"
            why = _kernels_over_events(result.samples_us, result.events_us)
            if why:
                raise CandidateFailure("rejected", why, check="timing_bounded")
        elif mode == "device" and result.samples_us:  # records unusable: every op's events, not a mix
            result.samples_us = list(result.events_us)
        return result

    def _count_kernels(self, device: Pass) -> None:
        """Device time as ncu counts it: the calls' kernels' gpu__time_duration from one counted op
        replaces the activity records' busy times, when the counters can be attributed and agree
        with the records and events; otherwise the records stay, with a note saying why."""
        if device.method != "cupti_kernel_records" or not device.kernels_per_call:
            return self._uncounted(device, (device.records_note or "the calls did not all launch the same number of "
                                            "kernels (or kernels ran outside them)") +
                                   ": the counters' numbered ranges cannot be attributed")
        k, mixes, flushed = device.kernels_per_call, len(self.sets.mixed), self.flush_bytes > 0
        each = flushed and flush_each_kernel()
        fit_why = ""
        if each and COUNTER_RANGES // kernel_counters.ranges_per_call(k, flushed, mixes, True) < MIN_CALLS_PER_OP:
            each, fit_why = False, (f"{kernel_counters.ONCE_PER_CALL}{MIN_CALLS_PER_OP} calls of {k} kernels, each "
                                    f"after a flush, do not fit the counters' {COUNTER_RANGES} ranges")
        per_call = kernel_counters.ranges_per_call(k, flushed, mixes, each)
        calls, batch = counted_plan(per_call, self.slot_count)
        if calls < MIN_CALLS_PER_OP:
            return self._uncounted(device, f"{k} kernels a call: {MIN_CALLS_PER_OP} calls do not "
                                           f"fit the counters' {COUNTER_RANGES} ranges")
        reply = self._counted_op(calls, per_call, each)
        ranges, why = kernel_counters.parse(reply)
        layout, flush_why = kernel_counters.flush_layout(reply, each, calls, k) if ranges is not None else (each, "")
        if layout is None:
            # The prologue did not precede every kernel (a launch CUPTI did not report, a graph):
            # counted again with one flush a call, which needs no prologue.
            flush_why = kernel_counters.ONCE_PER_CALL + flush_why
            once = kernel_counters.ranges_per_call(k, flushed, mixes, False)
            calls, batch = counted_plan(once, self.slot_count)
            reply = self._counted_op(calls, once, False)
            ranges, why = kernel_counters.parse(reply)
            layout = False
        flush_why = flush_why or fit_why
        times, disagrees = None, ""
        if ranges is not None:
            times, why = kernel_counters.per_call_us(ranges, calls, flushed, k, mixes, layout)
        if times is not None:
            disagrees = self._counters_disagree(times, device, kernel_counters.cold_allowance_us(ranges, calls, k, mixes)
                                                if layout else 0.0)
        if times is None or disagrees:
            return self._uncounted(device, disagrees or why)
        device.records_us, device.samples_us = device.samples_us, batch_means(times, batch)
        device.calls_per_sample = batch
        self.extra["device_records"] = Timing(device.records_us, 0, device.method, 0, 0).summary()
        device.method = "cupti_gpu_time_duration"
        if batch > 1:
            self.extra["device_per_call"] = Timing(times, 0, device.method, 0, 0).summary()
        self.extra["device_kernels"] = kernel_counters.per_kernel_p50(ranges, calls, flushed, k, mixes, layout,
                                                                     device.kernel_names)
        self.extra["kernel_counters"] = {"calls": calls, "calls_per_sample": batch, "seconds": reply.get("counter_seconds"),
                                         "flushed": "each kernel" if layout else "each call" if flushed else "never"}
        if flush_why:
            self.extra["kernel_counters_note"] = flush_why
            self.session.note(f"device time counted, but {flush_why}")

    def _counted_op(self, calls: int, per_call: int, each: bool) -> dict:
        """One op of `calls` calls under the Range Profiler (`per_call` ranges each), flushed before
        each kernel when `each`; its reply."""
        entries = [self.sets.draw() for _ in range(calls)]
        self.progress(f"counting the kernels' GPU time ({calls} calls under the Range Profiler"
                      f"{', the cache flushed before each kernel' if each else ''})")
        # No argument overwrite in this op (its fill kernels would stand among the numbered
        # ranges); every other op has one.
        reply, _ = self._op("call", entries, 0, 0.0, None, f"kernel counters, {calls} calls", calls * per_call,
                            overwrite=False, each_kernel=each)
        return reply

    def _uncounted(self, device: Pass, why: str) -> None:
        """The device pass keeps its records' (or events') times: said in the timing and a note."""
        self.extra["kernel_counters_note"] = why
        self.session.note(f"device time from {device.method or 'the events'}, not kernel counters: {why}")

    def _counters_disagree(self, counted: List[float], device: Pass, cold_us: float = 0.0) -> str:
        """Why the counted times cannot stand beside the device pass ("" when they can); raises
        CandidateFailure (rejected) when they claim less GPU time than the records do. `cold_us`:
        what the counted calls may exceed the held calls by for their later kernels' cold caches
        (flushed before each kernel; the held calls' kernels share the cache)."""
        k, e = statistics.median(counted), statistics.median(device.events_us or device.samples_us)
        if device.method == "cupti_kernel_records":
            r = statistics.median(device.samples_us)
            if k < COUNTERS_UNDER_RECORDS * r - 0.1:
                raise CandidateFailure("rejected", f"timing claims contradict each other: the kernel counters put the "
                                       f"call's GPU time at p50 {k:.2f} us, the activity records at p50 {r:.2f} us, and "
                                       "the counters count more of each kernel than the records", check="timing_bounded")
        most = KERNEL_OVER_EVENTS * e + COUNTER_OVER_EVENTS_US * device.kernels_per_call + cold_us
        if k > most:
            return (f"the kernel counters' p50 {k:.2f} us exceeds the events around the held calls (p50 {e:.2f} us) by "
                    f"more than {COUNTER_OVER_EVENTS_US} us per kernel"
                    f"{f' and {cold_us:.2f} us for cold caches' if cold_us else ''}")
        return ""

    def _kernel_times(self, reply: dict, events_us: List[float], result: Pass) -> List[float]:
        """One device op's calls' busy times from its activity records; where the records are
        missing or cannot be attributed, the pass falls back to the events (said in a note). Work
        on a side stream is rejected in every op, attributable or not."""
        activities, why = kernel_records.parse(reply)
        beside = None
        if activities is not None:
            beside = (kernel_records.off_caller_stream(activities) or
                      kernel_records.work_among_inputs(activities, self.flush_bytes > 0))
        if beside:
            raise CandidateFailure("rejected", beside, check="timer_covers_work")
        if result.records_note:
            return list(events_us)
        work = None
        if activities is not None:
            work, why = kernel_records.per_call_work(activities, len(events_us), self.flush_bytes > 0,
                                                     len(self.sets.mixed))
        if work is None:
            result.records_note = why
            self.session.note(f"device time from the caller's events, not activity records: {why}")
            return list(events_us)
        k = kernel_records.uniform_kernel_count(activities, work, self.flush_bytes > 0)
        first = len(result.events_us) == len(events_us)  # this op's events are appended already
        result.kernels_per_call = k if first or result.kernels_per_call == k else None
        if first and work:
            result.kernel_names = [a.name for a in work[0] if a.kind == "kernel"]
        return kernel_records.busy_times(work)

    def _op(self, mode: str, entries: List[Entry], warmup: int, settle_ms: float, position, what: str,
            counters: int = 0, overwrite: bool = True, each_kernel: bool = False):
        """Sends one `time` op and checks what came back; returns (reply, judge's microseconds:
        mode call from sending to the reply, mode device from the release to `finished`).
        `overwrite`: one call's arguments are overwritten after it returns (variation.py)."""
        if overwrite:
            entries = self.sets.overwrite_one(entries)
        for j in range(len(entries) + 1):
            poison_outputs(self._slot_views(j))
        window = _DeviceWindow(self.release)
        snapshot = []

        def on_event(message: dict, sent_ns: int) -> None:
            if window.on_event(message, sent_ns):  # the calls ran: their outputs are copied now, before the reply
                snapshot.append(self._snapshot(len(entries)))

        waited = OpAccounting(self.session.process)
        reply = self.session.time(self.fields(mode, entries, warmup, settle_ms, counters, each_kernel), what,
                                  on_event if mode == "device" else None)
        started, ended = window.span() if mode == "device" else (reply.sent_ns, reply.replied_ns)
        elapsed_us = (ended - started) / 1000.0
        delay_us = waited.waited_us(elapsed_us)  # mode device: reported, not subtracted (the op's wait includes the enqueue)
        waited_us = delay_us if mode == "call" else 0.0
        self.session.note(f"{what}: {elapsed_us:.0f} us on the judge's clock, the candidate process waited "
                          f"{delay_us:.0f} us for a CPU held by other work (its processes used "
                          f"{waited.cpu_us:.0f} us of CPU, {_us(waited.others_us)} beside the loop's thread), "
                          "the judge read its reply "
                          f"{reply.judge_lag_ns / 1000:.0f} us after it was sent{_after_release(reply, ended)}")
        self._wall_us = elapsed_us
        self._others_us = waited.others_us
        elapsed_us -= waited_us
        blocks, copies = snapshot[0] if snapshot else self._snapshot(len(entries))
        self._check_inputs(entries)
        first, total = position if position else (self.timed_calls, self.timed_calls + len(entries))
        self.checker.check(self.sets, entries, copies, first, total, blocks)
        self.timed_calls += len(entries)
        # torch.compile: recompilations add up over the ops (a timed window that recompiled timed
        # the compiler); the warm-up that compiled is the first op's.
        if isinstance(reply.message.get("recompilations"), int):
            self.extra["recompilations"] = self.extra.get("recompilations", 0) + reply.message["recompilations"]
        for key in ("compile_warmup_calls", "compile_warmup_s"):
            if key in reply.message and key not in self.extra:
                self.extra[key] = reply.message[key]
        return reply.message, elapsed_us

    def _snapshot(self, count: int):
        """The judge's own copy of the op's `count` output slots: one stacked copy per output (a
        launch per many slots, not one per slot); blocks[o][j] is call j's output o. Returns
        (blocks, per-call copies)."""
        copy_started = time.perf_counter()
        slots = [self._slot_views(j + 1) for j in range(count)]
        blocks = [torch.stack([views[o] for views in slots]) for o in range(len(self.output_specs))] if slots else []
        copies = [[b[j] for b in blocks] for j in range(count)]
        self.memory.synchronize()
        self._copy_us = (time.perf_counter() - copy_started) * 1e6 / max(1, count)
        return blocks, copies

    def _check_inputs(self, entries: List[Entry]) -> None:
        """After an op: the timed buffers hold the last call's input (the parameters their own
        values), and no input set changed."""
        if not entries:
            return
        last = self.sets.rebuild(entries[-1])
        expected = last + self.params
        for i, (view, value) in enumerate(zip(self.targets.views, expected)):
            if view is not None and not bitwise_equal(view, value):
                raise CandidateFailure("incorrect", f"forward modified its arguments during the timed calls "
                                       f"(argument {i + 1} differs from what the judge put there)",
                                       check="inputs_unchanged")
        for k, (region, values_k) in enumerate(zip(self._set_regions, self.sets.sets)):
            tensors = [v for v in values_k if isinstance(v, torch.Tensor)]
            if any(not bitwise_equal(view, v) for view, v in zip(region.views, tensors)):
                raise CandidateFailure("incorrect", f"the timed calls changed input set {k}, which forward never "
                                       "receives (the candidate wrote memory it was not given)", check="inputs_unchanged")

    def _bounds_json(self, call: Pass, device: Optional[Pass]) -> dict:
        def one(p: Optional[Pass]):
            if p is None or not p.bounds:
                return None
            closest = min(p.bounds, key=lambda b: b.judge_us - b.claimed_us)
            return dict(closest.to_json(), ops=len(p.bounds))

        return {"call": one(call), "device": one(device)}

    def null_cost(self, null_session: CandidateSession, mode: str) -> bounding.LoopCost:
        """The null form's loop on these buffers in a clean process (`null_session`, loaded with
        the null form) on the judge's clock: ops of two lengths, each the median of a few."""
        null_session.map(self.regions)
        longest = self.slot_count - 1 if mode == "call" else min(self.slot_count - 1, self._held_calls())
        wanted_short, wanted_long = NULL_CALLS[self.device.is_cuda]
        long = max(1, min(wanted_long, longest))
        short = max(1, min(wanted_short, long // 4))
        measured = {short: [], long: []}
        for calls in (short,) + (short, long) * NULL_ROUNDS:
            entries = [self.sets.draw() for _ in range(calls)]
            window = _DeviceWindow(self.release)
            waited = OpAccounting(null_session.process)
            reply = null_session.time(self.fields(mode, entries, 0, 0.0), f"null loop, {calls} calls",
                                      window.on_event if mode == "device" else None)
            started, ended = window.span() if mode == "device" else (reply.sent_ns, reply.replied_ns)
            elapsed = (ended - started) / 1000.0
            elapsed -= waited.waited_us(elapsed) if mode == "call" else 0.0
            measured[calls].append(elapsed)
        cost = bounding.LoopCost.from_two(short, statistics.median(measured[short]), long,
                                          statistics.median(measured[long]))
        null_session.note(f"null loop ({mode}): {cost.fixed_us:.0f} us per op + {cost.per_call_us:.1f} us per call "
                          f"(ops of {short} calls: {[round(x) for x in sorted(measured[short])]} us; of {long}: "
                          f"{[round(x) for x in sorted(measured[long])]} us)")
        return cost

    def cost_key(self, kind: str, mode: str) -> tuple:
        return (kind, str(self.device), mode, self.flush_bytes, tuple(b.span_bytes for b in self.targets.region.buffers),
                tuple(_numel(s) for _, s, _ in self.output_specs))


class _StageClock:
    """Seconds between laps, written into `stages` under each lap's name."""

    def __init__(self, stages: dict) -> None:
        self.stages, self.last = stages, time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.stages[name] = now - self.last
        self.last = now


class _DeviceWindow:
    """A device-time op on the judge's clock: from the judge's release of the held stream (when
    the runner says `enqueued`) to the runner's `finished` (the calls ran; the activity records
    are collected after it, which is no call's work). A `finished` sent before the calls really
    ran gains nothing: the judge copies the output slots when it arrives, and a slot still
    poisoned then fails the op."""

    def __init__(self, release: Optional[Region]) -> None:
        self.release = release
        self.released: List[int] = []
        self.finished: List[int] = []
        if release is not None:
            release.views[0].zero_()

    def on_event(self, message: dict, sent_ns: int) -> bool:
        """Handles one event of the op (`sent_ns`: when the runner sent it); True when it is the
        calls' `finished`."""
        event = message.get("event")
        if event == "enqueued" and self.release is not None and not self.released:
            self.release.views[0].fill_(1)
            self.released.append(time.perf_counter_ns())
        elif event == "finished" and self.released and not self.finished:
            self.finished.append(max(sent_ns, self.released[0]))
            return True
        return False

    def span(self) -> tuple:
        """(release, finished) in perf_counter_ns; raises CandidateFailure when an event is missing."""
        if not self.released:
            raise CandidateFailure("rejected", "the candidate process answered a device-time op without saying its "
                                   "calls were queued (no `enqueued` event)", check="timing_bounded")
        if not self.finished:
            raise CandidateFailure("rejected", "the candidate process answered a device-time op without saying its "
                                   "calls had run (no `finished` event)", check="timing_bounded")
        return self.released[0], self.finished[0]


def _us(value: Optional[float]) -> str:
    return "?" if value is None else f"{value:.0f} us"


def _kernels_over_events(kernels_us: List[float], events_us: List[float]) -> Optional[str]:
    """Why busy times above the events around the calls cannot be true, or None."""
    k, e = statistics.median(kernels_us), statistics.median(events_us)
    if k > KERNEL_OVER_EVENTS * e + KERNEL_OVER_EVENTS_US:
        return (f"timing claims contradict each other: the activity records put the call's GPU work at p50 {k:.2f} us, "
                f"but the events around the call measured p50 {e:.2f} us, and a call's work lies between them")
    return None


def _after_release(reply, ended_ns: int) -> str:
    """Mode device, for the judge's log (the candidate's claims, not evidence): the calls' GPU span
    in the records (the hold left out), the runner's wait for the calls and its collection of the
    records, and how long after `finished` the reply came (the collection, outside the window)."""
    message = reply.message
    after = message.get("after_release_s")
    if not isinstance(after, dict):
        return ""
    acts = [a for a in message.get("activities") or []
            if isinstance(a, dict) and a.get("name") not in ("hone_hold", "hone_spin")]
    span = ""
    try:
        if acts:
            span = f"records' GPU span {max(a['end_us'] for a in acts) - min(a['start_us'] for a in acts):.0f} us, "
        return (f" ({span}runner: synchronize {1e6 * float(after.get('synchronize', 0)):.0f} us, records "
                f"{1e6 * float(after.get('records', 0)):.0f} us; the reply came "
                f"{(reply.replied_ns - ended_ns) / 1000.0:.0f} us after `finished`)")
    except (KeyError, TypeError, ValueError):
        return ""


def _timed_marker(device: Device) -> str:
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return os.path.join(tempfile.gettempdir(), f"hone-{uid}-last-timed-{str(device).replace(':', '')}")


def _idle_s(device: Device) -> float:
    """Seconds since a judge of this user last timed on `device` (infinite when never)."""
    try:
        return max(0.0, time.time() - os.stat(_timed_marker(device)).st_mtime)
    except OSError:
        return float("inf")


def _mark_timed(device: Device) -> None:
    try:
        with open(_timed_marker(device), "a"):
            pass
        os.utime(_timed_marker(device))
    except OSError:
        pass  # no marker: the next run settles as on a cold GPU


def _times(reply: dict, count: int) -> List[float]:
    times = reply.get("times_us")
    if not isinstance(times, list) or len(times) != count or not all(
            isinstance(t, (int, float)) and not isinstance(t, bool) and t >= 0 for t in times):
        raise CandidateFailure("rejected", f"the candidate process sent malformed timing claims for {count} calls: "
                               f"{str(times)[:200]}", check="timing_bounded")
    return [float(t) for t in times]


def _spread(samples: List[float]) -> float:
    return Timing(samples, 0, "", 0, 0).spread if samples else 0.0


def _host_device_time(call: Timing) -> Timing:
    """CPU: the device time is the call time (the host clock)."""
    return Timing(list(call.samples_us), call.warmup, call.method, call.spot_checks, call.input_sets)


def _write(values: List[torch.Tensor], views: List[torch.Tensor]) -> None:
    with torch.no_grad():
        for view, v in zip(views, values):
            view.copy_(v)


def outputs_bytes(outputs: Sequence[tuple]) -> int:
    """The bytes of outputs given as (dtype, shape) pairs."""
    return sum(torch.empty((), dtype=d).element_size() * _numel(shape) for d, shape in outputs)


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= int(s)
    return n


FLUSH_MULTIPLE_VARIABLE = "HONE_FLUSH_L2_MULTIPLE"


def flush_l2_multiple() -> int:
    """How many times the L2's size hone's flush reads on CUDA: 2, or $HONE_FLUSH_L2_MULTIPLE
    (1-16; for measuring what a larger read evicts, bench/timing_truth's flush probe)."""
    try:
        value = int(os.environ.get(FLUSH_MULTIPLE_VARIABLE, "2"))
    except ValueError:
        return 2
    return value if 1 <= value <= 16 else 2


def _l2_bytes(device: Device) -> int:
    return getattr(torch.cuda.get_device_properties(device.index), "L2_cache_size", 0) or (64 << 20)

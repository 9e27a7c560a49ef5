"""The `check` method: a pipeline of stages (load, signature, correctness, call records, timing),
each returning a typed result; the first failing stage decides the verdict."""
import time
from typing import Callable, List, Optional

import torch

from .candidate import Candidate, KernelSpec
from .channel import Request
from .compare import compare_outputs
from .correctness import CandidateCaller, Correctness, run_correctness
from .devices import Device, parse_device
from .errors import BadRequest
from .faults import CandidateFailure, call_failure
from .instance import build_instance, clone_args, run_reference
from .poison import malloc_perturbation, poison_outputs
from .records import CallRecords, record_call
from .results import Flag, Policy
from .signature import Signature
from .task import Task, load_task
from .task_info import derive_task_signature
from .timing import NOISY_SPREAD, Budget, Timing, make_clock, time_calls
from .variation import InputVariation, pool_size

LIBRARY_SHARE = 0.1  # GPU time share in library kernels above which the kernel is flagged


def handle_check(params: dict, request: Request) -> dict:
    """`check`: called by the request loop on the main thread; returns the worker's verdict fields."""
    started = time.perf_counter()
    device = parse_device(params.get("device", "cpu"))
    if device.kind == "meta":
        raise BadRequest("check needs a real device (cpu or cuda)")
    policy = Policy.from_params(params.get("policy"))
    spec = KernelSpec.from_params(params.get("kernel"))
    seconds = {}
    request.progress("load", f"task {params.get('task')}")
    task = load_task(params.get("task"))
    language = spec.language or ("cuda" if device.is_cuda else "cpp")
    with malloc_perturbation():
        signature = derive_task_signature(task, device)
        candidate = Candidate(spec, signature, device)
        caller = CandidateCaller(candidate, signature, device)
        seconds["load"] = time.perf_counter() - started
        stage = time.perf_counter()
        correctness = run_correctness(task, device, caller, signature, policy,
                                      lambda m: request.progress("correctness", m))
        seconds["correctness"] = time.perf_counter() - stage
    verdict = _Verdict(signature, language, correctness, seconds)
    if correctness.failure is not None:
        return verdict.failed(correctness.failure, started)
    try:
        if policy.records:
            stage = time.perf_counter()
            request.progress("records", "profiling one call")
            records = _records_stage(task, device, caller, spec, policy)
            seconds["records"] = time.perf_counter() - stage
            verdict.add_records(records)
        if policy.timing:
            stage = time.perf_counter()
            timing = _timing_stage(task, device, caller, policy, correctness, request)
            seconds["timing"] = time.perf_counter() - stage
            verdict.add_timing(timing)
    except CandidateFailure as failure:
        if failure.check:
            correctness.checks.failed(failure.check)
        return verdict.failed(failure, started)
    return verdict.passed(started)


class _Verdict:
    """Accumulates the worker's part of a verdict across stages."""

    def __init__(self, signature: Signature, language: str, correctness: Correctness, seconds: dict) -> None:
        self.signature = signature
        self.language = language
        self.correctness = correctness
        self.seconds = seconds
        self.flags: List[Flag] = list(correctness.flags)
        self.extra: dict = {}

    def add_records(self, records: CallRecords) -> None:
        if records.escape:
            raise CandidateFailure("rejected", records.escape, check="timer_covers_work")
        self.correctness.checks.passed("timer_covers_work")
        if records.library_ops:
            self.flags.append(Flag("library_ops", "forward calls PyTorch operators instead of (or besides) its own "
                                   f"kernels: {', '.join(records.library_ops)}"))
        if records.kernel_time is not None:
            self.extra["kernel_time"] = records.kernel_time
            kt = records.kernel_time
            if kt["library_us"] > LIBRARY_SHARE * (kt["own_us"] + kt["library_us"]):
                names = sorted({k["name"] for k in kt["kernels"] if not k["own"]})[:3]
                self.flags.append(Flag("library_kernels", f"{100 * (1 - kt['own_share']):.0f}% of the call's GPU time is "
                                       f"in kernels not defined in this file: {', '.join(names)}"))

    def add_timing(self, timing: Timing) -> None:
        self.extra["timing"] = timing.to_json()
        if timing.spread > NOISY_SPREAD:
            self.flags.append(Flag("timing_noisy", f"the p10..p90 spread is {100 * timing.spread:.0f}% of the median "
                                   f"over {len(timing.samples_us)} calls"))

    def _base(self, started: float) -> dict:
        self.seconds["total"] = time.perf_counter() - started
        out = {
            "signature": self.signature.to_json(self.language),
            "correctness": self.correctness.to_json(),
            "flags": [f.to_json() for f in self.flags],
            "seconds": self.seconds,
            "restart_required": False,
        }
        if self.correctness.variability is not None:
            out["variability"] = self.correctness.variability
        out.update(self.extra)
        return out

    def failed(self, failure: CandidateFailure, started: float) -> dict:
        out = self._base(started)
        out.update(status=failure.status, reason=failure.reason, evidence=failure.evidence,
                   restart_required=failure.restart_required)
        return out

    def passed(self, started: float) -> dict:
        out = self._base(started)
        out["status"] = "correct"
        return out


def _timed_setup(task: Task, device: Device, caller: CandidateCaller, seed: int):
    instance = build_instance(task, device, seed)
    bound = caller.bind(instance.inputs + clone_args(instance.params))
    variation = InputVariation(task, device, instance.inputs, pool_size(instance.inputs, device), seed)
    return instance, bound, variation


def _records_stage(task: Task, device: Device, caller: CandidateCaller, spec: KernelSpec, policy: Policy) -> CallRecords:
    _, bound, variation = _timed_setup(task, device, caller, policy.seeds[0])
    variation.apply()
    try:
        return record_call(device, bound.run, caller.raw, spec.namespace, spec.own_kernels)
    except CandidateFailure:
        raise
    except Exception as exc:  # noqa: BLE001 - the candidate's failure under the profiler
        raise call_failure(exc, device, "forward (profiled call)") from None


def _timing_stage(task: Task, device: Device, caller: CandidateCaller, policy: Policy, correctness: Correctness,
                  request: Request) -> Timing:
    seed = policy.seeds[0]
    instance, bound, variation = _timed_setup(task, device, caller, seed)
    request.progress("timing", f"timing with {variation.sets} input sets")

    def spot_check(i: int, n: int, outputs) -> None:
        device.synchronize()
        expected = run_reference(instance, clone_args(instance.inputs))
        comparison = compare_outputs(outputs, expected, correctness.tolerances, caller.raw)
        if not comparison.passed:
            raise CandidateFailure("incorrect", f"timed call {i + 1} of {n} returned a wrong result for the inputs it "
                                   f"was given: {comparison.mismatch.message}", check="timed_calls_verified")
        correctness.checks.passed("timed_calls_verified")

    prepare: Optional[Callable[[], None]] = (lambda: poison_outputs(bound.outputs)) if caller.raw else None
    budget = Budget(policy.warmup_ms, policy.rep_ms, policy.min_reps, policy.max_reps, policy.spot_checks)
    try:
        with torch.no_grad():
            return time_calls(make_clock(device), bound.run, budget, variation.apply, variation.sets, spot_check,
                              prepare, seed)
    except CandidateFailure:
        raise
    except Exception as exc:  # noqa: BLE001 - a failure of a timed call
        raise call_failure(exc, device, "forward (timed call)") from None

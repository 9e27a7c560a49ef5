"""The correctness stage of a check: several seeds with fresh inputs and weights; the candidate,
in its own process, runs before the reference on the first trial; the judge poisons the output
buffers before every call and compares only its own copies of them taken right after the reply;
inputs must equal the judge's private copies afterwards; structure (from the `returned`
metadata), values, determinism and fresh inputs in the same buffers are checked; weak tasks and
constant outputs are flagged; a raw-form kernel writing past either end of an output buffer (the
judge's guard bytes changed) is incorrect."""
import time
from dataclasses import dataclass, field
from typing import Callable, List, Optional

import torch

from .arena import bitwise_equal, element_bytes
from .candidate_session import CandidateSession
from .compare import (Comparison, Tolerance, aliasing_problem, compare_outputs, stride_differences,
                      structure_problem, tolerance_for)
from .devices import Device
from .exchange import ArgBuffers, Region, SharedMemory
from .faults import CandidateFailure
from .instance import Instance, build_inputs, build_instance, clone_args, run_reference
from .poison import poison_outputs
from .policy import Policy
from .results import Checks, Flag, Trial
from .signature import Signature
from .task import Task

FRESH_INPUT_SEED_OFFSET = 7919  # the seed of the second input set used in the same buffers
GUARD_BYTES = 4096  # raw form: guarded bytes right before and after each output buffer ...
GUARD_BYTE = 0xA5  # ... holding this, which a kernel writing out of bounds changes


@dataclass
class Correctness:
    """Result of the correctness stage; `failure` is set when the candidate failed a check."""

    trials: List[Trial]
    checks: Checks
    tolerances: List[Tolerance]
    flags: List[Flag] = field(default_factory=list)
    failure: Optional[CandidateFailure] = None
    variability: Optional[dict] = None

    def to_json(self) -> dict:
        return {
            "atol": max(t.atol for t in self.tolerances),
            "rtol": max(t.rtol for t in self.tolerances),
            "trials": [t.to_json() for t in self.trials],
            "checks": self.checks.to_json(),
        }


@dataclass
class CallResult:
    """One call as the judge received it: its copies of the outputs, and (torch form) what the
    candidate process says forward returned."""

    got: List[torch.Tensor]
    returned: Optional[List[dict]]


class CandidateCaller:
    """Calls the candidate in its process on shared buffers: the output buffers (judge-owned)
    hold hone's poison before every call; the torch form's own allocations are poisoned by the
    runner (`poison`). Outputs are copied into the judge's memory as soon as the reply arrives."""

    def __init__(self, session: CandidateSession, memory: SharedMemory, signature: Signature, raw: bool,
                 model_seed: Optional[int] = None) -> None:
        self.session = session
        self.model_seed = model_seed  # a ModelNew answer: the seed its weights (and Model's) were built with
        self.memory = memory
        self.signature = signature
        self.raw = raw
        self.last_call_us = 0.0  # the judge's clock around the last call op
        # Raw form: guard bytes around each output buffer catch a kernel writing past its ends.
        self.outputs: Region = memory.region([(getattr(torch, o.dtype), o.shape, None) for o in signature.outputs],
                                             guard_bytes=GUARD_BYTES if raw else 0)
        session.map([self.outputs])
        self._args: Optional[ArgBuffers] = None
        self.poison_problems: List[str] = []
        self.out_of_bounds = ""  # the first call's write outside its output buffers (raw form's guard bytes)

    def bind(self, values: list) -> ArgBuffers:
        """Forward's arguments (the judge's private tensors) written into shared buffers."""
        if self._args is None or not self._args.fits(values):
            self._args = ArgBuffers(self.memory, values)
            self.session.map([self._args.region])
        self._args.write(values)
        return self._args

    def call(self, args: ArgBuffers, label: str) -> CallResult:
        poison_outputs(self.outputs.views)
        for guard in self.outputs.guards:
            guard.view.fill_(GUARD_BYTE)
        started = time.perf_counter()
        reply = self.session.call(args.json(), self.outputs.bufs(), label, poison=not self.raw)
        self.last_call_us = (time.perf_counter() - started) * 1e6
        got = [v.clone() for v in self.outputs.views]
        self.memory.synchronize()
        self.out_of_bounds = self.out_of_bounds or self._guard_problem()
        for problem in reply.get("poison_problems") or []:
            if problem not in self.poison_problems:
                self.poison_problems.append(problem)
        returned = reply.get("returned")
        if not self.raw and not isinstance(returned, list):
            raise CandidateFailure("rejected", "the candidate process did not say what forward returned (no "
                                   "`returned` in its reply)", check="output_structure")
        return CallResult(got, None if self.raw else returned)

    def _guard_problem(self) -> str:
        """Why the last call wrote past either end of an output buffer (an out-of-bounds write), or ""."""
        for guard in self.outputs.guards:
            changed = (guard.view != GUARD_BYTE).nonzero()
            if changed.numel() == 0:
                continue
            name = self.signature.outputs[guard.buffer].name
            n = guard.view.numel()
            reach = int(changed.max()) + 1 if guard.after else n - int(changed.min())
            where = f"past the end of {name}" if guard.after else f"before the start of {name}"
            return (f"forward wrote {where}: {changed.numel()} of the {n} bytes hone guards there changed, up to "
                    f"{reach} bytes {'past its end' if guard.after else 'before it'} (an out-of-bounds write: a last "
                    "block or tail not masked?)")
        return ""

    def check_bounds(self, checks: Checks) -> None:
        """After a trial's other checks of the same calls (a changed input says more): incorrect when
        any call so far wrote outside its output buffers."""
        if self.out_of_bounds:
            raise CandidateFailure("incorrect", self.out_of_bounds, check="outputs_in_bounds")
        if self.outputs.guards:
            checks.passed("outputs_in_bounds")

    def compare(self, got: List[torch.Tensor], expected: List[torch.Tensor], tolerances) -> Comparison:
        return compare_outputs(got, expected, tolerances, raw_buffers=True, allocator_poison=not self.raw)


def output_tolerances(task: Task, signature: Signature, policy: Policy) -> List[Tolerance]:
    """Per output: the request's atol/rtol, else the task's HONE_ATOL/HONE_RTOL, else by dtype."""
    return [tolerance_for(getattr(torch, o.dtype), _first(policy.atol, task.atol), _first(policy.rtol, task.rtol))
            for o in signature.outputs]


def run_correctness(task: Task, device: Device, caller: CandidateCaller, signature: Signature, policy: Policy,
                    progress: Callable[[str], None]) -> Correctness:
    tolerances = output_tolerances(task, signature, policy)
    result = Correctness([], Checks(), tolerances)
    spread = _Spread(tolerances)
    for k, seed in enumerate(policy.seeds):
        progress(f"trial {k + 1}/{len(policy.seeds)} (seed {seed})")
        try:
            trial = _run_trial(task, device, caller, seed, first=(k == 0), result=result, spread=spread)
        except CandidateFailure as failure:
            if failure.check:
                result.checks.failed(failure.check)
            if f"trial {k + 1}, seed {seed}" not in failure.reason:  # a runner's last words may name it already
                failure.reason = f"{failure.reason} (trial {k + 1}, seed {seed})"
            result.failure = failure
            return result
        result.trials.append(trial)
        if not trial.passed:
            result.failure = CandidateFailure("incorrect", f"{trial.mismatch.message} (trial {k + 1}, seed {seed})",
                                              check="tolerance")
            result.checks.failed("tolerance")
            return result
    result.flags += spread.flags(len(policy.seeds))
    result.variability = spread.variability()
    if caller.poison_problems:
        result.flags.append(Flag("poison_incomplete", caller.poison_problems[0]))
    return result


def _first(a, b):
    return a if a is not None else b


def _run_trial(task: Task, device: Device, caller: CandidateCaller, seed: int, first: bool, result: Correctness,
               spread: "_Spread") -> Trial:
    checks = result.checks
    instance = build_instance(task, device, seed, caller.model_seed)
    # The candidate gets copies of the parameters: the reference may update buffers in place
    # (BatchNorm's running statistics in training mode), the candidate may not. `values` stay the
    # judge's private copies; the candidate sees them in shared buffers. A ModelNew answer owns
    # its parameters: it gets the inputs only.
    values = instance.inputs + ([] if caller.model_seed is not None else clone_args(instance.params))
    args = caller.bind(values)
    if first:
        call = caller.call(args, f"trial 1, seed {seed}, before the reference")
        reference_args, expected = _reference(instance)
    else:
        reference_args, expected = _reference(instance)
        call = caller.call(args, f"seed {seed}")
    _check_unchanged(args, values, instance, checks)
    caller.check_bounds(checks)
    _check_structure(caller, call, expected, reference_args, instance, result)
    comparison = caller.compare(call.got, expected, result.tolerances)
    trial = Trial(seed, comparison.passed, comparison.max_abs_error, comparison.max_rel_error, comparison.mismatch)
    if not comparison.passed:
        if comparison.mismatch.kind in ("unwritten", "nonfinite"):
            checks.failed("unwritten_output" if comparison.mismatch.kind == "unwritten" else "no_nan_inf")
        return trial
    checks.passed("tolerance")
    checks.passed("unwritten_output")
    checks.passed("no_nan_inf")
    _check_determinism(caller, args, call, result, seed)
    _check_unchanged(args, values, instance, checks)
    _check_fresh_inputs(task, device, caller, args, values, instance, call.got, result, seed)
    caller.check_bounds(checks)
    spread.add(expected, call.got)
    return trial


def _reference(instance: Instance):
    """The reference's outputs, computed on copies of the inputs (a reference may modify them)."""
    reference_args = clone_args(instance.inputs)
    return reference_args, run_reference(instance, reference_args)


def _check_structure(caller: CandidateCaller, call: CallResult, expected: List[torch.Tensor], reference_args: list,
                     instance: Instance, result: Correctness) -> None:
    """Torch form: what forward returned (count, shape, dtype, device, aliasing) as the candidate
    process describes it; the raw form writes the judge's own buffers, whose structure is right."""
    if call.returned is None:
        result.checks.passed("output_structure")
        return
    problem = structure_problem(call.returned, expected)
    if problem:
        raise CandidateFailure("incorrect", problem, check="output_structure")
    result.checks.passed("output_structure")
    problem = aliasing_problem(call.returned, expected, instance.input_names + instance.param_names,
                               reference_args + instance.params)
    if problem:
        raise CandidateFailure("incorrect", problem, check="no_aliasing")
    result.checks.passed("no_aliasing")
    for difference in stride_differences(call.returned, expected):
        _add_flag(result, Flag("strides_differ", difference))


def _check_unchanged(args: ArgBuffers, values: list, instance: Instance, checks: Checks) -> None:
    """The shared argument buffers still hold the judge's private copies, bit for bit."""
    names = instance.input_names + instance.param_names
    for name, now, before in zip(names, args.views, values):
        if now is not None and not bitwise_equal(now, before):
            changed = int((element_bytes(now) != element_bytes(before)).any(dim=1).sum())
            what = "input" if name in instance.input_names else "parameter"
            raise CandidateFailure("incorrect", f"forward modified its {what} {name}: {changed} of {now.numel()} "
                                   "elements changed (inputs must be read-only)", check="inputs_unchanged")
    checks.passed("inputs_unchanged")


def _check_determinism(caller: CandidateCaller, args: ArgBuffers, first: CallResult, result: Correctness,
                       seed: int) -> None:
    again = caller.call(args, f"seed {seed}, second call on the same inputs")
    if again.returned is not None and first.returned is not None:
        before = {r.get("storage") for r in first.returned if r.get("storage")}
        if any(r.get("storage") in before for r in again.returned):
            _add_flag(result, Flag("reused_output", "forward returned the same memory on two calls: a caller that "
                                   "keeps an earlier result sees it overwritten"))
    comparison = caller.compare(again.got, first.got, result.tolerances)
    if not comparison.passed:
        raise CandidateFailure("incorrect", f"non-deterministic: a second call on the same inputs differs from the "
                               f"first: {comparison.mismatch.message}", check="determinism")
    result.checks.passed("determinism")
    if not all(bitwise_equal(a, b) for a, b in zip(again.got, first.got)):
        _add_flag(result, Flag("nondeterministic", "two calls on the same inputs agree within tolerance but not "
                               "bitwise (e.g. atomics in a reduction)"))


def _check_fresh_inputs(task: Task, device: Device, caller: CandidateCaller, args: ArgBuffers, values: list,
                        instance: Instance, previous: List[torch.Tensor], result: Correctness, seed: int) -> None:
    """New contents in the same input buffers must give the new answer, not the previous one."""
    tensors = [i for i, x in enumerate(instance.inputs) if isinstance(x, torch.Tensor)]
    if not tensors:
        return
    other = build_inputs(task, device, seed + FRESH_INPUT_SEED_OFFSET)
    for i in tensors:
        if other[i].shape != instance.inputs[i].shape or other[i].dtype != instance.inputs[i].dtype:
            return  # the task's inputs change shape with the seed; nothing to write in place
    fresh = list(values)
    for i in tensors:
        fresh[i] = other[i]
    args.write(fresh)
    instance.inputs = [other[i] if i in tensors else x for i, x in enumerate(instance.inputs)]
    _, expected = _reference(instance)
    got = caller.call(args, f"seed {seed}, new input contents in the same buffers").got
    _check_unchanged(args, fresh, instance, result.checks)
    comparison = caller.compare(got, expected, result.tolerances)
    if comparison.passed:
        result.checks.passed("fresh_inputs")
        return
    stale = caller.compare(got, previous, result.tolerances).passed
    detail = (" It returned the previous call's result although its inputs changed (a cached or constant output)."
              if stale else "")
    raise CandidateFailure("incorrect", f"wrong result after new input contents were written into the same buffers: "
                           f"{comparison.mismatch.message}.{detail}", check="fresh_inputs")


def _add_flag(result: Correctness, flag: Flag) -> None:
    if all(f.id != flag.id for f in result.flags):
        result.flags.append(flag)


class _Spread:
    """How much the reference's and the candidate's outputs vary across seeds: a reference that
    barely varies makes a weak task; a candidate whose output never varies is flagged constant."""

    def __init__(self, tolerances: List[Tolerance]) -> None:
        self.tolerances = tolerances
        self.first_expected: Optional[List[torch.Tensor]] = None
        self.first_got: Optional[List[torch.Tensor]] = None
        self.max_abs_diff = 0.0
        self.reference_within_tolerance = True
        self.candidate_constant = True
        self.reference_constant = True
        self.count = 0

    def add(self, expected: List[torch.Tensor], got: List[torch.Tensor]) -> None:
        self.count += 1
        if self.first_expected is None:
            self.first_expected, self.first_got = expected, got
            return
        comparison: Comparison = compare_outputs(expected, self.first_expected, self.tolerances, raw_buffers=False)
        self.max_abs_diff = max(self.max_abs_diff, comparison.max_abs_error or 0.0)
        self.reference_within_tolerance &= comparison.passed
        self.candidate_constant &= all(bitwise_equal(a, b) for a, b in zip(got, self.first_got))
        self.reference_constant &= all(bitwise_equal(a, b) for a, b in zip(expected, self.first_expected))

    def variability(self) -> Optional[dict]:
        if self.count < 2:
            return None
        return {"max_abs_diff_across_seeds": self.max_abs_diff, "weak": self.reference_within_tolerance}

    def flags(self, seeds: int) -> List[Flag]:
        if self.count < 2:
            return []
        flags = []
        if self.reference_within_tolerance:
            flags.append(Flag("weak_task", f"the reference's output varies by at most {self.max_abs_diff:.3g} across "
                              f"{seeds} seeds, within the tolerance: a constant output would pass this task"))
        if self.candidate_constant and not self.reference_constant:
            flags.append(Flag("constant_output", f"the kernel returned bitwise the same output for {seeds} different "
                              "seeds (different inputs)"))
        return flags

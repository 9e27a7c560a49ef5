"""The `check` method: the judge's pipeline of stages (task and signature, the candidate loaded in
a fresh candidate process, correctness, call records, timing), each returning a typed result; the
first failing stage decides the verdict. The judge runs the reference, keeps the expected outputs,
compares and reads its own clock; the candidate's code runs only in its process."""
import os
import time
from typing import List, Optional

from .candidate_session import CandidateSession, Deadline
from .channel import Request
from .check_timing import TimingStage
from .correctness import CandidateCaller, Correctness, run_correctness
from .devices import Device, parse_device
from .errors import BadRequest, KernelError
from .exchange import SharedMemory
from .faults import CandidateFailure, TimingWithheld
from .instance import build_instance, clone_args
from .kernel_spec import KernelSpec
from .modelnew import MODEL_SEED, initialisation_note, load_modelnew, parameter_problem
from .records import CallRecords, records_from_reply
from .policy import Policy
from .results import Flag
from .sessions import open_session, prepare
from .signature import Signature, raw_mismatch, torch_mismatch
from .task import Task, load_task
from .task_info import derive_task_signature
from .timed_runs import Outcome
from .timing import NOISY_SPREAD

LIBRARY_SHARE = 0.1  # GPU time share in library kernels above which the kernel is flagged
SPIN_MIN_US, SPIN_MAX_US = 200.0, 100_000.0  # how long the records op holds the caller's stream


def handle_check(params: dict, request: Request) -> dict:
    """`check`: called by the request loop on the main thread; returns the judge's verdict fields."""
    started = time.perf_counter()
    deadline = Deadline(params.get("deadline_s"))
    device = parse_device(params.get("device", "cpu"))
    if device.kind == "meta":
        raise BadRequest("check needs a real device (cpu or cuda)")
    policy = Policy.from_params(params.get("policy"))
    spec = KernelSpec.from_params(params.get("kernel"))
    if not os.path.isfile(spec.library):
        raise KernelError(f"kernel library not found: {spec.library}")
    prepare(spec.form, device)
    request.progress("load", f"task {params.get('task')}")
    task = load_task(params.get("task"))
    language = spec.language or ("cuda" if device.is_cuda else "cpp")
    signature = derive_task_signature(task, device)
    memory = SharedMemory(device)
    try:
        # The candidate's session, timing and views live in _judge's frame, which is gone by the
        # time the arenas are released (a view still alive would keep its arena).
        return _judge(task, device, spec, policy, signature, language, memory, deadline, request, started)
    finally:
        memory.close()


def _judge(task: Task, device: Device, spec: KernelSpec, policy: Policy, signature: Signature, language: str,
           memory: SharedMemory, deadline: Deadline, request: Request, started: float) -> dict:
    seconds = {}
    session: Optional[CandidateSession] = None
    try:
        session = open_session(spec.form, device, memory, deadline)
        verdict = _Verdict(signature, language, seconds)
        verdict.name_tampering(spec.tamper_signs)
        timing = None
        model_seed = MODEL_SEED if spec.form == "modelnew" else None
        try:
            if policy.timing:
                timing = TimingStage(task, device, session, memory, signature, spec.form == "raw", policy, deadline,
                                     lambda m: request.progress("timing", m), model_seed)
                timing.measure_null_before_load()
            if spec.form == "modelnew":
                params = load_modelnew(session, spec, task).get("params")
                verdict.answer = {"form": "modelnew", "initialised": initialisation_note(task),
                                  "parameters": parameter_problem(session, memory, task, device, params) or "match"}
            else:
                _load(session, spec, signature, language)
            caller = CandidateCaller(session, memory, signature, spec.form == "raw", model_seed)
        except CandidateFailure as failure:
            seconds["load"] = time.perf_counter() - started
            return verdict.failed(failure, started)
        seconds["load"] = time.perf_counter() - started
        return _stages(task, device, caller, spec, policy, timing, verdict, request, started)
    finally:
        if session is not None:
            session.end()


def _load(session: CandidateSession, spec: KernelSpec, signature: Signature, language: str) -> None:
    """Loads the kernel in its process and checks its declared signature (KernelError)."""
    staged = session.stage_file(spec.library, "kernel" + (os.path.splitext(spec.library)[1] or ".so"))
    fields = {"form": spec.form, "library": staged, "language": language}
    if spec.namespace:
        fields["namespace"] = spec.namespace
    declared = session.load(fields).get("declared")
    if spec.form == "raw":
        problem = raw_mismatch(signature, str(declared or ""), language)
    else:
        if not isinstance(declared, dict):
            raise CandidateFailure("rejected", f"the candidate process declared no op schema: {declared!r}")
        problem = torch_mismatch(signature, [str(t) for t in declared.get("arguments") or []], declared.get("returns"))
    if problem:
        raise KernelError(problem)


def _stages(task: Task, device: Device, caller: CandidateCaller, spec: KernelSpec, policy: Policy,
            timing: Optional[TimingStage], verdict: "_Verdict", request: Request, started: float) -> dict:
    seconds = verdict.seconds
    stage = time.perf_counter()
    correctness = run_correctness(task, device, caller, verdict.signature, policy,
                                  lambda m: request.progress("correctness", m))
    seconds["correctness"] = time.perf_counter() - stage
    verdict.correctness = correctness
    verdict.flags += correctness.flags
    if correctness.failure is not None:
        return verdict.failed(correctness.failure, started)
    # Timing comes before the call records: a profiler session (torch's Kineto, hone's CUPTI
    # library) can leave its subscriber in the process and tax every later CUDA call, so the
    # timed calls run in a process that has not been profiled yet. A timing failure stands unless
    # the records then show why (work that escapes the timer is the better reason).
    timing_failure: Optional[CandidateFailure] = None
    withheld: Optional[TimingWithheld] = None
    outcome = None
    try:
        if timing is not None:
            stage = time.perf_counter()
            try:
                outcome = timing.measure()
            except CandidateFailure as failure:
                timing_failure = failure
            except TimingWithheld as busy:  # outputs verified, time unbounded on a busy machine: no time
                withheld = busy
            seconds["timing"] = time.perf_counter() - stage
            seconds.update({f"timing.{part}": s for part, s in timing.run.stages.items()})
        if policy.records and (device.is_cuda or spec.form != "raw") and not _process_gone(timing_failure):
            stage = time.perf_counter()
            request.progress("records", "profiling one call")
            try:
                records = _records_stage(task, device, caller, spec, policy)
            except CandidateFailure:
                if timing_failure is None:
                    raise
                records = None
            seconds["records"] = time.perf_counter() - stage
            if records is not None:
                verdict.add_records(records)
        if timing_failure is not None:
            raise timing_failure
        if outcome is not None:
            verdict.add_timing(outcome)
            correctness.checks.passed("timed_calls_verified")
            correctness.checks.passed("timing_bounded")
        if withheld is not None:  # correct without a time; timing_bounded neither passed nor failed
            correctness.checks.passed("timed_calls_verified")
            verdict.flags.append(Flag("timing_withheld", withheld.reason))
    except CandidateFailure as failure:
        if failure.check:
            correctness.checks.failed(failure.check)
        return verdict.failed(failure, started)
    return verdict.passed(started)


def _process_gone(failure: Optional[CandidateFailure]) -> bool:
    """Whether a failure ended the candidate's process (a crash, a timeout): nothing more to ask it."""
    return failure is not None and failure.status in ("runtime_error", "timeout")


class _Verdict:
    """Accumulates the judge's part of a verdict across stages."""

    def __init__(self, signature: Signature, language: str, seconds: dict) -> None:
        self.signature = signature
        self.language = language
        self.correctness: Optional[Correctness] = None
        self.seconds = seconds
        self.flags: List[Flag] = []
        self.extra: dict = {}
        self.answer: Optional[dict] = None  # a KernelBench answer: how ModelNew was built, its parameters
        self.tamper_signs: List[str] = []

    def name_tampering(self, signs: List[str]) -> None:
        """The build's tamper signs, named in the flags (issue 13); failed() makes a candidate
        process failure after them `rejected`: the behaviour they announce was caught."""
        self.tamper_signs = list(signs)
        if signs:
            self.flags.append(Flag("tamper_signs", f"the kernel's own code {'; '.join(signs)}: no kernel needs "
                                   "this, and code that rewrites what its process reports (clocks, comparisons, the "
                                   "reference) does; the verdict rests on the judge's own checks, made outside that "
                                   "process"))

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

    def add_timing(self, outcome: Outcome) -> None:
        self.extra["timing"] = outcome.to_json()
        for name, timing in (("call", outcome.call), ("device", outcome.device)):
            if timing is not None and timing.spread > NOISY_SPREAD and all(f.id != "timing_noisy" for f in self.flags):
                self.flags.append(Flag("timing_noisy", f"the p10..p90 spread of the {name} time is "
                                       f"{100 * timing.spread:.0f}% of the median over {len(timing.samples_us)} calls "
                                       "(measured again, still noisy)"))

    def _base(self, started: float) -> dict:
        self.seconds["total"] = time.perf_counter() - started
        out = {
            "signature": self.signature.to_json(self.language),
            "correctness": self.correctness.to_json() if self.correctness else {"trials": [], "checks": {}},
            "flags": [f.to_json() for f in self.flags],
            "seconds": self.seconds,
            "restart_required": False,
        }
        if self.correctness is not None and self.correctness.variability is not None:
            out["variability"] = self.correctness.variability
        if self.answer is not None:
            out["answer"] = self.answer
        out.update(self.extra)
        return out

    def failed(self, failure: CandidateFailure, started: float) -> dict:
        out = self._base(started)
        reason = failure.reason
        status = failure.status
        if self.tamper_signs and status == "runtime_error":
            status = "rejected"
            reason = (f"tampering: the candidate process failed ({reason}) after loading code that "
                      f"{'; '.join(self.tamper_signs)}; what that process reports cannot be trusted, and the verdict "
                      "rests on the judge's own checks")
        if self.answer is not None and self.answer.get("parameters") not in (None, "match") and \
                failure.status == "incorrect":
            reason = f"{reason}; ModelNew's parameters do not match Model's: {self.answer['parameters']}"
        out.update(status=status, reason=reason, evidence=failure.evidence)
        return out

    def passed(self, started: float) -> dict:
        out = self._base(started)
        out["status"] = "correct"
        return out


def _records_stage(task: Task, device: Device, caller: CandidateCaller, spec: KernelSpec,
                   policy: Policy) -> Optional[CallRecords]:
    instance = build_instance(task, device, policy.seeds[0], caller.model_seed)
    args = caller.bind(instance.inputs + ([] if caller.model_seed is not None else clone_args(instance.params)))
    spin_us = min(SPIN_MAX_US, max(SPIN_MIN_US, 4 * caller.last_call_us))
    reply = caller.session.records(args.json(), caller.outputs.bufs(), spin_us)
    if reply is None:
        return None
    return records_from_reply(reply, spec.form == "raw", spec.own_kernels)

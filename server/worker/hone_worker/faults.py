"""A candidate's failures as verdicts: what went wrong in a call (exception, launch error, CUDA
error, out of memory), and whether the CUDA context survived it."""
import re
import traceback
from dataclasses import dataclass, field
from typing import Optional

from .devices import Device

_CUDA_ERROR_NAME = re.compile(r"\b(cudaError[A-Za-z]+|CUDA_ERROR_[A-Z_]+)")
_CUDA_ERROR_TEXT = re.compile(r"CUDA error: [^\n]*")
_OOM = ("out of memory", "can't allocate memory", "std::bad_alloc", "OutOfMemoryError")


@dataclass
class CandidateFailure(Exception):
    """Ends a check with a non-correct verdict; raised by any stage that finds a failure."""

    status: str  # runtime_error, incorrect or rejected
    reason: str
    evidence: dict = field(default_factory=dict)
    restart_required: bool = False
    check: Optional[str] = None  # the policy check that failed, for correctness.checks

    def __str__(self) -> str:
        return self.reason


@dataclass
class TimingWithheld(Exception):
    """Ends the timing stage without a time and without a failure: the candidate's outputs are
    verified, but its timing claims could not be bounded by the judge's clock on a machine that
    other processes kept busy (hone_worker/bounds.py BUSY_LOOP_SLOWDOWN). Not a CandidateFailure:
    the verdict stays correct, with no timing and the flag `timing_withheld`."""

    reason: str
    evidence: dict = field(default_factory=dict)

    def __str__(self) -> str:
        return self.reason


def call_failure(exc: BaseException, device: Device, what: str) -> CandidateFailure:
    """Classifies an exception raised by a candidate call (or by the synchronize after it)."""
    message = str(exc).strip() or type(exc).__name__
    first = message.splitlines()[0]
    evidence = {"traceback": "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))}
    name, text = _CUDA_ERROR_NAME.search(message), _CUDA_ERROR_TEXT.search(message)
    if any(s in message or s == type(exc).__name__ for s in _OOM):
        reason = f"out of memory in {what}: {first}"
    elif name or text:
        evidence["cuda_error"] = name.group(1) if name else text.group(0)
        reason = f"CUDA error in {what}: {first}"
    else:
        reason = f"{what} raised {type(exc).__name__}: {first}"
    check = "launch_errors" if "launch error" in message else "no_runtime_error"
    return CandidateFailure("runtime_error", reason, evidence, device.context_broken(), check)


def launch_failure(code: int, message: str, device: Device, what: str) -> CandidateFailure:
    """A raw-form entry's non-zero return: 1 an exception or contract error, 2 a CUDA launch error."""
    if code == 2:
        return CandidateFailure(
            "runtime_error", f"CUDA launch error in {what}: {message}", {"cuda_error": message.split(":")[0]},
            device.context_broken(), "launch_errors",
        )
    if any(s in message for s in _OOM):
        return CandidateFailure("runtime_error", f"out of memory in {what}: {message}", {}, False, "no_runtime_error")
    return CandidateFailure("runtime_error", f"{what} failed: {message or f'error code {code}'}", {}, False, "no_runtime_error")

"""One candidate in its process, as the judge sees it: the candidate protocol's ops with the
check's deadline, and every way they can fail turned into the verdict it means (a reply's error
kind, a crash with its signal and last stderr lines, a deadline passed). What the process says is
a claim; the callers check it. Used by one check on the judge's main thread."""
import os
import re
import shutil
import time
from typing import Callable, List, Optional, Sequence

from .candidate_process import CandidateGone, CandidateProcess, Reply, sigkill_clause
from .errors import KernelError, Unsupported, WorkerError
from .exchange import Region, SharedMemory
from .faults import CandidateFailure

_LABELLED = re.compile(r"^(forward failed|CUDA launch error in forward) \([^()]*\): ")  # the judge adds the trial
_OOM = ("out of memory", "can't allocate memory", "std::bad_alloc", "OutOfMemoryError", "CUDA_ERROR_OUT_OF_MEMORY",
        "cudaErrorMemoryAllocation")


class Deadline:
    """The check's deadline_s, from the moment the request arrived."""

    def __init__(self, seconds: Optional[float]) -> None:
        self.seconds = float(seconds) if isinstance(seconds, (int, float)) and seconds > 0 else 600.0
        self.until = time.perf_counter() + self.seconds

    def left(self) -> float:
        return max(0.05, self.until - time.perf_counter())


class CandidateSession:
    """A taken candidate process and the check's shared memory. `on_end` gives the process back
    to the pool (which ends it); called once by end()."""

    def __init__(self, process: CandidateProcess, memory: SharedMemory, deadline: Deadline,
                 on_end: Callable[[CandidateProcess], None]) -> None:
        self.process = process
        self.memory = memory
        self.deadline = deadline
        self._on_end = on_end
        self.ended = False
        self.loaded = False

    @property
    def kind(self) -> str:
        return self.process.kind

    def note(self, text: str) -> None:
        self.process.note(text)

    def stage_file(self, path: str, name: str) -> str:
        """Copies a file the candidate needs (its library, a task file) into the slot's scratch
        folder, the only one it may write to; returns the copy's path."""
        target = os.path.join(self.process.spec.scratch, name)
        try:
            shutil.copyfile(path, target)
            os.chmod(target, 0o755)
        except OSError as exc:
            raise KernelError(f"cannot copy {path} for the candidate process: {exc}") from None
        return target

    def map(self, regions: Sequence[Region]) -> None:
        entries, fds = self.memory.map_request(self.process.pid, regions)
        if not entries:
            return
        self._ok("map", {"arenas": entries}, "mapping shared memory", fds)
        self.memory.mapped(self.process.pid, entries)

    def load(self, fields: dict) -> dict:
        """`load`; a load_error is the kernel's problem (KernelError: a compile_error verdict)."""
        reply = self._send("load", fields, f"loading the {fields.get('form')}-form candidate")
        if reply.ok:
            self.loaded = True
            return reply.message
        error = reply.error
        if error.get("kind") == "load_error":
            raise KernelError(error.get("message", "the kernel library could not be loaded"),
                              error.get("traceback") or "")
        raise self._failure(error, f"loading the {fields.get('form')}-form candidate")

    def state(self, outputs: List[dict]) -> dict:
        """A ModelNew's state_dict() tensors copied into the given buffers (modelnew form)."""
        return self._ok("state", {"outputs": outputs}, "reading ModelNew's parameters")

    def call(self, args: List[dict], outputs: List[dict], label: str, poison: bool) -> dict:
        """One forward call; the reply's fields (`returned`, `poison_problems`)."""
        self.note(f"calling candidate forward ({label})")
        self.memory.synchronize()
        return self._ok("call", {"args": args, "outputs": outputs, "label": label, "poison": poison}, "forward")

    def records(self, args: List[dict], outputs: List[dict], spin_us: float) -> Optional[dict]:
        """The profiled call; None when this runner cannot profile on its device."""
        self.note("calling candidate forward (profiled call)")
        self.memory.synchronize()
        reply = self._send("records", {"args": args, "outputs": outputs, "spin_us": spin_us},
                           "forward (profiled call)")
        if reply.ok:
            return reply.message
        if reply.error.get("kind") == "unsupported":
            self.note(f"no call records: {reply.error.get('message')}")
            return None
        raise self._failure(reply.error, "forward (profiled call)")

    def time(self, fields: dict, what: str, on_event: Optional[Callable[[dict, int], None]] = None) -> Reply:
        """One `time` op; the reply with the judge's clock around it."""
        self.note(f"calling candidate forward ({what})")
        self.memory.synchronize()
        reply = self._send("time", fields, f"forward ({what})", on_event)
        if not reply.ok:
            raise self._failure(reply.error, f"forward ({what})")
        return reply

    def end(self) -> None:
        """Gives the process back to the pool, which ends it (each process serves one candidate)."""
        if not self.ended:
            self.ended = True
            self._on_end(self.process)

    def _ok(self, op: str, fields: dict, what: str, fds: Sequence[int] = ()) -> dict:
        reply = self._send(op, fields, what, fds=fds)
        if not reply.ok:
            raise self._failure(reply.error, what)
        return reply.message

    def _send(self, op: str, fields: dict, what: str, on_event=None, fds: Sequence[int] = ()) -> Reply:
        try:
            return self.process.request(op, fields, self.deadline.left(), fds=fds, on_event=on_event)
        except CandidateGone as gone:
            raise self._gone(gone, what) from None

    def _gone(self, gone: CandidateGone, what: str) -> CandidateFailure:
        tail = [line for line in gone.evidence.get("stderr_tail", []) if line.strip()]
        own = [line for line in tail if not line.startswith("hone-judge: ")]
        last = f"; last output: {(own or tail)[-1]}" if tail else ""
        if gone.timed_out:
            return CandidateFailure("timeout", f"no result within the {_seconds(self.deadline.seconds)} deadline: the "
                                    f"candidate process was killed during {what} (the candidate may loop forever or "
                                    f"deadlock){last}", gone.evidence)
        if gone.killed_by_judge:  # alive, but it broke the protocol (a message not JSON, its socket closed)
            reason = f"the candidate process broke the judge's protocol during {what} and was killed ({gone.what})"
            return CandidateFailure("runtime_error", reason + last, gone.evidence, check="no_runtime_error")
        if "signal" not in gone.evidence:  # it ended itself: exit() or _exit() from the candidate's code
            reason = (f"the candidate process ended itself during {what} (exit code {gone.evidence.get('exit_code')}): "
                      "forward must return, not end its process")
            return CandidateFailure("runtime_error", reason + last, gone.evidence, check="no_runtime_error")
        reason = f"the candidate process crashed during {what} (killed by {gone.evidence['signal']})"
        if gone.evidence.get("signal") == "SIGKILL":
            reason += "; " + sigkill_clause(gone.evidence.get("oom_kills"), "the candidate process")
        return CandidateFailure("runtime_error", reason + last, gone.evidence, check="no_runtime_error")

    def _failure(self, error: dict, what: str) -> Exception:
        """An error reply as the verdict (or protocol error) it means."""
        kind, message = error.get("kind"), _LABELLED.sub(r"\1: ", str(error.get("message") or ""), count=1)
        evidence = {k: error[k] for k in ("traceback", "cuda_error") if error.get(k)}
        if kind == "unsupported":
            return Unsupported(f"the {self.kind} runner cannot do {what}: {message}")
        if kind in ("bad_request", "internal"):
            if not self.loaded:
                return WorkerError(f"the {self.kind} runner failed in {what} ({kind}): {message}",
                                   error.get("traceback") or "")
            # After load, the candidate's code shares the runner's process and may have broken it.
            return CandidateFailure("runtime_error", f"the candidate process failed in {what} ({kind}): {message}",
                                    evidence, check="no_runtime_error")
        if kind == "launch_error":
            text = message if message.startswith("CUDA launch error") else f"CUDA launch error in {what}: {message}"
            return CandidateFailure("runtime_error", text, evidence, check="launch_errors")
        if any(s in message for s in _OOM):
            detail = message[len("forward failed: "):] if message.startswith("forward failed: ") else message
            return CandidateFailure("runtime_error", f"out of memory in {what}: {detail}", evidence,
                                    check="no_runtime_error")
        if kind == "cuda_error":
            return CandidateFailure("runtime_error", f"CUDA error in {what}: {message}", evidence,
                                    check="no_runtime_error")
        if kind == "forward_error":
            return CandidateFailure("runtime_error", message or f"{what} failed", evidence, check="no_runtime_error")
        return CandidateFailure("rejected", f"the candidate process broke the protocol in {what}: {error!r}",
                                evidence, check="no_runtime_error")


def _seconds(s: float) -> str:
    return f"{s:.0f} s" if s >= 10 else f"{s:.1f} s"

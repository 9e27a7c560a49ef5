"""Which runner serves a candidate and how its session starts: raw-form kernels go to the native
runner (no Python, fast start) when it is available, everything else to the python runner; a
process is taken from the pool for one candidate and given back (ended) after it. Also the clean
null-form process whose loop the judge times for the bounds. Main thread of the judge."""
from typing import Optional

from .candidate_session import CandidateSession, Deadline
from .channel import log
from .devices import Device
from .exchange import SharedMemory
from .pool import RunnerUnavailable, shared_pool

NULL_WAIT_S = 30.0  # how long the null loop waits for a clean process before timing goes unbounded


def runner_kind(form: str) -> str:
    """The runner a form goes to first: native for raw (when it has launch specs), else python."""
    return "native" if form == "raw" and shared_pool().has("native") else "python"


def prepare(form: str, device: Device) -> None:
    """Starts the pool's processes for this form and device in the background (before the
    judge's own work on the task). The python runner's slots start on the first request that
    needs one (a torch-form kernel, a reference's timing, a profile), then stay filled: a python
    runner's start is seconds of a core that a check of a raw kernel should not compete with."""
    shared_pool().prepare(runner_kind(form), str(device))


def open_session(form: str, device: Device, memory: SharedMemory, deadline: Deadline) -> CandidateSession:
    """A fresh candidate process for one candidate; raw form falls back to the python runner when
    no native runner starts. Raises RunnerUnavailable."""
    pool = shared_pool()
    kind = runner_kind(form)
    try:
        process = pool.take(kind, str(device))
    except RunnerUnavailable as exc:
        if kind != "native":
            raise
        log(f"the native runner is unavailable ({exc.message.splitlines()[0]}); using the python runner")
        process = pool.take("python", str(device))
    return CandidateSession(process, memory, deadline, pool.release)


def null_session(kind: str, device: Device, memory: SharedMemory, deadline: Deadline) -> Optional[CandidateSession]:
    """A clean process of `kind` with the null form loaded (nothing of any candidate in it), or
    None when none can be started."""
    pool = shared_pool()
    try:
        process = pool.take(kind, str(device), min(NULL_WAIT_S, deadline.left()))
    except RunnerUnavailable as exc:
        log(f"no clean {kind} process for the null loop: {exc.message.splitlines()[0]}")
        return None
    session = CandidateSession(process, memory, deadline, pool.release)
    session.load({"form": "null"})
    return session

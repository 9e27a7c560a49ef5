"""Pre-started candidate processes, per runner kind and device: one slot per launch spec, each
with a thread that empties the slot's scratch folder, starts the runner, waits for its `ready`
and offers it. A process is taken for exactly one candidate; when the judge releases it, the slot
thread ends it and starts the next one, so the following check finds a ready process. While the
judge times calls (quiet()), no slot begins a start unless a take() waits for that kind: a
runner's start (a python runner imports torch, every runner makes a CUDA context) is load the
judge would otherwise put on the machine it times on."""
import contextlib
import threading
import time
from typing import Callable, Dict, List, Optional

from .candidate_process import CandidateGone, CandidateProcess
from .channel import log
from .errors import WorkerError
from .launch import KINDS, LaunchSpec, clear_folder, load_launch_specs

START_TIMEOUT_S = 180.0  # python + torch + a CUDA context on a loaded machine
RETRY_S = (1.0, 5.0, 30.0)  # waits after successive failed starts of one slot
EXIT_JOIN_S = 5.0  # how long the judge's exit waits for each slot to end its process
QUIET_WAIT_S = 30.0  # how long quiet() waits for starts under way to finish (then it goes on)


class RunnerUnavailable(WorkerError):
    """No candidate process of a kind can be started: the message says what was run and what it
    printed (an environment problem, not a candidate's failure)."""

    code = "internal"


class _Slot:
    """One launch spec and the process it runs now; its thread is the only one that starts and
    ends that process, except kill() of a taken one by the judge."""

    def __init__(self, pool: "CandidatePool", spec: LaunchSpec, index: int) -> None:
        self.pool = pool
        self.spec = spec
        self.index = index
        self.device: Optional[str] = None  # the device it serves; None: not wanted yet
        self.process: Optional[CandidateProcess] = None
        self.state = "idle"  # idle, starting, ready, taken, failed
        self.failure: Optional[str] = None
        self.released = False
        self.thread = threading.Thread(target=self._run, name=f"pool-{spec.kind}-{index}", daemon=True)

    def _run(self) -> None:
        pool, failures = self.pool, 0
        while True:
            with pool.changed:
                # One start at a time per kind: a python runner's start is seconds of one core.
                # None while the judge times calls, unless a take() of this kind waits for one.
                while not pool.closed and (self.device is None or pool.starting(self.spec.kind)
                                           or pool.hushed(self.spec.kind)):
                    pool.changed.wait()
                if pool.closed:
                    return
                device, self.state = self.device, "starting"
            process = self._start(device)
            with pool.changed:
                if process is None:
                    failures += 1
                    self.state = "failed"
                    pool.changed.notify_all()
                    wait = RETRY_S[min(failures, len(RETRY_S)) - 1]
                else:
                    failures, self.failure = 0, None
                    self.process, self.state, self.released = process, "ready", False
                    pool.changed.notify_all()
                    while not pool.closed and not self.released and not (self.state == "ready" and self.device != device):
                        pool.changed.wait()
                    self.process, self.state = None, "idle"
                    wait = 0.0
            if process is not None:
                process.end()
            if wait:
                with pool.changed:
                    pool.changed.wait_for(lambda: pool.closed, wait)

    def _start(self, device: str) -> Optional[CandidateProcess]:
        try:
            clear_folder(self.spec.scratch)
            process = CandidateProcess(self.spec, device)
        except OSError as exc:
            self.failure = f"cannot start {' '.join(self.spec.command(device))}: {exc}"
            log(f"pool: {self.failure}")
            return None
        try:
            ready = process.wait_ready(START_TIMEOUT_S)
        except CandidateGone as gone:
            tail = "\n".join(gone.evidence.get("stderr_tail", [])[-15:])
            how = gone.evidence.get("signal") or f"exit code {gone.evidence.get('exit_code')}"
            self.failure = (f"the {self.spec.kind} runner did not start ({gone.what}; {how}): "
                            f"{' '.join(self.spec.command(device))}\n{tail}")
            log(f"pool: {self.failure}")
            return None
        log(f"pool: {self.spec.kind} runner ready on {device} (pid {ready.get('pid')}, slot {self.index})")
        return process


class CandidatePool:
    """Owned by the judge; take/release run on its main thread, the slots on their own."""

    def __init__(self, specs: Optional[Dict[str, List[LaunchSpec]]] = None) -> None:
        self.specs = load_launch_specs() if specs is None else specs
        self.changed = threading.Condition()
        self.closed = False
        self._quiet = 0  # quiet() blocks open
        self._taking: Dict[str, int] = {}  # take() calls waiting, per kind
        self._slots: Dict[str, List[_Slot]] = {kind: [_Slot(self, s, i) for i, s in enumerate(self.specs.get(kind, []))]
                                               for kind in KINDS}
        for slots in self._slots.values():
            for slot in slots:
                slot.thread.start()

    def starting(self, kind: str) -> bool:
        """Whether a slot of `kind` is starting its process now (call with `changed` held)."""
        return any(s.state == "starting" for s in self._slots.get(kind, []))

    def hushed(self, kind: str) -> bool:
        """Whether a slot of `kind` must not begin a start now (call with `changed` held)."""
        return self._quiet > 0 and not self._taking.get(kind)

    def any_starting(self) -> bool:
        """Whether any slot is starting its process now (call with `changed` held)."""
        return any(self.starting(kind) for kind in self._slots)

    @contextlib.contextmanager
    def quiet(self, progress: Optional[Callable[[str], None]] = None, wait_s: float = QUIET_WAIT_S):
        """While the block runs no slot begins a start (but for a take() that waits); first waits,
        up to `wait_s`, for the starts under way to finish, saying so through `progress`."""
        with self.changed:
            self._quiet += 1
            under_way = self.any_starting()
        try:
            if under_way:
                if progress:  # not under the lock: it writes to the engine
                    progress("waiting for a runner's start to finish before timing")
                with self.changed:
                    if not self.changed.wait_for(lambda: self.closed or not self.any_starting(), wait_s):
                        log(f"pool: a runner still starting after {wait_s:.0f} s; timing beside it")
            yield
        finally:
            with self.changed:
                self._quiet -= 1
                self.changed.notify_all()

    def has(self, kind: str) -> bool:
        """Whether this kind has launch specs and has not failed every start so far."""
        slots = self._slots.get(kind, [])
        return bool(slots) and not all(s.state == "failed" for s in slots)

    def prepare(self, kind: str, device: str) -> None:
        """Makes the slots of `kind` serve `device` (starting them in the background)."""
        with self.changed:
            for slot in self._slots.get(kind, []):
                slot.device = device
            self.changed.notify_all()

    def take(self, kind: str, device: str, timeout_s: float = START_TIMEOUT_S) -> CandidateProcess:
        """A ready process of `kind` on `device`, for one candidate; waits for one to start.
        Raises RunnerUnavailable when every slot of the kind failed to start."""
        slots = self._slots.get(kind, [])
        if not slots:
            raise RunnerUnavailable(f"no launch spec for the {kind} runner")
        self.prepare(kind, device)
        deadline = time.monotonic() + timeout_s
        with self.changed:
            self._taking[kind] = self._taking.get(kind, 0) + 1  # a quiet pool starts this kind for it
            self.changed.notify_all()
            try:
                while True:
                    for slot in slots:
                        if slot.state == "ready" and slot.device == device and slot.process is not None:
                            slot.state = "taken"
                            return slot.process
                    if all(s.state == "failed" for s in slots):
                        raise RunnerUnavailable(slots[0].failure or f"the {kind} runner did not start")
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise RunnerUnavailable(f"no {kind} runner became ready on {device} within {timeout_s:.0f} s")
                    self.changed.wait(left)
            finally:
                self._taking[kind] -= 1

    def release(self, process: CandidateProcess) -> None:
        """Gives a taken process back: its slot ends it and starts the next."""
        with self.changed:
            for slots in self._slots.values():
                for slot in slots:
                    if slot.process is process:
                        slot.released = True
            self.changed.notify_all()

    def failure(self, kind: str) -> Optional[str]:
        """The last start failure of a kind's slots, for messages."""
        return next((s.failure for s in self._slots.get(kind, []) if s.failure), None)

    def close(self) -> None:
        """Ends every process (the judge's shutdown)."""
        with self.changed:
            self.closed = True
            self.changed.notify_all()
        for slots in self._slots.values():
            for slot in slots:
                slot.thread.join(EXIT_JOIN_S)


_shared: Optional[CandidatePool] = None


def shared_pool() -> CandidatePool:
    """The judge's one pool, made on first use from $HONE_CANDIDATE_LAUNCH (main thread)."""
    global _shared
    if _shared is None:
        _shared = CandidatePool()
    return _shared


def quiet_pool(progress: Optional[Callable[[str], None]] = None):
    """The judge's pool kept from starting runners while the block times calls (pool.quiet()); a
    judge without a pool yet has nothing to keep quiet."""
    return _shared.quiet(progress) if _shared is not None else contextlib.nullcontext()


def close_shared_pool() -> None:
    """Ends every candidate process (the judge's exit)."""
    global _shared
    if _shared is not None:
        _shared.close()
        _shared = None

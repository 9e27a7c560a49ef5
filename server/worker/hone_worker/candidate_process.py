"""The judge's client of one candidate process (protocol/WORKER.md, "The candidate protocol"): it
starts the runner with one end of an AF_UNIX/SOCK_SEQPACKET socket pair as its fd 0 and 1 and a
pipe as its stderr, waits for `ready`, sends ops with a deadline each, and kills the process group
at the deadline. A thread reads the candidate's stderr: it keeps the last lines (with the judge's
own notes about this candidate, in order) as evidence and copies each line to the judge's stderr."""
import array
import collections
import json
import os
import resource
import select
import shutil
import signal
import socket
import struct
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Sequence

from . import process_accounting
from .channel import write_line
from .launch import LaunchSpec

MAX_MESSAGE = 8 << 20  # bytes in one datagram
EVIDENCE_LINES = 200
POLL_SLICE_S = 0.05  # how often a wait also looks at the process itself
# The kernel stamps each message the candidate sends with the time of its send (SO_TIMESTAMPNS,
# CLOCK_REALTIME): a reply's arrival on the judge's clock is that, not when the judge got to read
# it. On a busy machine the judge's own wait for a CPU (and for its GIL) after the reply came was
# counted as the candidate's time, and rejected honest kernels (CI, 2 cores under ctest -j2).
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # Linux; Python names it from 3.12 on
SCM_TIMESTAMPNS = SO_TIMESTAMPNS
IDLE_WAIT_S = 0.05  # how long the judge waits for a runner to sleep before it reads its CPU times
STDERR_DRAIN_S = 1.0  # after an exit: how long the last stderr lines may take to arrive
EXIT_GRACE_S = 2.0  # after `exit`: how long before the process group is killed


class CandidateGone(Exception):
    """The candidate process died, or passed its deadline and was killed. `evidence` is the
    verdict's evidence object (signal or exit code, the last stderr lines)."""

    def __init__(self, timed_out: bool, evidence: dict, what: str, killed_by_judge: bool = False) -> None:
        super().__init__(what)
        self.timed_out = timed_out
        self.evidence = evidence
        self.what = what
        self.killed_by_judge = killed_by_judge  # alive until the judge killed it for what it sent or did


@dataclass
class Reply:
    """One op's reply and the judge's own clock around it (time.perf_counter_ns)."""

    message: dict
    sent_ns: int
    replied_ns: int
    events: List[tuple] = field(default_factory=list)  # (event name, perf_counter_ns when it was sent)
    judge_lag_ns: int = 0  # how long after the reply was sent the judge read it (its own wait)

    @property
    def ok(self) -> bool:
        return self.message.get("ok") is True

    @property
    def error(self) -> dict:
        error = self.message.get("error")
        return error if isinstance(error, dict) else {"kind": "internal", "message": f"malformed reply: {self.message}"}


class CandidateProcess:
    """One runner process, used for one candidate. Created by the pool's slot threads; after it
    is taken, only the judge's main thread sends ops (one at a time)."""

    def __init__(self, spec: LaunchSpec, device: str) -> None:
        self.spec = spec
        self.device = device
        self.ready: Optional[dict] = None
        self._lines = collections.deque(maxlen=EVIDENCE_LINES)
        self._lines_lock = threading.Lock()
        self._next_id = 1
        self._dead_evidence: Optional[dict] = None
        self._killed_alive = False  # kill() found it alive (a SIGKILL in its evidence is then the judge's)
        self._runner_pid: Optional[int] = None
        self._oom_kills_at_start = process_accounting.oom_kill_count()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.popen = subprocess.Popen(dies_with_judge(spec.command(device)), stdin=theirs.fileno(),
                                          stdout=theirs.fileno(),
                                          stderr=subprocess.PIPE, env=runner_environment(spec.env),
                                          cwd=spec.cwd or spec.scratch,
                                          start_new_session=True, close_fds=True)
        finally:
            theirs.close()
        self._socket = ours
        try:
            ours.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        except OSError:
            pass  # no stamps: a message's arrival is when the judge read it
        if spec.address_space_bytes and device == "cpu":
            _limit_address_space(self.popen.pid, spec.address_space_bytes)
        self._stderr_thread = threading.Thread(target=self._read_stderr, name=f"candidate-{self.popen.pid}-stderr",
                                               daemon=True)
        self._stderr_thread.start()

    @property
    def pid(self) -> int:
        return self.popen.pid

    @property
    def kind(self) -> str:
        return self.spec.kind

    def note(self, text: str) -> None:
        """A judge line about this candidate: in the evidence (in order with the candidate's own
        lines) and on the judge's stderr."""
        line = f"hone-judge: {text}"
        with self._lines_lock:
            self._lines.append(line)
        write_line(line)

    def wait_ready(self, timeout_s: float) -> dict:
        """Waits for the runner's `ready` event; raises CandidateGone when it dies or is late."""
        message, _, _ = self._receive(time.perf_counter() + timeout_s, f"start (--device {self.device})")
        if message.get("event") != "ready":
            self.kill()
            raise CandidateGone(False, self.evidence(), f"the runner sent {message!r} instead of its ready event")
        self.ready = message
        return message

    def request(self, op: str, fields: dict, timeout_s: float, fds: Sequence[int] = (),
                on_event: Optional[Callable[[dict, int], None]] = None) -> Reply:
        """Sends one op and waits for its reply, at most `timeout_s`; `on_event` gets the events
        of this op (`enqueued`) as they arrive, with the perf_counter_ns time of their send.
        Raises CandidateGone (the process is then dead)."""
        if self._dead_evidence is not None:
            raise CandidateGone(False, self._dead_evidence, f"{op}: the candidate process had already ended")
        request_id = self._next_id
        self._next_id += 1
        data = json.dumps(dict(fields, id=request_id, op=op), allow_nan=False, separators=(",", ":")).encode()
        deadline = time.perf_counter() + timeout_s
        sent_ns = time.perf_counter_ns()
        try:
            if fds:
                socket.send_fds(self._socket, [data], list(fds))
            else:
                self._socket.send(data)
        except OSError as exc:
            raise self._gone(False, f"{op}: the candidate process does not take requests ({exc})") from None
        events = []
        while True:
            message, arrived, lag = self._receive(deadline, op)
            if message.get("id") != request_id:
                self.kill()
                raise CandidateGone(False, self.evidence(), f"{op}: the runner answered {message!r} to request "
                                    f"{request_id}")
            if "event" in message:
                events.append((message["event"], arrived))
                if on_event is not None:
                    on_event(message, arrived)
                continue
            return Reply(message, sent_ns, arrived, events, lag)

    def schedstat(self) -> Optional[tuple]:
        """(CPU time, run delay) of the runner's main thread so far, in ns; None where it cannot be read."""
        pid = self._find_runner()
        return None if pid is None else process_accounting.schedstat(pid)

    def settle(self, timeout_s: float = IDLE_WAIT_S) -> bool:
        """Waits (at most `timeout_s`) until the runner's main thread sleeps, as it does between
        ops (process_accounting.wait_asleep). True when it sleeps."""
        pid = self._find_runner()
        return pid is not None and process_accounting.wait_asleep(pid, timeout_s)

    def cpu_time_ns(self) -> Optional[int]:
        """The CPU time all of the candidate's processes have used so far (the tree of the process
        the judge started). None where it cannot be read."""
        return process_accounting.tree_cpu_ns(self.popen.pid)

    def _find_runner(self) -> Optional[int]:
        """The runner's pid as the judge sees it: the process itself, or (confined, in its own pid
        namespace) the descendant whose innermost pid is the one its ready event named."""
        if self._runner_pid is None and self.ready and isinstance(self.ready.get("pid"), int):
            for pid in [self.popen.pid] + process_accounting.descendants(self.popen.pid):
                if process_accounting.innermost_pid(pid) == self.ready["pid"]:
                    self._runner_pid = pid
                    break
        return self._runner_pid

    def end(self) -> None:
        """Asks the runner to exit, then kills its process group (whatever is left of it)."""
        if self._dead_evidence is None and self.popen.poll() is None:
            try:
                self._socket.send(json.dumps({"id": self._next_id, "op": "exit"}).encode())
                self.popen.wait(timeout=EXIT_GRACE_S)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()

    def kill(self) -> None:
        """Kills the process group and reaps the process (any thread; idempotent)."""
        if self.popen.poll() is None:
            self._killed_alive = True
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.popen.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        self._socket.close()

    def evidence(self, timed_out: bool = False) -> dict:
        """{"signal": "SIGSEGV"} or {"exit_code": n}, and "stderr_tail": the last lines; after a
        SIGKILL, "oom_kills": how much the machine's count of out-of-memory kills rose meanwhile."""
        out = {}
        code = self.popen.returncode
        if code is not None and not timed_out:
            if code < 0:
                out["signal"] = _signal_name(-code)
            elif self.spec.exit_code_carries_signal and 128 < code < 128 + 65:
                out["signal"] = _signal_name(code - 128)
            else:
                out["exit_code"] = code
        now = process_accounting.oom_kill_count() if out.get("signal") == "SIGKILL" else None
        if now is not None and self._oom_kills_at_start is not None:
            out["oom_kills"] = max(0, now - self._oom_kills_at_start)
        with self._lines_lock:
            out["stderr_tail"] = list(self._lines)
        return out

    def _receive(self, deadline: float, what: str):
        """The next message (a dict), the perf_counter_ns time the candidate sent it (the kernel's
        stamp; when it has none, when it was read) and how long before its reading that was;
        raises CandidateGone."""
        poller = select.poll()
        poller.register(self._socket.fileno(), select.POLLIN | select.POLLHUP | select.POLLERR)
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise self._gone(True, f"{what}: no answer by the deadline")
            if poller.poll(min(left, POLL_SLICE_S) * 1000):
                try:
                    data, ancillary, _, _ = self._socket.recvmsg(
                        MAX_MESSAGE, socket.CMSG_SPACE(16 * array.array("i").itemsize) + socket.CMSG_SPACE(16))
                except OSError as exc:
                    raise self._gone(False, f"{what}: the connection broke ({exc})") from None
                _close_passed_descriptors(ancillary)
                arrived, lag = _sent_at(ancillary)
                if not data:
                    raise self._gone(False, f"{what}: the candidate process closed its connection")
                try:
                    message = json.loads(data)
                except ValueError:
                    self.kill()
                    raise self._killed(f"{what}: the runner sent a message that is not JSON: {data[:200]!r}") from None
                if not isinstance(message, dict):
                    self.kill()
                    raise self._killed(f"{what}: the runner sent {message!r}"[:300])
                return message, arrived, lag
            if self.popen.poll() is not None:
                raise self._gone(False, f"{what}: the candidate process exited")

    def _gone(self, timed_out: bool, what: str) -> CandidateGone:
        if timed_out:
            self.note(f"{what}: killing the candidate process (pid {self.popen.pid})")
        elif self.popen.poll() is None:
            try:
                self.popen.wait(timeout=1.0)  # it closed its socket and is on its way out
            except subprocess.TimeoutExpired:
                pass
        self.kill()
        self._stderr_thread.join(STDERR_DRAIN_S)
        return self._killed(what, timed_out)

    def _killed(self, what: str, timed_out: bool = False) -> CandidateGone:
        """After kill(): the evidence, and whether the judge's kill is what ended it: it was alive and
        died of SIGKILL, and the OOM killer did not act meanwhile (one slow to die of its own signal,
        a GPU context's teardown, keeps that signal; one the OOM killer chose keeps that cause)."""
        self._dead_evidence = self.evidence(timed_out)
        by_judge = (self._killed_alive and self._dead_evidence.get("signal") == "SIGKILL"
                    and not self._dead_evidence.get("oom_kills"))
        return CandidateGone(timed_out, self._dead_evidence, what, by_judge)

    def _read_stderr(self) -> None:
        for raw in self.popen.stderr:
            line = raw.decode(errors="replace").rstrip("\n")
            with self._lines_lock:
                self._lines.append(line)
            write_line(line)
        self.popen.stderr.close()


def runner_environment(env: Optional[dict]) -> dict:
    """A runner's environment: the launch spec's (else the judge's), with OpenMP's idle worker
    threads asleep (OMP_WAIT_POLICY=PASSIVE, KMP_BLOCKTIME=0) instead of spinning for milliseconds
    after each parallel region: the judge counts the CPU time of a candidate's threads beside its
    timed calls (hone_worker/bounds.py, cpu_beyond_calls), and torch's intra-op threads spinning
    after an honest call looked like work hidden beside it. Candidate and reference run alike."""
    out = dict(os.environ if env is None else env)
    out["OMP_WAIT_POLICY"] = "PASSIVE"
    out["KMP_BLOCKTIME"] = "0"
    return out


def _close_passed_descriptors(ancillary) -> None:
    """Closes descriptors a candidate passed along with a message (no op asks for any)."""
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds = array.array("i")
            fds.frombytes(data[:len(data) - len(data) % fds.itemsize])
            for fd in fds:
                try:
                    os.close(fd)
                except OSError:
                    pass


def _sent_at(ancillary) -> tuple:
    """(perf_counter_ns when the message was sent, ns since): from the kernel's realtime stamp,
    read against the realtime clock now; without a stamp (or one that the realtime clock's
    stepping put in the future), now."""
    now, real_now = time.perf_counter_ns(), time.time_ns()
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == SCM_TIMESTAMPNS and len(data) >= 16:
            seconds, nanoseconds = struct.unpack("qq", data[:16])
            lag = real_now - (seconds * 1_000_000_000 + nanoseconds)
            if lag >= 0:
                return now - lag, lag
    return now, 0


def dies_with_judge(argv: List[str]) -> List[str]:
    """The command under `setpriv --pdeathsig KILL`, so that a candidate process (a confined one:
    its wrapper) is killed when the judge dies, even one stuck in a loop that never reads its
    socket again; as is where setpriv is missing."""
    return [_SETPRIV, "--pdeathsig", "KILL", "--"] + list(argv) if _SETPRIV else list(argv)


_SETPRIV = shutil.which("setpriv")


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def sigkill_clause(oom_kills: Optional[int], who: str) -> str:
    """The reason's clause for a process killed by SIGKILL, from its evidence's oom_kills (as the
    engine's support/oom_kills.cpp words it for the eval worker)."""
    if oom_kills is None:
        return "the system may have run out of memory"
    if oom_kills == 0:
        return f"not by the kernel's out-of-memory killer (/proc/vmstat's oom_kill did not rise while {who} ran)"
    return (f"the kernel's out-of-memory killer ended {oom_kills} process{'' if oom_kills == 1 else 'es'} while "
            f"{who} ran: the task's tensors, with the copies the judge keeps of them, need more memory than the "
            "machine has")


def _limit_address_space(pid: int, limit: int) -> None:
    """RLIMIT_AS on a just-started unwrapped CPU candidate (no preexec_fn: the judge has threads)."""
    try:
        resource.prlimit(pid, resource.RLIMIT_AS, (limit, limit))
    except (OSError, ValueError):
        pass

"""What the kernel says of a candidate's processes, which the candidate cannot fake: its process
tree, pid namespaces, the runner's main thread's scheduler statistics and the CPU time of the
whole tree. The judge reads them around each timed op (hone_worker/timed_runs.py, OpAccounting);
and the machine's count of out-of-memory kills, around a candidate process's life."""
import os
import time
from typing import List, Optional, Tuple

_TICK_NS = 1_000_000_000 // os.sysconf("SC_CLK_TCK")
_ASLEEP = ("S", "D", "I")  # /proc/<pid>/stat states of a thread that is not running


def descendants(pid: int) -> List[int]:
    """The live descendants of a process (/proc/<pid>/task/<tid>/children), nearest first."""
    found, queue = [], [pid]
    while queue:
        current = queue.pop(0)
        try:
            tasks = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{current}/task/{tid}/children") as f:
                    children = [int(c) for c in f.read().split()]
            except (OSError, ValueError):
                continue
            found += children
            queue += children
    return found


def innermost_pid(pid: int) -> Optional[int]:
    """The pid a process has in its own (innermost) pid namespace."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("NSpid:"):
                    return int(line.split()[-1])
    except (OSError, ValueError):
        pass
    return None


def schedstat(pid: int) -> Optional[Tuple[int, int]]:
    """(CPU time, run delay) of a process's main thread so far, in ns (/proc/<pid>/schedstat): how
    long it ran, and how long it waited for a CPU. None where it cannot be read."""
    try:
        with open(f"/proc/{pid}/schedstat") as f:
            fields = f.read().split()
        return int(fields[0]), int(fields[1])
    except (OSError, ValueError, IndexError):
        return None


def wait_asleep(pid: int, timeout_s: float) -> bool:
    """Waits (at most `timeout_s`) until a process's main thread is not running: its schedstat is
    brought up to date when it stops, and a thread still running (a runner tidying up after its
    reply) is read up to a scheduler tick behind the process's CPU clock. True when it sleeps."""
    deadline = time.perf_counter() + timeout_s
    while True:
        try:
            with open(f"/proc/{pid}/stat") as f:
                text = f.read()
            if text[text.rindex(")") + 2:].split()[0] in _ASLEEP:
                return True
        except (OSError, ValueError, IndexError):
            return False
        if time.perf_counter() >= deadline:
            return False
        time.sleep(0.0002)


def tree_cpu_ns(root: int) -> Optional[int]:
    """The CPU time a process tree has used so far: every thread, live or ended, of `root` and of
    each of its live descendants (their process CPU clocks), plus what those processes reaped of
    their children. None where it cannot be read."""
    total, read = 0, False
    for pid in [root] + descendants(root):
        try:
            total += time.clock_gettime_ns(process_cpu_clock(pid))
            read = True
        except OSError:
            continue  # gone since the listing: what it used is its parent's to reap
        total += reaped_cpu_ns(pid)
    return total if read else None


def process_cpu_clock(pid: int) -> int:
    """The clock id of another process's CPU time (clock_getcpuclockid: the kernel's encoding of a
    process-wide scheduler clock, -(pid + 1) * 8 + 2)."""
    return (~pid << 3) | 2


def reaped_cpu_ns(pid: int) -> int:
    """The CPU time of the children a process has reaped (/proc/<pid>/stat cutime + cstime)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
        fields = text[text.rindex(")") + 2:].split()
        return (int(fields[13]) + int(fields[14])) * _TICK_NS
    except (OSError, ValueError, IndexError):
        return 0


class OpAccounting:
    """What a candidate's processes did during one op, from the kernel's accounting, between its
    creation and waited_us(): how long the runner's main thread (the timed loop's) waited for a CPU
    while other work held the CPUs, which the judge subtracts from its clock, and how much CPU
    time the candidate's other threads and processes used (hone_worker/bounds.py,
    cpu_beyond_calls). The run delay counts only as far as the op's window leaves beside the CPU
    time all of the candidate's processes used: a wait while its own threads held the CPUs is the
    candidate's time (workers that crowd out the calling thread do the call's work). `process`:
    the CandidateProcess (settle, schedstat, cpu_time_ns)."""

    def __init__(self, process) -> None:
        self.process = process
        self.process.settle()
        self.start = self.process.schedstat()
        self.cpu_start = self.process.cpu_time_ns()
        self.cpu_us = 0.0  # what all of the candidate's processes used, after waited_us()
        self.others_us: Optional[float] = None  # what they used beside the main thread (None: unread)

    def waited_us(self, window_us: float) -> float:
        """The main thread's wait for a CPU held by other work during the op's `window_us`."""
        self.process.settle()
        end, cpu_end = self.process.schedstat(), self.process.cpu_time_ns()
        if self.cpu_start is None or cpu_end is None:
            return 0.0
        self.cpu_us = max(0, cpu_end - self.cpu_start) / 1000.0
        if self.start is None or end is None:
            return 0.0
        self.others_us = max(0.0, self.cpu_us - max(0, end[0] - self.start[0]) / 1000.0)
        return min(max(0, end[1] - self.start[1]) / 1000.0, max(0.0, window_us - self.cpu_us))


def oom_kill_count() -> Optional[int]:
    """/proc/vmstat's oom_kill: every kill of the kernel's out-of-memory killer on the machine (a
    cgroup's included); None where it cannot be read."""
    try:
        with open("/proc/vmstat") as f:
            for line in f:
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
    except (OSError, ValueError):
        pass
    return None

"""How much of the machine other processes used while a time was measured (issue 14). A steady load
slows a CPU baseline without making it noisy (tasks/matmul.py's eager reference: 6.11 ms with a
1.6% spread under `ctest -j2`, 2.24 ms idle), and a cached slow baseline inflates every later
speedup. The window's share: the system's busy CPU time (/proc/stat: user, nice, system, irq,
softirq, steal) minus that of this process and its descendants (the runner processes, confined or
not, and what they reaped), over the window's wall time times the machine's CPUs. None where
/proc is not there to read. "The machine" is the CPUs this job can run on (usable_cpus): in a
container confined to a few CPUs of a large host, the host's other CPUs are neither its load nor
its capacity."""
import functools
import os
import threading
import time
from typing import Dict, FrozenSet, List, Optional, Tuple

# Other processes keeping more than this share of the machine's CPUs busy make a window "busy".
BUSY_SHARE = 0.25

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@functools.lru_cache(maxsize=1)
def usable_cpus() -> FrozenSet[int]:
    """The CPUs a process this judge starts can run on: the widest affinity a thread can take. A
    thread of its own asks for every CPU and the kernel keeps those of its cpuset, which a
    container or a cgroup lends the job and no process in it can widen (a candidate's threads
    included). Not os.cpu_count(): the host's CPUs, also beside a container confined to two of
    them. Not this process's own affinity either: a `taskset` narrows it, and a candidate may widen
    its own again, up to the cpuset. Read once per process (the cpuset of a running job is fixed)."""
    found: List[FrozenSet[int]] = []

    def widest() -> None:
        try:
            os.sched_setaffinity(0, range(max(os.cpu_count() or 1, 1)))  # this thread's only
        except OSError:
            pass  # a kernel that refuses the mask leaves the thread's own, still a true answer
        found.append(frozenset(os.sched_getaffinity(0)))

    if not hasattr(os, "sched_setaffinity"):
        return frozenset(range(os.cpu_count() or 1))
    thread = threading.Thread(target=widest, name="hone-usable-cpus")
    thread.start()
    thread.join()
    return found[0] if found and found[0] else frozenset(range(os.cpu_count() or 1))


def _system_busy() -> Tuple[int, int]:
    """(busy jiffies, CPUs) from /proc/stat, over the usable CPUs' own lines."""
    cpus, busy = 0, 0
    usable = usable_cpus()
    with open("/proc/stat") as f:
        for line in f:
            if not line.startswith("cpu") or line.startswith("cpu "):
                continue
            fields = line.split()
            try:
                cpu = int(fields[0][3:])
            except ValueError:
                continue
            if cpu not in usable:
                continue
            v = [int(x) for x in fields[1:]]
            busy += v[0] + v[1] + v[2] + v[5] + v[6] + (v[7] if len(v) > 7 else 0)
            cpus += 1
    if cpus == 0:
        raise ValueError("/proc/stat lists none of the usable CPUs")
    return busy, cpus


def _processes() -> Dict[int, Tuple[int, int, int]]:
    """pid -> (parent pid, CPU jiffies of the process, of the children it reaped)."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                text = f.read()
        except OSError:
            continue  # gone since the listing
        fields = text[text.rindex(")") + 2:].split()  # after "pid (comm) "
        out[int(name)] = (int(fields[1]), int(fields[11]) + int(fields[12]),  # utime stime
                          int(fields[13]) + int(fields[14]))  # cutime cstime
    return out


def _tree_jiffies(procs: Dict[int, Tuple[int, int, int]], root: int) -> int:
    children: Dict[int, List[int]] = {}
    for pid, (ppid, _, _) in procs.items():
        children.setdefault(ppid, []).append(pid)
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        if pid in procs:
            total += procs[pid][1] + procs[pid][2]
        todo.extend(children.get(pid, []))
    return total


class LoadWindow:
    """Started at construction; finish() says what other processes did since. `roots`: whose
    process trees are not "other" besides this process itself (the candidate under test); the
    rest of this process's tree then counts as load (the pool warming the next runner, a runner
    still exiting: they share the CPUs and the memory bandwidth with the timed loop). Without
    roots, this process's whole tree is not "other"."""

    def __init__(self, roots=None) -> None:
        self._roots = list(roots) if roots is not None else None
        self._start = self._sample()

    def _sample(self):
        try:
            busy, cpus = _system_busy()
            procs, me = _processes(), os.getpid()  # one scan of /proc for every tree
            if self._roots is None:
                own = _tree_jiffies(procs, me)
            else:
                own = procs[me][1] + sum(_tree_jiffies(procs, r) for r in self._roots)
            return time.perf_counter(), busy, cpus, own
        except (OSError, ValueError, IndexError):
            return None

    def finish(self) -> Optional[dict]:
        """{"other_cpu_share", "other_cpu_s", "cpus", "seconds", "busy"}: the share of the machine's CPU time that
        processes outside this one's tree took during the window; None when it cannot be read."""
        end = self._sample()
        if self._start is None or end is None:
            return None
        wall = end[0] - self._start[0]
        if wall <= 0:
            return None
        other = max(0, (end[1] - self._start[1]) - (end[3] - self._start[3])) / _TICK
        share = min(1.0, other / (wall * end[2]))
        return {"other_cpu_share": share, "other_cpu_s": other, "cpus": end[2], "seconds": wall,
                "busy": share > BUSY_SHARE}

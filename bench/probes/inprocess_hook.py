"""bench/probes/inprocess_hook.py: plain events measured inside the process that builds a task's
Model (or an answer's ModelNew), for comparing hone's call time with plain events in the very
process hone timed in (issue 14). HOOK is Python source a generated task or answer file starts
with; its module's __init__ calls `_plain_events(self, "Model", get_inputs)`. When
$HONE_INPROCESS_OUT names a file, every build outside the judge (a runner, a child) appends one
JSON row: tag, pid, argv, the task file (`source`) and the p50 / p10 / p90 of 300 plain-events
calls (bench/probes/plain_events.py, from $HONE_INPROCESS_PROBES; the host clock where
$HONE_INPROCESS_DEVICE is cpu), or the error; never an exception of its own (a confined runner,
which cannot write the file, adds no row). Used by inprocess_probe.py and timing_truth.py."""
import json
import os

HOOK = '''import torch
import torch.nn as nn


def _plain_events(forward, tag, inputs, when=None):
    """Plain events around forward(*inputs) in this process (forward: the module, called as KernelBench
    and hone call it), appended to $HONE_INPROCESS_OUT (`when`, if given, goes into the row)."""
    import json, os, statistics, sys, time
    out, cuda = os.environ.get("HONE_INPROCESS_OUT"), os.environ.get("HONE_INPROCESS_DEVICE", "cuda") == "cuda"
    if not out or (cuda and not torch.cuda.is_available()) or sys.argv[0].endswith(os.path.join("hone_worker", "__main__.py")):
        return  # the judge builds Model too (its own outputs), a dozen times: not a timed process
    row = {"tag": tag, "pid": os.getpid(), "argv": sys.argv[:2], "at": time.time(), "source": globals().get("__file__"),
           "when": when}
    try:
        sys.path.insert(0, os.environ["HONE_INPROCESS_PROBES"])
        from plain_events import host_clock_us, plain_events_us, warm_calls, warm_clocks
        with torch.random.fork_rng(devices=[torch.cuda.current_device()] if cuda else []), torch.no_grad():
            x = [t.cuda() if cuda else t for t in inputs()]
            flush = torch.ones(64 << 18, device="cuda" if cuda else "cpu")
            if cuda:
                sink = torch.zeros((), device="cuda")
                warm_clocks(flush)
                warm_calls(lambda: forward(*x))
                times = sorted(plain_events_us(lambda: forward(*x), flush, sink, 300))
            else:
                times = sorted(host_clock_us(lambda: forward(*x), flush, 300))
            del flush, x
        if cuda:
            torch.cuda.empty_cache()
        row.update(p50_us=statistics.median(times), p10_us=times[len(times) // 10], p90_us=times[9 * len(times) // 10],
                   allowed_cpus=len(os.sched_getaffinity(0)))
    except Exception as exc:  # noqa: BLE001 - a probe's row says what went wrong
        row["error"] = repr(exc)
    try:
        with open(out, "a") as f:
            f.write(json.dumps(row) + "\\n")
    except OSError:  # a confined runner cannot write there: the build goes on
        pass


'''


def rows_of(path: str) -> list:
    """The rows appended to `path` so far."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def where(row: dict) -> str:
    """Which process built it: a runner (python -m hone_worker.runner) or another (a child); the
    judge's builds measure nothing."""
    return "runner" if "runner" in " ".join(row.get("argv") or []) else "child"


def environment(out: str, device: str = "cuda") -> dict:
    """The variables that switch the hook on, its rows going to `out`."""
    return {"HONE_INPROCESS_OUT": out, "HONE_INPROCESS_PROBES": os.path.dirname(os.path.abspath(__file__)),
            "HONE_INPROCESS_DEVICE": device}

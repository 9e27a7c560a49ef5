"""Device time from hardware counters (issue 14): the GPU duration ncu reports,
gpu__time_duration.sum, of every kernel of a `time` op of mode `call` with `kernel_counters`,
counted by the candidate process's Range Profiler (libhone_cupti: auto range, kernel replay, so
each kernel runs alone, as under ncu). Per call the op launched hone's flush, the call's kernels,
then hone's marker; a call's device time is the sum over the kernels between its flush and its
marker (kernels before the flush, e.g. an input copy, are not the call's), which is what ncu's
gpu__time_duration.sum summed over the call's kernels measures. The counts are the candidate
process's claims: the judge attributes them and holds them against the activity records."""
from typing import List, Optional, Tuple

FLUSH, MARKER = "hone_flush", "hone_marker"
_HONE_ONLY = ("hone_hold", "hone_spin")  # never launched by a counted op


def parse(reply: dict) -> Tuple[Optional[List[Tuple[str, float]]], str]:
    """The reply's `counter_ranges` as (kernel name, us), or (None, why they are missing or malformed)."""
    raw = reply.get("counter_ranges")
    if raw is None:
        why = reply.get("kernel_counters_error")
        return None, str(why) if why else "the runner sent no kernel counters"
    if not isinstance(raw, list):
        return None, "the runner's kernel counters are not a list"
    out = []
    for r in raw:
        if not isinstance(r, dict) or not isinstance(r.get("name"), str):
            return None, f"malformed kernel counter {str(r)[:120]}"
        us = r.get("gpu_time_us")
        if not isinstance(us, (int, float)) or isinstance(us, bool) or not 0 <= us < 1e9:
            return None, f"malformed kernel counter {str(r)[:120]}"
        out.append((r["name"], float(us)))
    return out, ""


def per_call_us(ranges: List[Tuple[str, float]], calls: int, flushed: bool) -> Tuple[Optional[List[float]], str]:
    """Each call's summed kernel duration, or (None, why the ranges cannot be attributed)."""
    names = [n for n, _ in ranges]
    markers, flushes = names.count(MARKER), names.count(FLUSH)
    if markers != calls:
        return None, f"the counters hold {markers} marker kernels for {calls} calls"
    if flushed and flushes != calls:
        return None, f"the counters hold {flushes} flush kernels for {calls} calls"
    if not flushed and flushes:
        return None, f"the counters hold {flushes} flush kernels, and the op flushed nothing"
    if any(n in _HONE_ONLY for n in names):
        return None, "the counters hold a hold or spin kernel, which a counted op never launches"
    out: List[float] = []
    mine: Optional[List[float]] = None if flushed else []
    for name, us in ranges:
        if name == FLUSH:
            if mine is not None:
                return None, f"call {len(out) + 1}'s flush kernel follows another flush before its marker"
            mine = []
        elif name == MARKER:
            if mine is None:
                return None, f"call {len(out) + 1}'s marker kernel comes before its flush"
            out.append(sum(mine))
            mine = None if flushed else []
        elif mine is not None:
            mine.append(us)
    return out, ""

"""Device time from hardware counters (issue 14; the default on CUDA, HONE_DEVICE_TIME=records opts
out): the GPU duration ncu reports, gpu__time_duration.sum, of every kernel of a `time` op of mode `call` with
`kernel_counters`, counted by the candidate process's Range Profiler (libhone_cupti: auto range,
kernel replay, so each kernel runs alone, as under ncu). Per call the op launched hone's flush,
the call's kernels, then hone's marker. Auto ranges are numbered, not named (the H200, CUDA 13.0),
so the judge attributes them by position, knowing from the held op's activity records how many
kernels each call launches: it must be the same number for every call, with no kernel outside
the calls, else the counters are not attributed. A call's device time is the sum over its
kernels, which is what ncu's gpu__time_duration.sum summed over the call's kernels measures.
The counts are the candidate process's claims: the judge holds them against the records."""
from typing import List, Optional, Tuple

FLUSH, MARKER, MIX = "hone_flush", "hone_marker", "hone_mix"
_HONE = (FLUSH, MARKER, MIX, "hone_hold", "hone_spin")  # hold and spin: never launched by a counted op


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


def ranges_per_call(kernels_per_call: int, flushed: bool, mixes: int = 0) -> int:
    """A counted call's kernel ranges: its input mixes, hone's flush (when flushed), its kernels,
    hone's marker."""
    return mixes + (1 if flushed else 0) + kernels_per_call + 1


def per_call_us(ranges: List[Tuple[str, float]], calls: int, flushed: bool, kernels_per_call: int,
                mixes: int = 0) -> Tuple[Optional[List[float]], str]:
    """Each call's summed kernel duration, or (None, why the ranges cannot be attributed): per
    call, in launch order, `mixes` hone_mix kernels (the call's fresh inputs), hone's flush (when
    `flushed`), the call's `kernels_per_call` kernels, hone's marker. Named ranges must carry
    hone's names where hone's kernels stand."""
    lead = mixes + (1 if flushed else 0)
    per = ranges_per_call(kernels_per_call, flushed, mixes)
    if kernels_per_call < 1 or len(ranges) != calls * per:
        return None, (f"the counters hold {len(ranges)} kernel ranges; {calls} calls of {kernels_per_call} kernels "
                      f"(the activity records') with hone's {mixes} input mixes, {'flush and ' if flushed else ''}"
                      f"marker make {calls * per}")
    out: List[float] = []
    for i in range(calls):
        own = ranges[i * per:(i + 1) * per]
        hone = [n for n, _ in own[:lead]] + [own[-1][0]]
        work = own[lead:-1]
        if any(_named(n) and n not in (FLUSH, MARKER, MIX) for n in hone) or any(n in _HONE for n, _ in work):
            return None, f"call {i + 1}'s ranges do not stand where hone's flush and marker were launched"
        out.append(sum(us for _, us in work))
    return out, ""


def _named(name: str) -> bool:
    """Whether a range carries a kernel's name (auto ranges may be numbered instead)."""
    return bool(name) and not name.isdigit()

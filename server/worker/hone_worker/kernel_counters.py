"""Device time from hardware counters (issue 14; the default on CUDA, HONE_DEVICE_TIME=records opts
out): the GPU duration ncu reports, gpu__time_duration.sum, of every kernel of a `time` op of mode `call` with
`kernel_counters`, counted by the candidate process's Range Profiler (libhone_cupti: auto range,
kernel replay, so each kernel runs alone, as under ncu). Per call the op launched hone's flush,
the call's kernels, then hone's marker. Auto ranges are numbered, not named (the H200, CUDA 13.0),
so the judge attributes them by position, knowing from the held op's activity records how many
kernels each call launches: it must be the same number for every call, with no kernel outside
the calls, else the counters are not attributed. A call's device time is the sum over its
kernels, which is what ncu's gpu__time_duration.sum summed over the call's kernels measures.
By default the op flushes before each of a call's kernels (the kernel prologue: libhone_cupti runs
hone's flush at each launch of the call), as ncu's cache control flushes before each kernel it
profiles: per call its mixes, then hone's flush and a kernel for each kernel, then the marker.
The counts are the candidate process's claims: the judge holds them against the records, and the
prologue's count of launches against the records' kernels."""
import statistics
from typing import List, Optional, Tuple

FLUSH, MARKER, MIX = "hone_flush", "hone_marker", "hone_mix"
ONCE_PER_CALL = "the cache was flushed once per call, not before each kernel: "  # and why
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


def ranges_per_call(kernels_per_call: int, flushed: bool, mixes: int = 0, each_kernel: bool = False) -> int:
    """A counted call's kernel ranges: its input mixes, hone's flush (when flushed; before each
    kernel when `each_kernel`), its kernels, hone's marker."""
    if each_kernel:
        return mixes + 2 * kernels_per_call + 1
    return mixes + (1 if flushed else 0) + kernels_per_call + 1


def flush_layout(reply: dict, asked: bool, calls: int, kernels_per_call: int) -> Tuple[Optional[bool], str]:
    """Whether the counted op flushed before each kernel (True), once per call (False, with why
    not each kernel when that was asked), or (None, why) when the kernel prologue's count of
    launches says some kernel went unflushed (a graph's kernels, a launch it missed): the ranges
    then stand nowhere known."""
    if not asked:
        return False, ""
    if not reply.get("flushed_each_kernel"):
        return False, ONCE_PER_CALL + (reply.get("kernel_flush_error") or "the runner did not arm the kernel prologue")
    summary = reply.get("kernel_prologue")
    if not isinstance(summary, dict):
        return None, "the runner flushed before each kernel but sent no count of the launches it flushed"
    launches, failures, graphs, missed = (summary.get(k) for k in ("launches", "failures", "graphs", "missed"))
    expected = calls * kernels_per_call
    if failures or graphs or missed or launches != expected:
        return None, (f"the flush before each kernel ran at {launches} launches ({graphs or 0} of CUDA graphs, "
                      f"{failures or 0} failed, {missed or 0} more launches it could not precede); {calls} calls of "
                      f"{kernels_per_call} kernels make {expected}")
    return True, ""


def per_call_us(ranges: List[Tuple[str, float]], calls: int, flushed: bool, kernels_per_call: int,
                mixes: int = 0, each_kernel: bool = False) -> Tuple[Optional[List[float]], str]:
    """Each call's summed kernel duration, or (None, why the ranges cannot be attributed): per
    call, in launch order, `mixes` hone_mix kernels (the call's fresh inputs), hone's flush (when
    `flushed`), the call's `kernels_per_call` kernels, hone's marker; with `each_kernel`, hone's
    flush before each of the kernels instead. Named ranges must carry hone's names where hone's
    kernels stand."""
    per = ranges_per_call(kernels_per_call, flushed, mixes, each_kernel)
    if kernels_per_call < 1 or len(ranges) != calls * per:
        flushes = "a flush before each kernel and " if each_kernel else "flush and " if flushed else ""
        return None, (f"the counters hold {len(ranges)} kernel ranges; {calls} calls of {kernels_per_call} kernels "
                      f"(the activity records') with hone's {mixes} input mixes, {flushes}marker make {calls * per}")
    out: List[float] = []
    for i, (hone, work) in enumerate(_calls(ranges, calls, per, flushed, mixes, each_kernel)):
        if any(_named(n) and n not in (FLUSH, MARKER, MIX) for n, _ in hone) or any(n in _HONE for n, _ in work):
            return None, f"call {i + 1}'s ranges do not stand where hone's flush and marker were launched"
        out.append(sum(us for _, us in work))
    return out, ""


def per_kernel_p50(ranges: List[Tuple[str, float]], calls: int, flushed: bool, kernels_per_call: int,
                   mixes: int = 0, each_kernel: bool = False, names: Optional[List[str]] = None) -> List[dict]:
    """Each of a call's kernels, in launch order: {"name", "p50_us"}, its counted time's median
    over the calls (per_call_us's layout, already checked). The name is the range's, else the
    activity records' for that position (auto ranges may be numbered), else ""."""
    per = ranges_per_call(kernels_per_call, flushed, mixes, each_kernel)
    works = [work for _, work in _calls(ranges, calls, per, flushed, mixes, each_kernel)]
    out: List[dict] = []
    if not works:
        return out
    for k in range(kernels_per_call):
        name = works[0][k][0] if works and _named(works[0][k][0]) else (names[k] if names and k < len(names) else "")
        out.append({"name": name, "p50_us": statistics.median(w[k][1] for w in works)})
    return out


def cold_allowance_us(ranges: List[Tuple[str, float]], calls: int, kernels_per_call: int, mixes: int) -> float:
    """What a call flushed before each kernel may take beyond the same call with its kernels
    sharing the cache: each later kernel may find cold what the earlier ones left in L2, at most
    the L2's worth read again, which is half of hone's flush (it reads twice the L2): half the
    median flush per later kernel. `ranges` in the each-kernel layout."""
    per = ranges_per_call(kernels_per_call, True, mixes, True)
    flushes = [us for i in range(calls) for k in range(kernels_per_call)
               for _, us in [ranges[i * per + mixes + 2 * k]]]
    return (kernels_per_call - 1) * statistics.median(flushes) / 2 if flushes else 0.0


def _calls(ranges: List[Tuple[str, float]], calls: int, per: int, flushed: bool, mixes: int, each_kernel: bool):
    """Each call's ranges (`per` of them) split as (hone's, the call's kernels'), in call order."""
    return [_split(ranges[i * per:(i + 1) * per], flushed, mixes, each_kernel) for i in range(calls)]


def _split(own: List[Tuple[str, float]], flushed: bool, mixes: int, each_kernel: bool) -> tuple:
    """One call's ranges as (hone's, the call's kernels')."""
    if each_kernel:
        middle = own[mixes:-1]
        return own[:mixes] + middle[0::2] + own[-1:], middle[1::2]
    lead = mixes + (1 if flushed else 0)
    return own[:lead] + own[-1:], own[lead:-1]


def _named(name: str) -> bool:
    """Whether a range carries a kernel's name (auto ranges may be numbered instead)."""
    return bool(name) and not name.isdigit()

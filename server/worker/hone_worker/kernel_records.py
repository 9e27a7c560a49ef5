"""Device time from activity records (issue 14): the GPU time of each timed call's own work, read
from the kernel, memcpy and memset records (CUPTI; the python runner's torch.profiler) that the
candidate process collected over a held `time` op of mode `device` with `kernel_records`. On the
caller's stream the op enqueued hone's hold kernel, then per call: its input copies and hone_mix
kernels (one per input made fresh, the same number every call), hone's flush, the call's work,
hone's marker. A call's work is every activity that starts after its flush (without a flush: its
last hone_mix) ends and before its marker starts (on any stream); its device time is the busy time of that work (the
union of its intervals: the sum of its kernels' durations on one stream, as ncu's
gpu__time_duration.sum over the call's kernels). Gaps between the call's kernels are not device
time: the call time has them. The attribution is the judge's; the records are the candidate
process's claims, held by the caller's events (themselves held by the judge's clock)."""
from typing import List, Optional, Sequence, Tuple

from .records import Activity

HOLD, FLUSH, MARKER, MIX = "hone_hold", "hone_flush", "hone_marker", "hone_mix"
_HONE = (HOLD, FLUSH, MARKER, MIX, "hone_spin")
SLACK_US = 0.05  # timestamps of back-to-back activities on one stream may touch or overlap this much


def per_call_us(activities: Sequence[Activity], calls: int, flushed: bool,
                mixes: int = 0) -> Tuple[Optional[List[float]], str]:
    """Each call's device time, or (None, why the records cannot be attributed)."""
    work, why = per_call_work(activities, calls, flushed, mixes)
    return (busy_times(work), "") if work is not None else (None, why)


def busy_times(work: Sequence[Sequence[Activity]]) -> List[float]:
    """Each call's device time from its work (per_call_work's lists)."""
    return [_busy_us(mine) for mine in work]


def kernels_per_call(activities: Sequence[Activity], calls: int, flushed: bool, mixes: int = 0) -> Optional[int]:
    """How many kernels each call launched (see uniform_kernel_count); None when the records
    cannot be attributed."""
    work, _ = per_call_work(activities, calls, flushed, mixes)
    return uniform_kernel_count(activities, work, flushed) if work is not None else None


def uniform_kernel_count(activities: Sequence[Activity], work: Sequence[Sequence[Activity]],
                         flushed: bool) -> Optional[int]:
    """The number of kernels in each call's work, when every call launched the same number and no
    kernel but hone's ran outside the calls; None otherwise. With a flush, a call's marker is
    followed by hone's own handling of its result before the next call's inputs (the python
    runner copies the result into its slot and, once an op, overwrites the arguments: fill
    kernels); kernels there are hone's, not outside the calls. Elsewhere (before the first call's
    inputs, between a call's inputs and its marker but outside its work) none may run."""
    counts = [sum(1 for a in mine if a.kind == "kernel") for mine in work]
    if not counts or len(set(counts)) != 1:
        return None
    stray = [a for a in activities if a.kind == "kernel" and a.name not in _HONE]
    outside = len(stray) - sum(counts)
    if outside and flushed:
        spans = _result_spans(activities)
        outside -= sum(1 for a in stray if any(begin <= a.start_us < end for stream, begin, end in spans
                                               if a.stream == stream))
    return counts[0] if outside == 0 else None


def _result_spans(activities: Sequence[Activity]) -> List[Tuple[int, float, float]]:
    """(stream, start, end) of each span after a call's marker and before the next call's first
    hone_mix or flush (after the last marker: to the op's end), on the held stream."""
    hold = _the_hold(activities)
    if hold is None:
        return []
    ordered = sorted(activities, key=lambda a: (a.start_us, a.end_us))
    markers = [a for a in ordered if a.name == MARKER and a.stream == hold.stream]
    inputs = [a.start_us for a in ordered if a.name in (MIX, FLUSH) and a.stream == hold.stream]
    spans = []
    for marker in markers:
        begin = marker.end_us - SLACK_US
        following = [t for t in inputs if t >= begin]
        spans.append((hold.stream, begin, min(following) if following else float("inf")))
    return spans


def per_call_work(activities: Sequence[Activity], calls: int, flushed: bool,
                  mixes: int = 0) -> Tuple[Optional[List[List[Activity]]], str]:
    """Each call's work (its activities), or (None, why the records cannot be attributed).
    `mixes`: the hone_mix kernels each call's inputs launch before its flush; exactly that many
    must stand between a call's previous marker and its flush (or its work), and none in its work,
    so a kernel of the candidate's named like hone's is never taken for hone's."""
    ordered = sorted(activities, key=lambda a: (a.start_us, a.end_us))
    holds = [a for a in ordered if a.name == HOLD]
    if len(holds) != 1:
        return None, f"the records hold {len(holds)} hold kernels, not 1"
    stream = holds[0].stream
    markers = [a for a in ordered if a.name == MARKER and a.stream == stream]
    flushes = [a for a in ordered if a.name == FLUSH and a.stream == stream]
    if len(markers) != calls:
        return None, f"the records hold {len(markers)} marker kernels for {calls} calls"
    if flushed and len(flushes) != calls:
        return None, f"the records hold {len(flushes)} flush kernels for {calls} calls"
    work = [a for a in ordered if a.name not in _HONE]
    mixed = [a for a in ordered if a.name == MIX]
    if len(mixed) != calls * mixes:
        return None, f"the records hold {len(mixed)} hone_mix kernels for {calls} calls of {mixes} fresh inputs"
    out: List[List[Activity]] = []
    previous_end = holds[0].end_us
    for i, marker in enumerate(markers):
        if flushed and not previous_end - SLACK_US <= flushes[i].start_us <= marker.start_us:
            return None, f"call {i + 1}'s flush kernel is not between its neighbours' markers"
        inputs_end = flushes[i].start_us if flushed else marker.start_us
        mine_mixed = [a for a in mixed if previous_end - SLACK_US <= a.start_us < inputs_end]
        if len(mine_mixed) != mixes:
            return None, f"call {i + 1} has {len(mine_mixed)} hone_mix kernels before its work, not {mixes}"
        begin = flushes[i].end_us if flushed else max([previous_end] + [a.end_us for a in mine_mixed])
        if any(begin - SLACK_US <= a.start_us < marker.start_us for a in mixed if a not in mine_mixed):
            return None, f"a kernel named hone_mix ran inside call {i + 1}"
        mine = [a for a in work if begin - SLACK_US <= a.start_us < marker.start_us]
        out.append(mine)
        previous_end = marker.end_us
    return out, ""


def off_caller_stream(activities: Sequence[Activity]) -> Optional[str]:
    """Why a held op's records cannot be the calls' own work, or None: work of the candidate's on a
    stream other than the one hone_hold held (the caller's). The records stage rejects a side stream
    in its one profiled call; in the timed ops a side stream is where work can run beside the loop
    (a kernel that starts inside one call and computes later calls' outputs while the runner
    flushes and writes their inputs counts in that one call alone, and the median hides it). On
    the caller's stream nothing overlaps the loop: stream order puts it between hone's own work."""
    hold = _the_hold(activities)
    if hold is None:
        return None  # not attributable: the pass takes the events (per_call_work says why)
    caller = hold.stream
    side = [a for a in activities if a.name not in _HONE and a.stream != caller]
    if not side:
        return None
    first = min(side, key=lambda a: a.start_us)
    names = ", ".join(sorted({f"{a.name} (stream {a.stream})" for a in side})[:3])
    return (f"work escapes the timer: during the timed calls the candidate ran {len(side)} activities on streams "
            f"other than the caller's ({caller}): {names}; the first for {first.end_us - first.start_us:.1f} us. Work "
            "on a side stream can run beside the loop, while the runner flushes the cache and writes the next call's "
            "inputs, where no call's timer sees it; enqueue the call's work on the caller's current stream")


def work_among_inputs(activities: Sequence[Activity], flushed: bool) -> Optional[str]:
    """Why a held op's records show the candidate's work where no timer looks, or None: between a
    call's first hone_mix (its fresh inputs being made) and its flush (without a flush: its last
    hone_mix), where only hone's mixes run. A kernel placed there (on the caller's stream, by a
    candidate that hooks the runner) reads the call's finished inputs and can compute its output
    before the call's timer starts. Before the first mix stand hone's own copies of the previous
    result (python runner), which cannot see the next inputs; after the flush the call's window.
    Calls without fresh inputs (no hone_mix) have no such span."""
    hold = _the_hold(activities)
    if hold is None:
        return None  # not attributable: per_call_work says why
    caller = hold.stream
    ordered = sorted(activities, key=lambda a: (a.start_us, a.end_us))
    on_caller = [a for a in ordered if a.stream == caller]
    markers = [a for a in on_caller if a.name == MARKER]
    spans, previous_end = [], hold.end_us
    for bound in [m.start_us for m in markers] + [float("inf")]:  # each call's region, then what follows the last
        region = [a for a in on_caller if previous_end - SLACK_US <= a.start_us < bound]
        mixed = [a for a in region if a.name == MIX]
        if mixed:
            flush = next((a for a in region if a.name == FLUSH and a.start_us >= mixed[0].start_us), None)
            spans.append((mixed[0].start_us, flush.start_us if flushed and flush else mixed[-1].end_us))
        previous_end = next((m.end_us for m in markers if m.start_us >= bound), bound)
    for begin, stop in spans:
        inside = [a for a in ordered if a.name not in _HONE and begin - SLACK_US <= a.start_us < stop - SLACK_US]
        if inside:
            a = inside[0]
            return (f"work escapes the timer: {a.name} ({a.kind}, stream {a.stream}, {a.end_us - a.start_us:.1f} us) ran "
                    "while hone was making a call's inputs, before the call's flush and timer; the candidate's work "
                    "belongs inside its call")
    return None


def _the_hold(activities: Sequence[Activity]) -> Optional[Activity]:
    """The op's one hone_hold (it marks the caller's stream), or None."""
    holds = [a for a in activities if a.name == HOLD]
    return holds[0] if len(holds) == 1 else None


def _busy_us(work: Sequence[Activity]) -> float:
    """The length of the union of the activities' intervals."""
    total, end = 0.0, None
    for a in sorted(work, key=lambda x: x.start_us):
        if end is None or a.start_us > end:
            total += a.end_us - a.start_us
            end = a.end_us
        elif a.end_us > end:
            total += a.end_us - end
            end = a.end_us
    return total


def parse(reply: dict) -> Tuple[Optional[List[Activity]], str]:
    """The reply's `activities`, or (None, why they are missing or malformed)."""
    raw = reply.get("activities")
    if raw is None:
        why = reply.get("kernel_records_error")
        return None, str(why) if why else "the runner sent no activity records"
    if not isinstance(raw, list):
        return None, "the runner's activity records are not a list"
    try:
        return [Activity.from_json(a) for a in raw], ""
    except ValueError as exc:
        return None, f"malformed activity records: {exc}"

"""The analysis of one profiled candidate call (the `records` op's activities, collected in the
candidate process): which kernels ran on which streams for how long (own kernels vs library
kernels), and whether any work escaped the timed region. On CUDA the caller's stream is held by
hone's spin kernel before the call and hone's marker kernel follows it, so a kernel that does not
wait for the caller's stream starts before the spin ends, and one the caller's stream does not
wait for ends after the marker starts. Any work on a stream other than the caller's is rejected: a
side stream that happens not to race in the profiled call may still race in the timed ones. Also
`library_ops`, which the python runner calls on its profiler's events (aten ops inside forward)."""
import re
from dataclasses import dataclass, field
from typing import List, Optional, Sequence

# aten ops that only allocate, view, copy or describe tensors: not "library compute".
_PLUMBING = {
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "zeros", "zeros_like", "new_zeros",
    "ones", "ones_like", "new_ones", "full", "full_like", "new_full", "fill_", "zero_", "resize_", "resize_as_",
    "view", "view_as", "reshape", "_reshape_alias", "_unsafe_view", "as_strided", "select", "slice", "narrow",
    "expand", "expand_as", "transpose", "t", "permute", "unsqueeze", "squeeze", "flatten", "unflatten",
    "contiguous", "clone", "copy_", "to", "_to_copy", "detach", "alias", "lift_fresh", "item",
    "_local_scalar_dense", "size", "stride", "numel", "dim", "is_contiguous", "split", "chunk", "unbind",
    "type_as", "set_", "record_stream", "empty_cuda", "_has_compatible_shallow_copy_type", "is_nonzero",
}
_LIBRARY_KERNEL = re.compile(r"at::|cublas|cutlass|cudnn|xmma|gemm|triton_|cub::|elementwise_kernel|reduce_kernel",
                             re.IGNORECASE)
SPIN_KERNEL, MARKER_KERNEL = "hone_spin", "hone_marker"


@dataclass
class Activity:
    """A GPU activity (kernel, memcpy, memset) of the `records` reply, times in us."""

    name: str
    stream: int
    start_us: float
    end_us: float
    kind: str = "kernel"

    @staticmethod
    def from_json(record) -> "Activity":
        """One entry of the reply's `activities`; ValueError when it is malformed."""
        if not isinstance(record, dict):
            raise ValueError(f"an activity must be an object, not {record!r}")
        try:
            return Activity(str(record["name"]), int(record["stream"]), float(record["start_us"]),
                            float(record["end_us"]), str(record.get("kind", "kernel")))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"malformed activity {record!r}: {exc}") from None

    @property
    def duration_us(self) -> float:
        return self.end_us - self.start_us

    @property
    def is_memory_op(self) -> bool:
        return self.kind in ("memcpy", "memset") or self.name.startswith(("Memcpy", "Memset"))


@dataclass
class CallRecords:
    library_ops: List[str] = field(default_factory=list)  # "aten::relu x1", top-level only
    kernel_time: Optional[dict] = None
    escape: Optional[str] = None  # why the work escaped the timer (or left the caller's stream), if it did


def _mangled_base_name(name: str) -> str:
    """The function's own name in an Itanium-mangled name: the last <length><identifier> of its
    nested name (_ZN14hone_attention16attention_kernelI...E... -> attention_kernel), the only one of
    a plain one (_Z11relu_kernelPKf... -> relu_kernel); "" when it cannot tell."""
    i = 3 if name.startswith("_ZN") else 2
    while i < len(name) and name[i] in "rVK":  # cv-qualifiers of a nested name
        i += 1
    last = ""
    while i < len(name) and name[i].isdigit():
        j = i
        while j < len(name) and name[j].isdigit():
            j += 1
        length = int(name[i:j])
        last, i = name[j:j + length], j + length
        if not name.startswith("_ZN"):
            break
    return last


def kernel_base_name(name: str) -> str:
    """relu_kernel from "void ns::relu_kernel<float>(float const*, float*, long)" or its mangled name."""
    if name.startswith("_Z"):
        base = _mangled_base_name(name)
        if base:
            return base
    name = re.sub(r"^(?:void|static|__global__)\s+", "", name.strip())
    depth, cut = 0, len(name)
    for i, ch in enumerate(name):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0:
            cut = i
            break
    name = re.sub(r"<.*>", "", name[:cut])
    return name.split("::")[-1].strip()


def analyze_activities(activities: Sequence[Activity], raw_form: bool, own_kernels: Sequence[str],
                       timed_us: Optional[float]) -> CallRecords:
    """Splits the activities of one profiled call (hone_spin holding the caller's stream, then
    the call, then hone_marker on that stream) into verdict facts."""
    ordered = sorted(activities, key=lambda a: a.start_us)
    spin = next((a for a in ordered if a.name == SPIN_KERNEL), None)
    if spin is None:
        return CallRecords()
    harness = spin.stream
    marker = next((a for a in reversed(ordered) if a.name == MARKER_KERNEL and a.stream == harness), None)
    if marker is None:
        return CallRecords()
    work = [a for a in ordered if a.name not in (SPIN_KERNEL, MARKER_KERNEL)]
    result = CallRecords(kernel_time=_kernel_time(work, raw_form, own_kernels))
    foreign = [a for a in work if a.stream != harness]
    late = [a for a in work if a.end_us > marker.start_us + 0.5]
    early = [a for a in foreign if a.start_us < spin.end_us - 0.5]
    advice = ("launch every kernel on " + ("the hone::Stream forward is given" if raw_form
                                           else "at::cuda::getCurrentCUDAStream()"))
    if late:
        a = max(late, key=lambda x: x.end_us)
        result.escape = (f"work escapes the timer: {a.name} on stream {a.stream} was still running "
                         f"{a.end_us - marker.start_us:.1f} us after the caller's stream had moved on "
                         f"(caller's stream {harness}); {advice}")
    elif early:
        a = early[0]
        result.escape = (f"work escapes the timer: {a.name} on stream {a.stream} started before the caller's stream "
                         f"{harness} reached the call, so it does not wait for the caller's work; {advice}")
    elif timed_us is not None and work:
        span = max(a.end_us for a in work) - min(a.start_us for a in work)
        if span > timed_us * 1.05 + 5.0:
            result.escape = (f"work escapes the timer: the call's kernels span {span:.1f} us but the timed region "
                             f"measured {timed_us:.1f} us; {advice}")
    if foreign and result.escape is None:
        names = ", ".join(sorted({f"{a.name} (stream {a.stream})" for a in foreign})[:3])
        result.escape = (f"work escapes the timer: forward launched {names}, not on the caller's current stream "
                         f"{harness} (a side stream that did not race in this call may race in the timed ones); "
                         f"{advice}")
    return result


def _kernel_time(work: Sequence[Activity], raw_form: bool, own_kernels: Sequence[str]) -> dict:
    own_names = {kernel_base_name(k) for k in own_kernels}

    def is_own(a: Activity) -> bool:
        if a.is_memory_op:
            return True
        if own_names:
            return kernel_base_name(a.name) in own_names
        # No names of its own (a raw kernel that only calls cuBLAS, say): library kernels by name.
        return not _LIBRARY_KERNEL.search(a.name)

    kernels = [{"name": a.name, "duration_us": a.duration_us, "own": is_own(a), "stream": a.stream} for a in work]
    own_us = sum(k["duration_us"] for k in kernels if k["own"])
    library_us = sum(k["duration_us"] for k in kernels if not k["own"])
    total = own_us + library_us
    return {"own_us": own_us, "library_us": library_us, "own_share": own_us / total if total > 0 else 1.0,
            "kernels": kernels}


def _holds(outer, inner) -> bool:
    """`outer`'s range holds `inner`'s (which started later): ties included, and `inner` may end up
    to 1 us after `outer`, since the profiler cuts start and duration to whole us separately."""
    return (outer.time_range.start <= inner.time_range.start
            and inner.time_range.end <= outer.time_range.end + 1)


def library_ops(events, namespace: Optional[str]) -> List[str]:
    """Top-level aten compute ops called inside the candidate's torch.ops.<namespace>.forward.

    Nesting is rebuilt here from each thread's ranges in start order (ranges that start in the
    same us by event id, which a thread's ops take as they start), not read from the events'
    cpu_parent: torch 1.13 builds that tree from whole-us times with half-open ranges and exact
    containment, so a callee whose cut-down end passes its caller's by 1 us, or a 0 us one at its
    caller's last us, loses its parent (forward's aten::relu went uncounted, or relu's
    aten::clamp_min was listed, in about 1% of profiled calls each)."""
    root = f"{namespace}::forward" if namespace else None
    ranges = sorted((e for e in events if e.name.startswith("aten::") or e.name == root),
                    key=lambda e: (e.thread, e.time_range.start, e.id))
    counts, thread, holders = {}, None, []  # holders: the ranges holding the current one, outermost first
    for e in ranges:
        if e.thread != thread:
            thread, holders = e.thread, []
        while holders and not _holds(holders[-1], e):
            holders.pop()
        name = e.name
        if name.startswith("aten::") and name[6:] not in _PLUMBING:
            inside = root is None or any(h.name == root for h in holders)
            nested = any(h.name.startswith("aten::") and h.name[6:] not in _PLUMBING for h in holders)
            if inside and not nested:
                counts[name] = counts.get(name, 0) + 1
        holders.append(e)
    return [f"{n} x{c}" for n, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def records_from_reply(reply: dict, raw_form: bool, own_kernels: Sequence[str]) -> CallRecords:
    """The verdict facts of a `records` reply (the candidate process's claims about one call)."""
    try:
        activities = [Activity.from_json(a) for a in reply.get("activities") or []]
    except ValueError as exc:
        return CallRecords(escape=f"the candidate process sent malformed call records: {exc}")
    timed = reply.get("timed_us")
    timed_us = float(timed) if isinstance(timed, (int, float)) and not isinstance(timed, bool) else None
    records = analyze_activities(activities, raw_form, own_kernels, timed_us) if activities else CallRecords()
    if not raw_form:
        records.library_ops = [str(op) for op in reply.get("library_ops") or []]
    return records

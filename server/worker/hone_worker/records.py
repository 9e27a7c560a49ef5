"""One candidate call under torch.profiler: which PyTorch ops forward called (library ops), which
kernels ran on which streams for how long (own kernels vs library kernels), and whether any work
escaped the timed region. On CUDA the caller's stream is held by a spin kernel before the call
and a marker kernel follows it, so a kernel that does not wait for the caller's stream starts
before the spin ends, and one the caller's stream does not wait for ends after the marker starts.
Any work on a stream other than the caller's is rejected: a side stream that happens not to race
in the profiled call may still race in the timed ones."""
import re
import time
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Sequence

import torch
from torch.profiler import ProfilerActivity, profile

from .devices import Device

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
SLEEP_CYCLES_PER_US = 2000  # torch.cuda._sleep spins for cycles; ~2 GHz SM clocks


@dataclass
class Activity:
    """A GPU activity (kernel, memcpy, memset) from the profiler's device records, times in us."""

    name: str
    stream: int
    start_us: float
    end_us: float

    @property
    def duration_us(self) -> float:
        return self.end_us - self.start_us

    @property
    def is_memory_op(self) -> bool:
        return self.name.startswith(("Memcpy", "Memset"))


@dataclass
class CallRecords:
    library_ops: List[str] = field(default_factory=list)  # "aten::relu x1", top-level only
    kernel_time: Optional[dict] = None
    escape: Optional[str] = None  # why the work escaped the timer (or left the caller's stream), if it did


def kernel_base_name(name: str) -> str:
    """relu_kernel from "void ns::relu_kernel<float>(float const*, float*, long)" or its mangled name."""
    if name.startswith("_Z"):
        match = re.match(r"_ZN?(?:\d+\w+?)*?(\d+)([A-Za-z_]\w*)", name)
        if match:
            return match.group(2)[: int(match.group(1))]
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
    """Splits the activities of one profiled call (first: the spin kernel holding the caller's
    stream; last on that stream: the marker after the call) into verdict facts."""
    ordered = sorted(activities, key=lambda a: a.start_us)
    spin = next((a for a in ordered if "spin_kernel" in a.name), ordered[0] if ordered else None)
    if spin is None:
        return CallRecords()
    harness = spin.stream
    marker = max((a for a in ordered if a.stream == harness and a is not spin), key=lambda a: a.start_us, default=None)
    if marker is None:
        return CallRecords()
    work = [a for a in ordered if a is not marker and a is not spin]
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
        return raw_form or not _LIBRARY_KERNEL.search(a.name)

    kernels = [{"name": a.name, "duration_us": a.duration_us, "own": is_own(a), "stream": a.stream} for a in work]
    own_us = sum(k["duration_us"] for k in kernels if k["own"])
    library_us = sum(k["duration_us"] for k in kernels if not k["own"])
    total = own_us + library_us
    return {"own_us": own_us, "library_us": library_us, "own_share": own_us / total if total > 0 else 1.0,
            "kernels": kernels}


def library_ops(events, namespace: Optional[str]) -> List[str]:
    """Top-level aten compute ops called inside the candidate's torch.ops.<namespace>.forward."""
    root = f"{namespace}::forward" if namespace else None
    counts = {}
    for e in events:
        name = e.name
        if not name.startswith("aten::") or name[6:] in _PLUMBING:
            continue
        ancestors, parent = [], e.cpu_parent
        while parent is not None:
            ancestors.append(parent.name)
            parent = parent.cpu_parent
        inside = root is None or root in ancestors
        nested = any(a.startswith("aten::") and a[6:] not in _PLUMBING for a in ancestors)
        if inside and not nested:
            counts[name] = counts.get(name, 0) + 1
    return [f"{n} x{c}" for n, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def record_call(device: Device, call: Callable[[], object], raw_form: bool, namespace: Optional[str],
                own_kernels: Sequence[str]) -> CallRecords:
    """Profiles one call (the caller has already put fresh inputs in place)."""
    if not device.is_cuda:
        if raw_form:
            return CallRecords()  # no torch inside, no kernels or streams to see on the CPU
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            call()
        return CallRecords(library_ops=[] if raw_form else library_ops(prof.events(), namespace))
    device.synchronize()
    started = time.perf_counter()
    call()
    host_us = (time.perf_counter() - started) * 1e6
    device.synchronize()
    marker = torch.zeros(1, device=device.torch)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    sleep_us = min(100_000.0, max(200.0, 4 * host_us))
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        torch.cuda._sleep(int(sleep_us * SLEEP_CYCLES_PER_US))
        start.record()
        call()
        end.record()
        marker.fill_(1.0)
        torch.cuda.synchronize()
    timed_us = start.elapsed_time(end) * 1000.0
    records = analyze_activities(_device_activities(prof), raw_form, own_kernels, timed_us)
    if not raw_form:
        records.library_ops = library_ops(prof.events(), namespace)
    return records


def _device_activities(prof) -> List[Activity]:
    out = []
    for e in prof.profiler.kineto_results.events():
        if str(e.device_type()).split(".")[-1] != "CUDA":
            continue
        if getattr(e, "is_user_annotation", lambda: False)():
            continue
        if hasattr(e, "start_ns"):
            start, duration = e.start_ns() / 1000.0, e.duration_ns() / 1000.0
        else:
            start, duration = float(e.start_us()), float(e.duration_us())
        out.append(Activity(e.name(), int(e.device_resource_id()), start, start + duration))
    return out

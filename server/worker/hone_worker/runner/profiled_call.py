"""The `records` op: one forward call under torch.profiler (kineto's CUPTI activities on CUDA), with
hone's spin kernel holding the caller's stream before it and hone's marker kernel after it, and the
aten ops forward called. Only the collection happens here; the judge analyses the activities
(streams, escapes, own vs library kernels). Imported on the first `records` op."""
import time
import re
from typing import Callable, List, Optional

import torch
from torch.profiler import ProfilerActivity, profile

from ..records import library_ops
from .harness import Harness

SPIN_KERNEL, MARKER_KERNEL = "hone_spin", "hone_marker"
_HONE_KERNEL = re.compile(r"^(?:void\s+)?(hone_spin|hone_marker|hone_flush_l2|hone_flush|hone_hold)\b")


def activity_name(name: str) -> str:
    """hone's own kernels under their plain names (hone_spin, not "void hone_spin(unsigned long long)")."""
    match = _HONE_KERNEL.match(name)
    return match.group(1) if match else name


def activity_kind(name: str) -> str:
    if name.startswith("Memcpy"):
        return "memcpy"
    if name.startswith("Memset"):
        return "memset"
    return "kernel"


def device_activities(prof) -> List[dict]:
    """The GPU activities kineto recorded (kernels, memcpys, memsets), in start order, times in us
    from the earliest one's start (as the native runner reports its CUPTI records)."""
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
        name = e.name()
        out.append({"name": activity_name(name), "kind": activity_kind(name), "stream": int(e.device_resource_id()),
                    "start_us": start, "end_us": start + duration})
    out.sort(key=lambda a: a["start_us"])
    zero = out[0]["start_us"] if out else 0.0
    for a in out:
        a["start_us"], a["end_us"] = a["start_us"] - zero, a["end_us"] - zero
    return out


def record_call(call: Callable[[], object], keep: Callable[[object], None], device, harness: Optional[Harness],
                spin_us: float, namespace: Optional[str], python_ops: bool) -> dict:
    """Profiles one call; `keep` copies its result into the outputs afterwards, outside the trace
    (so the copy is not mistaken for the call's work). `python_ops`: forward may call aten ops."""
    if not device.is_cuda:
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            started = time.perf_counter_ns()
            result = call()
            timed_us = (time.perf_counter_ns() - started) / 1000.0
        keep(result)
        return {"activities": [], "caller_stream": None, "timed_us": timed_us,
                "library_ops": library_ops(prof.events(), namespace) if python_ops else []}
    stream = torch.cuda.current_stream(device.index).cuda_stream
    word = torch.zeros(1, dtype=torch.int32, device=device.torch)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    device.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        harness.spin(stream, int(spin_us * 1000))
        start.record()
        result = call()
        end.record()
        harness.marker(stream, word.data_ptr())
        device.synchronize()
    keep(result)
    device.synchronize()
    activities = device_activities(prof)
    spin = next((a for a in activities if a["name"] == SPIN_KERNEL), None)
    return {"activities": activities, "caller_stream": spin["stream"] if spin else None,
            "timed_us": start.elapsed_time(end) * 1000.0,
            "library_ops": library_ops(prof.events(), namespace) if python_ops else []}


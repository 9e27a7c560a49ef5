"""libhone_cupti.so (server/cupti/hone_cupti.h) in the python runner, so that it times with the
native runner's CUPTI code: the held calls' activity records and the kernel counters of a `time`
op (issue 14). Loaded by main.py before torch is imported: the toolkit's libcupti is then the one
CUPTI of the process (torch's libraries bind the same soname) and no torch.profiler subscriber is
in the way. Found through $HONE_CUPTI_LIBRARY, else in the share folder (<share>/lib)."""
import ctypes
import json
import os
from typing import Optional

from .harness import share_library

LIBRARY_NAME = "libhone_cupti.so"
_lib: Optional[ctypes.CDLL] = None
_why = "libhone_cupti.so was not loaded before torch (the runner's device is not CUDA)"


def preload() -> None:
    """Loads the library once; where it cannot be, unavailable() says why."""
    global _lib, _why
    if _lib is not None:
        return
    path = share_library("HONE_CUPTI_LIBRARY", LIBRARY_NAME)
    if not os.path.isfile(path):
        _why = f"{LIBRARY_NAME} not found at {path}: hone was built without CUPTI, or set HONE_CUPTI_LIBRARY"
        return
    try:
        lib = ctypes.CDLL(path)
    except OSError as exc:
        _why = f"cannot load {path}: {exc}"
        return
    lib.hone_cupti_begin.argtypes = [ctypes.c_char_p]
    lib.hone_cupti_begin.restype = ctypes.c_char_p
    lib.hone_cupti_end.argtypes = []
    lib.hone_cupti_end.restype = ctypes.c_char_p
    if hasattr(lib, "hone_cupti_prepare"):
        lib.hone_cupti_prepare.argtypes = [ctypes.c_char_p]
        lib.hone_cupti_prepare.restype = ctypes.c_char_p
    if hasattr(lib, "hone_cupti_kernel_prologue"):
        lib.hone_cupti_kernel_prologue.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        lib.hone_cupti_kernel_prologue.restype = ctypes.c_char_p
    _lib, _why = lib, ""


def unavailable() -> str:
    """Why the library cannot be used ("" when it can)."""
    return _why


def begin(request: dict) -> dict:
    if _lib is None:
        return {"ok": False, "error": {"code": "unsupported", "message": _why}}
    return json.loads(_lib.hone_cupti_begin(json.dumps(request).encode()))


def counter_request(most: int) -> dict:
    """The request for a time op's kernel_counters (gpu__time_duration of at most `most` kernels,
    one pass); prepare() sets up this very request ahead, used only by a begin asking the same."""
    return {"metrics": [GPU_TIME], "max_ranges": most, "max_passes": 1}


def prepare(request: dict) -> dict:
    """hone_cupti_prepare: the Range Profiler set up ahead of the begin asking for the same counters."""
    if _lib is None:
        return {"ok": False, "error": {"code": "unsupported", "message": _why}}
    if not hasattr(_lib, "hone_cupti_prepare"):
        return {"ok": False, "error": {"code": "unsupported", "message": "this libhone_cupti.so has no hone_cupti_prepare"}}
    return json.loads(_lib.hone_cupti_prepare(json.dumps(request).encode()))


def has_kernel_prologue() -> bool:
    return _lib is not None and hasattr(_lib, "hone_cupti_kernel_prologue")


def kernel_prologue(function: Optional[int], user: int) -> dict:
    """hone_cupti_kernel_prologue: arms the C function at address `function` (int(void* stream,
    void* user)) before each kernel launch of the running recording, or disarms it (None)."""
    if not has_kernel_prologue():
        return {"ok": False, "error": {"code": "unsupported", "message": _why or "no hone_cupti_kernel_prologue"}}
    return json.loads(_lib.hone_cupti_kernel_prologue(function, user))


def end() -> dict:
    if _lib is None:
        return {"ok": False, "error": {"code": "unsupported", "message": _why}}
    return json.loads(_lib.hone_cupti_end())


def error_text(answer: dict) -> str:
    error = answer.get("error") if isinstance(answer.get("error"), dict) else {}
    return f"{error.get('code', 'error')}: {error.get('message', '')}"


def activities(trace: dict) -> list:
    """An activity trace (hone_cupti_end's "activity") as the `time` reply's `activities`: kernels,
    memcpys and memsets in start order, times in us from the earliest start (as the native
    runner's records_op.cpp writes them)."""
    out = []
    for k in trace.get("kernels", []):
        out.append((k.get("name", ""), "kernel", k))
    for m in trace.get("memcpys", []):
        kind = str(m.get("kind", "other")).upper()
        out.append(("Memcpy " + (kind[0] + "to" + kind[3] if len(kind) == 4 else kind), "memcpy", m))
    for m in trace.get("memsets", []):
        out.append(("Memset", "memset", m))
    out.sort(key=lambda e: int(e[2].get("start_ns", 0)))
    zero = int(out[0][2].get("start_ns", 0)) if out else 0
    return [{"name": name, "kind": kind, "stream": int(r.get("stream", 0)),
             "start_us": (int(r.get("start_ns", 0)) - zero) / 1000.0, "end_us": (int(r.get("end_ns", 0)) - zero) / 1000.0}
            for name, kind, r in out]


def counter_ranges(metrics: dict, most: int) -> tuple:
    """The Range Profiler's answer as [{"name", "gpu_time_us"}] per kernel in launch order, or
    (None, why not), as time_op.cpp writes them."""
    dropped = metrics.get("ranges_dropped", 0)
    if dropped:
        return None, f"the Range Profiler dropped {dropped} kernel ranges (more than {most} kernels)"
    out = []
    for r in metrics.get("ranges", []):
        value = (r.get("values") or {}).get(GPU_TIME)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return None, f"the Range Profiler gave no {GPU_TIME} for kernel {r.get('name', '?')}"
        out.append({"name": str(r.get("name", "")), "gpu_time_us": float(value) / 1000.0})
    return out, ""


GPU_TIME = "gpu__time_duration.sum"  # nanoseconds

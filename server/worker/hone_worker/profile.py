"""The `profile` method (issue 4): kernel records and hardware counters of one candidate call and
one reference call. They are collected in a child process (`python3 -m hone_worker.profile`)
that loads libhone_cupti.so before torch, so the toolkit's CUPTI is the one in the process and
no torch.profiler subscriber is active, and so a CUPTI crash cannot take the worker down. For
each call: a warm-up, a traced call (Activity API: durations, launch configurations), then a
counter pass (Range Profiler, kernel replay). Last, after every other measurement, one more
candidate call counts per SASS instruction (SASS Metrics API: the kernels run patched, so
nothing else is measured then). When counters are unavailable the reason is kept and `ncu` is
tried; numbers are never invented. This module imports torch only inside functions."""
import argparse
import ctypes
import json
import os
import shutil
import sys
import time
import traceback

from .channel import Request
from .errors import BadRequest, KernelError, TaskError, Unsupported, WorkerError

METRIC_SETS = ("default", "full")
CHILD_TIMEOUT_S = 600
WARMUP_CALLS = 2
# The SASS pass's bounds: kernels of the candidate call, and instruction rows over all of them.
SASS_LIMITS = {"max_kernels": 8, "max_instructions": 65536}
SASS_INTERRUPTED = "child_died"  # the sass_error of a result kept before a SASS pass that never returned
# torch dtype name of the task's first input -> the tensor-core precision hone_cupti counts.
CUPTI_DTYPES = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "float64": "fp64", "int8": "int8",
                "float8_e4m3fn": "fp8", "float8_e5m2": "fp8"}


def handle_profile(params: dict, request: Request) -> dict:
    """Validates the request here, profiles in a confined child, falls back to ncu for the counters."""
    from .profile_launch import ProfileChild  # noqa: PLC0415

    child_request = _child_request(params)
    started = time.perf_counter()
    with ProfileChild(child_request["device"]) as child:
        child_request = child.stage(child_request)
        request.progress("profile", "tracing and counting one candidate call and one reference call")
        result = _run_child(child, child_request, ncu=False)
        missing = result["candidate"].get("counters_error")
        if missing and missing.get("code") != "no_device":
            from .profile_ncu import ncu_counters  # noqa: PLC0415 - only when CUPTI could not count

            request.progress("profile", f"CUPTI counters unavailable ({missing.get('code')}); trying ncu")
            ncu_counters(result, lambda prefix: _run_child(child, child_request, ncu=True, prefix=prefix),
                         child.folder)
    result["seconds"] = {"total": time.perf_counter() - started}
    return result


def _child_request(params: dict) -> dict:
    from .devices import parse_device
    from .kernel_spec import KernelSpec

    device = parse_device(params.get("device", "cpu"))
    if not device.is_cuda:
        raise Unsupported(f"profiling reads GPU hardware counters and needs a CUDA device, not {device}")
    KernelSpec.from_params(params.get("kernel"))
    if not isinstance(params.get("task"), str):
        raise BadRequest("params.task must be the path of a task file")
    metrics = params.get("metrics", "default")
    if metrics not in METRIC_SETS:
        raise BadRequest(f"params.metrics must be one of {', '.join(METRIC_SETS)}, not {metrics!r}")
    library = params.get("cupti_library")
    if not isinstance(library, str) or not os.path.isfile(library):
        raise Unsupported(f"the CUPTI library libhone_cupti.so was not found ({library!r}): hone was built without "
                          "CUPTI, or the share folder is incomplete")
    return {"task": params["task"], "device": str(device), "kernel": params["kernel"], "metrics": metrics,
            "cupti_library": library, "seed": int(params.get("seed", 1)),
            "reference": bool(params.get("reference", True)), "sass": bool(params.get("sass", True))}


def _run_child(child, child_request: dict, ncu: bool, prefix=None) -> dict:
    """Runs this module in the confined child (under `prefix`, e.g. an ncu command line, inside
    the confinement) and returns its result."""
    request_path = os.path.join(child.folder, "request.json")
    out_path = os.path.join(child.folder, "ncu-result.json" if ncu else "result.json")
    with open(request_path, "w") as f:
        json.dump(child_request, f)
    os.chmod(request_path, 0o644)
    arguments = [request_path, out_path] + (["--ncu"] if ncu else [])
    code = child.run(arguments, list(prefix or []), CHILD_TIMEOUT_S)
    if code is None:
        raise WorkerError(f"the profiling child did not finish within {CHILD_TIMEOUT_S} s")
    if not os.path.isfile(out_path):
        raise WorkerError(f"the profiling child died ({code}) before writing its result; its stderr is in the "
                          "worker's log")
    with open(out_path) as f:
        answer = json.load(f)
    sass_error = (answer.get("candidate") or {}).get("sass_error") or {}
    if sass_error.get("code") == SASS_INTERRUPTED:
        sass_error["message"] += f" ({code}); the other counters were kept"
    if "error" in answer:
        raise _error_class(answer["error"].get("code"))(answer["error"].get("message", "profiling failed"),
                                                        answer["error"].get("traceback", ""))
    return answer


def _error_class(code):
    return {"task_error": TaskError, "kernel_error": KernelError, "bad_request": BadRequest,
            "unsupported": Unsupported}.get(code, WorkerError)


class Cupti:
    """libhone_cupti.so through ctypes (server/cupti/hone_cupti.h): JSON in, JSON out."""

    def __init__(self, path: str) -> None:
        self.lib = ctypes.CDLL(path)
        for name in ("hone_cupti_version", "hone_cupti_begin", "hone_cupti_end", "hone_cupti_host_query"):
            getattr(self.lib, name).restype = ctypes.c_char_p
        self.lib.hone_cupti_begin.argtypes = [ctypes.c_char_p]
        self.lib.hone_cupti_host_query.argtypes = [ctypes.c_char_p]

    def version(self) -> dict:
        return json.loads(self.lib.hone_cupti_version())

    def record(self, request: dict, call, synchronize) -> dict:
        """begin(request); call(); synchronize(); end() -> the end answer, or the first error."""
        begun = json.loads(self.lib.hone_cupti_begin(json.dumps(request).encode()))
        if not begun.get("ok"):
            return begun
        try:
            call()
        finally:
            synchronize()
            ended = json.loads(self.lib.hone_cupti_end())
        return ended


def profile_side(cupti: Cupti, call, synchronize, metrics: str, dtype: str) -> dict:
    """The traced call and the counted call of one side (candidate or reference)."""
    side = {"source": "cupti", "activity": None, "metrics": None, "counters_error": None, "activity_error": None}
    t = time.perf_counter()
    traced = cupti.record({"activity": True}, call, synchronize)
    seconds = {"activity": time.perf_counter() - t}
    if traced.get("ok"):
        side["activity"] = traced["activity"]
    else:
        side["activity_error"] = traced.get("error")
    t = time.perf_counter()
    counted = cupti.record({"metrics": metrics, "dtype": dtype}, call, synchronize)
    seconds["metrics"] = time.perf_counter() - t
    if counted.get("ok"):
        side["metrics"] = counted["metrics"]
        seconds["cupti"] = counted.get("seconds")
    else:
        side["counters_error"] = counted.get("error")
    side["seconds"] = seconds
    return side


def sass_counters(cupti: Cupti, call, synchronize) -> dict:
    """One more call with every kernel it launches patched to count per SASS instruction:
    {"sass": hone_cupti's sass answer | None, "sass_error": {"code", "call", "message"} | None}."""
    t = time.perf_counter()
    try:
        recorded = cupti.record({"sass": SASS_LIMITS}, call, synchronize)
    except Exception as exc:  # noqa: BLE001 - the patched call failed; what was measured before it stands
        return {"sass": None, "sass_error": {"code": "kernel_error", "call": "candidate call",
                                             "message": f"the candidate call failed under SASS patching: "
                                                        f"{type(exc).__name__}: {exc}"}}
    if not recorded.get("ok"):
        return {"sass": None, "sass_error": recorded.get("error")}
    sass = recorded["sass"]
    sass["seconds"] = time.perf_counter() - t
    return {"sass": sass, "sass_error": None}


class Subject:
    """The task instance and the two calls a profile measures, built as `check` builds them."""

    def __init__(self, child_request: dict) -> None:
        import torch

        from .candidate import Candidate, KernelSpec
        from .devices import parse_device
        from .environment import _device
        from .instance import build_instance, run_reference
        from .modelnew import MODEL_SEED
        from .task import load_task
        from .task_info import derive_task_signature

        self.device = parse_device(child_request["device"])
        torch.cuda.set_device(self.device.index)
        task = load_task(child_request["task"])
        signature = derive_task_signature(task, self.device)
        spec = KernelSpec.from_params(child_request["kernel"])
        if spec.form == "modelnew":
            # A KernelBench answer owns its weights: Model is built from the same seed as ModelNew.
            instance = build_instance(task, self.device, child_request["seed"], MODEL_SEED)
            self.candidate = _modelnew_call(spec, child_request["task"], self.device, instance.inputs)
        else:
            candidate = Candidate(spec, signature, self.device)
            instance = build_instance(task, self.device, child_request["seed"])
            outputs = ([torch.empty(o.shape, dtype=getattr(torch, o.dtype), device=self.device.torch)
                        for o in signature.outputs] if candidate.form == "raw" else None)
            bound = candidate.bind(instance.inputs + instance.params, outputs)
            self.candidate = lambda: bound.run()
        self.own_kernels = spec.own_kernels
        self.reference = lambda: run_reference(instance)
        tensors = [v for v in instance.inputs + instance.params if isinstance(v, torch.Tensor)]
        first = next((t for t in instance.inputs if isinstance(t, torch.Tensor)), None)
        self.dtype = str(first.dtype).replace("torch.", "") if first is not None else "float32"
        self.io_bytes = sum(t.numel() * t.element_size() for t in tensors + run_reference(instance))
        self.facts = _device(self.device.index)

    def synchronize(self) -> None:
        self.device.synchronize()

    def warm_up(self) -> None:
        import torch

        with torch.no_grad():
            for _ in range(WARMUP_CALLS):
                self.candidate()
                self.reference()
        self.synchronize()


def _modelnew_call(spec, task_path: str, device, inputs):
    """ModelNew of a KernelBench answer, built as the candidate processes build it (the runner's
    modelnew form: hone's builds in place of load_inline, every generator seeded with MODEL_SEED),
    and a call of its forward on `inputs`. This child is confined and may hold candidate code."""
    from .modelnew import MODEL_SEED
    from .runner.errors import RunnerError
    from .runner.forms import LoadSpec, load_candidate

    load = LoadSpec.from_json({"form": "modelnew", "seed": MODEL_SEED, "source": spec.library, "task": task_path,
                               "modules": {name: m["library"] for name, m in spec.modules.items()},
                               "namespaces": {name: m["namespace"] for name, m in spec.modules.items()}})
    try:
        call = load_candidate(load, device).bind(list(inputs), [])
    except RunnerError as exc:
        raise KernelError(exc.message, exc.traceback or "") from None
    return call


def _child_main(argv) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m hone_worker.profile")
    parser.add_argument("request")
    parser.add_argument("out")
    parser.add_argument("--ncu", action="store_true", help="run one candidate call between cudaProfilerStart/Stop")
    args = parser.parse_args(argv)
    with open(args.request) as f:
        child_request = json.load(f)
    try:
        # CUPTI before torch: its libcupti.so.13 is then the one torch's own references resolve to.
        cupti = None if args.ncu else Cupti(child_request["cupti_library"])
        result = (_run_ncu_call(child_request) if args.ncu
                  else _profile(child_request, cupti, lambda partial: _write_result(args.out, partial)))
    except WorkerError as exc:
        result = {"error": {"code": exc.code, "message": exc.message, "traceback": exc.traceback}}
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which answers the request
        result = {"error": {"code": "internal", "message": f"profiling failed: {type(exc).__name__}: {exc}",
                            "traceback": traceback.format_exc()}}
    _write_result(args.out, result)
    return 0


def _write_result(path: str, result: dict) -> None:
    """The result file, replaced whole (the parent never reads half of one)."""
    with open(path + ".part", "w") as f:
        json.dump(result, f)
    os.replace(path + ".part", path)


def _profile(child_request: dict, cupti: Cupti, checkpoint) -> dict:
    """`checkpoint(result)` keeps the result so far before the SASS pass: if patched code takes the
    child down, the counters and records measured before it still reach the parent."""
    import torch

    subject = Subject(child_request)
    subject.warm_up()
    dtype = CUPTI_DTYPES.get(subject.dtype, "")
    metrics = child_request["metrics"]
    with torch.no_grad():
        candidate = profile_side(cupti, subject.candidate, subject.synchronize, metrics, dtype)
        reference = (profile_side(cupti, subject.reference, subject.synchronize, metrics, dtype)
                     if child_request.get("reference", True) else None)
    result = {"device": subject.facts, "dtype": subject.dtype, "io_bytes": subject.io_bytes,
              "own_kernels": subject.own_kernels, "cupti": cupti.version(), "metrics_set": metrics,
              "candidate": candidate, "reference": reference}
    if child_request.get("sass", True):
        candidate.update({"sass": None, "sass_error": {"code": SASS_INTERRUPTED, "call": "", "message": (
            "the profiling child ended during the per-instruction (SASS) pass")}})
        checkpoint(result)
        with torch.no_grad():
            candidate.update(sass_counters(cupti, subject.candidate, subject.synchronize))
    return result


def _run_ncu_call(child_request: dict) -> dict:
    """Under ncu (--profile-from-start off): one candidate call inside cudaProfilerStart/Stop."""
    import torch

    subject = Subject(child_request)
    subject.warm_up()
    with torch.no_grad():
        torch.cuda.cudart().cudaProfilerStart()
        subject.candidate()
        subject.synchronize()
        torch.cuda.cudart().cudaProfilerStop()
    return {"ok": True}


def ncu_path():
    """ncu on PATH, else in the CUDA toolkit's bin folder; None when absent."""
    found = shutil.which("ncu")
    if found:
        return found
    for home in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if home and os.access(os.path.join(home, "bin", "ncu"), os.X_OK):
            return os.path.join(home, "bin", "ncu")
    return None


if __name__ == "__main__":
    sys.exit(_child_main(sys.argv[1:]))

"""The `time_reference` method: the task's Model timed eagerly or under torch.compile in a clean
python-runner process (the `reference` form; compile: warmed there until torch._dynamo's counters
show no recompilation), by the same `time` ops that time candidates (input variation, cache flush,
call time and device time). The judge checks a sample of the timed outputs against its own
reference. A noisy measurement (the machine was busy) is measured again within a budget and
reported as `noisy` if it stays noisy, so the caller neither caches it nor divides by it silently
(noisy: the spread of the time speedups divide, device time on CUDA; on the CPU also a window in
which other processes kept the machine busy, machine_load.py)."""
import torch

from .candidate_session import CandidateSession, Deadline
from .channel import Request
from .compare import tolerance_for
from .devices import parse_device, release_cached_memory
from .errors import BadRequest, KernelError, TaskError, Unsupported, WorkerError
from .exchange import SharedMemory
from .faults import CandidateFailure, TimingWithheld
from .instance import build_instance, run_reference
from .machine_load import LoadWindow
from .policy import Policy
from .sessions import open_session, prepare
from .task import load_task
from .timed_checks import SlotChecker
from .timed_runs import TimedRun, outputs_bytes
from .timing import NOISY_SPREAD
from .variation import InputSets, pool_size

REFERENCE_SEED = 1
VERIFY_MS = 50.0  # the reference process is clean: a few timed calls are checked, not all


def handle_time_reference(params: dict, request: Request) -> dict:
    """`time_reference`: called by the request loop on the main thread; the reference's timing."""
    deadline = Deadline(params.get("deadline_s"))
    device = parse_device(params.get("device", "cpu"))
    if device.kind == "meta":
        raise BadRequest("time_reference needs a real device (cpu or cuda)")
    mode = params.get("mode", "eager")
    if mode not in ("eager", "compile"):
        raise BadRequest(f"params.mode must be eager or compile, not {mode!r}")
    if mode == "compile" and not hasattr(torch, "compile"):
        raise Unsupported(f"torch.compile needs torch >= 2.0; this worker runs torch {torch.__version__}")
    policy = Policy.from_params(params.get("policy"))
    prepare("reference", device)
    task = load_task(params.get("task"))
    what = "torch.compile(Model)" if mode == "compile" else "Model.forward"
    instance = build_instance(task, device, REFERENCE_SEED)
    expected = run_reference(instance)
    outputs = [(o.dtype, list(o.shape)) for o in expected]
    tolerances = [tolerance_for(o.dtype, task.atol, task.rtol) for o in expected]
    del expected  # only its shapes are needed: GiBs for a KernelBench level-1 task
    release_cached_memory()  # for the shared arenas and the runner, which cannot use torch's cache
    memory = SharedMemory(device)
    session = run = None
    try:
        session = open_session("reference", device, memory, deadline)
        request.progress("timing", f"{task.name} ({mode}): loading the reference in a clean process")
        _load(session, task.path, mode)
        checker = SlotChecker(lambda inputs: run_reference(instance, inputs), tolerances, raw=False,
                              budget_ms=VERIFY_MS, spot_checks=policy.spot_checks)
        sets = InputSets(task, device, instance.inputs, pool_size(instance.inputs, device, outputs_bytes(outputs)), REFERENCE_SEED)
        run = TimedRun(session, memory, device, sets, list(instance.inputs), len(instance.inputs), outputs, policy,
                       checker, lambda m: request.progress("timing", f"{task.name} ({mode}): {m}"))
        instance.inputs = []  # in the timed buffers now; the checker passes every call's own inputs
        release_cached_memory()
        load = LoadWindow()
        with torch.no_grad():
            outcome = run.run(lambda mode_, fresh: None)
        machine = load.finish()
        torch_version = (session.process.ready or {}).get("torch") or torch.__version__
    except CandidateFailure as failure:
        raise TaskError(f"{what} failed in a clean process: {failure.reason}",
                        failure.evidence.get("traceback", "")) from None
    except TimingWithheld as busy:
        # The reference runs without bounds (no null loop), so this is not expected; were it raised,
        # the baseline is unavailable for this check (an internal error: never cached, never a task
        # error), not a crash.
        raise WorkerError(f"{what} was timed but its time withheld on a busy machine: {busy.reason}") from None
    except KernelError as exc:
        raise TaskError(f"the reference could not be loaded in a clean process: {exc.message}", exc.traceback) from None
    finally:
        if session is not None:
            session.end()
        run = None  # its output slots view the arenas: drop them so close() can release them
        memory.close()
    # Noisy is the basis time's spread (the one speedups divide: device time on CUDA, call time on
    # the CPU); a noisy call time beside a quiet device time is kept, and every call-time speedup
    # against it is a range (its own p10..p90 says so).
    basis = outcome.device if device.is_cuda and outcome.device is not None else outcome.call
    spread = basis.spread
    # A timed window in which torch.compile compiled again timed the compiler: never a baseline.
    recompiled = int(outcome.extra.get("recompilations") or 0) > 0
    # On the CPU a steady load from other processes slows the reference without making it noisy:
    # such a baseline is never cached either (on CUDA device time stands; the load is reported).
    busy = not device.is_cuda and bool(machine and machine["busy"])
    return {"mode": mode, "timing": outcome.to_json(), "torch": torch_version, "device": str(device),
            "noisy": spread > NOISY_SPREAD or recompiled or busy, "spread": spread, "recompiled": recompiled,
            "machine_load": machine, "busy_machine": busy}


def _load(session: CandidateSession, path: str, mode: str) -> None:
    staged = session.stage_file(path, "task.py")
    session.load({"form": "reference", "source": staged, "seed": REFERENCE_SEED, "compile": mode == "compile"})

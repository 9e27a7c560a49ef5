"""The `time_reference` method: the task's Model timed eagerly or under torch.compile by the same
code that times candidates (input variation, cache flush, events, budgets). A noisy measurement
(the machine was busy) is taken again once, and reported as `noisy` if it stays noisy, so the
caller neither caches it nor divides by it silently."""
import torch

from .channel import Request
from .errors import BadRequest, TaskError, Unsupported, task_error_from
from .instance import build_instance
from .results import Policy
from .task import load_task
from .devices import parse_device
from .timing import NOISY_SPREAD, Budget, make_clock, time_calls
from .variation import InputVariation, pool_size

REFERENCE_SEED = 1


def handle_time_reference(params: dict, request: Request) -> dict:
    """`time_reference`: called by the request loop on the main thread; the reference's timing."""
    device = parse_device(params.get("device", "cpu"))
    if device.kind == "meta":
        raise BadRequest("time_reference needs a real device (cpu or cuda)")
    mode = params.get("mode", "eager")
    if mode not in ("eager", "compile"):
        raise BadRequest(f"params.mode must be eager or compile, not {mode!r}")
    if mode == "compile" and not hasattr(torch, "compile"):
        raise Unsupported(f"torch.compile needs torch >= 2.0; this worker runs torch {torch.__version__}")
    policy = Policy.from_params(params.get("policy"))
    task = load_task(params.get("task"))
    instance = build_instance(task, device, REFERENCE_SEED)
    model = torch.compile(instance.model) if mode == "compile" else instance.model
    inputs = instance.inputs

    def call():
        return model(*inputs)

    request.progress("timing", f"{task.name} ({mode}): first call")
    try:
        with torch.no_grad():
            call()
            device.synchronize()
            variation = InputVariation(task, device, inputs, pool_size(inputs, device), REFERENCE_SEED)
            request.progress("timing", f"{task.name} ({mode}): timing with {variation.sets} input sets")
            budget = Budget(policy.warmup_ms, policy.rep_ms, policy.min_reps, policy.max_reps, 0)
            timing = time_calls(make_clock(device), call, budget, variation.apply, variation.sets)
            if timing.spread > NOISY_SPREAD:
                request.progress("timing", f"{task.name} ({mode}): noisy ({100 * timing.spread:.0f}% spread), again")
                again = time_calls(make_clock(device), call, budget, variation.apply, variation.sets)
                timing = min(timing, again, key=lambda t: t.spread)
    except TaskError:
        raise
    except Exception as exc:  # noqa: BLE001 - the reference (or its compilation) failed
        raise task_error_from("torch.compile(Model)" if mode == "compile" else "Model.forward", exc) from None
    return {"mode": mode, "timing": timing.to_json(), "torch": torch.__version__, "device": str(device),
            "noisy": timing.spread > NOISY_SPREAD, "spread": timing.spread}

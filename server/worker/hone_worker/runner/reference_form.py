"""The reference form: the task file's Model, built after seeding as the judge builds it, so that a
clean candidate process times the reference with the same code as a candidate. `compile`:
torch.compile(model), warmed before timing until nothing recompiles (torch._dynamo's counters)."""
import time
from typing import Sequence

import torch

from ..devices import Device
from ..errors import TaskError
from ..task import load_task
from .errors import RunnerError, load_error, unsupported
from .forms import Candidate, LoadSpec, build_seeded, describe_state

MAX_WARM_CALLS = 20


class ReferenceCandidate(Candidate):
    form = "reference"
    writes_outputs = False

    def __init__(self, model: torch.nn.Module, compiled) -> None:
        self._model, self._compiled = model, compiled
        self._callable = compiled if compiled is not None else model
        self._mark = None

    def params(self):
        return describe_state(self._model)

    def bind(self, args: Sequence, outputs: Sequence[torch.Tensor]):
        model, values = self._callable, list(args)
        return lambda: model(*values)

    def warm(self, call) -> dict:
        if self._compiled is None:
            return {}
        started, calls = time.perf_counter(), 0
        while calls < MAX_WARM_CALLS:
            before = _compilations()
            call()
            calls += 1
            if calls >= 2 and _compilations() == before:
                break
        self._mark = _compilations()
        return {"compile_warmup_calls": calls, "compile_warmup_s": time.perf_counter() - started,
                "compilations": self._mark}

    def after_timing(self) -> dict:
        if self._compiled is None or self._mark is None:
            return {}
        return {"recompilations": _compilations() - self._mark}


def _compilations() -> int:
    """Frames dynamo has compiled so far (it converts a frame only on a cache miss)."""
    from torch._dynamo.utils import counters  # noqa: PLC0415 - only with compile

    return int(counters["frames"]["total"]) + int(counters["stats"]["unique_graphs"])


def load(spec: LoadSpec, device: Device) -> ReferenceCandidate:
    try:
        task = load_task(spec.source)
        model = build_seeded(device, spec.seed, task.get_init_inputs, spec.init, task.model_class)
    except TaskError as exc:
        raise RunnerError("load_error", exc.message, exc.traceback or None) from None
    except Exception as exc:  # noqa: BLE001 - task code may raise anything
        raise load_error(f"building Model(*get_init_inputs()) of {spec.source} raised {type(exc).__name__}: {exc}",
                         exc) from None
    compiled = None
    if spec.compile:
        if not hasattr(torch, "compile"):
            raise unsupported(f"torch.compile needs torch >= 2.0; this runner has torch {torch.__version__}")
        compiled = torch.compile(model)
    return ReferenceCandidate(model, compiled)

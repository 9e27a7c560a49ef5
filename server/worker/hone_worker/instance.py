"""One seeded instance of a task on a device: fresh weights (Model built after seeding), fresh
inputs built on the device, the state_dict tensors in order, and the reference's forward call."""
import inspect
import keyword
import re
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence

import torch

from .devices import Device
from .errors import TaskError, task_error_from
from .task import Task

SCALARS = (bool, int, float)


@dataclass
class Instance:
    """What forward receives for one seed; tensors are on the instance's device."""

    seed: int
    model: torch.nn.Module
    input_names: List[str]
    inputs: list  # tensors and Python scalars, in get_inputs() order
    param_names: List[str]
    params: List[torch.Tensor]  # state_dict() tensors in order, detached from autograd


def build_instance(task: Task, device: Device, seed: int, weights_seed: Optional[int] = None) -> Instance:
    """Seeds every generator, then builds Model(*get_init_inputs()) and get_inputs() on the device.
    Never calls model.eval(): KernelBench references run in their default (training) mode.
    `weights_seed` (a ModelNew answer, which owns its weights): Model is built after seeding with it
    for every seed, as ModelNew was, and only the inputs follow `seed`."""
    device.seed(seed if weights_seed is None else weights_seed)
    with device.placement(), torch.no_grad():
        init = _call(task.get_init_inputs, "get_init_inputs()")
        if not isinstance(init, (list, tuple)):
            raise TaskError(f"get_init_inputs() must return a list, not {type(init).__name__}")
        model = _call(lambda: task.model_class(*init), "Model(*get_init_inputs())")
        model.to(device.torch)
    inputs = build_inputs(task, device, seed)
    state = model.state_dict()
    input_names = _input_names(model, len(inputs))
    names = _unique(input_names + [_identifier(k.replace(".", "_"), "p") for k in state.keys()])
    params = [t.detach() for t in state.values()]
    return Instance(seed, model, names[: len(inputs)], inputs, names[len(inputs) :], params)


def build_inputs(task: Task, device: Device, seed: int) -> list:
    """Only get_inputs() for a seed, on the device (input sets for timing and fresh-input checks).
    Inputs draw from a generator seeded apart from the weights', so they are not the same numbers."""
    device.seed((seed * 1000003 + 12345) % (1 << 62))
    with device.placement(), torch.no_grad():
        inputs = _call(task.get_inputs, "get_inputs()")
    if not isinstance(inputs, (list, tuple)):
        raise TaskError(f"get_inputs() must return a list, not {type(inputs).__name__}")
    return [_on_device(x, i, device) for i, x in enumerate(inputs)]


def run_reference(instance: Instance, inputs: Sequence = None) -> List[torch.Tensor]:
    """The reference's outputs as a list of tensors (forward may return a tensor or a tuple)."""
    args = instance.inputs if inputs is None else inputs
    with torch.no_grad():
        result = _call(lambda: instance.model(*args), "Model.forward")
    return normalize_outputs(result, "Model.forward")


def normalize_outputs(result, who: str) -> List[torch.Tensor]:
    """A forward's result as a list of tensors; raises TaskError for anything else."""
    items = list(result) if isinstance(result, (tuple, list)) else [result]
    if not items:
        raise TaskError(f"{who} returned no outputs")
    for i, item in enumerate(items):
        if not isinstance(item, torch.Tensor):
            raise TaskError(f"{who} output {i} is a {type(item).__name__}; hone compares tensor outputs only")
    return items


@torch.no_grad()
def clone_args(values: Sequence) -> list:
    """Deep copies of tensors (same strides), scalars as they are."""
    return [_clone(v) if isinstance(v, torch.Tensor) else v for v in values]


def _clone(t: torch.Tensor) -> torch.Tensor:
    return torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device=t.device).copy_(t)


def _call(fn: Callable, what: str):
    try:
        return fn()
    except TaskError:
        raise
    except Exception as exc:  # noqa: BLE001 - task code may raise anything
        raise task_error_from(what, exc) from None


def _on_device(value, index: int, device: Device):
    if isinstance(value, torch.Tensor):
        return value if value.device == device.torch else value.to(device.torch)
    if isinstance(value, SCALARS):
        return value
    raise TaskError(
        f"get_inputs() item {index} is a {type(value).__name__}; forward inputs must be tensors or int/float/bool scalars"
    )


def _input_names(model: torch.nn.Module, count: int) -> List[str]:
    try:
        parameters = list(inspect.signature(model.forward).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    names = []
    for p in parameters:
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
        elif p.kind == p.VAR_POSITIONAL:
            break
    names = names[:count] + [f"input{i}" for i in range(len(names), count)]
    return [_identifier(n, "input") for n in names]


def _identifier(name: str, prefix: str) -> str:
    name = re.sub(r"\W", "_", name)
    if not name or name[0].isdigit() or keyword.iskeyword(name):
        name = f"{prefix}_{name}"
    return name


def _unique(names: List[str]) -> List[str]:
    seen, out = set(), []
    for n in names:
        candidate, k = n, 2
        while candidate in seen:
            candidate, k = f"{n}_{k}", k + 1
        seen.add(candidate)
        out.append(candidate)
    return out

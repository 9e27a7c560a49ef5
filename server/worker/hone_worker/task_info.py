"""The `task_info` method and the signature derivation that `check` shares: a fixed-seed instance
of the task, its reference outputs (which must be deterministic), and how much those outputs
vary across seeds."""
from typing import List

import torch

from .channel import Request
from .compare import compare_outputs, tolerance_for
from .devices import Device, parse_device
from .errors import TaskError
from .instance import build_instance, clone_args, run_reference
from .signature import Signature, derive_signature
from .task import Task, load_task
from .task_init import task_init

SIGNATURE_SEED = 0x5EED
VARIABILITY_SEEDS = (1, 2, 3)


def derive_task_signature(task: Task, device: Device) -> Signature:
    """Runs the reference on a fixed seed (never one of a check's trial seeds) for the output
    shapes and dtypes, and makes sure it is deterministic (TaskError otherwise)."""
    instance = build_instance(task, device, SIGNATURE_SEED)
    return derive_signature(instance, _deterministic_outputs(task, instance))


def handle_task_info(params: dict, request: Request) -> dict:
    """`task_info`: called by the request loop on the main thread; the task's forward signature."""
    device = parse_device(params.get("device", "cpu"))
    task = load_task(params.get("task"))
    request.progress("task", f"deriving the signature of {task.name} on {device}")
    instance = build_instance(task, device, SIGNATURE_SEED)
    outputs = run_reference(instance) if device.kind == "meta" else _deterministic_outputs(task, instance)
    signature = derive_signature(instance, outputs)
    language = params.get("language") or ("cpp" if device.kind == "cpu" else "cuda")
    result = {"task_hash": task.hash, "name": task.name, "path": task.path}
    result.update(signature.to_json(language))
    result["input_bytes"] = _bytes(instance.inputs) + _bytes(instance.params)
    result["output_bytes"] = _bytes(outputs)
    tolerances = _tolerances(task, outputs)
    result["tolerance"] = {"atol": max(t.atol for t in tolerances), "rtol": max(t.rtol for t in tolerances)}
    result["init"] = task_init(task)
    result["variability"] = None if device.kind == "meta" else _variability(task, device, tolerances, request)
    return result


def _tolerances(task: Task, outputs) -> list:
    return [tolerance_for(o.dtype, task.atol, task.rtol) for o in outputs]


def _deterministic_outputs(task: Task, instance) -> list:
    """The reference's outputs; two calls on the same inputs must agree within the tolerance, or
    no candidate can be judged against it (random ops such as dropout in training mode)."""
    first = run_reference(instance, clone_args(instance.inputs))
    second = run_reference(instance, clone_args(instance.inputs))
    comparison = compare_outputs(second, first, _tolerances(task, first), raw_buffers=False)
    if not comparison.passed:
        raise TaskError(f"{task.path}: the reference is not deterministic: two calls on the same inputs differ "
                        f"({comparison.mismatch.message}); random operations such as dropout in training mode "
                        "make a reference that no kernel can be checked against")
    return first


def _variability(task: Task, device: Device, tolerances, request: Request) -> dict:
    first, max_diff, within = None, 0.0, True
    for seed in VARIABILITY_SEEDS:
        request.progress("task", f"reference on seed {seed}")
        outputs = run_reference(build_instance(task, device, seed))
        if first is None:
            first = outputs
            continue
        comparison = compare_outputs(outputs, first, tolerances, raw_buffers=False)
        max_diff = max(max_diff, comparison.max_abs_error or 0.0)
        within &= comparison.passed
    return {"max_abs_diff_across_seeds": max_diff, "weak": within}


def _bytes(values: List) -> int:
    return sum(v.numel() * v.element_size() for v in values if isinstance(v, torch.Tensor))
